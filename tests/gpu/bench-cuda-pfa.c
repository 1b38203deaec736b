/* bench-cuda-pfa.c: the polar format algorithm on a device, stage by stage, against GPU backprojection. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "cuda/ef-cuda.h"
#include "cuda/ef-cuda-pfa.h"
#include "ef-error.h"
#include "ef-metrics.h"
#include "ef-pfa.h"
#include "ef-rangecomp.h"
#include "ef-sim.h"
#include "ef-ref-bp.h"

/*
 * The case: a circular spotlight (X band, 600 MHz, square resolution cells of 0.25 m) of 8192 pulses x
 * 4096 samples, random point targets inside a 4096^2 px ROI of 0.125 m, range-compressed on the CPU
 * (fp32, upsampling U: profiles of nb = 4096 U bins), the profiles on the device; PFA at its defaults
 * (oversampling 2, a 6-cell kernel, 8 Knab taps). At 700 km the ROI (362 m to its corners) is well
 * within the depth of focus (the report's QPE is 0.02 rad); at 10 km it is not, and the report says so.
 *
 * Prediction, H100 SXM (3.35 TB/s HBM3, 67 TFLOP/s fp32, 34 TFLOP/s fp64), 700 km, U = 16 (nb = 65536):
 * - profile FFTs: 8192 transforms of 65536 points, 5 n log2 n = 43 GFLOP (nothing for the chip), but
 *   4.3 GB of spectra through memory, read and written once or twice (a 64K-point FFT takes cuFFT one
 *   or two passes): 8.6-17 GB, 3-6 ms. Bandwidth-bound; at U = 2 (nb = 8192, one pass) 1.1 GB, 0.4 ms.
 *   Only 4097 of every nb bins are used: the zero padding of range compression is what costs here.
 * - gridding: 8192 x 4097 = 33.6 M spectral samples, each ~25 fp64 operations (position, phase: 0.8
 *   GFLOP fp64, 25 us of the fp64 peak) and a 6 x 6 kernel footprint (the 7th tap is always zero):
 *   1.2 G float2 additions. In shared memory per 32-bin x 8-pulse block (bins ~1 cell apart, pulses
 *   ~0.7 cells: a ~40 x 13 cell patch), then ~500 global float2 atomics per block, 66 M in all (0.5 GB
 *   of L2 atomics, ~1 ms); the shared-memory adds (2.4 G 32-bit atomics over 132 SMs, ~18 M per SM)
 *   take ~2-5 ms if they issue at one warp instruction per 1-2 cycles. Expect 2-6 ms; every tap as a
 *   global atomic (timed as well) 1.2 G L2 atomics, ~10-20 ms.
 * - grid copy + 2-D FFT: the grid is 8232^2 (2^3 3 7^3 >= 2 x 4116) x 8 B = 542 MB; the copy moves 1.1
 *   GB (0.4 ms) and cuFFT's radix-2/3/7 passes 4-6 reads and writes of it (4-6.5 GB): 1.5-2.5 ms.
 * - correction: the lattice (4116^2: 135 MB in, 135 MB out, 0.1 ms) and 16.8 M output pixels, each
 *   ~120 fp64 operations (three distances and a 2 x 2 solve: 2 GFLOP fp64, 0.06 ms at peak) and an 8 x 8
 *   Knab sum (64 float2 loads, mostly L1 hits: 1.1 G loads, ~0.5 ms): ~1 ms.
 * Total ~8-15 ms at U = 16 and ~5-10 ms at U = 2, against ~130-150 ms for the exact GPU backprojection
 * (4096^2 x 8192 = 1.37e11 pixel-pulses at ~1e12/s): PFA 10-25x faster.
 * Accuracy: PFA against BP on the whole image is set by BP's linear range interpolation (PFA
 * interpolates the spectrum exactly): about 50 dB at U = 16 (as test-pfa's 55 dB), about 20 dB at U = 2.
 *
 * Measured on an H200 (132 SMs, CUDA 13.0, 2026-11-22), U = 16 / U = 2: profile FFTs 4.75 / 0.31 ms,
 * gridding 4.9 / 4.7 ms (7.5 / 7.3 ms with every tap a global atomic: shared floats have no atomic add
 * on this device, each is a compare-and-swap loop), 2-D FFT 1.43 ms, correction 1.33 ms: 12.4 / 7.7 ms
 * in all, 12.6 / 8.0 ms untimed; GPU backprojection kernel 153 / 122 ms (12x / 15x, range compression
 * left out of both); SER 45.7 / 19.7 dB against BP.
 *
 * The speed-up over exact backprojection ("x BP") is taken at the same range upsampling with the device's
 * range compression on both sides: BP is timed through the CUDA backend (range compression and pair table,
 * then the kernel, device events), PFA as the backend's range compression of the same block plus the
 * formation above. The kernels alone are compared too. Each image is compared with float64
 * backprojection over the whole ROI (range compression in float64 on the CPU, backprojection in float64 on
 * the device: tests/gpu/ef-ref-bp.cu), and PFA with BP. A PASS or FAIL line gives PFA's SER against float64
 * and its bound (--min-ser; by default tests/bench/RESULTS.md's 45.7 dB at U = 16 and 19.7 dB at U = 2
 * less 3 dB, none at other upsamplings); exit 1 on FAIL.
 *
 * Prints one tab-separated RESULT line; the rest goes to stderr.
 */

