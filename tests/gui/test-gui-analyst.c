/* test-gui-analyst.c: what an analyst reaches for: scale and axes, the full-resolution PNG, histogram, typed region, undo. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "test-gui-analyst"
#include "config.h"

#include <adwaita.h>
#include <math.h>
#include <string.h>

#include "ef-annotate.h"
#include "ef-application.h"
#include "ef-export-png.h"
#include "ef-gui-window-test.h"
#include "ef-demo-test.h"
#include "ef-image-view-test.h"
#include "ef-display-panel-test.h"
#include "ef-histogram.h"
#include "ef-main-window-test.h"
#include "ef-processing-panel-test.h"


/* A PNG's pixels as BGRA bytes (owned), its size in *w, *h. */
static guint8 *
read_png (const char *path, int *w, int *h)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GdkTexture) texture = gdk_texture_new_from_filename (path, &error);
  guint8 *px;

  g_assert_no_error (error);
  *w = gdk_texture_get_width (texture);
  *h = gdk_texture_get_height (texture);
  px = g_malloc ((gsize) *w * *h * 4);
  gdk_texture_download (texture, px, (gsize) *w * 4);
  return px;
}

static gboolean
black_at (const guint8 *px, int w, int x, int y)
{
  const guint8 *q = px + ((gsize) y * w + x) * 4;
  return q[0] < 40 && q[1] < 40 && q[2] < 40;
}

/* The longest run of solid black, five rows deep, along any row from y0 down: the scale bar (text, ticks
 * and the colour bar's one-pixel frame make no such run). Its length, and where it starts. */
static int
longest_black_run (const guint8 *px, int w, int h, int y0, int *run_x, int *run_y)
{
  int best = 0;

  for (int y = MAX (y0, 0); y + 4 < h; y++)
    for (int x = 0, run = 0; x < w; x++)
      {
        gboolean black = TRUE;

        for (int k = 0; k < 5 && black; k++)
          black = black_at (px, w, x, y + k);

        run = black ? run + 1 : 0;
        if (run > best)
          {
            best = run;
            *run_x = x - run + 1;
            *run_y = y;
          }
      }
  return best;
}

/* "20 m", "50 cm", "2 km", "5 mm" in metres. */
static double
label_metres (const char *label)
{
  char *end = NULL;
  double v = g_ascii_strtod (label, &end);

  g_assert_true (end != label);
  while (*end == ' ')
    end++;
  if (g_str_equal (end, "km"))
    return v * 1000;
  if (g_str_equal (end, "m"))
    return v;
  if (g_str_equal (end, "cm"))
    return v / 100;
  g_assert_cmpstr (end, ==, "mm");
  return v / 1000;
}

/* The exported PNG's scale bar, measured in the file against the grid: its length in pixels times the
 * spacing is what its label says, within 1 %, on grids of random size and spacing. The image is in the
 * file at one file pixel per image pixel, as the display maps it. */
