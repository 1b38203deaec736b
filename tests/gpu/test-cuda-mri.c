/* test-cuda-mri.c: F^H d and Q on a CUDA device against the CPU's float64 sums (exits 77 without a device). */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <glib/gstdio.h>

#include "cuda/ef-cuda.h"
#include "cuda/ef-cuda-mri.h"
#include "ef-error.h"
#include "ef-mri.h"
#include "ef-mri-accel.h"
#include "ef-mri-blocks.h"

/* test-cuda-mri-model, the kernels' float arithmetic with __sincosf's error bound, measures 2e-6 on
 * these sizes. */
#define LIMIT 1e-5

static double
rel_err (const EfCf64 *a, const EfCf64 *ref, gsize n)
{
  double num = 0, den = 0;

  for (gsize i = 0; i < n; i++)
    {
      EfCf64 e = a[i] - ref[i];
      num += creal (e * conj (e));
      den += creal (ref[i] * conj (ref[i]));
    }
  return sqrt (num / den);
}

static void
check (guint dim, guint n, gsize m, gboolean q)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (EfMriTraj) t = ef_mri_traj_new (dim, m, &error);
  EfMriGrid img = ef_mri_grid_image (dim, n), g = q ? ef_mri_grid_doubled (&img) : img;
  gsize nv = ef_mri_grid_voxels (&g, NULL);
  g_autofree EfCf64 *d = g_new (EfCf64, m), *ref = g_new (EfCf64, nv), *out = g_new (EfCf64, nv);
  g_autofree EfCf32 *d32 = g_new (EfCf32, m);
  g_autofree float *w32 = g_new (float, m);
  g_autofree double *w = g_new (double, m);

  g_assert_no_error (error);
  for (gsize i = 0; i < m * dim; i++)
    t->k[i] = g_test_rand_double_range (-(double) n / 2, (double) n / 2);
  for (gsize i = 0; i < m; i++)
    {
      d32[i] = (float) g_test_rand_double_range (-1, 1) + I * (float) g_test_rand_double_range (-1, 1);
      d[i] = d32[i];
      w32[i] = (float) g_test_rand_double_range (0.1, 2);
      w[i] = w32[i];
    }
  if (q)
    g_assert_true (ef_mri_q (t, w, &g, ref, 0, &error));
  else
    g_assert_true (ef_mri_adjoint (t, d, &g, ref, 0, &error));
  g_assert_no_error (error);
  for (int s = 0; s < EF_CUDA_MRI_N_SHAPES; s++)
    {
      EfCudaMriTiming tm;
      double e;

      memset (out, 0xff, nv * sizeof *out);   /* NaN poison */
      g_assert_true (ef_cuda_mri_sum (-1, t, q ? NULL : d32, q ? w32 : NULL, &g, s, out, &tm, &error));
      g_assert_no_error (error);
      e = rel_err (out, ref, nv);
      g_test_message ("%s %u-D, %" G_GSIZE_FORMAT " voxels, %" G_GSIZE_FORMAT " samples, block %s: "
                      "rel. L2 error against CPU fp64 %.2e (%u tiles, kernels %.2f ms)", q ? "Q" : "F^H d", dim, nv,
                      m, ef_cuda_mri_shape_name (s), e, tm.tiles, tm.kernel_ms);
      g_assert_cmpfloat (e, <=, LIMIT);
    }
}

static void
test_fhd_2d (void)
{
  check (2, 48, 10000, FALSE);   /* 10000 samples: five tiles, the last one partial */
}

static void
test_fhd_3d (void)
{
  check (3, 16, 9000, FALSE);
}

static void
test_q_3d (void)
{
  check (3, 12, 5000, TRUE);   /* doubled: 24 a side, a multiple of every rotating shape's voxels */
}

