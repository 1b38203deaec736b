/* test-job.c: the progressive job: completion, order, shares of pulses, cancel, pause, restart, failures. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <complex.h>
#include <float.h>
#include <math.h>
#include <string.h>

#include "ef-error.h"
#include "ef-job.h"
#include "ef-metrics.h"
#include "ef-test-hooks.h"
#include "ef-test-scene.h"

typedef struct {
  GMutex   lock;
  guint    calls;
  guint    last_done;
  guint    cancel_at;      /* cancel when blocks_done reaches this (0 = never) */
  guint    pause_at;
  gboolean monotonic;
  gboolean dirty_ok;
  EfJobState final;
  guint    final_done;
  guint    max_step;       /* the largest rise of blocks_done from one report to the next */
  char    *error;
} Watch;

static void
watch_cb (EfJob *job, const EfJobProgress *pr, gpointer data)
{
  Watch *w = data;
  const EfGrid *g = ef_job_get_grid (job);

  g_mutex_lock (&w->lock);
  w->calls++;
  if (pr->blocks_done < w->last_done)
    w->monotonic = FALSE;
  else
    w->max_step = MAX (w->max_step, pr->blocks_done - w->last_done);
  w->last_done = pr->blocks_done;
  if (pr->state == EF_JOB_RUNNING && (pr->n_dirty != 1 || pr->dirty[0].width != g->width
                                      || pr->dirty[0].height != g->height))
    w->dirty_ok = FALSE;
  if (pr->state != EF_JOB_RUNNING)
    {
      w->final = pr->state;
      w->final_done = pr->blocks_done;
      if (pr->error)
        w->error = g_strdup (pr->error->message);
    }
  g_mutex_unlock (&w->lock);
  if (w->cancel_at && pr->blocks_done == w->cancel_at)
    ef_job_cancel (job);
  if (w->pause_at && pr->blocks_done == w->pause_at)
    ef_job_pause (job);
}

static void
watch_init (Watch *w)
{
  memset (w, 0, sizeof *w);
  g_mutex_init (&w->lock);
  w->monotonic = TRUE;
  w->dirty_ok = TRUE;
}

static void
watch_clear (Watch *w)
{
  g_free (w->error);
  g_mutex_clear (&w->lock);
}

static EfDataset *
scene (guint n_pulses)
{
  EfSimParams sp;
  g_autofree EfSimTarget *tg = ef_test_random_targets (60, -6, -6, 6, 6);

  ef_sim_params_init_airborne (&sp);
  sp.n_pulses = n_pulses;
  sp.n_samples = 256;
  sp.targets = tg;
  sp.n_targets = 60;
  return ef_sim_run (&sp, NULL);
}

static EfCf32 *
job_image (EfJob *job)
{
  const EfGrid *g = ef_job_get_grid (job);
  EfRect all = { 0, 0, g->width, g->height };
  EfCf32 *out = g_new (EfCf32, ef_grid_n_pixels (g));

  g_assert_true (ef_job_read_image (job, &all, out, NULL));
  return out;
}

/* The same pulses formed in one pass, without the job. */
static EfCf32 *
direct_image (EfDataset *ds, const EfGrid *grid, guint64 first, guint64 count, guint stride)
{
  EfRangeParams rp = EF_RANGE_PARAMS_DEFAULT;
  g_autoptr (EfRangeCompressor) rc = ef_range_compressor_new (&ds->info, &rp, FALSE, NULL);
  guint n = (guint) ((count + stride - 1) / stride);
  g_autoptr (EfProfiles) p = ef_profiles_new (n, ef_range_compressor_n_bins (rc), FALSE, NULL);
  g_autofree EfPulse *pu = g_new (EfPulse, n);
  g_autofree EfCf32 *s = g_new (EfCf32, (gsize) n * ds->info.n_samples);
  EfCf32 *img = g_new0 (EfCf32, ef_grid_n_pixels (grid));

  for (guint i = 0; i < n; i++)
    {
      pu[i] = ds->pulses[first + (guint64) i * stride];
      g_assert_true (ef_dataset_read_block (ds, first + (guint64) i * stride, 1, s + i * ds->info.n_samples, NULL));
    }
  g_assert_true (ef_range_compress (rc, pu, s, n, p, NULL, NULL));
  ef_bp_cpu_fp32 (grid, p, img, 0);
  return img;
}

