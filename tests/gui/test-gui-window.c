/* test-gui-window.c: the main window end to end on the demo scene: screenshot, ROI storm, session. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "test-gui-window"
#include "config.h"

#include <adwaita.h>
#include <math.h>
#include <string.h>

#include "ef-application.h"
#include "ef-gui-window-test.h"
#include "ef-demo-test.h"
#include "ef-image-io.h"
#include "ef-main-window-test.h"
#include "ef-preferences-window.h"
#include "ef-processing-panel-test.h"
#include "ef-sicd.h"


typedef struct {
  gboolean done, ok;
  char    *message;
} BatchResult;

static void
batch_done (EfMainWindow *window, gboolean ok, const char *message, BatchResult *r)
{
  r->done = TRUE;
  r->ok = ok;
  r->message = g_strdup (message);
}

static gboolean
batch_finished (gpointer data)
{
  return ((BatchResult *) data)->done;
}

/* The batch hook on the demo: a region around a known point target, a screenshot when it is formed,
 * and the brightest pixel of the region on screen where the target should be. */
static void
test_screenshot_point_target (void)
{
  g_autofree char *dir = g_dir_make_tmp ("echoform-test-XXXXXX", NULL);
  g_autofree char *png = g_build_filename (dir, "shot.png", NULL);
  g_autoptr (GdkTexture) texture = NULL;
  g_autofree guint8 *px = NULL;
  EfMainWindow *window = new_window ();
  EfImageView *view = ef_main_window_get_image_view (window);
  EfBatch batch = { 0 };
  BatchResult result = { 0 };
  double target[3], x0, y0, x1, y1, tx, ty, best = -1;
  graphene_point_t p;
  int w, h, bx = 0, by = 0;
  gsize stride;

  ef_demo_get_point_target (1, target);
  g_test_message ("target at %.3f, %.3f m", target[0], target[1]);
  batch.has_roi = TRUE;
  batch.roi[0] = target[0] - 4;
  batch.roi[1] = target[1] - 3;
  batch.roi[2] = target[0] + 4;
  batch.roi[3] = target[1] + 3;
  batch.zoom_roi = TRUE;
  batch.screenshot = png;
  ef_main_window_set_batch (window, &batch);
  g_signal_connect (window, "batch-done", G_CALLBACK (batch_done), &result);
  ef_main_window_set_dataset (window, demo);
  spin_until (batch_finished, &result, 120);
  g_assert_true (result.ok);
  g_assert_true (g_file_test (png, G_FILE_TEST_EXISTS));

  texture = gdk_texture_new_from_filename (png, NULL);
  g_assert_nonnull (texture);
  w = gdk_texture_get_width (texture);
  h = gdk_texture_get_height (texture);
  g_assert_cmpint (w, ==, gtk_widget_get_width (GTK_WIDGET (window)));
  g_assert_cmpint (h, ==, gtk_widget_get_height (GTK_WIDGET (window)));
  stride = (gsize) w * 4;
  px = g_malloc (stride * h);
  gdk_texture_download (texture, px, stride);

  /* Where the region and the target are on the window. */
  ef_image_view_scene_to_widget (view, batch.roi[0], batch.roi[3], &x0, &y0);
  ef_image_view_scene_to_widget (view, batch.roi[2], batch.roi[1], &x1, &y1);
  ef_image_view_scene_to_widget (view, target[0], target[1], &tx, &ty);
  g_assert_true (gtk_widget_compute_point (GTK_WIDGET (view), GTK_WIDGET (window), &GRAPHENE_POINT_INIT (x0, y0), &p));
  x0 = p.x, y0 = p.y;
  g_assert_true (gtk_widget_compute_point (GTK_WIDGET (view), GTK_WIDGET (window), &GRAPHENE_POINT_INIT (x1, y1), &p));
  x1 = p.x, y1 = p.y;
  g_assert_true (gtk_widget_compute_point (GTK_WIDGET (view), GTK_WIDGET (window), &GRAPHENE_POINT_INIT (tx, ty), &p));
  tx = p.x, ty = p.y;
  g_test_message ("region on screen %.0f,%.0f .. %.0f,%.0f; target at %.1f,%.1f", x0, y0, x1, y1, tx, ty);
  g_assert_cmpfloat (x1 - x0, >, 100);

  /* Inside the region, clear of its outline. */
  for (int y = (int) ceil (y0) + 6; y < (int) floor (y1) - 6; y++)
    for (int x = (int) ceil (x0) + 6; x < (int) floor (x1) - 6; x++)
      {
        const guint8 *q = px + (gsize) y * stride + (gsize) x * 4;
        double v = (double) q[0] + q[1] + q[2];

        if (v > best)
          {
            best = v;
            bx = x;
            by = y;
          }
      }
  /* The main lobe may reach the top of the display range over a few pixels: take the middle of the
   * brightest pixels, which the symmetric sidelobes do not pull aside. */
  {
    double sx = 0, sy = 0, n = 0, cx, cy;

    for (int y = (int) ceil (y0) + 6; y < (int) floor (y1) - 6; y++)
      for (int x = (int) ceil (x0) + 6; x < (int) floor (x1) - 6; x++)
        {
          const guint8 *q = px + (gsize) y * stride + (gsize) x * 4;
          if ((double) q[0] + q[1] + q[2] >= best - 1e-9)
            {
              sx += x + 0.5;
              sy += y + 0.5;
              n++;
            }
        }
    cx = sx / n;
    cy = sy / n;
    g_test_message ("brightest pixel %d,%d (%.0f); %.0f pixels that bright, centred at %.1f,%.1f, %.2f px from "
                    "the target", bx, by, best, n, cx, cy, hypot (cx - tx, cy - ty));
    g_assert_cmpfloat (best, >, 600);
    g_assert_cmpfloat (n, <, 0.02 * (x1 - x0) * (y1 - y0));
    g_assert_cmpfloat (hypot (cx - tx, cy - ty), <=, 2.0);
  }

  g_free (result.message);
  close_window (window);
  g_unlink (png);
  g_rmdir (dir);
}

