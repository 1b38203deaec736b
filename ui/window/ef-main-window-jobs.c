/* ef-main-window-jobs.c: the window's two jobs: the quick overview and the region forming in place. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-main-window"
#include "config.h"

#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

#include "ef-histogram.h"
#include "ef-image-io.h"
#include "ef-panel-util.h"
#if HAVE_CUDA
#include "cuda/ef-cuda.h"
#endif
#include "ef-scene.h"
#include "ef-main-window-focus.h"
#include "ef-main-window-private.h"

/* The overview aims at about this many pixels a side and this many backprojections: a second or two
 * on a laptop's processor. */
#define OVERVIEW_EDGE 512
#define OVERVIEW_BUDGET 1.5e8
/* A region past this many pixels forms at a coarser spacing than asked, and says so. */
#define MAX_ROI_PIXELS (4096.0 * 4096.0)
/* The status line (and the geometry page's pulses) is rewritten at most this often while a job runs: a
 * new text lays the window out again, and a few times a second is enough to read. */
#define STATUS_INTERVAL_US 250000
/* The widest dynamic range chosen automatically, dB. */
#define DB_SPAN 45.0
/* The histogram: this many bins over at most this many dB below the brightest pixel. */
#define HISTOGRAM_BINS 160
#define HISTOGRAM_SPAN_DB 100.0

/* ---- histogram -------------------------------------------------------------------------------- */

typedef struct {
  EfJobRunner *runner;     /* owned */
  double       gain_db;
  guint64      counts[HISTOGRAM_BINS];
  double       lo_db, hi_db;
} HistogramData;

static void
histogram_data_free (gpointer data)
{
  HistogramData *d = data;

  g_object_unref (d->runner);
  g_free (d);
}

static void
histogram_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  HistogramData *d = task_data;
  const EfGrid *grid = ef_job_runner_get_grid (d->runner);
  gsize n = ef_grid_n_pixels (grid);
  g_autofree EfCf32 *pixels = g_try_new (EfCf32, n);
  EfRect all = { 0, 0, grid->width, grid->height };

  /* The whole image, off the main thread: a large region is hundreds of megabytes. */
  if (pixels == NULL || !ef_job_runner_read (d->runner, &all, pixels, NULL)
      || !ef_histogram_range (pixels, n, d->gain_db, HISTOGRAM_SPAN_DB, &d->lo_db, &d->hi_db))
    {
      g_task_return_boolean (task, FALSE);
      return;
    }
  ef_histogram_count (pixels, n, d->gain_db, d->lo_db, d->hi_db, d->counts, HISTOGRAM_BINS);
  g_task_return_boolean (task, TRUE);
}

static void
histogram_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  EfMainWindow *self = EF_MAIN_WINDOW (source);
  HistogramData *d = g_task_get_task_data (G_TASK (result));

  self->n_histograms--;
  /* Only the image in view: a newer job's histogram follows it. */
  if (!g_task_propagate_boolean (G_TASK (result), NULL)
      || d->runner != (self->roi_runner != NULL ? self->roi_runner : self->overview))
    return;
  ef_display_panel_set_histogram (self->display_panel, d->counts, HISTOGRAM_BINS, d->lo_db, d->hi_db);
  g_signal_emit_by_name (self, "histogram-ready");
}

/* The histogram of a finished image, made on a worker thread. */
static void
start_histogram (EfMainWindow *self, EfJobRunner *runner)
{
  g_autoptr (GTask) task = g_task_new (self, NULL, histogram_done, NULL);
  HistogramData *d = g_new0 (HistogramData, 1);
  const EfRunnerProgress *p = ef_job_runner_get_progress (runner);

  d->runner = g_object_ref (runner);
  /* dB per pulse, as the display and its levels are. */
  d->gain_db = p->pulses_done > 0 ? -20.0 * log10 ((double) p->pulses_done) : 0.0;
  g_task_set_task_data (task, d, histogram_data_free);
  self->n_histograms++;
  g_task_run_in_thread (task, histogram_thread);
}

static gboolean
read_runner (gpointer data, const EfRect *rect, EfCf32 *out, GError **error)
{
  return ef_job_runner_read (EF_JOB_RUNNER (data), rect, out, error);
}