static void
run_and_compare (EfOrder order, guint stride, guint64 first, guint64 count)
{
  g_autoptr (EfDataset) ds = scene (96);
  EfGrid grid;
  EfJobParams jp;
  g_autoptr (EfJob) job = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree EfCf32 *a = NULL, *b = NULL;
  guint block = 8;
  guint64 used = count ? count : ds->info.n_pulses - first;
  guint expect_blocks = (guint) (((used + stride - 1) / stride + block - 1) / block);
  Watch w;
  double ser;

  watch_init (&w);
  g_assert_true (ef_grid_init_roi (&grid, -6, -5, 6, 5, 0.15, NULL));
  ef_job_params_init (&jp, &grid);
  jp.backend.block_size = block;
  jp.order = order;
  jp.pulse_stride = stride;
  jp.first_pulse = first;
  jp.n_pulses = count;
  job = ef_job_new (ds, &jp, &error);
  g_assert_no_error (error);
  g_assert_true (ef_job_run (job, watch_cb, &w, &error));
  g_assert_no_error (error);
  g_assert_cmpint (ef_job_get_state (job), ==, EF_JOB_DONE);
  g_assert_cmpuint (w.calls, ==, expect_blocks);
  g_assert_true (w.monotonic);
  g_assert_true (w.dirty_ok);
  g_assert_cmpint (w.final, ==, EF_JOB_DONE);
  g_assert_cmpuint (w.final_done, ==, expect_blocks);
  g_assert_cmpstr (ef_job_get_backend_name (job), ==, "cpu");
  a = job_image (job);
  b = direct_image (ds, &grid, first, used, stride);
  ser = ef_ser_db_f32 (a, b, ef_grid_n_pixels (&grid));
  g_test_message ("job vs one pass: SER %.1f dB over %u blocks", ser, expect_blocks);
  /* The same float32 sums in another grouping: 131-138 dB measured. */
  g_assert_cmpfloat (ser, >, 125);
  watch_clear (&w);
}

typedef struct {
  guint  n;
  double fraction[64];
  guint64 pulses_done[64], pulses_total;
} EnergyWatch;

static void
energy_cb (EfJob *job, const EfJobProgress *pr, gpointer data)
{
  EnergyWatch *w = data;

  /* On the worker, one report at a time. */
  if (w->n < G_N_ELEMENTS (w->fraction))
    {
      w->fraction[w->n] = pr->energy_fraction;
      w->pulses_done[w->n++] = pr->pulses_done;
    }
  w->pulses_total = pr->pulses_total;
}

/* The share of the finished image's energy a job reports: the pulses' count with no cross-range window;
 * with Taylor's, the squared window over the pulses' places in the aperture, so that the first blocks,
 * at the aperture's edge, carry much less than their count. */
static void
test_energy_fraction (void)
{
  g_autoptr (EfDataset) ds = scene (96);
  EfGrid grid;
  EfJobParams jp;
  EfWindow windows[2] = { EF_WINDOW_RECT, EF_WINDOW_TAYLOR };

  g_assert_true (ef_grid_init_roi (&grid, -3, -3, 3, 3, 0.3, NULL));
  for (guint i = 0; i < 2; i++)
    {
      g_autoptr (EfJob) job = NULL;
      g_autoptr (GError) error = NULL;
      EnergyWatch w = { 0 };
      double sum = 0, first = 0;

      ef_job_params_init (&jp, &grid);
      jp.backend.block_size = 8;
      jp.backend.range.az_window = windows[i];
      job = ef_job_new (ds, &jp, &error);
      g_assert_no_error (error);
      g_assert_true (ef_job_run (job, energy_cb, &w, &error));
      g_assert_no_error (error);
      g_assert_cmpuint (w.n, ==, 96 / 8);  /* a report a block, the last one the end's */
      for (guint k = 1; k < w.n; k++)
        g_assert_cmpfloat (w.fraction[k], >=, w.fraction[k - 1]);
      g_assert_cmpfloat (fabs (w.fraction[w.n - 1] - 1), <, 1e-12);
      /* The window sampled at the pulses' places, as if they were evenly spread in angle. */
      for (guint k = 0; k < 96; k++)
        {
          double v = ef_window_value (windows[i], 4, -35, (k + 0.5) / 96);

          sum += v * v;
          first += k < 8 ? v * v : 0;
        }
      g_test_message ("%s: first block %.4f of the energy for %.4f of the pulses (even angles: %.4f)",
                      i ? "Taylor" : "no window", w.fraction[0], (double) w.pulses_done[0] / w.pulses_total,
                      first / sum);
      if (windows[i] == EF_WINDOW_RECT)
        for (guint k = 0; k < w.n; k++)
          g_assert_cmpfloat (fabs (w.fraction[k] - (double) w.pulses_done[k] / w.pulses_total), <, 1e-12);
      else
        g_assert_cmpfloat (fabs (w.fraction[0] / (first / sum) - 1), <, 0.05);
    }
}

