/* bench-cuda-mf.c: the matched filter against backprojection on the same region, on a device or the CPU. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cuda/ef-cuda.h"
#include "ef-aperture.h"
#include "ef-backend.h"
#include "ef-cuda-test-scene.h"
#include "ef-error.h"
#include "ef-metrics.h"

/*
 * The case: the benchmarks' arc (ef_cuda_test_arc: X band, 600 MHz, 10 km) of P pulses x K samples of
 * white complex Gaussian noise (every pixel equally busy, no structure to favour either former), an
 * edge x edge region at half the resolution about the scene centre. Both formers run through the
 * backend as a job drives it, blocks of B pulses, Taylor windows in range and cross-range; BP at range
 * upsampling U. Wall time from the first block to the image read back, after one warm-up block.
 *
 * Rates: BP in pixel-pulses per second; the matched filter also in pixel-pulse-samples per second, its
 * unit of work. BP's error is its SER against the matched filter over the whole image.
 *
 * Prediction, H100 SXM (132 SMs, 128 fp32 lanes each, ~1.98 GHz): the matched filter's inner step is
 * eight fp32 instructions (four FMAs into the pulse's sum, four for the rotator) and a broadcast shared
 * load, so about 132 x 4 x 1.98e9 x 32 / 8 = 4.2e12 pixel-pulse-samples per second at the fp32 pipe's
 * limit, 3e12 with the anchors, the geometry in double and the loop. BP runs about 1e12 pixel-pulses per
 * second, so with K = 1024 the matched filter takes some 300 times as long.
 *
 * Output: a table on stdout, and one tab-separated line per former:
 *   RESULT  label  backend  algo  edge  pulses  samples  upsample  seconds  pixel-pulses/s  px-pulse-samples/s
 *           ser_vs_mf_db  x_bp
 */

typedef struct {
  double   secs;
  EfCf32  *image;     /* owned */
  char    *describe;  /* owned: what ran */
} Run;

static gboolean
run_former (const EfDatasetInfo *info, const EfPulse *pulses, const EfCf32 *samples, const EfGrid *grid,
            const EfRangeParams *rp, EfAlgo algo, EfBackendKind kind, guint block, guint threads, Run *out,
            GError **error)
{
  EfBackendParams bp = { 0 };
  g_autoptr (EfBackend) be = NULL;
  EfRect all = { 0, 0, grid->width, grid->height };
  gsize n = ef_grid_n_pixels (grid), ns = info->n_samples;
  guint np = (guint) info->n_pulses;
  gint64 t0;

  bp.grid = *grid;
  bp.range = *rp;
  bp.precision = EF_PRECISION_FP32;
  bp.algo = algo;
  bp.block_size = block;
  bp.n_threads = threads;
  bp.device = -1;
  be = ef_backend_new (kind, info, &bp, NULL, error);
  if (be == NULL)
    return FALSE;
  out->image = g_new (EfCf32, n);
  /* Warm-up: plans, first launches, page faults. */
  if (!ef_backend_process_block (be, pulses, samples, MIN (block, np), error)
      || !ef_backend_read_image (be, &all, out->image, error) || !be->ops->clear (be, error))
    return FALSE;
  t0 = g_get_monotonic_time ();
  for (guint done = 0; done < np; done += block)
    if (!ef_backend_process_block (be, pulses + done, samples + done * ns, MIN (block, np - done), error))
      return FALSE;
  if (!ef_backend_read_image (be, &all, out->image, error))
    return FALSE;
  out->secs = (g_get_monotonic_time () - t0) * 1e-6;
  {
    const EfRunInfo *run = ef_backend_get_run_info (be);
    g_autofree char *what = ef_run_info_describe (run);

    /* The matched filter's launch shape, and whether the tuner chose it. */
    out->describe = run->kernel_shape > 0 ? g_strdup_printf ("%s, shape %u%s", what, run->kernel_shape,
                                                             run->kernel_tuned ? " (tuned)" : "")
                                          : g_steal_pointer (&what);
    if (run->kernel_shape > 0)
      printf ("# %s: shape %u, %s, %s\n", ef_algo_to_string (algo), run->kernel_shape, run->kernel_shape_name,
              run->kernel_tuned ? "tuned" : run->kernel_note);
  }
  return TRUE;
}

