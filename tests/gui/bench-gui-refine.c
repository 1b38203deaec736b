/* bench-gui-refine.c: a 512 x 512 region refining in the window: main-loop stalls, updates seen, time. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "bench-gui-refine"
#include "config.h"

#include <adwaita.h>
#include <math.h>
#include <stdlib.h>

#include "ef-application.h"
#include "ef-demo.h"
#include "ef-gui-test-util.h"
#include "ef-main-window.h"

/* The probe asks to run every millisecond; how late it runs is how long the main loop was busy. */
#define PROBE_INTERVAL_MS 1

typedef struct {
  GArray  *lateness_ms;   /* double */
  gint64   last_us;
  gboolean active;
} Probe;

static gboolean
probe_tick (gpointer data)
{
  Probe *p = data;
  gint64 now = g_get_monotonic_time ();

  if (p->active && p->last_us > 0)
    {
      double late = (now - p->last_us) / 1000.0 - PROBE_INTERVAL_MS;
      g_array_append_val (p->lateness_ms, late);
    }
  p->last_us = now;
  return G_SOURCE_CONTINUE;
}

/* Redraws the view every frame, to see what one frame costs with nothing else running. */
static gboolean
redraw_tick (GtkWidget *widget, GdkFrameClock *clock, gpointer data)
{
  guint *frames = data;

  (*frames)++;
  gtk_gl_area_queue_render (GTK_GL_AREA (widget));
  return G_SOURCE_CONTINUE;
}