static void
test_export_scale_bar (void)
{
  g_autofree char *dir = g_dir_make_tmp ("echoform-test-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "region.png", NULL);
  GRand *rand = g_rand_new_with_seed (g_test_rand_int ());

  for (int trial = 0; trial < 6; trial++)
    {
      EfGrid grid;
      EfDisplayParams display;
      EfExportLayout layout = { 0 };
      g_autoptr (GError) error = NULL;
      g_autofree EfCf32 *pix = NULL;
      g_autofree guint8 *png = NULL;
      guint8 table[EF_COLORMAP_LUT_SIZE * 4];
      double spacing = exp (g_rand_double_range (rand, log (0.02), log (5.0)));
      guint w = (guint) g_rand_int_range (rand, 40, 900), hgt = (guint) g_rand_int_range (rand, 40, 600);
      double gain = g_rand_double_range (rand, -60, 0), scale, offset, measured;
      int fw, fh, rx = 0, ry = 0, run;

      g_assert_true (ef_grid_init_roi (&grid, -0.5 * w * spacing, -0.5 * hgt * spacing, 0.5 * w * spacing,
                                       0.5 * hgt * spacing, spacing, &error));
      g_assert_no_error (error);
      pix = g_new (EfCf32, ef_grid_n_pixels (&grid));
      for (gsize i = 0; i < ef_grid_n_pixels (&grid); i++)
        pix[i] = (float) g_rand_double_range (rand, -1, 1) + I * (float) g_rand_double_range (rand, -1, 1);
      ef_display_params_init (&display);
      display.colormap = trial % 2 ? EF_COLORMAP_PERCEPTUAL : EF_COLORMAP_GREY;
      display.db_min = gain - 15;
      display.db_max = gain + 3;
      g_assert_true (ef_export_db_png (pix, &grid, &display, -gain, "test", path, &layout, &error));
      g_assert_no_error (error);

      png = read_png (path, &fw, &fh);
      g_assert_cmpint (fw, ==, layout.width);
      g_assert_cmpint (fh, ==, layout.height);
      run = longest_black_run (png, fw, fh, (int) (layout.image_y + grid.height + 2), &rx, &ry);
      measured = run * spacing;
      g_test_message ("%u x %u px at %.4f m: the bar is %d px at %d,%d, %.4f m; it says %s", grid.width,
                      grid.height, spacing, run, rx, ry, measured, layout.scale_bar_label);
      g_assert_cmpfloat (fabs (measured / label_metres (layout.scale_bar_label) - 1), <, 0.01);

      /* Full resolution: file pixel (x0 + c, y0 + r) is image pixel (c, r), as the display maps it. */
      ef_display_table_fill (display.colormap, display.gamma, table, EF_COLORMAP_LUT_SIZE);
      ef_display_values_map (&display, -gain, &scale, &offset);
      for (int k = 0; k < 200; k++)
        {
          guint c = (guint) g_rand_int_range (rand, 0, (int) grid.width);
          guint r = (guint) g_rand_int_range (rand, 0, (int) grid.height);
          float v;
          double t;
          const guint8 *want, *got;

          ef_display_values_convert (EF_VIEW_MAGNITUDE, &pix[(gsize) r * grid.width + c], &v, 1);
          t = CLAMP (v * scale + offset, 0.0, 1.0);
          want = table + 4 * (guint) (t * (EF_COLORMAP_LUT_SIZE - 1) + 0.5);
          got = png + (((gsize) (layout.image_y + r)) * fw + layout.image_x + c) * 4;
          /* gdk_texture_download () writes cairo's order: B, G, R, A. */
          g_assert_cmpuint (got[2], ==, want[0]);
          g_assert_cmpuint (got[1], ==, want[1]);
          g_assert_cmpuint (got[0], ==, want[2]);
        }
      ef_export_layout_clear (&layout);
    }
  g_rand_free (rand);
  g_unlink (path);
  g_rmdir (dir);
}

/* The window's "Export Region as PNG": the whole region at full resolution, whatever the zoom. */
static void
test_window_export_region (void)
{
  g_autofree char *dir = g_dir_make_tmp ("echoform-test-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "region.png", NULL);
  g_autofree guint8 *png = NULL;
  EfMainWindow *window = new_window ();
  const double roi[4] = { -20, -10, 20, 10 };
  ExportResult r = { 0 };
  const EfGrid *grid;
  double metres, pixels;
  int fw, fh, rx = 0, ry = 0, run;

  ef_main_window_set_dataset (window, demo);
  ef_main_window_set_roi (window, roi);
  spin_until (window_idle, window, 120);
  /* Zoomed far out: the view shows the region small; the export does not care. */
  g_action_group_activate_action (G_ACTION_GROUP (window), "zoom-fit", NULL);
  g_signal_connect (window, "export-finished", G_CALLBACK (export_finished), &r);
  g_action_group_activate_action (G_ACTION_GROUP (window), "export-region-png-to", g_variant_new_string (path));
  spin_until (export_done, &r, 60);
  g_assert_true (r.ok);
  grid = ef_job_runner_get_grid (ef_main_window_get_roi_runner (window));
  png = read_png (path, &fw, &fh);
  g_test_message ("region %u x %u px; file %d x %d", grid->width, grid->height, fw, fh);
  g_assert_cmpint (fw, >=, (int) grid->width + 64);
  g_assert_cmpint (fh, >=, (int) grid->height + 100);
  run = longest_black_run (png, fw, fh, 30 + (int) grid->height + 2, &rx, &ry);
  g_assert_cmpint (run, >=, 80);
  g_assert_cmpint (run, <=, 200);

  /* On screen: a round length, as long as the view's scale makes it. */
  g_assert_true (ef_image_view_get_scale_bar (ef_main_window_get_image_view (window), &metres, &pixels));
  g_test_message ("on screen: %g m over %.1f px", metres, pixels);
  g_assert_cmpfloat (fabs (pixels / (metres * ef_image_view_get_scale (ef_main_window_get_image_view (window)))
                           - 1), <, 1e-9);
  g_assert_cmpfloat (pixels, <=, 160);
  g_assert_cmpfloat (pixels, >=, 160 / 2.5 - 1e-9);
  close_window (window);
  g_unlink (path);
  g_rmdir (dir);
}

/* The Display page's histogram counts the region's pixels by their dB per pulse, as an independent count in
 * float64 does. */
static void
test_histogram (void)
{
  EfMainWindow *window = new_window ();
  const double roi[4] = { -10, -8, 10, 8 };
  EfJobRunner *runner;
  const EfGrid *grid;
  const guint64 *counts;
  guint n_bins;
  double lo, hi, gain;
  g_autofree EfCf32 *px = NULL;
  guint64 total = 0, want_total = 0;
  g_autofree guint64 *want = NULL;
  EfRect all;
  GtkWidget *histogram;

  ef_main_window_set_dataset (window, demo);
  ef_main_window_set_roi (window, roi);
  spin_until (window_idle, window, 120);
  runner = ef_main_window_get_roi_runner (window);
  grid = ef_job_runner_get_grid (runner);
  histogram = ef_display_panel_get_widget (window->display_panel, "histogram");
  g_assert_nonnull (histogram);
  counts = ef_histogram_get_counts (EF_HISTOGRAM (histogram), &n_bins, &lo, &hi);
  g_assert_nonnull (counts);
  g_assert_cmpuint (n_bins, >=, 32);
  all = (EfRect) { 0, 0, grid->width, grid->height };
  px = g_new (EfCf32, ef_grid_n_pixels (grid));
  g_assert_true (ef_job_runner_read (runner, &all, px, NULL));
  gain = -20 * log10 ((double) ef_job_runner_get_progress (runner)->pulses_done);
  want = g_new0 (guint64, n_bins);
  for (gsize i = 0; i < ef_grid_n_pixels (grid); i++)
    {
      double p = (double) crealf (px[i]) * crealf (px[i]) + (double) cimagf (px[i]) * cimagf (px[i]);
      double db = 10 * log10 (p) + gain;
      if (p > 0 && db >= lo && db <= hi)
        {
          want[MIN ((guint) floor ((db - lo) / (hi - lo) * n_bins), n_bins - 1)]++;
          want_total++;
        }
    }
  for (guint b = 0; b < n_bins; b++)
    {
      total += counts[b];
      /* A value on a bin's edge may fall either side in single and double precision. */
      g_assert_cmpint (llabs ((long long) counts[b] - (long long) want[b]), <=, 1 + want[b] / 1000);
    }
  g_test_message ("%" G_GUINT64_FORMAT " of %zu pixels in %u bins over %.0f .. %.0f dB", total,
                  ef_grid_n_pixels (grid), n_bins, lo, hi);
  g_assert_cmpuint (total, ==, want_total);
  /* The top bin holds the brightest pixel: the span reaches it. */
  g_assert_cmpuint (counts[n_bins - 1], >, 0);
  close_window (window);
}

/* The region typed as its corners, and the spacing typed: the region forms as typed; a bad line is marked
 * and changes nothing. */
static void
test_typed_region (void)
{
  EfMainWindow *window = new_window ();
  GtkWidget *entry, *sw, *spacing;
  double roi[4];

  ef_main_window_set_dataset (window, demo);
  entry = ef_processing_panel_get_widget (window->processing_panel, "roi-entry");
  g_assert_nonnull (entry);
  gtk_editable_set_text (GTK_EDITABLE (entry), "−6.5, -4; 6.25 4.75");
  g_signal_emit_by_name (entry, "apply");
  g_assert_true (ef_main_window_get_roi (window, roi));
  g_assert_cmpfloat (roi[0], ==, -6.5);
  g_assert_cmpfloat (roi[1], ==, -4);
  g_assert_cmpfloat (roi[2], ==, 6.25);
  g_assert_cmpfloat (roi[3], ==, 4.75);
  g_assert_false (gtk_widget_has_css_class (entry, "error"));

  for (guint i = 0; i < 4; i++)
    {
      const char *bad[] = { "1, 2, 3", "1, 2, 3, 4, 5", "a, b, c, d", "1, 2, 1, 5" };
      double now[4];

      gtk_editable_set_text (GTK_EDITABLE (entry), bad[i]);
      g_signal_emit_by_name (entry, "apply");
      g_assert_true (gtk_widget_has_css_class (entry, "error"));
      g_assert_true (ef_main_window_get_roi (window, now));
      g_assert_cmpmem (now, sizeof now, roi, sizeof roi);
    }

  /* The spacing, typed. */
  sw = ef_processing_panel_get_widget (window->processing_panel, "spacing-auto");
  spacing = ef_processing_panel_get_widget (window->processing_panel, "spacing");
  gtk_switch_set_active (GTK_SWITCH (sw), FALSE);
  gtk_editable_set_text (GTK_EDITABLE (spacing), "0.2");
  gtk_spin_button_update (GTK_SPIN_BUTTON (spacing));
  spin_until (window_idle, window, 120);
  g_assert_cmpfloat_with_epsilon (ef_job_runner_get_grid (ef_main_window_get_roi_runner (window))->spacing, 0.2,
                                  1e-12);
  /* The entry shows the region drawn. */
  ef_main_window_set_roi (window, (double[]) { -3, -2, 5, 1 });
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (entry)), ==, "-3.00, -2.00, 5.00, 1.00");
  gtk_switch_set_active (GTK_SWITCH (sw), TRUE);
  spin_until (window_idle, window, 120);
  close_window (window);
}

