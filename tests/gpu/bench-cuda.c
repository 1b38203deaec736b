/* bench-cuda.c: throughput of the CUDA backend on random phase histories, with SER against float64. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "cuda/ef-cuda.h"
#include "cuda/ef-cuda-test-hooks.h"
#include "ef-backend.h"
#include "ef-bp.h"
#include "ef-rangecomp.h"
#include "ef-cuda-test-scene.h"
#include "ef-ref-bp.h"

/*
 * White random FX samples are a scene of random scatterers over the whole range window: every pixel
 * gets energy from every pulse, and there is nothing for the kernel to skip.
 *
 * Accuracy is the complex SER of the whole image against float64 backprojection of the same samples:
 * range compression in float64 on the CPU, backprojection in float64 on the device (tests/gpu/ef-ref-bp.cu,
 * exact double sqrt and sincos per pixel-pulse pair; test-cuda's /compute/cuda/reference checks it against
 * the CPU's float64 path). PSNR, where printed, is of magnitudes only and is labelled so. Each run prints
 * PASS or FAIL against the bound for its precision (--min-ser, by default tests/bench/RESULTS.md's figure
 * less 3 dB) and exits 1 on FAIL.
 *
 * Prints one tab-separated RESULT line per configuration; run.sh collects them into a table.
 *
 * With --devices N the backend spreads every block over N devices. The kernel rate then divides the
 * pixel-pulses by the kernels' device time averaged over the devices. Each timed repetition measures the
 * process_block calls until every device is done (the image formed, on the devices), then one read of the
 * whole image into pageable host memory alone ("read": over several devices it includes summing the
 * partial images), then, from a cleared image, the blocks and the read called right after the last one
 * ("formed + read": what a caller gets, the read free to start on rows already formed; the speed-up of
 * several devices is taken on it).
 * --algo ffbp, fbp or pfa forms the same samples with a fast algorithm through the same backend (the
 * kernel columns then count only its backprojection kernels: compare the formed and read columns).
 */

static guint64 rng_state = 0x9E3779B97F4A7C15ull;

