/* ef-cuda-rangecomp.cuh: range compression and pair-table device code. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <cuda_fp16.h>
#include <math.h>

#include "ef-cuda-private.h"

/*
 * The CPU path (ef-rangecomp.c) places spectral bin k at FFT input index i = (k - K/2) mod n, runs an
 * unnormalised inverse FFT, takes output m + n/2 (fftshift) and divides by K. Here the fftshift is a
 * modulation of the input by (-1)^i, and the window and 1/K are one float per bin, so each FX pulse is
 * one pass over its samples and one batched cuFFT call. The pulse's cross-range weight (az_w of its
 * record) multiplies the window there too, as the CPU folds it into its window.
 */

namespace ef_cuda {

__device__ inline bool
finite2 (float2 v)
{
  return isfinite (v.x) && isfinite (v.y);
}

/* Counts a block's bad samples into *bad with one atomic per warp. */
__device__ inline void
count_bad (bool is_bad, unsigned long long *bad)
{
  unsigned m = __ballot_sync (0xffffffffu, is_bad);

  if ((threadIdx.x & 31) == 0 && m != 0)
    atomicAdd (bad, (unsigned long long) __popc (m));
}

/* grid (ceil(n / 256), count): FFT input index i of pulse blockIdx.y. */
__global__ void
prep_fx_kernel (const float2 *__restrict__ in, int n_in, int n, const float *__restrict__ coef,
                const EfCudaPulse *__restrict__ pulses, float2 *__restrict__ out, unsigned long long *bad)
{
  const int p = blockIdx.y;
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const float wp = pulses[p].az_w;
  bool is_bad = false;

  if (i < n)
    {
      int k = (i + n_in / 2) % n;
      float2 v = make_float2 (0.f, 0.f);

      if (k < n_in)
        {
          float2 x = in[(size_t) p * n_in + k];

          if (finite2 (x))
            {
              float c = (i & 1) ? -coef[k] * wp : coef[k] * wp;
              v = make_float2 (x.x * c, x.y * c);
            }
          else
            is_bad = true;
        }
      out[(size_t) p * n + i] = v;
    }
  count_bad (is_bad, bad);
}

__global__ void
prep_toa_kernel (const float2 *__restrict__ in, int n_in, const EfCudaPulse *__restrict__ pulses,
                 float2 *__restrict__ out, unsigned long long *bad)
{
  const int p = blockIdx.y;
  const int m = blockIdx.x * blockDim.x + threadIdx.x;
  const float wp = pulses[p].az_w;
  bool is_bad = false;

  if (m < n_in)
    {
      float2 x = in[(size_t) p * n_in + m];

      is_bad = !finite2 (x);
      out[(size_t) p * n_in + m] = is_bad ? make_float2 (0.f, 0.f) : make_float2 (x.x * wp, x.y * wp);
    }
  count_bad (is_bad, bad);
}

/* RAW, step 1: the echo zero-padded to the matched filter's FFT length nc. */
__global__ void
prep_raw_kernel (const float2 *__restrict__ in, int n_in, int nc, float2 *__restrict__ out,
                 unsigned long long *bad)
{
  const int p = blockIdx.y;
  const int m = blockIdx.x * blockDim.x + threadIdx.x;
  bool is_bad = false;

  if (m < nc)
    {
      float2 v = make_float2 (0.f, 0.f);

      if (m < n_in)
        {
          float2 x = in[(size_t) p * n_in + m];

          is_bad = !finite2 (x);
          if (!is_bad)
            v = x;
        }
      out[(size_t) p * nc + m] = v;
    }
  count_bad (is_bad, bad);
}

/* RAW, step 2: matched filter, delay origin moved to 2 r0 / c, carrier folded, K bins of the chirp's
 * band placed for the centred inverse FFT of length n. */
__global__ void
select_raw_kernel (const float2 *__restrict__ spec, int nc, int K, int k_first, int n,
                   const float2 *__restrict__ chirp_conj, const float *__restrict__ coef,
                   const EfCudaPulse *__restrict__ pulses, float2 *__restrict__ out)
{
  const int p = blockIdx.y;
  const int i = blockIdx.x * blockDim.x + threadIdx.x;

  if (i >= n)
    return;
  int k = (i + K / 2) % n;
  float2 v = make_float2 (0.f, 0.f);

  if (k < K)
    {
      int ii = (k_first + k) % nc;
      int fb = ii < nc / 2 ? ii : ii - nc;
      float2 x = spec[(size_t) p * nc + ii], h = chirp_conj[ii];
      double cyc = pulses[p].raw_cyc0 + fb * pulses[p].raw_cstep;
      double sd, cd;
      float c = (i & 1) ? -coef[k] * pulses[p].az_w : coef[k] * pulses[p].az_w;
      float xr = x.x * h.x - x.y * h.y, xi = x.x * h.y + x.y * h.x;

      cyc -= rint (cyc);
      sincospi (2.0 * cyc, &sd, &cd);
      v = make_float2 ((xr * (float) cd - xi * (float) sd) * c, (xr * (float) sd + xi * (float) cd) * c);
    }
  out[(size_t) p * n + i] = v;
}

/* Largest |component| of the profiles, as float bits (non-negative floats order like integers). */
__global__ void
absmax_kernel (const float *__restrict__ x, size_t n, unsigned *out)
{
  float m = 0.f;

  for (size_t i = blockIdx.x * (size_t) blockDim.x + threadIdx.x; i < n; i += (size_t) gridDim.x * blockDim.x)
    m = fmaxf (m, fabsf (x[i]));
  for (int o = 16; o > 0; o >>= 1)
    m = fmaxf (m, __shfl_xor_sync (0xffffffffu, m, o));
  if ((threadIdx.x & 31) == 0)
    atomicMax (out, __float_as_uint (m));
}

/* scale[0] = s, scale[1] = 1 / s, a power of two such that chunk pulses of |sample| <= sqrt(2) max
 * sum to at most 2^13 in each half component (half overflows at 65504). */
__global__ void
scale_kernel (float *scale, int chunk)
{
  float m = __uint_as_float (*(const unsigned *) &scale[2]) * 1.41421356f * (float) chunk;
  float s = 1.f;

  if (m > 0.f && isfinite (m))
    s = exp2f (floorf (log2f (8192.f / m)));
  s = fminf (fmaxf (s, 0x1p-60f), 0x1p60f);
  scale[0] = s;
  scale[1] = 1.f / s;
}

/* One table entry (see ef-cuda-bp.cuh): pair q = e - guard of pulse blockIdx.y. */
__device__ inline void
pair_entry (const float2 *__restrict__ prof, int n, int q, const EfCudaPulse &pu, float2 *M, float2 *D)
{
  if (q < 0 || q > n - 2)
    {
      *M = *D = make_float2 (0.f, 0.f);
      return;
    }
  float2 s0 = prof[q], s1 = prof[q + 1];
  double cyc = fma ((double) q, pu.cyc_step, pu.cyc0);
  double sd, cd;

  cyc -= rint (cyc);
  sincospi (2.0 * cyc, &sd, &cd);
  float c = (float) cd, s = (float) sd;
  float mr = 0.5f * (s0.x + s1.x), mi = 0.5f * (s0.y + s1.y);
  float dr = s1.x - s0.x, di = s1.y - s0.y;

  *M = make_float2 (mr * c - mi * s, mr * s + mi * c);
  *D = make_float2 (dr * c - di * s, dr * s + di * c);
}

__global__ void
pack_fp32_kernel (const float2 *__restrict__ prof, int n, int guard, int stride,
                  const EfCudaPulse *__restrict__ pulses, float4 *__restrict__ table)
{
  const int p = blockIdx.y;
  const int e = blockIdx.x * blockDim.x + threadIdx.x;

  if (e >= stride)
    return;
  float2 M, D;

  pair_entry (prof + (size_t) p * n, n, e - guard, pulses[p], &M, &D);
  table[(size_t) p * stride + e] = make_float4 (M.x, M.y, D.x, D.y);
}

__global__ void
pack_fp16_kernel (const float2 *__restrict__ prof, int n, int guard, int stride,
                  const EfCudaPulse *__restrict__ pulses, const float *__restrict__ scale,
                  uint2 *__restrict__ table)
{
  const int p = blockIdx.y;
  const int e = blockIdx.x * blockDim.x + threadIdx.x;

  if (e >= stride)
    return;
  float2 M, D;
  const float s = scale[0];

  pair_entry (prof + (size_t) p * n, n, e - guard, pulses[p], &M, &D);
  __half2 hm = __floats2half2_rn (M.x * s, M.y * s);
  __half2 hd = __floats2half2_rn (D.x * s, D.y * s);
  uint2 v;

  v.x = *reinterpret_cast<unsigned *> (&hm);
  v.y = *reinterpret_cast<unsigned *> (&hd);
  table[(size_t) p * stride + e] = v;
}

__global__ void
fill_nan_kernel (float *x, size_t n)
{
  for (size_t i = blockIdx.x * (size_t) blockDim.x + threadIdx.x; i < n; i += (size_t) gridDim.x * blockDim.x)
    x[i] = __int_as_float (0x7fc00000);
}

/* Adds the number of pixels (float2) of x[n] with a component that is not finite to *count: one atomic
 * per block and step, whatever the image holds. */
__global__ void
count_nonfinite_kernel (const float2 *x, size_t n, unsigned long long *count)
{
  const size_t stride = (size_t) gridDim.x * blockDim.x;
  size_t base = (size_t) blockIdx.x * blockDim.x;

  for (; base < n; base += stride)
    {
      size_t i = base + threadIdx.x;
      int bad = i < n && !(isfinite (x[i].x) && isfinite (x[i].y));
      int block_bad = __syncthreads_count (bad);

      if (threadIdx.x == 0 && block_bad > 0)
        atomicAdd (count, (unsigned long long) block_bad);
    }
}

/* dst = a + b; dst may alias a. float4 steps where all three are 16-byte aligned (cudaMalloc'd
 * images at whole rows are), a scalar tail after. */
__global__ void
add_kernel (float *dst, const float *a, const float *b, size_t n)
{
  const size_t stride = (size_t) gridDim.x * blockDim.x;
  size_t i0 = blockIdx.x * (size_t) blockDim.x + threadIdx.x;
  size_t n4 = ((((size_t) dst | (size_t) a | (size_t) b) & 15) == 0) ? n / 4 : 0;

  for (size_t i = i0; i < n4; i += stride)
    {
      float4 x = ((const float4 *) a)[i], y = ((const float4 *) b)[i];

      ((float4 *) dst)[i] = make_float4 (x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
    }
  for (size_t i = 4 * n4 + i0; i < n; i += stride)
    dst[i] = a[i] + b[i];
}

} /* namespace ef_cuda */
