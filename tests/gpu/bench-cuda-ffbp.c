/* bench-cuda-ffbp.c: FFBP and FBP on the GPU against exact GPU backprojection: time and accuracy. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/ef-cuda.h"
#include "cuda/ef-cuda-ffbp.h"
#include "ef-backend.h"
#include "ef-bp.h"
#include "ef-ffbp-private.h"
#include "ef-rangecomp.h"
#include "ef-cuda-test-scene.h"
#include "ef-ref-bp.h"

/*
 * One block of random FX samples (white over the band: every pixel gets energy from every pulse) is
 * formed by the CUDA backend in one process_block call, by exact backprojection (fp32) and by FFBP and
 * FBP (fp32, fp16), all at the same range upsampling. Times are device times from the backend's events:
 * range compression (with the pair table both paths read) plus formation; the speed-up over BP ("x BP")
 * is taken on that sum, so that it is what a caller gains from samples to image; the formation alone and
 * its ratio are printed beside it. Each image is compared with the fp32 backprojection over the whole
 * ROI and with float64 backprojection over the whole ROI (range compression in float64 on the CPU,
 * backprojection in float64 on the device: tests/gpu/ef-ref-bp.cu). Then the same profiles go through the
 * kernel-level entry point for the time of each step. One tab-separated RESULT line per algorithm, and a
 * PASS or FAIL line for each image's SER against float64 (bounds: tests/bench/RESULTS.md's figures less
 * 3 dB); exit 1 on any FAIL.
 *
 * Range upsampling is 8 by default: backprojection interpolates the profiles linearly, and at 2 that
 * interpolation's own error (some 24 dB below the image) is what any fast algorithm differs from BP by.
 *
 * Prediction, for an H200 (132 SMs at 1.98 GHz: 67 TFLOP/s fp32, 128 B a clock per SM from L1, i.e.
 * 33 TB/s, 4.8 TB/s of HBM), for the default case, 4096^2 px (0.125 m) x 8192 pulses x 4096 samples at
 * 10 km, where the GPU plan takes leaves of 48 pulses and four merges of base 4 (171 -> 43 -> 11 -> 3
 * -> 1 grids of about 3700 range samples; 2.4e7, 1.8e7, 1.6e7, 1.6e7, 1.6e7 polar samples):
 *
 *   exact BP    4096^2 x 8192 = 1.37e11 pixel-pulses at ~1.1e12/s: ~125 ms.
 *   leaves      2.4e7 samples x 48 pulses = 1.2e9 pulse-samples, each one cubic (3 FMA), the pair
 *               split (5), one 16 B table read, 2 FMA of interpolation, sincos of the residual (2 MUFU)
 *               and 4 FMA: ~22 instructions, 2.6e10 over 132 x 128 lanes at 1.98 GHz = 0.8 ms; 2.3e9
 *               MUFU (16 a clock per SM) = 0.6 ms alongside; 19 GB from L1 at upsampling 2 (twice
 *               the lines at 8, where neighbouring samples are 4 bins apart). ~1-2 ms.
 *   merges      2.5e8 child-samples (4 + 4 + 4 + 3 children over the four stages), each 64 taps of
 *               8 B (512 B: about 2.5 L1 wavefronts per warp-wide row of 8 taps) and 144 FMA: ~5 clocks
 *               of L1 per child-sample, 1.2e9 SM-clocks = 4.8 ms, against 0.7 ms of FMA: L1-bound,
 *               ~5-6 ms. Grids in and out of HBM: ~1.5 GB, 0.3 ms, hidden.
 *   final       1.7e7 pixels x 1 grid: ~0.4 ms.
 *   FFBP fp32   ~7-8 ms: 15-18x faster than exact BP, at the CPU's accuracy (~47 dB from BP here).
 *   FFBP fp16   the same with 4 B taps: merges ~3 ms, ~5 ms in all.
 *   FBP         leaves of 384 pulses fused from 22 grids: 6.4e9 pulse-samples (~5 ms) and 1.7e7 x 22
 *               gathers (~7 ms): ~12 ms, ~10x; fp16 ~9 ms.
 *
 * Measured on an H200 (2026-11-22, upsampling 8; formation alone, range compression left out, float64 on
 * four sampled 32 x 32 rectangles): exact BP 141.8 ms (9.7e11/s; 121.8 ms at 2);
 * FFBP fp32 10.6 ms (leaves 3.2, merges 6.8, final 0.6): 13.4x at 46.9 dB from BP and 47.1 dB from
 * float64; FFBP fp16 8.6 ms, 16.6x, 46.8 dB; FBP fp32 27.5 ms (leaves 16.7, final 10.7), 5.2x,
 * 48.5 dB; FBP fp16 19.3 ms, 7.3x. At upsampling 2: FFBP 9.4 ms (13.0x) and 7.8 ms (fp16, 15.6x).
 * At 700 km (BP 158.7 ms): FFBP 8.6 ms (18.5x), fp16 7.3 ms (21.8x). The leaves run at a third of
 * BP's rate (no reuse of a tile's geometry); the merges at 27 ps a child-sample, 7 SM-clocks rather
 * than 5 (each row of 8 taps is 8 B loads). The 2048^2 x 2048 case: BP 9.3 ms, FFBP 2.2 ms (4.3x),
 * fp16 1.8 ms (5.2x): FFBP's gain grows with the block.
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

/* min_ser64: the SER against float64 below which the run fails; tests/bench/RESULTS.md (FFBP, FBP and PFA
 * on the GPU): BP 112.5-117.9 dB, FFBP 47.1-47.8 dB, FBP 48.6-48.7 dB, each less 3 dB. */
