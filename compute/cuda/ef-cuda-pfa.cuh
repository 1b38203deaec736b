/* ef-cuda-pfa.cuh: polar format device code: gridding, deapodisation and the distortion correction. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <limits.h>
#include <math.h>

#include "ef-cuda-pfa-private.h"

/*
 * The CPU path (ef-pfa.c) is the gold model; each kernel here does what one of its loops does, with
 * positions and phases in double and values in float:
 * - grid_kernel: ef_pfa_add's inner loop and spread(). A thread takes one spectral bin of one profile.
 *   A block (32 bins x 8 profiles, records sorted by look angle) covers a small patch of the k-space
 *   grid, so it first accumulates into that patch in shared memory and then adds the patch's non-zero
 *   cells to the grid with one global atomic each; a patch too large for the tile (sparse looks) adds
 *   every tap globally. On an H200 the tile saves a third of the time of global atomics alone (4.7 ms
 *   against 7.3 for 33.6 M samples of a 6-cell kernel), though a shared float atomic is a
 *   compare-and-swap loop there; rows of an odd number of cells keep it clear of bank conflicts.
 * - lattice_kernel: ef_pfa_form's lattice loop (periodic read of the FFT image, deapodisation, carrier).
 * - correct_kernel: resample_row() (apparent place in double, Knab sum, phase restored), and the
 *   largest shift, reduced per block and max-ed into one word.
 */

