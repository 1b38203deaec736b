/* test-mri-blocks.c: F^H d summed block by block equals the whole sum; the block bounds and the edge. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <complex.h>
#include <math.h>

#include "ef-error.h"
#include "ef-mri-accel.h"
#include "ef-mri-blocks.h"
#include "ef-mri-phantom.h"

/* A trajectory of m samples uniform in [-n/2, n/2)^dim and samples in the unit square, fresh each run. */
static EfMriTraj *
random_problem (guint dim, guint n, gsize m, EfCf64 **d)
{
  g_autoptr (GError) error = NULL;
  EfMriTraj *t = ef_mri_traj_new (dim, m, &error);

  g_assert_no_error (error);
  for (gsize i = 0; i < m * dim; i++)
    t->k[i] = g_test_rand_double_range (-(double) n / 2, (double) n / 2);
  *d = g_new (EfCf64, m);
  for (gsize i = 0; i < m; i++)
    (*d)[i] = g_test_rand_double_range (-1, 1) + I * g_test_rand_double_range (-1, 1);
  return t;
}

/* Samples [first, last) of t and d added into out, on the CPU as the progressive view sums them. */
static gboolean
add_range (const EfMriTraj *t, const EfCf64 *d, gsize first, gsize last, const EfMriGrid *g, EfCf64 *out,
           GError **error)
{
  EfMriRun run;
  gboolean ok;

  g_assert_true (ef_mri_run_choose (EF_BACKEND_CPU, &run, NULL));
  ok = ef_mri_run_sum_add (&run, t, d, NULL, first, last, g, out, error);
  ef_mri_run_clear (&run);
  return ok;
}

static double
rel_l2 (const EfCf64 *a, const EfCf64 *ref, gsize n)
{
  double num = 0, den = 0;

  for (gsize i = 0; i < n; i++)
    {
      num += pow (cabs (a[i] - ref[i]), 2);
      den += pow (cabs (ref[i]), 2);
    }
  return sqrt (num / den);
}

static void
check_blocks (guint dim, guint n, gsize m, guint n_blocks)
{
  g_autoptr (GError) error = NULL;
  g_autofree EfCf64 *d = NULL, *whole = NULL, *sum = NULL;
  g_autoptr (EfMriTraj) t = random_problem (dim, n, m, &d);
  EfMriGrid g = ef_mri_grid_image (dim, n);
  gsize nv = ef_mri_grid_voxels (&g, &error), covered = 0;
  double err;

  g_assert_no_error (error);
  whole = g_new (EfCf64, nv);
  sum = g_new0 (EfCf64, nv);
  g_assert_true (ef_mri_adjoint (t, d, &g, whole, 0, &error));
  g_assert_no_error (error);
  for (guint b = 0; b < n_blocks; b++)
    {
      gsize first, last;

      ef_mri_block_bounds (m, n_blocks, b, &first, &last);
      g_assert_cmpuint (first, ==, covered);
      covered = last;
      g_assert_true (add_range (t, d, first, last, &g, sum, &error));
      g_assert_no_error (error);
    }
  g_assert_cmpuint (covered, ==, m);
  err = rel_l2 (sum, whole, nv);
  g_test_message ("%u-D, %u^%u voxels, %" G_GSIZE_FORMAT " samples in %u blocks: relative L2 %.3e", dim, n, dim, m,
                  n_blocks, err);
  g_assert_cmpfloat (err, <, 1e-12);
}

static void
test_blocks_2d (void)
{
  check_blocks (2, 32, 3001, 16);
  /* more blocks than samples: some are empty */
  check_blocks (2, 16, 7, 16);
}

static void
test_blocks_3d (void)
{
  check_blocks (3, 12, 2003, 5);
}

/* One block's sum alone against the whole sum of the same samples, and a partial image really is partial. */
static void
test_partial (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree EfCf64 *d = NULL, *half = NULL, *ref = NULL, *whole = NULL;
  g_autoptr (EfMriTraj) t = random_problem (2, 16, 400, &d);
  EfMriGrid g = ef_mri_grid_image (2, 16);
  gsize nv = ef_mri_grid_voxels (&g, &error);
  EfMriTraj head = { .dim = 2, .m = 200, .k = t->k };

  half = g_new0 (EfCf64, nv);
  ref = g_new (EfCf64, nv);
  whole = g_new (EfCf64, nv);
  g_assert_true (add_range (t, d, 0, 200, &g, half, &error));
  g_assert_true (ef_mri_adjoint (&head, d, &g, ref, 0, &error));
  g_assert_true (ef_mri_adjoint (t, d, &g, whole, 0, &error));
  g_assert_cmpfloat (rel_l2 (half, ref, nv), <, 1e-12);
  g_assert_cmpfloat (rel_l2 (half, whole, nv), >, 0.1);
}

static void
test_bad_range (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree EfCf64 *d = NULL, *out = NULL;
  g_autoptr (EfMriTraj) t = random_problem (2, 8, 10, &d);
  EfMriGrid g = ef_mri_grid_image (2, 8);

  out = g_new0 (EfCf64, 64);
  g_assert_false (add_range (t, d, 5, 11, &g, out, &error));
  g_assert_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  g_assert_false (add_range (t, d, 6, 5, &g, out, &error));
  g_assert_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT);
  for (guint i = 0; i < 64; i++)
    g_assert_true (out[i] == 0);
}

static void
test_edge (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (EfMriTraj) r = ef_mri_traj_radial (64, 101, 128, &error);
  g_autoptr (EfMriTraj) s = ef_mri_traj_stack_of_spirals (32, 16, 8, 256, &error);

  g_assert_no_error (error);
  g_assert_cmpuint (ef_mri_traj_edge (r), ==, 64);
  g_assert_cmpuint (ef_mri_traj_edge (s), ==, 32);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/compute/mri/blocks/2d", test_blocks_2d);
  g_test_add_func ("/compute/mri/blocks/3d", test_blocks_3d);
  g_test_add_func ("/compute/mri/blocks/partial", test_partial);
  g_test_add_func ("/compute/mri/blocks/bad-range", test_bad_range);
  g_test_add_func ("/compute/mri/blocks/edge", test_edge);
  return g_test_run ();
}
