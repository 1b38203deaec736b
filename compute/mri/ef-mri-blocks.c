/* ef-mri-blocks.c: the blocks of samples of a progressive F^H d, and the image edge a trajectory needs. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-mri"
#include "config.h"

#include <math.h>

#include "ef-error.h"
#include "ef-mri-blocks.h"

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
