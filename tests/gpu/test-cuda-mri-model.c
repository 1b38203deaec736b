/* test-cuda-mri-model.c: the F^H d kernels' float arithmetic modelled on the CPU, against float64. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <complex.h>
#include <math.h>
#include <string.h>

#include "cuda/ef-cuda-mri-private.h"
#include "ef-mri.h"

/*
 * What ef-cuda-mri.cuh does, step for step in float: the phase in cycles reduced by the 1.5 * 2^23 trick,
 * sin and cos (here libm's, with an error of +-2^-21.4 added to stand in for __sincosf's), per-tile float
 * sums added into double, and for the rotating shapes the phasor stepped along x. This runs without a
 * device: it holds the kernels' algorithm to the accuracy test-cuda-mri asks of the device.
 */
#define SFU_ERR 3.7e-7f   /* 2^-21.41: __sincosf's absolute error on [-pi, pi] */

static volatile float magic = 12582912.0f;   /* volatile: keep the compiler from folding the trick */

static float
reduce_cycles (float t)
{
  float r = (t + magic) - magic;
  return t - r;
}

static void
model (const EfMriTraj *t, const EfCf32 *d, const EfMriGrid *g, guint V, gboolean rotate, EfCf64 *out)
{
  gsize nv = (gsize) g->n[0] * g->n[1] * g->n[2];
  GRand *rng = g_rand_new_with_seed (7);
  float sp = (float) g->spacing;

  memset (out, 0, nv * sizeof *out);
  for (gsize s0 = 0; s0 < t->m; s0 += EF_CUDA_MRI_TILE)
    {
      gsize s1 = MIN (t->m, s0 + EF_CUDA_MRI_TILE);

      for (gsize v0 = 0; v0 < nv; v0 += rotate ? V : 1)
        {
          guint ix = v0 % g->n[0], iy = (v0 / g->n[0]) % g->n[1], iz = v0 / ((gsize) g->n[0] * g->n[1]);
          float x = ((float) ix - (float) (g->n[0] / 2)) * sp, y = ((float) iy - (float) (g->n[1] / 2)) * sp;
          float z = ((float) iz - (float) (g->n[2] / 2)) * sp;
          float sr[8] = { 0 }, si[8] = { 0 };
          guint nvox = rotate ? V : 1;

          for (gsize s = s0; s < s1; s++)
            {
              float kx = (float) t->k[s * t->dim], ky = (float) t->k[s * t->dim + 1];
              float kz = t->dim == 3 ? (float) t->k[s * t->dim + 2] : 0.0f;
              float tc = reduce_cycles (kx * x + ky * y + kz * z), ph = 6.28318530717958647692f * tc;
              float sn = sinf (ph) + SFU_ERR * (float) g_rand_double_range (rng, -1, 1);
              float cs = cosf (ph) + SFU_ERR * (float) g_rand_double_range (rng, -1, 1);
              float dr = crealf (d[s]), di = cimagf (d[s]);
              float pr = dr * cs - di * sn, pi = dr * sn + di * cs;
              double st = t->k[s * t->dim] * g->spacing;
              float sc, ss;

              st -= nearbyint (st);
              sc = (float) cos (2 * G_PI * st);
              ss = (float) sin (2 * G_PI * st);
              for (guint v = 0; v < nvox; v++)
                {
                  float nr;

                  sr[v] += pr;
                  si[v] += pi;
                  nr = pr * sc - pi * ss;
                  pi = pr * ss + pi * sc;
                  pr = nr;
                }
            }
          for (guint v = 0; v < nvox; v++)
            out[v0 + v] += (double) sr[v] + I * (double) si[v];
        }
    }
  g_rand_free (rng);
}

static void
check (guint dim, guint n, gsize m, double limit)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (EfMriTraj) t = ef_mri_traj_new (dim, m, &error);
  EfMriGrid g = ef_mri_grid_image (dim, n);
  gsize nv = ef_mri_grid_voxels (&g, NULL);
  g_autofree EfCf64 *d = g_new (EfCf64, m), *ref = g_new (EfCf64, nv), *out = g_new (EfCf64, nv);
  g_autofree EfCf32 *d32 = g_new (EfCf32, m);
  const guint shapes[][2] = { { 1, FALSE }, { 8, TRUE } };

  for (gsize i = 0; i < m * dim; i++)
    t->k[i] = g_test_rand_double_range (-(double) n / 2, (double) n / 2);
  for (gsize i = 0; i < m; i++)
    {
      d32[i] = (float) g_test_rand_double_range (-1, 1) + I * (float) g_test_rand_double_range (-1, 1);
      d[i] = d32[i];
    }
  g_assert_true (ef_mri_adjoint (t, d, &g, ref, 0, &error));
  for (guint k = 0; k < G_N_ELEMENTS (shapes); k++)
    {
      double num = 0, den = 0;

      model (t, d32, &g, shapes[k][0], shapes[k][1], out);
      for (gsize i = 0; i < nv; i++)
        {
          num += creal ((out[i] - ref[i]) * conj (out[i] - ref[i]));
          den += creal (ref[i] * conj (ref[i]));
        }
      g_test_message ("kernel model, %u-D %u a side, %" G_GSIZE_FORMAT " samples, %s: rel. L2 error %.2e", dim, n, m,
                      shapes[k][1] ? "8 voxels rotated" : "plain", sqrt (num / den));
      g_assert_cmpfloat (sqrt (num / den), <=, limit);
    }
}

static void
test_model_small (void)
{
  /* the sizes test-cuda-mri runs on the device; measured 2.1e-6 and 1.1e-6 */
  check (2, 48, 10000, 5e-6);
  check (3, 16, 9000, 5e-6);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/compute/cuda-mri-model/small", test_model_small);
  return g_test_run ();
}
