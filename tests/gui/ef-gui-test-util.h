/* ef-gui-test-util.h: what every GUI test does before GTK starts. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>
#include <glib/gstdio.h>
#include <stdlib.h>

static char *ef_test_user_root;

static inline void
ef_test_remove_tree (const char *path)
{
  GDir *dir = g_dir_open (path, 0, NULL);

  if (dir != NULL)
    {
      const char *name;

      while ((name = g_dir_read_name (dir)) != NULL)
        {
          g_autofree char *child = g_build_filename (path, name, NULL);
          if (g_file_test (child, G_FILE_TEST_IS_DIR) && !g_file_test (child, G_FILE_TEST_IS_SYMLINK))
            ef_test_remove_tree (child);
          else
            g_unlink (child);
        }
      g_dir_close (dir);
    }
  g_rmdir (path);
}

static inline void
ef_test_remove_user_root (void)
{
  if (ef_test_user_root != NULL)
    ef_test_remove_tree (ef_test_user_root);
  g_clear_pointer (&ef_test_user_root, g_free);
}

/* Points the user's state, data, cache and config folders at a fresh temporary folder, removed at
 * exit, so that sessions and recent files from one run never reach another or the user's own. The
 * system folders stay, so that icon themes are still found. */
static inline void
ef_test_isolate_user_dirs (void)
{
  const char *vars[] = { "XDG_STATE_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME" };

  ef_test_user_root = g_dir_make_tmp ("echoform-gui-test-XXXXXX", NULL);
  g_assert_nonnull (ef_test_user_root);
  for (guint i = 0; i < G_N_ELEMENTS (vars); i++)
    {
      g_autofree char *dir = g_build_filename (ef_test_user_root, vars[i], NULL);
      g_mkdir_with_parents (dir, 0700);
      g_setenv (vars[i], dir, TRUE);
    }
  atexit (ef_test_remove_user_root);
}
