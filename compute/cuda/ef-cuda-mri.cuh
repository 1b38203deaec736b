/* ef-cuda-mri.cuh: device code for the exact F^H d and Q sums: k-space tiles in constant memory. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <cuda_runtime.h>

#include "ef-cuda-mri-private.h"

namespace ef_cuda_mri {

/* One tile of samples, structure of arrays: every thread of a warp reads the same sample in the same
 * cycle, which the constant cache broadcasts. */
__constant__ float c_kx[EF_CUDA_MRI_TILE];
__constant__ float c_ky[EF_CUDA_MRI_TILE];
__constant__ float c_kz[EF_CUDA_MRI_TILE];
__constant__ float c_re[EF_CUDA_MRI_TILE];
__constant__ float c_im[EF_CUDA_MRI_TILE];
/* The phasor of one voxel's step along x, exp(j 2 pi kx dx), for the rotating kernels. */
__constant__ float c_stc[EF_CUDA_MRI_TILE];
__constant__ float c_sts[EF_CUDA_MRI_TILE];

/* t minus its nearest integer, by adding and removing 1.5 * 2^23 (exact for |t| < 2^22): two adds on the
 * FMA pipe instead of a rounding instruction. The _rn intrinsics keep the compiler from contracting them. */
__device__ __forceinline__ float
reduce_cycles (float t)
{
  const float magic = 12582912.0f;
  float r = __fsub_rn (__fadd_rn (t, magic), magic);
  return t - r;
}

/* V voxels a thread, strided by the block so that the accumulator's reads and writes coalesce; Q: real
 * weights, no imaginary part. */
template <int V, bool Q>
__global__ void
sum_kernel (EfCudaMriArgs a, unsigned n_tile)
{
  const unsigned long long base = (unsigned long long) blockIdx.x * blockDim.x * V + threadIdx.x;
  float x[V], y[V], z[V], sr[V], si[V];

#pragma unroll
  for (int v = 0; v < V; v++)
    {
      unsigned long long idx = base + (unsigned long long) v * blockDim.x;
      unsigned long long i = idx < a.n_vox ? idx : 0;
      unsigned ix = (unsigned) (i % a.nx), iy = (unsigned) ((i / a.nx) % a.ny);
      unsigned iz = (unsigned) (i / ((unsigned long long) a.nx * a.ny));

      x[v] = ((float) ix - (float) (a.nx / 2)) * a.spacing;
      y[v] = ((float) iy - (float) (a.ny / 2)) * a.spacing;
      z[v] = ((float) iz - (float) (a.nz / 2)) * a.spacing;
      sr[v] = 0.0f;
      si[v] = 0.0f;
    }
  for (unsigned s = 0; s < n_tile; s++)
    {
      const float kx = c_kx[s], ky = c_ky[s], kz = c_kz[s], dr = c_re[s];
      const float di = Q ? 0.0f : c_im[s];

#pragma unroll
      for (int v = 0; v < V; v++)
        {
          float t = reduce_cycles (kx * x[v] + ky * y[v] + kz * z[v]);
          float sn, cs;

          __sincosf (6.28318530717958647692f * t, &sn, &cs);
          if (Q)
            {
              sr[v] += dr * cs;
              si[v] += dr * sn;
            }
          else
            {
              sr[v] += dr * cs - di * sn;
              si[v] += dr * sn + di * cs;
            }
        }
    }
#pragma unroll
  for (int v = 0; v < V; v++)
    {
      unsigned long long idx = base + (unsigned long long) v * blockDim.x;
      if (idx < a.n_vox)
        {
          a.out[2 * idx] += sr[v];
          a.out[2 * idx + 1] += si[v];
        }
    }
}

/* V voxels a thread, consecutive along x (nx a multiple of V): one __sincosf for the first, then the
 * sample's phasor rotated by the step along x for the others, which trades V - 1 pairs of special-function
 * instructions for V - 1 complex multiplications on the FMA pipe. */
template <int V, bool Q>
__global__ void
rotate_kernel (EfCudaMriArgs a, unsigned n_tile)
{
  const unsigned long long idx0 = ((unsigned long long) blockIdx.x * blockDim.x + threadIdx.x) * V;
  const unsigned long long i = idx0 < a.n_vox ? idx0 : 0;
  const unsigned ix = (unsigned) (i % a.nx), iy = (unsigned) ((i / a.nx) % a.ny);
  const unsigned iz = (unsigned) (i / ((unsigned long long) a.nx * a.ny));
  const float x = ((float) ix - (float) (a.nx / 2)) * a.spacing;
  const float y = ((float) iy - (float) (a.ny / 2)) * a.spacing;
  const float z = ((float) iz - (float) (a.nz / 2)) * a.spacing;
  float sr[V], si[V];

#pragma unroll
  for (int v = 0; v < V; v++)
    {
      sr[v] = 0.0f;
      si[v] = 0.0f;
    }
  for (unsigned s = 0; s < n_tile; s++)
    {
      const float dr = c_re[s], di = Q ? 0.0f : c_im[s], sc = c_stc[s], ss = c_sts[s];
      float t = reduce_cycles (c_kx[s] * x + c_ky[s] * y + c_kz[s] * z);
      float sn, cs, pr, pi;

      __sincosf (6.28318530717958647692f * t, &sn, &cs);
      pr = Q ? dr * cs : dr * cs - di * sn;
      pi = Q ? dr * sn : dr * sn + di * cs;
#pragma unroll
      for (int v = 0; v < V; v++)
        {
          sr[v] += pr;
          si[v] += pi;
          if (v + 1 < V)
            {
              float nr = pr * sc - pi * ss;
              pi = pr * ss + pi * sc;
              pr = nr;
            }
        }
    }
  if (idx0 < a.n_vox)
    {
#pragma unroll
      for (int v = 0; v < V; v++)
        {
          a.out[2 * (idx0 + v)] += sr[v];
          a.out[2 * (idx0 + v) + 1] += si[v];
        }
    }
}

