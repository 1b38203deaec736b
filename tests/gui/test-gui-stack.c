/* test-gui-stack.c: the stack window on a simulated stack: PS found, a click plots a time series with
 * its truth, both layers drawn, and the window freed. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "test-gui-stack"
#include "config.h"

#include <gtk/gtk.h>
#include <math.h>

#include "ef-gui-test-util.h"
#include "ef-grid.h"
#include "ef-sim-repeat.h"
#include "ef-stack.h"
#include "ef-stack-truth.h"
#include "ef-stack-window-test.h"
#include "ef-gui-screenshot.h"

static EfRepeatTruth *
make_stack (const char *dir)
{
  EfRepeatParams rp;
  g_autoptr (GError) error = NULL;
  g_autoptr (EfStack) s = NULL;
  g_autofree char *truth_path = g_build_filename (dir, "truth.json", NULL);
  EfRepeatTruth *truth;
  EfGrid grid;
  EfStackGeometry geo;

  ef_repeat_params_init (&rp, 72, 56);
  rp.n_passes = 40;
  rp.n_ps = 400;
  rp.seed = 3;
  truth = ef_repeat_truth_new (&rp, &error);
  g_assert_no_error (error);
  g_assert_true (ef_grid_init_roi (&grid, -18, -14, 18, 14, 0.5, &error));
  geo = (EfStackGeometry) { rp.wavelength, rp.range, rp.incidence_deg };
  s = ef_stack_create (dir, &grid, 32, &geo, &error);
  g_assert_no_error (error);
  for (guint k = 0; k < rp.n_passes; k++)
    {
      g_autoptr (EfImage) img = ef_image_new (&grid, &error);

      ef_repeat_slc (truth, k, img->data);
      g_assert_true (ef_stack_add_pass (s, img, truth->t_years[k], truth->bperp[k], "simulated", NULL, &error));
    }
  g_assert_true (ef_repeat_truth_write_json (truth, truth_path, &error));
  return truth;
}

static void
iterate_until (gboolean (*cond) (EfStackWindow *), EfStackWindow *w, guint timeout_ms)
{
  gint64 end = g_get_monotonic_time () + (gint64) timeout_ms * 1000;

  while (!cond (w))
    {
      g_assert_cmpint (g_get_monotonic_time (), <, end);
      g_main_context_iteration (NULL, FALSE);
      g_usleep (1000);
    }
}

static void
test_window (void)
{
  g_autofree char *dir = g_dir_make_tmp ("ef-stack-gui-XXXXXX", NULL);
  g_autoptr (EfRepeatTruth) truth = make_stack (dir);
  EfStackWindow *w = ef_stack_window_new (NULL);
  gboolean picked = FALSE;
  guint col, row, n_points, n_truth;
  GWeakRef ref;

  g_weak_ref_init (&ref, w);
  ef_stack_window_open (w, dir);
  gtk_window_present (GTK_WINDOW (w));
  iterate_until (ef_stack_window_test_is_loaded, w, 120000);
  g_test_message ("%d candidates for %u PS", ef_stack_window_test_n_candidates (w), truth->n_ps);
  g_assert_cmpint (ef_stack_window_test_n_candidates (w), >=, 0.9 * truth->n_ps);
  g_assert_cmpint (ef_stack_window_test_n_candidates (w), <=, 1.05 * truth->n_ps);
  for (int i = 0; i < 50; i++)
    g_main_context_iteration (NULL, FALSE);

  /* A click on a PS selects it and plots its displacement beside the truth's. */
  for (guint j = truth->n_ps / 3; j < truth->n_ps && !picked; j++)
    {
      ef_stack_window_test_click_pixel (w, truth->ps[j].col + 0.5, truth->ps[j].row + 0.5);
      picked = ef_stack_window_test_selected (w, &col, &row, &n_points, &n_truth) && col == truth->ps[j].col
               && row == truth->ps[j].row;
    }
  g_assert_true (picked);
  g_assert_cmpuint (n_points, ==, truth->params.n_passes);
  g_assert_cmpuint (n_truth, ==, truth->params.n_passes);
  for (int i = 0; i < 50; i++)
    g_main_context_iteration (NULL, FALSE);
  screenshot (GTK_WIDGET (w), "stack-amplitude.png");
  ef_stack_window_test_set_layer (w, 1);
  for (int i = 0; i < 50; i++)
    g_main_context_iteration (NULL, FALSE);
  screenshot (GTK_WIDGET (w), "stack-coherence.png");

  /* A click far from any candidate clears the selection. */
  ef_stack_window_test_click_pixel (w, -50, -50);
  g_assert_false (ef_stack_window_test_selected (w, &col, &row, &n_points, &n_truth));

  gtk_window_destroy (GTK_WINDOW (w));
  for (int i = 0; i < 100 && g_weak_ref_get (&ref) != NULL; i++)
    {
      g_object_unref (g_weak_ref_get (&ref));
      g_main_context_iteration (NULL, FALSE);
      g_usleep (1000);
    }
  g_assert_null (g_weak_ref_get (&ref));
  g_weak_ref_clear (&ref);
  ef_test_remove_tree (dir);
}

/* A folder that is no stack: the window says so and stays usable. */
static void
test_bad_folder (void)
{
  g_autofree char *dir = g_dir_make_tmp ("ef-stack-gui-XXXXXX", NULL);
  EfStackWindow *w = ef_stack_window_new (NULL);

  ef_stack_window_open (w, dir);
  gtk_window_present (GTK_WINDOW (w));
  iterate_until (ef_stack_window_test_is_loaded, w, 10000);
  g_assert_cmpint (ef_stack_window_test_n_candidates (w), ==, -1);
  gtk_window_destroy (GTK_WINDOW (w));
  g_rmdir (dir);
}

int
main (int argc, char **argv)
{
  ef_test_isolate_user_dirs ();
  gtk_test_init (&argc, &argv, NULL);
  g_test_add_func ("/gui/stack/window", test_window);
  g_test_add_func ("/gui/stack/bad-folder", test_bad_folder);
  return g_test_run ();
}
