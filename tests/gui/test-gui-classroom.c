/* test-gui-classroom.c: the classroom on its scene: the aperture slider changes the image and the theory follows
 * the formula, the keys step the timeline, every view draws, and the window is freed. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "test-gui-classroom"
#include "config.h"

#include <complex.h>
#include <gtk/gtk.h>
#include <math.h>
#include <string.h>

#include "ef-application.h"
#include "ef-classroom-window-test.h"
#include "ef-main-window.h"
#include "ef-range-slider.h"
#include "ef-gui-test-util.h"
#include "ef-teach.h"
#include "ef-gui-screenshot.h"

static void
iterate_until (gboolean (*cond) (EfClassroomWindow *), EfClassroomWindow *w, guint timeout_ms)
{
  gint64 end = g_get_monotonic_time () + (gint64) timeout_ms * 1000;

  while (!cond (w))
    {
      g_assert_cmpint (g_get_monotonic_time (), <, end);
      g_main_context_iteration (NULL, FALSE);
      g_usleep (1000);
    }
}

static gboolean
all_drawn (EfClassroomWindow *w)
{
  for (guint v = 0; v < 5; v++)
    if (ef_classroom_window_test_draws (w, v) == 0)
      return FALSE;
  return TRUE;
}

static void
settle (void)
{
  for (int i = 0; i < 60; i++)
    {
      g_main_context_iteration (NULL, FALSE);
      g_usleep (2000);
    }
}

/* The cross-range resolution lambda / (2 dtheta) of pulses [p0, p1], from the pulses themselves: the
 * angle between the first and last lines of sight, each pulse standing for its share of it. */
static double
cross_res_of (EfDataset *ds, guint64 p0, guint64 p1)
{
  const double *a = ds->pulses[p0].tx, *b = ds->pulses[p1].tx;
  double na = sqrt (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]), nb = sqrt (b[0] * b[0] + b[1] * b[1] + b[2] * b[2]);
  double ang = acos ((a[0] * b[0] + a[1] * b[1] + a[2] * b[2]) / (na * nb));
  double n = (double) (p1 - p0 + 1);

  return EF_C / ds->info.fc / (2 * ang * n / (n - 1));
}

/* The number after "= " in the readout's second line: the cross-range resolution it shows. */
static double
shown_cross_res (EfClassroomWindow *w)
{
  const char *text = ef_classroom_window_test_aperture_text (w);
  const char *at = strstr (text, ")");

  g_assert_nonnull (at);
  at = strstr (at, "= ");
  g_assert_nonnull (at);
  return g_ascii_strtod (at + 2, NULL);
}

static double
image_difference (const EfCf32 *a, const EfCf32 *b, gsize n)
{
  double e = 0, s = 0;

  for (gsize i = 0; i < n; i++)
    {
      e += cabsf (a[i] - b[i]) * cabsf (a[i] - b[i]);
      s += cabsf (b[i]) * cabsf (b[i]);
    }
  return sqrt (e / s);
}

