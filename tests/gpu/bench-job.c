/* bench-job.c: the whole pipeline on a dataset larger than the GPU: reading, transfers, compression, BP. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "cuda/ef-cuda.h"
#include "ef-backend.h"
#include "ef-job.h"

/*
 * A dataset several times the size of the device's memory cannot be a file on the GPU machine's disk,
 * so it is synthetic: its read_block copies one of a few dozen precomputed random pulses into each
 * pulse of the block (several threads, as a reader of a fast file would), so that what the job does
 * is what it does with a real file: the reader thread fills a block, the worker hands it to the CUDA
 * backend, which copies it into pinned memory, sends it to the device, range-compresses it with cuFFT
 * and backprojects it, while the next block is read. Nothing of the dataset is ever resident whole.
 *
 * First the backend alone on the same pulses from memory gives the kernel-only rate (device time of
 * the backprojection kernels) and the backend's own end-to-end rate; then ef_job_run streams the
 * whole dataset. The job copies the image back only at the end (publish_interval_s < 0), as a batch
 * run does. Progress lines go to stderr every few seconds, so a run stopped early still says how fast
 * it went. The last line is a tab-separated E2E record for run.sh.
 */

#define N_PATTERN 64

typedef struct {
  EfCf32 *pattern;   /* owned: N_PATTERN pulses of random samples */
} SynthPriv;

static guint64 rng_state = 0x2545F4914F6CDD1Dull;

static inline float
rng_uniform (void)
{
  guint64 z = (rng_state += 0x9E3779B97F4A7C15ull);

  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return (float) ((z >> 40) * (1.0 / 16777216.0)) * 2.0f - 1.0f;
}

static gboolean
synth_read_block (EfDataset *self, guint64 first, guint count, EfCf32 *out, GError **error)
{
  const SynthPriv *priv = self->priv;
  const gsize ns = self->info.n_samples;

#pragma omp parallel for schedule(static) num_threads(8)
  for (gint64 i = 0; i < (gint64) count; i++)
    memcpy (out + (gsize) i * ns, priv->pattern + ((first + (guint64) i) % N_PATTERN) * ns, ns * sizeof (EfCf32));
  return TRUE;
}

static void
synth_finalize (EfDataset *self)
{
  SynthPriv *priv = self->priv;

  if (priv)
    g_free (priv->pattern);
  g_free (priv);
}

static const EfDatasetOps synth_ops = {
  .read_block = synth_read_block,
  .finalize = synth_finalize,
};

/* A circular spotlight arc at 10 km, 30 degrees grazing, X band, 600 MHz over n_samples FX samples. */
static EfDataset *
synth_new (guint64 n_pulses, guint n_samples)
{
  const double fc = 9.6e9, bw = 600e6, standoff = 10e3, graze = 30.0 * G_PI / 180.0;
  const double span = bw / (fc * cos (graze));
  EfDataset *ds = ef_dataset_alloc (&synth_ops);
  SynthPriv *priv = g_new0 (SynthPriv, 1);

  ds->priv = priv;
  ds->info.domain = EF_DOMAIN_FX;
  ds->info.n_pulses = n_pulses;
  ds->info.n_samples = n_samples;
  ds->info.fc = fc;
  ds->info.bandwidth = bw;
  ds->info.n_channels = 1;
  ds->info.source = g_strdup ("synthetic");
  ds->pulses = g_new0 (EfPulse, n_pulses);
#pragma omp parallel for schedule(static)
  for (gint64 p = 0; p < (gint64) n_pulses; p++)
    {
      double az = -0.5 * span + span * (double) p / MAX ((double) n_pulses - 1.0, 1.0);
      EfPulse *pu = &ds->pulses[p];

      pu->tx[0] = standoff * cos (graze) * cos (az);
      pu->tx[1] = standoff * cos (graze) * sin (az);
      pu->tx[2] = standoff * sin (graze);
      memcpy (pu->rcv, pu->tx, sizeof pu->tx);
      pu->r0 = standoff;
      pu->sc0 = fc - 0.5 * bw;
      pu->scss = bw / n_samples;
      pu->fx1 = pu->sc0;
      pu->fx2 = pu->sc0 + (n_samples - 1) * pu->scss;
      pu->t = (double) p * 1e-4;
    }
  priv->pattern = g_new (EfCf32, (gsize) N_PATTERN * n_samples);
  for (gsize i = 0; i < (gsize) N_PATTERN * n_samples; i++)
    priv->pattern[i] = rng_uniform () + rng_uniform () * I;
  return ds;
}

