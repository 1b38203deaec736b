/* test-mri-accel.c: where the exact MRI sums run: the CPU asked for, auto without a device, an accelerator that fails. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <complex.h>
#include <math.h>
#include <string.h>

#include "ef-error.h"
#include "ef-mri.h"
#include "ef-mri-accel.h"
#include "ef-mri-blocks.h"
#include "ef-mri-phantom.h"

static double
rel_err (const EfCf64 *a, const EfCf64 *ref, gsize n)
{
  double num = 0, den = 0;

  for (gsize i = 0; i < n; i++)
    {
      num += pow (cabs (a[i] - ref[i]), 2);
      den += pow (cabs (ref[i]), 2);
    }
  return sqrt (num / den);
}

/* A small random problem: a radial trajectory turned by a random angle, random samples and weights. */
static EfMriTraj *
problem (guint n, EfCf64 **d, double **w)
{
  g_autoptr (GError) error = NULL;
  EfMriTraj *t = ef_mri_traj_radial (n, 12, 2 * n, &error);
  double th = g_test_rand_double_range (0, G_PI);

  g_assert_no_error (error);
  *d = g_new (EfCf64, t->m);
  *w = g_new (double, t->m);
  for (gsize i = 0; i < t->m; i++)
    {
      double x = t->k[2 * i], y = t->k[2 * i + 1];

      t->k[2 * i] = cos (th) * x - sin (th) * y;
      t->k[2 * i + 1] = sin (th) * x + cos (th) * y;
      (*d)[i] = g_test_rand_double_range (-1, 1) + I * g_test_rand_double_range (-1, 1);
      (*w)[i] = g_test_rand_double_range (0, 1);
    }
  return t;
}

/* The CPU asked for: F^H d and Q as the engine's fp64 sums, summed in blocks or whole, no fallback. */
static void
test_cpu (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree EfCf64 *d = NULL, *ref = NULL, *out = NULL, *blocks = NULL;
  g_autofree double *w = NULL;
  g_autoptr (EfMriTraj) t = problem (16, &d, &w);
  EfMriGrid g = ef_mri_grid_image (2, 16), big = ef_mri_grid_doubled (&g);
  gsize nb = ef_mri_grid_voxels (&big, &error);
  EfMriRun run;

  g_assert_true (ef_mri_run_choose (EF_BACKEND_CPU, &run, &error));
  g_assert_cmpstr (run.ran, ==, "cpu");
  g_assert_null (run.fallback);
  g_assert_null (run.accel);
  ref = g_new (EfCf64, nb);
  out = g_new (EfCf64, nb);
  blocks = g_new0 (EfCf64, nb);
  for (guint q = 0; q < 2; q++)
    {
      const EfMriGrid *gr = q ? &big : &g;
      gsize nv = q ? nb : 256;

      memset (out, 0xff, nb * sizeof (EfCf64));   /* poisoned: NaN */
      memset (blocks, 0, nb * sizeof (EfCf64));
      if (q)
        g_assert_true (ef_mri_q (t, w, gr, ref, 0, &error));
      else
        g_assert_true (ef_mri_adjoint (t, d, gr, ref, 0, &error));
      g_assert_true (ef_mri_run_sum (&run, t, q ? NULL : d, q ? w : NULL, gr, out, &error));
      for (guint b = 0; b < 5; b++)
        {
          gsize first, last;

          ef_mri_block_bounds (t->m, 5, b, &first, &last);
          g_assert_true (ef_mri_run_sum_add (&run, t, q ? NULL : d, q ? w : NULL, first, last, gr, blocks, &error));
        }
      g_assert_no_error (error);
      g_test_message ("%s: whole %.2e, in 5 blocks %.2e from the engine's sum", q ? "Q" : "F^H d",
                      rel_err (out, ref, nv), rel_err (blocks, ref, nv));
      g_assert_cmpfloat (rel_err (out, ref, nv), ==, 0);
      g_assert_cmpfloat (rel_err (blocks, ref, nv), <, 1e-13);
    }
  g_assert_false (ef_mri_run_sum_add (&run, t, d, NULL, 3, t->m + 1, &g, blocks, &error));
  g_assert_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT);
  ef_mri_run_clear (&run);
}

/* Auto with no accelerator to run on (none registered, or no device): the CPU, and the reason, in the
 * main window's words; cuda by name: an error instead. */