typedef struct {
  guint    running;         /* reports while running */
  guint    running_dirty;   /* of which with dirty tiles */
  guint    final_dirty;
  guint    cancel_at;
  EfJobState final;
} PublishWatch;

static void
publish_cb (EfJob *job, const EfJobProgress *pr, gpointer data)
{
  PublishWatch *w = data;

  /* ef_job_run calls back on the worker, one report at a time: no lock needed for these counts. */
  if (pr->state == EF_JOB_RUNNING)
    {
      w->running++;
      w->running_dirty += pr->n_dirty > 0;
      if (w->cancel_at && pr->blocks_done == w->cancel_at)
        ef_job_cancel (job);
    }
  else
    {
      w->final = pr->state;
      w->final_dirty = pr->n_dirty;
    }
}

/* publish_interval_s: < 0 copies the image only at the end, > 0 at most that often; the image read
 * afterwards is the whole sum either way, and a cancelled job still shows every block it did. */
static void
test_publish_interval (void)
{
  g_autoptr (EfDataset) ds = scene (96);
  g_autofree EfCf32 *direct = NULL;
  EfGrid grid;
  gsize n;

  g_assert_true (ef_grid_init_roi (&grid, -6, -5, 6, 5, 0.15, NULL));
  n = ef_grid_n_pixels (&grid);
  direct = direct_image (ds, &grid, 0, ds->info.n_pulses, 1);
  for (int k = 0; k < 3; k++)
    {
      static const double intervals[] = { -1.0, 3600.0, -1.0 };
      EfJobParams jp;
      g_autoptr (EfJob) job = NULL;
      g_autoptr (GError) error = NULL;
      g_autofree EfCf32 *img = NULL;
      PublishWatch w = { 0 };
      gboolean ok;
      double ser;

      ef_job_params_init (&jp, &grid);
      g_assert_cmpfloat (jp.publish_interval_s, ==, 0.0);
      jp.backend.block_size = 8;
      jp.publish_interval_s = intervals[k];
      w.cancel_at = k == 2 ? 5 : 0;
      job = ef_job_new (ds, &jp, &error);
      g_assert_no_error (error);
      ok = ef_job_run (job, publish_cb, &w, &error);
      img = job_image (job);
      if (k < 2)
        {
          g_assert_true (ok);
          g_assert_no_error (error);
          g_assert_cmpint (w.final, ==, EF_JOB_DONE);
          g_assert_cmpuint (w.final_dirty, ==, 1);
          g_assert_cmpuint (w.running, ==, 11);
          /* Never, or only the first block (the interval is an hour). */
          g_assert_cmpuint (w.running_dirty, ==, k == 0 ? 0 : 1);
          ser = ef_ser_db_f32 (img, direct, n);
          g_test_message ("interval %g s: %u of %u reports with tiles; SER %.1f dB", intervals[k], w.running_dirty,
                          w.running, ser);
          g_assert_cmpfloat (ser, >, 125);
        }
      else
        {
          /* Cancelled after block 5: the image holds those five blocks, not none. */
          g_autofree EfCf32 *part = direct_image (ds, &grid, 0, 5 * 8, 1);

          g_assert_false (ok);
          g_assert_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_CANCELLED);
          g_assert_cmpint (w.final, ==, EF_JOB_CANCELLED);
          ser = ef_ser_db_f32 (img, part, n);
          g_test_message ("cancelled at block %u with the image copied only at the end: SER %.1f dB against "
                          "those blocks", w.cancel_at, ser);
          g_assert_cmpfloat (ser, >, 125);
        }
    }
}

static void
test_sequential (void)
{
  run_and_compare (EF_ORDER_SEQUENTIAL, 1, 0, 0);
}

static void
test_interleaved (void)
{
  run_and_compare (EF_ORDER_INTERLEAVED, 1, 0, 0);
}

static void
test_subset (void)
{
  run_and_compare (EF_ORDER_SEQUENTIAL, 3, 5, 70);
}

static void
test_order (void)
{
  for (guint n = 1; n < 70; n++)
    {
      g_autofree guint *o = g_new (guint, n);
      g_autofree gboolean *seen = g_new0 (gboolean, n);

      ef_job_interleaved_order (n, o);
      for (guint i = 0; i < n; i++)
        {
          g_assert_cmpuint (o[i], <, n);
          g_assert_false (seen[o[i]]);
          seen[o[i]] = TRUE;
        }
      if (n >= 4)
        {
          /* Bit reversal spreads the first blocks across the aperture. */
          g_assert_cmpuint (o[0], ==, 0);
          g_assert_cmpuint (o[1], >=, n / 2 - 1);
        }
    }
}