typedef struct {
  const char *name;
  EfAlgo      algo;
  EfPrecision precision;
  double      min_ser64;
} Config;

static const Config configs[] = {
  { "bp", EF_ALGO_BP, EF_PRECISION_FP32, 109.5 },
  { "ffbp", EF_ALGO_FFBP, EF_PRECISION_FP32, 44.1 },
  { "ffbp", EF_ALGO_FFBP, EF_PRECISION_FP16, 44.1 },
  { "fbp", EF_ALGO_FBP, EF_PRECISION_FP32, 45.6 },
  { "fbp", EF_ALGO_FBP, EF_PRECISION_FP16, 45.6 },
};

static double
ser_f32 (const EfCf32 *test, const EfCf32 *ref, gsize n)
{
  double s = 0, e = 0;

  for (gsize i = 0; i < n; i++)
    {
      double dr = (double) crealf (test[i]) - crealf (ref[i]), di = (double) cimagf (test[i]) - cimagf (ref[i]);

      s += (double) crealf (ref[i]) * crealf (ref[i]) + (double) cimagf (ref[i]) * cimagf (ref[i]);
      e += dr * dr + di * di;
    }
  if (!isfinite (e))
    return -INFINITY;
  return e > 0 ? 10.0 * log10 (s / e) : INFINITY;
}

