/* test-gui-whatif.c: the classroom's what-if controls blur and restore the image by measured amounts, bookmarks
 * restore the state (in a new window too), and the presenter's text and colour settings take effect. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "test-gui-whatif"
#include "config.h"

#include <complex.h>
#include <gtk/gtk.h>
#include <math.h>
#include <string.h>

#include "ef-classroom-window-test.h"
#include "ef-gui-test-util.h"
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

static void
settle (void)
{
  for (int i = 0; i < 60; i++)
    {
      g_main_context_iteration (NULL, FALSE);
      g_usleep (2000);
    }
}

/* Sets the controls and waits for the image they ask for. */
static void
whatif (EfClassroomWindow *w, const EfTeachErrors *e, const EfTeachFormOptions *f)
{
  gint64 t0 = g_get_monotonic_time ();

  ef_classroom_window_test_set_whatif (w, e, f);
  g_assert_false (ef_classroom_window_test_is_settled (w));
  iterate_until (ef_classroom_window_test_is_settled, w, 240000);
  settle ();
  g_test_message ("formed again in %.1f s", (g_get_monotonic_time () - t0) / 1e6);
}

static int
label_height (GtkWidget *label)
{
  int min, nat;

  gtk_widget_measure (label, GTK_ORIENTATION_VERTICAL, -1, &min, &nat, NULL, NULL);
  return nat;
}

