/* bench-gui-refine.c: a 512 x 512 region refining in the window: main-loop stalls, updates seen, time. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "bench-gui-refine"
#include "config.h"

#include <adwaita.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ef-application.h"
#include "ef-demo.h"
#include "ef-gui-test-util.h"
#include "ef-image-view-test.h"
#include "ef-main-window-test.h"

/* The probe asks to run every millisecond; how late it runs is how long the main loop was busy. */
#define PROBE_INTERVAL_MS 1

/* A probe later than this is a stall worth explaining. */
#define STALL_MS 16.0

typedef struct {
  gint64 begin_us, end_us;
} Span;

typedef struct {
  GArray  *lateness_ms;   /* double */
  GArray  *stalls;        /* Span: the main loop's busy time around each late probe */
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
      if (late > STALL_MS)
        {
          Span s = { p->last_us, now };
          g_array_append_val (p->stalls, s);
        }
    }
  p->last_us = now;
  return G_SOURCE_CONTINUE;
}

/* The phases of each frame of the window, from the frame clock's signals. These handlers are connected
 * after GDK's own, so each mark is the end of GDK's work in that phase. */
typedef struct {
  gint64 begin_us;        /* before-paint */
  gint64 layout_us;       /* after the layout phase (size requests and allocations) */
  gint64 paint_us;        /* after the paint phase (snapshot, the GL area's render, the renderer) */
  gint64 end_us;          /* after-paint */
} FramePhases;

typedef struct {
  GArray     *frames;     /* FramePhases */
  FramePhases current;
  gboolean    active;
} FrameLog;

static void
frame_before_paint (GdkFrameClock *clock, FrameLog *log)
{
  memset (&log->current, 0, sizeof log->current);
  log->current.begin_us = g_get_monotonic_time ();
}

static void
frame_layout (GdkFrameClock *clock, FrameLog *log)
{
  log->current.layout_us = g_get_monotonic_time ();
}

static void
frame_paint (GdkFrameClock *clock, FrameLog *log)
{
  log->current.paint_us = g_get_monotonic_time ();
}

static void
frame_after_paint (GdkFrameClock *clock, FrameLog *log)
{
  log->current.end_us = g_get_monotonic_time ();
  if (log->active && log->current.begin_us > 0)
    g_array_append_val (log->frames, log->current);
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

/* Sorts values (ms) and prints count, p50, p99 and max under a name. */
static void
print_distribution (const char *name, GArray *values)
{
  g_array_sort (values, cmp_double);
  g_print ("  %-34s n %4u  p50 %6.2f ms  p99 %6.2f ms  max %6.2f ms\n", name, values->len,
           percentile (values, 0.5), percentile (values, 0.99),
           values->len ? g_array_index (values, double, values->len - 1) : NAN);
}

static void
append_ms (GArray *a, gint64 us)
{
  double ms = us / 1000.0;
  g_array_append_val (a, ms);
}

/* Where the main loop's time went in the frames drawn while refining, and how much of each stall was
 * a frame's work. */
static void
print_frame_report (FrameLog *log, Probe *probe)
{
  g_autoptr (GArray) total = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) layout = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) paint = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) rest = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) stall_in = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) stall_out = g_array_new (FALSE, FALSE, sizeof (double));

  for (guint i = 0; i < log->frames->len; i++)
    {
      const FramePhases *f = &g_array_index (log->frames, FramePhases, i);

      append_ms (total, f->end_us - f->begin_us);
      if (f->layout_us > 0)
        append_ms (layout, f->layout_us - f->begin_us);
      if (f->paint_us > 0)
        append_ms (paint, f->paint_us - MAX (f->layout_us, f->begin_us));
      if (f->paint_us > 0)
        append_ms (rest, f->end_us - f->paint_us);
    }
  /* Each stall: the part of it spent in frames, and the rest (other main-loop sources). */
  for (guint i = 0; i < probe->stalls->len; i++)
    {
      const Span *st = &g_array_index (probe->stalls, Span, i);
      gint64 in = 0;

      for (guint j = 0; j < log->frames->len; j++)
        {
          const FramePhases *f = &g_array_index (log->frames, FramePhases, j);
          gint64 a = MAX (st->begin_us, f->begin_us), b = MIN (st->end_us, f->end_us);
          if (b > a)
            in += b - a;
        }
      append_ms (stall_in, in);
      append_ms (stall_out, st->end_us - st->begin_us - in);
    }
  g_print ("frames drawn while refining:\n");
  print_distribution ("whole frame", total);
  print_distribution ("  layout phase", layout);
  print_distribution ("  paint phase (snapshot, render)", paint);
  print_distribution ("  after paint", rest);
  g_print ("stalls over %.0f ms: %u\n", STALL_MS, probe->stalls->len);
  print_distribution ("  time in frames", stall_in);
  print_distribution ("  time outside frames", stall_out);
}