typedef struct {
  gint64  t_start;
  gint64  t_last_print;
  double  warm_elapsed;    /* the first report past the warm-up window: elapsed and pulses */
  guint64 warm_pulses;
  double  last_elapsed;
  guint64 last_pulses;
  guint64 n_px;
  gsize   pulse_bytes;
} Watch;

static void
on_progress (EfJob *job, const EfJobProgress *pr, gpointer user_data)
{
  Watch *w = user_data;
  gint64 now = g_get_monotonic_time ();

  if (pr->state != EF_JOB_RUNNING)
    return;
  if (w->warm_pulses == 0 && pr->elapsed_s >= 5.0)
    {
      w->warm_elapsed = pr->elapsed_s;
      w->warm_pulses = pr->pulses_done;
    }
  w->last_elapsed = pr->elapsed_s;
  w->last_pulses = pr->pulses_done;
  if (now - w->t_last_print >= 10 * G_USEC_PER_SEC)
    {
      fprintf (stderr, "job: %.0f s, %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT " pulses (%.1f%%), %.4g bp/s, "
               "%.2f GB/s of samples so far\n", pr->elapsed_s, pr->pulses_done, pr->pulses_total,
               100.0 * pr->pulses_done / MAX (pr->pulses_total, 1), pr->bp_per_s,
               pr->pulses_done * (double) w->pulse_bytes / pr->elapsed_s / 1e9);
      w->t_last_print = now;
    }
}

