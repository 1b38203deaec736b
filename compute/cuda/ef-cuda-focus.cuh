/* ef-cuda-focus.cuh: device code for autofocus: the sharpness sweeps' sums, PGA's projections of patches on pulses. */
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


/* ---- PGA's projections ---- */

#define EF_CUDA_PGA_C 299792458.0

__device__ __forceinline__ void
pga_position (const EfCudaPgaGrid &gr, double col, double row, double x[3])
{
  for (int k = 0; k < 3; k++)
    x[k] = gr.origin[k] + col * gr.du[k] + row * gr.dv[k];
}

__device__ __forceinline__ double
pga_half_range (const double *pu, const double x[3])
{
  double t = 0, r = 0;

  for (int k = 0; k < 3; k++)
    {
      t += (pu[k] - x[k]) * (pu[k] - x[k]);
      r += (pu[3 + k] - x[k]) * (pu[3 + k] - x[k]);
    }
  return 0.5 * (sqrt (t) + sqrt (r));
}

__device__ __forceinline__ double2
cmul (double2 a, double2 b)
{
  return make_double2 (a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}

/* exp(j (a + b t + c t^2)) for t = 0, 1, ... by two products a step (ef-pga-project.c's Chirp). */
struct PgaChirp {
  double2 e, step, turn;

  __device__ void
  init (double a, double b, double c)
  {
    sincos (a, &e.y, &e.x);
    sincos (b + c, &step.y, &step.x);
    sincos (2 * c, &turn.y, &turn.x);
  }

  __device__ __forceinline__ void
  next ()
  {
    e = cmul (e, step);
    step = cmul (step, turn);
  }
};

/* One thread a pulse, one block row a patch: each row of the patch is read through shared memory a tile
 * at a time and every thread follows its pulse's quadratic of differential range along it, the sums as
 * ef-pga-project.c's project_fast takes them (in double, row by row). */
__global__ void __launch_bounds__ (EF_CUDA_PGA_THREADS)
pga_kernel (const float2 *__restrict__ img, EfCudaPgaGrid gr, const double *__restrict__ pulse,
            unsigned long long n, unsigned ns, const unsigned *__restrict__ patch, unsigned win, unsigned half_h,
            double2 *__restrict__ g)
{
  __shared__ float2 tile[EF_CUDA_PGA_TILE];
  const unsigned j = blockIdx.y;
  const unsigned long long i = (unsigned long long) blockIdx.x * blockDim.x + threadIdx.x;
  const bool live = i < n;
  const unsigned prow = patch[2 * j], pcol = patch[2 * j + 1];
  const unsigned r0 = prow >= half_h ? prow - half_h : 0;
  const unsigned r1 = min (prow + half_h, gr.height - 1);
  const long long lo = (long long) pcol - (long long) (win / 2);
  const unsigned c0 = (unsigned) max (lo, 0LL);
  const unsigned c1 = (unsigned) min (lo + (long long) win, (long long) gr.width);
  double pu[EF_CUDA_PGA_PULSE_DOUBLES] = { 0 };
  double X[3], rx = 0, kp = 0, kh = 0, te = (double) (c1 - 1 - c0), tm = floor (0.5 * te);
  double2 acc = make_double2 (0, 0);

  if (live)
    for (int k = 0; k < EF_CUDA_PGA_PULSE_DOUBLES; k++)
      pu[k] = pulse[i * EF_CUDA_PGA_PULSE_DOUBLES + k];
  pga_position (gr, pcol, prow, X);
  rx = pga_half_range (pu, X);
  kp = 4 * M_PI * pu[6] / EF_CUDA_PGA_C;
  kh = 2 * M_PI * pu[7] / EF_CUDA_PGA_C;
  for (unsigned row = r0; row <= r1; row++)
    {
      double x[3], d0, dm, de, q1, q2;
      double2 racc = make_double2 (0, 0);
      PgaChirp car, one, all;

      pga_position (gr, c0, row, x);
      d0 = pga_half_range (pu, x) - rx;
      pga_position (gr, c0 + tm, row, x);
      dm = pga_half_range (pu, x) - rx;
      pga_position (gr, c0 + te, row, x);
      de = pga_half_range (pu, x) - rx;
      if (te > tm && tm > 0)
        {
          q2 = ((de - d0) / te - (dm - d0) / tm) / (te - tm);
          q1 = (dm - d0) / tm - q2 * tm;
        }
      else
        {
          q2 = 0;
          q1 = te > 0 ? (de - d0) / te : 0;
        }
      car.init (kp * d0, kp * q1, kp * q2);
      one.init (kh * d0, kh * q1, kh * q2);
      all.init (ns * kh * d0, ns * kh * q1, ns * kh * q2);
      for (unsigned t0 = c0; t0 < c1; t0 += EF_CUDA_PGA_TILE)
        {
          const unsigned cnt = min ((unsigned) EF_CUDA_PGA_TILE, c1 - t0);

          __syncthreads ();
          for (unsigned k = threadIdx.x; k < cnt; k += blockDim.x)
            tile[k] = img[(size_t) row * gr.width + t0 + k];
          __syncthreads ();
          if (!live)
            continue;
          for (unsigned k = 0; k < cnt; k++)
            {
              const float2 v = tile[k];
              const double sd = one.e.y, amp = fabs (sd) > 1e-12 ? all.e.y / sd : (double) ns;
              const double ar = amp * v.x, ai = amp * v.y;

              /* amp v conj (car) */
              racc.x += ar * car.e.x + ai * car.e.y;
              racc.y += ai * car.e.x - ar * car.e.y;
              car.next ();
              one.next ();
              all.next ();
            }
        }
      acc.x += racc.x;
      acc.y += racc.y;
    }
  if (live)
    g[(size_t) j * n + i] = acc;
}

}  // namespace ef_cuda_focus