static gboolean
read_runner_values (gpointer data, EfViewMode mode, const EfRect *rect, float *out)
{
  return ef_job_runner_read_values (EF_JOB_RUNNER (data), mode, rect, out);
}

void
ef_main_window_jobs_sync_values_mode (EfMainWindow *self)
{
  if (self->overview != NULL)
    ef_job_runner_set_values_mode (self->overview, self->display.mode);
  if (self->roi_runner != NULL)
    ef_job_runner_set_values_mode (self->roi_runner, self->display.mode);
}

static double
layer_gain (EfJobRunner *runner)
{
  const EfRunnerProgress *p = ef_job_runner_get_progress (runner);
  double total = (double) MAX (p->pulses_total, p->pulses_done);
  /* The pulses so far, counted by the energy they carry: a weighted aperture's edge pulses count less. */
  double n = p->pulses_done > 0 ? p->energy_fraction * total : 0;

  /* A finished image is shown at its per-pulse level, 1 / N in amplitude, so that layers formed from
   * different pulse counts agree. While it forms from n pulses, the image's energy has grown as n (the
   * sum of the pulses' weighted energies, for clutter and for a point's whole response alike), while a
   * point's peak grows as n: scaling by 1 / sqrt (n N) keeps the energy where the finished image will
   * have it, so that the first blocks look like the last ones, only blurrier. At n = N it is 1 / N. */
  if (n <= 0)
    return 0.0;
  return -10.0 * log10 (n) - 10.0 * log10 (total);
}

double
ef_main_window_jobs_auto_spacing (EfMainWindow *self)
{
  if (self->dataset == NULL)
    return 0;
  return ef_scene_default_spacing (self->dataset, self->proc.samples_per_cell);
}

/* ---- status ----------------------------------------------------------------------------------- */

void
ef_main_window_jobs_update_status (EfMainWindow *self)
{
  EfJobRunner *runner = self->roi_runner != NULL ? self->roi_runner : self->overview;
  const EfRunnerProgress *p;
  const char *what;
  g_autofree char *text = NULL;
  g_autofree char *rate = NULL;
  g_autofree char *eta = NULL;
  g_autofree char *elapsed = NULL;

  self->last_status_us = g_get_monotonic_time ();
  if (runner == NULL)
    {
      gtk_progress_bar_set_fraction (self->progress_bar, 0);
      gtk_label_set_text (self->progress_label, self->dataset ? _("Ready") : _("No collection open"));
      return;
    }
  what = runner == self->roi_runner ? _("Region") : _("Overview");
  if (self->roi_pending && runner == self->overview)
    what = _("Overview (the region follows)");
  p = ef_job_runner_get_progress (runner);
  rate = ef_format_rate (p->bp_per_s);
  eta = ef_format_duration (p->eta_s);
  elapsed = ef_format_duration (p->elapsed_s);
  gtk_progress_bar_set_fraction (self->progress_bar,
                                 p->blocks_total ? CLAMP ((double) p->blocks_done / p->blocks_total, 0, 1) : 0);
  switch (p->state)
    {
    case EF_JOB_DONE:
      /* Translators: "Region: done in 2.1 s · 1.2 G backprojections/s" */
      text = g_strdup_printf (_("%s: done in %s · %s backprojections/s"), what, elapsed, rate);
      break;
    case EF_JOB_CANCELLED:
      text = g_strdup_printf (_("%s: stopped after %u of %u blocks"), what, p->blocks_done, p->blocks_total);
      break;
    case EF_JOB_FAILED:
      text = g_strdup_printf (_("%s: failed"), what);
      break;
    case EF_JOB_PAUSED:
      text = g_strdup_printf (_("%s: paused at block %u of %u"), what, p->blocks_done, p->blocks_total);
      break;
    case EF_JOB_RUNNING:
    default:
      if (ef_job_runner_is_paused (runner))
        text = g_strdup_printf (_("%s: paused at block %u of %u"), what, p->blocks_done, p->blocks_total);
      else if (p->blocks_total == 0)
        text = g_strdup_printf (_("%s: starting…"), what);
      else
        text = g_strdup_printf (_("%s: block %u of %u · %s backprojections/s · %s left"), what, p->blocks_done,
                                p->blocks_total, rate, eta);
      break;
    }
  gtk_label_set_text (self->progress_label, text);
}

