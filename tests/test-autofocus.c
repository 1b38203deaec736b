/* test-autofocus.c: PGA and sharpness autofocus on point-target scenes with injected phase errors; the corrections file. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <complex.h>
#include <errno.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#include <json-glib/json-glib.h>

#include "ef-error.h"
#include "ef-focus.h"
#include "ef-focus-private.h"
#include "ef-job.h"
#include "ef-metrics.h"
#include "ef-sicd.h"
#include "ef-sim.h"
#include "ef-test-focus.h"

/* The scenes (ef-test-focus.c): five point targets, and with clutter 600 weak scatterers together as
 * bright as the brightest target; residuals there are 0.05-0.07 rad RMS for both methods, the
 * clutter's share of each estimate. */
static EfDataset *
simulate (gboolean spaceborne)
{
  return ef_test_focus_scene (spaceborne, FALSE);
}

static EfImage *
form_algo (EfDataset *ds, const EfGrid *grid, EfAlgo algo)
{
  return ef_test_focus_form (ds, grid, algo, EF_BACKEND_CPU);
}

static EfImage *
form (EfDataset *ds, const EfGrid *grid)
{
  return form_algo (ds, grid, EF_ALGO_BP);
}

typedef struct {
  EfFocusMethod method;
  EfTestErrKind kind;
  double        rms_rad;
  gboolean      spaceborne;
  gboolean      clutter;
  const char   *tag;         /* appended to the case's name, may be NULL */
  double        tol_rad;     /* the residual's bound, and the PSLR's (0: the Must-show bounds) */
  double        tol_pslr_db;
} Case;