/* A user dragging the region about: 100 changes in 10 s, each cancelling the job before it. */
static void
test_roi_storm (void)
{
  EfMainWindow *window = new_window ();
  GRand *rand = g_rand_new_with_seed (g_test_rand_int ());
  gint64 start;
  double roi[4];

  ef_main_window_set_dataset (window, demo);
  spin (0.5);
  start = g_get_monotonic_time ();
  for (int i = 0; i < 100; i++)
    {
      double cx = g_rand_double_range (rand, -40, 40), cy = g_rand_double_range (rand, -40, 40);
      double hw = g_rand_double_range (rand, 2, 15), hh = g_rand_double_range (rand, 2, 15);
      GVariant *v = g_variant_new ("(dddd)", cx - hw, cy - hh, cx + hw, cy + hh);

      g_action_group_activate_action (G_ACTION_GROUP (window), "set-roi", v);
      /* Spread over 10 s, with the main loop running in between as it would for a user. */
      while (g_get_monotonic_time () < start + (i + 1) * 100000)
        if (!g_main_context_iteration (NULL, FALSE))
          g_usleep (500);
    }
  g_test_message ("100 changes in %.2f s; %u jobs still being freed", (g_get_monotonic_time () - start) / 1e6,
                  ef_job_runner_get_n_pending_frees ());
  g_assert_true (ef_main_window_get_roi (window, roi));

  /* The last region completes, and every cancelled job is freed. */
  spin_until (window_idle, window, 120);
  g_assert_cmpint (ef_job_runner_get_progress (ef_main_window_get_roi_runner (window))->state, ==, EF_JOB_DONE);
  spin_until (no_pending_frees, NULL, 60);
  g_rand_free (rand);
  close_window (window);
}

/* The region and the processing choices come back when the same collection is opened again. */
static void
test_session_memory (void)
{
  EfMainWindow *window = new_window ();
  const double roi[4] = { -9.5, -6.25, 7.75, 4.5 };
  double back[4];

  ef_main_window_set_dataset (window, demo);
  g_action_group_activate_action (G_ACTION_GROUP (window), "set-spacing", g_variant_new_double (0.125));
  g_action_group_activate_action (G_ACTION_GROUP (window), "algorithm", g_variant_new_string ("bp"));
  g_action_group_activate_action (G_ACTION_GROUP (window), "order", g_variant_new_string ("sequential"));
  ef_main_window_set_roi (window, roi);
  spin_until (window_idle, window, 120);
  close_window (window);

  window = new_window ();
  ef_main_window_set_dataset (window, demo);
  g_assert_true (ef_main_window_get_roi (window, back));
  for (int i = 0; i < 4; i++)
    g_assert_cmpfloat_with_epsilon (back[i], roi[i], 1e-9);
  g_assert_cmpfloat_with_epsilon (ef_main_window_get_roi_spacing (window), 0.125, 1e-12);
  {
    g_autoptr (GVariant) order = g_action_group_get_action_state (G_ACTION_GROUP (window), "order");
    g_assert_cmpstr (g_variant_get_string (order, NULL), ==, "sequential");
  }
  spin_until (window_idle, window, 120);
  close_window (window);
}

/* The -3 dB width (in resolution cells) of a window's impulse response, from its weights' transform. */
static double
window_irw_cells (EfWindow window, guint n)
{
  g_autofree double *w = g_new (double, n);
  double lo = 0, hi = 2, sum = 0;

  ef_window_fill (window, 4, -35.0, w, n);
  for (guint k = 0; k < n; k++)
    sum += w[k];
  for (int it = 0; it < 40; it++)
    {
      double f = 0.5 * (lo + hi), re = 0, im = 0;

      for (guint k = 0; k < n; k++)
        {
          double ph = -2 * G_PI * f * (k - 0.5 * (n - 1)) / n;

          re += w[k] * cos (ph);
          im += w[k] * sin (ph);
        }
      if ((re * re + im * im) / (sum * sum) > 0.5)
        lo = f;
      else
        hi = f;
    }
  return lo + hi;
}