static void
test_lesson (void)
{
  EfClassroomWindow *w = ef_classroom_window_new (NULL);
  g_autofree EfCf32 *full = NULL;
  const EfCf32 *img;
  EfDataset *ds;
  GWeakRef ref;
  guint block;
  gsize n;
  double want, shown;

  g_weak_ref_init (&ref, w);
  ef_classroom_window_open_demo (w);
  gtk_window_present (GTK_WINDOW (w));
  iterate_until (ef_classroom_window_test_is_ready, w, 180000);
  iterate_until (all_drawn, w, 20000);
  ds = ef_classroom_window_test_dataset (w);
  block = ef_classroom_window_test_block (w);
  g_assert_cmpuint (ds->info.n_pulses, ==, 512);
  g_assert_cmpuint (block, ==, 16);
  g_assert_cmpuint (ef_classroom_window_test_current (w), ==, 511);
  /* The whole aperture: the readout is the formula's. */
  want = cross_res_of (ds, 0, 511);
  shown = shown_cross_res (w);
  g_test_message ("full aperture: cross-range resolution shown %.3f m, formula %.4f m", shown, want);
  g_assert_cmpfloat (fabs (shown - want), <=, 0.0006);
  g_assert_cmpuint (ef_classroom_window_test_n_arcs (w), >=, 1);
  img = ef_classroom_window_test_image (w, &n);
  full = g_memdup2 (img, n * sizeof *img);
  screenshot (GTK_WIDGET (w), "classroom-full.png");

  /* A quarter of the aperture: another image, a resolution four times coarser. */
  ef_classroom_window_test_set_aperture (w, 128, 255);
  settle ();
  img = ef_classroom_window_test_image (w, &n);
  g_test_message ("quarter aperture: image differs by %.3f (relative rms); frame %.1f ms",
                  image_difference (img, full, n), ef_classroom_window_test_frame_ms (w));
  g_assert_cmpfloat (image_difference (img, full, n), >, 0.3);
  want = cross_res_of (ds, 128, 255);
  shown = shown_cross_res (w);
  g_test_message ("pulses 128-255: cross-range resolution shown %.3f m, formula %.4f m", shown, want);
  g_assert_cmpfloat (fabs (shown - want), <=, 0.0006);
  g_assert_cmpfloat (fabs (ef_classroom_window_test_theory (w)->cross_res - want), <, 1e-6 * want);
  g_assert_cmpuint (ef_classroom_window_test_current (w), ==, 255);
  screenshot (GTK_WIDGET (w), "classroom-quarter.png");

  /* A quarter of the band: the range readout follows c / (2B). */
  ef_classroom_window_test_set_band (w, 1, 1);
  settle ();
  {
    const EfTeachTheory *t = ef_classroom_window_test_theory (w);

    g_assert_cmpfloat (fabs (t->bandwidth - ds->info.bandwidth / 4), <, 1.0);
    g_assert_cmpfloat (fabs (t->range_res - EF_C / (2 * ds->info.bandwidth / 4)), <, 1e-9);
    g_assert_nonnull (strstr (ef_classroom_window_test_band_text (w), "150.0 MHz"));
  }
  ef_classroom_window_test_set_band (w, 0, 3);
  settle ();

  /* The keys: one pulse, one block, the ends, play and pause. */
  g_assert_true (ef_classroom_window_test_key (w, GDK_KEY_Left));
  g_assert_cmpuint (ef_classroom_window_test_current (w), ==, 254);
  g_assert_true (ef_classroom_window_test_key (w, GDK_KEY_Right));
  g_assert_cmpuint (ef_classroom_window_test_current (w), ==, 255);
  g_assert_true (ef_classroom_window_test_key (w, GDK_KEY_Down));
  g_assert_cmpuint (ef_classroom_window_test_current (w), ==, 255 - block);
  g_assert_true (ef_classroom_window_test_key (w, GDK_KEY_Home));
  g_assert_cmpuint (ef_classroom_window_test_current (w), ==, 128);
  g_assert_true (ef_classroom_window_test_key (w, GDK_KEY_Up));
  g_assert_cmpuint (ef_classroom_window_test_current (w), ==, 128 + block);
  /* Early in the aperture the image holds the pulses up to the timeline's, exactly. */
  settle ();
  want = cross_res_of (ds, 128, 128 + block);
  g_assert_cmpfloat (fabs (ef_classroom_window_test_theory (w)->cross_res - want), <, 1e-6 * want);
  /* That image, a whole block from the sums and a pulse formed directly, is the pulses' image. */
  {
    EfGrid grid;
    g_autoptr (GError) error = NULL;
    g_autofree EfCf32 *direct = NULL;
    double rel;

    ef_teach_classroom_grid (&grid, 256);
    direct = g_new0 (EfCf32, ef_grid_n_pixels (&grid));
    g_assert_true (ef_teach_form (ds, &grid, 128, block + 1, 0, (guint) ds->info.n_samples, 0, 0, direct, NULL,
                                  &error));
    g_assert_no_error (error);
    img = ef_classroom_window_test_image (w, &n);
    g_assert_cmpuint (n, ==, ef_grid_n_pixels (&grid));
    rel = image_difference (img, direct, n);
    g_test_message ("pulses 128-%u: the window's image against a direct formation: %.1f dB", 128 + block,
                    20 * log10 (rel));
    g_assert_cmpfloat (rel, <, 1e-4);
  }
  g_assert_true (ef_classroom_window_test_key (w, GDK_KEY_End));
  g_assert_cmpuint (ef_classroom_window_test_current (w), ==, 255);
  g_assert_true (ef_classroom_window_test_key (w, GDK_KEY_space));
  g_assert_true (ef_classroom_window_test_playing (w));
  /* Played from the aperture's start, since the timeline stood at its end. */
  g_assert_cmpuint (ef_classroom_window_test_current (w), ==, 128);
  g_assert_true (ef_classroom_window_test_key (w, GDK_KEY_space));
  g_assert_false (ef_classroom_window_test_playing (w));
  /* Playing moves the timeline on, and stops at the aperture's end. */
  g_assert_true (ef_classroom_window_test_key (w, GDK_KEY_space));
  settle ();
  g_assert_cmpuint (ef_classroom_window_test_current (w), >, 128);
  if (ef_classroom_window_test_playing (w))
    g_assert_true (ef_classroom_window_test_key (w, GDK_KEY_space));
  g_assert_false (ef_classroom_window_test_playing (w));
  g_assert_cmpuint (ef_classroom_window_test_current (w), <=, 255);
  g_assert_false (ef_classroom_window_test_key (w, GDK_KEY_a));
  /* F11 toggles full screen (there is no window manager to grant it here: only the key is checked). */
  g_assert_true (ef_classroom_window_test_key (w, GDK_KEY_F11));
  settle ();
  g_assert_true (ef_classroom_window_test_key (w, GDK_KEY_F11));
  settle ();

  /* Every view has drawn since the windows moved. */
  {
    guint before[5];

    for (guint v = 0; v < 5; v++)
      before[v] = ef_classroom_window_test_draws (w, v);
    ef_classroom_window_test_key (w, GDK_KEY_Left);
    settle ();
    for (guint v = 0; v < 5; v++)
      g_assert_cmpuint (ef_classroom_window_test_draws (w, v), >, before[v]);
  }

  gtk_window_destroy (GTK_WINDOW (w));
  for (int i = 0; i < 200 && g_weak_ref_get (&ref) != NULL; i++)
    {
      g_object_unref (g_weak_ref_get (&ref));
      g_main_context_iteration (NULL, FALSE);
      g_usleep (1000);
    }
  g_assert_null (g_weak_ref_get (&ref));
  g_weak_ref_clear (&ref);
}

