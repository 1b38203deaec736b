/* ef-cuda-mri-private.h: what ef-cuda-mri.c and its kernels share: the launch arguments and wrapper. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>
#include <cuda_runtime_api.h>

G_BEGIN_DECLS

/* Samples a tile holds in constant memory: seven floats each (k, d's parts or the weight, and the
 * phasor of a step along x), 56 KiB of the 64. */
#define EF_CUDA_MRI_TILE 2048u
/* Samples the shared-memory kernels stage at a time: 32 bytes each, 8 KiB. EF_CUDA_MRI_TILE is a
 * multiple of it, so their float sums span the same 2048 samples as the constant-memory kernels'. */
#define EF_CUDA_MRI_CHUNK 256u

typedef struct {
  unsigned nx, ny, nz;       /* voxels along each axis (1 beyond the grid's dimensions) */
  float    spacing;          /* voxel pitch in FOV units */
  unsigned long long n_vox;
  const float *kx, *ky, *kz; /* device, m each (kz zeros in 2-D) */
  const float *re, *im;      /* device, m each: d's parts, or the weights (im NULL: Q) */
  const float *stc, *sts;    /* device, m each: cos and sin of 2 pi kx spacing */
  unsigned long long m;
  double  *out;              /* device, 2 n_vox: the float64 accumulator, zeroed by the caller */
} EfCudaMriArgs;

/* Runs every tile: copies it into constant memory and launches the kernel of shape index `shape` on
 * stream. FALSE with error on a failed copy or launch. Does not wait. */
gboolean ef_cuda_mri_run_tiles (cudaStream_t stream, const EfCudaMriArgs *a, guint shape, guint *tiles,
                                GError **error);

G_END_DECLS