/* The measure tool's CSV line n: the position, and IRW and PSLR in range and in cross-range. */
static void
read_measurement (const char *csv_path, guint n, double xy[2], double irw[2], double pslr[2])
{
  g_autofree char *csv = NULL;
  g_auto (GStrv) lines = NULL;
  g_auto (GStrv) f = NULL;

  g_assert_true (g_file_get_contents (csv_path, &csv, NULL, NULL));
  lines = g_strsplit (csv, "\n", -1);
  g_assert_cmpuint (g_strv_length (lines), ==, n + 2);  /* header, n points, the empty tail */
  g_test_message ("measured %s", lines[n]);
  f = g_strsplit (lines[n], ",", -1);
  xy[0] = g_ascii_strtod (f[0], NULL);
  xy[1] = g_ascii_strtod (f[1], NULL);
  irw[0] = g_ascii_strtod (f[3], NULL);
  pslr[0] = g_ascii_strtod (f[4], NULL);
  irw[1] = g_ascii_strtod (f[6], NULL);
  pslr[1] = g_ascii_strtod (f[7], NULL);
}

/* A click with the measure tool on a point target gives the resolution the collection promises, with the
 * default weighting in both directions and with the Processing panel's cross-range window turned off. */
static void
test_measure (void)
{
  g_autofree char *dir = g_dir_make_tmp ("echoform-test-XXXXXX", NULL);
  g_autofree char *csv_path = g_build_filename (dir, "points.csv", NULL);
  g_autoptr (GError) error = NULL;
  EfMainWindow *window = new_window ();
  double target[3], roi[4], xy[2], irw[2], pslr[2];
  /* The demo is the simulator's airborne collection (600 MHz, 30 degrees grazing, square cells of c/2B on
   * the ground in cross-range, 512 pulses of 512 samples); the default window is Taylor (nbar 4, -35 dB)
   * in range and over the aperture. */
  const double cell = EF_C / (2 * 600e6), graze = 30 * G_PI / 180;
  const double want_r = window_irw_cells (EF_WINDOW_TAYLOR, 512) * cell / cos (graze);
  const double want_c = window_irw_cells (EF_WINDOW_TAYLOR, 512) * cell;
  const double want_c_rect = window_irw_cells (EF_WINDOW_RECT, 512) * cell;
  EfProcessing proc;

  ef_demo_get_point_target (2, target);
  roi[0] = target[0] - 3;
  roi[1] = target[1] - 3;
  roi[2] = target[0] + 3;
  roi[3] = target[1] + 3;
  ef_main_window_set_dataset (window, demo);
  ef_main_window_set_roi (window, roi);
  spin_until (window_idle, window, 120);

  g_assert_true (ef_main_window_measure_at (window, target[0] + 0.1, target[1] - 0.1, &error));
  g_assert_no_error (error);
  g_assert_true (ef_main_window_write_measurements_csv (window, csv_path, &error));
  g_assert_no_error (error);
  read_measurement (csv_path, 1, xy, irw, pslr);
  g_test_message ("theory: IRW %.4f m in range, %.4f m in cross-range", want_r, want_c);
  /* README.md: the peak within resolution/100 of the target, widths within 1.5% of theory; sidelobes at
   * the Taylor window's design level in both directions. */
  g_assert_cmpfloat (hypot (xy[0] - target[0], xy[1] - target[1]), <, cell / 100);
  g_assert_cmpfloat (fabs (irw[0] / want_r - 1), <, 0.015);
  g_assert_cmpfloat (fabs (irw[1] / want_c - 1), <, 0.015);
  g_assert_cmpfloat (fabs (pslr[0] + 35.17), <, 0.3);
  g_assert_cmpfloat (fabs (pslr[1] + 35.17), <, 0.3);

  /* The cross-range window off in the Processing panel: the region forms again with the sinc's sidelobes
   * and width across, and the range cut as it was. */
  ef_processing_panel_get (window->processing_panel, &proc);
  proc.az_window = EF_WINDOW_RECT;
  ef_processing_panel_set (window->processing_panel, &proc, ef_main_window_get_roi_spacing (window));
  g_signal_emit_by_name (window->processing_panel, "changed");
  g_assert_cmpint (window->proc.az_window, ==, EF_WINDOW_RECT);
  spin_until (window_idle, window, 120);
  /* The point follows its region: measured again by itself once the region has formed. */
  g_assert_true (ef_main_window_write_measurements_csv (window, csv_path, &error));
  g_assert_no_error (error);
  read_measurement (csv_path, 2, xy, irw, pslr);
  g_assert_cmpfloat (fabs (irw[0] / want_r - 1), <, 0.015);
  g_assert_cmpfloat (fabs (irw[1] / want_c_rect - 1), <, 0.015);
  g_assert_cmpfloat (fabs (pslr[0] + 35.17), <, 0.3);
  g_assert_cmpfloat (fabs (pslr[1] + 13.26), <, 0.15);
  close_window (window);
  g_unlink (csv_path);
  g_rmdir (dir);
}