/* The view's own renders, timed with glFinish (EF_BENCH_TIMING=1). */
static void
print_render_report (GArray *timings)
{
  g_autoptr (GArray) read = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) upload = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr (GArray) draw = g_array_new (FALSE, FALSE, sizeof (double));
  guint64 pixels = 0, converted = 0;

  for (guint i = 0; i < timings->len; i++)
    {
      const EfImageViewFrameTiming *t = &g_array_index (timings, EfImageViewFrameTiming, i);

      if (t->pixels > 0)
        {
          append_ms (read, t->read_us);
          append_ms (upload, t->upload_us);
        }
      append_ms (draw, t->draw_us);
      pixels += t->pixels;
      converted += t->converted;
    }
  g_print ("image view renders (glFinish after each part): %u, %" G_GUINT64_FORMAT " pixels uploaded, %"
           G_GUINT64_FORMAT " of them converted on the main thread\n", timings->len, pixels, converted);
  print_distribution ("read (renders that upload)", read);
  print_distribution ("convert + glTexSubImage2D", upload);
  print_distribution ("draw layers", draw);
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
  Probe probe = { g_array_new (FALSE, FALSE, sizeof (double)), g_array_new (FALSE, FALSE, sizeof (Span)), 0,
                  FALSE };
  FrameLog frames = { g_array_new (FALSE, FALSE, sizeof (FramePhases)), { 0 }, FALSE };
  gboolean timing = g_getenv ("EF_BENCH_TIMING") != NULL;
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
  {
    EfJobRunner *ov = ef_main_window_get_overview_runner (window);
    const EfGrid *g = ef_job_runner_get_grid (ov);

    g_print ("overview: %u x %u px, %" G_GUINT64_FORMAT " pulses, %s in blocks of %u, %.2f s\n", g->width,
             g->height, ef_job_runner_get_progress (ov)->pulses_total,
             ef_algo_to_string (ef_job_runner_get_params (ov)->backend.algo),
             ef_job_runner_get_params (ov)->backend.block_size, ef_job_runner_get_progress (ov)->elapsed_s);
  }
  g_action_group_activate_action (G_ACTION_GROUP (window), "set-spacing", g_variant_new_double (0.1));
  g_signal_connect (window, "roi-finished", G_CALLBACK (roi_finished), &done);

  {
    guint n_frames = 0, id = gtk_widget_add_tick_callback (GTK_WIDGET (view), redraw_tick, &n_frames, NULL);
    gint64 t0 = g_get_monotonic_time ();

    while (g_get_monotonic_time () < t0 + G_USEC_PER_SEC)
      if (!g_main_context_iteration (NULL, FALSE))
        g_usleep (200);
    gtk_widget_remove_tick_callback (GTK_WIDGET (view), id);
    g_print ("idle: %u frames in 1 s with the view redrawn each frame (%.1f ms a frame)\n", n_frames,
             1000.0 / MAX (n_frames, 1));
  }
  {
    GdkFrameClock *clock = gtk_widget_get_frame_clock (GTK_WIDGET (window));

    g_signal_connect (clock, "before-paint", G_CALLBACK (frame_before_paint), &frames);
    g_signal_connect (clock, "layout", G_CALLBACK (frame_layout), &frames);
    g_signal_connect (clock, "paint", G_CALLBACK (frame_paint), &frames);
    g_signal_connect (clock, "after-paint", G_CALLBACK (frame_after_paint), &frames);
  }
  if (timing)
    ef_image_view_set_timing (view, TRUE);
  /* The view's layers drawn on the processor whatever the renderer: what GTK's compositing costs alone. */
  if (g_getenv ("EF_BENCH_SOFT") != NULL)
    ef_image_view_set_force_soft (view, TRUE);
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
      frames.active = TRUE;
      ef_main_window_set_roi (window, roi);
      /* The region filling the view: every update redraws all of it. */
      if (g_getenv ("EF_BENCH_ZOOM_ROI") != NULL)
        ef_image_view_zoom_to_box (view, roi);
      /* Each region gets a new layer, whose count starts at zero. */
      updates_before = ef_image_view_get_n_updates (view, EF_LAYER_ROI);
      spin_until_idle (window, 120);
      settled_us = g_get_monotonic_time ();
      probe.active = FALSE;
      frames.active = FALSE;

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

  print_frame_report (&frames, &probe);
  if (timing)
    print_render_report (ef_image_view_get_timings (view));

  gtk_window_destroy (GTK_WINDOW (window));
  g_array_unref (probe.lateness_ms);
  g_array_unref (probe.stalls);
  g_array_unref (frames.frames);
  return ok ? 0 : 1;
}
