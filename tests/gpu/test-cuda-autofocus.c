/* test-cuda-autofocus.c: PGA and sharpness autofocus estimated on a CUDA device against the same estimate on the CPU. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cuda/ef-cuda.h"
#include "ef-error.h"
#include "ef-focus.h"
#include "ef-focus-sweep.h"
#include "ef-focus-private.h"
#include "ef-test-focus.h"

/* The device's corrections against the CPU's, both formed in fp32: RMS of the difference about its
 * line. Both form the same images to fp32 accuracy and then take the same steps on the host, so they
 * differ by what fp32 changes in an estimate. That was measured on the CPU: its fp32 estimate is
 * within EF_TEST_FOCUS_FP32_FP64_RAD (1e-5, twice the worst of 36 scenes) of its fp64 one
 * (test-autofocus's /compute/focus/precision checks it), from images 99.5 dB from float64; the device's
 * fp32 images are closer (114 dB, README), so the two fp32 estimates should be within twice that. Ten
 * times the bound leaves room for the device's own sines and its order of summation; a step taken on
 * one side only (an iteration more, a rejected PGA step) would show as 1e-3 rad or more, and fail. */
#define GPU_AGREE_RAD (10 * EF_TEST_FOCUS_FP32_FP64_RAD)

typedef struct {
  EfFocusMethod method;
  EfTestErrKind kind;
  double        rms_rad;
  gboolean      spaceborne;
  gboolean      clutter;
} Case;

/* The device's sweep sums against the host's (both in double; only the order of summation differs). */
#define SWEEP_SUM_REL 1e-10

static void
estimate (EfDataset *ds, const Case *tc, EfBackendKind kind, gboolean host_sums, EfFocusResult *fr)
{
  g_autoptr (GError) error = NULL;
  EfFocusParams fp;

  ef_focus_params_init (&fp, tc->method);
  fp.extent_m = 16;
  fp.backend = kind;
  fp.host_sums = host_sums;
  g_assert_true (ef_focus_run (ds, &fp, fr, &error));
  g_assert_no_error (error);
}

