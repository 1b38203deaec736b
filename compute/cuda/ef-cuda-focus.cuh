/* ef-cuda-focus.cuh: device code for the sharpness sweeps: the turned blocks' sum and each block's two sums. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <cuda_runtime.h>

#include "ef-cuda-focus-private.h"

namespace ef_cuda_focus {

__device__ __forceinline__ double
warp_sum (double v)
{
  for (int o = 16; o > 0; o >>= 1)
    v += __shfl_down_sync (0xffffffffu, v, o);
  return v;
}

__global__ void
add_kernel (double2 *__restrict__ img, const float2 *__restrict__ b, double cr, double ci, size_t n)
{
  for (size_t i = (size_t) blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t) gridDim.x * blockDim.x)
    {
      float2 v = b[i];
      double2 s = img[i];

      s.x += cr * v.x - ci * v.y;
      s.y += cr * v.y + ci * v.x;
      img[i] = s;
    }
}

/* The CPU's ef_focus_sweep_step (compute/focus/ef-sharpness.c), pixel for pixel in double; the sums go
 * through a warp's shuffles and the block's shared memory to one partial a block, which the host adds
 * in block order. */
__global__ void __launch_bounds__ (EF_CUDA_FOCUS_THREADS)
step_kernel (double2 *__restrict__ img, const float2 *__restrict__ prev, double pcr, double pci,
             const float2 *__restrict__ b, double rr, double ri, size_t n, double *__restrict__ partials)
{
  __shared__ double sh[4][EF_CUDA_FOCUS_THREADS / 32];
  double ar = 0, ai = 0, br = 0, bi = 0;
  int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;

  for (size_t i = (size_t) blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t) gridDim.x * blockDim.x)
    {
      double2 s = img[i];
      float2 bv = b[i];
      double bre = bv.x, bim = bv.y, rre, rim, zr, zi, a;

      if (prev != nullptr)
        {
          float2 p = prev[i];

          s.x += pcr * p.x - pci * p.y;
          s.y += pcr * p.y + pci * p.x;
          img[i] = s;
        }
      /* r = img - rot b; z = b conj (r); A = |b|^2 + |r|^2. */
      rre = s.x - (rr * bre - ri * bim);
      rim = s.y - (rr * bim + ri * bre);
      zr = bre * rre + bim * rim;
      zi = bim * rre - bre * rim;
      a = bre * bre + bim * bim + rre * rre + rim * rim;
      ar += a * zr;
      ai += a * zi;
      br += zr * zr - zi * zi;
      bi += 2 * zr * zi;
    }
  ar = warp_sum (ar);
  ai = warp_sum (ai);
  br = warp_sum (br);
  bi = warp_sum (bi);
  if (lane == 0)
    {
      sh[0][warp] = ar;
      sh[1][warp] = ai;
      sh[2][warp] = br;
      sh[3][warp] = bi;
    }
  __syncthreads ();
  if (threadIdx.x < 4)
    {
      double t = 0;

      for (int w = 0; w < EF_CUDA_FOCUS_THREADS / 32; w++)
        t += sh[threadIdx.x][w];
      partials[4 * (size_t) blockIdx.x + threadIdx.x] = t;
    }
}

}  // namespace ef_cuda_focus
