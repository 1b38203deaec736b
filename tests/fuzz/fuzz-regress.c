/* fuzz-regress.c: replays the fuzzing corpora (seeds and saved crash inputs) through the fuzz targets. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-fuzz-regress"
#include "config.h"

#include <string.h>

#include <glib.h>

#include "ef-fuzz-targets.h"

/*
 * Every file of tests/fuzz/corpus-<target>/ (the seeds) and tests/fuzz/regress-<target>/ (a minimized
 * sample of what fuzzing reached, and inputs that once crashed, under libFuzzer's names crash-<sha1>)
 * goes through the same entry point as the fuzzer's, in an ordinary build and in the sanitizer build of
 * CI. MATLAB files are read as Echoform reads them, in a child process with memory and time limits, so
 * regress-gotcha/ also holds inputs that once made matio allocate gigabytes; that the child stays within
 * its limits on them is checked in test-gotcha.
 *
 *   fuzz-regress [--tap]                       replay all corpora
 *   fuzz-regress --target NAME FILE|DIR ...    replay some inputs, e.g. a new crash-* file
 */

typedef struct {
  const char *name;
  gboolean  (*run) (const guint8 *data, gsize size);
  gboolean    needs_matio;
} Target;

#if !HAVE_ISMRMRD
static gboolean
ef_fuzz_ismrmrd_fields (const guint8 *data, gsize size)
{
  (void) data;
  (void) size;
  return FALSE;
}
#endif

static const Target targets[] = {
  { "gotcha", ef_fuzz_gotcha, TRUE },
  { "cphd", ef_fuzz_cphd, FALSE },
  { "cphd-xml", ef_fuzz_cphd_xml, FALSE },
  { "cphd-fields", ef_fuzz_cphd_fields, FALSE },
  { "gotcha-fields", ef_fuzz_gotcha_fields, TRUE },
  { "ismrmrd-fields", ef_fuzz_ismrmrd_fields, FALSE },
};

static int
compare_names (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

/* Files of a folder, in name order, skipping dot files. */
static GPtrArray *
list_inputs (const char *dir)
{
  GPtrArray *paths = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

  if (d == NULL)
    return paths;
  while ((name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *p = g_build_filename (dir, name, NULL);
      if (name[0] != '.' && g_file_test (p, G_FILE_TEST_IS_REGULAR))
        g_ptr_array_add (paths, g_steal_pointer (&p));
    }
  g_ptr_array_sort (paths, compare_names);
  return paths;
}

/* Runs each input; returns how many opened. */
static guint
replay (const Target *t, GPtrArray *paths)
{
  guint accepted = 0;

  for (guint i = 0; i < paths->len; i++)
    {
      const char *path = g_ptr_array_index (paths, i);
      g_autofree char *bytes = NULL;
      g_autoptr (GError) error = NULL;
      gsize len;
      gboolean ok;

      if (!g_file_get_contents (path, &bytes, &len, &error))
        g_error ("Cannot read %s: %s", path, error->message);
      ok = t->run ((const guint8 *) bytes, len);
      accepted += ok;
      g_debug ("%s %s: %s", t->name, path, ok ? "opened" : "refused");
    }
  return accepted;
}

static void
test_corpus (gconstpointer data)
{
  const Target *t = data;
  g_autofree char *dir = NULL;
  const char *srcdir;
  g_autoptr (GPtrArray) paths = NULL;
  g_autoptr (GTimer) timer = g_timer_new ();
  guint accepted, crashes = 0;

  if (t->needs_matio && !HAVE_MATIO)
    {
      g_test_skip ("built without matio");
      return;
    }
  if (t->run == ef_fuzz_ismrmrd_fields && !HAVE_ISMRMRD)
    {
      g_test_skip ("built without libismrmrd");
      return;
    }
  srcdir = g_getenv ("G_TEST_SRCDIR") ? g_getenv ("G_TEST_SRCDIR") : ".";
  dir = g_strdup_printf ("%s/fuzz/corpus-%s", srcdir, t->name);
  paths = list_inputs (dir);
  {
    g_autofree char *regress = g_strdup_printf ("%s/fuzz/regress-%s", srcdir, t->name);
    g_autoptr (GPtrArray) more = list_inputs (regress);
    for (guint i = 0; i < more->len; i++)
      g_ptr_array_add (paths, g_strdup (g_ptr_array_index (more, i)));
  }
  if (paths->len == 0)
    {
      g_autofree char *why = g_strdup_printf ("no corpus in %s", dir);
      g_test_skip (why);
      return;
    }
  for (guint i = 0; i < paths->len; i++)
    {
      g_autofree char *base = g_path_get_basename (g_ptr_array_index (paths, i));
      crashes += g_str_has_prefix (base, "crash-") || g_str_has_prefix (base, "leak-")
                 || g_str_has_prefix (base, "timeout-") || g_str_has_prefix (base, "oom-");
    }
  accepted = replay (t, paths);
  g_test_message ("%s: %u inputs (%u saved from crashes), %u opened, %.2f s", t->name, paths->len, crashes,
                  accepted, g_timer_elapsed (timer, NULL));
  /* The seeds include valid files: if none opens any more, the corpus no longer reaches past the
   * readers' first checks and has to be regenerated (ef-fuzz-seeds). */
  g_assert_cmpuint (accepted, >, 0);
}

static int
replay_arguments (const char *name, int argc, char **argv)
{
  const Target *t = NULL;
  g_autoptr (GPtrArray) paths = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; i < G_N_ELEMENTS (targets); i++)
    if (strcmp (targets[i].name, name) == 0)
      t = &targets[i];
  if (t == NULL)
    {
      g_printerr ("Unknown target “%s”: use gotcha, cphd, cphd-xml, cphd-fields or gotcha-fields\n", name);
      return 2;
    }
  for (int i = 0; i < argc; i++)
    {
      if (g_file_test (argv[i], G_FILE_TEST_IS_DIR))
        {
          g_autoptr (GPtrArray) more = list_inputs (argv[i]);
          for (guint k = 0; k < more->len; k++)
            g_ptr_array_add (paths, g_strdup (g_ptr_array_index (more, k)));
        }
      else
        g_ptr_array_add (paths, g_strdup (argv[i]));
    }
  g_print ("%s: %u of %u inputs opened\n", name, replay (t, paths), paths->len);
  return 0;
}

int
main (int argc, char **argv)
{
  if (argc >= 3 && strcmp (argv[1], "--target") == 0)
    return replay_arguments (argv[2], argc - 3, argv + 3);

  g_test_init (&argc, &argv, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (targets); i++)
    {
      g_autofree char *path = g_strdup_printf ("/fuzz/regress/%s", targets[i].name);
      g_test_add_data_func (path, &targets[i], test_corpus);
    }
  return g_test_run ();
}
