/* main.c: the echoform desktop program's entry point. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "echoform"
#include "config.h"

#include <glib/gi18n.h>
#include <locale.h>

#include "ef-application.h"
#include "ef-main-window.h"

/* Running from the build tree, the schema is compiled next to the program, not installed. */
static gboolean
ensure_schema (void)
{
  GSettingsSchemaSource *source = g_settings_schema_source_get_default ();
  g_autoptr (GSettingsSchema) schema = NULL;

  if (source != NULL)
    schema = g_settings_schema_source_lookup (source, APP_ID, TRUE);
  if (schema != NULL)
    return TRUE;
#ifdef EF_BUILD_SCHEMA_DIR
  if (g_getenv ("GSETTINGS_SCHEMA_DIR") == NULL
      && g_file_test (EF_BUILD_SCHEMA_DIR "/gschemas.compiled", G_FILE_TEST_EXISTS))
    {
      g_setenv ("GSETTINGS_SCHEMA_DIR", EF_BUILD_SCHEMA_DIR, TRUE);
      return TRUE;
    }
#endif
  return FALSE;
}

static int
handle_local_options (GApplication *app, GVariantDict *options, gpointer user_data)
{
  if (g_variant_dict_contains (options, "verbose"))
    ef_main_window_set_verbose (TRUE);
  /* Go on: the application's own handler sees the rest. */
  return -1;
}

int
main (int argc, char *argv[])
{
  g_autoptr (EfApplication) app = NULL;
  GApplicationFlags flags = G_APPLICATION_DEFAULT_FLAGS;
  int status;

  setlocale (LC_ALL, "");
  bindtextdomain (GETTEXT_PACKAGE, LOCALEDIR);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);

  if (!ensure_schema ())
    {
      g_printerr (_("echoform: the settings schema %s is not installed; run “ninja install” or set "
                    "GSETTINGS_SCHEMA_DIR\n"), APP_ID);
      return 1;
    }

  /* A batch run is self-contained: it must not hand itself to a running instance and return early. */
  for (int i = 1; i < argc; i++)
    if (g_str_has_prefix (argv[i], "--screenshot"))
      flags |= G_APPLICATION_NON_UNIQUE;

  app = ef_application_new (flags);
  g_application_add_main_option (G_APPLICATION (app), "verbose", 0, G_OPTION_FLAG_NONE, G_OPTION_ARG_NONE,
                                 _("Say on standard output what a batch run did and what its screenshot "
                                   "shows"), NULL);
  g_signal_connect (app, "handle-local-options", G_CALLBACK (handle_local_options), NULL);
  status = g_application_run (G_APPLICATION (app), argc, argv);
  return status != 0 ? status : ef_application_get_batch_status (app);
}
