/* ef-cuda-ffbp.cuh: FFBP and FBP device code: leaves, merges and the final gather (see ef-cuda-ffbp.h). */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <cuda_fp16.h>
#include <math.h>

#include "ef-cuda-ffbp.h"

namespace ef_ffbp_gpu {

constexpr int kKQ = EF_FFBP_KQ;
constexpr int kRS = EF_FFBP_RS;
constexpr int kAS = EF_FFBP_AS;

/* Leaves: 128 threads, 512 samples of one row (four a thread, 128 apart so that a warp's table reads
 * stay together), pulses staged 64 at a time. */
constexpr int kLeafThreads = 128;
constexpr int kLeafPer = 4;
constexpr int kLeafTile = kLeafThreads * kLeafPer;
constexpr int kLeafChunk = 64;
/* Merges and final: 256 threads, one sample (pixel) of each of up to 8 rows each; 32 (row, source)
 * fits staged at a time: all the children of a merge (the merge base is at most 4). */
constexpr int kGatherThreads = 256;
constexpr int kGatherTile = 256;
constexpr int kGatherRows = 8;
constexpr int kGatherFits = 32;
/* The kernel tables in shared memory, rows padded by one (w, dw) pair: neighbouring samples read rows
 * of unrelated phases, and a row stride of 9 pairs spreads them over the banks. Angular tables of more
 * than 8 taps stay in global memory (static shared memory stops at 48 KB). */
constexpr int kTabRow = 2 * kRS + 2;

__host__ __device__ constexpr int
tab_row_a (int ta)
{
  return 2 * ta + 2;
}

/* Five points per tile: the cubic's nodes at u = -1, -1/3, 1/3, 1 (u = offset / half-width) and a check
 * at u = 0.6. */
constexpr int kFitPoints = 5;

/* A tile's cubic fails its check above these: samples (range and angle indices) and cycles. */
constexpr double kTolIndex = 2e-5;
constexpr double kTolCycles = 4e-6;

__host__ __device__ inline double
fit_u (int k)
{
  return k == 0 ? -1.0 : k == 1 ? -1.0 / 3.0 : k == 2 ? 1.0 / 3.0 : k == 3 ? 1.0 : 0.6;
}

/* One source (a pulse, a child grid, a final grid) over one tile, as the per-sample float code reads
 * it: index = base + c0 + c1 d + c2 d^2 + c3 d^3 for the sample offset d from the tile's centre, and
 * the phase in cycles c0 + c1h d + c1l d + c2 d^2 + c3 d^3, where c1h d is exact. */
struct Fit {
  int   ir, ia;           /* integer range and angle indices (or the profile bin, for leaves) */
  float r[4];             /* range index remainder */
  float a[4];             /* angle index remainder */
  float c0, c1h, c1l, c2, c3;
  int   exact;            /* the cubic failed its check: evaluate every sample exactly */
};

/* The point of node N's grid at (rho, al); FALSE where the grid holds zero (see EfFfbpNode). */
__device__ inline bool
node_point (const EfCudaFfbpNode &N, double rho, double al, double x[3])
{
  double pp = (rho * al + N.hn) * N.itau;
  double q2 = rho * rho - N.h * N.h - pp * pp;
  double q = N.qsign * sqrt (q2 > 0 ? q2 : 0.0);

  for (int k = 0; k < 3; k++)
    x[k] = N.cp[k] + pp * N.e1[k] + q * N.e2[k];
  return q2 > 0 && rho > 0;
}

/* The same validity alone. */
__device__ inline bool
node_valid (const EfCudaFfbpNode &N, double rho, double al)
{
  double pp = (rho * al + N.hn) * N.itau;
  double q2 = rho * rho - N.h * N.h - pp * pp;

  return q2 > 0 && rho > 0;
}

/* Where point x falls in grid C and the phase that re-modulates it (the CPU gather's numbers). */
__device__ inline void
eval_grid (const EfCudaFfbpNode &C, const double x[3], double off, double kc, double *fr, double *fa,
           double *cyc)
{
  double dx = x[0] - C.c[0], dy = x[1] - C.c[1], dz = x[2] - C.c[2];
  double rho = sqrt (dx * dx + dy * dy + dz * dz);
  double al = (dx * C.t[0] + dy * C.t[1] + dz * C.t[2]) / rho;

  *fr = (rho - C.rho0) * C.idrho;
  *fa = (al - C.al0) * C.idal;
  *cyc = kc * ((rho - C.r0) + off);
}

/* The cubic through f[0..3] at u = -1, -1/3, 1/3, 1, as coefficients of d = u hw; returns its error at
 * the check point against f[4] (infinite for non-finite values). */
__device__ inline double
fit_cubic (const double f[kFitPoints], double hw, double c[4])
{
  double E1 = 0.5 * (f[3] + f[0]), E3 = 0.5 * (f[2] + f[1]);
  double O1 = 0.5 * (f[3] - f[0]), O3 = 0.5 * (f[2] - f[1]);
  double a2 = 1.125 * (E1 - E3), a0 = E1 - a2;
  double a3 = 1.125 * (O1 - 3.0 * O3), a1 = O1 - a3;
  const double u = fit_u (4), ih = 1.0 / hw;
  double err = fabs (a0 + u * (a1 + u * (a2 + u * a3)) - f[4]);

  c[0] = a0;
  c[1] = a1 * ih;
  c[2] = a2 * ih * ih;
  c[3] = a3 * ih * ih * ih;
  return isfinite (err) ? err : INFINITY;
}

/* An index cubic as an integer base and a float remainder. Far outside any grid, the base is clamped
 * where every read is skipped anyway. */
__device__ inline void
split_index (const double c[4], int *base, float r[4])
{
  double a0 = fmin (fmax (c[0], -1.0e7), 1.0e7);
  double fl = floor (a0);

  *base = (int) fl;
  r[0] = (float) (a0 - fl);
  r[1] = (float) c[1];
  r[2] = (float) c[2];
  r[3] = (float) c[3];
}

/* A phase cubic, reduced; with split, the linear term's first 16 bits go to c1h so that c1h d is exact
 * for |d| <= 128. */
__device__ inline void
split_phase (const double c[4], bool split, Fit *F)
{
  double c1h = 0.0;

  F->c0 = (float) (c[0] - rint (c[0]));
  if (split && c[1] != 0.0 && isfinite (c[1]))
    {
      int e = ilogb (c[1]);
      c1h = ldexp (rint (ldexp (c[1], 15 - e)), e - 15);
    }
  F->c1h = (float) c1h;
  F->c1l = (float) (c[1] - c1h);
  F->c2 = (float) c[2];
  F->c3 = (float) c[3];
}

/* Evaluation of an index cubic and of the phase at offset d. */
__device__ __forceinline__ float
eval_index (const float r[4], float d)
{
  return fmaf (d, fmaf (d, fmaf (d, r[3], r[2]), r[1]), r[0]);
}

__device__ __forceinline__ float
eval_phase (const Fit &F, float d, bool split)
{
  float lin = 0.f;

  if (split)
    {
      lin = F.c1h * d;           /* exact */
      lin = lin - rintf (lin);   /* exact */
    }
  float cyc = lin + fmaf (d, fmaf (d, fmaf (d, F.c3, F.c2), F.c1l), F.c0);
  return cyc - rintf (cyc);
}

__device__ __forceinline__ float2
cmul (float2 a, float c, float s)
{
  return make_float2 (a.x * c - a.y * s, a.x * s + a.y * c);
}

/* Storage of the polar grids. */
template <bool HALF> struct Store;

template <> struct Store<false> {
  typedef float2 T;
  static __device__ __forceinline__ float2 load (const float2 *p) { return __ldg (p); }
  static __device__ __forceinline__ void put (float2 *p, float2 v, float) { *p = v; }
};

template <> struct Store<true> {
  typedef __half2 T;
  static __device__ __forceinline__ float2 load (const __half2 *p) { return __half22float2 (__ldg (p)); }
  static __device__ __forceinline__ void put (__half2 *p, float2 v, float s)
  {
    *p = __floats2half2_rn (v.x * s, v.y * s);
  }
};

/* A power of two s with bound * s < 2^14: a quarter of fp16's range, for the rounding of a bound. */
__device__ inline float
fp16_scale (float bound)
{
  int e;

  if (!(bound > 0.f) || !isfinite (bound))
    return 1.f;
  frexpf (bound, &e);
  e = 14 - e;
  e = e < -100 ? -100 : (e > 100 ? 100 : e);
  return ldexpf (1.f, e);
}

/* The block's largest value of m into *out (non-negative floats order as their bits). */
__device__ inline void
block_max (float m, float *s_red, float *out)
{
  for (int o = 16; o > 0; o >>= 1)
    m = fmaxf (m, __shfl_xor_sync (0xffffffffu, m, o));
  if ((threadIdx.x & 31) == 0)
    s_red[threadIdx.x >> 5] = m;
  __syncthreads ();
  if (threadIdx.x == 0)
    {
      for (int w = 1; w < (int) (blockDim.x >> 5); w++)
        m = fmaxf (m, s_red[w]);
      atomicMax ((unsigned *) out, __float_as_uint (m));
    }
}

/* ---- leaves ---- */

/* The pair table (see ef-cuda-bp.cuh): entry q of a pulse's row holds, for profile bins q and q + 1,
 * M = (S_q + S_q+1) / 2 exp(j phi_q) and D = (S_q+1 - S_q) exp(j phi_q), phi_q the pulse's carrier at
 * the pair's centre; at bin position q + 1/2 + w, (M + w D) exp(j kr dr w) is the CPU leaf's linear
 * interpolation turned by the carrier. Pairs outside the profile and the guards hold zero. */
template <bool THALF> struct Table;

template <> struct Table<false> {
  typedef float4 T;
  static __device__ __forceinline__ void get (const float4 *p, float2 *m, float2 *d)
  {
    float4 v = __ldg (p);
    *m = make_float2 (v.x, v.y);
    *d = make_float2 (v.z, v.w);
  }
};

template <> struct Table<true> {
  typedef uint2 T;
  static __device__ __forceinline__ void get (const uint2 *p, float2 *m, float2 *d)
  {
    uint2 v = __ldg (p);
    *m = __half22float2 (*reinterpret_cast<const __half2 *> (&v.x));
    *d = __half22float2 (*reinterpret_cast<const __half2 *> (&v.y));
  }
};

constexpr int   kMagicFBits = 0x4B400000;   /* the bits of 1.5 * 2^23 */
constexpr float kMagicF = 12582912.0f;

/* One pulse over one leaf tile: bin position - 1/2 = base + c0 + c1h d + c1 d + c2 d^2 + c3 d^3, where
 * c1h, the slope that every pulse of the chunk shares (to 15 significant bits), times the (integer)
 * offset d is exact and taken apart per sample into an integer and a remainder: what float then adds
 * up stays within a few bins, precise to about 1e-6 bins, where the carrier turns up to some 50 radians
 * a bin. A pulse whose slope strays from the chunk's takes the exact path. Adding mf (the float
 * 1.5 * 2^23 + base) rounds to the pair index in the low bits. */
struct LeafFit {
  float c0, c1, c2, c3;
  float mf;
  float kdr;              /* radians per bin: the residual phase inside a pair */
  int   exact;            /* the cubic failed its check: evaluate every sample exactly */
  int   pad;
  long long row;          /* table element of pair 0 of the pulse's row, magic bits taken off */
};

/* Sample i of a leaf's row at angle al, pulse P, exactly in double: the bin position. Out of line, so
 * that the fast path keeps its registers. */
__device__ __noinline__ double
leaf_exact_bin (const EfCudaFfbpNode &N, const EfCudaPulse &P, bool bistatic, double al, int i)
{
  double x[3], dx, dy, dz, R;

  node_point (N, N.rho0 + i * N.drho, al, x);
  dx = P.tx[0] - x[0];
  dy = P.tx[1] - x[1];
  dz = P.tx[2] - x[2];
  R = sqrt (dx * dx + dy * dy + dz * dz);
  if (bistatic)
    {
      double ex = P.rcv[0] - x[0], ey = P.rcv[1] - x[1], ez = P.rcv[2] - x[2];
      R = 0.5 * (R + sqrt (ex * ex + ey * ey + ez * ez));
    }
  return (R - P.rref) * P.inv_dr;
}

/* The pair and w of bin position b (in float bits: t = b - 1/2 + mf); the pair is clamped into the
 * row's guards, whose entries are zero, so that every read stays inside the row. */
__device__ __forceinline__ int
leaf_pair (float x, float mf, int li, int lo, int hi, float *w)
{
  float t = __fadd_rn (x, mf);
  float fl = __fsub_rn (t, mf);
  int e = __float_as_int (t) + li;

  *w = __fsub_rn (x, fl);
  return min (max (e, lo), hi);
}

__device__ __forceinline__ void
leaf_add (float2 m, float2 dd, float w, float kdr, float2 *acc)
{
  float sr = fmaf (w, dd.x, m.x), si = fmaf (w, dd.y, m.y), sn, cs;

  __sincosf (w * kdr, &sn, &cs);
  acc->x = fmaf (sr, cs, acc->x);
  acc->x = fmaf (-si, sn, acc->x);
  acc->y = fmaf (sr, sn, acc->y);
  acc->y = fmaf (si, cs, acc->y);
}

/* One block: kLeafTile samples of one row of one leaf, kLeafPer to a thread. The pulses' carrier comes
 * from the table; the leaf's own demodulation exp(-j kr (rho - r0)), the same for every pulse, turns
 * the sum once at the end. */
template <bool HALF, bool THALF>
__global__ void __launch_bounds__ (kLeafThreads, 6)
leaf_kernel (const EfCudaFfbpArgs A)
{
  typedef typename Store<HALF>::T Elem;
  typedef typename Table<THALF>::T TElem;
  __shared__ double s_pt[kFitPoints][4];          /* x, y, z, ok */
  __shared__ double s_val[kLeafChunk][kFitPoints];
  __shared__ LeafFit s_fit[kLeafChunk];
  __shared__ float s_red[kLeafThreads / 32];
  __shared__ int s_any_exact;

  /* Tile-major: the blocks in flight share a stretch of range, and so of the table, in L2. */
  const unsigned row = blockIdx.x % A.n_rows, tile = blockIdx.x / A.n_rows;
  if (tile >= A.tiles_per_row)
    return;
  const unsigned node = A.groups[2 * row];
  const EfCudaFfbpNode &N = A.nodes[node];
  const int j = (int) A.groups[2 * row + 1];
  const int i_begin = (int) (tile * kLeafTile);
  if (i_begin >= (int) N.stride)
    return;

  const int t = threadIdx.x;
  const double al = N.al0 + j * N.dal;
  const double hw = 0.5 * kLeafTile, ic = i_begin + hw;
  const TElem *table = (const TElem *) A.table;
  /* Pairs -guard .. n + guard - 1 are in the row, as float bits. */
  const int lo = kMagicFBits - (int) A.guard, hi = kMagicFBits + (int) A.n_bins + (int) A.guard - 1;
  float d[kLeafPer], Lf[kLeafPer], c1h;
  int Li[kLeafPer];
  float2 acc[kLeafPer];

#pragma unroll
  for (int s = 0; s < kLeafPer; s++)
    {
      d[s] = (float) (t + s * kLeafThreads - kLeafTile / 2);
      acc[s] = make_float2 (0.f, 0.f);
    }
  if (t < kFitPoints)
    {
      double x[3], rho = N.rho0 + (ic + fit_u (t) * hw) * N.drho;
      bool v = node_point (N, rho, al, x);

      s_pt[t][0] = x[0];
      s_pt[t][1] = x[1];
      s_pt[t][2] = x[2];
      s_pt[t][3] = v ? 1.0 : 0.0;
    }

  for (unsigned p0 = N.p0; p0 < N.p1; p0 += kLeafChunk)
    {
      const int np = (int) min ((unsigned) kLeafChunk, N.p1 - p0);

      __syncthreads ();
      for (int w = t; w < np * kFitPoints; w += kLeafThreads)
        {
          int q = w / kFitPoints, k = w % kFitPoints;
          const EfCudaPulse &P = A.pulses[p0 + q];
          double dx = P.tx[0] - s_pt[k][0], dy = P.tx[1] - s_pt[k][1], dz = P.tx[2] - s_pt[k][2];
          double R = sqrt (dx * dx + dy * dy + dz * dz);

          if (A.bistatic)
            {
              double ex = P.rcv[0] - s_pt[k][0], ey = P.rcv[1] - s_pt[k][1], ez = P.rcv[2] - s_pt[k][2];
              R = 0.5 * (R + sqrt (ex * ex + ey * ey + ez * ez));
            }
          s_val[q][k] = (R - P.rref) * P.inv_dr;
        }
      __syncthreads ();
      /* The chunk's common slope, from its first pulse, and each sample's share of it. */
      {
        double f[kFitPoints], c[4];

        for (int k = 0; k < kFitPoints; k++)
          f[k] = s_val[0][k];
        fit_cubic (f, hw, c);
        c1h = 0.f;
        if (isfinite (c[1]) && c[1] != 0.0)
          {
            /* 15 significant bits, so that c1h d (|d| <= 256) is exact. */
            double c1 = fmin (fmax (c[1], -1024.0), 1024.0);
            int k = 14 - ilogb (c1);
            c1h = (float) ldexp (rint (ldexp (c1, k)), -k);
          }
#pragma unroll
        for (int s = 0; s < kLeafPer; s++)
          {
            float L = c1h * d[s];                       /* exact */
            float tL = __fadd_rn (L, kMagicF);

            Lf[s] = __fsub_rn (L, __fsub_rn (tL, kMagicF));
            Li[s] = __float_as_int (tL) - kMagicFBits;
          }
      }
      if (t == 0)
        s_any_exact = 0;
      __syncthreads ();
      for (int q = t; q < np; q += kLeafThreads)
        {
          double f[kFitPoints], c[4], err, base;
          bool pts = true;
          LeafFit F;

          for (int k = 0; k < kFitPoints; k++)
            {
              f[k] = s_val[q][k];
              pts = pts && s_pt[k][3] != 0.0;
            }
          err = fit_cubic (f, hw, c);
          /* Positions in pairs: the pair of bins q, q + 1 is centred on q + 1/2. */
          base = floor (fmin (fmax (c[0] - 0.5, -2097152.0), 2097152.0));
          F.c0 = (float) (c[0] - 0.5 - base);
          F.c1 = (float) (c[1] - (double) c1h);
          F.c2 = (float) c[2];
          F.c3 = (float) c[3];
          F.mf = __int_as_float (kMagicFBits + (int) base);
          F.kdr = A.pulses[p0 + q].kdr;
          F.exact = !pts || !(err < kTolIndex) || !(fabs (c[1] - (double) c1h) < 0.0625) || A.force_exact;
          F.pad = 0;
          F.row = (long long) (p0 + q) * A.table_stride + A.guard - kMagicFBits;
          s_fit[q] = F;
          if (F.exact)
            s_any_exact = 1;
        }
      __syncthreads ();

      if (!s_any_exact)
        {
          /* Every cubic passed: no branch in the loop, and pulses unrolled for loads in flight. */
#pragma unroll 4
          for (int q = 0; q < np; q++)
            {
              const LeafFit &F = s_fit[q];
              const TElem *rowp = table + F.row;

#pragma unroll
              for (int s = 0; s < kLeafPer; s++)
                {
                  float x = fmaf (d[s], fmaf (d[s], fmaf (d[s], F.c3, F.c2), F.c1), F.c0 + Lf[s]), w;
                  int e = leaf_pair (x, F.mf, Li[s], lo, hi, &w);
                  float2 m, dd;

                  Table<THALF>::get (rowp + e, &m, &dd);
                  leaf_add (m, dd, w, F.kdr, &acc[s]);
                }
            }
          continue;
        }
      for (int q = 0; q < np; q++)
        {
          const LeafFit &F = s_fit[q];
          const TElem *rowp = table + F.row;

          if (!F.exact)
            {
#pragma unroll
              for (int s = 0; s < kLeafPer; s++)
                {
                  float x = fmaf (d[s], fmaf (d[s], fmaf (d[s], F.c3, F.c2), F.c1), F.c0 + Lf[s]), w;
                  int e = leaf_pair (x, F.mf, Li[s], lo, hi, &w);
                  float2 m, dd;

                  Table<THALF>::get (rowp + e, &m, &dd);
                  leaf_add (m, dd, w, F.kdr, &acc[s]);
                }
            }
          else
            {
              for (int s = 0; s < kLeafPer; s++)
                {
                  const int i = i_begin + t + s * kLeafThreads;
                  double b = leaf_exact_bin (N, A.pulses[p0 + q], A.bistatic, al, i);
                  double pb = floor (fmin (fmax (b - 0.5, -2097152.0), 2097152.0));
                  float w;
                  int e = leaf_pair ((float) (b - 0.5 - pb), __int_as_float (kMagicFBits + (int) pb), 0, lo, hi,
                                     &w);
                  float2 m, dd;

                  Table<THALF>::get (rowp + e, &m, &dd);
                  leaf_add (m, dd, w, F.kdr, &acc[s]);
                }
            }
        }
    }

  {
    Elem *out = (Elem *) A.out + N.off + (size_t) j * N.stride;
    const float tscale = THALF ? A.table_scale[1] : 1.f;
    float scale = 1.f, m = 0.f;

    if (HALF)
      scale = fp16_scale ((float) (N.p1 - N.p0) * A.prof_max[0]);
#pragma unroll
    for (int s = 0; s < kLeafPer; s++)
      {
        const int i = i_begin + t + s * kLeafThreads;

        if (i < (int) N.stride)
          {
            double rho = N.rho0 + i * N.drho, cyc = -A.kcb * (rho - N.r0);
            float2 v = make_float2 (0.f, 0.f);

            if (i < (int) N.nrho && node_valid (N, rho, al))
              {
                float sn, cs;

                __sincosf (6.28318530717958647692f * (float) (cyc - rint (cyc)), &sn, &cs);
                v = cmul (acc[s], cs, sn);
                v.x *= tscale;
                v.y *= tscale;
              }
            Store<HALF>::put (out + i, v, scale);
            m = fmaxf (m, sqrtf (v.x * v.x + v.y * v.y));
          }
      }
    if (HALF)
      {
        block_max (m, s_red, &A.out_max[node]);
        if (t == 0)
          A.out_scale[node] = scale;
      }
  }
}

/* ---- merges and the final step ---- */

/* Grid C (samples g, multiplied by inv_scale) at range index ir + frl and angle index ia + fal through
 * the separable kernel, with the CPU's skips and edge handling. */
template <bool HALF, int TA>
__device__ __forceinline__ float2
gather (const typename Store<HALF>::T *__restrict__ g, const EfCudaFfbpNode &C, int ir, float frl, int ia,
        float fal, const float *wr_tab, const float *wa_tab, int tr)
{
  constexpr int kRowA = TA <= 8 ? tab_row_a (TA) : 2 * TA;
  typedef typename Store<HALF>::T Elem;
  const float fr = (float) ir + frl, fa = (float) ia + fal;
  const int nrho = (int) C.nrho, nal = (int) C.nal, stride = (int) C.stride;
  float2 acc = make_float2 (0.f, 0.f);

  if (!(fr > (float) -kRS) || !(fr < (float) (nrho + kRS)) || !(fa > (float) -kAS)
      || !(fa < (float) (nal + kAS)))
    return acc;

  float flr = floorf (frl), fla = floorf (fal);
  float qfr = (frl - flr) * (float) kKQ, qfa = (fal - fla) * (float) kKQ;
  int qr = min ((int) qfr, kKQ - 1), qa = min ((int) qfa, kKQ - 1);
  float dr = qfr - (float) qr, da = qfa - (float) qa;
  int i0 = ir + (int) flr - tr / 2 + 1, j0 = ia + (int) fla - TA / 2 + 1;
  float wr[kRS], wa[TA];

  /* Tables of (w, dw) by phase: one row of kRS (range) or TA (angle) taps; the range table and a short
   * angular one are in shared memory. */
#pragma unroll
  for (int k = 0; k < kRS; k++)
    {
      float2 e = *reinterpret_cast<const float2 *> (wr_tab + qr * kTabRow + 2 * k);
      wr[k] = fmaf (dr, e.y, e.x);
    }
#pragma unroll
  for (int k = 0; k < TA; k++)
    {
      float2 e = TA <= 8 ? *reinterpret_cast<const float2 *> (wa_tab + qa * kRowA + 2 * k)
                         : __ldg (reinterpret_cast<const float2 *> (wa_tab + qa * kRowA + 2 * k));
      wa[k] = fmaf (da, e.y, e.x);
    }

  if (i0 >= 0 && i0 + kRS <= stride && j0 >= 0 && j0 + TA <= nal)
    {
      const Elem *base = g + C.off + (size_t) j0 * stride + i0;

#pragma unroll
      for (int j = 0; j < TA; j++)
        {
          const Elem *row = base + (size_t) j * stride;
          float2 s = make_float2 (0.f, 0.f);

#pragma unroll
          for (int k = 0; k < kRS; k++)
            {
              float2 v = Store<HALF>::load (row + k);
              s.x = fmaf (wr[k], v.x, s.x);
              s.y = fmaf (wr[k], v.y, s.y);
            }
          acc.x = fmaf (wa[j], s.x, acc.x);
          acc.y = fmaf (wa[j], s.y, acc.y);
        }
    }
  else
    {
      /* Near the edges of the grid: the taps that fall outside read zero. */
#pragma unroll
      for (int j = 0; j < TA; j++)
        {
          int jj = j0 + j;

          if (jj >= 0 && jj < nal)
            {
              const Elem *row = g + C.off + (size_t) jj * stride;
              float2 s = make_float2 (0.f, 0.f);

#pragma unroll
              for (int k = 0; k < kRS; k++)
                {
                  int ii = i0 + k;

                  if (k < tr && ii >= 0 && ii < nrho)
                    {
                      float2 v = Store<HALF>::load (row + ii);
                      s.x = fmaf (wr[k], v.x, s.x);
                      s.y = fmaf (wr[k], v.y, s.y);
                    }
                }
              acc.x = fmaf (wa[j], s.x, acc.x);
              acc.y = fmaf (wa[j], s.y, acc.y);
            }
        }
    }
  return acc;
}

/* One sample (pixel) of an output row: the points of the tile come from its row. */
struct PolarDest {
  const EfCudaFfbpNode *N;
  double al;