/* The formed region written as .npy (on a worker thread) reads back as the accumulator holds it. */
static void
test_export_image (void)
{
  g_autofree char *dir = g_dir_make_tmp ("echoform-test-XXXXXX", NULL);
  g_autofree char *npy = g_build_filename (dir, "region.npy", NULL);
  g_autofree char *json = g_build_filename (dir, "region.json", NULL);
  g_autoptr (EfImage) back = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree EfCf32 *held = NULL;
  EfMainWindow *window = new_window ();
  ExportResult r = { 0 };
  const double roi[4] = { -6, -4, 6, 4 };
  const EfGrid *grid;
  EfRect all;

  ef_main_window_set_dataset (window, demo);
  ef_main_window_set_roi (window, roi);
  spin_until (window_idle, window, 120);
  g_signal_connect (window, "export-finished", G_CALLBACK (export_finished), &r);
  g_action_group_activate_action (G_ACTION_GROUP (window), "export-image-to", g_variant_new_string (npy));
  spin_until (export_done, &r, 60);
  g_assert_true (r.ok);

  grid = ef_job_runner_get_grid (ef_main_window_get_roi_runner (window));
  back = ef_image_read_npy (npy, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (back->grid.width, ==, grid->width);
  g_assert_cmpuint (back->grid.height, ==, grid->height);
  g_assert_cmpfloat_with_epsilon (back->grid.spacing, grid->spacing, 1e-12);
  all = (EfRect) { 0, 0, grid->width, grid->height };
  held = g_new (EfCf32, ef_grid_n_pixels (grid));
  g_assert_true (ef_job_runner_read (ef_main_window_get_roi_runner (window), &all, held, NULL));
  g_assert_cmpmem (held, ef_grid_n_pixels (grid) * sizeof (EfCf32), back->data,
                   ef_grid_n_pixels (grid) * sizeof (EfCf32));

  close_window (window);
  g_unlink (npy);
  g_unlink (json);
  g_rmdir (dir);
}

/* The formed region exported as a SICD (.nitf) from the window: refused, with no file left, while the
 * region has no pulses formed (a SICD describes the whole aperture); once formed, a NITF file whose DES holds the
 * SICD 1.3.0 XML and whose pixels are the accumulator's (tests/sicd checks such files with sarkit). */
static void
test_export_sicd (void)
{
  g_autofree char *dir = g_dir_make_tmp ("echoform-test-XXXXXX", NULL);
  g_autofree char *nitf = g_build_filename (dir, "region.nitf", NULL);
  g_autofree char *bytes = NULL;
  g_autofree guint64 *reorder = NULL;
  g_autofree char *xml = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (EfImage) image = NULL;
  EfMainWindow *window = new_window ();
  ExportResult r = { 0 };
  const double roi[4] = { -6, -4, 6, 4 };
  EfJobRunner *runner;
  const EfGrid *grid;
  EfSicdSource src = { 0 };
  gsize len = 0, n, xml_len = 0;
  const char *found, *xml_head = "<SICD xmlns=\"urn:SICD:1.3.0\">";
  EfRect all;

  if (!ef_sicd_available ())
    {
      g_test_skip ("this build has no GDAL");
      close_window (window);
      g_rmdir (dir);
      return;
    }
  ef_main_window_set_dataset (window, demo);
  ef_main_window_set_roi (window, roi);
  g_signal_connect (window, "export-finished", G_CALLBACK (export_finished), &r);
  g_action_group_activate_action (G_ACTION_GROUP (window), "export-image-to", g_variant_new_string (nitf));
  spin_until (export_done, &r, 60);
  g_assert_false (r.ok);
  g_test_message ("before the region formed: %s", ef_main_window_get_last_toast (window));
  g_assert_nonnull (strstr (ef_main_window_get_last_toast (window), "no pulses formed yet"));
  g_assert_false (g_file_test (nitf, G_FILE_TEST_EXISTS));

  spin_until (window_idle, window, 120);
  r.done = FALSE;
  g_action_group_activate_action (G_ACTION_GROUP (window), "export-image-to", g_variant_new_string (nitf));
  spin_until (export_done, &r, 60);
  g_assert_true (r.ok);
  g_assert_true (g_file_get_contents (nitf, &bytes, &len, &error));
  g_assert_no_error (error);
  g_assert_true (len > 1000 && memcmp (bytes, "NITF02.10", 9) == 0);
  /* (memmem: the image data holds zero bytes.) */
  g_assert_nonnull (memmem (bytes, len, "XML_DATA_CONTENT", 16));
  g_assert_nonnull (memmem (bytes, len, xml_head, strlen (xml_head)));

  /* The pixels: the image data (big-endian float32 I, Q by pixel) in the order the XML describes. */
  runner = ef_main_window_get_roi_runner (window);
  grid = ef_job_runner_get_grid (runner);
  n = ef_grid_n_pixels (grid);
  image = ef_image_new (grid, &error);
  all = (EfRect) { 0, 0, grid->width, grid->height };
  g_assert_true (ef_job_runner_read (runner, &all, image->data, NULL));
  src.dataset = ef_job_runner_get_dataset (runner);
  src.image = image;
  src.params = ef_job_runner_get_params (runner);
  src.run = ef_job_runner_get_run_info (runner);
  xml = ef_sicd_build_xml (&src, &xml_len, &reorder, &error);
  g_assert_no_error (error);
  {
    /* NITF 2.1: HL at byte 354 and the first image subheader's length at 363, six digits each. */
    g_autofree char *hl_s = g_strndup (bytes + 354, 6);
    g_autofree char *lish_s = g_strndup (bytes + 363, 6);
    long hl = strtol (hl_s, NULL, 10), lish = strtol (lish_s, NULL, 10);
    const guint8 *data = (const guint8 *) bytes + hl + lish;
    gsize bad = 0;

    g_assert_cmpuint (hl + lish + n * 8, <=, len);
    for (gsize k = 0; k < n; k++)
      {
        guint32 w[2];
        float v[2];

        memcpy (w, data + 8 * k, 8);
        for (int i = 0; i < 2; i++)
          {
            w[i] = GUINT32_FROM_BE (w[i]);
            memcpy (&v[i], &w[i], 4);
          }
        bad += v[0] != crealf (image->data[reorder[k]]) || v[1] != cimagf (image->data[reorder[k]]);
      }
    g_assert_cmpuint (bad, ==, 0);
  }
  /* What ran, in the product: the run record's algorithm among the formation's parameters. */
  {
    const char *algo = "<Parameter name=\"Algorithm\">bp</Parameter>";

    found = memmem (bytes, len, algo, strlen (algo));
  }
  g_assert_nonnull (found);
  close_window (window);
  g_unlink (nitf);
  g_rmdir (dir);
}

/* Half precision asked of the processor: the region runs in fp32, and the window says so in the
 * processing page and in a toast, and the exported sidecar records what ran with the reason. */
static void
test_ran_as (void)
{
  g_autofree char *dir = g_dir_make_tmp ("echoform-test-XXXXXX", NULL);
  g_autofree char *npy = g_build_filename (dir, "half.npy", NULL);
  g_autofree char *json = g_build_filename (dir, "half.json", NULL);
  g_autoptr (EfImage) back = NULL;
  g_autoptr (JsonObject) extra = NULL;
  g_autoptr (GError) error = NULL;
  EfMainWindow *window = new_window ();
  ExportResult r = { 0 };
  const double roi[4] = { -6, -4, 6, 4 };
  const EfRunInfo *run;

  ef_main_window_set_dataset (window, demo);
  g_action_group_change_action_state (G_ACTION_GROUP (window), "backend", g_variant_new_string ("cpu"));
  g_action_group_change_action_state (G_ACTION_GROUP (window), "precision", g_variant_new_string ("fp16"));
  ef_main_window_set_roi (window, roi);
  spin_until (window_idle, window, 120);

  run = ef_job_runner_get_run_info (ef_main_window_get_roi_runner (window));
  g_test_message ("region ran as %s; toast: %s", ef_processing_panel_get_run_text (window->processing_panel),
                  ef_main_window_get_last_toast (window));
  g_assert_cmpint (run->precision_requested, ==, EF_PRECISION_FP16);
  g_assert_cmpint (run->precision, ==, EF_PRECISION_FP32);
  g_assert_nonnull (run->precision_reason);
  g_assert_true (run->pixels_counted);
  g_assert_cmpuint (run->nonfinite_pixels, ==, 0);
  g_assert_nonnull (strstr (ef_processing_panel_get_run_text (window->processing_panel), "fp32"));
  g_assert_null (strstr (ef_processing_panel_get_run_text (window->processing_panel), "fp16"));
  g_assert_nonnull (ef_main_window_get_last_toast (window));
  g_assert_nonnull (strstr (ef_main_window_get_last_toast (window), "fp16"));
  g_assert_nonnull (strstr (ef_main_window_get_last_toast (window), "fp32"));

  g_signal_connect (window, "export-finished", G_CALLBACK (export_finished), &r);
  g_action_group_activate_action (G_ACTION_GROUP (window), "export-image-to", g_variant_new_string (npy));
  spin_until (export_done, &r, 60);
  g_assert_true (r.ok);
  back = ef_image_read_npy_full (npy, 0, NULL, &extra, &error);
  g_assert_no_error (error);
  g_assert_nonnull (extra);
  g_assert_cmpstr (json_object_get_string_member (extra, "precision"), ==, "fp32");
  g_assert_cmpstr (json_object_get_string_member (extra, "precision_requested"), ==, "fp16");
  g_assert_nonnull (json_object_get_string_member (extra, "precision_reason"));
  g_assert_cmpstr (json_object_get_string_member (extra, "backend"), ==, "cpu");

  close_window (window);
  g_unlink (npy);
  g_unlink (json);
  g_rmdir (dir);
}

static void
dataset_loaded (EfMainWindow *window, gboolean *loaded)
{
  *loaded = TRUE;
}

static gboolean
flag_set (gpointer data)
{
  return *(gboolean *) data;
}

static gboolean
recent_listed (gpointer data)
{
  return g_menu_model_get_n_items (G_MENU_MODEL (data)) > 0;
}

/* A file opened from disk (on a worker thread) is shown, named in the title and listed as recent. */
static void
test_open_file (void)
{
  const char *path = g_getenv ("EF_DEMO_CPHD");
  EfMainWindow *window;
  gboolean loaded = FALSE;
  GMenuModel *recent;

  if (path == NULL || !g_file_test (path, G_FILE_TEST_EXISTS))
    {
      g_test_skip ("the build made no demo file");
      return;
    }
  window = new_window ();
  g_signal_connect (window, "dataset-loaded", G_CALLBACK (dataset_loaded), &loaded);
  ef_main_window_open_path (window, path);
  spin_until (flag_set, &loaded, 60);
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (window)), ==, "demo.cphd");
  g_assert_nonnull (ef_main_window_get_dataset (window));
  g_assert_cmpuint (ef_main_window_get_dataset (window)->info.n_pulses, ==, demo->info.n_pulses);

  /* The recent list, the first section of the open button's menu. */
  recent = G_MENU_MODEL (gtk_widget_get_template_child (GTK_WIDGET (window), EF_TYPE_MAIN_WINDOW,
                                                        "recent_section"));
  g_assert_true (G_IS_MENU_MODEL (recent));
  spin_until (recent_listed, recent, 30);
  spin_until (window_idle, window, 120);
  close_window (window);
}

