/* ef-mri-blocks.c: the exact F^H d over one block of samples, added into a running image. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-mri"
#include "config.h"

#include <math.h>

#include "ef-error.h"
#include "ef-mri-blocks.h"

gboolean
ef_mri_adjoint_add_range (const EfMriTraj *t, const EfCf64 *d, gsize first, gsize last, const EfMriGrid *grid,
                          EfCf64 *out, guint n_threads, GError **error)
{
  g_autofree EfCf64 *part = NULL;
  EfMriTraj sub;
  gsize nv;

  g_return_val_if_fail (t != NULL && d != NULL && grid != NULL && out != NULL, FALSE);
  if (first > last || last > t->m)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "Samples %" G_GSIZE_FORMAT " to %" G_GSIZE_FORMAT " are outside the %" G_GSIZE_FORMAT
                   " of the trajectory", first, last, t->m);
      return FALSE;
    }
  nv = ef_mri_grid_voxels (grid, error);
  if (nv == 0)
    return FALSE;
  if (first == last)
    return TRUE;
  part = g_try_new (EfCf64, nv);
  if (part == NULL)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_MEMORY, "No memory for %" G_GSIZE_FORMAT " voxels", nv);
      return FALSE;
    }
  /* a view of the block: the same layout, borrowed */
  sub.dim = t->dim;
  sub.m = last - first;
  sub.k = t->k + first * t->dim;
  if (!ef_mri_adjoint (&sub, d + first, grid, part, n_threads, error))
    return FALSE;
  for (gsize v = 0; v < nv; v++)
    out[v] += part[v];
  return TRUE;
}

void
ef_mri_block_bounds (gsize m, guint n_blocks, guint b, gsize *first, gsize *last)
{
  g_return_if_fail (n_blocks > 0 && b < n_blocks);
  /* m * b / n_blocks without overflow: m < 2^32 by EF_MRI_MAX_SAMPLES, n_blocks < 2^32 */
  *first = (gsize) ((guint64) m * b / n_blocks);
  *last = (gsize) ((guint64) m * (b + 1) / n_blocks);
}

guint
ef_mri_traj_edge (const EfMriTraj *t)
{
  double kmax = 0;
  guint n;

  g_return_val_if_fail (t != NULL, 2);
  for (gsize i = 0; i < t->m; i++)
    for (guint a = 0; a < MIN (t->dim, 2u); a++)
      kmax = MAX (kmax, fabs (t->k[i * t->dim + a]));
  /* k in [-n/2, n/2): n/2 >= kmax, rounded up to an even edge; tolerate rounding just above an integer */
  if (!(kmax < EF_MRI_MAX_EDGE / 2))
    return EF_MRI_MAX_EDGE;
  n = 2 * (guint) ceil (kmax - 1e-9);
  return MAX (n, 2u);
}