/* The main window opens the classroom with win.classroom, F6, on the classroom scene when it has no
 * collection. */
static void
test_main_window_action (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (EfApplication) app = ef_application_new (G_APPLICATION_NON_UNIQUE);
  g_auto (GStrv) accels = NULL;
  g_autoptr (GListModel) toplevels = NULL;
  EfClassroomWindow *cw = NULL;
  EfMainWindow *main_window;
  GWeakRef ref;

  g_assert_true (g_application_register (G_APPLICATION (app), NULL, &error));
  g_assert_no_error (error);
  main_window = ef_main_window_new (GTK_APPLICATION (app));
  gtk_window_present (GTK_WINDOW (main_window));
  g_assert_true (g_action_group_has_action (G_ACTION_GROUP (main_window), "classroom"));
  accels = gtk_application_get_accels_for_action (GTK_APPLICATION (app), "win.classroom");
  g_assert_nonnull (accels);
  g_assert_cmpstr (accels[0], ==, "F6");
  g_action_group_activate_action (G_ACTION_GROUP (main_window), "classroom", NULL);
  toplevels = gtk_window_get_toplevels ();
  g_object_ref (toplevels);
  for (guint i = 0; i < g_list_model_get_n_items (toplevels) && cw == NULL; i++)
    {
      g_autoptr (GObject) o = g_list_model_get_item (toplevels, i);

      if (EF_IS_CLASSROOM_WINDOW (o))
        cw = EF_CLASSROOM_WINDOW (o);
    }
  g_assert_nonnull (cw);
  g_assert_true (gtk_window_get_transient_for (GTK_WINDOW (cw)) == GTK_WINDOW (main_window));
  iterate_until (ef_classroom_window_test_is_ready, cw, 180000);
  g_assert_cmpuint (ef_classroom_window_test_dataset (cw)->info.n_pulses, ==, 512);
  g_weak_ref_init (&ref, cw);
  gtk_window_destroy (GTK_WINDOW (cw));
  for (int i = 0; i < 200 && g_weak_ref_get (&ref) != NULL; i++)
    {
      g_object_unref (g_weak_ref_get (&ref));
      g_main_context_iteration (NULL, FALSE);
      g_usleep (1000);
    }
  g_assert_null (g_weak_ref_get (&ref));
  g_weak_ref_clear (&ref);
  gtk_window_destroy (GTK_WINDOW (main_window));
  settle ();
}

static void
count_changed (EfRangeSlider *slider, guint *n)
{
  (*n)++;
}

/* The range slider snaps its handles to whole blocks, keeps them in order, and says "changed" only
 * for what the user does. */
static void
test_range_slider (void)
{
  GtkWidget *w = ef_range_slider_new ();
  guint n = 0;
  double lo, hi;

  g_object_ref_sink (w);
  g_signal_connect (w, "changed", G_CALLBACK (count_changed), &n);
  ef_range_slider_set_range (EF_RANGE_SLIDER (w), 0, 511, 16);
  ef_range_slider_set_hi_offset (EF_RANGE_SLIDER (w), 15);
  ef_range_slider_set_values (EF_RANGE_SLIDER (w), 0, 511);
  ef_range_slider_get_values (EF_RANGE_SLIDER (w), &lo, &hi);
  g_assert_cmpfloat (lo, ==, 0);
  g_assert_cmpfloat (hi, ==, 511);
  g_assert_cmpuint (n, ==, 0);
  ef_range_slider_move (EF_RANGE_SLIDER (w), 100, 300);
  ef_range_slider_get_values (EF_RANGE_SLIDER (w), &lo, &hi);
  g_assert_cmpfloat (lo, ==, 96);
  g_assert_cmpfloat (hi, ==, 303);
  g_assert_cmpuint (n, ==, 1);
  /* Out of order and out of range: ordered and clamped. */
  ef_range_slider_set_values (EF_RANGE_SLIDER (w), 900, -40);
  ef_range_slider_get_values (EF_RANGE_SLIDER (w), &lo, &hi);
  g_assert_cmpfloat (lo, ==, 0);
  g_assert_cmpfloat (hi, ==, 511);
  g_object_unref (w);
}

int
main (int argc, char **argv)
{
  ef_test_isolate_user_dirs ();
  gtk_test_init (&argc, &argv, NULL);
  adw_init ();
  g_test_add_func ("/gui/classroom/range-slider", test_range_slider);
  g_test_add_func ("/gui/classroom/lesson", test_lesson);
  g_test_add_func ("/gui/classroom/main-window-action", test_main_window_action);
  return g_test_run ();
}