/* A file dropped on the window opens as if chosen in the file chooser; what is not a local file does not. */
static void
test_drop_file (void)
{
  const char *path = g_getenv ("EF_DEMO_CPHD");
  EfMainWindow *window;
  gboolean loaded = FALSE;
  g_autoptr (GFile) remote = g_file_new_for_uri ("http://example.invalid/scene.cphd");
  g_autoptr (GFile) local = NULL;
  GSList *files;

  if (path == NULL || !g_file_test (path, G_FILE_TEST_EXISTS))
    {
      g_test_skip ("the build made no demo file");
      return;
    }
  window = new_window ();
  g_signal_connect (window, "dataset-loaded", G_CALLBACK (dataset_loaded), &loaded);
  g_assert_false (ef_main_window_drop_files (window, NULL));
  files = g_slist_prepend (NULL, remote);
  g_assert_false (ef_main_window_drop_files (window, files));
  g_slist_free (files);
  spin (0.2);
  g_assert_false (loaded);
  g_assert_null (ef_main_window_get_dataset (window));

  /* Only the first of several files opens, in this window. */
  local = g_file_new_for_path (path);
  files = g_slist_append (g_slist_append (NULL, local), remote);
  g_assert_true (ef_main_window_drop_files (window, files));
  g_slist_free (files);
  spin_until (flag_set, &loaded, 60);
  g_assert_cmpstr (gtk_window_get_title (GTK_WINDOW (window)), ==, "demo.cphd");
  g_assert_cmpuint (ef_main_window_get_dataset (window)->info.n_pulses, ==, demo->info.n_pulses);
  spin_until (window_idle, window, 120);
  close_window (window);
}

