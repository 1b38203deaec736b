/* main.c: the echoform desktop program's entry point. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "echoform"
#include "config.h"

#include <glib/gi18n.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>

#include "ef-application.h"
#include "ef-demo.h"
#include "ef-main-window.h"
#include "ef-settings.h"

/* Where the program's own files are: the compiled settings schema, the translations and the package
 * data (the demo). The binary the build made, run from the build tree, takes them from that tree, so the
 * program runs there as built, with no environment variable and without reading an older installed copy.
 * An installed binary takes them from its prefix, found from where the binary is so that a staged
 * (DESTDIR) or moved installation uses its own files; from the configured prefix when the binary is not in
 * PREFIX/BINDIR. */
typedef struct {
  gboolean build_tree;
  char    *schema_dir;   /* owned; NULL: GLib's default schema source (XDG_DATA_DIRS) alone */
  char    *locale_dir;   /* owned */
  char    *data_dir;     /* owned */
} EfDataDirs;

static void
ef_data_dirs_clear (EfDataDirs *dirs)
{
  g_clear_pointer (&dirs->schema_dir, g_free);
  g_clear_pointer (&dirs->locale_dir, g_free);
  g_clear_pointer (&dirs->data_dir, g_free);
}
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (EfDataDirs, ef_data_dirs_clear)

/* The folder holding this program, with links resolved, or NULL where the system does not say. */
static char *
program_dir (void)
{
  g_autofree char *exe = g_file_read_link ("/proc/self/exe", NULL);

  return exe != NULL ? g_path_get_dirname (exe) : NULL;
}

static gboolean
same_dir (const char *a, const char *b)
{
  g_autofree char *ra = realpath (a, NULL);
  g_autofree char *rb = realpath (b, NULL);

  return ra != NULL && rb != NULL && strcmp (ra, rb) == 0;
}

/* PREFIX/DIR for a folder meson gave relative to the prefix; an absolute one stays where it was set. */
static char *
under_prefix (const char *prefix, const char *dir)
{
  return g_path_is_absolute (dir) ? g_strdup (dir) : g_build_filename (prefix, dir, NULL);
}

static void
find_data_dirs (EfDataDirs *dirs)
{
  g_autofree char *here = program_dir ();
  g_autofree char *prefix = NULL;
  g_autofree char *datadir = NULL;
  g_autofree char *schemas = NULL;

  if (here != NULL && same_dir (here, EF_BUILD_ROOT "/app"))
    {
      dirs->build_tree = TRUE;
      dirs->schema_dir = g_strdup (EF_BUILD_ROOT "/data");
      dirs->locale_dir = g_strdup (EF_BUILD_ROOT "/po");
      dirs->data_dir = g_strdup (EF_BUILD_ROOT "/data");
      return;
    }

  if (here != NULL && !g_path_is_absolute (EF_BINDIR) && g_str_has_suffix (here, G_DIR_SEPARATOR_S EF_BINDIR))
    prefix = g_strndup (here, strlen (here) - strlen (G_DIR_SEPARATOR_S EF_BINDIR));
  else
    prefix = g_strdup (EF_PREFIX);
  datadir = under_prefix (prefix, EF_DATADIR);
  dirs->locale_dir = under_prefix (prefix, EF_LOCALEDIR);
  dirs->data_dir = g_build_filename (datadir, "echoform", NULL);
  /* Installed schemas are normally found through XDG_DATA_DIRS; a prefix outside it still has its own. */
  schemas = g_build_filename (datadir, "glib-2.0", "schemas", NULL);
  if (g_file_test (schemas, G_FILE_TEST_IS_DIR))
    dirs->schema_dir = g_steal_pointer (&schemas);
}

/* Makes the settings read APP_ID's schema from where find_data_dirs() says: the build tree's ahead of
 * any installed one; an installed program's through XDG_DATA_DIRS first, then its own prefix. */
static gboolean
choose_schema_source (const EfDataDirs *dirs)
{
  GSettingsSchemaSource *fallback = g_settings_schema_source_get_default ();
  g_autoptr (GSettingsSchemaSource) own = NULL;
  g_autoptr (GError) error = NULL;

  if (!dirs->build_tree && ef_settings_schema_is_available ())
    return TRUE;
  if (dirs->schema_dir != NULL)
    own = g_settings_schema_source_new_from_directory (dirs->schema_dir, fallback, TRUE, &error);
  if (own == NULL && error != NULL && dirs->build_tree)
    g_printerr ("echoform: %s: %s\n", dirs->schema_dir, error->message);
  if (own != NULL)
    ef_settings_set_schema_source (own);
  return ef_settings_schema_is_available ();
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
  g_auto (EfDataDirs) dirs = { 0 };
  GApplicationFlags flags = G_APPLICATION_DEFAULT_FLAGS;
  int status;

  find_data_dirs (&dirs);
  setlocale (LC_ALL, "");
  bindtextdomain (GETTEXT_PACKAGE, dirs.locale_dir);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);
  ef_demo_set_data_dir (dirs.data_dir);

  if (!choose_schema_source (&dirs))
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