static inline guint64
rng_next (void)
{
  guint64 z = (rng_state += 0x9E3779B97F4A7C15ull);

  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

static inline float
rng_uniform (void)
{
  return (float) ((rng_next () >> 40) * (1.0 / 16777216.0)) * 2.0f - 1.0f;
}

int
main (int argc, char **argv)
{
  gint edge = 2048, pulses = 2048, samples = 2048, block = 1024, reps = 3;
  gint variant = 0, upsample = 2, devices = 1, row_bands = 0, copy_threads = 0, call;
  double standoff = 10e3, spacing = 0.125, min_ser = NAN;
  g_autofree char *precision_s = g_strdup ("fp32");
  g_autofree char *algo_s = g_strdup ("bp");
  g_autofree char *label = NULL;
  gboolean tune = FALSE, no_ser = FALSE;
  GOptionEntry entries[] = {
    { "edge", 0, 0, G_OPTION_ARG_INT, &edge, "image edge, pixels", "N" },
    { "pulses", 0, 0, G_OPTION_ARG_INT, &pulses, "pulses", "N" },
    { "samples", 0, 0, G_OPTION_ARG_INT, &samples, "samples per pulse", "N" },
    { "upsample", 0, 0, G_OPTION_ARG_INT, &upsample, "range upsampling", "N" },
    { "block", 0, 0, G_OPTION_ARG_INT, &block, "pulses per process_block call", "N" },
    { "reps", 0, 0, G_OPTION_ARG_INT, &reps, "timed repetitions", "N" },
    { "standoff", 0, 0, G_OPTION_ARG_DOUBLE, &standoff, "slant range to the scene centre, m", "M" },
    { "spacing", 0, 0, G_OPTION_ARG_DOUBLE, &spacing, "pixel spacing, m", "M" },
    { "precision", 0, 0, G_OPTION_ARG_STRING, &precision_s, "fp32 or fp16", "P" },
    { "algo", 0, 0, G_OPTION_ARG_STRING, &algo_s, "bp, ffbp, fbp or pfa (default bp)", "A" },
    { "variant", 0, 0, G_OPTION_ARG_INT, &variant, "kernel shape (0: automatic)", "V" },
    { "devices", 0, 0, G_OPTION_ARG_INT, &devices, "devices to spread the pulses over (0: all)", "N" },
    { "row-bands", 0, 0, G_OPTION_ARG_INT, &row_bands,
      "bands of rows a launch is cut into (test-hook builds; 1: no overlap of the read with the last block)", "N" },
    { "copy-threads", 0, 0, G_OPTION_ARG_INT, &copy_threads,
      "threads that copy a block's samples into pinned memory (test-hook builds; 0: the library's choice)", "N" },
    { "no-ser", 0, 0, G_OPTION_ARG_NONE, &no_ser, "skip the float64 check", NULL },
    { "min-ser", 0, 0, G_OPTION_ARG_DOUBLE, &min_ser,
      "complex SER (dB) below which the run fails (default: 110.5 for fp32, 57.6 for fp16)", "DB" },
    { "label", 0, 0, G_OPTION_ARG_STRING, &label, "name for the RESULT line", "S" },
    { "tune", 0, 0, G_OPTION_ARG_NONE, &tune, "time every kernel shape and store the fastest", NULL },
    { NULL }
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new ("- CUDA backprojection benchmark");
  g_autoptr (GError) error = NULL;
  g_autofree char *dev = NULL;
  g_autofree char *why = NULL;
  EfPrecision precision;
  EfAlgo algo;
  EfDatasetInfo info = { 0 };
  g_autofree EfPulse *pl = NULL;
  g_autofree EfCf32 *data = NULL;
  EfBackendParams bp = { 0 };
  EfCudaOptions opts = EF_CUDA_OPTIONS_DEFAULT;
  g_autoptr (EfBackend) be = NULL;
  EfCudaStats st0, st1;
  const double fc = 9.6e9, bw = 600e6;
  double best_wall = G_MAXDOUBLE, best_total = G_MAXDOUBLE, best_bp_ms = G_MAXDOUBLE, ser = NAN, psnr = NAN;
  double rc_ms = 0, h2d_ms = 0, read_ms = G_MAXDOUBLE;
  g_autofree EfCf32 *img = NULL;
  EfRect all;
  guint n_used = 1;
  guint64 n_bp;
  gboolean pass = TRUE;

  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    {
      fprintf (stderr, "bench-cuda: %s\n", error->message);
      return 2;
    }
  if (!ef_precision_from_string (precision_s, &precision) || precision == EF_PRECISION_FP64)
    {
      fprintf (stderr, "bench-cuda: --precision must be fp32 or fp16\n");
      return 2;
    }
  if (!ef_algo_from_string (algo_s, &algo) || algo == EF_ALGO_MF)
    {
      fprintf (stderr, "bench-cuda: --algo must be bp, ffbp, fbp or pfa\n");
      return 2;
    }
  /* tests/bench/RESULTS.md: fp32 113.5-115.0 dB, fp16 60.6-61.3 dB complex SER against float64. The
   * fast algorithms against float64 backprojection, at the default upsampling of 2 where the profiles'
   * linear interpolation caps them near 24 dB from BP (their own accuracy is tested by test-cuda-ffbp
   * and test-cuda-pfa at 8): FFBP and FBP 23.7 dB, PFA 19.7 dB (H100, 2026-11-27), less 3 dB. */
  if (isnan (min_ser))
    min_ser = algo == EF_ALGO_PFA ? 16.7 : algo != EF_ALGO_BP ? 20.7 : precision == EF_PRECISION_FP32 ? 110.5 : 57.6;
  if (!ef_cuda_available (&why))
    {
      fprintf (stderr, "bench-cuda: %s\n", why);
      return 77;
    }
  dev = ef_cuda_device_name (-1);

  if (tune)
    {
      g_autofree char *report = NULL;
      guint best = 0;

      if (!ef_cuda_tune (-1, (guint) edge, (guint) pulses, (guint) (samples * upsample), precision, &best, &report,
                         &error))
        {
          fprintf (stderr, "bench-cuda: %s\n", error->message);
          return 1;
        }
      printf ("%s", report);
      return 0;
    }

  pl = ef_cuda_test_arc (&info, (guint) pulses, (guint) samples, fc, bw, standoff);
  data = g_try_new (EfCf32, (gsize) pulses * samples);
  if (data == NULL)
    {
      fprintf (stderr, "bench-cuda: no memory for the samples\n");
      return 1;
    }
  for (gsize i = 0; i < (gsize) pulses * samples; i++)
    data[i] = rng_uniform () + rng_uniform () * I;

  if (!ef_grid_init_roi (&bp.grid, -0.5 * edge * spacing, -0.5 * edge * spacing, 0.5 * edge * spacing,
                         0.5 * edge * spacing, spacing, &error))
    {
      fprintf (stderr, "bench-cuda: %s\n", error->message);
      return 1;
    }
  bp.range = EF_RANGE_PARAMS_DEFAULT;
  bp.range.upsample = (guint) upsample;
  bp.precision = precision;
  bp.algo = algo;
  bp.block_size = (guint) block;
  bp.device = -1;
  bp.n_devices = devices <= 0 ? EF_BACKEND_ALL_DEVICES : (guint) devices;
  opts.variant = (guint) variant;
#if EF_TEST_HOOKS
  ef_cuda_debug_set_row_bands ((guint) MAX (row_bands, 0));
  ef_cuda_debug_set_copy_threads ((guint) MAX (copy_threads, 0));
#else
  if (row_bands > 0 || copy_threads > 0)
    {
      fprintf (stderr, "bench-cuda: --row-bands and --copy-threads need a build with -Dtest_hooks=true\n");
      return 2;
    }
#endif
  for (int a = 0; a < (int) ef_cuda_device_count (); a++)
    for (int b = 0; b < (int) ef_cuda_device_count (); b++)
      {
        int can = 0;

        if (a != b && cudaDeviceCanAccessPeer (&can, a, b) == cudaSuccess)
          fprintf (stderr, "device %d -> %d: peer access %s\n", a, b, can ? "yes" : "no");
      }
  be = ef_backend_cuda_new_full (&info, &bp, &opts, &error);
  if (be == NULL)
    {
      fprintf (stderr, "bench-cuda: %s\n", error->message);
      return 1;
    }

  /* Each call holds as many blocks as the backend forms best at once (several devices with a fast
   * algorithm: one whole block a device). */
  call = block * (gint) ef_backend_blocks_per_call (be);
  if (call > block)
    fprintf (stderr, "%d pulses a call: a block of %d for each of %d devices\n", call, block, call / block);
  /* Warm-up: module load, plans, first-touch of the table. */
  if (!ef_backend_process_block (be, pl, data, (guint) MIN (call, pulses), &error)
      || !ef_backend_cuda_stats (be, &st0, &error))
    goto fail;

  all = (EfRect) { 0, 0, bp.grid.width, bp.grid.height };
  img = g_try_new (EfCf32, ef_grid_n_pixels (&bp.grid));
  if (img == NULL)
    {
      fprintf (stderr, "bench-cuda: no memory for the image\n");
      return 1;
    }
  for (gint r = 0; r < reps; r++)
    {
      gint64 t0, t1, t2;
      double wall, read1, bp1;

      /* Formed: the blocks until every device is done. */
      if (!be->ops->clear (be, &error) || !ef_backend_cuda_stats (be, &st0, &error))
        goto fail;
      t0 = g_get_monotonic_time ();
      for (gint p0 = 0; p0 < pulses; p0 += call)
        if (!ef_backend_process_block (be, pl + p0, data + (gsize) p0 * samples, (guint) MIN (call, pulses - p0),
                                       &error))
          goto fail;
      /* The stats wait for every device: the image is formed. */
      if (!ef_backend_cuda_stats (be, &st1, &error))
        goto fail;
      t1 = g_get_monotonic_time ();
      /* A read of the formed image alone: the whole image to the host (pageable memory, as a caller has
       * it), the partial images summed. */
      if (!ef_backend_read_image (be, &all, img, &error))
        goto fail;
      t2 = g_get_monotonic_time ();
      wall = (t1 - t0) * 1e-6;
      read1 = (t2 - t1) * 1e-3;
      best_wall = MIN (best_wall, wall);
      read_ms = MIN (read_ms, read1);
      n_used = MAX (st1.n_devices, 1u);
      /* Device time over all devices; per device on average, the elapsed kernel time. */
      bp1 = st1.bp_ms - st0.bp_ms;
      best_bp_ms = MIN (best_bp_ms, bp1 / n_used);
      rc_ms = st1.rc_ms - st0.rc_ms;
      h2d_ms = st1.h2d_ms - st0.h2d_ms;

      /* Formed and read, as a caller does it: the read right after the last block is queued (it may
       * start on rows already formed). */
      if (!be->ops->clear (be, &error) || !ef_backend_cuda_stats (be, &st0, &error))
        goto fail;
      t0 = g_get_monotonic_time ();
      for (gint p0 = 0; p0 < pulses; p0 += call)
        if (!ef_backend_process_block (be, pl + p0, data + (gsize) p0 * samples, (guint) MIN (call, pulses - p0),
                                       &error)
            || (p0 + call >= pulses && !ef_backend_read_image (be, &all, img, &error)))
          goto fail;
      t2 = g_get_monotonic_time ();
      best_total = MIN (best_total, (t2 - t0) * 1e-6);
      fprintf (stderr, "rep %d: formed in %.3f s, read alone in %.2f ms, formed and read in %.3f s; backprojection "
               "%.2f ms, range compression %.2f ms, copies %.2f ms\n", r, wall, read1,
               (t2 - t0) * 1e-6, bp1, rc_ms, h2d_ms);
    }
  n_bp = (guint64) pulses * edge * edge;
  fprintf (stderr, "%u device(s): formed in %.3f s, formed and read back in %.3f s (best of %d)\n", n_used,
           best_wall, best_total, reps);

  if (!no_ser)
    {
      /* float64 over the whole image, on the device; img holds the last repetition's image. */
      gint64 t0 = g_get_monotonic_time ();
      gsize n = ef_grid_n_pixels (&bp.grid);
      g_autofree EfCf64 *ref = ef_ref_bp_form (&info, pl, data, (guint) pulses, &bp.range, &bp.grid, &error);

      if (ref == NULL)
        goto fail;
      ser = ef_cuda_test_ser_db (img, ref, n);
      psnr = ef_cuda_test_psnr_db (img, ref, n);
      fprintf (stderr, "float64 check over all %u x %u pixels in %.1f s: complex SER %.1f dB (magnitude PSNR "
               "%.1f dB)\n", bp.grid.width, bp.grid.height, (g_get_monotonic_time () - t0) * 1e-6, ser, psnr);
      pass = ser >= min_ser;
      printf ("%s bench-cuda %s: %s %s SER %.1f dB against float64 backprojection over the whole image (bound "
              "%.1f dB)\n", pass ? "PASS" : "FAIL", label ? label : "-", ef_algo_to_string (algo),
              ef_precision_to_string (precision), ser, min_ser);
    }

  /* Columns: label, device, edge, pulses, samples, bins, precision, shape, standoff, kernel ms, kernel bp/s,
   * formed bp/s, range compression ms, copies ms, complex SER dB (whole image), magnitude PSNR dB, devices,
   * read ms, formed + read bp/s. */
  printf ("RESULT\t%s\t%s\t%d\t%d\t%d\t%u\t%s\t%u\t%.0f\t%.3f\t%.4g\t%.4g\t%.2f\t%.2f\t%.1f\t%.1f\t%u\t%.2f"
          "\t%.4g\n",
          label ? label : "-", dev, edge, pulses, samples, (guint) (samples * upsample) /* nominal */,
          ef_precision_to_string (precision), ef_backend_cuda_variant (be), standoff, best_bp_ms,
          n_bp / (best_bp_ms * 1e-3), n_bp / best_wall, rc_ms, h2d_ms, ser, psnr, n_used, read_ms,
          n_bp / best_total);
  return pass ? 0 : 1;

fail:
  fprintf (stderr, "bench-cuda: %s\n", error ? error->message : "failed");
  return 1;
}