typedef struct {
  guint    n_progress;
  gboolean finished;
} RunnerSeen;

static void
runner_progress (EfJobRunner *runner, const EfRect *dirty, guint n_dirty, RunnerSeen *seen)
{
  seen->n_progress++;
}

static void
runner_finished (EfJobRunner *runner, int state, RunnerSeen *seen)
{
  seen->finished = TRUE;
}

/* Display values from a job's helper thread are exactly what converting its image gives, in the mode
 * asked for, and another mode asked for after the end is made and announced too. */
static void
check_values (EfJobRunner *runner, EfViewMode mode, const EfGrid *grid)
{
  gsize n = ef_grid_n_pixels (grid);
  g_autofree EfCf32 *pixels = g_new (EfCf32, n);
  g_autofree float *want = g_new (float, n);
  g_autofree float *got = g_new (float, n);
  EfRect all = { 0, 0, grid->width, grid->height }, part = { 7, 5, 33, 21 };

  g_assert_true (ef_job_runner_read (runner, &all, pixels, NULL));
  ef_display_values_convert (mode, pixels, want, n);
  g_assert_true (ef_job_runner_read_values (runner, mode, &all, got));
  g_assert_cmpmem (got, n * sizeof (float), want, n * sizeof (float));
  /* A rectangle inside. */
  g_assert_true (ef_job_runner_read_values (runner, mode, &part, got));
  for (guint r = 0; r < part.height; r++)
    g_assert_cmpmem (got + (gsize) r * part.width, part.width * sizeof (float),
                     want + (gsize) (part.y + r) * grid->width + part.x, part.width * sizeof (float));
}