static void
test_whatif (void)
{
  EfClassroomWindow *w = ef_classroom_window_new (NULL);
  const EfTeachFormOptions plain = { EF_WINDOW_RECT, EF_TEACH_INTERP_LINEAR, 16 };
  EfTeachFormOptions f = plain;
  EfTeachErrors none = { 0 }, e = { 0 };
  g_autofree EfCf32 *reference = NULL;
  const EfCf32 *img;
  double ref[4], m[4], r[4], ser0;
  GWeakRef wref;
  gsize n;

  g_weak_ref_init (&wref, w);
  ef_classroom_window_open_demo (w);
  gtk_window_present (GTK_WINDOW (w));
  iterate_until (ef_classroom_window_test_is_ready, w, 180000);
  settle ();

  /* As opened: the target at the scene's centre measured, and its reference is itself. */
  g_assert_true (ef_classroom_window_test_measure (w, m, ref));
  g_assert_cmpmem (m, sizeof m, ref, sizeof ref);
  ser0 = ef_classroom_window_test_ser_db (w);
  g_test_message ("as opened: cross IRW %.4f m, PSLR %.2f dB; range IRW %.4f m, PSLR %.2f dB; interpolation SER "
                  "%.1f dB", ref[0], ref[1], ref[2], ref[3], ser0);
  g_assert_cmpfloat (ser0, >, 53);
  img = ef_classroom_window_test_image (w, &n);
  reference = g_memdup2 (img, n * sizeof *img);

  /* 2 rad RMS of quadratic phase: the cross-range response widens, the readout says by how much. */
  e.phase_shape = EF_TEACH_PHASE_QUADRATIC;
  e.phase_rms = 2.0;
  whatif (w, &e, &plain);
  g_assert_true (ef_classroom_window_test_measure (w, m, r));
  g_test_message ("2 rad RMS quadratic: cross IRW %.4f m (%+.0f%%), PSLR %.2f dB; range IRW %.4f m; text:\n%s", m[0],
                  100 * (m[0] / ref[0] - 1), m[1], m[2], ef_classroom_window_test_measure_text (w));
  g_assert_cmpmem (r, sizeof r, ref, sizeof ref);
  g_assert_cmpfloat (m[0], >, 1.5 * ref[0]);
  g_assert_cmpfloat (fabs (m[2] - ref[2]), <, 0.05 * ref[2]);
  g_assert_nonnull (strstr (ef_classroom_window_test_measure_text (w), "(+"));
  screenshot (GTK_WIDGET (w), "classroom-whatif-errors.png");

  /* Back to none: the image as opened, bit for bit, and its measurements exactly. */
  whatif (w, &none, &plain);
  g_assert_true (ef_classroom_window_test_measure (w, m, r));
  g_assert_cmpmem (m, sizeof m, ref, sizeof ref);
  img = ef_classroom_window_test_image (w, &n);
  g_assert_cmpmem (img, n * sizeof *img, reference, n * sizeof *reference);

  /* Taylor in both directions: lower sidelobes, a wider main lobe. */
  f.window = EF_WINDOW_TAYLOR;
  whatif (w, &none, &f);
  g_assert_true (ef_classroom_window_test_measure (w, m, r));
  g_test_message ("Taylor: cross IRW %.4f m, PSLR %.2f dB; range IRW %.4f m, PSLR %.2f dB", m[0], m[1], m[2], m[3]);
  g_assert_cmpfloat (m[1], <, ref[1] - 10);
  g_assert_cmpfloat (m[3], <, ref[3] - 10);
  g_assert_cmpfloat (m[0], >, 1.1 * ref[0]);

  /* The nearest bin of an unpadded profile: the interpolation error shows. */
  f = (EfTeachFormOptions) { EF_WINDOW_RECT, EF_TEACH_INTERP_NEAREST, 1 };
  whatif (w, &none, &f);
  g_test_message ("nearest x1: SER %.1f dB against the matched filter (linear x16: %.1f dB)",
                  ef_classroom_window_test_ser_db (w), ser0);
  g_assert_cmpfloat (ef_classroom_window_test_ser_db (w), <, ser0 - 20);

  /* A bookmark: a quarter of the aperture, a band, Taylor and a speed error; then elsewhere; then back. */
  {
    EfTeachErrors shown_e, speed = { .speed_pct = 0.1 };
    EfTeachFormOptions shown_f, taylor = { EF_WINDOW_TAYLOR, EF_TEACH_INTERP_LINEAR, 16 };
    guint64 first, last;
    guint lo, hi;

    whatif (w, &speed, &taylor);
    ef_classroom_window_test_set_aperture (w, 128, 255);
    ef_classroom_window_test_set_band (w, 1, 2);
    ef_classroom_window_test_key (w, GDK_KEY_Left);
    settle ();
    g_assert_cmpuint (ef_classroom_window_test_current (w), ==, 254);
    ef_classroom_window_test_pin (w, "quarter");
    g_assert_cmpuint (ef_classroom_window_test_n_bookmarks (w), ==, 1);
    ef_classroom_window_test_set_aperture (w, 0, 511);
    ef_classroom_window_test_set_band (w, 0, 3);
    whatif (w, &none, &plain);
    ef_classroom_window_test_windows (w, &first, &last, &lo, &hi);
    g_assert_cmpuint (first, ==, 0);
    g_assert_true (ef_classroom_window_test_go (w, 0));
    iterate_until (ef_classroom_window_test_is_settled, w, 240000);
    settle ();
    ef_classroom_window_test_windows (w, &first, &last, &lo, &hi);
    ef_classroom_window_test_shown_whatif (w, &shown_e, &shown_f);
    g_test_message ("bookmark: pulses %" G_GUINT64_FORMAT "-%" G_GUINT64_FORMAT ", bands %u-%u, pulse %" G_GUINT64_FORMAT
                    ", speed %.2f%%, window %d", first, last, lo, hi, ef_classroom_window_test_current (w),
                    shown_e.speed_pct, shown_f.window);
    g_assert_cmpuint (first, ==, 128);
    g_assert_cmpuint (last, ==, 255);
    g_assert_cmpuint (lo, ==, 1);
    g_assert_cmpuint (hi, ==, 2);
    g_assert_cmpuint (ef_classroom_window_test_current (w), ==, 254);
    g_assert_cmpfloat (shown_e.speed_pct, ==, 0.1);
    g_assert_cmpint (shown_f.window, ==, EF_WINDOW_TAYLOR);
    g_assert_nonnull (strstr (ef_classroom_window_test_measure_text (w), "quadratic phase"));
    ef_classroom_window_test_set_aperture (w, 0, 511);
    ef_classroom_window_test_set_band (w, 0, 3);

    /* Kept with the collection: a new window on the same scene lists it and goes back to it. */
    {
      EfClassroomWindow *w2 = ef_classroom_window_new (NULL);

      ef_classroom_window_open_demo (w2);
      gtk_window_present (GTK_WINDOW (w2));
      iterate_until (ef_classroom_window_test_is_ready, w2, 180000);
      settle ();
      g_assert_cmpuint (ef_classroom_window_test_n_bookmarks (w2), ==, 1);
      g_assert_true (ef_classroom_window_test_go (w2, 0));
      iterate_until (ef_classroom_window_test_is_settled, w2, 240000);
      ef_classroom_window_test_windows (w2, &first, &last, &lo, &hi);
      ef_classroom_window_test_shown_whatif (w2, &shown_e, &shown_f);
      g_test_message ("bookmark in a new window: pulses %" G_GUINT64_FORMAT "-%" G_GUINT64_FORMAT ", bands %u-%u, "
                      "pulse %" G_GUINT64_FORMAT, first, last, lo, hi, ef_classroom_window_test_current (w2));
      g_assert_cmpuint (first, ==, 128);
      g_assert_cmpuint (last, ==, 255);
      g_assert_cmpuint (lo, ==, 1);
      g_assert_cmpuint (hi, ==, 2);
      g_assert_cmpuint (ef_classroom_window_test_current (w2), ==, 254);
      g_assert_cmpfloat (shown_e.speed_pct, ==, 0.1);
      g_assert_cmpint (shown_f.window, ==, EF_WINDOW_TAYLOR);
      gtk_window_destroy (GTK_WINDOW (w2));
      settle ();
    }

    /* A damaged file: what does not describe a state of the collection is left out, the rest kept. */
    {
      g_autofree char *file = g_build_filename (g_get_user_state_dir (), "echoform", "classroom-bookmarks.ini", NULL);
      g_autofree char *text = NULL;
      g_autoptr (GError) error = NULL;
      g_autoptr (GString) bad = NULL;
      EfClassroomWindow *w3;

      g_assert_true (g_file_get_contents (file, &text, NULL, &error));
      g_assert_no_error (error);
      bad = g_string_new (text);
      /* A second bookmark past the collection's last pulse, a third with too few fields. */
      g_string_replace (bad, "names=quarter;", "names=quarter;late;short;", 1);
      g_string_append (bad, "b1=0;0;9999;0;3;0;0;16;0;0;0;0;0;0;0;\nb2=1;2;3;\n");
      g_assert_true (g_file_set_contents (file, bad->str, -1, &error));
      g_assert_no_error (error);
      w3 = ef_classroom_window_new (NULL);
      ef_classroom_window_open_demo (w3);
      gtk_window_present (GTK_WINDOW (w3));
      iterate_until (ef_classroom_window_test_is_ready, w3, 180000);
      settle ();
      g_assert_cmpuint (ef_classroom_window_test_n_bookmarks (w3), ==, 1);
      gtk_window_destroy (GTK_WINDOW (w3));
      g_assert_true (g_file_set_contents (file, "[this is not a key file", -1, &error));
      w3 = ef_classroom_window_new (NULL);
      ef_classroom_window_open_demo (w3);
      gtk_window_present (GTK_WINDOW (w3));
      iterate_until (ef_classroom_window_test_is_ready, w3, 180000);
      settle ();
      g_assert_cmpuint (ef_classroom_window_test_n_bookmarks (w3), ==, 0);
      gtk_window_destroy (GTK_WINDOW (w3));
      settle ();
    }
  }

  /* Large text and high contrast for the projector, and the keys that size the text. */
  {
    GtkWidget *label = ef_classroom_window_test_pulse_label (w);
    int h0 = label_height (label), h1;

    ef_classroom_window_test_toggle (w, TRUE, TRUE);
    settle ();
    h1 = label_height (label);
    g_test_message ("large text: the pulse readout %d px high, %d px before", h1, h0);
    g_assert_cmpfloat (ef_classroom_window_test_text_scale (w), ==, 1.5);
    g_assert_cmpfloat (h1, >, 1.3 * h0);
    /* Kept in the settings: a new window starts with it. */
    {
      EfClassroomWindow *w4 = ef_classroom_window_new (NULL);

      g_assert_cmpfloat (ef_classroom_window_test_text_scale (w4), ==, 1.5);
      gtk_window_destroy (GTK_WINDOW (w4));
    }
    e = (EfTeachErrors) { .phase_shape = EF_TEACH_PHASE_RANDOM_WALK, .phase_rms = 1.0, .seed = 3 };
    whatif (w, &e, &plain);
    screenshot (GTK_WIDGET (w), "classroom-presenter.png");
    g_assert_true (ef_classroom_window_test_key_mod (w, GDK_KEY_plus, GDK_CONTROL_MASK));
    g_assert_cmpfloat (ef_classroom_window_test_text_scale (w), ==, 1.75);
    g_assert_true (ef_classroom_window_test_key_mod (w, GDK_KEY_0, GDK_CONTROL_MASK));
    g_assert_cmpfloat (ef_classroom_window_test_text_scale (w), ==, 1.0);
    settle ();
    g_assert_cmpint (label_height (label), ==, h0);
  }

  gtk_window_destroy (GTK_WINDOW (w));
  for (int i = 0; i < 200 && g_weak_ref_get (&wref) != NULL; i++)
    {
      g_object_unref (g_weak_ref_get (&wref));
      g_main_context_iteration (NULL, FALSE);
      g_usleep (1000);
    }
  g_assert_null (g_weak_ref_get (&wref));
  g_weak_ref_clear (&wref);
}

int
main (int argc, char **argv)
{
  ef_test_isolate_user_dirs ();
  gtk_test_init (&argc, &argv, NULL);
  adw_init ();
  g_test_add_func ("/gui/classroom/whatif", test_whatif);
  return g_test_run ();
}
