/* ef-cuda-arcs.cuh: device code for temporal arc coherence (three mappings), the periodogram and pixel scores. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <cuda_runtime.h>

#include "ef-cuda-arcs-private.h"
#include "ef-cuda-arcs-pixels.cuh"

namespace ef_cuda_arcs {

constexpr int kGraphPixels = 8;    /* a warp's graph: 8 neighbouring pixels of a row ... */
constexpr int kGraphOffsets = 4;   /* ... times 4 neighbouring offsets of the window */
constexpr int kPgThreads = 128;    /* arcs a periodogram block takes */
constexpr int kPgGrid = 32;        /* grid points a thread accumulates in registers at once */
constexpr int kPgPasses = 32;      /* passes of rotations staged in shared memory at once */

/* sum_k p_k conj (q_k) over the passes, in the order the CPU sums them. */
__device__ __forceinline__ float
arc_coherence (const float *__restrict__ re, const float *__restrict__ im, size_t plane, unsigned n, size_t p,
               size_t q)
{
  float ar = 0.0f, ai = 0.0f;

  for (unsigned k = 0; k < n; k++)
    {
      float pr = __ldg (re + k * plane + p), pi = __ldg (im + k * plane + p);
      float qr = __ldg (re + k * plane + q), qi = __ldg (im + k * plane + q);

      ar += pr * qr + pi * qi;
      ai += pi * qr - pr * qi;
    }
  return sqrtf (ar * ar + ai * ai) * (1.0f / n);
}

/* The arc from pixel (c, r) along offset o: its coherence, or NaN when the neighbour is outside. */
__device__ __forceinline__ float
arc_at (const EfCudaArcsArgs &a, unsigned c, unsigned r, unsigned o)
{
  int qc = (int) c + __ldg (a.off + 2 * o), qr = (int) r + __ldg (a.off + 2 * o + 1);
  size_t plane = (size_t) a.width * a.rows;

  if (qc < 0 || qc >= (int) a.width || qr >= (int) a.rows)
    return quiet_nan ();
  return arc_coherence (a.re, a.im, plane, a.n_passes, (size_t) r * a.width + c, (size_t) qr * a.width + qc);
}

/* Window-parallel: a thread a pixel, its window's arcs one after another. */
__global__ void
window_kernel (EfCudaArcsArgs a)
{
  unsigned c = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned r = blockIdx.y * blockDim.y + threadIdx.y;
  size_t plane = (size_t) a.width * a.rows;

  if (c >= a.width || r >= a.rows)
    return;
  for (unsigned o = 0; o < a.n_off; o++)
    a.coh[o * plane + (size_t) r * a.width + c] = arc_at (a, c, r, o);
}

/* Arc-parallel, first step: list each arc's ends and gather both ends' phasors into arc-major arrays. */
__global__ void
soa_gather_kernel (EfCudaArcsArgs a, EfCudaArcsSoa s)
{
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  size_t plane = (size_t) a.width * a.rows, arc, p, q;
  unsigned o, c, r;
  int qc, qr;
  bool inside;

  if (i >= s.n)
    return;
  arc = (size_t) s.a0 + i;
  o = (unsigned) (arc / plane);
  p = arc % plane;
  c = (unsigned) (p % a.width);
  r = (unsigned) (p / a.width);
  qc = (int) c + __ldg (a.off + 2 * o);
  qr = (int) r + __ldg (a.off + 2 * o + 1);
  inside = qc >= 0 && qc < (int) a.width && qr < (int) a.rows;
  q = inside ? (size_t) qr * a.width + qc : p;
  s.arc_p[i] = (unsigned) p;
  s.arc_q[i] = inside ? (unsigned) q : 0xffffffffu;
  for (unsigned k = 0; k < a.n_passes; k++)
    {
      s.p_re[(size_t) k * s.n + i] = __ldg (a.re + k * plane + p);
      s.p_im[(size_t) k * s.n + i] = __ldg (a.im + k * plane + p);
      s.q_re[(size_t) k * s.n + i] = __ldg (a.re + k * plane + q);
      s.q_im[(size_t) k * s.n + i] = __ldg (a.im + k * plane + q);
    }
}

/* Arc-parallel, second step: a thread an arc over its gathered series; every read is coalesced. */
__global__ void
soa_coherence_kernel (EfCudaArcsArgs a, EfCudaArcsSoa s)
{
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  float ar = 0.0f, ai = 0.0f;

  if (i >= s.n)
    return;
  if (s.arc_q[i] == 0xffffffffu)
    {
      a.coh[(size_t) s.a0 + i] = quiet_nan ();
      return;
    }
  for (unsigned k = 0; k < a.n_passes; k++)
    {
      size_t j = (size_t) k * s.n + i;
      float pr = s.p_re[j], pi = s.p_im[j], qr = s.q_re[j], qi = s.q_im[j];

      ar += pr * qr + pi * qi;
      ai += pi * qr - pr * qi;
    }
  a.coh[(size_t) s.a0 + i] = sqrtf (ar * ar + ai * ai) * (1.0f / a.n_passes);
}

/* Arc-parallel by graphs: warp w takes pixels [8 pg, 8 pg + 8) of row r and offsets [4 og, 4 og + 4);
 * lane l the arc from pixel 8 pg + (l & 7) along offset 4 og + (l >> 3). The offsets are in row order,
 * so a group of four mostly shares dy and steps dx by one: the warp's 32 arcs touch 8 pixels of row r
 * and about 11 of row r + dy, each read by several lanes at once. Consecutive warps take consecutive
 * pixel groups of one row, so a block's reads overlap too. */