/* FFBP and FBP blocks are sub-apertures: at least the engine's default for them (echoform-cli's too),
 * which is longer than the job's own minimum. The runner's copy of the parameters says so, so that what
 * is shown as done (the geometry page) is what the job did. */
static void
fit_block_to_algo (EfJobParams *params)
{
  if (params->backend.algo == EF_ALGO_FFBP || params->backend.algo == EF_ALGO_FBP)
    params->backend.block_size = MAX (params->backend.block_size, ef_job_default_block_size (params->backend.algo));
}

/* The overview's algorithm: the fastest that is good enough for orientation. On the processor that is
 * FFBP (some 50 dB from exact backprojection), whose own plan backprojects a block exactly whenever its
 * cost model says that is cheaper (short blocks, few pixels); on a GPU, exact backprojection. */
static EfAlgo
overview_algo (EfMainWindow *self)
{
  gboolean gpu = self->proc.backend == EF_BACKEND_CUDA;

#if HAVE_CUDA
  if (self->proc.backend == EF_BACKEND_AUTO)
    gpu = ef_cuda_available (NULL);
#endif
  return gpu ? EF_ALGO_BP : EF_ALGO_FFBP;
}

/* ---- overview --------------------------------------------------------------------------------- */

static void
overview_progress (EfJobRunner *runner, const EfRect *dirty, guint n_dirty, EfMainWindow *self)
{
  if (runner != self->overview)
    return;
  ef_image_view_set_layer_gain (self->image_view, EF_LAYER_OVERVIEW, layer_gain (runner));
  ef_image_view_damage (self->image_view, EF_LAYER_OVERVIEW, dirty, n_dirty);
  if (self->roi_runner == NULL && g_get_monotonic_time () - self->last_status_us > STATUS_INTERVAL_US)
    ef_main_window_jobs_update_status (self);
}

void
ef_main_window_jobs_auto_range (EfMainWindow *self)
{
  EfJobRunner *runner = self->roi_runner != NULL ? self->roi_runner : self->overview;
  const EfGrid *grid;
  g_autofree EfCf32 *data = NULL;
  EfRect rect;
  double lo = 0, hi = 0, gain;

  if (runner == NULL)
    return;
  grid = ef_job_runner_get_grid (runner);
  rect = (EfRect) { 0, 0, grid->width, grid->height };
  data = g_try_new (EfCf32, ef_grid_n_pixels (grid));
  if (data == NULL || !ef_job_runner_read (runner, &rect, data, NULL))
    return;
  ef_image_db_range (data, ef_grid_n_pixels (grid), 5.0, 99.9, &lo, &hi);
  if (!(hi > lo) || !isfinite (lo) || !isfinite (hi))
    return;
  gain = layer_gain (runner);
  /* The bright end from the percentiles, with headroom so that points do not clip flat; the dark end
   * at the clutter floor, but never more than DB_SPAN below, or a noise-free scene shows nothing but
   * the sidelobes of its brightest points. */
  hi = hi + 3.0;
  lo = MAX (lo, hi - DB_SPAN);
  self->display.db_min = floor (lo + gain);
  self->display.db_max = ceil (hi + gain);
  ef_main_window_apply_display (self);
}

static void
overview_finished (EfJobRunner *runner, EfJobState state, EfMainWindow *self)
{
  if (runner != self->overview)
    return;
  self->overview_done = TRUE;
  if (state == EF_JOB_FAILED)
    {
      const GError *error = ef_job_runner_get_error (runner);
      g_autofree char *msg = g_strdup_printf (_("The overview failed: %s"),
                                              error ? error->message : _("unknown error"));
      ef_main_window_toast_error (self, msg);
    }
  else if (state == EF_JOB_DONE && !self->display_known)
    {
      ef_main_window_jobs_auto_range (self);
      self->display_known = TRUE;
    }
  if (state == EF_JOB_DONE && self->roi_runner == NULL)
    start_histogram (self, runner);
  if (self->roi_pending)
    {
      self->roi_pending = FALSE;
      ef_main_window_jobs_start_roi (self);
    }
  else if (self->batch_running && !self->has_roi)
    ef_main_window_batch_roi_finished (self, state, ef_job_runner_get_error (runner));
  ef_main_window_jobs_update_status (self);
  ef_main_window_actions_sync (self);
}