namespace ef_cuda_pfa {

static constexpr int kBinsPerBlock = 32;      /* threadIdx.x: spectral bins of one profile */
static constexpr int kPulsesPerBlock = 8;     /* threadIdx.y: profiles */
static constexpr int kTileCells = 4096;       /* shared cells, real and imaginary planes: 32 KiB */

__device__ inline float
kb_weight (const float *__restrict__ kb, int kb_n, float t)
{
  float f = fabsf (t) * (float) EF_CUDA_PFA_KBQ;
  int i = (int) f;

  if (i + 1 >= kb_n)
    return 0.f;
  float a = __ldg (kb + i), b = __ldg (kb + i + 1);
  return a + (f - (float) i) * (b - a);
}

__device__ inline void
add_global (float2 *a, float2 v)
{
#if __CUDA_ARCH__ >= 900
  atomicAdd (a, v);
#else
  atomicAdd (&a->x, v.x);
  atomicAdd (&a->y, v.y);
#endif
}

/* x mod m in [0, m). */
__device__ inline int
wrap64 (long long x, int m)
{
  long long r = x % (long long) m;

  return (int) (r < 0 ? r + m : r);
}

__device__ inline void
minmax_warp (long long &lo, long long &hi)
{
  for (int o = 16; o > 0; o >>= 1)
    {
      lo = min (lo, __shfl_xor_sync (0xffffffffu, lo, o));
      hi = max (hi, __shfl_xor_sync (0xffffffffu, hi, o));
    }
}

/* grid (ceil((2 qmax + 1) / 32), ceil(count / 8)), block (32, 8). */
__global__ void __launch_bounds__ (kBinsPerBlock * kPulsesPerBlock)
grid_kernel (EfCudaPfaGridArgs g)
{
  __shared__ float tile_re[kTileCells], tile_im[kTileCells];
  __shared__ long long red[4][kPulsesPerBlock];
  __shared__ long long box[4];
  const int lane = threadIdx.x, warp = threadIdx.y, tid = warp * kBinsPerBlock + lane;
  const int q = -g.qmax + (int) blockIdx.x * kBinsPerBlock + lane;
  const int p = (int) blockIdx.y * kPulsesPerBlock + warp;
  const int W = (int) g.width, mu = (int) g.mu, mv = (int) g.mv;
  const double half = 0.5 * W;
  const float *__restrict__ kb = g.kb;
  const int kb_n = (int) g.kb_n;
  bool valid = false;
  float2 val = make_float2 (0.f, 0.f);
  long long bu = 0, bv = 0;
  float tu = 0.f, tv = 0.f;

  if (p < (int) g.count)
    {
      const EfCudaPfaPulse *rec = (const EfCudaPfaPulse *) g.pulses + p;
      const int qmax = rec->qmax;

      if (q >= -qmax && q <= qmax)
        {
          const double fu = rec->fu0 + q * rec->dfu, fv = rec->fv0 + q * rec->dfv;

          /* A position no grid index can hold (or NaN) is dropped rather than wrapped. */
          if (fabs (fu) < 1e15 && fabs (fv) < 1e15)
            {
              const float2 *row = (const float2 *) g.spec + (size_t) rec->row * g.nb;
              const float2 z = row[q < 0 ? q + (int) g.nb : q];
              double c = rec->cyc0 + q * rec->dcyc;
              const double cu = ceil (fu - half), cv = ceil (fv - half);
              float s, co;

              c -= rint (c);
              sincospif ((float) (2.0 * c), &s, &co);
              val = make_float2 ((z.x * co - z.y * s) * g.inv_nb, (z.x * s + z.y * co) * g.inv_nb);
              bu = (long long) cu;
              bv = (long long) cv;
              tu = (float) (fu - cu);
              tv = (float) (fv - cv);
              valid = true;
            }
        }
    }

  /* The block's footprint: the bounding box of its samples' base cells, plus the kernel. */
  {
    long long ulo = valid ? bu : LLONG_MAX, uhi = valid ? bu : LLONG_MIN;
    long long vlo = valid ? bv : LLONG_MAX, vhi = valid ? bv : LLONG_MIN;

    minmax_warp (ulo, uhi);
    minmax_warp (vlo, vhi);
    if (lane == 0)
      {
        red[0][warp] = ulo;
        red[1][warp] = uhi;
        red[2][warp] = vlo;
        red[3][warp] = vhi;
      }
    __syncthreads ();
    if (tid == 0)
      {
        for (int w = 1; w < kPulsesPerBlock; w++)
          {
            red[0][0] = min (red[0][0], red[0][w]);
            red[1][0] = max (red[1][0], red[1][w]);
            red[2][0] = min (red[2][0], red[2][w]);
            red[3][0] = max (red[3][0], red[3][w]);
          }
        box[0] = red[0][0];
        box[1] = red[1][0];
        box[2] = red[2][0];
        box[3] = red[3][0];
      }
    __syncthreads ();
  }
  if (box[0] > box[1])
    return;   /* no sample in this block (block-uniform) */

  float wu[EF_CUDA_PFA_SPREAD_MAX];
#pragma unroll
  for (int i = 0; i < EF_CUDA_PFA_SPREAD_MAX; i++)
    wu[i] = (valid && i <= W) ? kb_weight (kb, kb_n, tu - (float) i) : 0.f;

  const long long bw = box[1] - box[0] + W + 1, bh = box[3] - box[2] + W + 1;
  /* Rows of an odd number of cells: threads a row apart fall in different banks. */
  const long long tw = bw | 1;

  if (g.tiled && tw <= kTileCells && bh <= kTileCells && tw * bh <= kTileCells)
    {
      const int n = (int) (tw * bh), itw = (int) tw;

      for (int k = tid; k < n; k += kBinsPerBlock * kPulsesPerBlock)
        tile_re[k] = tile_im[k] = 0.f;
      __syncthreads ();
      if (valid)
        {
          const int lu = (int) (bu - box[0]), lv = (int) (bv - box[2]);

          for (int j = 0; j <= W; j++)
            {
              const float wv = kb_weight (kb, kb_n, tv - (float) j);
              const int row = (lv + j) * itw + lu;

              if (wv == 0.f)
                continue;
              const float vx = val.x * wv, vy = val.y * wv;
#pragma unroll
              for (int i = 0; i < EF_CUDA_PFA_SPREAD_MAX; i++)
                if (wu[i] != 0.f)
                  {
                    /* A compare-and-swap loop each (the device has no shared float add); one 64-bit
                     * loop for both halves was measured three times slower. */
                    atomicAdd (tile_re + row + i, vx * wu[i]);
                    atomicAdd (tile_im + row + i, vy * wu[i]);
                  }
            }
        }
      __syncthreads ();
      {
        const int su = wrap64 (box[0], mu), sv = wrap64 (box[2], mv);
        float2 *grid = (float2 *) g.kgrid;

        for (int k = tid; k < n; k += kBinsPerBlock * kPulsesPerBlock)
          {
            const float2 v = make_float2 (tile_re[k], tile_im[k]);

            /* Untouched cells are exactly zero; a NaN is not, and goes through as on the CPU. */
            if (v.x != 0.f || v.y != 0.f)
              {
                int iu = su + k % itw, iv = sv + k / itw;

                if (iu >= mu)
                  iu %= mu;
                if (iv >= mv)
                  iv %= mv;
                add_global (grid + (size_t) iv * mu + iu, v);
              }
          }
      }
      return;
    }

  if (valid)
    {
      /* Every tap straight into the grid, wrapping round its edges (W + 1 < mu, mv). */
      const int su = wrap64 (bu, mu), sv = wrap64 (bv, mv);
      float2 *grid = (float2 *) g.kgrid;

      for (int j = 0; j <= W; j++)
        {
          const float wv = kb_weight (kb, kb_n, tv - (float) j);
          int iv = sv + j;

          if (wv == 0.f)
            continue;
          if (iv >= mv)
            iv -= mv;
          const float vx = val.x * wv, vy = val.y * wv;
          float2 *row = grid + (size_t) iv * mu;
#pragma unroll
          for (int i = 0; i < EF_CUDA_PFA_SPREAD_MAX; i++)
            if (wu[i] != 0.f)
              {
                int iu = su + i;

                if (iu >= mu)
                  iu -= mu;
                add_global (row + iu, make_float2 (vx * wu[i], vy * wu[i]));
              }
        }
    }
}

/* exp(j 2 pi c) for c in cycles: reduced in double, evaluated in float. */
__device__ inline float2
rot_cycles (double c)
{
  float s, co;

  c -= rint (c);
  sincospif ((float) (2.0 * c), &s, &co);
  return make_float2 (co, s);
}

__device__ inline float2
cmul (float2 a, float2 b)
{
  return make_float2 (a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}

/* grid (ceil(nu / 32), ceil(nv / 8)), block (32, 8). */
__global__ void
lattice_kernel (EfCudaPfaLatticeArgs g)
{
  const int i = (int) (blockIdx.x * blockDim.x + threadIdx.x);
  const int j = (int) (blockIdx.y * blockDim.y + threadIdx.y);

  if (i >= (int) g.nu || j >= (int) g.nv)
    return;
  const int a = i - (int) (g.nu / 2), b = j - (int) (g.nv / 2);
  /* |a| <= nu / 2 < mu: one wrap at most. */
  const int au = a < 0 ? a + (int) g.mu : a, bv = b < 0 ? b + (int) g.mv : b;
  const float2 z = ((const float2 *) g.work)[(size_t) bv * g.mu + au];
  const float d = __ldg (g.deap_u + i) * __ldg (g.deap_v + j);
  const float2 r = rot_cycles (g.ccu * a + g.ccv * b);

  ((float2 *) g.lat)[(size_t) j * g.nu + i] = cmul (make_float2 (z.x * d, z.y * d), r);
}

__device__ inline double
dist3 (const double a[3], const double x[3])
{
  const double d0 = a[0] - x[0], d1 = a[1] - x[1], d2 = a[2] - x[2];

  return sqrt (d0 * d0 + d1 * d1 + d2 * d2);
}

__device__ inline double
diff_range (const EfCudaPfaLook &g, const double x[3], bool bistatic)
{
  /* Monostatic: 0.5 (d + d) is d exactly. */
  if (!bistatic)
    return dist3 (g.tx, x) - g.r0o;
  return 0.5 * (dist3 (g.tx, x) + dist3 (g.rcv, x)) - g.r0o;
}

static constexpr int kCorrectThreads = 256;

/* grid (ceil(width / 32), ceil(height / 8)), block (32, 8). */
__global__ void __launch_bounds__ (kCorrectThreads)
correct_kernel (EfCudaPfaCorrectArgs g)
{
  __shared__ double red[kCorrectThreads / 32];
  const int c = (int) (blockIdx.x * blockDim.x + threadIdx.x);
  const int r = (int) (blockIdx.y * blockDim.y + threadIdx.y);
  const int tid = threadIdx.y * blockDim.x + threadIdx.x;
  double shift = 0;

  if (c < (int) g.width && r < (int) g.height)
    {
      double x[3], al, be, psi, dm, fu, fv;
      float2 sum = make_float2 (0.f, 0.f);

      for (int k = 0; k < 3; k++)
        x[k] = g.origin[k] + c * g.spacing * g.u[k] + r * g.spacing * g.v[k];
      dm = diff_range (g.m, x, g.bistatic);
      psi = g.kr_c * (dm + g.om);
      if (g.correct && g.solve)
        {
          const double da = diff_range (g.a, x, g.bistatic), db = diff_range (g.b, x, g.bistatic);
          const double r1 = -g.kr_c * ((db - da) + g.duh_ol), r2 = -g.kr_d * (dm + g.om);

          al = (r1 * g.a22 - r2 * g.a12) / g.det;
          be = (g.a11 * r2 - g.a21 * r1) / g.det;
        }
      else
        {
          const double d0 = x[0] - g.ol[0], d1 = x[1] - g.ol[1], d2 = x[2] - g.ol[2];

          al = d0 * g.u[0] + d1 * g.u[1] + d2 * g.u[2];
          be = d0 * g.v[0] + d1 * g.v[1] + d2 * g.v[2];
        }
      fu = al / g.spacing - g.u0;
      fv = be / g.spacing - g.v0;
      const float2 *__restrict__ lat = (const float2 *) g.lat;
      const int nu = (int) g.nu, nv = (int) g.nv;

      if (!g.correct)
        {
          /* On the lattice: no interpolation (clamped, as the CPU's index always lies inside). */
          const int iu = (int) fmin (fmax (rint (fu), 0.0), (double) (nu - 1));
          const int iv = (int) fmin (fmax (rint (fv), 0.0), (double) (nv - 1));

          sum = lat[(size_t) iv * nu + iu];
        }
      else
        {
          const double du = al - ((double) c - g.cc) * g.spacing, dv = be - ((double) r - g.rc) * g.spacing;

          shift = sqrt (du * du + dv * dv);
          /* Far outside the lattice every tap is out of range anyway. */
          if (fabs (fu) < 1e9 && fabs (fv) < 1e9)
            {
              const int taps = (int) g.taps;
              const double flu = floor (fu), flv = floor (fv);
              const double qu = (fu - flu) * EF_CUDA_PFA_KNQ, qv = (fv - flv) * EF_CUDA_PFA_KNQ;
              const int qiu = min (max ((int) qu, 0), EF_CUDA_PFA_KNQ - 1);
              const int qiv = min (max ((int) qv, 0), EF_CUDA_PFA_KNQ - 1);
              const float ru = (float) (qu - qiu), rv = (float) (qv - qiv);
              const float *__restrict__ k0u = g.knab + qiu * taps, *__restrict__ k0v = g.knab + qiv * taps;
              const int iu = (int) flu - taps / 2 + 1, iv = (int) flv - taps / 2 + 1;
              float wu[EF_CUDA_PFA_TAPS_MAX], wv[EF_CUDA_PFA_TAPS_MAX];

#pragma unroll
              for (int k = 0; k < EF_CUDA_PFA_TAPS_MAX; k++)
                if (k < taps)
                  {
                    const float a0 = __ldg (k0u + k), a1 = __ldg (k0u + taps + k);
                    const float b0 = __ldg (k0v + k), b1 = __ldg (k0v + taps + k);

                    wu[k] = a0 + ru * (a1 - a0);
                    wv[k] = b0 + rv * (b1 - b0);
                  }
                else
                  wu[k] = wv[k] = 0.f;
              const bool inside = iu >= 0 && iv >= 0 && iu + taps <= nu && iv + taps <= nv;

#pragma unroll
              for (int j = 0; j < EF_CUDA_PFA_TAPS_MAX; j++)
                {
                  const int jj = iv + j;
                  float2 rs = make_float2 (0.f, 0.f);

                  if (j >= taps || (!inside && (jj < 0 || jj >= nv)))
                    continue;
                  const float2 *row = lat + (size_t) jj * nu;
#pragma unroll
                  for (int k = 0; k < EF_CUDA_PFA_TAPS_MAX; k++)
                    {
                      const int ii = iu + k;

                      if (k < taps && (inside || (ii >= 0 && ii < nu)))
                        {
                          const float2 z = row[ii];

                          rs.x += wu[k] * z.x;
                          rs.y += wu[k] * z.y;
                        }
                    }
                  sum.x += wv[j] * rs.x;
                  sum.y += wv[j] * rs.y;
                }
            }
        }
      /* Back to the carrier at the apparent place, and the exact phase of the return at the support's
       * centre: sum * exp(j (psi + (K_m - K_c).(al, be))). */
      ((float2 *) g.out)[(size_t) r * g.width + c]
        = cmul (sum, rot_cycles ((psi + g.ku_rest * al + g.kv_rest * be) * (0.5 / M_PI)));
    }

  /* The largest shift: a warp, then the block, then one atomic (shifts are non-negative, so their bit
   * patterns order as the values do). */
  for (int o = 16; o > 0; o >>= 1)
    shift = fmax (shift, __shfl_xor_sync (0xffffffffu, shift, o));
  if ((tid & 31) == 0)
    red[tid >> 5] = shift;
  __syncthreads ();
  if (tid == 0)
    {
      for (int w = 1; w < kCorrectThreads / 32; w++)
        shift = fmax (shift, red[w]);
      if (shift > 0)
        atomicMax (g.dist, (unsigned long long) __double_as_longlong (shift));
    }
}

}  // namespace ef_cuda_pfa