/* Shape -1 runs the static default until the class is tuned, then the tuned shape, still within LIMIT. */
static void
test_tuned (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (EfMriTraj) t = ef_mri_traj_new (2, 6000, &error);
  EfMriGrid g = ef_mri_grid_image (2, 48);
  gsize nv = ef_mri_grid_voxels (&g, NULL);
  g_autofree EfCf64 *d = g_new (EfCf64, t->m), *ref = g_new (EfCf64, nv), *out = g_new (EfCf64, nv);
  g_autofree EfCf32 *d32 = g_new (EfCf32, t->m);
  g_autofree char *report = NULL;
  EfCudaMriTiming tm;
  guint shape = G_MAXUINT;
  double e;

  for (gsize i = 0; i < t->m * 2; i++)
    t->k[i] = g_test_rand_double_range (-24, 24);
  for (gsize i = 0; i < t->m; i++)
    {
      d32[i] = (float) g_test_rand_double_range (-1, 1) + I * (float) g_test_rand_double_range (-1, 1);
      d[i] = d32[i];
    }
  g_assert_true (ef_mri_adjoint (t, d, &g, ref, 0, &error));

  g_assert_true (ef_cuda_mri_sum (-1, t, d32, NULL, &g, -1, out, &tm, &error));
  g_assert_no_error (error);
  g_assert_false (tm.tuned);
  g_assert_cmpuint (tm.shape, ==, EF_CUDA_MRI_DEFAULT_SHAPE);

  g_assert_true (ef_cuda_mri_tune (-1, 2, nv, FALSE, &shape, &report, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (shape, <, EF_CUDA_MRI_N_SHAPES);
  g_test_message ("%s", report);

  memset (out, 0xff, nv * sizeof *out);
  g_assert_true (ef_cuda_mri_sum (-1, t, d32, NULL, &g, -1, out, &tm, &error));
  g_assert_no_error (error);
  g_assert_true (tm.tuned);
  g_assert_cmpuint (tm.shape, ==, shape);
  e = rel_err (out, ref, nv);
  g_test_message ("tuned shape %u (%s): rel. L2 error against CPU fp64 %.2e", shape, ef_cuda_mri_shape_name (shape), e);
  g_assert_cmpfloat (e, <=, LIMIT);
  /* Q's class is another: still the default */
  g_assert_true (ef_cuda_mri_sum (-1, t, NULL, NULL, &g, -1, out, &tm, &error));
  g_assert_false (tm.tuned);
}

static void
test_bad_input (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (EfMriTraj) t = ef_mri_traj_new (2, 4, NULL);
  EfMriGrid g = ef_mri_grid_image (3, 4);
  EfCf64 out[64];

  g_assert_false (ef_cuda_mri_sum (-1, t, NULL, NULL, &g, -1, out, NULL, &error));
  g_assert_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  /* a rotating shape on a grid whose width its voxels do not divide */
  g = ef_mri_grid_image (2, 6);
  for (int s = 0; s < EF_CUDA_MRI_N_SHAPES; s++)
    if (ef_cuda_mri_shapes[s].rotate && 6 % ef_cuda_mri_shapes[s].voxels != 0)
      {
        g_assert_false (ef_cuda_mri_sum (-1, t, NULL, NULL, &g, s, out, NULL, &error));
        g_assert_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT);
        g_clear_error (&error);
      }
}

/* The engine's choice (what the MRI window and echoform-cli mri use): auto takes the device, says so, and
 * its sums summed a block of samples at a time match the CPU's float64 sum. */
static void
test_engine_choice (void)
{
  g_autoptr (GError) error = NULL;
  const guint n = 32;
  g_autoptr (EfMriTraj) t = ef_mri_traj_new (2, 5000, &error);
  EfMriGrid g = ef_mri_grid_image (2, n);
  g_autofree EfCf64 *d = g_new (EfCf64, t->m), *ref = g_new (EfCf64, n * n), *acc = g_new0 (EfCf64, n * n);
  EfMriRun run;
  double e;

  for (gsize i = 0; i < t->m * 2; i++)
    t->k[i] = g_test_rand_double_range (-(double) n / 2, (double) n / 2);
  for (gsize i = 0; i < t->m; i++)
    d[i] = (EfCf32) ((float) g_test_rand_double_range (-1, 1) + I * (float) g_test_rand_double_range (-1, 1));
  g_assert_true (ef_mri_adjoint (t, d, &g, ref, 0, &error));
  g_assert_true (ef_mri_run_choose (EF_BACKEND_AUTO, &run, &error));
  g_assert_no_error (error);
  g_assert_cmpstr (run.ran, ==, "cuda");
  g_assert_null (run.fallback);
  for (guint b = 0; b < 4; b++)
    {
      gsize first, last;

      ef_mri_block_bounds (t->m, 4, b, &first, &last);
      g_assert_true (ef_mri_run_sum_add (&run, t, d, NULL, first, last, &g, acc, &error));
      g_assert_no_error (error);
    }
  e = rel_err (acc, ref, n * n);
  g_test_message ("engine's choice: %s; in 4 blocks, rel. L2 error against CPU fp64 %.2e", run.detail, e);
  g_assert_cmpstr (run.ran, ==, "cuda");
  g_assert_true (g_str_has_prefix (run.detail, "CUDA, "));
  g_assert_cmpfloat (e, <, LIMIT);
  ef_mri_run_clear (&run);
}

int
main (int argc, char **argv)
{
  g_autofree char *why = NULL;
  g_autofree char *tmp = g_dir_make_tmp ("ef-mri-tune-XXXXXX", NULL);
  g_autofree char *cache = NULL;
  int rc;

  /* the tuner writes into a cache folder of its own, set before anything asks GLib for it */
  g_assert_nonnull (tmp);
  g_setenv ("XDG_CACHE_HOME", tmp, TRUE);
  g_test_init (&argc, &argv, NULL);
  if (!ef_cuda_available (&why))
    {
      printf ("1..0 # SKIP %s\n", why);
      (void) g_rmdir (tmp);
      return 77;
    }
  g_test_add_func ("/gpu/mri/fhd/2d", test_fhd_2d);
  g_test_add_func ("/gpu/mri/fhd/3d", test_fhd_3d);
  g_test_add_func ("/gpu/mri/q/3d", test_q_3d);
  g_test_add_func ("/gpu/mri/bad-input", test_bad_input);
  g_test_add_func ("/gpu/mri/tuned", test_tuned);
  g_test_add_func ("/gpu/mri/engine-choice", test_engine_choice);
  rc = g_test_run ();
  cache = ef_cuda_tune_cache_path ();
  (void) g_remove (cache);
  g_free (g_steal_pointer (&cache));
  cache = g_build_filename (tmp, "echoform", NULL);
  (void) g_rmdir (cache);
  (void) g_rmdir (tmp);
  return rc;
}