  __device__ bool point (double i, double x[3], double *off) const
  {
    double rho = N->rho0 + i * N->drho;

    *off = -(rho - N->r0);
    return node_point (*N, rho, al, x);
  }
};

struct ImageDest {
  double x0[3], su[3];

  __device__ bool point (double i, double x[3], double *off) const
  {
    for (int k = 0; k < 3; k++)
      x[k] = x0[k] + i * su[k];
    *off = 0.0;
    return true;
  }
};

struct GridGeo {
  int   ir, ia;
  float frl, fal, cyc;
};

/* Sample i of an output row in grid C, exactly in double, out of line (see leaf_exact). */
template <typename Dest>
__device__ __noinline__ GridGeo
grid_exact (const Dest &dest, const EfCudaFfbpNode &C, double kc, int i)
{
  double x[3], off, fr, fa, cy, flr, fla;
  GridGeo e;

  dest.point ((double) i, x, &off);
  eval_grid (C, x, off, kc, &fr, &fa, &cy);
  fr = fmin (fmax (fr, -1.0e7), 1.0e7);
  fa = fmin (fmax (fa, -1.0e7), 1.0e7);
  flr = floor (fr);
  fla = floor (fa);
  e.ir = (int) flr;
  e.ia = (int) fla;
  e.frl = (float) (fr - flr);
  e.fal = (float) (fa - fla);
  e.cyc = (float) (cy - rint (cy));
  return e;
}

/* A block takes kGatherTile samples (pixels) of up to kGatherRows consecutive rows: rows of one node of
 * the stage, gathering that node's children, or (FINAL) image rows, gathering every node of the last
 * stage and adding into the image. The exact geometry of each (row, source) pair is fitted once per
 * tile; up to kGatherFits pairs are staged at a time. */
template <bool HALF, int TA, bool FINAL>
__global__ void __launch_bounds__ (kGatherThreads, (TA <= 8 ? 4 : 2))
gather_kernel (const EfCudaFfbpArgs A)
{
  typedef typename Store<HALF>::T Elem;
  constexpr int kSources = kGatherFits / kGatherRows;   /* sources staged at a time */
  __shared__ double s_pt[kGatherRows][kFitPoints][5];   /* x, y, z, off, ok */
  __shared__ double s_val[kGatherFits][kFitPoints][3];
  __shared__ Fit s_fit[kGatherFits];
  __shared__ float s_inv[kSources];
  __shared__ float s_red[kGatherThreads / 32];
  __shared__ __align__ (16) float s_wr[kKQ * kTabRow];
  __shared__ __align__ (16) float s_wa[TA <= 8 ? kKQ * tab_row_a (TA) : 4];

  /* Tile-major: the blocks in flight share a stretch of range of the grids below, in L2. */
  const unsigned group = blockIdx.x % A.n_rows, tile = blockIdx.x / A.n_rows;
  if (tile >= A.tiles_per_row)
    return;
  const int t = threadIdx.x;
  const int i_begin = (int) (tile * kGatherTile), i = i_begin + t;
  const double hw = 0.5 * kGatherTile, ic = i_begin + hw;
  const float d = (float) (t - kGatherTile / 2);
  const Elem *in = (const Elem *) A.in;
  const EfCudaFfbpNode *N = NULL;
  unsigned node = 0, c_first, c_count, okmask = 0;
  int row0, nr;

  if (FINAL)
    {
      if (i_begin >= (int) A.width)
        return;
      row0 = (int) (group * kGatherRows);
      nr = min (kGatherRows, (int) A.height - row0);
      c_first = 0;
      c_count = A.n_children;
      for (int r = 0; r < nr; r++)
        okmask |= (unsigned) (i < (int) A.width) << r;
    }
  else
    {
      node = A.groups[2 * group];
      N = &A.nodes[node];
      if (i_begin >= (int) N->stride)
        return;
      row0 = (int) A.groups[2 * group + 1];
      nr = min (kGatherRows, (int) N->nal - row0);
      c_first = N->c0;
      c_count = N->nc;
      for (int r = 0; r < nr; r++)
        {
          const double al = N->al0 + (double) (row0 + r) * N->dal;

          okmask |= (unsigned) (i < (int) N->nrho && node_valid (*N, N->rho0 + i * N->drho, al)) << r;
        }
    }

  /* The tables, from global (w, dw) rows of kRS and TA pairs into padded rows. */
  for (int e = t; e < kKQ * kRS; e += kGatherThreads)
    {
      const int q = e / kRS, k = e % kRS;
      *reinterpret_cast<float2 *> (&s_wr[q * kTabRow + 2 * k]) = __ldg ((const float2 *) A.wr + e);
    }
  if (TA <= 8)
    for (int e = t; e < kKQ * TA; e += kGatherThreads)
      {
        const int q = e / TA, k = e % TA;
        *reinterpret_cast<float2 *> (&s_wa[q * tab_row_a (TA) + 2 * k]) = __ldg ((const float2 *) A.wa + e);
      }

  if (t < nr * kFitPoints)
    {
      const int r = t / kFitPoints, k = t % kFitPoints;
      const double pos = ic + fit_u (k) * hw;
      double x[3], off;
      bool v;

      if (FINAL)
        {
          ImageDest id;

          for (int a = 0; a < 3; a++)
            {
              id.x0[a] = A.origin[a] + (double) (row0 + r) * A.sv[a];
              id.su[a] = A.su[a];
            }
          v = id.point (pos, x, &off);
        }
      else
        {
          PolarDest pd = { N, N->al0 + (double) (row0 + r) * N->dal };
          v = pd.point (pos, x, &off);
        }
      s_pt[r][k][0] = x[0];
      s_pt[r][k][1] = x[1];
      s_pt[r][k][2] = x[2];
      s_pt[r][k][3] = off;
      s_pt[r][k][4] = v ? 1.0 : 0.0;
    }

  const double kc = A.kcb;
  float m_max = 0.f, scale = 1.f;

  if (!FINAL && HALF)
    {
      float bound = 0.f;

      for (unsigned k = 0; k < N->nc; k++)
        bound += A.in_max[N->c0 + k];
      scale = fp16_scale (bound * A.gain);
    }

  for (unsigned c0 = 0; c0 < c_count; c0 += kSources)
    {
      const int ns = (int) min ((unsigned) kSources, c_count - c0);

      __syncthreads ();
      for (int w = t; w < nr * ns * kFitPoints; w += kGatherThreads)
        {
          const int f = w / kFitPoints, k = w % kFitPoints, r = f / ns, q = f % ns;
          double x[3] = { s_pt[r][k][0], s_pt[r][k][1], s_pt[r][k][2] };

          eval_grid (A.children[c_first + c0 + q], x, s_pt[r][k][3], kc, &s_val[f][k][0], &s_val[f][k][1],
                     &s_val[f][k][2]);
        }
      __syncthreads ();
      for (int f = t; f < nr * ns; f += kGatherThreads)
        {
          const int r = f / ns;
          double v[kFitPoints], c[4];
          bool pts = true;
          double err;
          Fit F;

          for (int k = 0; k < kFitPoints; k++)
            {
              v[k] = s_val[f][k][0];
              pts = pts && s_pt[r][k][4] != 0.0;
            }
          err = fit_cubic (v, hw, c);
          split_index (c, &F.ir, F.r);
          F.exact = !pts || !(err < kTolIndex);
          for (int k = 0; k < kFitPoints; k++)
            v[k] = s_val[f][k][1];
          err = fit_cubic (v, hw, c);
          split_index (c, &F.ia, F.a);
          F.exact = F.exact || !(err < kTolIndex);
          for (int k = 0; k < kFitPoints; k++)
            v[k] = s_val[f][k][2];
          err = fit_cubic (v, hw, c);
          split_phase (c, true, &F);
          F.exact = F.exact || !(err < kTolCycles) || A.force_exact;
          s_fit[f] = F;
        }
      if (t < ns)
        s_inv[t] = HALF ? 1.f / A.in_scale[c_first + c0 + t] : 1.f;
      __syncthreads ();

      for (int r = 0; r < nr; r++)
        {
          const bool ok = (okmask >> r) & 1u;
          float2 acc = make_float2 (0.f, 0.f);

          for (int q = 0; q < ns && ok; q++)
            {
              const Fit &F = s_fit[r * ns + q];
              const EfCudaFfbpNode &C = A.children[c_first + c0 + q];
              int ir, ia;
              float frl, fal, cyc;

              if (!F.exact)
                {
                  ir = F.ir;
                  ia = F.ia;
                  frl = eval_index (F.r, d);
                  fal = eval_index (F.a, d);
                  cyc = eval_phase (F, d, true);
                }
              else
                {
                  GridGeo e;

                  if (FINAL)
                    {
                      ImageDest id;

                      for (int a = 0; a < 3; a++)
                        {
                          id.x0[a] = A.origin[a] + (double) (row0 + r) * A.sv[a];
                          id.su[a] = A.su[a];
                        }
                      e = grid_exact (id, C, kc, i);
                    }
                  else
                    {
                      PolarDest pd = { N, N->al0 + (double) (row0 + r) * N->dal };
                      e = grid_exact (pd, C, kc, i);
                    }
                  ir = e.ir;
                  ia = e.ia;
                  frl = e.frl;
                  fal = e.fal;
                  cyc = e.cyc;
                }
              const float *wa = TA <= 8 ? s_wa : (const float *) A.wa;
              float2 v = gather<HALF, TA> (in, C, ir, frl, ia, fal, s_wr, wa, (int) A.taps_range);
              float sn, cs;

              __sincosf (6.28318530717958647692f * cyc, &sn, &cs);
              v = cmul (v, cs, sn);
              acc.x = fmaf (v.x, s_inv[q], acc.x);
              acc.y = fmaf (v.y, s_inv[q], acc.y);
            }

          if (FINAL)
            {
              if (ok)
                {
                  float2 *px = (float2 *) A.out + (size_t) (row0 + r) * A.width + i;
                  float2 o = *px;

                  o.x += acc.x;
                  o.y += acc.y;
                  *px = o;
                }
            }
          else if (i < (int) N->stride)
            {
              /* Merges have at most kSources children: one pass writes each row once. */
              Elem *out = (Elem *) A.out + N->off + (size_t) (row0 + r) * N->stride;

              Store<HALF>::put (out + i, acc, scale);
              m_max = fmaxf (m_max, sqrtf (acc.x * acc.x + acc.y * acc.y));
            }
        }
    }

  if (!FINAL && HALF)
    {
      block_max (m_max, s_red, &A.out_max[node]);
      if (t == 0)
        A.out_scale[node] = scale;
    }
}

/* The largest magnitude of count profiles of n bins (stride apart) into *out (zeroed before). */
__global__ void
absmax_kernel (const float2 *__restrict__ prof, unsigned n, unsigned stride, unsigned count, float *out)
{
  __shared__ float s_red[8];
  float m = 0.f;

  for (unsigned p = blockIdx.y; p < count; p += gridDim.y)
    for (unsigned k = blockIdx.x * blockDim.x + threadIdx.x; k < n; k += gridDim.x * blockDim.x)
      {
        float2 v = prof[(size_t) p * stride + k];
        m = fmaxf (m, sqrtf (v.x * v.x + v.y * v.y));
      }
  block_max (m, s_red, out);
}

} /* namespace ef_ffbp_gpu */
