/* ef-preferences-window.h: the preferences: defaults for new collections, stored in GSettings. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

#define EF_TYPE_PREFERENCES_WINDOW (ef_preferences_window_get_type ())
G_DECLARE_FINAL_TYPE (EfPreferencesWindow, ef_preferences_window, EF, PREFERENCES_WINDOW, AdwPreferencesWindow)

GtkWidget *ef_preferences_window_new (GtkWindow *parent);

G_END_DECLS