static void
test_case (gconstpointer data)
{
  const Case *tc = data;
  g_autoptr (EfDataset) clean = ef_test_focus_scene (tc->spaceborne, tc->clutter);
  guint n = (guint) clean->info.n_pulses;
  g_autofree double *err = ef_test_focus_error (tc->kind, n, tc->rms_rad);
  g_autofree double *zeros = g_new0 (double, n);
  g_autoptr (EfDataset) bad = ef_test_focus_with_error (clean, err);
  g_autoptr (EfDataset) fixed = NULL;
  g_autoptr (EfImage) ref = NULL, focused = NULL;
  g_autoptr (GError) error = NULL;
  g_auto (EfFocusResult) cpu = { 0 };
  g_auto (EfFocusResult) gpu = { 0 };
  g_auto (EfFocusResult) gpu_host = { 0 };
  EfGrid grid;
  double agree, res_gpu, res_cpu, worst_pslr, worst_irw;

  estimate (bad, tc, EF_BACKEND_CPU, FALSE, &cpu);
  estimate (bad, tc, EF_BACKEND_CUDA, FALSE, &gpu);
  g_assert_cmpstr (cpu.backend, ==, "cpu");
  g_assert_cmpstr (gpu.backend, ==, "cuda");
  g_assert_null (gpu.backend_note);
  g_assert_cmpuint (gpu.n_pulses, ==, n);
  /* The assertions do not stop a run that found a failure: nothing more to compare. */
  if (cpu.phase == NULL || gpu.phase == NULL)
    return;
  /* Images formed on the device, the estimator's sums (the sweeps, PGA's projections) on the host: the
   * device's sums alone told apart. */
  estimate (bad, tc, EF_BACKEND_CUDA, TRUE, &gpu_host);
  if (gpu_host.phase == NULL)
    return;
  g_assert_cmpstr (cpu.sums_backend, ==, "cpu");
  g_assert_cmpstr (gpu.sums_backend, ==, "cuda");
  g_assert_cmpstr (gpu_host.sums_backend, ==, "cpu");
  g_test_message ("sums on the device against the host's, the images formed on the device: %.2e rad RMS "
                  "(%u and %u iterations)", ef_test_focus_residual (gpu.phase, gpu_host.phase, n), gpu.iterations,
                  gpu_host.iterations);
  g_assert_cmpfloat (ef_test_focus_residual (gpu.phase, gpu_host.phase, n), <, GPU_AGREE_RAD);

  agree = ef_test_focus_residual (gpu.phase, cpu.phase, n);
  res_gpu = ef_test_focus_residual (err, gpu.phase, n);
  res_cpu = ef_test_focus_residual (err, cpu.phase, n);
  g_test_message ("%s, %s, %s%s: injected %.2f rad RMS (%.2f about its line); device against CPU %.2e rad RMS "
                  "(bound %.1e); residual %.4f rad on the device (%u iterations, %" G_GUINT64_FORMAT
                  " formations %.3f s, estimation %.3f s), %.4f on the CPU (%u iterations, %.3f s + %.3f s); "
                  "entropy %.4f -> %.4f",
                  ef_focus_method_to_string (tc->method), ef_test_err_name (tc->kind),
                  tc->spaceborne ? "spaceborne" : "airborne", tc->clutter ? " in clutter" : "", tc->rms_rad,
                  ef_test_focus_residual (err, zeros, n), agree, GPU_AGREE_RAD, res_gpu, gpu.iterations,
                  gpu.n_formations, gpu.form_s, gpu.estimate_s, res_cpu, cpu.iterations, cpu.form_s, cpu.estimate_s,
                  gpu.entropy_before, gpu.entropy_after);
  g_assert_cmpfloat (agree, <, GPU_AGREE_RAD);
  g_assert_cmpfloat (gpu.entropy_after, <, gpu.entropy_before);

  /* The device's correction focuses the region as the CPU test asks of the CPU's (formed on the
   * device too). */
  g_assert_true (ef_grid_init_roi (&grid, -7.5, -7.5, 7.5, 7.5, 0.1, &error));
  fixed = ef_dataset_new_phase_corrected (bad, gpu.phase, gpu.n_pulses, &error);
  g_assert_no_error (error);
  ref = ef_test_focus_form (clean, &grid, EF_ALGO_BP, EF_BACKEND_CUDA);
  focused = ef_test_focus_form (fixed, &grid, EF_ALGO_BP, EF_BACKEND_CUDA);
  ef_test_focus_compare (ref, focused, &worst_pslr, &worst_irw);
  g_test_message ("worst over the targets: PSLR %.3f dB, IRW %.2f%%", worst_pslr, 100 * worst_irw);
  g_assert_cmpfloat (res_gpu, <, EF_TEST_FOCUS_RESIDUAL_TOL_RAD);
  g_assert_cmpfloat (worst_pslr, <, tc->clutter ? EF_TEST_FOCUS_CLUTTER_PSLR_TOL_DB : EF_TEST_FOCUS_PSLR_TOL_DB);
  g_assert_cmpfloat (worst_irw, <, EF_TEST_FOCUS_IRW_TOL_REL);
}

/* The device's sweep step (ef-cuda-focus.cu) against the host's ef_focus_sweep_step on random blocks:
 * the same sums, the previous block's change into the sum included, over a pixel count that is no
 * multiple of the kernel's blocks; and the sum it keeps (read through one more step). */