static void
test_focus (gconstpointer data)
{
  const Case *tc = data;
  g_autoptr (EfDataset) clean = ef_test_focus_scene (tc->spaceborne, tc->clutter);
  guint n = (guint) clean->info.n_pulses;
  g_autofree double *err = ef_test_focus_error (tc->kind, n, tc->rms_rad);
  g_autofree double *zeros = g_new0 (double, n);
  g_autoptr (EfDataset) bad = ef_test_focus_with_error (clean, err);
  g_autoptr (EfDataset) fixed = NULL;
  g_autoptr (EfImage) ref = NULL, blurred = NULL, focused = NULL;
  g_autoptr (GError) error = NULL;
  g_auto (EfFocusResult) fr = { 0 };
  EfFocusParams fp;
  EfGrid grid;
  double res_rms, before_rms, worst_pslr = 0, worst_irw = 0;

  ef_focus_params_init (&fp, tc->method);
  fp.extent_m = 16;
  g_assert_true (ef_focus_run (bad, &fp, &fr, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (fr.n_pulses, ==, n);

  before_rms = ef_test_focus_residual (err, zeros, n);
  res_rms = ef_test_focus_residual (err, fr.phase, n);
  g_test_message ("%s, %s, %s%s: injected %.2f rad RMS about its line (%.2f), residual %.4f rad RMS after "
                  "%u iterations; entropy %.4f -> %.4f; sharpness %.4g -> %.4g",
                  ef_focus_method_to_string (tc->method), ef_test_err_name (tc->kind),
                  tc->spaceborne ? "spaceborne" : "airborne",
                  tc->clutter ? " in clutter" : "",
                  tc->rms_rad, before_rms, res_rms, fr.iterations, fr.entropy_before, fr.entropy_after,
                  fr.sharpness_before, fr.sharpness_after);
  g_assert_cmpfloat (fr.entropy_after, <, fr.entropy_before);

  /* The region formed by the job from the error-free data, the corrupted data, and the corrected. */
  g_assert_true (ef_grid_init_roi (&grid, -7.5, -7.5, 7.5, 7.5, 0.1, &error));
  fixed = ef_dataset_new_phase_corrected (bad, fr.phase, fr.n_pulses, &error);
  g_assert_no_error (error);
  ref = form (clean, &grid);
  blurred = form (bad, &grid);
  focused = form (fixed, &grid);
  g_test_message ("image entropy: error-free %.4f, with the error %.4f, corrected %.4f",
                  ef_image_entropy (ref->data, ef_grid_n_pixels (&grid)),
                  ef_image_entropy (blurred->data, ef_grid_n_pixels (&grid)),
                  ef_image_entropy (focused->data, ef_grid_n_pixels (&grid)));

  ef_test_focus_compare (ref, focused, &worst_pslr, &worst_irw);
  g_test_message ("worst over the targets: PSLR %.3f dB, IRW %.2f%%", worst_pslr, 100 * worst_irw);
  g_assert_cmpfloat (res_rms, <, tc->tol_rad > 0 ? tc->tol_rad : EF_TEST_FOCUS_RESIDUAL_TOL_RAD);
  g_assert_cmpfloat (worst_pslr, <, tc->tol_pslr_db > 0 ? tc->tol_pslr_db
                                    : tc->clutter     ? EF_TEST_FOCUS_CLUTTER_PSLR_TOL_DB
                                                      : EF_TEST_FOCUS_PSLR_TOL_DB);
  g_assert_cmpfloat (worst_irw, <, EF_TEST_FOCUS_IRW_TOL_REL);
}

/* The corrected dataset multiplies each pulse by exp(-j phase), undoing an injected exp(+j phase) to
 * float precision; and refuses a correction of the wrong length or with a NaN. */
static void
test_corrected_dataset (void)
{
  g_autoptr (EfDataset) clean = simulate (FALSE);
  guint n = (guint) clean->info.n_pulses, ns = (guint) clean->info.n_samples;
  g_autofree double *err = ef_test_focus_error (EF_TEST_ERR_RANDOM_WALK, n, 2.0);
  g_autoptr (EfDataset) bad = ef_test_focus_with_error (clean, err);
  g_autoptr (EfDataset) fixed = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree EfCf32 *a = g_new (EfCf32, (gsize) n * ns), *b = g_new (EfCf32, (gsize) n * ns);
  double se = 0, ss = 0;

  fixed = ef_dataset_new_phase_corrected (bad, err, n, &error);
  g_assert_no_error (error);
  g_assert_true (ef_dataset_read_block (clean, 0, n, a, NULL));
  g_assert_true (ef_dataset_read_block (fixed, 0, n, b, NULL));
  for (gsize i = 0; i < (gsize) n * ns; i++)
    {
      se += cabsf (a[i] - b[i]) * cabsf (a[i] - b[i]);
      ss += cabsf (a[i]) * cabsf (a[i]);
    }
  g_test_message ("corrected against error-free samples: %.1f dB", 10 * log10 (ss / se));
  g_assert_cmpfloat (10 * log10 (ss / se), >, 120);

  /* Every former reads the corrected pulses: each image of the corrected data is its image of the
   * error-free data, and far from its image of the data with the error. */
  {
    static const EfAlgo algos[] = { EF_ALGO_BP, EF_ALGO_FFBP, EF_ALGO_FBP, EF_ALGO_PFA };
    EfGrid grid;

    g_assert_true (ef_grid_init_roi (&grid, -6, -6, 6, 6, 0.1, &error));
    for (guint i = 0; i < G_N_ELEMENTS (algos); i++)
      {
        g_autoptr (EfImage) ref = form_algo (clean, &grid, algos[i]);
        g_autoptr (EfImage) cor = form_algo (fixed, &grid, algos[i]);
        g_autoptr (EfImage) blur = form_algo (bad, &grid, algos[i]);
        double ser = ef_ser_db_f32 (cor->data, ref->data, ef_grid_n_pixels (&grid));
        double ser_blur = ef_ser_db_f32 (blur->data, ref->data, ef_grid_n_pixels (&grid));

        g_test_message ("%s: corrected %.1f dB from the error-free image, with the error %.1f dB",
                        ef_algo_to_string (algos[i]), ser, ser_blur);
        g_assert_cmpfloat (ser, >, 130);
        g_assert_cmpfloat (ser_blur, <, 10);
      }
  }

  g_assert_null (ef_dataset_new_phase_corrected (bad, err, n - 1, &error));
  g_assert_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  err[7] = NAN;
  g_assert_null (ef_dataset_new_phase_corrected (bad, err, n, &error));
  g_assert_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT);
}

static char *
write_text (const char *dir, const char *name, const char *text)
{
  char *path = g_build_filename (dir, name, NULL);

  g_assert_true (g_file_set_contents (path, text, -1, NULL));
  return path;
}

static void
expect_read_error (const char *path, guint64 expect_n, GQuark domain, int code, const char *fragment)
{
  g_autoptr (GError) error = NULL;
  g_autofree double *phase = NULL;

  g_assert_false (ef_phase_file_read (path, expect_n, &phase, NULL, NULL, &error));
  g_assert_error (error, domain, code);
  g_test_message ("%s: %s", fragment, error->message);
  g_assert_nonnull (strstr (error->message, fragment));
  g_assert_null (phase);
}

/* The file round-trips every double exactly; bad files say what is wrong with them. */
static void
test_file (void)
{
  g_autofree char *dir = g_dir_make_tmp ("ef-phase-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "af.json", NULL);
  g_autofree char *p_count = NULL, *p_nan = NULL, *p_json = NULL, *p_str = NULL, *p_missing = NULL;
  g_autofree char *p_len = NULL, *p_fmt = NULL;
  g_autofree double *back = NULL, *phase = g_new (double, 300);
  g_autofree char *method = NULL;
  g_autoptr (GError) error = NULL;
  guint64 n = 0;
  const char *head = "{\"format\": \"echoform-phase-correction\", \"version\": 1, ";

  for (guint p = 0; p < 300; p++)
    phase[p] = g_test_rand_double_range (-40, 40) * pow (10, g_test_rand_int_range (-12, 3));
  g_assert_true (ef_phase_file_write (path, phase, 300, "pga", NULL, &error));
  g_assert_no_error (error);
  g_assert_true (ef_phase_file_read (path, 300, &back, &n, &method, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (n, ==, 300);
  g_assert_cmpstr (method, ==, "pga");
  g_assert_cmpmem (back, 300 * sizeof (double), phase, 300 * sizeof (double));

  /* Wrong pulse count for the collection. */
  expect_read_error (path, 299, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA, "the collection has 299");
  p_count = write_text (dir, "count.json", "{\"format\": \"echoform-phase-correction\", \"n_pulses\": 3, "
                        "\"phase_rad\": [1, 2]}");
  expect_read_error (p_count, 0, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA, "holds 2 values");
  p_nan = write_text (dir, "nan.json", "{\"format\": \"echoform-phase-correction\", \"n_pulses\": 3, "
                      "\"phase_rad\": [1, 1e999, 2]}");
  expect_read_error (p_nan, 3, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA, "pulse 1 is not finite");
  p_str = write_text (dir, "str.json", "{\"format\": \"echoform-phase-correction\", \"n_pulses\": 2, "
                      "\"phase_rad\": [1, null]}");
  expect_read_error (p_str, 2, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA, "pulse 1 is not a number");
  p_json = write_text (dir, "bad.json", "{\"format\": \"echoform-phase-correction\", [");
  expect_read_error (p_json, 0, EF_IO_ERROR, EF_IO_ERROR_FORMAT, "not JSON");
  p_fmt = write_text (dir, "fmt.json", "{\"n_pulses\": 1, \"phase_rad\": [0]}");
  expect_read_error (p_fmt, 0, EF_IO_ERROR, EF_IO_ERROR_FORMAT, "not a phase correction file");
  p_len = write_text (dir, "len.json", "[1, 2, 3]");
  expect_read_error (p_len, 0, EF_IO_ERROR, EF_IO_ERROR_FORMAT, "not an object");
  p_missing = g_build_filename (dir, "missing.json", NULL);
  expect_read_error (p_missing, 0, EF_IO_ERROR, EF_IO_ERROR_FAILED, "missing.json");
  (void) head;

  /* Writing refuses what reading would. */
  phase[3] = INFINITY;
  g_assert_false (ef_phase_file_write (path, phase, 300, "pga", NULL, &error));
  g_assert_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT);

  for (const char *const *f = (const char *const[]) { path, p_count, p_nan, p_str, p_json, p_fmt, p_len, NULL };
       *f != NULL; f++)
    g_remove (*f);
  g_rmdir (dir);
}

/* The blocks' images stay within the memory bound: a bound of half what a pulse each would take makes
 * blocks of 2 pulses, and the estimate still corrects a smooth error (a block's pulses share one
 * phase, so the error left is the error's variation within a block: small for a quadratic). */
static void
test_sharpness_blocks (void)
{
  g_autoptr (EfDataset) clean = simulate (FALSE);
  guint n = (guint) clean->info.n_pulses;
  g_autofree double *err = ef_test_focus_error (EF_TEST_ERR_QUADRATIC, n, 2.0);
  g_autoptr (EfDataset) bad = ef_test_focus_with_error (clean, err);
  g_autoptr (GError) error = NULL;
  g_auto (EfFocusResult) fr = { 0 };
  EfFocusParams fp;
  guint64 one_each;
  double res;

  ef_focus_params_init (&fp, EF_FOCUS_SHARPNESS);
  fp.extent_m = 8;
  fp.max_px = 64;
  one_each = (guint64) n * 64 * 64 * sizeof (EfCf32);
  fp.memory_bytes = one_each / 2;
  g_assert_true (ef_focus_run (bad, &fp, &fr, &error));
  g_assert_no_error (error);
  res = ef_test_focus_residual (err, fr.phase, n);
  g_test_message ("blocks of %u pulses in %" G_GUINT64_FORMAT " bytes (bound %" G_GUINT64_FORMAT " for the blocks "
                  "and %zu for the sum); residual %.4f rad RMS", fr.block_pulses, fr.memory_bytes, fp.memory_bytes,
                  (gsize) 64 * 64 * sizeof (EfCf64), res);
  g_assert_cmpuint (fr.block_pulses, ==, 2);
  g_assert_cmpuint (fr.memory_bytes, <=, fp.memory_bytes + 64 * 64 * sizeof (EfCf64));
  g_assert_cmpfloat (res, <, EF_TEST_FOCUS_RESIDUAL_TOL_RAD);
}

/* PGA's rows span the aperture's ambiguity extent n rho_x, where neighbouring pulses' spectral samples
 * are apart, whatever the region asked for (its range side stays); the sharpness method's grid stays
 * square. The random-walk cases above are what that buys: on the 16 m grid asked for, PGA left the
 * walk's orders above 32 cycles (16 m / 2 rho_x), 0.27 rad of 1.5. */
static void
test_pga_grid (void)
{
  g_autoptr (EfDataset) clean = ef_test_focus_scene (FALSE, FALSE);
  guint n = (guint) clean->info.n_pulses;
  g_autofree double *err = ef_test_focus_error (EF_TEST_ERR_RANDOM_WALK, n, 1.0);
  g_autoptr (EfDataset) bad = ef_test_focus_with_error (clean, err);
  g_auto (EfFocusResult) pga = { 0 };
  g_auto (EfFocusResult) sharp = { 0 };
  g_autoptr (GError) error = NULL;
  EfFocusParams fp;
  double rho_x;

  ef_focus_params_init (&fp, EF_FOCUS_PGA);
  fp.extent_m = 16;
  fp.max_iter = 1;
  g_assert_true (ef_focus_run (bad, &fp, &pga, &error));
  g_assert_no_error (error);
  ef_focus_params_init (&fp, EF_FOCUS_SHARPNESS);
  fp.extent_m = 16;
  fp.max_iter = 1;
  g_assert_true (ef_focus_run (bad, &fp, &sharp, &error));
  g_assert_no_error (error);
  /* The grid's spacing is half the finer resolution: the cross-range one here. */
  rho_x = 2 * pga.grid.spacing;
  g_test_message ("PGA grid %u x %u at %.4f m (n rho_x = %.1f m); sharpness grid %u x %u", pga.grid.width,
                  pga.grid.height, pga.grid.spacing, n * rho_x, sharp.grid.width, sharp.grid.height);
  g_assert_cmpfloat (pga.grid.width * pga.grid.spacing, >=, 0.98 * n * rho_x);
  g_assert_cmpfloat (pga.grid.height * pga.grid.spacing, <=, 16.0 + pga.grid.spacing);
  g_assert_cmpuint (sharp.grid.width, ==, sharp.grid.height);
  g_assert_cmpfloat (sharp.grid.width * sharp.grid.spacing, <=, 16.0 + sharp.grid.spacing);
}

/* PGA's per-pulse samples of a patch, the ranges followed along each row by a quadratic, against every
 * range and sine computed in double: random patches (centres, widths, heights) of a blurred image, both
 * geometries. Over 20 runs: 3e-5 to 2.3e-4 airborne (at 10 km, the cubic term the quadratic leaves
 * along a row), 1e-7 to 2e-6 spaceborne; the bound is about twice the worst. */
static void
test_pga_projection (void)
{
  double worst = 0;

  for (int sb = 0; sb < 2; sb++)
    {
      g_autoptr (EfDataset) bad = NULL;
      g_autofree EfCf64 *fast = NULL, *exact = NULL;
      EfPgaPatch patch[6];
      EfFocusCtx c;
      g_autofree EfCf32 *img = ef_test_focus_pga_image (sb, EF_BACKEND_CPU, &bad, &c);
      guint win, half_h, n;
      double se = 0, ss = 0;

      if (img == NULL)
        return;
      n = (guint) bad->info.n_pulses;
      win = (guint) g_test_rand_int_range (c.grid.width / 4, c.grid.width + 1);
      half_h = (guint) g_test_rand_int_range (2, 16);
      for (guint j = 0; j < G_N_ELEMENTS (patch); j++)
        patch[j] = (EfPgaPatch) { (guint) g_test_rand_int_range (0, c.grid.height),
                                  (guint) g_test_rand_int_range (0, c.grid.width) };
      fast = g_new (EfCf64, (gsize) n * G_N_ELEMENTS (patch));
      exact = g_new (EfCf64, (gsize) n * G_N_ELEMENTS (patch));
      for (gsize i = 0; i < (gsize) n * G_N_ELEMENTS (patch); i++)
        fast[i] = exact[i] = NAN;
      ef_pga_patch_spectra (&c, img, patch, G_N_ELEMENTS (patch), win, half_h, FALSE, 0, fast);
      ef_pga_patch_spectra (&c, img, patch, G_N_ELEMENTS (patch), win, half_h, TRUE, 0, exact);
      for (gsize i = 0; i < (gsize) n * G_N_ELEMENTS (patch); i++)
        {
          se += cabs (fast[i] - exact[i]) * cabs (fast[i] - exact[i]);
          ss += cabs (exact[i]) * cabs (exact[i]);
        }
      g_test_message ("%s, %u x %u grid, patches %u x %u: relative L2 error %.3e", sb ? "spaceborne" : "airborne",
                      c.grid.width, c.grid.height, win, 2 * half_h + 1, sqrt (se / ss));
      g_assert_true (isfinite (se) && ss > 0);
      worst = MAX (worst, sqrt (se / ss));
      ef_focus_ctx_clear (&c);
    }
  g_assert_cmpfloat (worst, <, 5e-4);
}

/* The estimate formed in fp32 against the one formed in fp64, the same steps otherwise: what the
 * images' precision does to an estimate. The bound is where the GPU test's agreement between the device
 * and the CPU (both fp32) comes from. */
static void
test_precision (void)
{
  static const Case cases[] = {
    { EF_FOCUS_PGA, EF_TEST_ERR_QUADRATIC, 2.0, FALSE, FALSE },
    { EF_FOCUS_PGA, EF_TEST_ERR_SINUSOID, 1.0, TRUE, FALSE },
    { EF_FOCUS_PGA, EF_TEST_ERR_QUADRATIC, 2.0, FALSE, TRUE },
    { EF_FOCUS_SHARPNESS, EF_TEST_ERR_RANDOM_WALK, 1.5, FALSE, FALSE },
    { EF_FOCUS_SHARPNESS, EF_TEST_ERR_RANDOM_WALK, 2.5, TRUE, FALSE },
    { EF_FOCUS_SHARPNESS, EF_TEST_ERR_RANDOM_WALK, 1.5, FALSE, TRUE },
  };
  double worst = 0;

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      const Case *tc = &cases[i];
      g_autoptr (EfDataset) clean = ef_test_focus_scene (tc->spaceborne, tc->clutter);
      guint n = (guint) clean->info.n_pulses;
      g_autofree double *err = ef_test_focus_error (tc->kind, n, tc->rms_rad);
      g_autoptr (EfDataset) bad = ef_test_focus_with_error (clean, err);
      g_auto (EfFocusResult) f32 = { 0 };
      g_auto (EfFocusResult) f64 = { 0 };
      g_autoptr (GError) error = NULL;
      EfFocusParams fp;
      double d;

      ef_focus_params_init (&fp, tc->method);
      fp.extent_m = 16;
      g_assert_true (ef_focus_run (bad, &fp, &f32, &error));
      fp.precision = EF_PRECISION_FP64;
      g_assert_true (ef_focus_run (bad, &fp, &f64, &error));
      g_assert_no_error (error);
      d = ef_test_focus_residual (f32.phase, f64.phase, n);
      g_test_message ("%s, %s, %s%s: fp32 against fp64 %.3e rad RMS (%u and %u iterations; residuals %.4f and "
                      "%.4f rad)", ef_focus_method_to_string (tc->method), ef_test_err_name (tc->kind),
                      tc->spaceborne ? "spaceborne" : "airborne", tc->clutter ? " in clutter" : "", d,
                      f32.iterations, f64.iterations, ef_test_focus_residual (err, f32.phase, n),
                      ef_test_focus_residual (err, f64.phase, n));
      worst = MAX (worst, d);
    }
  g_test_message ("worst fp32 against fp64: %.3e rad RMS (bound %.1e)", worst, EF_TEST_FOCUS_FP32_FP64_RAD);
  g_assert_cmpfloat (worst, <, EF_TEST_FOCUS_FP32_FP64_RAD);
}

/* A cancelled estimate stops with EF_COMPUTE_ERROR_CANCELLED and leaves nothing behind; bad requests
 * say what is wrong. */
static void
test_cancel_and_bad (void)
{
  g_autoptr (EfDataset) ds = simulate (FALSE);
  g_autoptr (GCancellable) cancellable = g_cancellable_new ();
  g_autoptr (GError) error = NULL;
  g_auto (EfFocusResult) fr = { 0 };
  EfFocusParams fp;

  ef_focus_params_init (&fp, EF_FOCUS_PGA);
  fp.cancellable = cancellable;
  g_cancellable_cancel (cancellable);
  g_assert_false (ef_focus_run (ds, &fp, &fr, &error));
  g_assert_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_CANCELLED);
  g_assert_null (fr.phase);
  g_clear_error (&error);

  ef_focus_params_init (&fp, EF_FOCUS_SHARPNESS);
  fp.first_pulse = ds->info.n_pulses;
  g_assert_false (ef_focus_run (ds, &fp, &fr, &error));
  g_assert_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT);
  g_test_message ("%s", error->message);
  g_clear_error (&error);
  fp.first_pulse = ds->info.n_pulses - 4;
  g_assert_false (ef_focus_run (ds, &fp, &fr, &error));
  g_assert_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT);
  g_test_message ("%s", error->message);
  g_clear_error (&error);
  ef_focus_params_init (&fp, EF_FOCUS_NONE);
  g_assert_false (ef_focus_run (ds, &fp, &fr, &error));
  g_assert_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT);
}