static void
test_auto_without_device (void)
{
  g_autoptr (GError) error = NULL;
  const EfMriAccel *accel = ef_mri_accel_get ();
  g_autofree char *why = NULL;
  EfMriRun run;

  if (accel != NULL && accel->available (&why))
    {
      g_test_skip ("an accelerator is present");
      return;
    }
  g_assert_true (ef_mri_run_choose (EF_BACKEND_AUTO, &run, &error));
  g_test_message ("auto: %s (%s)", run.ran, run.fallback);
  g_assert_cmpstr (run.ran, ==, "cpu");
  g_assert_nonnull (run.fallback);
  g_assert_true (g_str_has_suffix (run.fallback, "; using the CPU"));
  g_assert_true (g_str_has_prefix (run.fallback, accel == NULL ? "This build has no CUDA support" : why));
  ef_mri_run_clear (&run);
  g_assert_false (ef_mri_run_choose (EF_BACKEND_CUDA, &run, &error));
  g_assert_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_DEVICE);
}

/* A stand-in accelerator: present, and its sums fail after `good` successes. */
static guint fake_good, fake_calls;

static gboolean
fake_available (char **why)
{
  (void) why;
  return TRUE;
}

static gboolean
fake_sum (const EfMriTraj *t, const EfCf64 *d, const double *w, const EfMriGrid *g, EfCf64 *out, char **detail,
          GError **error)
{
  if (fake_calls++ >= fake_good)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_FAILED, "out of device memory");
      return FALSE;
    }
  *detail = g_strdup ("Fake, fp64");
  return d != NULL ? ef_mri_adjoint (t, d, g, out, 0, error) : ef_mri_q (t, w, g, out, 0, error);
}

static const EfMriAccel fake = { .name = "Fake", .id = "fake", .available = fake_available, .sum = fake_sum };

/* Auto with an accelerator that fails part way: the CPU finishes the job, says why once, and the sum is
 * still right; asked by name, the failure is the error. */
static void
test_accel_fails (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree EfCf64 *d = NULL, *ref = NULL, *acc = NULL;
  g_autofree double *w = NULL;
  g_autoptr (EfMriTraj) t = problem (16, &d, &w);
  EfMriGrid g = ef_mri_grid_image (2, 16);
  const EfMriAccel *before = ef_mri_accel_get ();
  EfMriRun run;

  ef_mri_accel_register (&fake);
  fake_good = 2;
  fake_calls = 0;
  g_assert_true (ef_mri_run_choose (EF_BACKEND_AUTO, &run, &error));
  g_assert_cmpstr (run.ran, ==, "fake");
  g_assert_null (run.fallback);
  ref = g_new (EfCf64, 256);
  acc = g_new0 (EfCf64, 256);
  g_assert_true (ef_mri_adjoint (t, d, &g, ref, 0, &error));
  for (guint b = 0; b < 4; b++)
    {
      gsize first, last;

      ef_mri_block_bounds (t->m, 4, b, &first, &last);
      g_assert_true (ef_mri_run_sum_add (&run, t, d, NULL, first, last, &g, acc, &error));
      g_assert_no_error (error);
      g_assert_cmpstr (run.ran, ==, b < 2 ? "fake" : "cpu");
      g_assert_cmpstr (run.detail, ==, b < 2 ? "Fake, fp64" : "CPU, fp64");
    }
  g_test_message ("fallback: %s", run.fallback);
  g_assert_cmpstr (run.fallback, ==, "Fake failed: out of device memory; using the CPU");
  /* the failed block was not tried on the accelerator again */
  g_assert_cmpuint (fake_calls, ==, 3);
  g_assert_cmpfloat (rel_err (acc, ref, 256), <, 1e-13);
  ef_mri_run_clear (&run);

  fake_good = fake_calls = 0;
  g_assert_true (ef_mri_run_choose (EF_BACKEND_CUDA, &run, &error));
  g_assert_false (ef_mri_run_sum (&run, t, d, NULL, &g, acc, &error));
  g_assert_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_FAILED);
  ef_mri_run_clear (&run);
  if (before != NULL)
    ef_mri_accel_register (before);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/compute/mri/accel/cpu", test_cpu);
  g_test_add_func ("/compute/mri/accel/auto-without-device", test_auto_without_device);
  g_test_add_func ("/compute/mri/accel/accelerator-fails", test_accel_fails);
  return g_test_run ();
}