void
ef_main_window_jobs_start_overview (EfMainWindow *self)
{
  g_autoptr (GError) error = NULL;
  EfJobParams params;
  EfGrid grid;
  guint stride;
  EfJobRunner *runner;

  if (self->dataset == NULL)
    return;

  ef_image_view_set_layer (self->image_view, EF_LAYER_OVERVIEW, NULL, NULL, NULL, NULL);
  g_clear_object (&self->overview);

  ef_scene_overview (self->dataset, self->box, OVERVIEW_EDGE, OVERVIEW_BUDGET, &grid, &stride);
  ef_processing_to_job_params (&self->proc, &grid, &params);
  /* The overview is for orientation: the fast path, all of the scene at once. */
  params.backend.precision = EF_PRECISION_FP32;
  params.backend.algo = overview_algo (self);
  params.order = EF_ORDER_INTERLEAVED;
  params.pulse_stride = stride;
  params.backend.block_size = MAX (params.backend.block_size, 32);
  fit_block_to_algo (&params);

  runner = ef_job_runner_new (self->dataset, &params, &error);
  if (runner == NULL)
    {
      g_autofree char *msg = g_strdup_printf (_("The overview cannot start: %s"), error->message);
      ef_main_window_toast_error (self, msg);
      self->overview_done = TRUE;
      return;
    }
  self->overview = runner;
  self->overview_done = FALSE;
  /* The job's threads make the display values, so that the main thread only copies them. */
  ef_job_runner_enable_values (runner, self->display.mode);
  g_signal_connect_object (runner, "progress", G_CALLBACK (overview_progress), self, 0);
  g_signal_connect_object (runner, "finished", G_CALLBACK (overview_finished), self, 0);
  ef_image_view_set_layer (self->image_view, EF_LAYER_OVERVIEW, &grid, read_runner, g_object_ref (runner),
                           g_object_unref);
  ef_image_view_set_layer_values (self->image_view, EF_LAYER_OVERVIEW, read_runner_values);
  ef_image_view_set_layer_gain (self->image_view, EF_LAYER_OVERVIEW, 0);
  ef_job_runner_start (runner);
  ef_main_window_jobs_update_status (self);
}

/* ---- region ----------------------------------------------------------------------------------- */

static void
update_roi_info (EfMainWindow *self, const EfGrid *grid)
{
  g_autofree char *text = NULL;

  if (grid == NULL)
    {
      ef_processing_panel_set_roi_info (self->processing_panel, NULL);
      return;
    }
  /* Translators: the region's size; the line break keeps the pixel spacing on the first line. */
  text = g_strdup_printf (_("%u × %u px at %.3f m\n%.1f × %.1f m"), grid->width, grid->height, grid->spacing,
                          grid->width * grid->spacing, grid->height * grid->spacing);
  ef_processing_panel_set_roi_info (self->processing_panel, text);
}

static void
update_geometry_done (EfMainWindow *self, EfJobRunner *runner)
{
  g_autofree gboolean *done = NULL;
  guint64 n = self->dataset->info.n_pulses;

  done = g_new (gboolean, n);
  ef_scene_pulses_done (self->dataset, ef_job_runner_get_params (runner),
                        ef_job_runner_get_progress (runner)->blocks_done, done);
  ef_geometry_plot_set_done (self->geometry_plot, done, n);
}

/* "as cpu fp32 bp: precision fp32 (asked: fp16): ..." for the first of the record's warnings (and how many
 * more), or NULL when it ran as asked and nothing went wrong. Owned. */
static char *
run_news (const EfRunInfo *run)
{
  g_auto (GStrv) warnings = ef_run_info_warnings (run);
  g_autofree char *ran = NULL;
  guint n = g_strv_length (warnings);

  if (n == 0)
    return NULL;
  ran = ef_run_info_describe (run);
  /* Translators: "cpu fp32 bp: precision fp32 (asked: fp16): fp16 needs the CUDA backend ..." */
  return n > 1 ? g_strdup_printf (_("%s: %s (and %u more, under Processing)"), ran, warnings[0], n - 1)
               : g_strdup_printf (_("%s: %s"), ran, warnings[0]);
}

