/* mri-npy.c: writes a fresh random k-space problem and the engine's F^H d (fp64, fp32) as .npy files. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <complex.h>
#include <stdio.h>
#include <stdlib.h>

#include "ef-mri.h"
#include "ef-npy.h"

/*
 *   mri-npy DIR DIM N M [SEED]
 *
 * writes DIR/k.npy (M x DIM float64, cycles per FOV, uniform in [-N/2, N/2)), DIR/d.npy (M complex128),
 * DIR/fhd64.npy (complex128) and DIR/fhd32.npy (complex64), both of shape (N, N) or (N, N, N) in C order
 * with x fastest: voxel (.., iy, ix) at x = (ix - N/2) / N. Exit 0, or 1 with a message.
 */
int
main (int argc, char **argv)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (EfMriTraj) t = NULL;
  g_autofree EfCf64 *d = NULL, *out = NULL;
  g_autofree EfCf32 *d32 = NULL, *out32 = NULL;
  g_autoptr (GRand) rng = NULL;
  g_autofree char *pk = NULL, *pd = NULL, *p64 = NULL, *p32 = NULL;
  EfMriGrid g;
  guint dim, n;
  gsize m, nv;
  guint64 shape[3], kshape[2];

  if (argc < 5)
    {
      fprintf (stderr, "usage: %s DIR DIM N M [SEED]\n", argv[0]);
      return 1;
    }
  dim = (guint) strtoul (argv[2], NULL, 10);
  n = (guint) strtoul (argv[3], NULL, 10);
  m = (gsize) strtoull (argv[4], NULL, 10);
  rng = argc > 5 ? g_rand_new_with_seed ((guint32) strtoul (argv[5], NULL, 10)) : g_rand_new ();
  g = ef_mri_grid_image (dim, n);
  nv = ef_mri_grid_voxels (&g, &error);
  if (nv == 0 || nv > (1u << 22) || (t = ef_mri_traj_new (dim, m, &error)) == NULL)
    {
      fprintf (stderr, "mri-npy: %s\n", error != NULL ? error->message : "too many voxels for a test");
      return 1;
    }
  d = g_new (EfCf64, m);
  d32 = g_new (EfCf32, m);
  out = g_new (EfCf64, nv);
  out32 = g_new (EfCf32, nv);
  for (gsize i = 0; i < m * dim; i++)
    t->k[i] = g_rand_double_range (rng, -(double) n / 2, (double) n / 2);
  for (gsize i = 0; i < m; i++)
    {
      d[i] = g_rand_double_range (rng, -1, 1) + I * g_rand_double_range (rng, -1, 1);
      d32[i] = (EfCf32) d[i];
    }
  if (!ef_mri_adjoint (t, d, &g, out, 0, &error) || !ef_mri_adjoint_f32 (t, d32, &g, out32, 0, &error))
    {
      fprintf (stderr, "mri-npy: %s\n", error->message);
      return 1;
    }
  for (guint a = 0; a < dim; a++)
    shape[a] = n;
  kshape[0] = m;
  kshape[1] = dim;
  pk = g_build_filename (argv[1], "k.npy", NULL);
  pd = g_build_filename (argv[1], "d.npy", NULL);
  p64 = g_build_filename (argv[1], "fhd64.npy", NULL);
  p32 = g_build_filename (argv[1], "fhd32.npy", NULL);
  if (!ef_npy_write_array (pk, "<f8", 2, kshape, sizeof (double), t->k, &error)
      || !ef_npy_write_array (pd, "<c16", 1, kshape, sizeof (EfCf64), d, &error)
      || !ef_npy_write_array (p64, "<c16", dim, shape, sizeof (EfCf64), out, &error)
      || !ef_npy_write_array (p32, "<c8", dim, shape, sizeof (EfCf32), out32, &error))
    {
      fprintf (stderr, "mri-npy: %s\n", error->message);
      return 1;
    }
  return 0;
}