/* SICD's AzAutofocus follows the run record: GLOBAL (one correction for the image) when an autofocus
 * ran, NO otherwise; ImageFormation/Processing names the method. */
static void
test_sicd (void)
{
  g_autoptr (EfDataset) ds = simulate (FALSE);
  g_autoptr (GError) error = NULL;
  g_autoptr (EfJob) job = NULL;
  g_autoptr (EfImage) img = NULL;
  g_auto (EfRunInfo) run = { 0 };
  g_autofree char *plain = NULL, *focused = NULL;
  EfSicdSource src = { 0 };
  EfJobParams jp;
  EfGrid grid;
  EfRect all;

  g_assert_true (ef_grid_init_roi (&grid, -4, -4, 4, 4, 0.1, &error));
  ef_job_params_init (&jp, &grid);
  jp.publish_interval_s = -1;
  job = ef_job_new (ds, &jp, &error);
  g_assert_no_error (error);
  g_assert_true (ef_job_run (job, NULL, NULL, &error));
  img = ef_image_new (&grid, &error);
  all = (EfRect) { 0, 0, grid.width, grid.height };
  g_assert_true (ef_job_read_image (job, &all, img->data, &error));
  ef_job_get_run_info (job, &run);
  src.dataset = ds;
  src.image = img;
  src.params = &jp;
  src.run = &run;
  plain = ef_sicd_build_xml (&src, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (strstr (plain, "<AzAutofocus>NO</AzAutofocus>"));
  run.autofocus = g_strdup ("pga");
  focused = ef_sicd_build_xml (&src, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (strstr (focused, "<AzAutofocus>GLOBAL</AzAutofocus>"));
  g_assert_nonnull (strstr (focused, "pga"));
}

static char *
cli_run (const char *const *args, int *status)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GPtrArray) argv = g_ptr_array_new ();
  char *out = NULL, *err = NULL;

  g_ptr_array_add (argv, (gpointer) g_getenv ("EF_CLI"));
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  g_ptr_array_add (argv, NULL);
  g_assert_true (g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err, status,
                               &error));
  g_assert_no_error (error);
  g_test_message ("stderr: %s", err);
  g_free (err);
  return out;
}