int
main (int argc, char **argv)
{
  gint edge = 4096, pulses = 8192, samples = 0, upsample = 8, reps = 3;
  double standoff = 10e3, spacing = 0.125;
  g_autofree char *label = NULL;
  g_autofree char *only = NULL;
  gboolean no_ser = FALSE, no_steps = FALSE;
  GOptionEntry entries[] = {
    { "edge", 0, 0, G_OPTION_ARG_INT, &edge, "image edge, pixels", "N" },
    { "pulses", 0, 0, G_OPTION_ARG_INT, &pulses, "pulses (one block, at most 8192)", "N" },
    { "samples", 0, 0, G_OPTION_ARG_INT, &samples, "samples per pulse (0: the edge)", "N" },
    { "upsample", 0, 0, G_OPTION_ARG_INT, &upsample, "range upsampling", "N" },
    { "reps", 0, 0, G_OPTION_ARG_INT, &reps, "timed repetitions", "N" },
    { "standoff", 0, 0, G_OPTION_ARG_DOUBLE, &standoff, "slant range to the scene centre, m", "M" },
    { "spacing", 0, 0, G_OPTION_ARG_DOUBLE, &spacing, "pixel spacing, m", "M" },
    { "no-ser", 0, 0, G_OPTION_ARG_NONE, &no_ser, "skip the float64 check", NULL },
    { "no-steps", 0, 0, G_OPTION_ARG_NONE, &no_steps, "skip the kernel-level timing of each step", NULL },
    { "only", 0, 0, G_OPTION_ARG_STRING, &only, "comma-separated: bp,ffbp,ffbp16,fbp,fbp16 (bp always runs)", "L" },
    { "label", 0, 0, G_OPTION_ARG_STRING, &label, "name for the RESULT lines", "S" },
    { NULL }
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new ("- GPU FFBP and FBP against GPU backprojection");
  g_autoptr (GError) error = NULL;
  g_autofree char *why = NULL;
  g_autofree char *dev = NULL;
  EfDatasetInfo info = { 0 };
  g_autofree EfPulse *pl = NULL;
  g_autofree EfCf32 *data = NULL;
  g_autofree EfCf32 *bp_img = NULL;
  g_autofree EfCf32 *img = NULL;
  g_autofree EfCf32 *prof = NULL;
  g_autofree EfProfileMeta *meta = NULL;
  g_autofree EfCf64 *ref = NULL;
  EfRangeParams rp = EF_RANGE_PARAMS_DEFAULT;
  EfGrid grid;
  const double fc = 9.6e9, bw = 600e6;
  double bp_ms = NAN, bp_total_ms = NAN;
  guint n_bins = 0;
  gsize n_px;
  gboolean pass = TRUE;

  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    {
      fprintf (stderr, "bench-cuda-ffbp: %s\n", error->message);
      return 2;
    }
  if (samples <= 0)
    samples = edge;
  if (pulses < 2 || pulses > 8192 || edge < 64 || reps < 1)
    {
      fprintf (stderr, "bench-cuda-ffbp: --pulses 2..8192, --edge >= 64, --reps >= 1\n");
      return 2;
    }
  if (!ef_cuda_available (&why))
    {
      fprintf (stderr, "bench-cuda-ffbp: %s\n", why);
      return 77;
    }
  dev = ef_cuda_device_name (-1);

  pl = ef_cuda_test_arc (&info, (guint) pulses, (guint) samples, fc, bw, standoff);
  data = g_try_new (EfCf32, (gsize) pulses * samples);
  if (data == NULL)
    {
      fprintf (stderr, "bench-cuda-ffbp: no memory for the samples\n");
      return 1;
    }
  for (gsize i = 0; i < (gsize) pulses * samples; i++)
    data[i] = rng_uniform () + rng_uniform () * I;
  if (!ef_grid_init_roi (&grid, -0.5 * edge * spacing, -0.5 * edge * spacing, 0.5 * edge * spacing,
                         0.5 * edge * spacing, spacing, &error))
    goto fail;
  n_px = ef_grid_n_pixels (&grid);
  rp.upsample = (guint) upsample;
  bp_img = g_try_new (EfCf32, n_px);
  img = g_try_new (EfCf32, n_px);
  if (bp_img == NULL || img == NULL)
    {
      fprintf (stderr, "bench-cuda-ffbp: no memory for the images\n");
      return 1;
    }

  /* The CPU's metadata of every pulse, and float64 over the whole image: range compression on the CPU,
   * backprojection on the device, block by block. */
  meta = g_new (EfProfileMeta, pulses);
  {
    g_autoptr (EfRangeCompressor) rc = ef_range_compressor_new (&info, &rp, TRUE, &error);
    g_autoptr (EfProfiles) p64 = NULL;
    g_autoptr (EfRefBp) yard = NULL;
    const guint cb = 256;
    gint64 t0 = g_get_monotonic_time ();

    if (rc == NULL)
      goto fail;
    n_bins = ef_range_compressor_n_bins (rc);
    p64 = ef_profiles_new (cb, n_bins, TRUE, &error);
    if (p64 == NULL)
      goto fail;
    if (!no_ser && (yard = ef_ref_bp_new (&grid, cb, n_bins, &error)) == NULL)
      goto fail;
    for (gint p0 = 0; p0 < pulses; p0 += cb)
      {
        guint m = (guint) MIN ((gint) cb, pulses - p0);

        if (!ef_range_compress (rc, pl + p0, data + (gsize) p0 * samples, m, p64, NULL, &error))
          goto fail;
        memcpy (meta + p0, p64->meta, m * sizeof (EfProfileMeta));
        if (yard != NULL && !ef_ref_bp_add (yard, p64, &error))
          goto fail;
      }
    if (yard != NULL)
      {
        ref = g_try_new (EfCf64, n_px);
        if (ref == NULL)
          {
            fprintf (stderr, "bench-cuda-ffbp: no memory for the float64 image\n");
            return 1;
          }
        if (!ef_ref_bp_read (yard, ref, &error))
          goto fail;
      }
    fprintf (stderr, "CPU range compression%s in %.1f s\n",
             no_ser ? "" : " and the float64 image on the device (whole image)", (g_get_monotonic_time () - t0) * 1e-6);
  }

  for (guint c = 0; c < G_N_ELEMENTS (configs); c++)
    {
      const Config *cf = &configs[c];
      g_autofree char *key = g_strdup_printf ("%s%s", cf->name, cf->precision == EF_PRECISION_FP16 ? "16" : "");
      EfBackendParams bp = { 0 };
      EfCudaOptions opts = EF_CUDA_OPTIONS_DEFAULT;
      g_autoptr (EfBackend) be = NULL;
      EfCudaStats st0, st1;
      EfFfbpStats plan_st = { 0 }, step_st = { 0 };
      EfRect all = { 0, 0, grid.width, grid.height };
      double best = G_MAXDOUBLE, best_total = G_MAXDOUBLE, best_rc = NAN, step_ms = NAN, ser_bp = NAN;
      double ser64 = NAN, psnr64 = NAN;

      if (c > 0 && only != NULL)
        {
          g_auto (GStrv) words = g_strsplit (only, ",", -1);

          if (!g_strv_contains ((const char *const *) words, key))
            continue;
        }
      bp.grid = grid;
      bp.range = rp;
      bp.precision = cf->precision;
      bp.algo = cf->algo;
      bp.block_size = (guint) pulses;
      bp.device = -1;
      opts.max_block = (guint) pulses;
      be = ef_backend_cuda_new_full (&info, &bp, &opts, &error);
      if (be == NULL)
        goto fail;
      /* Warm-up: module load, plans, the polar grids' first allocation. */
      if (!ef_backend_process_block (be, pl, data, (guint) pulses, &error) || !ef_backend_cuda_stats (be, &st0, &error))
        goto fail;
      for (gint r = 0; r < reps; r++)
        {
          if (!be->ops->clear (be, &error) || !ef_backend_cuda_stats (be, &st0, &error)
              || !ef_backend_process_block (be, pl, data, (guint) pulses, &error)
              || !ef_backend_cuda_stats (be, &st1, &error))
            goto fail;
          best = MIN (best, st1.bp_ms - st0.bp_ms);
          if (st1.rc_ms - st0.rc_ms + st1.bp_ms - st0.bp_ms < best_total)
            {
              best_total = st1.rc_ms - st0.rc_ms + st1.bp_ms - st0.bp_ms;
              best_rc = st1.rc_ms - st0.rc_ms;
            }
          fprintf (stderr, "%s %s rep %d: formation %.3f ms, range compression %.2f ms\n", cf->name,
                   ef_precision_to_string (cf->precision), r, st1.bp_ms - st0.bp_ms, st1.rc_ms - st0.rc_ms);
        }
      if (!ef_backend_read_image (be, &all, cf->algo == EF_ALGO_BP ? bp_img : img, &error))
        goto fail;
      if (cf->algo == EF_ALGO_BP)
        {
          bp_ms = best;
          bp_total_ms = best_total;
          ser_bp = INFINITY;
          /* The device's profiles of the block, for the kernel-level runs below. */
          if (!no_steps)
            {
              prof = g_try_new (EfCf32, (gsize) pulses * n_bins);
              if (prof == NULL || !ef_backend_cuda_read_profiles (be, (guint) pulses, NULL, prof, &error))
                goto fail;
            }
        }
      else
        ser_bp = ser_f32 (img, bp_img, n_px);
      if (ref != NULL)
        {
          const EfCf32 *src = cf->algo == EF_ALGO_BP ? bp_img : img;

          ser64 = ef_cuda_test_ser_db (src, ref, n_px);
          psnr64 = ef_cuda_test_psnr_db (src, ref, n_px);
          printf ("%s bench-cuda-ffbp %s %s %s: SER %.1f dB against float64 over the whole image (bound %.1f dB)\n",
                  ser64 >= cf->min_ser64 ? "PASS" : "FAIL", label ? label : "-", cf->name,
                  ef_precision_to_string (cf->precision), ser64, cf->min_ser64);
          pass = pass && ser64 >= cf->min_ser64;
        }

      if (cf->algo != EF_ALGO_BP)
        {
          /* The plan the backend made, again on the host; and the kernel-level time of each step. */
          EfProfiles view = { 0 };
          EfFfbpParams fp;
          g_autoptr (EfFfbp) former = NULL;
          EfFfbpPlan plan;

          if (cf->algo == EF_ALGO_FBP)
            ef_fbp_params_init (&fp);
          else
            ef_ffbp_params_init (&fp);
          view.n_pulses = view.capacity = (guint) pulses;
          view.n_bins = n_bins;
          view.meta = meta;
          view.data32 = prof;
          view.monostatic = TRUE;
          former = ef_ffbp_new (&grid, bw, &fp, &error);
          if (former == NULL)
            goto fail;
          if (ef_ffbp_plan (former, &view, &ef_ffbp_costs_gpu, EF_FFBP_SEARCH_DESCEND, &plan, NULL))
            ef_ffbp_plan_stats (&plan, &plan_st);
          ef_ffbp_plan_clear (&plan);
          if (prof != NULL
              && !ef_cuda_ffbp_profiles (&grid, bw, &fp, cf->precision, &view, img, &step_st, &step_ms, &error))
            goto fail;
        }

      fprintf (stderr, "%s %s: range compression + formation %.3f ms (%.2fx BP at the same upsampling); formation "
               "alone %.3f ms (%.1fx BP's); SER %.1f dB against fp32 BP, %.1f dB against float64 (magnitude PSNR "
               "%.1f dB); plan: %s leaves of %u, %u stages, %u fused, %.3g polar samples, model x%.1f; kernel level "
               "%.3f ms: leaves %.3f, merges %.3f, final %.3f ms\n",
               cf->name, ef_precision_to_string (cf->precision), best_total, bp_total_ms / best_total, best,
               bp_ms / best, ser_bp, ser64, psnr64,
               plan_st.used_bp ? "exact BP;" : "", plan_st.leaf_pulses, plan_st.n_stages, plan_st.n_final,
               (double) plan_st.polar_samples, plan_st.est_speedup, step_ms, step_st.seconds_leaves * 1e3,
               step_st.seconds_merge * 1e3, step_st.seconds_final * 1e3);
      /* Columns: label, device, edge, pulses, samples, standoff, algorithm, precision, range compression +
       * formation ms, BP-equivalent pixel-pulses/s on that time, x BP on that time (same upsampling), SER
       * against fp32 BP, SER against float64 (whole image), magnitude PSNR against float64, leaf pulses,
       * stages, fused, polar samples, kernel-level ms, leaves ms, merges ms, final ms, formation alone ms,
       * x BP on formation alone, range compression ms, upsampling. */
      printf ("RESULT\t%s\t%s\t%d\t%d\t%d\t%.0f\t%s\t%s\t%.3f\t%.4g\t%.2f\t%.1f\t%.1f\t%.1f\t%u\t%u\t%u\t%.4g\t%.3f"
              "\t%.3f\t%.3f\t%.3f\t%.3f\t%.2f\t%.3f\t%d\n",
              label ? label : "-", dev, edge, pulses, samples, standoff, cf->name,
              ef_precision_to_string (cf->precision), best_total, (double) pulses * n_px / (best_total * 1e-3),
              bp_total_ms / best_total, ser_bp, ser64, psnr64, plan_st.leaf_pulses, plan_st.n_stages,
              plan_st.n_final, (double) plan_st.polar_samples, step_ms, step_st.seconds_leaves * 1e3,
              step_st.seconds_merge * 1e3, step_st.seconds_final * 1e3, best, bp_ms / best, best_rc, upsample);
      fflush (stdout);
    }
  return pass ? 0 : 1;

fail:
  fprintf (stderr, "bench-cuda-ffbp: %s\n", error ? error->message : "failed");
  return 1;
}