/* What the region ran as, in the processing page, and a toast while it forms as soon as that differs from
 * what was asked or the input has a problem (and again when there is more to say: a depth-of-focus
 * warning appears as the aperture grows). */
static void
show_run (EfMainWindow *self, EfJobRunner *runner, gboolean toast)
{
  g_auto (EfRunInfo) focus_run = { 0 };
  const EfRunInfo *run = ef_job_runner_get_run_info (runner);
  g_auto (GStrv) warnings = NULL;
  g_autofree char *all = NULL;
  g_autofree char *news = NULL;
  g_autofree char *msg = NULL;

  if (run->backend == NULL)
    return;
  /* Formed from phase-corrected pulses: the page says so. */
  if (ef_main_window_focus_applied (self))
    {
      ef_run_info_copy (run, &focus_run);
      ef_main_window_focus_record (self, ef_job_runner_get_dataset (runner), &focus_run);
      run = &focus_run;
    }
  ef_processing_panel_set_run (self->processing_panel, run);
  warnings = ef_run_info_warnings (run);
  all = g_strjoinv ("\n", warnings);
  if (warnings[0] == NULL || g_strcmp0 (all, self->run_told) == 0)
    return;
  g_free (self->run_told);
  self->run_told = g_steal_pointer (&all);
  if (!toast)
    return;
  news = run_news (run);
  /* Translators: "Region ran as cpu fp32 bp: precision fp32 (asked: fp16): ..." */
  msg = g_strdup_printf (_("Region ran as %s"), news);
  ef_main_window_toast (self, msg);
}

static void
roi_progress (EfJobRunner *runner, const EfRect *dirty, guint n_dirty, EfMainWindow *self)
{
  if (runner != self->roi_runner)
    return;
  /* A CUDA job's image can go straight from its device into the view: attach it before the first
   * damage, which the view then reads there. */
  if (ef_image_view_get_layer_device_image (self->image_view, EF_LAYER_ROI) == NULL)
    {
      EfCudaImage *image = ef_job_runner_ref_device_image (runner);

      if (image != NULL)
        ef_image_view_take_layer_device_image (self->image_view, EF_LAYER_ROI, image);
    }
  ef_image_view_set_layer_gain (self->image_view, EF_LAYER_ROI, layer_gain (runner));
  ef_image_view_damage (self->image_view, EF_LAYER_ROI, dirty, n_dirty);
  if (g_get_monotonic_time () - self->last_status_us > STATUS_INTERVAL_US)
    {
      ef_main_window_jobs_update_status (self);
      update_geometry_done (self, runner);
      show_run (self, runner, TRUE);
    }
}

static void
roi_finished (EfJobRunner *runner, EfJobState state, EfMainWindow *self)
{
  if (runner != self->roi_runner)
    return;
  ef_main_window_jobs_update_status (self);
  update_geometry_done (self, runner);
  show_run (self, runner, FALSE);
  if (state == EF_JOB_FAILED)
    {
      const GError *error = ef_job_runner_get_error (runner);
      g_autofree char *msg = g_strdup_printf (_("The region failed: %s"), error ? error->message : _("unknown error"));
      ef_main_window_toast_error (self, msg);
    }
  else if (state == EF_JOB_DONE && !self->batch_running)
    {
      const EfRunnerProgress *p = ef_job_runner_get_progress (runner);
      g_autofree char *elapsed = ef_format_duration (p->elapsed_s);
      g_autofree char *news = run_news (ef_job_runner_get_run_info (runner));
      g_autofree char *msg = NULL;

      /* The end says what ran whenever that is not what was asked, or the image has a problem. */
      if (news != NULL)
        /* Translators: "Region formed in 2.1 s as cpu fp32 bp: precision fp32 (asked: fp16): ..." */
        msg = g_strdup_printf (_("Region formed in %s as %s"), elapsed, news);
      else
        msg = g_strdup_printf (_("Region formed in %s"), elapsed);
      ef_main_window_toast (self, msg);
    }
  if (state == EF_JOB_DONE)
    {
      ef_main_window_measure_region_formed (self);
      start_histogram (self, runner);
    }
  ef_main_window_actions_sync (self);
  g_signal_emit_by_name (self, "roi-finished", (int) state);
  ef_main_window_batch_roi_finished (self, state, ef_job_runner_get_error (runner));
}

