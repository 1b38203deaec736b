/* test-gui-compare.c: several regions a collection keeps, and two images compared (linked view, swipe, dB difference). */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "test-gui-compare"
#include "config.h"

#include <adwaita.h>
#include <complex.h>
#include <math.h>
#include <string.h>

#include "ef-application.h"
#include "ef-compare-view.h"
#include "ef-compare-window.h"
#include "ef-demo-test.h"
#include "ef-gui-window-test.h"
#include "ef-main-window-test.h"


/* A random complex image on a ground-plane grid. */
static EfImage *
random_image (double x0, double y0, double x1, double y1, double spacing)
{
  EfGrid g;
  EfImage *im;

  g_assert_true (ef_grid_init_roi (&g, x0, y0, x1, y1, spacing, NULL));
  im = ef_image_new (&g, NULL);
  for (gsize i = 0; i < ef_grid_n_pixels (&g); i++)
    im->data[i] = (float) g_test_rand_double_range (-1, 1) + I * (float) g_test_rand_double_range (-1, 1);
  return im;
}

/* Image im's value at a scene point in dB below its peak, nearest pixel, as a direct reference. */
static gboolean
reference_db (const EfImage *im, const double scene[2], double *db)
{
  double pos[3] = { scene[0], scene[1], 0 }, col, row, peak = 0;
  long c, r;

  for (gsize i = 0; i < ef_grid_n_pixels (&im->grid); i++)
    peak = MAX (peak, (double) cabsf (im->data[i]));
  ef_grid_position_to_pixel (&im->grid, pos, &col, &row);
  c = lround (col);
  r = lround (row);
  if (c < 0 || r < 0 || c >= (long) im->grid.width || r >= (long) im->grid.height)
    return FALSE;
  *db = 20 * log10 (cabsf (im->data[(gsize) r * im->grid.width + c]) / peak);
  return TRUE;
}

static void
save_png (EfCompareView *view, const char *name)
{
  cairo_surface_t *s = ef_compare_view_render (view, 900, 500);
  g_autofree char *path = g_build_filename (g_getenv ("G_TEST_BUILDDIR") ? g_getenv ("G_TEST_BUILDDIR") : ".", name, NULL);

  g_assert_cmpint (cairo_surface_write_to_png (s, path), ==, CAIRO_STATUS_SUCCESS);
  g_test_message ("screenshot: %s", path);
  cairo_surface_destroy (s);
}

/* Side by side: one view of the scene in both halves, through pans and zooms; each half shows its own
 * image's value there. Swipe: A left of the line, B right of it. Difference: dB(A) - dB(B), and nothing
 * outside the overlap of two regions. */
static void
test_view (void)
{
  g_autoptr (EfImage) a = random_image (-10, -6, 10, 6, 0.1);
  g_autoptr (EfImage) b = random_image (-4, -8, 14, 4, 0.1);   /* another region, overlapping A */
  EfCompareView *view = EF_COMPARE_VIEW (ef_compare_view_new ());
  const int W = 900, H = 500;
  guint checked = 0, outside = 0;

  g_object_ref_sink (view);
  ef_compare_view_set_images (view, a, "A", b, "B");
  /* Drawn once: the size pan and zoom work in. */
  cairo_surface_destroy (ef_compare_view_render (view, W, H));
  for (int step = 0; step < 3; step++)
    {
      for (int k = 0; k < 200; k++)
        {
          double x = g_test_rand_double_range (0, W / 2 - 1), y = g_test_rand_double_range (0, H);
          double sl[2], sr[2], vl = NAN, vr = NAN, ref;
          EfCompareSource l, r;

          ef_compare_view_set_mode (view, EF_COMPARE_SIDE_BY_SIDE);
          l = ef_compare_view_probe (view, W, H, x, y, sl, &vl);
          r = ef_compare_view_probe (view, W, H, x + W / 2, y, sr, &vr);
          g_assert_cmpfloat (fabs (sl[0] - sr[0]) + fabs (sl[1] - sr[1]), <, 1e-9);
          if (l == EF_COMPARE_A)
            {
              g_assert_true (reference_db (a, sl, &ref));
              g_assert_cmpfloat (fabs (vl - ref), <, 1e-9);
              checked++;
            }
          else
            g_assert_false (reference_db (a, sl, &ref));
          if (r == EF_COMPARE_B)
            {
              g_assert_true (reference_db (b, sr, &ref));
              g_assert_cmpfloat (fabs (vr - ref), <, 1e-9);
            }
        }
      /* Pan and zoom: both halves follow. */
      ef_compare_view_pan (view, 37, -12);
      ef_compare_view_zoom (view, 1.7, 120, 200);
    }
  g_assert_cmpuint (checked, >, 100);

  /* Back to the view that fits both images. */
  ef_compare_view_set_images (view, a, "A", b, "B");
  ef_compare_view_set_mode (view, EF_COMPARE_SWIPE);
  ef_compare_view_set_swipe (view, 0.3);
  for (int k = 0; k < 400; k++)
    {
      double x = g_test_rand_double_range (0, W), y = g_test_rand_double_range (0, H), s[2], v = NAN, ref;
      EfCompareSource src = ef_compare_view_probe (view, W, H, x, y, s, &v);

      if (src == EF_COMPARE_NOTHING)
        continue;
      g_assert_cmpint (src, ==, x < 0.3 * W ? EF_COMPARE_A : EF_COMPARE_B);
      g_assert_true (reference_db (src == EF_COMPARE_A ? a : b, s, &ref));
      g_assert_cmpfloat (fabs (v - ref), <, 1e-9);
    }

  ef_compare_view_set_mode (view, EF_COMPARE_DIFFERENCE);
  checked = 0;
  for (int k = 0; k < 400; k++)
    {
      double x = g_test_rand_double_range (0, W), y = g_test_rand_double_range (0, H), s[2], v = NAN, ra, rb;
      EfCompareSource src = ef_compare_view_probe (view, W, H, x, y, s, &v);
      gboolean in_a = reference_db (a, s, &ra), in_b = reference_db (b, s, &rb);

      if (in_a && in_b)
        {
          g_assert_cmpint (src, ==, EF_COMPARE_DIFF);
          g_assert_cmpfloat (fabs (v - (ra - rb)), <, 1e-9);
          checked++;
        }
      else
        {
          g_assert_cmpint (src, ==, EF_COMPARE_NOTHING);
          outside++;
        }
    }
  g_assert_cmpuint (checked, >, 20);
  g_assert_cmpuint (outside, >, 20);
  g_object_unref (view);
}

