/* ef-mri-blocks.h: the exact F^H d summed one block of samples at a time, for progressive display. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "ef-mri.h"

G_BEGIN_DECLS

/* Adds the contribution of samples [first, last) of t and d to out (one value per voxel of grid), so
 * that summing every block of a partition of [0, t->m) into zeros gives ef_mri_adjoint's F^H d up to
 * rounding. first == last adds nothing. The caller owns every buffer. n_threads 0: all. Blocks. */
gboolean ef_mri_adjoint_add_range (const EfMriTraj *t, const EfCf64 *d, gsize first, gsize last,
                                   const EfMriGrid *grid, EfCf64 *out, guint n_threads, GError **error);

/* The bounds of block b of n_blocks over m samples: [*first, *last), as even as integers allow. */
void     ef_mri_block_bounds (gsize m, guint n_blocks, guint b, gsize *first, gsize *last);

/* The image edge for a trajectory in cycles per FOV: the smallest even n whose Nyquist band
 * [-n/2, n/2) holds every |k| along x and y; at least 2. */
guint    ef_mri_traj_edge (const EfMriTraj *t);

G_END_DECLS
