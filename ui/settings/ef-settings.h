/* ef-settings.h: the application's settings, read from the schema source the program chose at start-up. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* Where APP_ID's schema is looked up from now on: a source of the program's own (the build tree's
 * compiled schema, say), or NULL for GLib's default source (GSETTINGS_SCHEMA_DIR and XDG_DATA_DIRS).
 * Takes a reference. Call it before the first window is made. */
void ef_settings_set_schema_source (GSettingsSchemaSource *source);

/* Whether APP_ID's schema can be found in the chosen source. */
gboolean ef_settings_schema_is_available (void);

/* A new GSettings for APP_ID (the caller owns it). The schema must be available: like g_settings_new(),
 * this aborts without it, which ef_settings_schema_is_available() lets a program report first. */
GSettings *ef_settings_new (void);

G_END_DECLS
