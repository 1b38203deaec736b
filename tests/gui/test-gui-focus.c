/* test-gui-focus.c: the window's autofocus: a defocused region sharpened, the phase kept, the correction removed. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "test-gui-focus"
#include "config.h"

#include <adwaita.h>
#include <complex.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include "ef-application.h"
#include "ef-gui-window-test.h"
#include "ef-main-window-focus.h"
#include "ef-main-window-test.h"
#include "ef-metrics.h"
#include "ef-processing-panel-test.h"
#include "ef-sim.h"
#include "ef-gui-screenshot.h"

static gboolean
focused_and_idle (gpointer data)
{
  return ef_main_window_focus_applied (data) && ef_main_window_is_idle (data);
}

/* The region's entropy as the window formed it. */
static double
region_entropy (EfMainWindow *window)
{
  EfJobRunner *runner = ef_main_window_get_roi_runner (window);
  const EfGrid *grid = ef_job_runner_get_grid (runner);
  EfRect all = { 0, 0, grid->width, grid->height };
  g_autofree EfCf32 *img = g_new (EfCf32, ef_grid_n_pixels (grid));
  g_autoptr (GError) error = NULL;

  g_assert_true (ef_job_runner_read (runner, &all, img, &error));
  g_assert_no_error (error);
  return ef_image_entropy (img, ef_grid_n_pixels (grid));
}

/* The method the sidecar of the region exported as .npy names under extra.autofocus, or NULL; and where
 * it says the estimate was formed (backend and backend_reason, NULL when absent) when asked. */
static char *
exported_autofocus_full (EfMainWindow *window, char **backend, char **reason)
{
  g_autofree char *dir = g_dir_make_tmp ("echoform-test-XXXXXX", NULL);
  g_autofree char *npy = g_build_filename (dir, "region.npy", NULL);
  g_autofree char *json = g_build_filename (dir, "region.json", NULL);
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autoptr (GError) error = NULL;
  ExportResult r = { 0 };
  gulong id;
  JsonObject *extra;
  JsonNode *af;
  char *method = NULL;

  id = g_signal_connect (window, "export-finished", G_CALLBACK (export_finished), &r);
  g_action_group_activate_action (G_ACTION_GROUP (window), "export-image-to", g_variant_new_string (npy));
  spin_until (export_done, &r, 60);
  g_signal_handler_disconnect (window, id);
  g_assert_true (r.ok);
  g_assert_true (json_parser_load_from_file (parser, json, &error));
  g_assert_no_error (error);
  extra = json_object_get_object_member (json_node_get_object (json_parser_get_root (parser)), "extra");
  g_assert_nonnull (extra);
  af = json_object_get_member (extra, "autofocus");
  if (af != NULL && JSON_NODE_HOLDS_OBJECT (af))
    {
      JsonObject *o = json_node_get_object (af);

      method = g_strdup (json_object_get_string_member (o, "method"));
      if (backend != NULL)
        *backend = g_strdup (json_object_get_string_member_with_default (o, "backend", NULL));
      if (reason != NULL && json_object_has_member (o, "backend_reason")
          && !json_object_get_null_member (o, "backend_reason"))
        *reason = g_strdup (json_object_get_string_member (o, "backend_reason"));
    }
  g_unlink (npy);
  g_unlink (json);
  g_rmdir (dir);
  return method;
}

static char *
exported_autofocus (EfMainWindow *window)
{
  return exported_autofocus_full (window, NULL, NULL);
}