static gboolean
files_equal (const char *a, const char *b)
{
  g_autofree char *da = NULL, *db = NULL;
  gsize la = 0, lb = 0;

  g_assert_true (g_file_get_contents (a, &da, &la, NULL));
  g_assert_true (g_file_get_contents (b, &db, &lb, NULL));
  return la == lb && memcmp (da, db, la) == 0;
}

/* `form --autofocus sharpness --phase-out F` then `form --phase-correction F` give the same image, and
 * both say which correction ran; a corrections file for another collection is refused. */
static void
test_cli (void)
{
  g_autofree char *dir = NULL, *scene = NULL, *af = NULL, *a = NULL, *b = NULL, *out = NULL;
  g_autoptr (JsonParser) parser = json_parser_new ();
  JsonObject *o;
  int status;
  double e0, e1;

  if (g_getenv ("EF_CLI") == NULL || !g_file_test (g_getenv ("EF_CLI"), G_FILE_TEST_IS_EXECUTABLE))
    {
      g_test_skip ("EF_CLI is not set");
      return;
    }
  dir = g_dir_make_tmp ("ef-af-cli-XXXXXX", NULL);
  scene = g_build_filename (dir, "scene.ini", NULL);
  af = g_build_filename (dir, "af.json", NULL);
  a = g_build_filename (dir, "a.npy", NULL);
  b = g_build_filename (dir, "b.npy", NULL);
  g_assert_true (g_file_set_contents (scene, "[simulate]\npulses=128\nsamples=128\nphase-error=2\nseed=5\n"
                                      "targets=0,0,0;3,2,0;-2,-3,0\n", -1, NULL));
  out = cli_run ((const char *[]) { "form", scene, "--roi", "-5,-5,5,5", "--backend", "cpu", "--autofocus",
                                    "sharpness", "--phase-out", af, "-o", a, "--json", NULL }, &status);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  g_assert_true (json_parser_load_from_data (parser, out, -1, NULL));
  o = json_object_get_object_member (json_node_get_object (json_parser_get_root (parser)), "autofocus");
  g_assert_nonnull (o);
  g_assert_cmpstr (json_object_get_string_member (o, "method"), ==, "sharpness");
  /* Where it was estimated: the formation's backend, asked for by name here. */
  g_assert_cmpstr (json_object_get_string_member (o, "backend"), ==, "cpu");
  g_assert_true (json_object_get_null_member (o, "backend_reason"));
  e0 = json_object_get_double_member (o, "entropy_before");
  e1 = json_object_get_double_member (o, "entropy_after");
  g_test_message ("CLI sharpness autofocus: entropy %.4f -> %.4f", e0, e1);
  g_assert_cmpfloat (e1, <, e0 - 0.5);
  g_clear_pointer (&out, g_free);

  out = cli_run ((const char *[]) { "form", scene, "--roi", "-5,-5,5,5", "--backend", "cpu", "--phase-correction",
                                    af, "-o", b, "--json", NULL }, &status);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  g_assert_true (json_parser_load_from_data (parser, out, -1, NULL));
  o = json_object_get_object_member (json_node_get_object (json_parser_get_root (parser)), "autofocus");
  g_assert_cmpstr (json_object_get_string_member (o, "method"), ==, "file");
  g_assert_true (files_equal (a, b));
  g_clear_pointer (&out, g_free);

  /* Another collection's corrections. */
  g_assert_true (g_file_set_contents (scene, "[simulate]\npulses=100\nsamples=128\n", -1, NULL));
  out = cli_run ((const char *[]) { "form", scene, "--roi", "-5,-5,5,5", "--phase-correction", af, "-o", b, NULL },
                 &status);
  g_assert_false (g_spawn_check_wait_status (status, NULL));
  g_clear_pointer (&out, g_free);

  for (const char *const *f = (const char *const[]) { scene, af, a, b, NULL }; *f != NULL; f++)
    {
      g_autofree char *side = g_strconcat (*f, NULL);

      g_remove (*f);
      if (g_str_has_suffix (side, ".npy"))
        {
          side[strlen (side) - 4] = '\0';
          {
            g_autofree char *js = g_strconcat (side, ".json", NULL);
            g_remove (js);
          }
        }
    }
  g_rmdir (dir);
}