static gboolean
enabled (EfMainWindow *window, const char *action)
{
  return g_action_group_get_action_enabled (G_ACTION_GROUP (window), action);
}

static void
assert_roi (EfMainWindow *window, const double *want)
{
  double roi[4];

  if (want == NULL)
    {
      g_assert_false (ef_main_window_get_roi (window, roi));
      return;
    }
  g_assert_true (ef_main_window_get_roi (window, roi));
  g_assert_cmpmem (roi, sizeof roi, want, 4 * sizeof (double));
}

/* Region changes undone and redone, in order; a new change ends what could be redone. */
static void
test_undo_region (void)
{
  EfMainWindow *window = new_window ();
  const double a[4] = { -6, -4, 6, 4 }, b[4] = { -2, -2, 8, 3 }, c[4] = { 0, 0, 5, 5 };

  ef_main_window_set_dataset (window, demo);
  ef_main_window_set_roi (window, NULL);
  spin_until (window_idle, window, 120);
  /* What the collection opened with is not a change of the user's. */
  g_assert_false (enabled (window, "redo-region"));
  ef_main_window_set_roi (window, a);
  g_action_group_activate_action (G_ACTION_GROUP (window), "set-roi", g_variant_new ("(dddd)", b[0], b[1], b[2], b[3]));
  g_action_group_activate_action (G_ACTION_GROUP (window), "clear-roi", NULL);
  assert_roi (window, NULL);
  g_action_group_activate_action (G_ACTION_GROUP (window), "undo-region", NULL);
  assert_roi (window, b);
  g_action_group_activate_action (G_ACTION_GROUP (window), "undo-region", NULL);
  assert_roi (window, a);
  g_assert_true (enabled (window, "redo-region"));
  g_action_group_activate_action (G_ACTION_GROUP (window), "redo-region", NULL);
  assert_roi (window, b);
  ef_main_window_set_roi (window, c);
  g_assert_false (enabled (window, "redo-region"));
  g_action_group_activate_action (G_ACTION_GROUP (window), "undo-region", NULL);
  assert_roi (window, b);
  g_action_group_activate_action (G_ACTION_GROUP (window), "undo-region", NULL);
  g_action_group_activate_action (G_ACTION_GROUP (window), "undo-region", NULL);
  assert_roi (window, NULL);
  spin_until (window_idle, window, 120);
  close_window (window);
}

