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
  { 128, 1, FALSE, FALSE }, { 256, 1, FALSE, FALSE }, { 128, 2, FALSE, FALSE }, { 256, 2, FALSE, FALSE },
  { 128, 4, FALSE, FALSE }, { 64, 4, FALSE, FALSE }, { 128, 4, TRUE, FALSE }, { 256, 4, TRUE, FALSE },
  { 128, 8, TRUE, FALSE }, { 64, 8, TRUE, FALSE },
  { 256, 1, FALSE, TRUE }, { 128, 4, TRUE, TRUE }, { 256, 4, TRUE, TRUE }, { 64, 8, TRUE, TRUE },
  { 128, 8, TRUE, TRUE }, { 256, 8, TRUE, TRUE },
};

const char *
ef_cuda_mri_shape_name (guint shape)
{
  static char names[EF_CUDA_MRI_N_SHAPES][64];
  const EfCudaMriShape *sh;

  if (shape >= EF_CUDA_MRI_N_SHAPES)
    return "?";
  sh = &ef_cuda_mri_shapes[shape];
  if (names[shape][0] == '\0')
    g_snprintf (names[shape], sizeof names[shape], "%u x %u voxel%s%s, %s", sh->block, sh->voxels,
                sh->voxels > 1 ? "s" : "", sh->rotate ? " rotated" : "", sh->shared ? "shared" : "constant");
  return names[shape];
}
}

/* Threads that fill any current device several times over: the shared kernels cut the samples into as
 * many slices as it takes to launch this many. */
#define EF_CUDA_MRI_THREADS_WANTED (1ull << 21)

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

template <int V>
static void
launch_shared (cudaStream_t stream, const EfCudaMriArgs *a, unsigned block, dim3 grid, unsigned long long slice,
               bool q)
{
  if (q)
    shared_kernel<V, true><<<grid, block, 0, stream>>> (*a, slice);
  else
    shared_kernel<V, false><<<grid, block, 0, stream>>> (*a, slice);
}

/* The shared kernels: one launch, the samples in slices of whole tiles across blockIdx.y. */
static gboolean
run_shared (cudaStream_t stream, const EfCudaMriArgs *a, const EfCudaMriShape *sh, unsigned long long grid_x,
            guint *tiles, GError **error)
{
  unsigned long long threads = grid_x * sh->block;
  unsigned long long n_tiles = (a->m + EF_CUDA_MRI_TILE - 1) / EF_CUDA_MRI_TILE;
  unsigned long long n_slices = (EF_CUDA_MRI_THREADS_WANTED + threads - 1) / threads, per, slice;

  if (a->m == 0)
    return TRUE;
  n_slices = MIN (MAX (n_slices, 1ull), MIN (n_tiles, 65535ull));
  per = (n_tiles + n_slices - 1) / n_slices;
  slice = per * EF_CUDA_MRI_TILE;
  n_slices = (a->m + slice - 1) / slice;
  dim3 grid ((unsigned) grid_x, (unsigned) n_slices);
  switch (sh->voxels)
    {
    case 1: launch_shared<1> (stream, a, sh->block, grid, slice, a->im == NULL); break;
    case 4: launch_shared<4> (stream, a, sh->block, grid, slice, a->im == NULL); break;
    case 8: launch_shared<8> (stream, a, sh->block, grid, slice, a->im == NULL); break;
    default:
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT, "No kernel for %u voxels a thread",
                   sh->voxels);
      return FALSE;
    }
  if (!EF_LAUNCH_CHECK ("ef_cuda_mri::shared_kernel", error))
    return FALSE;
  *tiles = (guint) n_slices;
  return TRUE;
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
  if (sh->shared)
    return run_shared (stream, a, sh, grid, tiles, error);
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