static void
test_sweep_sums (void)
{
  const EfFocusSweepProvider *dev = ef_focus_sweep_get ("cuda");
  g_autoptr (EfDataset) ds = ef_test_focus_scene (FALSE, FALSE);
  g_autoptr (EfBackend) be = NULL;
  g_autoptr (GError) error = NULL;
  EfBackendParams bp = { 0 };
  const guint64 n_blocks = 5;
  const gsize npix = 70001;
  g_autofree EfCf32 *blocks = g_new (EfCf32, n_blocks * npix);
  g_autofree EfCf64 *img = g_new0 (EfCf64, npix);
  EfFocusSweeper *sw;
  double worst = 0;

  g_assert_nonnull (dev);
  if (dev == NULL)
    return;
  g_assert_true (ef_grid_init_roi (&bp.grid, -4, -4, 4, 4, 0.1, &error));
  bp.range = EF_RANGE_PARAMS_DEFAULT;
  bp.precision = EF_PRECISION_FP32;
  bp.algo = EF_ALGO_BP;
  bp.block_size = 64;
  bp.device = -1;
  be = ef_backend_new (EF_BACKEND_CUDA, &ds->info, &bp, NULL, &error);
  g_assert_no_error (error);
  if (be == NULL)
    return;
  sw = dev->create (be, n_blocks, npix, &error);
  g_assert_no_error (error);
  if (sw == NULL)
    return;
  for (gsize i = 0; i < n_blocks * npix; i++)
    blocks[i] = (float) g_test_rand_double_range (-1, 1) + I * (float) g_test_rand_double_range (-1, 1);
  for (guint64 k = 0; k < n_blocks; k++)
    {
      g_assert_true (dev->set_block (sw, k, blocks + k * npix, &error));
      ef_focus_sweep_add (blocks + k * npix, 1.0, img, npix, 0);
    }
  for (guint round = 0; round < 2; round++)
    {
      gint64 prev = -1;
      EfCf64 change = 0;

      for (guint64 k = 0; k < n_blocks; k++)
        {
          EfCf64 rot = cexp (I * g_test_rand_double_range (-G_PI, G_PI)), a0, b0, a1, b1;
          double ea, eb;

          ef_focus_sweep_step (prev >= 0 ? blocks + prev * npix : NULL, change, blocks + k * npix, rot, img, npix, 0,
                               &a0, &b0);
          g_assert_true (dev->step (sw, prev, change, k, rot, &a1, &b1, &error));
          g_assert_no_error (error);
          ea = cabs (a1 - a0) / cabs (a0);
          eb = cabs (b1 - b0) / cabs (b0);
          worst = MAX (worst, MAX (ea, eb));
          prev = (gint64) k;
          change = cexp (I * g_test_rand_double_range (-G_PI, G_PI)) - rot;
        }
      g_assert_true (dev->add (sw, (guint64) prev, change, &error));
      ef_focus_sweep_add (blocks + prev * npix, change, img, npix, 0);
    }
  dev->free (sw);
  g_test_message ("device sweep sums against the host's: worst relative difference %.2e (bound %.0e)", worst,
                  SWEEP_SUM_REL);
  g_assert_cmpfloat (worst, <, SWEEP_SUM_REL);
}

/* PGA's projections on the device against the host's fast way and both against the exact way: random
 * patches of a blurred image formed on the device, both geometries, one-row patches as PGA's classical
 * stage takes them and tall wide ones as its wide stage does, more patches than the estimator hands over
 * at a time, patches at the grid's edges. The two fast ways take the same sums in double, but near a
 * patch's centre the band's Dirichlet kernel is the ratio of two sines that both vanish, each followed
 * by its own recurrence: there the last bits of either side's sines and square roots decide (measured
 * on an H100: 3e-10 to 1.1e-6 apart, where the host's fast way is 1.1e-6 from the exact way). So the
 * device is held to the exact way as the host is: no further from it than twice the host's fast way
 * (and within the CPU test's bound), and to the host's within twice the host's own error. */