static void
test_cancel (void)
{
  g_autoptr (EfDataset) ds = scene (256);
  EfGrid grid;
  EfJobParams jp;
  g_autoptr (EfJob) job = NULL;
  g_autoptr (GError) error = NULL;
  Watch w;

  watch_init (&w);
  w.cancel_at = 2;
  g_assert_true (ef_grid_init_roi (&grid, -6, -6, 6, 6, 0.1, NULL));
  ef_job_params_init (&jp, &grid);
  jp.backend.block_size = 4;
  job = ef_job_new (ds, &jp, NULL);
  g_assert_false (ef_job_run (job, watch_cb, &w, &error));
  g_assert_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_CANCELLED);
  g_assert_cmpint (w.final, ==, EF_JOB_CANCELLED);
  /* The cancel came after block 2; at most the block already under way finishes. */
  g_test_message ("cancelled at block 2 of 64, stopped after %u", w.final_done);
  g_assert_cmpuint (w.final_done, <=, 3);
  watch_clear (&w);
}

static void
test_pause_resume (void)
{
  g_autoptr (EfDataset) ds = scene (64);
  EfGrid grid;
  EfJobParams jp;
  g_autoptr (EfJob) job = NULL;
  guint held;
  Watch w;

  watch_init (&w);
  w.pause_at = 1;
  g_assert_true (ef_grid_init_roi (&grid, -4, -4, 4, 4, 0.1, NULL));
  ef_job_params_init (&jp, &grid);
  jp.backend.block_size = 4;
  job = ef_job_new (ds, &jp, NULL);
  ef_job_start (job, watch_cb, &w);
  while (TRUE)
    {
      g_mutex_lock (&w.lock);
      held = w.last_done;
      g_mutex_unlock (&w.lock);
      if (held >= 1)
        break;
      g_usleep (1000);
    }
  g_usleep (300000);
  g_mutex_lock (&w.lock);
  held = w.last_done;
  g_mutex_unlock (&w.lock);
  g_assert_cmpuint (held, <=, 2);
  g_assert_cmpint (ef_job_get_state (job), ==, EF_JOB_PAUSED);
  ef_job_resume (job);
  g_assert_true (ef_job_wait (job, NULL));
  g_assert_cmpuint (w.final_done, ==, 16);
  watch_clear (&w);
}

static void
test_restart (void)
{
  g_autoptr (EfDataset) ds = scene (64);
  EfGrid g1, g2;
  EfJobParams jp;
  EfJob *job;
  g_autofree EfCf32 *a = NULL, *b = NULL;

  g_assert_true (ef_grid_init_roi (&g1, -6, -6, 6, 6, 0.1, NULL));
  g_assert_true (ef_grid_init_roi (&g2, -3, -2, 4, 3, 0.07, NULL));
  ef_job_params_init (&jp, &g1);
  jp.backend.block_size = 2;
  job = ef_job_new (ds, &jp, NULL);
  ef_job_start (job, NULL, NULL);
  /* A new ROI replaces the running job at once. */
  ef_job_free (job);
  jp.backend.grid = g2;
  job = ef_job_new (ds, &jp, NULL);
  g_assert_true (ef_job_run (job, NULL, NULL, NULL));
  a = job_image (job);
  b = direct_image (ds, &g2, 0, 64, 1);
  g_test_message ("the new region vs one pass: SER %.1f dB", ef_ser_db_f32 (a, b, ef_grid_n_pixels (&g2)));
  g_assert_cmpfloat (ef_ser_db_f32 (a, b, ef_grid_n_pixels (&g2)), >, 125);
  ef_job_free (job);
}

/* A dataset whose reads fail partway, as a truncated file would. */
static gboolean
failing_read (EfDataset *self, guint64 first, guint count, EfCf32 *out, GError **error)
{
  if (first + count > 20)
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_TRUNCATED, "The file ends before pulse %" G_GUINT64_FORMAT,
                   first + count);
      return FALSE;
    }
  memset (out, 0, (gsize) count * self->info.n_samples * sizeof (EfCf32));
  return TRUE;
}

static const EfDatasetOps failing_ops = { .read_block = failing_read };

