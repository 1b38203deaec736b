/* ef-cuda-mri.cu: launch wrappers for the F^H d and Q kernels, tile by tile through constant memory. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-cuda-mri"
#include "config.h"

#include "ef-cuda-private.h"
#include "ef-cuda-mri.h"
#include "ef-cuda-mri.cuh"

using namespace ef_cuda_mri;

#define EF_LAUNCH_CHECK(name, error) \
  ef_cuda_check_ ((int) cudaGetLastError (), name "<<<>>>", __FILE__, __LINE__, (error))

extern "C" {
/* Kept small: the experiment-driven search of the reference study found a few hundred threads per block
 * and a few voxels per thread best; run.sh's mri step times each. */
const EfCudaMriShape ef_cuda_mri_shapes[EF_CUDA_MRI_N_SHAPES] = {
  { 128, 1, FALSE }, { 256, 1, FALSE }, { 128, 2, FALSE }, { 256, 2, FALSE }, { 128, 4, FALSE }, { 64, 4, FALSE },
  { 128, 4, TRUE }, { 256, 4, TRUE }, { 128, 8, TRUE }, { 64, 8, TRUE },
};
}

template <int V>
static void
launch (cudaStream_t stream, const EfCudaMriArgs *a, unsigned block, unsigned grid, unsigned n_tile, bool q)
{
  if (q)
    sum_kernel<V, true><<<grid, block, 0, stream>>> (*a, n_tile);
  else
    sum_kernel<V, false><<<grid, block, 0, stream>>> (*a, n_tile);
}

template <int V>
static void
launch_rotate (cudaStream_t stream, const EfCudaMriArgs *a, unsigned block, unsigned grid, unsigned n_tile, bool q)
{
  if (q)
    rotate_kernel<V, true><<<grid, block, 0, stream>>> (*a, n_tile);
  else
    rotate_kernel<V, false><<<grid, block, 0, stream>>> (*a, n_tile);
}

extern "C" gboolean
ef_cuda_mri_run_tiles (cudaStream_t stream, const EfCudaMriArgs *a, guint shape, guint *tiles, GError **error)
{
  const EfCudaMriShape *sh;
  unsigned long long per_block, grid;
  bool q = a->im == NULL;

  if (shape >= EF_CUDA_MRI_N_SHAPES)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT, "No kernel shape %u", shape);
      return FALSE;
    }
  sh = &ef_cuda_mri_shapes[shape];
  if (sh->rotate && a->nx % sh->voxels != 0)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "Kernel shape %u takes %u voxels along x a thread: a grid %u voxels wide does not divide", shape,
                   sh->voxels, a->nx);
      return FALSE;
    }
  per_block = (unsigned long long) sh->block * sh->voxels;
  grid = (a->n_vox + per_block - 1) / per_block;
  if (grid == 0 || grid > 0x7fffffffull)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "Launch grid %llu is outside the device's limits", grid);
      return FALSE;
    }
  *tiles = 0;
  for (unsigned long long s0 = 0; s0 < a->m; s0 += EF_CUDA_MRI_TILE)
    {
      unsigned n = (unsigned) MIN ((unsigned long long) EF_CUDA_MRI_TILE, a->m - s0);
      size_t bytes = (size_t) n * sizeof (float);

      /* Copies into constant memory are ordered with the kernels on the same stream. */
      EF_CUDA_CHECK (cudaMemcpyToSymbolAsync (c_kx, a->kx + s0, bytes, 0, cudaMemcpyDeviceToDevice, stream), error);
      EF_CUDA_CHECK (cudaMemcpyToSymbolAsync (c_ky, a->ky + s0, bytes, 0, cudaMemcpyDeviceToDevice, stream), error);
      EF_CUDA_CHECK (cudaMemcpyToSymbolAsync (c_kz, a->kz + s0, bytes, 0, cudaMemcpyDeviceToDevice, stream), error);
      EF_CUDA_CHECK (cudaMemcpyToSymbolAsync (c_re, a->re + s0, bytes, 0, cudaMemcpyDeviceToDevice, stream), error);
      if (!q)
        EF_CUDA_CHECK (cudaMemcpyToSymbolAsync (c_im, a->im + s0, bytes, 0, cudaMemcpyDeviceToDevice, stream),
                       error);
      if (sh->rotate)
        {
          EF_CUDA_CHECK (cudaMemcpyToSymbolAsync (c_stc, a->stc + s0, bytes, 0, cudaMemcpyDeviceToDevice, stream),
                         error);
          EF_CUDA_CHECK (cudaMemcpyToSymbolAsync (c_sts, a->sts + s0, bytes, 0, cudaMemcpyDeviceToDevice, stream),
                         error);
        }
      switch (sh->voxels + (sh->rotate ? 100 : 0))
        {
        case 1: launch<1> (stream, a, sh->block, (unsigned) grid, n, q); break;
        case 2: launch<2> (stream, a, sh->block, (unsigned) grid, n, q); break;
        case 4: launch<4> (stream, a, sh->block, (unsigned) grid, n, q); break;
        case 104: launch_rotate<4> (stream, a, sh->block, (unsigned) grid, n, q); break;
        case 108: launch_rotate<8> (stream, a, sh->block, (unsigned) grid, n, q); break;
        default:
          g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT, "No kernel for %u voxels a thread",
                       sh->voxels);
          return FALSE;
        }
      if (!EF_LAUNCH_CHECK ("ef_cuda_mri::sum_kernel", error))
        return FALSE;
      (*tiles)++;
    }
  return TRUE;
}
