/* ef-cuda-mf.cuh: the matched filter's device code: sample weighting, and each pixel's sum over pulses. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "ef-cuda-mf-private.h"

namespace ef_cuda_mf {

/* A block is a 32 x 8 tile of pixels, one thread each. */
constexpr int BX = 32, BY = 8, NT = BX * BY;
/* Samples staged in shared memory at a time (a multiple of ANCHOR), and the rotator's steps between two
 * exact phases: rounding in the rotator grows for ANCHOR steps at most. */
constexpr int CHUNK = 512, ANCHOR = 64;
static_assert (CHUNK % ANCHOR == 0, "a chunk holds whole anchor spans");

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

__global__ void __launch_bounds__ (NT)
mf_kernel (const EfCudaMfArgs a)
{
  __shared__ float2 s[CHUNK];
  const unsigned col = blockIdx.x * BX + threadIdx.x, row = blockIdx.y * BY + threadIdx.y;
  const unsigned t = threadIdx.y * BX + threadIdx.x;
  const float2 *__restrict__ samples = (const float2 *) a.samples;
  double x[3];
  float acc_re = 0.f, acc_im = 0.f;

  for (int i = 0; i < 3; i++)
    x[i] = a.origin[i] + (double) col * a.su[i] + (double) row * a.sv[i];

  for (unsigned p = 0; p < a.n_pulses; p++)
    {
      const EfCudaMfPulse *pu = &a.pulses[p];
      /* The differential range and both phases in double; only reduced cycles reach float. */
      const double d = 0.5 * (norm3d (pu->tx[0] - x[0], pu->tx[1] - x[1], pu->tx[2] - x[2])
                              + norm3d (pu->rcv[0] - x[0], pu->rcv[1] - x[1], pu->rcv[2] - x[2]))
                       - pu->r0;
      double c0 = pu->k0 * d, cs = pu->ks * d;
      float st_re, st_im, sum_re = 0.f, sum_im = 0.f;
      const float2 *__restrict__ in = samples + (size_t) p * a.n_samples;

      /* An integer number of turns per step changes nothing: both are kept small. */
      c0 -= rint (c0);
      cs -= rint (cs);
      rotator (cs, &st_re, &st_im);
      for (unsigned k0 = 0; k0 < a.n_samples; k0 += CHUNK)
        {
          const unsigned n = min ((unsigned) CHUNK, a.n_samples - k0);

          __syncthreads ();
          for (unsigned i = t; i < n; i += NT)
            s[i] = in[k0 + i];
          __syncthreads ();
          for (unsigned ka = 0; ka < n; ka += ANCHOR)
            {
              const unsigned kend = min (n, ka + ANCHOR);
              float r_re, r_im;

              rotator (fma ((double) (k0 + ka), cs, c0), &r_re, &r_im);
#pragma unroll 8
              for (unsigned k = ka; k < kend; k++)
                {
                  const float2 v = s[k];
                  const float n_re = r_re * st_re - r_im * st_im;
                  const float n_im = r_re * st_im + r_im * st_re;

                  sum_re = fmaf (v.x, r_re, sum_re);
                  sum_re = fmaf (-v.y, r_im, sum_re);
                  sum_im = fmaf (v.x, r_im, sum_im);
                  sum_im = fmaf (v.y, r_re, sum_im);
                  r_re = n_re;
                  r_im = n_im;
                }
            }
        }
      acc_re += sum_re;
      acc_im += sum_im;
    }
  if (col < a.width && row < a.height)
    {
      float2 *px = (float2 *) a.image + (size_t) row * a.width + col;
      float2 v = *px;

      v.x += acc_re;
      v.y += acc_im;
      *px = v;
    }
}

} // namespace ef_cuda_mf
