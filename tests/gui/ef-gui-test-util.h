/* ef-gui-test-util.h: what every GUI test does before GTK starts. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>
#include <glib/gstdio.h>

/* Points the user's state, data, cache and config folders at a fresh temporary folder, so that
 * sessions and recent files from one run never reach another or the user's own. The system folders
 * stay, so that icon themes are still found. */
static inline void
ef_test_isolate_user_dirs (void)
{
  g_autofree char *root = g_dir_make_tmp ("echoform-gui-test-XXXXXX", NULL);
  const char *vars[] = { "XDG_STATE_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME" };

  g_assert_nonnull (root);
  for (guint i = 0; i < G_N_ELEMENTS (vars); i++)
    {
      g_autofree char *dir = g_build_filename (root, vars[i], NULL);
      g_mkdir_with_parents (dir, 0700);
      g_setenv (vars[i], dir, TRUE);
    }
}
