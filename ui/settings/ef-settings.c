/* ef-settings.c: the application's settings, read from the schema source the program chose at start-up. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-settings"
#include "config.h"

#include "ef-settings.h"

/* owned; NULL: GLib's default source. Set once at start-up, before any window, on the main thread. */
static GSettingsSchemaSource *schema_source;

void
ef_settings_set_schema_source (GSettingsSchemaSource *source)
{
  if (source != NULL)
    g_settings_schema_source_ref (source);
  g_clear_pointer (&schema_source, g_settings_schema_source_unref);
  schema_source = source;
}

static GSettingsSchema *
lookup_schema (void)
{
  GSettingsSchemaSource *source = schema_source ? schema_source : g_settings_schema_source_get_default ();

  return source != NULL ? g_settings_schema_source_lookup (source, APP_ID, TRUE) : NULL;
}

gboolean
ef_settings_schema_is_available (void)
{
  g_autoptr (GSettingsSchema) schema = lookup_schema ();

  return schema != NULL;
}

GSettings *
ef_settings_new (void)
{
  g_autoptr (GSettingsSchema) schema = lookup_schema ();

  if (schema == NULL)
    g_error ("Settings schema '%s' is not installed", APP_ID);
  return g_settings_new_full (schema, NULL, NULL);
}