/* The residual counts a pulse's phase modulo 2 pi and leaves out constant and linear terms: an estimate
 * off by whole turns on any pulses, plus a ramp, plus small noise, is as far from the truth as the
 * noise alone; an estimate of random phases is far. */
static void
test_phase_residual (void)
{
  const guint n = 256;
  g_autofree double *err = ef_test_focus_error (EF_TEST_ERR_RANDOM_WALK, n, 3.0);
  g_autofree double *noise = g_new (double, n), *est = g_new (double, n), *junk = g_new (double, n);
  double base, res, far;

  for (guint p = 0; p < n; p++)
    {
      noise[p] = g_test_rand_double_range (-0.02, 0.02);
      est[p] = err[p] + noise[p] + 2 * G_PI * g_test_rand_int_range (-2, 3) + 0.7 - 0.013 * p;
      junk[p] = g_test_rand_double_range (-G_PI, G_PI);
    }
  base = ef_focus_phase_residual (noise, NULL, n);
  res = ef_focus_phase_residual (err, est, n);
  far = ef_focus_phase_residual (err, junk, n);
  g_test_message ("noise alone %.6f rad; whole turns, a ramp and the noise %.6f rad; random phases %.3f rad", base,
                  res, far);
  g_assert_cmpfloat (fabs (res - base), <, 1e-9);
  g_assert_cmpfloat (far, >, 1.0);
  g_assert_cmpfloat (ef_focus_phase_residual (err, NULL, 2), ==, 0.0);
}

