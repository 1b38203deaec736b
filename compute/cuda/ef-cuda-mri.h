/* ef-cuda-mri.h: the exact non-Cartesian sums F^H d and Q on a CUDA device. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* Plain C: no CUDA header. */
#include "ef-types.h"
#include "ef-mri.h"

G_BEGIN_DECLS

/* The launch shapes the kernels come in: threads per block and voxels each thread accumulates; with
 * rotate, the voxels are consecutive along x (the grid's nx must be a multiple of them) and share one
 * __sincosf a sample, the others rotated from it; without, they are a block apart and each has its own. */
typedef struct {
  guint    block;
  guint    voxels;
  gboolean rotate;
} EfCudaMriShape;

#define EF_CUDA_MRI_N_SHAPES 10
extern const EfCudaMriShape ef_cuda_mri_shapes[EF_CUDA_MRI_N_SHAPES];
/* The shape used when none is asked for (-1). */
#define EF_CUDA_MRI_DEFAULT_SHAPE 2

typedef struct {
  double h2d_ms;      /* the samples in (and their conversion to float) */
  double kernel_ms;   /* every tile: its copy into constant memory and its kernel */
  double d2h_ms;      /* the image out */
  guint  tiles;
} EfCudaMriTiming;

/* The sum over samples for every voxel of grid, on the device (device < 0: the current one):
 * F^H d when d is given, Q with weights w (NULL: 1) when d is NULL. The samples are cut into tiles that
 * go through constant memory; each thread keeps `voxels` voxels' sums in float across a tile (phase in
 * cycles, reduced, then the hardware __sincosf) and adds them to a float64 accumulator after each tile.
 * shape: an index into ef_cuda_mri_shapes, or -1. out (caller's) receives one value per voxel. timing may
 * be NULL. FALSE with error (no device: EF_COMPUTE_ERROR_NO_DEVICE; too little memory:
 * EF_COMPUTE_ERROR_NO_MEMORY). Blocks until the result is in out. */
gboolean ef_cuda_mri_sum (int device, const EfMriTraj *t, const EfCf32 *d, const float *w, const EfMriGrid *grid,
                          int shape, EfCf64 *out, EfCudaMriTiming *timing, GError **error);

G_END_DECLS
