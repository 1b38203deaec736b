/* ef-cuda-mf.cuh: the matched filter's device code: sample weighting, and each pixel's sum over pulses. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "ef-cuda-mf-private.h"

namespace ef_cuda_mf {

/* The rotator's steps between two exact phases: rounding in the rotator grows for ANCHOR steps at most. A
 * shared-memory chunk and a constant-memory tile hold whole anchor spans, and tiles start at multiples
 * of it, so every shape restarts its rotators at the same samples. */
constexpr unsigned CHUNK = EF_CUDA_MF_CHUNK, TILE = EF_CUDA_MF_TILE, ANCHOR = EF_CUDA_MF_ANCHOR;
static_assert (CHUNK % ANCHOR == 0 && TILE % ANCHOR == 0, "chunks and tiles hold whole anchor spans");

/* The constant-memory shapes' tile: pulses [p0, p0 + np), samples [kb, ke) of each, row by row; 32 KiB
 * of this module's 64. */
__constant__ float2 c_samples[TILE];

__global__ void
weight_kernel (const float2 *__restrict__ in, unsigned n_samples, const float *__restrict__ coef,
               const EfCudaMfPulse *__restrict__ pulses, unsigned long long n, float2 *__restrict__ out,
               unsigned long long *bad)
{
  unsigned long long n_bad = 0;

  for (unsigned long long i = blockIdx.x * (unsigned long long) blockDim.x + threadIdx.x; i < n;
       i += (unsigned long long) gridDim.x * blockDim.x)
    {
      const unsigned long long p = i / n_samples;
      const unsigned k = (unsigned) (i - p * n_samples);
      const float2 v = in[i];
      const bool fin = isfinite (v.x) && isfinite (v.y);
      const float w = coef[k] * pulses[p].w;

      out[i] = fin ? make_float2 (v.x * w, v.y * w) : make_float2 (0.f, 0.f);
      n_bad += !fin;
    }
  if (n_bad)
    atomicAdd (bad, n_bad);
}

/* cycles in double, reduced to [-0.5, 0.5], to (cos, sin) of 2 pi cycles. */
__device__ __forceinline__ void
rotator (double cycles, float *re, float *im)
{
  const float c = (float) (cycles - rint (cycles));

  sincospif (2.0f * c, im, re);
}

/* Adds the matched filter of pulses [p0, p0 + np), samples [kb, ke) of each, into the image: see
 * EfCudaMfShape (ef-cuda-mf.h). Shared-memory shapes take every sample (kb = 0, ke = n_samples); constant
 * ones take what c_samples holds (ke - kb <= TILE, np (ke - kb) <= TILE, kb a multiple of TILE). Every
 * thread of a block runs the same loops (the ones past the image's edge compute and drop their pixels),
 * so the barriers are uniform. */
template <int BX, int BY, int PX, int PY, int U, bool C>
__global__ void __launch_bounds__ (BX * BY)
mf_kernel (const EfCudaMfArgs a, unsigned p0, unsigned np, unsigned kb, unsigned ke)
{
  constexpr unsigned NT = BX * BY;
  constexpr int NP = PX * PY;
  constexpr unsigned STEP = C ? TILE : CHUNK;
  __shared__ float2 s[C ? 1 : CHUNK];
  const unsigned col0 = blockIdx.x * (unsigned) (BX * PX) + threadIdx.x;
  const unsigned row0 = blockIdx.y * (unsigned) (BY * PY) + threadIdx.y;
  const unsigned t = threadIdx.y * BX + threadIdx.x;
  float acc_re[NP], acc_im[NP];

#pragma unroll
  for (int q = 0; q < NP; q++)
    acc_re[q] = acc_im[q] = 0.f;

  for (unsigned p = p0; p < p0 + np; p++)
    {
      const EfCudaMfPulse *pu = &a.pulses[p];
      double c0[NP], cs[NP];
      float st_re[NP], st_im[NP], sum_re[NP], sum_im[NP];

#pragma unroll
      for (int q = 0; q < NP; q++)
        {
          const unsigned col = col0 + (unsigned) (q % PX) * BX, row = row0 + (unsigned) (q / PX) * BY;
          double x[3];

          for (int i = 0; i < 3; i++)
            x[i] = a.origin[i] + (double) col * a.su[i] + (double) row * a.sv[i];
          /* The differential range and both phases in double; only reduced cycles reach float. */
          const double d = 0.5 * (norm3d (pu->tx[0] - x[0], pu->tx[1] - x[1], pu->tx[2] - x[2])
                                  + norm3d (pu->rcv[0] - x[0], pu->rcv[1] - x[1], pu->rcv[2] - x[2]))
                           - pu->r0;
          /* An integer number of turns per step changes nothing: both are kept small. */
          c0[q] = pu->k0 * d;
          cs[q] = pu->ks * d;
          c0[q] -= rint (c0[q]);
          cs[q] -= rint (cs[q]);
          rotator (cs[q], &st_re[q], &st_im[q]);
          sum_re[q] = sum_im[q] = 0.f;
        }
      for (unsigned k0 = kb; k0 < ke; k0 += STEP)
        {
          const unsigned n = min (STEP, ke - k0);
          /* Where sample k0 + k is: c_samples[base + k], or s[k]. */
          const unsigned base = C ? (p - p0) * (ke - kb) + (k0 - kb) : 0u;

          if constexpr (!C)
            {
              const float2 *__restrict__ in = (const float2 *) a.samples + (size_t) p * a.n_samples;

              __syncthreads ();
              for (unsigned i = t; i < n; i += NT)
                s[i] = in[k0 + i];
              __syncthreads ();
            }
          for (unsigned ka = 0; ka < n; ka += ANCHOR)
            {
              const unsigned kend = min (n, ka + ANCHOR);
              float r_re[NP], r_im[NP];

#pragma unroll
              for (int q = 0; q < NP; q++)
                rotator (fma ((double) (k0 + ka), cs[q], c0[q]), &r_re[q], &r_im[q]);
#pragma unroll U
              for (unsigned k = ka; k < kend; k++)
                {
                  float2 v;

                  if constexpr (C)
                    v = c_samples[base + k];
                  else
                    v = s[k];
#pragma unroll
                  for (int q = 0; q < NP; q++)
                    {
                      const float n_re = r_re[q] * st_re[q] - r_im[q] * st_im[q];
                      const float n_im = r_re[q] * st_im[q] + r_im[q] * st_re[q];

                      sum_re[q] = fmaf (v.x, r_re[q], sum_re[q]);
                      sum_re[q] = fmaf (-v.y, r_im[q], sum_re[q]);
                      sum_im[q] = fmaf (v.x, r_im[q], sum_im[q]);
                      sum_im[q] = fmaf (v.y, r_re[q], sum_im[q]);
                      r_re[q] = n_re;
                      r_im[q] = n_im;
                    }
                }
            }
        }
#pragma unroll
      for (int q = 0; q < NP; q++)
        {
          acc_re[q] += sum_re[q];
          acc_im[q] += sum_im[q];
        }
    }
#pragma unroll
  for (int q = 0; q < NP; q++)
    {
      const unsigned col = col0 + (unsigned) (q % PX) * BX, row = row0 + (unsigned) (q / PX) * BY;

      if (col < a.width && row < a.height)
        {
          float2 *px = (float2 *) a.image + (size_t) row * a.width + col;
          float2 v = *px;

          v.x += acc_re[q];
          v.y += acc_im[q];
          *px = v;
        }
    }
}

} // namespace ef_cuda_mf