__global__ void
graph_kernel (EfCudaArcsArgs a, unsigned pgroups, unsigned ogroups)
{
  unsigned lane = threadIdx.x & 31u;
  size_t warp = ((size_t) blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  size_t plane = (size_t) a.width * a.rows, t;
  unsigned pg, r, og, c, o;

  if (warp >= (size_t) ogroups * a.rows * pgroups)
    return;
  pg = (unsigned) (warp % pgroups);
  t = warp / pgroups;
  r = (unsigned) (t % a.rows);
  og = (unsigned) (t / a.rows);
  c = pg * kGraphPixels + (lane % kGraphPixels);
  o = og * kGraphOffsets + lane / kGraphPixels;
  if (c >= a.width || o >= a.n_off)
    return;
  a.coh[o * plane + (size_t) r * a.width + c] = arc_at (a, c, r, o);
}

/* The periodogram: a thread an arc (arc index = offset * plane + pixel, as coh is laid out), the grid
 * taken kPgGrid points at a time with their sums in registers, the rotations of kPgGrid points by
 * kPgPasses passes staged in shared memory and read by every thread at once (a broadcast). The maximum
 * is kept as the grid goes: the product of arcs by grid points is never stored. */
__global__ void __launch_bounds__ (kPgThreads)
periodogram_kernel (EfCudaArcsArgs a, const float *__restrict__ tre, const float *__restrict__ tim,
                    unsigned n_grid, unsigned short *best)
{
  __shared__ float sre[kPgGrid][kPgPasses];
  __shared__ float sim[kPgGrid][kPgPasses];
  size_t plane = (size_t) a.width * a.rows;
  size_t arc = (size_t) blockIdx.x * kPgThreads + threadIdx.x;
  bool valid = arc < (size_t) a.n_off * plane;
  size_t p = 0, q = 0;
  float best_m2 = -1.0f;
  unsigned best_g = 0;
  unsigned n = a.n_passes;

  if (valid)
    valid = arc_pixels (a, arc, plane, best, &p, &q);
  /* Every thread stays for the barriers, valid or not. */
  for (unsigned g0 = 0; g0 < n_grid; g0 += kPgGrid)
    {
      float ar[kPgGrid], ai[kPgGrid];

#pragma unroll
      for (int g = 0; g < kPgGrid; g++)
        ar[g] = ai[g] = 0.0f;
      for (unsigned k0 = 0; k0 < n; k0 += kPgPasses)
        {
          __syncthreads ();
          for (unsigned e = threadIdx.x; e < kPgGrid * kPgPasses; e += kPgThreads)
            {
              unsigned g = e / kPgPasses, kk = e % kPgPasses;
              bool in = g0 + g < n_grid && k0 + kk < n;

              sre[g][kk] = in ? __ldg (tre + (size_t) (g0 + g) * n + k0 + kk) : 0.0f;
              sim[g][kk] = in ? __ldg (tim + (size_t) (g0 + g) * n + k0 + kk) : 0.0f;
            }
          __syncthreads ();
          if (!valid)
            continue;
          for (unsigned kk = 0; kk < kPgPasses && k0 + kk < n; kk++)
            {
              size_t k = k0 + kk;
              float pr = __ldg (a.re + k * plane + p), pi = __ldg (a.im + k * plane + p);
              float qr = __ldg (a.re + k * plane + q), qi = __ldg (a.im + k * plane + q);
              float zr = pr * qr + pi * qi, zi = pi * qr - pr * qi;

#pragma unroll
              for (int g = 0; g < kPgGrid; g++)
                {
                  ar[g] += zr * sre[g][kk] - zi * sim[g][kk];
                  ai[g] += zr * sim[g][kk] + zi * sre[g][kk];
                }
            }
        }
      if (valid)
        {
#pragma unroll
          for (int g = 0; g < kPgGrid; g++)
            {
              float m2 = ar[g] * ar[g] + ai[g] * ai[g];

              /* The first maximum in grid order, as the CPU keeps it. */
              if (g0 + g < n_grid && m2 > best_m2)
                {
                  best_m2 = m2;
                  best_g = g0 + g;
                }
            }
        }
    }
  if (valid)
    {
      a.coh[arc] = sqrtf (fmaxf (best_m2, 0.0f)) * (1.0f / n);
      if (best != NULL)
        best[arc] = (unsigned short) best_g;
    }
}

/* Each pixel's score: the largest coherence of the arcs that touch it (NaN arcs ignored; 0 with none). */
__global__ void
score_kernel (EfCudaArcsArgs a, float *score)
{
  unsigned c = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned r = blockIdx.y * blockDim.y + threadIdx.y;
  size_t plane = (size_t) a.width * a.rows;
  float s = 0.0f;

  if (c >= a.width || r >= a.rows)
    return;
  for (unsigned o = 0; o < a.n_off; o++)
    {
      int qc = (int) c - __ldg (a.off + 2 * o), qr = (int) r - __ldg (a.off + 2 * o + 1);
      float x = a.coh[o * plane + (size_t) r * a.width + c];

      if (x > s)
        s = x;
      if (qc >= 0 && qr >= 0 && qc < (int) a.width)
        {
          float y = a.coh[o * plane + (size_t) qr * a.width + qc];
          if (y > s)
            s = y;
        }
    }
  score[(size_t) r * a.width + c] = s;
}

}  /* namespace ef_cuda_arcs */