typedef struct {
  gboolean drawn;
} Drawn;

static gboolean
tick (GtkWidget *widget, GdkFrameClock *clock, gpointer data)
{
  ((Drawn *) data)->drawn = TRUE;
  return G_SOURCE_REMOVE;
}

static gboolean
drawn (gpointer data)
{
  return ((Drawn *) data)->drawn;
}

/* Regions of the demo kept with their windows and compared: the region formed with a Taylor window
 * across the aperture and without one differ around its point target, where the sidelobes are, and not
 * at the target's peak. The kept list is remembered with the collection's session, without images. */
static void
test_regions (void)
{
  EfMainWindow *window = ef_main_window_new (GTK_APPLICATION (app));
  g_autoptr (GError) error = NULL;
  double target[3], roi[4];
  EfProcessing proc;
  EfCompareView *view;
  Drawn d = { 0 };
  double max_diff = 0, peak_diff = NAN;

  g_object_ref (window);
  gtk_window_set_default_size (GTK_WINDOW (window), 1280, 800);
  gtk_window_present (GTK_WINDOW (window));
  ef_demo_get_point_target (2, target);
  roi[0] = target[0] - 3;
  roi[1] = target[1] - 3;
  roi[2] = target[0] + 3;
  roi[3] = target[1] + 3;
  ef_main_window_set_dataset (window, demo);
  g_assert_false (ef_main_window_keep_region (window, &error));   /* nothing formed yet */
  g_clear_error (&error);
  ef_main_window_set_roi (window, roi);
  spin_until (window_idle, window, 120);
  g_assert_true (ef_main_window_keep_region (window, &error));
  g_assert_no_error (error);

  ef_processing_panel_get (window->processing_panel, &proc);
  proc.az_window = EF_WINDOW_RECT;
  ef_processing_panel_set (window->processing_panel, &proc, ef_main_window_get_roi_spacing (window));
  g_signal_emit_by_name (window->processing_panel, "changed");
  spin_until (window_idle, window, 120);
  g_action_group_activate_action (G_ACTION_GROUP (window), "keep-region", NULL);
  g_assert_cmpuint (ef_main_window_get_n_regions (window), ==, 2);
  g_assert_cmpint (ef_main_window_get_region (window, 0)->proc.az_window, ==, EF_WINDOW_TAYLOR);
  g_assert_cmpint (ef_main_window_get_region (window, 1)->proc.az_window, ==, EF_WINDOW_RECT);

  g_action_group_activate_action (G_ACTION_GROUP (window), "compare-regions", g_variant_new_string (""));
  g_assert_nonnull (window->compare_window);
  view = ef_compare_window_get_view (EF_COMPARE_WINDOW (window->compare_window));
  gtk_widget_add_tick_callback (GTK_WIDGET (view), tick, &d, NULL);
  spin_until (drawn, &d, 30);
  spin (0.2);
  ef_compare_view_set_mode (view, EF_COMPARE_DIFFERENCE);
  {
    const int W = 600, H = 600;

    for (int y = 0; y < H; y += 3)
      for (int x = 0; x < W; x += 3)
        {
          double s[2], v;

          if (ef_compare_view_probe (view, W, H, x, y, s, &v) != EF_COMPARE_DIFF)
            continue;
          if (hypot (s[0] - target[0], s[1] - target[1]) < 0.05 && isnan (peak_diff))
            peak_diff = v;
          max_diff = MAX (max_diff, fabs (v));
        }
  }
  g_test_message ("Taylor against no cross-range window: largest |difference| %.1f dB; at the peak %.2f dB", max_diff,
                  peak_diff);
  g_assert_cmpfloat (max_diff, >, 10.0);
  g_assert_true (isfinite (peak_diff));
  /* The peak itself: both are normalised to it (a pixel's width off the true peak allows 1 dB). */
  g_assert_cmpfloat (fabs (peak_diff), <, 1.0);
  save_png (view, "compare-difference.png");
  /* Any two of the kept regions: the first against itself differs nowhere. */
  ef_compare_window_select (EF_COMPARE_WINDOW (window->compare_window), 0, 0);
  ef_compare_view_set_mode (view, EF_COMPARE_DIFFERENCE);
  {
    guint n_diff = 0;

    for (int y = 0; y < 600; y += 7)
      for (int x = 0; x < 600; x += 7)
        {
          double v;

          if (ef_compare_view_probe (view, 600, 600, x, y, NULL, &v) == EF_COMPARE_DIFF)
            {
              g_assert_cmpfloat (v, ==, 0.0);
              n_diff++;
            }
        }
    g_assert_cmpuint (n_diff, >, 100);
  }
  ef_compare_window_select (EF_COMPARE_WINDOW (window->compare_window), 0, 1);
  /* The whole comparison window, as it is on screen. */
  {
    GtkWidget *w = GTK_WIDGET (window->compare_window);
    g_autoptr (GdkPaintable) paintable = gtk_widget_paintable_new (w);
    GtkSnapshot *snap = gtk_snapshot_new ();
    GskRenderNode *node;
    g_autofree char *path = g_build_filename (g_getenv ("G_TEST_BUILDDIR") ? g_getenv ("G_TEST_BUILDDIR") : ".",
                                              "compare-window.png", NULL);

    ef_compare_view_set_mode (view, EF_COMPARE_SIDE_BY_SIDE);
    spin (0.3);
    gdk_paintable_snapshot (paintable, snap, gtk_widget_get_width (w), gtk_widget_get_height (w));
    node = gtk_snapshot_free_to_node (snap);
    if (node != NULL)
      {
        g_autoptr (GdkTexture) tex = gsk_renderer_render_texture (gtk_native_get_renderer (GTK_NATIVE (w)), node, NULL);

        g_assert_true (gdk_texture_save_to_png (tex, path));
        g_test_message ("screenshot: %s", path);
        gsk_render_node_unref (node);
      }
  }
  ef_compare_view_set_mode (view, EF_COMPARE_SIDE_BY_SIDE);
  save_png (view, "compare-side-by-side.png");
  ef_compare_view_set_mode (view, EF_COMPARE_SWIPE);
  ef_compare_view_set_swipe (view, 0.5);
  save_png (view, "compare-swipe.png");

  /* The session remembers both regions; their images come back only when they are formed again. */
  ef_main_window_set_dataset (window, demo);
  g_assert_cmpuint (ef_main_window_get_n_regions (window), ==, 2);
  g_assert_null (ef_main_window_get_region_image (window, 0));
  g_assert_cmpint (ef_main_window_get_region (window, 1)->proc.az_window, ==, EF_WINDOW_RECT);
  g_assert_cmpfloat (ef_main_window_get_region (window, 1)->roi[0], ==, roi[0]);
  g_assert_false (ef_main_window_compare_regions (window, 0, 1, &error));
  g_assert_nonnull (strstr (error->message, "earlier session"));
  g_clear_error (&error);
  /* Formed again from the list: its box and processing become the view's. */
  g_action_group_activate_action (G_ACTION_GROUP (window), "restore-region", g_variant_new_uint32 (2));
  g_assert_cmpint (window->proc.az_window, ==, EF_WINDOW_RECT);
  spin_until (window_idle, window, 120);

  gtk_window_close (GTK_WINDOW (window));
  spin_until (no_pending_frees, NULL, 30);
  spin (0.1);
  g_assert_finalize_object (window);
}

int
main (int argc, char *argv[])
{
  int status;

  ef_test_window_setup (&argc, &argv);

  g_test_add_func ("/gui/compare/view", test_view);
  g_test_add_func ("/gui/compare/regions", test_regions);
  status = g_test_run ();

  ef_test_window_teardown ();
  return status;
}