static void
test_runner_values (void)
{
  g_autoptr (EfJobRunner) runner = NULL;
  g_autoptr (GError) error = NULL;
  RunnerSeen seen = { 0 };
  EfJobParams params;
  EfGrid grid;
  float v;
  guint before;

  g_assert_true (ef_grid_init_roi (&grid, -6.4, -3.2, 6.4, 3.2, 0.05, NULL));
  ef_job_params_init (&params, &grid);
  params.backend.block_size = 64;
  params.order = EF_ORDER_INTERLEAVED;
  runner = ef_job_runner_new (demo, &params, &error);
  g_assert_no_error (error);
  ef_job_runner_enable_values (runner, EF_VIEW_MAGNITUDE);
  g_signal_connect (runner, "progress", G_CALLBACK (runner_progress), &seen);
  g_signal_connect (runner, "finished", G_CALLBACK (runner_finished), &seen);
  /* Nothing before the first block. */
  g_assert_false (ef_job_runner_read_values (runner, EF_VIEW_MAGNITUDE, &(EfRect) { 0, 0, 1, 1 }, &v));
  ef_job_runner_start (runner);
  spin_until (flag_set, &seen.finished, 60);
  g_assert_cmpint (ef_job_runner_get_progress (runner)->state, ==, EF_JOB_DONE);
  g_assert_cmpuint (seen.n_progress, >, 0);
  check_values (runner, EF_VIEW_MAGNITUDE, &grid);
  g_assert_false (ef_job_runner_read_values (runner, EF_VIEW_PHASE, &(EfRect) { 0, 0, 1, 1 }, &v));
  /* Outside the grid: nothing. */
  g_assert_false (ef_job_runner_read_values (runner, EF_VIEW_MAGNITUDE, &(EfRect) { grid.width - 1, 0, 2, 1 },
                                             &v));

  before = seen.n_progress;
  ef_job_runner_set_values_mode (runner, EF_VIEW_PHASE);
  {
    gint64 end = g_get_monotonic_time () + 30 * G_USEC_PER_SEC;
    while (seen.n_progress == before)
      {
        g_assert_cmpint (g_get_monotonic_time (), <, end);
        if (!g_main_context_iteration (NULL, FALSE))
          g_usleep (500);
      }
  }
  check_values (runner, EF_VIEW_PHASE, &grid);
  g_assert_false (ef_job_runner_read_values (runner, EF_VIEW_MAGNITUDE, &(EfRect) { 0, 0, 1, 1 }, &v));
  g_clear_object (&runner);
  spin_until (no_pending_frees, NULL, 30);
}

typedef struct {
  guint    n;
  gboolean ok;
  double   ser_db;
  guint    n_pixels;
} VerifySeen;

static void
verify_finished (EfMainWindow *window, gboolean ok, double ser_db, guint n_pixels, VerifySeen *seen)
{
  seen->n++;
  seen->ok = ok;
  seen->ser_db = ser_db;
  seen->n_pixels = n_pixels;
}

static gboolean
verify_seen (gpointer data)
{
  return ((VerifySeen *) data)->n > 0;
}

static gboolean
action_enabled (EfMainWindow *window, const char *name)
{
  return g_action_group_get_action_enabled (G_ACTION_GROUP (window), name);
}

/* The overview on the processor asks for FFBP; a region formed by FFBP, checked against exact
 * backprojection at a sample of pixels, is tens of dB from it, one formed by BP more than 90 dB; the
 * check can be stopped, and a new region forgets the last one's. */
