/* ef-mri-blocks.h: the blocks of samples of a progressive F^H d, and the image edge a trajectory needs. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "ef-mri.h"

G_BEGIN_DECLS

/* A block's sum is ef_mri_run_sum_add (ef-mri-accel.h), on the CPU or an accelerator. */

/* The bounds of block b of n_blocks over m samples: [*first, *last), as even as integers allow. */
void     ef_mri_block_bounds (gsize m, guint n_blocks, guint b, gsize *first, gsize *last);

/* The image edge for a trajectory in cycles per FOV: the smallest even n whose Nyquist band
 * [-n/2, n/2) holds every |k| along x and y; at least 2. */
guint    ef_mri_traj_edge (const EfMriTraj *t);

G_END_DECLS
