/* bench-gui-classroom.c: the classroom on a 512 x 512 region: the aperture slider moved, time to the frame drawn. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "bench-gui-classroom"
#include "config.h"

#include <gtk/gtk.h>
#include <math.h>
#include <stdlib.h>

#include "ef-classroom-window-test.h"
#include "ef-gui-test-util.h"
#include "ef-teach-raster.h"
#include "ef-teach.h"

#define EDGE 512
#define MOVES 40

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return (x > y) - (x < y);
}

static void
report (const char *what, double *ms, guint n)
{
  qsort (ms, n, sizeof *ms, cmp_double);
  g_print ("%-44s median %6.1f ms  p90 %6.1f ms  max %6.1f ms  (%u moves)\n", what, ms[n / 2], ms[(n * 9) / 10],
           ms[n - 1], n);
}

int
main (int argc, char **argv)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (EfDataset) ds = NULL;
  EfClassroomWindow *w;
  EfGrid grid;
  double frame[MOVES], work[MOVES];
  gint64 t0;
  guint n_frames = 0;

  ef_test_isolate_user_dirs ();
  gtk_init ();
  ds = ef_teach_classroom_new (0, &error);
  g_assert_no_error (error);
  ef_teach_classroom_grid (&grid, EDGE);
  g_assert_cmpuint (grid.width, ==, EDGE);

  /* The compute side alone: the window's image from the sums, and its pixels. */
  {
    EfTeachStackParams p = { 0 };
    g_autoptr (EfTeachStack) st = NULL;
    g_autofree EfCf32 *img = g_new (EfCf32, (gsize) EDGE * EDGE);
    g_autofree guint8 *px = g_new (guint8, (gsize) EDGE * EDGE * 4);

    p.grid = grid;
    p.block_pulses = 16;
    p.n_bands = 4;
    t0 = g_get_monotonic_time ();
    st = ef_teach_stack_new (ds, &p, NULL, NULL, NULL, &error);
    g_assert_no_error (error);
    g_print ("stack: %u blocks x %u sub-bands of %u x %u pixels, %.0f MiB, formed in %.2f s\n",
             ef_teach_stack_n_blocks (st), ef_teach_stack_n_bands (st), EDGE, EDGE,
             ef_teach_stack_bytes (st) / 1048576.0, (g_get_monotonic_time () - t0) / 1e6);
    for (guint i = 0; i < MOVES; i++)
      {
        guint b0 = g_random_int_range (0, 32), b1 = g_random_int_range (b0, 32);

        t0 = g_get_monotonic_time ();
        g_assert_true (ef_teach_stack_window (st, b0, b1, 0, 3, img, NULL));
        ef_teach_raster (img, EDGE, EDGE, 0, 40, EF_COLORMAP_GREY, px, EDGE * 4);
        work[i] = (g_get_monotonic_time () - t0) / 1000.0;
      }
    report ("window from the sums + pixels (no GUI)", work, MOVES);
  }

  /* The window: each move of the aperture slider until its image is drawn. */
  w = ef_classroom_window_new (NULL);
  ef_classroom_window_open_dataset (w, ds, &grid);
  gtk_window_present (GTK_WINDOW (w));
  while (!ef_classroom_window_test_is_ready (w))
    g_main_context_iteration (NULL, TRUE);
  for (int i = 0; i < 200; i++)
    g_main_context_iteration (NULL, FALSE);
  for (guint i = 0; i < MOVES; i++)
    {
      guint before = ef_classroom_window_test_draws (w, 0);
      guint64 first = 16 * (guint64) g_random_int_range (0, 16), last = first + 16 * (guint64) g_random_int_range (1, 16);
      gint64 end = g_get_monotonic_time () + 5 * G_USEC_PER_SEC;

      ef_classroom_window_test_set_aperture (w, first, MIN (last, 511));
      while (ef_classroom_window_test_draws (w, 0) == before && g_get_monotonic_time () < end)
        g_main_context_iteration (NULL, TRUE);
      if (ef_classroom_window_test_draws (w, 0) > before)
        frame[n_frames++] = ef_classroom_window_test_frame_ms (w);
    }
  if (n_frames > 0)
    report ("slider change to frame drawn (classroom window)", frame, n_frames);

  /* One pulse on with the arrow key, inside a block: the whole blocks from the sums, the rest of the
   * block formed directly. */
  ef_classroom_window_test_set_aperture (w, 0, 511);
  ef_classroom_window_test_key (w, GDK_KEY_Home);
  for (guint i = 0; i < 8; i++)
    ef_classroom_window_test_key (w, GDK_KEY_Up);
  n_frames = 0;
  for (guint i = 0; i < MOVES; i++)
    {
      guint before = ef_classroom_window_test_draws (w, 0);
      gint64 end = g_get_monotonic_time () + 5 * G_USEC_PER_SEC;

      ef_classroom_window_test_key (w, GDK_KEY_Right);
      while (ef_classroom_window_test_draws (w, 0) == before && g_get_monotonic_time () < end)
        g_main_context_iteration (NULL, TRUE);
      if (ef_classroom_window_test_draws (w, 0) > before)
        frame[n_frames++] = ef_classroom_window_test_frame_ms (w);
    }
  if (n_frames > 0)
    report ("one pulse on (->) to frame drawn", frame, n_frames);
  gtk_window_destroy (GTK_WINDOW (w));
  return 0;
}