int
main (int argc, char **argv)
{
  gint edge = 3072, samples = 4096, block = 4096, devices = 1, upsample = 2, probe_blocks = 8;
  double mem_factor = 4.0, interval = -1.0;
  gint64 pulses_opt = 0;
  g_autofree char *precision_s = g_strdup ("fp32");
  g_autofree char *label = NULL;
  GOptionEntry entries[] = {
    { "edge", 0, 0, G_OPTION_ARG_INT, &edge, "image edge, pixels", "N" },
    { "samples", 0, 0, G_OPTION_ARG_INT, &samples, "samples per pulse", "N" },
    { "pulses", 0, 0, G_OPTION_ARG_INT64, &pulses_opt, "pulses (0: mem-factor times the device memory)", "N" },
    { "mem-factor", 0, 0, G_OPTION_ARG_DOUBLE, &mem_factor, "dataset size over the device memory", "F" },
    { "block", 0, 0, G_OPTION_ARG_INT, &block, "pulses per job block", "N" },
    { "devices", 0, 0, G_OPTION_ARG_INT, &devices, "CUDA devices (0: all)", "N" },
    { "upsample", 0, 0, G_OPTION_ARG_INT, &upsample, "range upsampling", "N" },
    { "precision", 0, 0, G_OPTION_ARG_STRING, &precision_s, "fp32 or fp16", "P" },
    { "publish-interval", 0, 0, G_OPTION_ARG_DOUBLE, &interval, "the job's publish_interval_s", "S" },
    { "probe-blocks", 0, 0, G_OPTION_ARG_INT, &probe_blocks, "blocks for the kernel-only rate", "N" },
    { "label", 0, 0, G_OPTION_ARG_STRING, &label, "name for the E2E line", "S" },
    { NULL }
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new ("- streaming benchmark of a job larger than the GPU");
  g_autoptr (GError) error = NULL;
  g_autoptr (EfDataset) ds = NULL;
  g_autoptr (EfJob) job = NULL;
  g_autofree char *why = NULL;
  g_autofree char *dev = NULL;
  EfPrecision precision;
  EfJobParams jp;
  EfGrid grid;
  Watch w = { 0 };
  size_t free_b = 0, total_b = 0;
  guint64 n_pulses, n_px;
  guint n_used = 1;
  double kernel_rate = NAN, backend_rate = NAN, job_wall, job_rate, steady_rate = NAN, dataset_bytes;
  gint64 t0;

  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    {
      fprintf (stderr, "bench-job: %s\n", error->message);
      return 2;
    }
  if (!ef_precision_from_string (precision_s, &precision) || precision == EF_PRECISION_FP64 || edge < 32
      || samples < 16 || block < 1)
    {
      fprintf (stderr, "bench-job: bad arguments\n");
      return 2;
    }
  if (!ef_cuda_available (&why))
    {
      fprintf (stderr, "bench-job: %s\n", why);
      return 77;
    }
  if (cudaSetDevice (0) != cudaSuccess || cudaMemGetInfo (&free_b, &total_b) != cudaSuccess)
    {
      fprintf (stderr, "bench-job: cannot query device 0\n");
      return 1;
    }
  dev = ef_cuda_device_name (0);
  n_pulses = pulses_opt > 0 ? (guint64) pulses_opt
                            : (guint64) ceil (mem_factor * (double) total_b / ((double) samples * sizeof (EfCf32)));
  dataset_bytes = (double) n_pulses * samples * sizeof (EfCf32);
  t0 = g_get_monotonic_time ();
  ds = synth_new (n_pulses, (guint) samples);
  fprintf (stderr, "%s, %.1f GB of device memory; dataset %" G_GUINT64_FORMAT " pulses x %d samples = %.1f GB "
           "(%.2f x the device), made in %.1f s\n", dev, total_b / 1e9, n_pulses, samples, dataset_bytes / 1e9,
           dataset_bytes / (double) total_b, (g_get_monotonic_time () - t0) * 1e-6);

  if (!ef_grid_init_roi (&grid, -0.0625 * edge, -0.0625 * edge, 0.0625 * edge, 0.0625 * edge, 0.125, &error))
    goto fail;
  n_px = ef_grid_n_pixels (&grid);
  ef_job_params_init (&jp, &grid);
  jp.backend_kind = EF_BACKEND_CUDA;
  jp.backend.precision = precision;
  jp.backend.range.upsample = (guint) upsample;
  jp.backend.block_size = (guint) block;
  jp.backend.n_devices = devices <= 0 ? EF_BACKEND_ALL_DEVICES : (guint) devices;
  jp.publish_interval_s = interval;

  /* The backend alone on the first blocks of the same dataset, from memory: the kernel-only rate. */
  {
    g_autoptr (EfBackend) be = ef_backend_new (EF_BACKEND_CUDA, &ds->info, &jp.backend, NULL, &error);
    g_autofree EfCf32 *buf = NULL;
    EfCudaStats s0, s1;
    guint64 np = MIN ((guint64) probe_blocks * block, n_pulses);
    double wall;

    if (be == NULL)
      goto fail;
    buf = g_new (EfCf32, (gsize) np * samples);
    if (!synth_read_block (ds, 0, (guint) np, buf, &error)
        || !ef_backend_process_block (be, ds->pulses, buf, (guint) MIN ((guint64) block, np), &error)
        || !be->ops->clear (be, &error) || !ef_backend_cuda_stats (be, &s0, &error))
      goto fail;
    t0 = g_get_monotonic_time ();
    for (guint64 p0 = 0; p0 < np; p0 += block)
      if (!ef_backend_process_block (be, ds->pulses + p0, buf + p0 * samples, (guint) MIN ((guint64) block, np - p0),
                                     &error))
        goto fail;
    if (!ef_backend_cuda_stats (be, &s1, &error))
      goto fail;
    wall = (g_get_monotonic_time () - t0) * 1e-6;
    kernel_rate = (double) (s1.n_bp - s0.n_bp) / ((s1.bp_ms - s0.bp_ms) / MAX (s1.n_devices, 1u) * 1e-3);
    backend_rate = (double) (s1.n_bp - s0.n_bp) / wall;
    n_used = MAX (s1.n_devices, 1u);
    fprintf (stderr, "backend alone, %" G_GUINT64_FORMAT " pulses from memory on %u device(s), variant %u: kernels "
             "%.4g bp/s, process_block to done %.4g bp/s; range compression %.1f ms, copies %.1f ms, "
             "backprojection %.1f ms (device time)\n", np, s1.n_devices, ef_backend_cuda_variant (be), kernel_rate,
             backend_rate, s1.rc_ms - s0.rc_ms, s1.h2d_ms - s0.h2d_ms, s1.bp_ms - s0.bp_ms);
  }

  /* The whole dataset through the job. */
  w.n_px = n_px;
  w.pulse_bytes = (gsize) samples * sizeof (EfCf32);
  w.t_start = w.t_last_print = g_get_monotonic_time ();
  job = ef_job_new (ds, &jp, &error);
  if (job == NULL)
    goto fail;
  t0 = g_get_monotonic_time ();
  if (!ef_job_run (job, on_progress, &w, &error))
    goto fail;
  job_wall = (g_get_monotonic_time () - t0) * 1e-6;
  job_rate = (double) n_pulses * n_px / job_wall;
  if (w.warm_pulses > 0 && w.last_pulses > w.warm_pulses)
    steady_rate = (double) (w.last_pulses - w.warm_pulses) * n_px / (w.last_elapsed - w.warm_elapsed);
  {
    /* The image is finite and not empty: a quick check that every block arrived. */
    g_autofree EfCf32 *img = g_new (EfCf32, n_px);
    EfRect all = { 0, 0, grid.width, grid.height };
    double energy = 0;
    gsize bad = 0;

    if (!ef_job_read_image (job, &all, img, &error))
      goto fail;
    for (gsize i = 0; i < n_px; i++)
      {
        if (!isfinite (crealf (img[i])) || !isfinite (cimagf (img[i])))
          bad++;
        else
          energy += (double) crealf (img[i]) * crealf (img[i]) + (double) cimagf (img[i]) * cimagf (img[i]);
      }
    fprintf (stderr, "job: %s backend, %.1f s for %.1f GB: %.4g bp/s (%.1f%% of the kernel-only rate), "
             "%.4g bp/s after the first 5 s; %.2f GB/s of samples; image: %zu non-finite pixels, mean power %.4g\n",
             ef_job_get_backend_name (job), job_wall, dataset_bytes / 1e9, job_rate, 100 * job_rate / kernel_rate,
             steady_rate, dataset_bytes / job_wall / 1e9, bad, energy / n_px);
    if (bad > 0 || !(energy > 0))
      {
        fprintf (stderr, "bench-job: the image is wrong\n");
        return 1;
      }
  }
  printf ("E2E\t%s\t%s\t%d\t%" G_GUINT64_FORMAT "\t%d\t%s\t%u\t%.1f\t%.1f\t%.2f\t%.4g\t%.4g\t%.4g\t%.4g\t%.1f\n",
          label ? label : "-", dev, edge, n_pulses, samples, ef_precision_to_string (precision), n_used, dataset_bytes / 1e9, total_b / 1e9, job_wall, job_rate, steady_rate, kernel_rate, backend_rate,
          100 * job_rate / kernel_rate);
  return 0;

fail:
  fprintf (stderr, "bench-job: %s\n", error ? error->message : "failed");
  return 1;
}