static void
test_pga_spectra (void)
{
  const EfFocusSweepProvider *dev = ef_focus_sweep_get ("cuda");
  double worst_ratio = 0, worst_exact = 0;

  g_assert_nonnull (dev);
  if (dev == NULL || dev->pga_create == NULL)
    return;
  for (int sb = 0; sb < 2; sb++)
    {
      g_autoptr (EfDataset) bad = NULL;
      g_autoptr (GError) error = NULL;
      g_autofree double *table = NULL;
      EfPgaPatch patch[24];
      EfPgaGeometry geo;
      EfPgaProjector *proj;
      EfFocusCtx c;
      g_autofree EfCf32 *img = ef_test_focus_pga_image (sb, EF_BACKEND_CUDA, &bad, &c);
      guint n;

      if (img == NULL)
        return;
      n = (guint) bad->info.n_pulses;
      ef_pga_geometry_init (&c, &geo, &table);
      proj = dev->pga_create (c.be, &geo, &error);
      g_assert_no_error (error);
      if (proj == NULL)
        {
          ef_focus_ctx_clear (&c);
          return;
        }
      g_assert_true (dev->pga_set_image (proj, img, &error));
      for (int wide = 0; wide < 2; wide++)
        {
          guint win = wide ? (guint) g_test_rand_int_range (c.grid.width / 2, c.grid.width + 1)
                           : (guint) g_test_rand_int_range (8, 80);
          guint half_h = wide ? (guint) g_test_rand_int_range (2, 16) : 0;
          guint np = wide ? 7 : G_N_ELEMENTS (patch);
          g_autofree EfCf64 *host = g_new (EfCf64, (gsize) n * np);
          g_autofree EfCf64 *exact = g_new (EfCf64, (gsize) n * np);
          g_autofree EfCf64 *on_dev = g_new (EfCf64, (gsize) n * np);
          double se = 0, sx = 0, sh = 0, ss = 0;

          for (guint j = 0; j < np; j++)
            patch[j] = (EfPgaPatch) { (guint) g_test_rand_int_range (0, c.grid.height),
                                      (guint) g_test_rand_int_range (0, c.grid.width) };
          patch[0] = (EfPgaPatch) { 0, 0 };
          patch[1] = (EfPgaPatch) { c.grid.height - 1, c.grid.width - 1 };
          for (gsize i = 0; i < (gsize) n * np; i++)
            host[i] = exact[i] = on_dev[i] = NAN;
          ef_pga_patch_spectra (&c, img, patch, np, win, half_h, FALSE, 0, host);
          ef_pga_patch_spectra (&c, img, patch, np, win, half_h, TRUE, 0, exact);
          g_assert_true (dev->pga_spectra (proj, patch, np, win, half_h, on_dev, &error));
          g_assert_no_error (error);
          for (gsize i = 0; i < (gsize) n * np; i++)
            {
              se += cabs (on_dev[i] - host[i]) * cabs (on_dev[i] - host[i]);
              sx += cabs (on_dev[i] - exact[i]) * cabs (on_dev[i] - exact[i]);
              sh += cabs (host[i] - exact[i]) * cabs (host[i] - exact[i]);
              ss += cabs (exact[i]) * cabs (exact[i]);
            }
          g_assert_true (isfinite (se) && isfinite (sx) && isfinite (sh) && ss > 0 && sh > 0);
          g_test_message ("%s, %u x %u grid, %u patches of %u x %u (relative L2): device against the host's fast "
                          "way %.3e; against the exact way %.3e, the host's fast way %.3e", sb ? "spaceborne" : "airborne",
                          c.grid.width, c.grid.height, np, win, 2 * half_h + 1, sqrt (se / ss), sqrt (sx / ss),
                          sqrt (sh / ss));
          g_assert_cmpfloat (sqrt (sx), <=, 2 * sqrt (sh));
          g_assert_cmpfloat (sqrt (se), <=, 2 * sqrt (sh));
          worst_ratio = MAX (worst_ratio, sqrt (sx / sh));
          worst_exact = MAX (worst_exact, sqrt (sx / ss));
        }
      dev->pga_free (proj);
      ef_focus_ctx_clear (&c);
    }
  g_test_message ("worst: the device %.3e from the exact way (the CPU test's bound 5e-4), %.2f times the host's "
                  "fast way's error", worst_exact, worst_ratio);
  g_assert_cmpfloat (worst_exact, <, 5e-4);
}

/* Asked for fp64, which the device does not form: CUDA by name is refused with NO_DEVICE and the
 * reason; an automatic choice falls back to the CPU and says why, in the result. */