static int
cmp_double (gconstpointer a, gconstpointer b)
{
  double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

static double
percentile (GArray *a, double q)
{
  if (a->len == 0)
    return NAN;
  return g_array_index (a, double, MIN (a->len - 1, (guint) floor (q * (a->len - 1) + 0.5)));
}

typedef struct {
  gboolean finished;
  int      state;
  gint64   end_us;
} Done;

static void
roi_finished (EfMainWindow *window, int state, Done *d)
{
  d->finished = TRUE;
  d->state = state;
  d->end_us = g_get_monotonic_time ();
}

static void
spin_until_idle (EfMainWindow *window, double timeout_s)
{
  gint64 end = g_get_monotonic_time () + (gint64) (timeout_s * G_USEC_PER_SEC);

  while (!ef_main_window_is_idle (window))
    {
      if (g_get_monotonic_time () > end)
        g_error ("timed out");
      if (!g_main_context_iteration (NULL, FALSE))
        g_usleep (200);
    }
}

int
main (int argc, char *argv[])
{
  g_autoptr (GError) error = NULL;
  g_autoptr (EfApplication) app = NULL;
  g_autoptr (EfDataset) demo = NULL;
  EfMainWindow *window;
  EfImageView *view;
  Probe probe = { g_array_new (FALSE, FALSE, sizeof (double)), 0, FALSE };
  Done done = { 0 };
  guint updates_before, updates, block = argc > 1 ? (guint) atoi (argv[1]) : 0;
  guint n_runs = argc > 2 ? (guint) MAX (1, atoi (argv[2])) : 3, min_updates = G_MAXUINT;
  double max_time = 0;
  gboolean ok = TRUE;
  gint64 start_us, settled_us;
  const EfRunnerProgress *progress;
  double max_late;

  ef_test_isolate_user_dirs ();
  gtk_init ();
  adw_init ();
  app = ef_application_new (G_APPLICATION_NON_UNIQUE);
  if (!g_application_register (G_APPLICATION (app), NULL, &error))
    g_error ("%s", error->message);
  /* The processor path, whatever the machine has: these measure the host upload path. */
  {
    g_autoptr (GSettings) settings = g_settings_new (APP_ID);
    g_settings_set_string (settings, "backend", "cpu");
  }
  demo = ef_demo_simulate (&error);
  g_assert_no_error (error);

  window = ef_main_window_new (GTK_APPLICATION (app));
  view = ef_main_window_get_image_view (window);
  gtk_window_set_default_size (GTK_WINDOW (window), 1280, 800);
  gtk_window_present (GTK_WINDOW (window));
  if (g_getenv ("EF_BENCH_NO_SIDEBAR") != NULL)
    g_action_group_change_action_state (G_ACTION_GROUP (window), "show-sidebar", g_variant_new_boolean (FALSE));
  /* The block size is read when a collection is set. */
  if (block > 0)
    {
      GSettings *settings = g_settings_new (APP_ID);
      g_settings_set_uint (settings, "block-size", block);
      g_object_unref (settings);
    }
  ef_main_window_set_dataset (window, demo);
  spin_until_idle (window, 60);
  g_action_group_activate_action (G_ACTION_GROUP (window), "set-spacing", g_variant_new_double (0.1));
  g_signal_connect (window, "roi-finished", G_CALLBACK (roi_finished), &done);

  {
    guint frames = 0, id = gtk_widget_add_tick_callback (GTK_WIDGET (view), redraw_tick, &frames, NULL);
    gint64 t0 = g_get_monotonic_time ();

    while (g_get_monotonic_time () < t0 + G_USEC_PER_SEC)
      if (!g_main_context_iteration (NULL, FALSE))
        g_usleep (200);
    gtk_widget_remove_tick_callback (GTK_WIDGET (view), id);
    g_print ("idle: %u frames in 1 s with the view redrawn each frame (%.1f ms a frame)\n", frames,
             1000.0 / MAX (frames, 1));
  }
  g_timeout_add (PROBE_INTERVAL_MS, probe_tick, &probe);
  for (guint run = 0; run < n_runs; run++)
    {
      /* The same size each time, a little further east, so that no run reuses another's result. */
      const double roi[4] = { -25.6 + run, -25.6, 25.6 + run, 25.6 };
      const EfGrid *g;

      done.finished = FALSE;
      start_us = g_get_monotonic_time ();
      probe.active = TRUE;
      probe.last_us = 0;
      ef_main_window_set_roi (window, roi);
      /* Each region gets a new layer, whose count starts at zero. */
      updates_before = ef_image_view_get_n_updates (view, EF_LAYER_ROI);
      spin_until_idle (window, 120);
      settled_us = g_get_monotonic_time ();
      probe.active = FALSE;

      updates = ef_image_view_get_n_updates (view, EF_LAYER_ROI) - updates_before;
      progress = ef_job_runner_get_progress (ef_main_window_get_roi_runner (window));
      g = ef_job_runner_get_grid (ef_main_window_get_roi_runner (window));
      g_print ("run %u: region %u x %u px, %" G_GUINT64_FORMAT " pulses in %u blocks (%s): job %.2f s "
               "(%.3g backprojections/s), on screen after %.2f s, %u visible updates\n", run + 1, g->width,
               g->height, progress->pulses_total, progress->blocks_total,
               ef_job_runner_get_backend_name (ef_main_window_get_roi_runner (window)), progress->elapsed_s,
               progress->bp_per_s, (settled_us - start_us) / 1e6, updates);
      min_updates = MIN (min_updates, updates);
      max_time = MAX (max_time, (settled_us - start_us) / 1e6);
      ok = ok && done.finished && done.state == EF_JOB_DONE;
    }

  g_array_sort (probe.lateness_ms, cmp_double);
  max_late = probe.lateness_ms->len ? g_array_index (probe.lateness_ms, double, probe.lateness_ms->len - 1) : NAN;
  g_print ("main-loop lateness over %u probes while refining: p50 %.2f ms, p99 %.2f ms, max %.2f ms\n",
           probe.lateness_ms->len, percentile (probe.lateness_ms, 0.5), percentile (probe.lateness_ms, 0.99),
           max_late);
  g_print ("summary (GSK_RENDERER=%s): fewest updates %u, slowest %.2f s, lateness p99 %.2f ms\n",
           g_getenv ("GSK_RENDERER") ? g_getenv ("GSK_RENDERER") : "default", min_updates, max_time,
           percentile (probe.lateness_ms, 0.99));

  gtk_window_destroy (GTK_WINDOW (window));
  g_array_unref (probe.lateness_ms);
  return ok ? 0 : 1;
}