static void
test_autofocus (void)
{
  EfSimTarget tg[3] = { { { 0, 0, 0 }, 1.0 }, { { 3, 2, 0 }, 0.8 }, { { -2, -3, 0 }, 0.6 } };
  g_autoptr (GSettings) settings = g_settings_new (APP_ID);
  g_autoptr (GError) error = NULL;
  g_autoptr (EfDataset) ds = NULL;
  EfMainWindow *window;
  EfSimParams sp;
  double roi[4] = { -6, -6, 6, 6 }, before, after, rms = 0;
  const double *phase;
  guint64 n = 0;

  ef_sim_params_init_airborne (&sp);
  sp.n_pulses = 256;
  sp.n_samples = 128;
  sp.phase_error_rad = 2.0;
  sp.targets = tg;
  sp.n_targets = G_N_ELEMENTS (tg);
  ds = ef_sim_run (&sp, &error);
  g_assert_no_error (error);

  /* The application's default backend: a device when there is one, else the CPU, saying why. */
  g_settings_set_string (settings, "backend", "auto");
  window = ef_main_window_new (GTK_APPLICATION (app));
  g_object_ref (window);
  gtk_window_set_default_size (GTK_WINDOW (window), 1280, 800);
  gtk_window_present (GTK_WINDOW (window));
  g_action_group_change_action_state (G_ACTION_GROUP (window), "algorithm", g_variant_new_string ("bp"));
  ef_main_window_set_dataset (window, ds);
  ef_main_window_set_roi (window, roi);
  spin_until (window_idle, window, 120);
  before = region_entropy (window);
  spin (0.3);
  screenshot (GTK_WIDGET (window), "autofocus-before.png");
  g_assert_false (ef_main_window_focus_applied (window));

  g_action_group_activate_action (G_ACTION_GROUP (window), "autofocus", g_variant_new_string ("sharpness"));
  spin_until (focused_and_idle, window, 240);
  after = region_entropy (window);
  phase = ef_main_window_focus_phase (window, &n);
  g_assert_nonnull (phase);
  g_assert_cmpuint (n, ==, 256);
  for (guint64 p = 0; p < n; p++)
    rms += phase[p] * phase[p] / (double) n;
  g_test_message ("region entropy %.4f with a 2 rad phase error, %.4f autofocused; correction %.2f rad RMS", before,
                  after, sqrt (rms));
  g_assert_cmpfloat (after, <, before - 0.3);
  g_assert_cmpfloat (sqrt (rms), >, 0.5);
  g_assert_nonnull (ef_main_window_focus_get_plot (window));
  /* The processing page says what the region was formed from. */
  g_test_message ("processing page: %s", ef_processing_panel_get_run_text (window->processing_panel));
  g_assert_nonnull (strstr (ef_processing_panel_get_run_text (window->processing_panel),
                            "phase-corrected (sharpness, estimated on "));
  spin (0.3);
  screenshot (GTK_WIDGET (window), "autofocus-after.png");
  screenshot (GTK_WIDGET (ef_main_window_focus_get_plot (window)), "autofocus-phase.png");
  {
    /* What ran is what is recorded: the exported region's sidecar names the correction, and the backend
     * that estimated it: the one the region forms with (auto here), which without a device is the CPU,
     * for the same reason the region gives. */
    g_autofree char *backend = NULL, *reason = NULL;
    g_autofree char *method = exported_autofocus_full (window, &backend, &reason);
    const EfRunInfo *run = ef_job_runner_get_run_info (ef_main_window_get_roi_runner (window));

    g_test_message ("estimated on %s (%s); the region formed on %s (%s, asked %s)", backend, reason ? reason : "as asked",
                    run->backend, run->backend_reason ? run->backend_reason : "as asked",
                    ef_backend_kind_to_string (run->backend_requested));
    g_assert_cmpstr (method, ==, "sharpness");
    g_assert_cmpstr (backend, ==, run->backend);
    g_assert_cmpstr (reason, ==, run->backend_reason);
#if !HAVE_CUDA
    g_assert_cmpstr (backend, ==, "cpu");
    g_assert_nonnull (reason);
#endif
  }

  /* Removed: the region forms again from the pulses as they were. */
  g_action_group_activate_action (G_ACTION_GROUP (window), "autofocus-clear", NULL);
  g_assert_false (ef_main_window_focus_applied (window));
  spin_until (window_idle, window, 120);
  g_assert_cmpfloat (fabs (region_entropy (window) - before), <, 1e-3);
  {
    g_autofree char *method = exported_autofocus (window);
    g_assert_null (method);
  }

  gtk_window_close (GTK_WINDOW (window));
  spin_until (no_pending_frees, NULL, 30);
  spin (0.1);
  g_assert_finalize_object (window);
  g_settings_set_string (settings, "backend", "cpu");
}

int
main (int argc, char *argv[])
{
  int status;

  ef_test_app_setup (&argc, &argv);
  g_test_add_func ("/gui/window/autofocus", test_autofocus);
  status = g_test_run ();
  g_object_unref (app);
  return status;
}