/* Each line of the measurements' CSV says what image it came from. */
static void
test_measurement_csv (void)
{
  g_autofree char *dir = g_dir_make_tmp ("echoform-test-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "points.csv", NULL);
  g_autofree char *csv = NULL;
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) lines = NULL, head = NULL, row = NULL, row2 = NULL;
  EfMainWindow *window = new_window ();
  double target[3], roi[4];
  int col_file = -1, col_algo = -1, col_window = -1, col_prec = -1, col_spacing = -1, col_image = -1;

  ef_demo_get_point_target (2, target);
  roi[0] = target[0] - 3, roi[1] = target[1] - 3, roi[2] = target[0] + 3, roi[3] = target[1] + 3;
  ef_main_window_set_dataset (window, demo);
  g_action_group_change_action_state (G_ACTION_GROUP (window), "algorithm", g_variant_new_string ("bp"));
  g_action_group_change_action_state (G_ACTION_GROUP (window), "precision", g_variant_new_string ("fp64"));
  ef_main_window_set_roi (window, roi);
  spin_until (window_idle, window, 120);
  g_assert_true (ef_main_window_measure_at (window, target[0], target[1], &error));
  g_action_group_change_action_state (G_ACTION_GROUP (window), "precision", g_variant_new_string ("fp32"));
  spin_until (window_idle, window, 120);
  g_assert_true (ef_main_window_measure_at (window, target[0], target[1], &error));
  g_assert_no_error (error);
  g_assert_true (ef_main_window_write_measurements_csv (window, path, &error));
  g_assert_true (g_file_get_contents (path, &csv, NULL, NULL));
  g_test_message ("%s", csv);
  lines = g_strsplit (csv, "\n", -1);
  head = g_strsplit (lines[0], ",", -1);
  for (int i = 0; head[i] != NULL; i++)
    {
      col_file = g_str_equal (head[i], "file") ? i : col_file;
      col_image = g_str_equal (head[i], "image") ? i : col_image;
      col_algo = g_str_equal (head[i], "algorithm") ? i : col_algo;
      col_window = g_str_equal (head[i], "window") ? i : col_window;
      col_prec = g_str_equal (head[i], "precision") ? i : col_prec;
      col_spacing = g_str_equal (head[i], "spacing_m") ? i : col_spacing;
    }
  g_assert_cmpint (MIN (MIN (col_file, col_algo), MIN (MIN (col_window, col_prec), MIN (col_spacing, col_image))),
                   >=, 0);
  row = g_strsplit (lines[1], ",", -1);
  row2 = g_strsplit (lines[2], ",", -1);
  g_assert_cmpstr (row[col_file], ==, "demo");
  g_assert_cmpstr (row[col_image], ==, "region");
  g_assert_cmpstr (row[col_algo], ==, "bp");
  g_assert_cmpstr (row[col_window], ==, ef_window_to_string (window->proc.window));
  g_assert_cmpstr (row[col_prec], ==, "fp64");
  g_assert_cmpstr (row2[col_prec], ==, "fp32");
  g_assert_cmpfloat_with_epsilon (g_ascii_strtod (row[col_spacing], NULL),
                                  ef_job_runner_get_grid (ef_main_window_get_roi_runner (window))->spacing, 1e-6);
  close_window (window);
  g_unlink (path);
  g_rmdir (dir);
}

int
main (int argc, char *argv[])
{
  int status;

  ef_test_window_setup (&argc, &argv);

  g_test_add_func ("/gui/analyst/export-scale-bar", test_export_scale_bar);
  g_test_add_func ("/gui/analyst/window-export-region", test_window_export_region);
  g_test_add_func ("/gui/analyst/histogram", test_histogram);
  g_test_add_func ("/gui/analyst/typed-region", test_typed_region);
  g_test_add_func ("/gui/analyst/undo-region", test_undo_region);
  g_test_add_func ("/gui/analyst/measurement-csv", test_measurement_csv);
  status = g_test_run ();

  ef_test_window_teardown ();
  return status;
}
