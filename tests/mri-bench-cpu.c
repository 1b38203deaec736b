/* mri-bench-cpu.c: CPU times of the exact F^H d and Q sums, CG and gridding at small sizes. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <complex.h>
#include <stdio.h>
#include <stdlib.h>

#include "ef-mri.h"
#include "ef-mri-cg.h"
#include "ef-mri-gridding.h"
#include "ef-mri-phantom.h"

/*
 *   mri-bench-cpu [THREADS]
 *
 * 3-D: the phantom on a stack of spirals, 12^3 voxels and 8 x 4 x 512 = 16,384 samples: F^H d in fp64
 * and fp32, Q on the doubled grid. 2-D: 64^2 voxels, 100 radial spokes of 128: F^H d, Q, one CG
 * iteration, gridding (width 4). Seconds and sample-voxel pairs per second.
 */
#define TIME(label, pairs, expr) \
  G_STMT_START { \
    gint64 t0_ = g_get_monotonic_time (); \
    gboolean ok_ = (expr); \
    double s_ = (g_get_monotonic_time () - t0_) / 1e6; \
    if (!ok_) { fprintf (stderr, "mri-bench-cpu: %s failed\n", label); return 1; } \
    printf ("%-36s %8.3f s  %10.3g pairs/s\n", label, s_, (pairs) > 0 ? (pairs) / s_ : 0.0); \
  } G_STMT_END

int
main (int argc, char **argv)
{
  guint nt = argc > 1 ? (guint) strtoul (argv[1], NULL, 10) : 0;
  EfMriPhantom p3 = ef_mri_phantom_shepp_logan (3), p2 = ef_mri_phantom_shepp_logan (2);
  g_autoptr (EfMriTraj) t3 = ef_mri_traj_stack_of_spirals (12, 8, 4, 512, NULL);
  g_autoptr (EfMriTraj) t2 = ef_mri_traj_radial (64, 100, 128, NULL);
  EfMriGrid g3 = ef_mri_grid_image (3, 12), q3 = ef_mri_grid_doubled (&g3);
  EfMriGrid g2 = ef_mri_grid_image (2, 64), q2 = ef_mri_grid_doubled (&g2);
  g_autofree EfCf64 *d3 = g_new (EfCf64, t3->m), *d2 = g_new (EfCf64, t2->m);
  g_autofree EfCf32 *d3f = g_new (EfCf32, t3->m);
  g_autofree EfCf64 *out = g_new (EfCf64, 32 * 32 * 32), *q = g_new (EfCf64, 128 * 128), *b = g_new (EfCf64, 64 * 64);
  g_autofree EfCf64 *x = g_new0 (EfCf64, 64 * 64);
  g_autofree EfCf32 *out32 = g_new (EfCf32, 32 * 32 * 32);
  g_autofree double *area = g_new (double, t2->m);
  g_autoptr (EfMriToeplitz) T = NULL;
  EfMriCgParams prm = { .max_iter = 1 };
  EfMriCgReport rep;

  ef_mri_phantom_sample (&p3, t3, 1728, d3, nt);
  for (gsize i = 0; i < t3->m; i++)
    d3f[i] = (EfCf32) d3[i];
  ef_mri_phantom_sample (&p2, t2, 4096, d2, nt);
  ef_mri_density_radial (64, 100, 128, area);
  for (gsize i = 0; i < t2->m; i++)
    d2[i] *= area[i] / 4096;
  printf ("# threads %u (0: all)\n", nt);
  TIME ("3-D F^H d fp64, 12^3 x 16384", 1728.0 * t3->m, ef_mri_adjoint (t3, d3, &g3, out, nt, NULL));
  TIME ("3-D F^H d fp32, 12^3 x 16384", 1728.0 * t3->m, ef_mri_adjoint_f32 (t3, d3f, &g3, out32, nt, NULL));
  TIME ("3-D Q fp64, 24^3 x 16384", 13824.0 * t3->m, ef_mri_q (t3, NULL, &q3, out, nt, NULL));
  TIME ("3-D Q fp32, 24^3 x 16384", 13824.0 * t3->m, ef_mri_q_f32 (t3, NULL, &q3, out32, nt, NULL));
  TIME ("2-D F^H d fp64, 64^2 x 12800", 4096.0 * t2->m, ef_mri_adjoint (t2, d2, &g2, b, nt, NULL));
  TIME ("2-D Q fp64, 128^2 x 12800", 16384.0 * t2->m, ef_mri_q (t2, area, &q2, q, nt, NULL));
  TIME ("2-D Toeplitz set-up (FFTW plans)", 0, (T = ef_mri_toeplitz_new (&g2, q, NULL)) != NULL);
  TIME ("2-D CG, 1 iteration", 0, ef_mri_cg (T, b, &prm, x, &rep, NULL));
  ef_mri_cg_report_clear (&rep);
  TIME ("2-D gridding, KB width 4", 0, ef_mri_gridding (t2, d2, &g2, 4, out, NULL));
  return 0;
}