static void
test_read_failure (void)
{
  g_autoptr (EfDataset) src = scene (64);
  g_autoptr (EfDataset) ds = ef_dataset_alloc (&failing_ops);
  EfGrid grid;
  EfJobParams jp;
  g_autoptr (EfJob) job = NULL;
  g_autoptr (GError) error = NULL;
  Watch w;

  watch_init (&w);
  ef_dataset_info_copy (&src->info, &ds->info);
  ds->pulses = g_memdup2 (src->pulses, sizeof (EfPulse) * src->info.n_pulses);
  g_assert_true (ef_grid_init_roi (&grid, -2, -2, 2, 2, 0.1, NULL));
  ef_job_params_init (&jp, &grid);
  jp.backend.block_size = 8;
  job = ef_job_new (ds, &jp, NULL);
  g_assert_false (ef_job_run (job, watch_cb, &w, &error));
  g_assert_error (error, EF_IO_ERROR, EF_IO_ERROR_TRUNCATED);
  g_assert_cmpint (w.final, ==, EF_JOB_FAILED);
  g_assert_nonnull (strstr (w.error, "ends before"));
  watch_clear (&w);
}

static void
test_bad_params (void)
{
  g_autoptr (EfDataset) ds = scene (8);
  EfGrid grid;
  EfJobParams jp;
  g_autoptr (GError) error = NULL;

  g_assert_true (ef_grid_init_roi (&grid, -2, -2, 2, 2, 0.1, NULL));
  ef_job_params_init (&jp, &grid);
  jp.first_pulse = 100;
  g_assert_null (ef_job_new (ds, &jp, &error));
  g_assert_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT);
}

/* Runs a job to the end on the CPU and returns its record (and image, if asked). */
static void
run_recorded (EfDataset *ds, const EfGrid *grid, EfAlgo algo, EfPrecision precision, guint block, EfRunInfo *run,
              EfCf32 **image)
{
  EfJobParams jp;
  g_autoptr (EfJob) job = NULL;
  g_autoptr (GError) error = NULL;

  ef_job_params_init (&jp, grid);
  jp.backend.algo = algo;
  jp.backend.precision = precision;
  jp.backend.block_size = block;
  jp.publish_interval_s = -1;
  job = ef_job_new (ds, &jp, &error);
  g_assert_no_error (error);
  /* Before it runs, the record is the request. */
  ef_job_get_run_info (job, run);
  g_assert_null (run->backend);
  g_assert_cmpint (run->precision, ==, precision);
  g_assert_cmpint (run->algo, ==, algo);
  g_assert_true (ef_job_run (job, NULL, NULL, &error));
  g_assert_no_error (error);
  ef_job_get_run_info (job, run);
  if (image != NULL)
    *image = job_image (job);
}

/* fp16 on the processor: what runs is fp32, and the record says so and why; the image is fp32's. */
static void
test_run_fp16_cpu (void)
{
  g_autoptr (EfDataset) ds = scene (64);
  g_auto (EfRunInfo) half = { 0 };
  g_auto (EfRunInfo) single = { 0 };
  g_autofree EfCf32 *a = NULL, *b = NULL;
  g_auto (GStrv) warnings = NULL;
  EfGrid grid;

  g_assert_true (ef_grid_init_roi (&grid, -4, -3, 4, 3, 0.1, NULL));
  run_recorded (ds, &grid, EF_ALGO_BP, EF_PRECISION_FP16, 16, &half, &a);
  run_recorded (ds, &grid, EF_ALGO_BP, EF_PRECISION_FP32, 16, &single, &b);
  g_assert_cmpstr (half.backend, ==, "cpu");
  g_assert_cmpint (half.precision_requested, ==, EF_PRECISION_FP16);
  g_assert_cmpint (half.precision, ==, EF_PRECISION_FP32);
  g_assert_nonnull (half.precision_reason);
  g_assert_cmpint (half.algo, ==, EF_ALGO_BP);
  g_assert_null (half.algo_reason);
  g_assert_true (half.pixels_counted);
  g_assert_cmpuint (half.nonfinite_pixels, ==, 0);
  g_assert_cmpuint (half.nonfinite_samples, ==, 0);
  warnings = ef_run_info_warnings (&half);
  g_assert_cmpuint (g_strv_length (warnings), ==, 1);
  g_assert_nonnull (strstr (warnings[0], "fp16"));
  g_assert_null (single.precision_reason);
  g_assert_false (ef_run_info_has_news (&single));
  g_assert_cmpmem (a, ef_grid_n_pixels (&grid) * sizeof (EfCf32), b, ef_grid_n_pixels (&grid) * sizeof (EfCf32));
}

/* FFBP's plan gives a block to exact backprojection when that is cheaper: three blocks of 256 pulses
 * are factorised and the last, of 8, is not; a collection of 8 pulses alone ran bp. The record counts
 * the blocks and says which algorithm the image is. */