/* A correction that differs by whole turns on some pulses focuses the same: the detrend must remove the
 * same line from it, or the image moves (a 3 rad walk's estimate, summed over PGA's steps, came out a few
 * turns off on some pulses and shifted the targets by a few resolution cells). A smooth phase without its
 * line, and the same with a random staircase of whole turns, detrended: the same to whole turns. */
static void
test_detrend_turns (void)
{
  const guint n = 300;
  g_autofree double *kappa = g_new (double, n), *a = g_new (double, n), *b = g_new (double, n);
  double worst = 0;
  int turns = 0;

  for (guint p = 0; p < n; p++)
    {
      kappa[p] = 10.0 + 0.02 * p + 1e-6 * p * p;
      a[p] = 1.3 * sin (0.05 * p + g_test_rand_double_range (0, 1)) + g_test_rand_double_range (-0.1, 0.1);
      if (g_test_rand_int_range (0, 10) == 0)
        turns += g_test_rand_int_range (-2, 3);
      b[p] = a[p] + 2 * G_PI * turns;
    }
  ef_focus_detrend (kappa, a, n);
  ef_focus_detrend (kappa, b, n);
  for (guint p = 0; p < n; p++)
    worst = MAX (worst, fabs (remainder (b[p] - a[p], 2 * G_PI)));
  g_test_message ("whole turns on the pulses (%d at the end): detrended, the two differ by %.2e rad modulo 2 pi",
                  turns, worst);
  g_assert_cmpfloat (worst, <, 1e-9);
}

