/* bench-cuda.c: throughput of the CUDA backend on random phase histories, with SER against float64. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "cuda/ef-cuda.h"
#include "ef-backend.h"
#include "ef-bp.h"
#include "ef-rangecomp.h"
#include "ef-cuda-test-scene.h"

/*
 * White random FX samples are a scene of random scatterers over the whole range window: every pixel
 * gets energy from every pulse, there is nothing for the kernel to skip, and the float64 reference
 * over a few sub-rectangles checks the accuracy of what was timed.
 *
 * Prints one tab-separated RESULT line per configuration; run.sh collects them into a table.
 *
 * With --devices N the backend spreads every block over N devices. The kernel rate then divides the
 * pixel-pulses by the kernels' device time averaged over the devices; the end-to-end rate is the wall
 * time of the process_block calls until every device is done (the image formed, on the devices), as
 * for one device; the read column times reading the whole image back, which over several devices
 * includes summing the partial images.
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
  gint edge = 2048, pulses = 2048, samples = 2048, block = 1024, reps = 3, rect = 24, n_rects = 3;
  gint variant = 0, upsample = 2, devices = 1;
  double standoff = 10e3, spacing = 0.125;
  g_autofree char *precision_s = g_strdup ("fp32");
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
    { "variant", 0, 0, G_OPTION_ARG_INT, &variant, "kernel shape (0: automatic)", "V" },
    { "devices", 0, 0, G_OPTION_ARG_INT, &devices, "devices to spread the pulses over (0: all)", "N" },
    { "rect", 0, 0, G_OPTION_ARG_INT, &rect, "edge of each SER sub-rectangle", "N" },
    { "rects", 0, 0, G_OPTION_ARG_INT, &n_rects, "number of SER sub-rectangles", "N" },
    { "no-ser", 0, 0, G_OPTION_ARG_NONE, &no_ser, "skip the float64 check", NULL },
    { "label", 0, 0, G_OPTION_ARG_STRING, &label, "name for the RESULT line", "S" },
    { "tune", 0, 0, G_OPTION_ARG_NONE, &tune, "time every kernel shape and store the fastest", NULL },
    { NULL }
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new ("- CUDA backprojection benchmark");
  g_autoptr (GError) error = NULL;
  g_autofree char *dev = NULL;
  g_autofree char *why = NULL;
  EfPrecision precision;
  EfDatasetInfo info = { 0 };
  g_autofree EfPulse *pl = NULL;
  g_autofree EfCf32 *data = NULL;
  EfBackendParams bp = { 0 };
  EfCudaOptions opts = EF_CUDA_OPTIONS_DEFAULT;
  g_autoptr (EfBackend) be = NULL;
  EfCudaStats st0, st1;
  const double fc = 9.6e9, bw = 600e6;
  double best_wall = G_MAXDOUBLE, best_bp_ms = G_MAXDOUBLE, ser = NAN, psnr = NAN, rc_ms = 0, h2d_ms = 0;
  double read_ms = NAN;
  guint n_used = 1;
  guint64 n_bp;

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
  bp.algo = EF_ALGO_BP;
  bp.block_size = (guint) block;
  bp.device = -1;
  bp.n_devices = devices <= 0 ? EF_BACKEND_ALL_DEVICES : (guint) devices;
  opts.variant = (guint) variant;
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

  /* Warm-up: module load, plans, first-touch of the table. */
  if (!ef_backend_process_block (be, pl, data, (guint) MIN (block, pulses), &error)
      || !ef_backend_cuda_stats (be, &st0, &error))
    goto fail;

  for (gint r = 0; r < reps; r++)
    {
      gint64 t0;
      double wall;

      if (!be->ops->clear (be, &error) || !ef_backend_cuda_stats (be, &st0, &error))
        goto fail;
      t0 = g_get_monotonic_time ();
      for (gint p0 = 0; p0 < pulses; p0 += block)
        if (!ef_backend_process_block (be, pl + p0, data + (gsize) p0 * samples, (guint) MIN (block, pulses - p0),
                                       &error))
          goto fail;
      if (!ef_backend_cuda_stats (be, &st1, &error))
        goto fail;
      wall = (g_get_monotonic_time () - t0) * 1e-6;
      best_wall = MIN (best_wall, wall);
      n_used = MAX (st1.n_devices, 1u);
      /* Device time over all devices; per device on average, the elapsed kernel time. */
      best_bp_ms = MIN (best_bp_ms, (st1.bp_ms - st0.bp_ms) / n_used);
      rc_ms = st1.rc_ms - st0.rc_ms;
      h2d_ms = st1.h2d_ms - st0.h2d_ms;
      fprintf (stderr, "rep %d: wall %.3f s, backprojection %.2f ms, range compression %.2f ms, copies %.2f ms\n", r,
               wall, st1.bp_ms - st0.bp_ms, rc_ms, h2d_ms);
    }
  n_bp = (guint64) pulses * edge * edge;
  {
    /* The whole image to the host (pageable memory, as a caller has it), the partial images summed. */
    g_autofree EfCf32 *img = g_try_new (EfCf32, (gsize) edge * edge);
    EfRect all = { 0, 0, (guint) edge, (guint) edge };

    for (int r = 0; img != NULL && r < 2; r++)
      {
        gint64 t0 = g_get_monotonic_time ();

        if (!ef_backend_read_image (be, &all, img, &error))
          goto fail;
        read_ms = (g_get_monotonic_time () - t0) * 1e-3;
      }
    fprintf (stderr, "%u device(s): whole-image read %.2f ms\n", n_used, read_ms);
  }

  if (!no_ser)
    {
      /* float64 over a few rectangles: corners and random places. */
      g_autoptr (EfRangeCompressor) rc = ef_range_compressor_new (&info, &bp.range, TRUE, &error);
      g_autoptr (EfProfiles) prof = NULL;
      g_autofree EfRect *rects = g_new (EfRect, n_rects);
      g_autofree EfCf64 *ref = NULL;
      g_autofree EfCf32 *gpu = NULL;
      gsize per = (gsize) rect * rect;
      const guint cb = 256;
      gint64 t0 = g_get_monotonic_time ();

      if (rc == NULL)
        goto fail;
      prof = ef_profiles_new (cb, ef_range_compressor_n_bins (rc), TRUE, &error);
      if (prof == NULL)
        goto fail;
      ref = g_new0 (EfCf64, per * n_rects);
      gpu = g_new (EfCf32, per * n_rects);
      for (gint i = 0; i < n_rects; i++)
        {
          guint span_px = (guint) (edge - rect);

          if (i == 0)
            rects[i] = (EfRect) { 0, 0, (guint) rect, (guint) rect };
          else if (i == 1)
            rects[i] = (EfRect) { span_px, span_px, (guint) rect, (guint) rect };
          else
            rects[i] = (EfRect) { (guint) (rng_next () % (span_px + 1)), (guint) (rng_next () % (span_px + 1)),
                                  (guint) rect, (guint) rect };
        }
      for (gint p0 = 0; p0 < pulses; p0 += cb)
        {
          guint m = (guint) MIN ((gint) cb, pulses - p0);

          if (!ef_range_compress (rc, pl + p0, data + (gsize) p0 * samples, m, prof, NULL, &error))
            goto fail;
#pragma omp parallel for schedule(dynamic, 1)
          for (gint i = 0; i < n_rects; i++)
            ef_bp_reference_rect (&bp.grid, prof, &rects[i], ref + per * i);
        }
      for (gint i = 0; i < n_rects; i++)
        if (!ef_backend_read_image (be, &rects[i], gpu + per * i, &error))
          goto fail;
      ser = ef_cuda_test_ser_db (gpu, ref, per * n_rects);
      psnr = ef_cuda_test_psnr_db (gpu, ref, per * n_rects);
      fprintf (stderr, "float64 check: %d rectangles of %d x %d px in %.1f s\n", n_rects, rect, rect,
               (g_get_monotonic_time () - t0) * 1e-6);
    }

  printf ("RESULT\t%s\t%s\t%d\t%d\t%d\t%u\t%s\t%u\t%.0f\t%.3f\t%.4g\t%.4g\t%.2f\t%.2f\t%.1f\t%.1f\t%u\t%.2f"
          "\t%.4g\n",
          label ? label : "-", dev, edge, pulses, samples, (guint) (samples * upsample) /* nominal */,
          ef_precision_to_string (precision), ef_backend_cuda_variant (be), standoff, best_bp_ms,
          n_bp / (best_bp_ms * 1e-3), n_bp / best_wall, rc_ms, h2d_ms, ser, psnr, n_used, read_ms,
          n_bp / (best_wall + read_ms * 1e-3));
  return 0;

fail:
  fprintf (stderr, "bench-cuda: %s\n", error ? error->message : "failed");
  return 1;
}