/* One launch for every sample: blockIdx.y picks a slice of a.slice samples, staged through shared memory
 * EF_CUDA_MRI_CHUNK at a time (every thread of a warp then reads the same sample, which shared memory
 * broadcasts); V voxels a thread, consecutive along x, one __sincosf a sample and the others rotated
 * from it as in rotate_kernel. The float sums go into double every EF_CUDA_MRI_TILE samples, as the
 * constant-memory kernels' do after each tile, and each slice's double sums are added atomically. */
template <int V, bool Q>
__global__ void __launch_bounds__ (256)
shared_kernel (EfCudaMriArgs a, unsigned long long slice)
{
  __shared__ float4 s_k[EF_CUDA_MRI_CHUNK];   /* kx, ky, kz, re */
  __shared__ float4 s_e[EF_CUDA_MRI_CHUNK];   /* im, step cos, step sin, - */
  const unsigned long long idx0 = ((unsigned long long) blockIdx.x * blockDim.x + threadIdx.x) * V;
  const unsigned long long i = idx0 < a.n_vox ? idx0 : 0;
  const unsigned ix = (unsigned) (i % a.nx), iy = (unsigned) ((i / a.nx) % a.ny);
  const unsigned iz = (unsigned) (i / ((unsigned long long) a.nx * a.ny));
  const float x = ((float) ix - (float) (a.nx / 2)) * a.spacing;
  const float y = ((float) iy - (float) (a.ny / 2)) * a.spacing;
  const float z = ((float) iz - (float) (a.nz / 2)) * a.spacing;
  const unsigned long long s0 = (unsigned long long) blockIdx.y * slice;
  const unsigned long long s1 = s0 + slice < a.m ? s0 + slice : a.m;
  double ar[V], ai[V];
  float sr[V], si[V];
  unsigned since = 0;

#pragma unroll
  for (int v = 0; v < V; v++)
    {
      ar[v] = ai[v] = 0.0;
      sr[v] = si[v] = 0.0f;
    }
  for (unsigned long long c = s0; c < s1; c += EF_CUDA_MRI_CHUNK)
    {
      const unsigned n = (unsigned) (s1 - c < EF_CUDA_MRI_CHUNK ? s1 - c : EF_CUDA_MRI_CHUNK);

      __syncthreads ();
      for (unsigned j = threadIdx.x; j < n; j += blockDim.x)
        {
          s_k[j] = make_float4 (a.kx[c + j], a.ky[c + j], a.kz[c + j], a.re[c + j]);
          s_e[j] = make_float4 (Q ? 0.0f : a.im[c + j], a.stc[c + j], a.sts[c + j], 0.0f);
        }
      __syncthreads ();
#pragma unroll 2
      for (unsigned s = 0; s < n; s++)
        {
          const float4 k = s_k[s], e = s_e[s];
          float t = reduce_cycles (k.x * x + k.y * y + k.z * z);
          float sn, cs, pr, pi;

          __sincosf (6.28318530717958647692f * t, &sn, &cs);
          pr = Q ? k.w * cs : k.w * cs - e.x * sn;
          pi = Q ? k.w * sn : k.w * sn + e.x * cs;
#pragma unroll
          for (int v = 0; v < V; v++)
            {
              sr[v] += pr;
              si[v] += pi;
              if (v + 1 < V)
                {
                  float nr = pr * e.y - pi * e.z;
                  pi = pr * e.z + pi * e.y;
                  pr = nr;
                }
            }
        }
      since += n;
      if (since >= EF_CUDA_MRI_TILE)
        {
#pragma unroll
          for (int v = 0; v < V; v++)
            {
              ar[v] += sr[v];
              ai[v] += si[v];
              sr[v] = si[v] = 0.0f;
            }
          since = 0;
        }
    }
  if (idx0 < a.n_vox)
    {
#pragma unroll
      for (int v = 0; v < V; v++)
        {
          atomicAdd (&a.out[2 * (idx0 + v)], ar[v] + sr[v]);
          atomicAdd (&a.out[2 * (idx0 + v) + 1], ai[v] + si[v]);
        }
    }
}

}  // namespace ef_cuda_mri