void
ef_main_window_jobs_start_roi (EfMainWindow *self)
{
  g_autoptr (GError) error = NULL;
  EfJobParams params;
  EfGrid grid;
  EfJobRunner *runner;
  double spacing, pixels;

  if (self->dataset == NULL || !self->has_roi)
    return;

  /* Cancel what ran: dropping the layer and the reference hands the job to a helper thread. */
  ef_image_view_set_layer (self->image_view, EF_LAYER_ROI, NULL, NULL, NULL, NULL);
  g_clear_object (&self->roi_runner);
  ef_main_window_measure_region_changed (self);
  ef_main_window_verify_reset (self);
  g_clear_pointer (&self->run_told, g_free);
  ef_processing_panel_set_run (self->processing_panel, NULL);

  spacing = ef_main_window_get_roi_spacing (self);
  pixels = (self->roi[2] - self->roi[0]) * (self->roi[3] - self->roi[1]) / (spacing * spacing);
  if (pixels > MAX_ROI_PIXELS)
    {
      g_autofree char *msg = NULL;
      spacing *= sqrt (pixels / MAX_ROI_PIXELS);
      msg = g_strdup_printf (_("The region is large: it forms at %.3f m instead"), spacing);
      ef_main_window_toast (self, msg);
    }
  self->roi_spacing = spacing;
  ef_image_view_set_roi_spacing (self->image_view, spacing);
  if (!ef_grid_init_roi (&grid, self->roi[0], self->roi[1], self->roi[2], self->roi[3], spacing, &error))
    {
      ef_main_window_toast_error (self, error->message);
      return;
    }
  update_roi_info (self, &grid);

  if (!self->overview_done)
    {
      /* Both at once would halve each one's speed; the overview takes a second or two. */
      self->roi_pending = TRUE;
      ef_main_window_jobs_update_status (self);
      return;
    }
  self->roi_pending = FALSE;

  ef_processing_to_job_params (&self->proc, &grid, &params);
  fit_block_to_algo (&params);
  /* When the view is drawn by the device that forms the region, the image never leaves it. */
  if (params.backend_kind != EF_BACKEND_CPU
      && ef_image_view_get_shared_device (self->image_view) == MAX (params.backend.device, 0))
    params.no_host_image = TRUE;
  runner = ef_job_runner_new (self->dataset, &params, &error);
  if (runner == NULL)
    {
      g_autofree char *msg = g_strdup_printf (_("The region cannot start: %s"), error->message);
      ef_main_window_toast_error (self, msg);
      return;
    }
  self->roi_runner = runner;
  /* Display values off the main thread, unless the image goes from its device into the view itself. */
  if (!params.no_host_image)
    ef_job_runner_enable_values (runner, self->display.mode);
  g_signal_connect_object (runner, "progress", G_CALLBACK (roi_progress), self, 0);
  g_signal_connect_object (runner, "finished", G_CALLBACK (roi_finished), self, 0);
  ef_image_view_set_layer (self->image_view, EF_LAYER_ROI, &grid, read_runner, g_object_ref (runner),
                           g_object_unref);
  if (!params.no_host_image)
    ef_image_view_set_layer_values (self->image_view, EF_LAYER_ROI, read_runner_values);
  ef_job_runner_start (runner);
  ef_geometry_plot_set_done (self->geometry_plot, NULL, 0);
  ef_main_window_jobs_update_status (self);
  ef_main_window_actions_sync (self);
}

void
ef_main_window_jobs_stop (EfMainWindow *self)
{
  if (self->image_view != NULL)
    {
      ef_image_view_set_layer (self->image_view, EF_LAYER_ROI, NULL, NULL, NULL, NULL);
      ef_image_view_set_layer (self->image_view, EF_LAYER_OVERVIEW, NULL, NULL, NULL, NULL);
    }
  if (self->roi_runner != NULL)
    g_signal_handlers_disconnect_by_data (self->roi_runner, self);
  if (self->overview != NULL)
    g_signal_handlers_disconnect_by_data (self->overview, self);
  g_clear_object (&self->roi_runner);
  g_clear_object (&self->overview);
  ef_main_window_verify_reset (self);
  self->roi_pending = FALSE;
  self->overview_done = FALSE;
}