static void
test_verify_region (void)
{
  EfMainWindow *window = new_window ();
  VerifySeen seen = { 0 };
  double target[3], roi[4];
  const EfJobParams *ov;

  ef_demo_get_point_target (1, target);
  roi[0] = target[0] - 12;
  roi[1] = target[1] - 12;
  roi[2] = target[0] + 12;
  roi[3] = target[1] + 12;
  g_signal_connect (window, "verify-finished", G_CALLBACK (verify_finished), &seen);
  ef_main_window_set_dataset (window, demo);
  ov = ef_job_runner_get_params (ef_main_window_get_overview_runner (window));
  g_assert_cmpint (ov->backend.algo, ==, EF_ALGO_FFBP);
  g_assert_cmpuint (ov->backend.block_size, >=, 256);
  g_assert_false (action_enabled (window, "verify-region"));

  g_action_group_change_action_state (G_ACTION_GROUP (window), "algorithm", g_variant_new_string ("ffbp"));
  ef_main_window_set_roi (window, roi);
  spin_until (window_idle, window, 120);
  g_assert_cmpint (ef_job_runner_get_params (ef_main_window_get_roi_runner (window))->backend.algo, ==,
                   EF_ALGO_FFBP);
  g_assert_true (action_enabled (window, "verify-region"));

  /* Started and stopped before the loop runs again: it says nothing. */
  g_action_group_activate_action (G_ACTION_GROUP (window), "verify-region", NULL);
  g_assert_true (ef_main_window_verify_running (window));
  g_action_group_activate_action (G_ACTION_GROUP (window), "verify-region", NULL);
  g_assert_false (ef_main_window_verify_running (window));
  spin (0.5);
  g_assert_cmpuint (seen.n, ==, 0);

  g_action_group_activate_action (G_ACTION_GROUP (window), "verify-region", NULL);
  spin_until (verify_seen, &seen, 60);
  g_test_message ("FFBP region: %.1f dB at %u pixels", seen.ser_db, seen.n_pixels);
  g_assert_true (seen.ok);
  g_assert_cmpuint (seen.n_pixels, ==, 256);
  /* tests/bench/RESULTS.md: FFBP 52.4 dB and BP 95.6 dB on this region (the bounds: 3 dB less). */
  g_assert_cmpfloat (seen.ser_db, >, 49.4);
  g_assert_false (ef_main_window_verify_running (window));

  /* Exact backprojection, fp32. */
  seen.n = 0;
  g_action_group_change_action_state (G_ACTION_GROUP (window), "algorithm", g_variant_new_string ("bp"));
  g_assert_false (action_enabled (window, "verify-region"));
  spin_until (window_idle, window, 120);
  g_action_group_activate_action (G_ACTION_GROUP (window), "verify-region", NULL);
  spin_until (verify_seen, &seen, 60);
  g_test_message ("BP region: %.1f dB at %u pixels", seen.ser_db, seen.n_pixels);
  g_assert_true (seen.ok);
  g_assert_cmpfloat (seen.ser_db, >, 92.6);
  close_window (window);
}

/* The dialogs open from their actions and close again without a warning. */
static void
test_dialogs (void)
{
  EfMainWindow *window = new_window ();
  GList *before, *after;

  ef_main_window_set_dataset (window, demo);
  spin (0.3);
  before = gtk_window_list_toplevels ();
  g_action_group_activate_action (G_ACTION_GROUP (app), "preferences", NULL);
  g_action_group_activate_action (G_ACTION_GROUP (app), "about", NULL);
  g_action_group_activate_action (G_ACTION_GROUP (window), "show-help-overlay", NULL);
  spin (0.5);
  after = gtk_window_list_toplevels ();
  {
    gboolean prefs = FALSE, about = FALSE, shortcuts = FALSE;

    /* The shortcuts window exists from the start, hidden; the other two are new. */
    for (GList *l = after; l != NULL; l = l->next)
      {
        gboolean visible = gtk_widget_get_visible (l->data);

        prefs |= EF_IS_PREFERENCES_WINDOW (l->data) && visible;
        about |= ADW_IS_ABOUT_WINDOW (l->data) && visible;
        shortcuts |= GTK_IS_SHORTCUTS_WINDOW (l->data) && visible;
        if (l->data != (gpointer) window && visible)
          gtk_window_close (l->data);
      }
    g_assert_true (prefs);
    g_assert_true (about);
    g_assert_true (shortcuts);
  }
  g_list_free (before);
  g_list_free (after);
  spin (0.2);
  spin_until (window_idle, window, 120);
  close_window (window);
}

int
main (int argc, char *argv[])
{
  int status;

  ef_test_window_setup (&argc, &argv);

  g_test_add_func ("/gui/window/screenshot-point-target", test_screenshot_point_target);
  g_test_add_func ("/gui/window/roi-storm", test_roi_storm);
  g_test_add_func ("/gui/window/session-memory", test_session_memory);
  g_test_add_func ("/gui/window/measure", test_measure);
  g_test_add_func ("/gui/window/export-image", test_export_image);
  g_test_add_func ("/gui/window/export-sicd", test_export_sicd);
  g_test_add_func ("/gui/window/ran-as", test_ran_as);
  g_test_add_func ("/gui/window/dialogs", test_dialogs);
  g_test_add_func ("/gui/window/open-file", test_open_file);
  g_test_add_func ("/gui/window/drop-file", test_drop_file);
  g_test_add_func ("/gui/runner/display-values", test_runner_values);
  g_test_add_func ("/gui/window/verify-region", test_verify_region);
  status = g_test_run ();

  ef_test_window_teardown ();
  return status;
}