static void
test_fallback (void)
{
  g_autoptr (EfDataset) clean = ef_test_focus_scene (FALSE, FALSE);
  guint n = (guint) clean->info.n_pulses;
  g_autofree double *err = ef_test_focus_error (EF_TEST_ERR_QUADRATIC, n, 2.0);
  g_autoptr (EfDataset) bad = ef_test_focus_with_error (clean, err);
  g_autoptr (GError) error = NULL;
  g_auto (EfFocusResult) fr = { 0 };
  EfFocusParams fp;

  ef_focus_params_init (&fp, EF_FOCUS_PGA);
  fp.extent_m = 16;
  fp.precision = EF_PRECISION_FP64;
  fp.backend = EF_BACKEND_CUDA;
  g_assert_false (ef_focus_run (bad, &fp, &fr, &error));
  g_assert_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_DEVICE);
  g_test_message ("CUDA asked for at fp64: %s", error->message);
  g_clear_error (&error);

  fp.backend = EF_BACKEND_AUTO;
  g_assert_true (ef_focus_run (bad, &fp, &fr, &error));
  g_assert_no_error (error);
  if (fr.phase == NULL)
    return;
  g_assert_cmpstr (fr.backend, ==, "cpu");
  g_assert_nonnull (fr.backend_note);
  g_test_message ("automatic at fp64: %s", fr.backend_note);
  g_assert_cmpfloat (ef_test_focus_residual (err, fr.phase, n), <, EF_TEST_FOCUS_RESIDUAL_TOL_RAD);
}

int
main (int argc, char **argv)
{
  static const Case cases[] = {
    { EF_FOCUS_PGA, EF_TEST_ERR_QUADRATIC, 2.0, FALSE, FALSE },
    { EF_FOCUS_PGA, EF_TEST_ERR_SINUSOID, 1.5, FALSE, FALSE },
    { EF_FOCUS_PGA, EF_TEST_ERR_SINUSOID, 1.0, TRUE, FALSE },
    { EF_FOCUS_PGA, EF_TEST_ERR_QUADRATIC, 2.0, FALSE, TRUE },
    { EF_FOCUS_PGA, EF_TEST_ERR_RANDOM_WALK, 1.5, FALSE, FALSE },
    { EF_FOCUS_SHARPNESS, EF_TEST_ERR_QUADRATIC, 2.0, FALSE, FALSE },
    { EF_FOCUS_SHARPNESS, EF_TEST_ERR_RANDOM_WALK, 1.5, FALSE, FALSE },
    { EF_FOCUS_SHARPNESS, EF_TEST_ERR_RANDOM_WALK, 2.5, TRUE, FALSE },
    { EF_FOCUS_SHARPNESS, EF_TEST_ERR_RANDOM_WALK, 1.5, FALSE, TRUE },
  };
  g_autofree char *why = NULL;
  g_autofree char *name = NULL;

  g_test_init (&argc, &argv, NULL);
  /* One device run should report everything that is wrong. */
  g_test_set_nonfatal_assertions ();
  if (!ef_cuda_available (&why))
    {
      /* 77: meson reports the test as skipped, never as passed. */
      printf ("# SKIP %s\n", why);
      return 77;
    }
  name = ef_cuda_device_name (-1);
  g_test_message ("device: %s", name);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *path = g_strdup_printf ("/compute/cuda/focus/%s/%s%s/%s",
                                               ef_focus_method_to_string (cases[i].method),
                                               cases[i].spaceborne ? "spaceborne" : "airborne",
                                               cases[i].clutter ? "-clutter" : "", ef_test_err_name (cases[i].kind));
      g_test_add_data_func (path, &cases[i], test_case);
    }
  g_test_add_func ("/compute/cuda/focus/sweep-sums", test_sweep_sums);
  g_test_add_func ("/compute/cuda/focus/pga-spectra", test_pga_spectra);
  g_test_add_func ("/compute/cuda/focus/fallback", test_fallback);
  return g_test_run ();
}