static void
test_run_ffbp_blocks (void)
{
  g_autoptr (EfDataset) ds = scene (3 * 256 + 8);
  g_autoptr (EfDataset) few = scene (8);
  g_auto (EfRunInfo) mix = { 0 };
  g_auto (EfRunInfo) exact = { 0 };
  g_autofree char *ran = NULL;
  EfGrid grid;

  g_assert_true (ef_grid_init_roi (&grid, -2, -2, 2, 2, 0.05, NULL));
  run_recorded (ds, &grid, EF_ALGO_FFBP, EF_PRECISION_FP32, 256, &mix, NULL);
  ran = ef_run_info_describe (&mix);
  g_test_message ("%s: %s", ran, mix.algo_reason);
  g_assert_cmpuint (mix.blocks_fast, ==, 3);
  g_assert_cmpuint (mix.blocks_bp, ==, 1);
  g_assert_cmpint (mix.algo, ==, EF_ALGO_FFBP);
  g_assert_nonnull (mix.algo_reason);
  g_assert_nonnull (strstr (mix.algo_reason, "1 of 4 blocks"));

  run_recorded (few, &grid, EF_ALGO_FFBP, EF_PRECISION_FP32, 256, &exact, NULL);
  g_clear_pointer (&ran, g_free);
  ran = ef_run_info_describe (&exact);
  g_test_message ("%s: %s", ran, exact.algo_reason);
  g_assert_cmpuint (exact.blocks_fast, ==, 0);
  g_assert_cmpuint (exact.blocks_bp, ==, 1);
  g_assert_cmpint (exact.algo_requested, ==, EF_ALGO_FFBP);
  g_assert_cmpint (exact.algo, ==, EF_ALGO_BP);
  g_assert_nonnull (exact.algo_reason);
}

/* A backend that takes several blocks a call (several devices, each a whole block of a fast algorithm;
 * here the CPU backend through a test hook, which cuts a call into its blocks again) gets them grouped by
 * the job: the same image to the bit and the same record as one block a call, in both orders; progress
 * rises by the blocks of a call; the collection's short last block ends its call wherever the order puts
 * it (else the blocks after it would be cut across). */
static void
test_blocks_per_call (void)
{
#if EF_TEST_HOOKS
  g_autoptr (EfDataset) ds = scene (4 * 256 + 8);
  static const EfOrder orders[] = { EF_ORDER_SEQUENTIAL, EF_ORDER_INTERLEAVED };
  EfGrid grid;

  g_assert_true (ef_grid_init_roi (&grid, -2, -2, 2, 2, 0.05, NULL));
  for (guint o = 0; o < G_N_ELEMENTS (orders); o++)
    {
      EfCf32 *img[2] = { NULL, NULL };
      g_auto (EfRunInfo) run0 = { 0 };
      g_auto (EfRunInfo) run1 = { 0 };
      Watch w[2];

      for (guint k = 0; k < 2; k++)
        {
          EfJobParams jp;
          g_autoptr (EfJob) job = NULL;
          g_autoptr (GError) error = NULL;

          ef_test_hooks_set_cpu_blocks_per_call (k == 0 ? 0 : 3);
          watch_init (&w[k]);
          ef_job_params_init (&jp, &grid);
          jp.backend.algo = EF_ALGO_FFBP;
          jp.backend.block_size = 256;
          jp.order = orders[o];
          job = ef_job_new (ds, &jp, &error);
          g_assert_no_error (error);
          g_assert_true (ef_job_run (job, watch_cb, &w[k], &error));
          g_assert_no_error (error);
          ef_job_get_run_info (job, k == 0 ? &run0 : &run1);
          img[k] = job_image (job);
        }
      ef_test_hooks_set_cpu_blocks_per_call (0);
      g_test_message ("%s order, 5 blocks: %u and %u progress reports, largest step %u and %u blocks; fast blocks "
                      "%u and %u, exact %u and %u", o == 0 ? "sequential" : "interleaved", w[0].calls, w[1].calls,
                      w[0].max_step, w[1].max_step, (guint) run0.blocks_fast, (guint) run1.blocks_fast,
                      (guint) run0.blocks_bp, (guint) run1.blocks_bp);
      g_assert_cmpmem (img[0], ef_grid_n_pixels (&grid) * sizeof (EfCf32), img[1],
                       ef_grid_n_pixels (&grid) * sizeof (EfCf32));
      g_free (img[0]);
      g_free (img[1]);
      for (guint k = 0; k < 2; k++)
        {
          g_assert_cmpint (w[k].final, ==, EF_JOB_DONE);
          g_assert_cmpuint (w[k].final_done, ==, 5);
          g_assert_true (w[k].monotonic);
          watch_clear (&w[k]);
        }
      g_assert_cmpuint (w[0].max_step, ==, 1);
      g_assert_cmpuint (w[1].max_step, ==, 3);
      g_assert_cmpuint (w[1].calls, <, w[0].calls);
      g_assert_cmpuint (run0.blocks_fast, ==, 4);
      g_assert_cmpuint (run1.blocks_fast, ==, 4);
      g_assert_cmpuint (run0.blocks_bp, ==, 1);
      g_assert_cmpuint (run1.blocks_bp, ==, 1);
    }
#else
  g_test_skip ("several blocks a call: " EF_TEST_HOOKS_MISSING);
#endif
}

