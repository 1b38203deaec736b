/* test-verify.c: checking a formed image against exact float64 backprojection at sampled pixels. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <complex.h>
#include <math.h>
#include <string.h>

#include "ef-error.h"
#include "ef-ffbp.h"
#include "ef-job.h"
#include "ef-metrics.h"
#include "ef-test-scene.h"
#include "ef-verify.h"

/* A dense scene of random point targets over the whole region, so that every sampled pixel carries
 * signal and sidelobes from many of them. */
static EfDataset *
scene (guint n_pulses)
{
  EfSimParams sp;
  g_autofree EfSimTarget *tg = ef_test_random_targets (300, -12, -12, 12, 12);
  g_autoptr (GError) error = NULL;
  EfDataset *ds;

  ef_sim_params_init_airborne (&sp);
  sp.n_pulses = n_pulses;
  sp.n_samples = 256;
  sp.targets = tg;
  sp.n_targets = 300;
  sp.seed = g_test_rand_int ();
  ds = ef_sim_run (&sp, &error);
  g_assert_no_error (error);
  return ds;
}

/* The image a CPU job forms, as the desktop program reads it. */
static EfCf32 *
job_image (EfDataset *ds, const EfJobParams *jp)
{
  g_autoptr (EfJob) job = NULL;
  g_autoptr (GError) error = NULL;
  const EfGrid *g = &jp->backend.grid;
  EfRect all = { 0, 0, g->width, g->height };
  EfCf32 *out = g_new (EfCf32, ef_grid_n_pixels (g));

  /* Poisoned first: a read that fails to fill it shows. */
  for (gsize i = 0; i < ef_grid_n_pixels (g); i++)
    out[i] = NAN;
  job = ef_job_new (ds, jp, &error);
  g_assert_no_error (error);
  g_assert_true (ef_job_run (job, NULL, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (ef_job_read_image (job, &all, out, NULL));
  return out;
}

static double
verify (EfDataset *ds, const EfJobParams *jp, const EfCf32 *image, guint n_pixels, guint64 seed,
        EfVerifyResult *res)
{
  g_autoptr (GError) error = NULL;
  EfVerifyParams vp;
  EfVerifyResult local;

  if (res == NULL)
    res = &local;
  ef_verify_params_init (&vp);
  vp.n_pixels = n_pixels;
  vp.seed = seed;
  vp.first_pulse = jp->first_pulse;
  vp.n_pulses = jp->n_pulses;
  vp.pulse_stride = jp->pulse_stride;
  g_assert_true (ef_verify_image (ds, &jp->backend.range, &jp->backend.grid, image, &vp, NULL, res, &error));
  g_assert_no_error (error);
  return res->ser_db;
}

/* Exact BP in float32 is 90 dB and more from float64 at any sample; the whole grid sampled gives the
 * same SER as comparing the whole image with a float64 image formed directly. */
static void
test_bp (void)
{
  g_autoptr (EfDataset) ds = scene (256);
  g_autofree EfCf32 *img = NULL;
  g_autofree EfCf64 *ref = NULL;
  EfJobParams jp;
  EfGrid grid;
  EfVerifyResult res;
  double ser, whole;

  g_assert_true (ef_grid_init_roi (&grid, -12, -12, 12, 12, 0.1, NULL));
  ef_job_params_init (&jp, &grid);
  jp.backend.block_size = 64;
  img = job_image (ds, &jp);
  ser = verify (ds, &jp, img, 256, 7, &res);
  g_test_message ("BP fp32: SER %.1f dB over %u pixels, %" G_GUINT64_FORMAT " pulses, %.3f s", ser,
                  res.n_pixels, res.n_pulses, res.seconds);
  g_assert_cmpuint (res.n_pixels, ==, 256);
  g_assert_cmpuint (res.n_pulses, ==, 256);
  g_assert_cmpfloat (res.ref_rms, >, 0);
  /* tests/bench/RESULTS.md: 97.5-104.0 dB on this scene over 200 seeds (README.md: the float32 path above 90 dB everywhere). */
  g_assert_cmpfloat (ser, >, 95);

  /* The same seed samples the same pixels; another seed others, with much the same result. */
  g_assert_cmpfloat (verify (ds, &jp, img, 256, 7, NULL), ==, ser);
  g_test_message ("another sample of 256 pixels: %.1f dB", verify (ds, &jp, img, 256, 8, NULL));
  /* 256 pixels are a small sample: two of them differ by up to 5 dB (200 seeds). */
  g_assert_cmpfloat (fabs (verify (ds, &jp, img, 256, 8, NULL) - ser), <, 6);

  /* Every pixel of a small grid: the sample is the image. */
  g_assert_true (ef_grid_init_roi (&grid, -3, -2, 3, 2, 0.25, NULL));
  ef_job_params_init (&jp, &grid);
  jp.backend.block_size = 100;
  g_clear_pointer (&img, g_free);
  img = job_image (ds, &jp);
  ser = verify (ds, &jp, img, 100000, 1, &res);
  g_assert_cmpuint (res.n_pixels, ==, ef_grid_n_pixels (&grid));
  ref = ef_test_form_fp64 (ds, &grid, &jp.backend.range);
  whole = ef_ser_db_f32_f64 (img, ref, ef_grid_n_pixels (&grid));
  g_test_message ("whole grid: %.4f dB sampled, %.4f dB against a float64 image", ser, whole);
  g_assert_cmpfloat (fabs (ser - whole), <, 1e-6);
}

/* FFBP, as the CPU backend runs it on one block of 512 pulses: some 50 dB from exact backprojection. */
static void
test_ffbp (void)
{
  g_autoptr (EfDataset) ds = scene (512);
  g_autoptr (EfProfiles) prof = NULL;
  g_autoptr (EfFfbp) ffbp = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree EfCf32 *img = NULL;
  EfFfbpParams fp;
  EfFfbpStats stats;
  EfJobParams jp;
  EfGrid grid;
  EfVerifyResult res;
  double ser;

  g_assert_true (ef_grid_init_roi (&grid, -12, -12, 12, 12, 0.05, NULL));
  ef_job_params_init (&jp, &grid);
  prof = ef_test_compress (ds, &jp.backend.range, FALSE);
  ef_ffbp_params_init (&fp);
  ffbp = ef_ffbp_new (&grid, ds->info.bandwidth, &fp, &error);
  g_assert_no_error (error);
  img = g_new0 (EfCf32, ef_grid_n_pixels (&grid));
  g_assert_true (ef_ffbp_process (ffbp, prof, NULL, img, &stats, &error));
  g_assert_no_error (error);
  g_test_message ("FFBP: %u leaves of %u pulses, %u stages, estimated %.1fx, used BP: %s", stats.n_leaves,
                  stats.leaf_pulses, stats.n_stages, stats.est_speedup, stats.used_bp ? stats.why_bp : "no");
  g_assert_false (stats.used_bp);

  ser = verify (ds, &jp, img, 256, 3, &res);
  g_test_message ("FFBP: SER %.1f dB over %u pixels (%.3f s)", ser, res.n_pixels, res.seconds);
  /* tests/bench/RESULTS.md: 49.6-58.7 dB over 200 seeds (the CPU's FFBP: 51-55 dB from float64 over
   * whole images of random scenes). */
  g_assert_cmpfloat (ser, >, 47);
  g_assert_cmpfloat (ser, <, 62);
}

/* An image with errors of a known level reads that level; one formed from other pulses, or not at all,
 * reads low. */
static void
test_perturbed (void)
{
  g_autoptr (EfDataset) ds = scene (200);
  g_autofree EfCf32 *img = NULL;
  g_autofree EfCf32 *noisy = NULL;
  g_autofree EfCf32 *zero = NULL;
  EfJobParams jp, other;
  EfGrid grid;
  EfVerifyResult res;
  double ser, rms;
  gsize n;

  g_assert_true (ef_grid_init_roi (&grid, -10, -10, 10, 10, 0.1, NULL));
  ef_job_params_init (&jp, &grid);
  /* Every third pulse from the 11th: the check must use the same ones. */
  jp.first_pulse = 10;
  jp.pulse_stride = 3;
  jp.backend.block_size = 16;
  img = job_image (ds, &jp);
  g_assert_cmpfloat (verify (ds, &jp, img, 256, 5, &res), >, 95);
  g_assert_cmpuint (res.n_pulses, ==, (200 - 10 + 2) / 3);
  rms = res.ref_rms;
  other = jp;
  other.pulse_stride = 1;
  ser = verify (ds, &other, img, 256, 5, NULL);
  g_test_message ("the same image checked against every pulse: %.1f dB", ser);
  /* tests/bench/RESULTS.md: 2.0-3.3 dB. */
  g_assert_cmpfloat (ser, <, 6.3);

  /* Complex Gaussian errors 20 dB below the image's power: 20 dB, within the sample's spread (the error
   * power of 256 pixels has a standard deviation of 6%, 0.27 dB). */
  n = ef_grid_n_pixels (&grid);
  noisy = g_memdup2 (img, n * sizeof (EfCf32));
  for (gsize i = 0; i < n; i++)
    {
      double u1 = g_test_rand_double_range (1e-12, 1), u2 = g_test_rand_double_range (0, 1);
      double a = rms * 0.1 * sqrt (-log (u1));

      noisy[i] += (float) (a * cos (2 * G_PI * u2)) + I * (float) (a * sin (2 * G_PI * u2));
    }
  ser = verify (ds, &jp, noisy, 256, 5, NULL);
  g_test_message ("with errors at -20 dB: %.2f dB", ser);
  g_assert_cmpfloat (fabs (ser - 20), <, 1.2);

  /* Nothing formed: all error. */
  zero = g_new0 (EfCf32, n);
  g_assert_cmpfloat_with_epsilon (verify (ds, &jp, zero, 256, 5, NULL), 0.0, 1e-9);
}

static void
test_errors (void)
{
  g_autoptr (EfDataset) ds = scene (64);
  g_autoptr (GCancellable) cancel = g_cancellable_new ();
  g_autoptr (GError) error = NULL;
  g_autofree EfCf32 *img = NULL;
  EfVerifyParams vp;
  EfVerifyResult res;
  EfRangeParams rp = EF_RANGE_PARAMS_DEFAULT;
  EfGrid grid;

  g_assert_true (ef_grid_init_roi (&grid, -2, -2, 2, 2, 0.1, NULL));
  img = g_new0 (EfCf32, ef_grid_n_pixels (&grid));
  ef_verify_params_init (&vp);
  g_cancellable_cancel (cancel);
  g_assert_false (ef_verify_image (ds, &rp, &grid, img, &vp, cancel, &res, &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_clear_error (&error);

  vp.first_pulse = 64;
  g_assert_false (ef_verify_image (ds, &rp, &grid, img, &vp, NULL, &res, &error));
  g_assert_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT);
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/compute/verify/bp", test_bp);
  g_test_add_func ("/compute/verify/ffbp", test_ffbp);
  g_test_add_func ("/compute/verify/perturbed", test_perturbed);
  g_test_add_func ("/compute/verify/errors", test_errors);
  return g_test_run ();
}