static gboolean
check (cudaError_t e, const char *what)
{
  if (e == cudaSuccess)
    return TRUE;
  fprintf (stderr, "bench-cuda-pfa: %s: %s\n", what, cudaGetErrorString (e));
  return FALSE;
}

typedef struct {
  EfCudaPfaStats st;    /* stage times of one formation (timing on) */
  double         wall_ms; /* one formation, untimed: device time from the first add to the end of form */
  EfPfaReport    rep;
} PfaRun;

/* Grids every pulse in blocks and forms the image into d_out. */
static gboolean
pfa_once (EfCudaPfa *pfa, cudaStream_t s, const EfProfiles *p32, const void *d_prof, guint block, void *d_out,
          cudaEvent_t e0, cudaEvent_t e1, PfaRun *run, GError **error)
{
  float ms = 0;

  ef_cuda_pfa_clear (pfa);
  ef_cuda_pfa_reset_stats (pfa);
  if (!check (cudaEventRecord (e0, s), "cudaEventRecord"))
    return FALSE;
  for (guint p0 = 0; p0 < p32->n_pulses; p0 += block)
    {
      const char *prof = (const char *) d_prof + (gsize) p0 * p32->n_bins * sizeof (EfCf32);

      if (!ef_cuda_pfa_add (pfa, s, p32->meta + p0, prof, p32->n_bins, MIN (block, p32->n_pulses - p0), error))
        return FALSE;
    }
  if (!ef_cuda_pfa_form (pfa, s, d_out, NULL, error))
    return FALSE;
  if (!check (cudaEventRecord (e1, s), "cudaEventRecord") || !check (cudaEventSynchronize (e1), "sync")
      || !check (cudaEventElapsedTime (&ms, e0, e1), "cudaEventElapsedTime"))
    return FALSE;
  run->wall_ms = ms;
  ef_cuda_pfa_get_stats (pfa, &run->st);
  return TRUE;
}

/* One block of every pulse through a CUDA backend of algo at rp, best of reps: the device time of range
 * compression (with the pair table for BP) and of what follows it (the kernel for BP, the gridding for
 * PFA). out (may be NULL) receives the image. */
static gboolean
backend_times (const EfDatasetInfo *info, const EfPulse *pulses, const EfCf32 *samples, guint n, const EfGrid *grid,
               const EfRangeParams *rp, EfAlgo algo, gint reps, EfCf32 *out, double *rc_ms, double *form_ms,
               GError **error)
{
  EfBackendParams bp = { 0 };
  EfCudaOptions opts = EF_CUDA_OPTIONS_DEFAULT;
  g_autoptr (EfBackend) be = NULL;
  EfCudaStats st0, st1;
  EfRect all = { 0, 0, grid->width, grid->height };
  double best = G_MAXDOUBLE;

  bp.grid = *grid;
  bp.range = *rp;
  bp.precision = EF_PRECISION_FP32;
  bp.algo = algo;
  bp.block_size = MIN (n, 8192u);
  bp.device = -1;
  opts.max_block = bp.block_size;
  be = ef_backend_cuda_new_full (info, &bp, &opts, error);
  if (be == NULL)
    return FALSE;
  /* Warm-up: plans, tables, the first allocation. */
  if (!ef_backend_process_block (be, pulses, samples, n, error))
    return FALSE;
  for (gint r = 0; r < reps; r++)
    {
      if (!be->ops->clear (be, error) || !ef_backend_cuda_stats (be, &st0, error)
          || !ef_backend_process_block (be, pulses, samples, n, error) || !ef_backend_cuda_stats (be, &st1, error))
        return FALSE;
      if (st1.rc_ms - st0.rc_ms + st1.bp_ms - st0.bp_ms < best)
        {
          best = st1.rc_ms - st0.rc_ms + st1.bp_ms - st0.bp_ms;
          *rc_ms = st1.rc_ms - st0.rc_ms;
          *form_ms = st1.bp_ms - st0.bp_ms;
        }
    }
  return out == NULL || ef_backend_read_image (be, &all, out, error);
}