int
main (int argc, char **argv)
{
  static const Case cases[] = {
    { EF_FOCUS_PGA, EF_TEST_ERR_QUADRATIC, 2.0, FALSE },
    { EF_FOCUS_PGA, EF_TEST_ERR_SINUSOID, 1.5, FALSE },
    /* PGA on a random walk over point targets: 0.016-0.031 rad left (tests/bench/RESULTS.md), held to
     * twice that as well as to the Must-show bounds. */
    { EF_FOCUS_PGA, EF_TEST_ERR_RANDOM_WALK, 1.5, FALSE, FALSE, NULL, 0.06 },
    { EF_FOCUS_PGA, EF_TEST_ERR_RANDOM_WALK, 3.0, FALSE, FALSE, "-3rad", 0.06 },
    { EF_FOCUS_PGA, EF_TEST_ERR_QUADRATIC, 3.0, TRUE },
    { EF_FOCUS_PGA, EF_TEST_ERR_SINUSOID, 1.0, TRUE },
    { EF_FOCUS_PGA, EF_TEST_ERR_RANDOM_WALK, 1.0, TRUE, FALSE, "-1rad", 0.06 },
    { EF_FOCUS_PGA, EF_TEST_ERR_RANDOM_WALK, 2.5, TRUE, FALSE, NULL, 0.06 },
    { EF_FOCUS_SHARPNESS, EF_TEST_ERR_QUADRATIC, 2.0, FALSE },
    { EF_FOCUS_SHARPNESS, EF_TEST_ERR_SINUSOID, 1.5, FALSE },
    { EF_FOCUS_SHARPNESS, EF_TEST_ERR_RANDOM_WALK, 1.5, FALSE },
    { EF_FOCUS_SHARPNESS, EF_TEST_ERR_QUADRATIC, 3.0, TRUE },
    { EF_FOCUS_SHARPNESS, EF_TEST_ERR_RANDOM_WALK, 2.5, TRUE },
    { EF_FOCUS_PGA, EF_TEST_ERR_QUADRATIC, 2.0, FALSE, TRUE },
    { EF_FOCUS_PGA, EF_TEST_ERR_SINUSOID, 1.5, FALSE, TRUE },
    /* PGA on a random walk in clutter: its per-pulse samples take in the clutter across the whole
     * ambiguity extent: 0.057-0.123 rad left, PSLR within 0.18-1.49 dB of the error-free image (25 runs,
     * tests/bench/RESULTS.md); bounds near those. The sharpness method, which weighs the whole image,
     * meets the Must-show bounds there. */
    { EF_FOCUS_PGA, EF_TEST_ERR_RANDOM_WALK, 1.5, FALSE, TRUE, NULL, 0.2, 2.0 },
    { EF_FOCUS_SHARPNESS, EF_TEST_ERR_QUADRATIC, 2.0, FALSE, TRUE },
    { EF_FOCUS_SHARPNESS, EF_TEST_ERR_RANDOM_WALK, 1.5, FALSE, TRUE },
  };

  g_test_init (&argc, &argv, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *name = g_strdup_printf ("/compute/focus/%s/%s%s/%s%s", ef_focus_method_to_string (cases[i].method),
                                               cases[i].spaceborne ? "spaceborne" : "airborne",
                                               cases[i].clutter ? "-clutter" : "", ef_test_err_name (cases[i].kind),
                                               cases[i].tag != NULL ? cases[i].tag : "");
      g_test_add_data_func (name, &cases[i], test_focus);
    }
  g_test_add_func ("/compute/focus/phase-residual", test_phase_residual);
  g_test_add_func ("/compute/focus/detrend-turns", test_detrend_turns);
  g_test_add_func ("/compute/focus/corrected-dataset", test_corrected_dataset);
  g_test_add_func ("/compute/focus/file", test_file);
  g_test_add_func ("/compute/focus/sharpness/blocks", test_sharpness_blocks);
  g_test_add_func ("/compute/focus/precision", test_precision);
  g_test_add_func ("/compute/focus/pga/grid", test_pga_grid);
  g_test_add_func ("/compute/focus/pga/projection", test_pga_projection);
  g_test_add_func ("/compute/focus/cli", test_cli);
  g_test_add_func ("/compute/focus/sicd", test_sicd);
  g_test_add_func ("/compute/focus/cancel-and-bad", test_cancel_and_bad);
  return g_test_run ();
}