/* A copy of ds in memory whose samples go through edit first. */
static EfDataset *
edited_copy (EfDataset *ds, void (*edit) (EfCf32 *samples, gsize n, gpointer data), gpointer data)
{
  gsize n = (gsize) ds->info.n_pulses * ds->info.n_samples;
  EfCf32 *s = g_new (EfCf32, n);

  g_assert_true (ef_dataset_read_block (ds, 0, (guint) ds->info.n_pulses, s, NULL));
  edit (s, n, data);
  return ef_dataset_new_memory (&ds->info, g_memdup2 (ds->pulses, sizeof (EfPulse) * ds->info.n_pulses), s);
}

static void
poison_some (EfCf32 *s, gsize n, gpointer data)
{
  guint *count = data;

  /* Every 97th sample, one kind after another. */
  *count = 0;
  for (gsize i = 0; i < n; i += 97, (*count)++)
    s[i] = (*count % 3 == 0) ? NAN : ((*count % 3 == 1) ? CMPLXF (INFINITY, 0) : CMPLXF (1, -INFINITY));
}

static void
scale_to_max (EfCf32 *s, gsize n, gpointer data)
{
  float peak = 0;

  for (gsize i = 0; i < n; i++)
    peak = MAX (peak, cabsf (s[i]));
  /* Half the largest float: finite samples whose sums overflow single precision. */
  for (gsize i = 0; i < n; i++)
    s[i] *= 0.5f * FLT_MAX / peak;
}

/* Samples that are not finite are counted, for this job alone, and taken as zero: the image stays
 * finite. Samples near the largest float overflow the image, and its non-finite pixels are counted. */
static void
test_run_nonfinite (void)
{
  g_autoptr (EfDataset) ds = scene (64);
  g_autoptr (EfDataset) bad = NULL;
  g_autoptr (EfDataset) huge = NULL;
  g_auto (EfRunInfo) run = { 0 };
  g_auto (EfRunInfo) again = { 0 };
  g_autofree EfCf32 *img = NULL;
  guint n_poisoned = 0;
  guint64 n_bad_px = 0;
  EfGrid grid;

  g_assert_true (ef_grid_init_roi (&grid, -4, -3, 4, 3, 0.1, NULL));
  bad = edited_copy (ds, poison_some, &n_poisoned);
  run_recorded (bad, &grid, EF_ALGO_BP, EF_PRECISION_FP32, 16, &run, &img);
  g_test_message ("%u samples poisoned: %" G_GUINT64_FORMAT " counted", n_poisoned, run.nonfinite_samples);
  g_assert_cmpuint (run.nonfinite_samples, ==, n_poisoned);
  g_assert_true (run.pixels_counted);
  g_assert_cmpuint (run.nonfinite_pixels, ==, 0);
  for (gsize i = 0; i < ef_grid_n_pixels (&grid); i++)
    g_assert_true (isfinite (crealf (img[i])) && isfinite (cimagf (img[i])));
  g_assert_true (ef_run_info_has_news (&run));
  /* A second job over the same data counts its own. */
  run_recorded (bad, &grid, EF_ALGO_BP, EF_PRECISION_FP64, 16, &again, NULL);
  g_assert_cmpuint (again.nonfinite_samples, ==, n_poisoned);

  huge = edited_copy (ds, scale_to_max, NULL);
  g_clear_pointer (&img, g_free);
  ef_run_info_clear (&run);
  run_recorded (huge, &grid, EF_ALGO_BP, EF_PRECISION_FP32, 16, &run, &img);
  for (gsize i = 0; i < ef_grid_n_pixels (&grid); i++)
    n_bad_px += !(isfinite (crealf (img[i])) && isfinite (cimagf (img[i])));
  g_test_message ("samples at FLT_MAX / 2: %" G_GUINT64_FORMAT " of %zu pixels not finite", n_bad_px,
                  ef_grid_n_pixels (&grid));
  g_assert_cmpuint (n_bad_px, >, 0);
  g_assert_cmpuint (run.nonfinite_samples, ==, 0);
  g_assert_true (run.pixels_counted);
  g_assert_cmpuint (run.nonfinite_pixels, ==, n_bad_px);
  g_assert_true (ef_run_info_has_news (&run));
}