int
main (int argc, char **argv)
{
  gint edge = 4096, pulses = 8192, samples = 4096, upsample = 16, block = 2048, reps = 3, n_targets = 1000;
  double standoff = 700e3, spacing = 0.125, min_ser = NAN;
  gboolean no_bp = FALSE;
  g_autofree char *label = NULL;
  GOptionEntry entries[] = {
    { "edge", 0, 0, G_OPTION_ARG_INT, &edge, "image edge, pixels", "N" },
    { "pulses", 0, 0, G_OPTION_ARG_INT, &pulses, "pulses", "N" },
    { "samples", 0, 0, G_OPTION_ARG_INT, &samples, "samples per pulse", "N" },
    { "upsample", 0, 0, G_OPTION_ARG_INT, &upsample, "range upsampling (profiles of samples x U bins)", "U" },
    { "block", 0, 0, G_OPTION_ARG_INT, &block, "pulses per add", "N" },
    { "reps", 0, 0, G_OPTION_ARG_INT, &reps, "timed repetitions (best taken)", "N" },
    { "targets", 0, 0, G_OPTION_ARG_INT, &n_targets, "random point targets in the ROI", "N" },
    { "standoff", 0, 0, G_OPTION_ARG_DOUBLE, &standoff, "slant range to the scene centre, m", "M" },
    { "spacing", 0, 0, G_OPTION_ARG_DOUBLE, &spacing, "pixel spacing, m", "M" },
    { "no-bp", 0, 0, G_OPTION_ARG_NONE, &no_bp, "skip the backprojection and float64 comparisons", NULL },
    { "min-ser", 0, 0, G_OPTION_ARG_DOUBLE, &min_ser, "PFA's SER against float64 (dB) below which the run fails",
      "DB" },
    { "label", 0, 0, G_OPTION_ARG_STRING, &label, "name for the RESULT line", "S" },
    { NULL }
  };
  g_autoptr (GOptionContext) ctx = g_option_context_new ("- CUDA polar format benchmark");
  g_autoptr (GError) error = NULL;
  g_autofree char *why = NULL;
  g_autofree char *dev = NULL;
  g_autofree EfSimTarget *tg = NULL;
  g_autofree EfCf32 *samples_buf = NULL;
  g_autofree EfCf32 *pfa_img = NULL;
  g_autofree EfCf32 *bp_img = NULL;
  g_autoptr (EfDataset) ds = NULL;
  g_autoptr (EfRangeCompressor) rc = NULL;
  g_autoptr (EfProfiles) p32 = NULL;
  g_autoptr (EfCudaPfa) pfa = NULL;
  EfSimParams sp;
  EfRangeParams rp = EF_RANGE_PARAMS_DEFAULT;
  EfPfaParams pp;
  EfGrid grid;
  PfaRun best = { 0 }, glob = { 0 }, last = { 0 };
  EfPfaReport rep;
  GRand *rand;
  void *d_prof = NULL, *d_out = NULL;
  cudaStream_t s = NULL;
  cudaEvent_t e0 = NULL, e1 = NULL;
  double half, t_sim, t_rc, setup_ms, bp_ms = NAN, bp_rc_ms = NAN, pfa_rc_ms = NAN, pfa_add_ms = NAN, ser = NAN;
  double ser64 = NAN, bp_ser64 = NAN, stage_sum;
  gboolean pass = TRUE;
  gint64 t0;
  gsize n;

  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    {
      fprintf (stderr, "bench-cuda-pfa: %s\n", error->message);
      return 2;
    }
  if (edge < 16 || pulses < 2 || samples < 16 || upsample < 1 || block < 1 || reps < 1)
    {
      fprintf (stderr, "bench-cuda-pfa: sizes out of range\n");
      return 2;
    }
  if (isnan (min_ser))
    min_ser = upsample == 16 ? 42.7 : upsample == 2 ? 16.7 : NAN;
  if (!ef_cuda_available (&why))
    {
      fprintf (stderr, "bench-cuda-pfa: %s\n", why);
      return 77;
    }
  dev = ef_cuda_device_name (-1);

  /* The collection and the scene: random targets inside the ROI, away from its edges. */
  ef_sim_params_init_airborne (&sp);
  sp.standoff = standoff;
  sp.grazing_deg = standoff > 100e3 ? 45.0 : 30.0;
  sp.aperture_deg = sp.bandwidth / (sp.fc * cos (sp.grazing_deg * G_PI / 180)) * 180 / G_PI;
  sp.n_pulses = (guint) pulses;
  sp.n_samples = (guint) samples;
  half = 0.5 * edge * spacing;
  rand = g_rand_new_with_seed (20261122);
  tg = g_new0 (EfSimTarget, MAX (n_targets, 1));
  for (gint i = 0; i < n_targets; i++)
    {
      tg[i].pos[0] = g_rand_double_range (rand, -0.95 * half, 0.95 * half);
      tg[i].pos[1] = g_rand_double_range (rand, -0.95 * half, 0.95 * half);
      tg[i].amp = g_rand_double_range (rand, 0.2, 1.0) * cexp (I * g_rand_double_range (rand, -G_PI, G_PI));
    }
  g_rand_free (rand);
  sp.targets = tg;
  sp.n_targets = (guint) n_targets;
  t0 = g_get_monotonic_time ();
  ds = ef_sim_run (&sp, &error);
  if (ds == NULL)
    goto fail;
  t_sim = (g_get_monotonic_time () - t0) * 1e-6;

  rp.upsample = (guint) upsample;
  t0 = g_get_monotonic_time ();
  rc = ef_range_compressor_new (&ds->info, &rp, FALSE, &error);
  if (rc == NULL)
    goto fail;
  p32 = ef_profiles_new ((guint) pulses, ef_range_compressor_n_bins (rc), FALSE, &error);
  samples_buf = g_try_new (EfCf32, (gsize) pulses * samples);
  if (p32 == NULL || samples_buf == NULL)
    {
      if (error == NULL)
        g_set_error (&error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_MEMORY, "no host memory for the samples");
      goto fail;
    }
  if (!ef_dataset_read_block (ds, 0, (guint) pulses, samples_buf, &error)
      || !ef_range_compress (rc, ds->pulses, samples_buf, (guint) pulses, p32, NULL, &error))
    goto fail;
  t_rc = (g_get_monotonic_time () - t0) * 1e-6;
  fprintf (stderr, "%s: %d pulses x %d samples, %u targets, %.0f km: simulated in %.1f s, range-compressed "
           "to %u bins in %.1f s\n", dev, pulses, samples, (guint) n_targets, standoff * 1e-3, t_sim,
           p32->n_bins, t_rc);

  if (!ef_grid_init_roi (&grid, -half, -half, half, half, spacing, &error))
    goto fail;
  n = ef_grid_n_pixels (&grid);
  if (!check (cudaStreamCreateWithFlags (&s, cudaStreamNonBlocking), "cudaStreamCreate")
      || !check (cudaEventCreate (&e0), "cudaEventCreate")
      || !check (cudaEventCreate (&e1), "cudaEventCreate")
      || !check (cudaMalloc (&d_prof, (gsize) p32->n_pulses * p32->n_bins * sizeof (EfCf32)),
                 "cudaMalloc profiles")
      || !check (cudaMalloc (&d_out, n * sizeof (EfCf32)), "cudaMalloc image")
      || !check (cudaMemcpy (d_prof, p32->data32, (gsize) p32->n_pulses * p32->n_bins * sizeof (EfCf32),
                             cudaMemcpyHostToDevice), "profiles to the device"))
    return 1;

  ef_pfa_params_init (&pp);
  pfa = ef_cuda_pfa_new (&grid, sp.bandwidth, &pp, &error);
  if (pfa == NULL)
    goto fail;
  /* The first block allocates the grid and plans its FFTs. */
  t0 = g_get_monotonic_time ();
  if (!ef_cuda_pfa_add (pfa, s, p32->meta, d_prof, p32->n_bins, (guint) MIN (block, pulses), &error)
      || !check (cudaStreamSynchronize (s), "sync"))
    goto fail;
  setup_ms = (g_get_monotonic_time () - t0) * 1e-3;

  /* Untimed stages (they overlap as they would in a job), then stage by stage; the best of reps each. */
  best.wall_ms = G_MAXDOUBLE;
  for (gint r = 0; r < reps; r++)
    {
      PfaRun run;

      if (!pfa_once (pfa, s, p32, d_prof, (guint) block, d_out, e0, e1, &run, &error))
        goto fail;
      best.wall_ms = MIN (best.wall_ms, run.wall_ms);
    }
  ef_cuda_pfa_set_timing (pfa, TRUE);
  stage_sum = G_MAXDOUBLE;
  for (gint r = 0; r < reps; r++)
    {
      PfaRun run;
      double sum;

      if (!pfa_once (pfa, s, p32, d_prof, (guint) block, d_out, e0, e1, &run, &error))
        goto fail;
      sum = run.st.fft_ms + run.st.grid_ms + run.st.fft2d_ms + run.st.correct_ms;
      fprintf (stderr, "rep %d: profile FFTs %.3f ms, gridding %.3f ms, grid FFT %.3f ms, correction %.3f ms\n",
               r, run.st.fft_ms, run.st.grid_ms, run.st.fft2d_ms, run.st.correct_ms);
      if (sum < stage_sum)
        {
          stage_sum = sum;
          best.st = run.st;
        }
    }
  ef_cuda_pfa_set_spread (pfa, EF_CUDA_PFA_SPREAD_GLOBAL);
  if (!pfa_once (pfa, s, p32, d_prof, (guint) block, d_out, e0, e1, &glob, &error))
    goto fail;
  ef_cuda_pfa_set_spread (pfa, EF_CUDA_PFA_SPREAD_AUTO);
  ef_cuda_pfa_set_timing (pfa, FALSE);
  /* The image compared: formed once more (tiled spreading), the output poisoned first, with the report. */
  if (!pfa_once (pfa, s, p32, d_prof, (guint) block, d_out, e0, e1, &last, &error))
    goto fail;
  if (!check (cudaMemset (d_out, 0xff, n * sizeof (EfCf32)), "poison")
      || !ef_cuda_pfa_form (pfa, s, d_out, &rep, &error))
    goto fail;
  pfa_img = g_try_new (EfCf32, n);
  bp_img = g_try_new (EfCf32, n);
  if (pfa_img == NULL || bp_img == NULL
      || !check (cudaMemcpy (pfa_img, d_out, n * sizeof (EfCf32), cudaMemcpyDeviceToHost),
                 "image to the host"))
    return 1;
  fprintf (stderr, "PFA: grid %u x %u cells (lattice %u x %u), %" G_GUINT64_FORMAT " spectral samples; first "
           "block (allocation, plans) %.1f ms; QPE %.3f rad (r_max %.0f m, ROI radius %.0f m)%s; distortion "
           "undone %.4f m\n", best.st.grid_u, best.st.grid_v, best.st.lattice_u, best.st.lattice_v,
           best.st.n_samples, setup_ms, rep.qpe_max_rad, rep.r_max_m, rep.roi_radius_m,
           rep.outside_dof ? ", OUTSIDE the depth of focus" : "", rep.distortion_max_m);
  fprintf (stderr, "PFA stages (best of %d): profile FFTs %.3f ms, gridding %.3f ms (every tap a global "
           "atomic: %.3f ms), grid copy + 2-D FFT %.3f ms, lattice + correction %.3f ms; sum %.3f ms; formed "
           "untimed in %.3f ms\n", reps, best.st.fft_ms, best.st.grid_ms, glob.st.grid_ms, best.st.fft2d_ms,
           best.st.correct_ms, stage_sum, best.wall_ms);
  /* Backprojection needs the memory. */
  g_clear_pointer (&pfa, ef_cuda_pfa_free);
  if (!check (cudaFree (d_prof), "cudaFree"))
    return 1;
  d_prof = NULL;

  if (!no_bp)
    {
      g_autofree EfCf64 *ref = NULL;

      /* Exact backprojection through the backend at the same upsampling, and the backend's range
       * compression of the same block for PFA. */
      if (!backend_times (&ds->info, ds->pulses, samples_buf, (guint) pulses, &grid, &rp, EF_ALGO_BP, reps, bp_img,
                          &bp_rc_ms, &bp_ms, &error)
          || !backend_times (&ds->info, ds->pulses, samples_buf, (guint) pulses, &grid, &rp, EF_ALGO_PFA, reps, NULL,
                             &pfa_rc_ms, &pfa_add_ms, &error))
        goto fail;
      ser = ef_ser_db_f32 (pfa_img, bp_img, n);
      t0 = g_get_monotonic_time ();
      ref = ef_ref_bp_form (&ds->info, ds->pulses, samples_buf, (guint) pulses, &rp, &grid, &error);
      if (ref == NULL)
        goto fail;
      ser64 = ef_ser_db_f32_f64 (pfa_img, ref, n);
      bp_ser64 = ef_ser_db_f32_f64 (bp_img, ref, n);
      fprintf (stderr, "BP (exact, fp32, through the backend): range compression and pair table %.2f ms, kernel "
               "%.2f ms (%.3g pixel-pulses/s); PFA: range compression %.2f ms, formation %.2f ms. At upsampling "
               "%d, range compression included: PFA %.2fx faster than BP (%.1f against %.1f ms); kernels alone "
               "%.1fx. Whole image: PFA against BP %.1f dB, against float64 %.1f dB; BP against float64 %.1f dB "
               "(float64 in %.1f s)\n",
               bp_rc_ms, bp_ms, (double) n * pulses / (bp_ms * 1e-3), pfa_rc_ms, best.wall_ms, upsample,
               (bp_rc_ms + bp_ms) / (pfa_rc_ms + best.wall_ms), pfa_rc_ms + best.wall_ms, bp_rc_ms + bp_ms,
               bp_ms / best.wall_ms, ser, ser64, bp_ser64, (g_get_monotonic_time () - t0) * 1e-6);
      if (isnan (min_ser))
        printf ("PASS bench-cuda-pfa %s: PFA SER %.1f dB against float64 over the whole image (no bound at "
                "upsampling %d)\n", label ? label : "-", ser64, upsample);
      else
        {
          pass = ser64 >= min_ser;
          printf ("%s bench-cuda-pfa %s: PFA SER %.1f dB against float64 over the whole image (bound %.1f dB)\n",
                  pass ? "PASS" : "FAIL", label ? label : "-", ser64, min_ser);
        }
    }
  /* label, device, edge, pulses, samples, bins, standoff, grid edge, profile FFTs, gridding, gridding with
   * global atomics, 2-D FFT, correction, formed untimed, first block, BP kernel (ms), SER against BP (dB),
   * QPE, outside, BP's range compression and pair table (ms), PFA's range compression (ms), x BP with range
   * compression (same upsampling), x BP kernels alone, PFA SER against float64, BP SER against float64 (whole
   * image, dB) */
  printf ("RESULT\t%s\t%s\t%d\t%d\t%d\t%u\t%.0f\t%u\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.2f\t%.1f"
          "\t%.4f\t%d\t%.3f\t%.3f\t%.2f\t%.2f\t%.1f\t%.1f\n", label ? label : "-", dev, edge, pulses, samples,
          p32->n_bins, standoff, best.st.grid_u, best.st.fft_ms, best.st.grid_ms, glob.st.grid_ms, best.st.fft2d_ms,
          best.st.correct_ms, best.wall_ms, setup_ms, bp_ms, ser, rep.qpe_max_rad, rep.outside_dof, bp_rc_ms,
          pfa_rc_ms, (bp_rc_ms + bp_ms) / (pfa_rc_ms + best.wall_ms), bp_ms / best.wall_ms, ser64, bp_ser64);
  if (!check (cudaFree (d_out), "cudaFree") || !check (cudaEventDestroy (e0), "cudaEventDestroy")
      || !check (cudaEventDestroy (e1), "cudaEventDestroy")
      || !check (cudaStreamDestroy (s), "cudaStreamDestroy"))
    return 1;
  return pass ? 0 : 1;

fail:
  fprintf (stderr, "bench-cuda-pfa: %s\n", error ? error->message : "failed");
  return 1;
}