int
main (int argc, char **argv)
{
  gint edge = 1024, n_pulses = 1024, n_samples = 1024, upsample = 8, block = 256, threads = 0;
  gboolean cpu = FALSE;
  g_autofree char *label = NULL;
  GOptionEntry entries[] = {
    { "edge", 0, 0, G_OPTION_ARG_INT, &edge, "image edge, pixels (default 1024)", "N" },
    { "pulses", 0, 0, G_OPTION_ARG_INT, &n_pulses, "pulses (default 1024)", "N" },
    { "samples", 0, 0, G_OPTION_ARG_INT, &n_samples, "samples per pulse (default 1024)", "N" },
    { "upsample", 0, 0, G_OPTION_ARG_INT, &upsample, "BP's range upsampling (default 8)", "U" },
    { "block", 0, 0, G_OPTION_ARG_INT, &block, "pulses per block (default 256)", "N" },
    { "cpu", 0, 0, G_OPTION_ARG_NONE, &cpu, "run both formers on the CPU (no device needed)", NULL },
    { "threads", 0, 0, G_OPTION_ARG_INT, &threads, "CPU threads (0: all)", "N" },
    { "label", 0, 0, G_OPTION_ARG_STRING, &label, "name for the RESULT lines", "S" },
    { NULL }
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new ("- matched filter against backprojection");
  g_autoptr (GError) error = NULL;
  g_autofree char *why = NULL;
  g_autofree char *dev = NULL;
  g_autofree EfPulse *pulses = NULL;
  g_autofree EfCf32 *samples = NULL;
  EfDatasetInfo info = { 0 };
  EfRangeParams rp = EF_RANGE_PARAMS_DEFAULT;
  EfGrid grid;
  Run runs[2] = { { 0 } };
  const EfAlgo algos[2] = { EF_ALGO_BP, EF_ALGO_MF };
  double half, px, ser;
  GRand *rng;

  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    {
      fprintf (stderr, "bench-cuda-mf: %s\n", error->message);
      return 2;
    }
  if (edge < 1 || edge > 16384 || n_pulses < 1 || n_pulses > 65536 || n_samples < 2 || n_samples > 65536
      || upsample < 1 || upsample > 64 || block < 1 || block > 8192 || threads < 0)
    {
      fprintf (stderr, "bench-cuda-mf: a size is out of range\n");
      return 2;
    }
  if (!cpu && !ef_cuda_available (&why))
    {
      printf ("# SKIP %s (--cpu runs without a device)\n", why);
      return 77;
    }
  dev = cpu ? g_strdup_printf ("CPU, %u threads", ef_thread_count ((guint) threads)) : ef_cuda_device_name (-1);
  if (label == NULL)
    label = g_strdup_printf ("mf-%d-%dx%d-u%d", edge, n_pulses, n_samples, upsample);

  pulses = ef_cuda_test_arc (&info, (guint) n_pulses, (guint) n_samples, 9.6e9, 600e6, 10e3);
  samples = g_new (EfCf32, (gsize) n_pulses * n_samples);
  rng = g_rand_new_with_seed (7);
  for (gsize i = 0; i < (gsize) n_pulses * n_samples; i++)
    samples[i] = (float) g_rand_double_range (rng, -1, 1) + (float) g_rand_double_range (rng, -1, 1) * I;
  g_rand_free (rng);
  half = 0.5 * edge * (0.5 * EF_C / (2 * 600e6));
  if (!ef_grid_init_roi (&grid, -half, -half, half, half, 0.5 * EF_C / (2 * 600e6), &error))
    {
      fprintf (stderr, "bench-cuda-mf: %s\n", error->message);
      return 2;
    }
  grid.width = grid.height = (guint) edge;
  rp.window = EF_WINDOW_TAYLOR;
  rp.az_window = EF_WINDOW_TAYLOR;
  rp.upsample = (guint) upsample;
  ef_aperture_init (&rp.aperture, pulses, 0, (guint64) n_pulses, 1);

  for (int a = 0; a < 2; a++)
    if (!run_former (&info, pulses, samples, &grid, &rp, algos[a], cpu ? EF_BACKEND_CPU : EF_BACKEND_CUDA,
                     (guint) block, (guint) threads, &runs[a], &error))
      {
        fprintf (stderr, "bench-cuda-mf: %s: %s\n", ef_algo_to_string (algos[a]), error->message);
        printf ("FAIL %s: %s\n", label, error->message);
        return 1;
      }
  px = (double) edge * edge;
  ser = ef_ser_db_f32 (runs[0].image, runs[1].image, (gsize) px);
  printf ("# %s, %d^2 px, %d pulses x %d samples, blocks of %d, Taylor windows\n", dev, edge, n_pulses, n_samples,
          block);
  printf ("%-22s %10s %14s %16s %10s %8s\n", "former", "seconds", "px-pulses/s", "px-pulse-samp/s", "SER vs MF",
          "x BP");
  for (int a = 0; a < 2; a++)
    {
      double rate = px * n_pulses / runs[a].secs;
      char ser_s[32] = "-";

      if (a == 0)
        g_snprintf (ser_s, sizeof ser_s, "%.1f dB", ser);
      printf ("%-22s %10.4f %14.4g %16.4g %10s %8.1f\n", runs[a].describe, runs[a].secs, rate,
              a == 1 ? rate * n_samples : NAN, ser_s, runs[a].secs / runs[0].secs);
      printf ("RESULT\t%s\t%s\t%s\t%d\t%d\t%d\t%d\t%.6f\t%.6g\t%.6g\t%.2f\t%.2f\n", label, cpu ? "cpu" : "cuda",
              ef_algo_to_string (algos[a]), edge, n_pulses, n_samples, upsample, runs[a].secs, rate,
              a == 1 ? rate * n_samples : NAN, a == 0 ? ser : INFINITY, runs[a].secs / runs[0].secs);
    }
  if (!isfinite (ser) || ef_cuda_test_count_nonfinite (runs[1].image, (gsize) px) > 0)
    printf ("FAIL %s: the images are not finite\n", label);
  else
    printf ("PASS %s: BP at upsampling %d is %.1f dB from the matched filter\n", label, upsample, ser);
  for (int a = 0; a < 2; a++)
    {
      g_free (runs[a].image);
      g_free (runs[a].describe);
    }
  return 0;
}