/* Images formed from disjoint shares of the pulses sum to the image of them all, the cross-range
 * weighting spanning all of them (MPI's pulse decomposition in echoform-cli form); a sub-aperture job,
 * weighted over its own pulses, does not. Shares past the pulses used are refused. */
static EfCf32 *
share_image (EfDataset *ds, const EfJobParams *base, guint64 first, guint64 count, guint64 sub_pulses)
{
  g_autoptr (EfJob) job = NULL;
  g_autoptr (GError) error = NULL;
  EfJobParams jp = *base;

  jp.share_first = first;
  jp.share_count = count;
  jp.n_pulses = sub_pulses;
  job = ef_job_new (ds, &jp, &error);
  g_assert_no_error (error);
  g_assert_true (ef_job_run (job, NULL, NULL, &error));
  g_assert_no_error (error);
  return job_image (job);
}

static double
sum_ser_db (const EfCf32 *a, const EfCf32 *b, const EfCf32 *ref, gsize n)
{
  double num = 0, err = 0;

  for (gsize i = 0; i < n; i++)
    {
      double complex x = (double complex) a[i] + (b != NULL ? (double complex) b[i] : 0);

      num += creal (ref[i] * conj (ref[i]));
      err += creal ((x - ref[i]) * conj (x - ref[i]));
    }
  return err > 0 ? 10 * log10 (num / err) : INFINITY;
}

static void
test_shares (void)
{
  g_autoptr (EfDataset) ds = scene (96);
  g_autofree EfCf32 *whole = NULL, *a = NULL, *b = NULL, *sub = NULL;
  EfGrid grid;
  EfJobParams jp;
  double ser, ser_sub;
  gsize n;

  g_assert_true (ef_grid_init_roi (&grid, -3, -3, 3, 3, 0.3, NULL));
  n = ef_grid_n_pixels (&grid);
  ef_job_params_init (&jp, &grid);
  jp.backend.block_size = 8;
  jp.backend.precision = EF_PRECISION_FP64;
  jp.backend.range.az_window = EF_WINDOW_TAYLOR;
  whole = share_image (ds, &jp, 0, 0, 0);
  a = share_image (ds, &jp, 0, 40, 0);     /* not on a block boundary: BP is a sum over single pulses */
  b = share_image (ds, &jp, 40, 56, 0);
  sub = share_image (ds, &jp, 0, 0, 40);   /* the same 40 pulses, weighted as a sub-aperture */
  ser = sum_ser_db (a, b, whole, n);
  ser_sub = sum_ser_db (sub, NULL, a, n);
  g_test_message ("shares summed against the whole: %.1f dB; a sub-aperture against its share: %.1f dB", ser,
                  ser_sub);
  /* Two complex64 roundings of images as large as the whole's. */
  g_assert_cmpfloat (ser, >, 120);
  g_assert_cmpfloat (ser_sub, <, 40);

  for (guint i = 0; i < 2; i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (EfJob) job = NULL;
      EfJobParams bad = jp;

      bad.share_first = i == 0 ? 90 : 96;
      bad.share_count = i == 0 ? 10 : 1;
      job = ef_job_new (ds, &bad, &error);
      g_assert_null (job);
      g_assert_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT);
    }
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/compute/job/sequential", test_sequential);
  g_test_add_func ("/compute/job/interleaved", test_interleaved);
  g_test_add_func ("/compute/job/subset", test_subset);
  g_test_add_func ("/compute/job/order", test_order);
  g_test_add_func ("/compute/job/publish-interval", test_publish_interval);
  g_test_add_func ("/compute/job/energy-fraction", test_energy_fraction);
  g_test_add_func ("/compute/job/shares", test_shares);
  g_test_add_func ("/compute/job/cancel", test_cancel);
  g_test_add_func ("/compute/job/pause-resume", test_pause_resume);
  g_test_add_func ("/compute/job/restart", test_restart);
  g_test_add_func ("/compute/job/read-failure", test_read_failure);
  g_test_add_func ("/compute/job/bad-params", test_bad_params);
  g_test_add_func ("/compute/job/run-info/fp16-cpu", test_run_fp16_cpu);
  g_test_add_func ("/compute/job/run-info/ffbp-blocks", test_run_ffbp_blocks);
  g_test_add_func ("/compute/job/blocks-per-call", test_blocks_per_call);
  g_test_add_func ("/compute/job/run-info/nonfinite", test_run_nonfinite);
  return g_test_run ();
}
