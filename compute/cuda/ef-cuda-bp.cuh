/* ef-cuda-bp.cuh: backprojection device code, fp32 and fp16 mixed precision, and its host model. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/*
 * How the kernel keeps 80 dB of accuracy while doing about 17 instructions per pixel and pulse.
 *
 * Range. A block owns a tile of 32 x (warps * seg) pixels. For each pulse, one thread expands the range
 * from the antenna to the tile in a third-order Taylor series about the tile centre, in double, in
 * units of range bins (EfTaylor). The truncation error is about d^4 / R^3 for a tile half-diagonal d,
 * far below a micrometre for the shapes the host allows (ef_cuda_choose_variant checks). A thread owns
 * `seg` consecutive pixels down one column. Per pulse it evaluates the series at its segment's centre,
 * still in double, and splits the result into an integer base pair and a small float remainder. Inside
 * the segment only a float quadratic in the pixel step k remains, whose values stay within a few bins,
 * so float rounding costs about 1e-7 bins.
 *
 * Phase. The profile is stored as a pair table: entry q holds, for samples S_q and S_q+1,
 *   M_q = (S_q + S_q+1) / 2 * exp(j phi_q),   D_q = (S_q+1 - S_q) * exp(j phi_q),
 * where phi_q is the carrier phase kr dR at the pair's centre, computed in double when the table is
 * built. A pixel at bin position q + 1/2 + w (|w| <= 1/2) then needs
 *   (M_q + w D_q) * exp(j kr dr w),
 * which is linear interpolation times the exact carrier, with a phase argument of a few radians at
 * most. No absolute phase ever passes through float.
 *
 * Bin splitting. Adding 1.5 * 2^23 to a float rounds it to an integer held in the low mantissa bits;
 * that gives the pair index and w with three additions and no conversion instructions.
 *
 * Edges. The CPU reference gives zero outside pairs [0, n_bins - 2]. Table rows carry `guard` zero
 * entries at each end, the base pair of a segment is clamped so that every read stays inside the row,
 * and a clamped segment only ever reads zeros.
 */

#include <cuda_fp16.h>
#include <math.h>
#include <string.h>

#include "ef-cuda-private.h"

namespace ef_cuda {

constexpr double kMagicD = 6755399441055744.0;  /* 1.5 * 2^52 */
constexpr float  kMagicF = 12582912.0f;          /* 1.5 * 2^23 */
constexpr int    kMagicFBits = 0x4B400000;

/* Bin position over a tile, b(a, y) = sum c[i] a^p y^q, a and y in pixels from the tile centre.
 * Order: 1, a, y, a^2, a y, y^2, a^3, a^2 y, a y^2, y^3. */
struct EfTaylor {
  double c[10];
};

/* Per pulse and warp: the series restricted to the warp's segment row y_c, as a polynomial in the
 * column offset a; and the first two derivatives down the column. 64 bytes. */
struct __align__ (16) EfStage {
  double e0, e1;       /* b(a, y_c) = e0 + e1 a + (e2 + e3 a) a^2; e0, e1 need double */
  float  e2, e3;
  float  d0, d1, d2;   /* db/dy (a, y_c) = d0 + d1 a + d2 a^2 */
  float  h0, h1;       /* (d2b/dy2 (a, y_c)) / 2 = h0 + h1 a */
  float  kdr;          /* radians per bin */
  long long row;       /* element offset of the pulse's table row, minus the magic bits */
};

__host__ __device__ inline int
float_bits (float x)
{
#ifdef __CUDA_ARCH__
  return __float_as_int (x);
#else
  int i;
  memcpy (&i, &x, sizeof i);
  return i;
#endif
}

__host__ __device__ inline int
double_lo (double x)
{
#ifdef __CUDA_ARCH__
  return __double2loint (x);
#else
  long long i;
  memcpy (&i, &x, sizeof i);
  return (int) (unsigned int) (i & 0xffffffffLL);
#endif
}

/* Range |ant - X(a, y)| from one antenna, X = C + a su + y sv, as a third-order series. With
 * eps = L + Q (L linear, Q quadratic in a, y): R = R0 sqrt(1 + eps) ~ R0 (1 + eps/2 - eps^2/8 + eps^3/16),
 * keeping every term of total degree <= 3. Adds scale * series into c. */
__host__ __device__ inline void
range_series (const double ant[3], const double C[3], const double su[3], const double sv[3], double scale,
              double c[10])
{
  double D[3] = { ant[0] - C[0], ant[1] - C[1], ant[2] - C[2] };
  double r2 = D[0] * D[0] + D[1] * D[1] + D[2] * D[2];
  double r0 = sqrt (r2);
  double i2 = 1.0 / r2;
  double la = -2.0 * (D[0] * su[0] + D[1] * su[1] + D[2] * su[2]) * i2;
  double ly = -2.0 * (D[0] * sv[0] + D[1] * sv[1] + D[2] * sv[2]) * i2;
  double qaa = (su[0] * su[0] + su[1] * su[1] + su[2] * su[2]) * i2;
  double qay = 2.0 * (su[0] * sv[0] + su[1] * sv[1] + su[2] * sv[2]) * i2;
  double qyy = (sv[0] * sv[0] + sv[1] * sv[1] + sv[2] * sv[2]) * i2;
  double s = scale * r0;

  c[0] += s;
  c[1] += s * 0.5 * la;
  c[2] += s * 0.5 * ly;
  c[3] += s * (0.5 * qaa - 0.125 * la * la);
  c[4] += s * (0.5 * qay - 0.25 * la * ly);
  c[5] += s * (0.5 * qyy - 0.125 * ly * ly);
  c[6] += s * (-0.25 * (la * qaa) + 0.0625 * la * la * la);
  c[7] += s * (-0.25 * (la * qay + ly * qaa) + 0.1875 * la * la * ly);
  c[8] += s * (-0.25 * (la * qyy + ly * qay) + 0.1875 * la * ly * ly);
  c[9] += s * (-0.25 * (ly * qyy) + 0.0625 * ly * ly * ly);
}

/* The pulse's bin-position series over the tile centred at C. */
__host__ __device__ inline void
pulse_taylor (const EfCudaPulse *pu, const double C[3], const double su[3], const double sv[3], bool bistatic,
              EfTaylor *t)
{
  for (int i = 0; i < 10; i++)
    t->c[i] = 0.0;
  if (bistatic)
    {
      range_series (pu->tx, C, su, sv, 0.5, t->c);
      range_series (pu->rcv, C, su, sv, 0.5, t->c);
    }
  else
    range_series (pu->tx, C, su, sv, 1.0, t->c);
  t->c[0] = (t->c[0] - pu->rref) * pu->inv_dr;
  for (int i = 1; i < 10; i++)
    t->c[i] *= pu->inv_dr;
}

/* Restricts the series to the row y (pixels from the tile centre). */
__host__ __device__ inline void
make_stage (const EfTaylor *t, double y, float kdr, long long row, EfStage *st)
{
  /* A series that is not finite becomes the constant one below, parked: every pixel then reads the
   * same guard zero. */
  const EfTaylor parked = { { -1.0e9 } };
  const double *c = isfinite (t->c[1] + t->c[2] + t->c[3] + t->c[4] + t->c[5] + t->c[6] + t->c[7] + t->c[8]
                              + t->c[9]) ? t->c : parked.c;
  double e0 = c[0] + y * (c[2] + y * (c[5] + y * c[9]));

  /* Far outside the profile (or not finite): park it where every read is a guard zero, and keep the
   * 32-bit split below from wrapping into the profile. */
  if (!(fabs (e0) < 1.0e9))
    e0 = -1.0e9;
  st->e0 = e0;
  st->e1 = c[1] + y * (c[4] + y * c[8]);
  st->e2 = (float) (c[3] + y * c[7]);
  st->e3 = (float) c[6];
  st->d0 = (float) (c[2] + y * (2.0 * c[5] + 3.0 * y * c[9]));
  st->d1 = (float) (c[4] + 2.0 * y * c[8]);
  st->d2 = (float) c[7];
  st->h0 = (float) (c[5] + 3.0 * y * c[9]);
  st->h1 = (float) c[8];
  st->kdr = kdr;
  st->row = row - (long long) kMagicFBits;
}

/* Per pulse, per thread: where the segment starts in the table and its float quadratic. */
struct EfSeg {
  long long row;   /* element index of the pulse's pair 0, magic bits folded in */
  float mf;        /* 1.5 * 2^23 + base pair: adding it rounds to an integer and adds the base */
  float fc, b1, b2, kdr;
};

__host__ __device__ inline float
int_bits_float (int i)
{
#ifdef __CUDA_ARCH__
  return __int_as_float (i);
#else
  float f;
  memcpy (&f, &i, sizeof f);
  return f;
#endif
}

__host__ __device__ inline void
seg_setup (const EfStage &st, double ad, float a, float a2, int ib_lo, int ib_hi, EfSeg *sg)
{
  double bc = fma (ad, st.e1, st.e0);
  double t = bc + kMagicD;
  int ib = double_lo (t);
  double fl = t - kMagicD;
  /* bc - fl is exact (|.| <= 1/2); the small cubic tail joins in float. 1/2 moves from sample to pair
   * coordinates: a pair q covers bin positions q .. q + 1 and its centre is q + 1/2. */
  float fc = (float) (bc - fl) + a2 * fmaf (a, st.e3, st.e2) - 0.5f;

  ib = ib < ib_lo ? ib_lo : (ib > ib_hi ? ib_hi : ib);
  sg->row = st.row;
  /* The float 1.5 * 2^23 + ib, exactly (|ib| < 2^22): its bits are the magic bits plus ib. */
  sg->mf = int_bits_float (kMagicFBits + ib);
  sg->fc = fc;
  sg->b1 = fmaf (a, fmaf (a, st.d2, st.d1), st.d0);
  sg->b2 = fmaf (a, st.h1, st.h0);
  sg->kdr = st.kdr;
}

/* Splits the pixel's position (pairs from the segment's base pair) into the table element offset from
 * the row (returned: the float's bits, magic and base included) and w in [-1/2, 1/2]. */
__host__ __device__ inline int
split_bin (const EfSeg &sg, float kk, float *w)
{
  float r = fmaf (sg.b2, kk * kk, fmaf (sg.b1, kk, sg.fc));
#ifdef __CUDA_ARCH__
  float t = __fadd_rn (r, sg.mf);
  float fl = __fsub_rn (t, sg.mf);
  *w = __fsub_rn (r, fl);
#else
  volatile float t = r + sg.mf;
  float fl = t - sg.mf;
  *w = r - fl;
#endif
  return float_bits (t);
}

#ifdef __CUDACC__

/* Phase 1 and 2 of a chunk: per pulse, the tile series (one thread each); then per pulse and warp, the
 * stage. Ends with the stages visible to the whole block. */
template <int SEG, int WARPS>
__device__ inline void
stage_chunk (const EfCudaBpArgs &A, int p0, int np, EfTaylor *taylor, EfStage *stage, int row_elems)
{
  const int tid = threadIdx.x;
  constexpr int BH = SEG * WARPS;

  if (tid < np)
    {
      const int cx = blockIdx.x * 32 + 16, cy = blockIdx.y * BH + BH / 2;
      double C[3];
      EfCudaPulse pu = A.pulses[p0 + tid];

      for (int i = 0; i < 3; i++)
        C[i] = A.origin[i] + cx * A.su[i] + cy * A.sv[i];
      pulse_taylor (&pu, C, A.su, A.sv, A.bistatic, &taylor[tid]);
    }
  __syncthreads ();
  for (int i = tid; i < np * WARPS; i += WARPS * 32)
    {
      int p = i / WARPS, w = i % WARPS;
      double yc = (double) (w * SEG + SEG / 2 - BH / 2);

      make_stage (&taylor[p], yc, A.pulses[p0 + p].kdr, (long long) (p0 + p) * row_elems + A.guard,
                  &stage[p * WARPS + w]);
    }
  __syncthreads ();
}

template <int SEG, int WARPS, int CHUNK, int MINB>
__global__ void __launch_bounds__ (WARPS * 32, MINB)
bp_fp32_kernel (const EfCudaBpArgs A)
{
  __shared__ EfTaylor taylor[CHUNK];
  __shared__ EfStage stage[CHUNK * WARPS];
  constexpr int BH = SEG * WARPS;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const float a = (float) (lane - 16);
  const double ad = (double) (lane - 16);
  const float a2 = a * a;
  const float4 *table = (const float4 *) A.table;
  float2 acc[SEG];

#pragma unroll
  for (int k = 0; k < SEG; k++)
    acc[k] = make_float2 (0.f, 0.f);

  for (int p0 = 0; p0 < (int) A.n_pulses; p0 += CHUNK)
    {
      const int np = min (CHUNK, (int) A.n_pulses - p0);

      __syncthreads ();
      stage_chunk<SEG, WARPS> (A, p0, np, taylor, stage, (int) A.stride);
      for (int p = 0; p < np; p++)
        {
          EfSeg sg;

          seg_setup (stage[p * WARPS + warp], ad, a, a2, A.ib_lo, A.ib_hi, &sg);
          const float4 *pp = table + sg.row;
          /* Materialise the row pointer so that each pixel's address is one IMAD.WIDE from it, not a
           * 64-bit add and a scale from the table's base. */
          asm ("" : "+l"(pp));
#pragma unroll
          for (int k = 0; k < SEG; k++)
            {
              const float kk = (float) (k - SEG / 2);
              float w, sn, cs;
              int off = split_bin (sg, kk, &w);
              float4 v = __ldg (pp + off);
              float sr = fmaf (w, v.z, v.x), si = fmaf (w, v.w, v.y);

              __sincosf (w * sg.kdr, &sn, &cs);
              acc[k].x = fmaf (sr, cs, acc[k].x);
              acc[k].x = fmaf (-si, sn, acc[k].x);
              acc[k].y = fmaf (sr, sn, acc[k].y);
              acc[k].y = fmaf (si, cs, acc[k].y);
            }
        }
    }

  {
    const int col = blockIdx.x * 32 + lane;
    float2 *img = (float2 *) A.image;

    if (col < (int) A.width)
#pragma unroll
      for (int k = 0; k < SEG; k++)
        {
          const int row = blockIdx.y * BH + warp * SEG + k;

          if (row < (int) A.height)
            {
              float2 *px = img + (size_t) row * A.width + col;
              float2 o = *px;
              o.x += acc[k].x;
              o.y += acc[k].y;
              *px = o;
            }
        }
  }
}

/* fp16: the pair table holds half2 (M, D) scaled by a power of two chosen per launch so that a chunk's
 * sum cannot overflow; interpolation and accumulation run in half2, and each chunk's sums are added into
 * the float image before the next chunk starts (each pixel has one owning thread, so no other thread
 * touches it during the launch). Keeping no float accumulators in registers leaves the 64-register
 * budget to the half2 sums and the loads in flight, with nothing in local memory. Range and phase stay
 * in fp32 as above; per pixel the loop spends two MUFU (sin, cos) and about 17 instructions, so the
 * remaining savings are in instruction count: w is packed to half for two pixels at once, and the bin
 * position is evaluated symmetrically about the segment centre (kk and -kk share fc + b2 kk^2). */
__device__ __forceinline__ void
fp16_pixel (const EfSeg &sg, const uint2 *pp, float r, float *w, uint2 *v)
{
  float t = __fadd_rn (r, sg.mf);
  float fl = __fsub_rn (t, sg.mf);

  *w = __fsub_rn (r, fl);
  *v = __ldg (pp + __float_as_int (t));
}

__device__ __forceinline__ void
fp16_accumulate (const EfSeg &sg, uint2 v, __half2 wh, float w, __half2 *accp, __half2 *accq)
{
  float sn, cs;
  __half2 m = *reinterpret_cast<__half2 *> (&v.x);
  __half2 d = *reinterpret_cast<__half2 *> (&v.y);
  __half2 s = __hfma2 (wh, d, m);

  __sincosf (w * sg.kdr, &sn, &cs);
  const __half2 e = __floats2half2_rn (cs, sn);
  *accp = __hfma2 (__low2half2 (s), e, *accp);
  *accq = __hfma2 (__high2half2 (s), e, *accq);
}

/* Two pixels of one segment and pulse, at bin positions r0 and r1 (pairs from the base pair). */
__device__ __forceinline__ void
fp16_pair (const EfSeg &sg, const uint2 *pp, float r0, float r1, __half2 *accp0, __half2 *accq0, __half2 *accp1,
           __half2 *accq1)
{
  float w0, w1;
  uint2 v0, v1;

  fp16_pixel (sg, pp, r0, &w0, &v0);
  fp16_pixel (sg, pp, r1, &w1, &v1);
  const __half2 wp = __floats2half2_rn (w0, w1);
  fp16_accumulate (sg, v0, __low2half2 (wp), w0, accp0, accq0);
  fp16_accumulate (sg, v1, __high2half2 (wp), w1, accp1, accq1);
}

template <int SEG, int WARPS, int CHUNK, int MINB>
__global__ void __launch_bounds__ (WARPS * 32, MINB)
bp_fp16_kernel (const EfCudaBpArgs A)
{
  static_assert (SEG % 2 == 0, "pixels go in pairs");
  __shared__ EfTaylor taylor[CHUNK];
  __shared__ EfStage stage[CHUNK * WARPS];
  constexpr int BH = SEG * WARPS;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const float a = (float) (lane - 16);
  const double ad = (double) (lane - 16);
  const float a2 = a * a;
  const uint2 *table = (const uint2 *) A.table;
  const float inv_scale = A.scale[1];
  const int col = blockIdx.x * 32 + lane;
  const int row0 = blockIdx.y * BH + warp * SEG;
  const bool col_in = col < (int) A.width;

  for (int p0 = 0; p0 < (int) A.n_pulses; p0 += CHUNK)
    {
      const int np = min (CHUNK, (int) A.n_pulses - p0);
      /* s e = (sr c - si sn, sr sn + si c): with P = (c, sn), accp sums sr P and accq sums si P, and
       * the chunk's result is (accp.x - accq.y, accp.y + accq.x). One pack and two HFMA2 per pixel. */
      __half2 accp[SEG], accq[SEG];

#pragma unroll
      for (int k = 0; k < SEG; k++)
        accp[k] = accq[k] = __float2half2_rn (0.f);
      __syncthreads ();
      stage_chunk<SEG, WARPS> (A, p0, np, taylor, stage, (int) A.stride);
      for (int p = 0; p < np; p++)
        {
          EfSeg sg;

          seg_setup (stage[p * WARPS + warp], ad, a, a2, A.ib_lo, A.ib_hi, &sg);
          const uint2 *pp = table + sg.row;
          /* Materialise the row pointer so that each pixel's address is one IMAD.WIDE from it, not a
           * 64-bit add and a scale from the table's base. */
          asm ("" : "+l"(pp));
          /* Pixels go in pairs (kk, -kk) for kk = k - SEG / 2: their bin positions fc + b1 kk + b2 kk^2
           * share fc + b2 kk^2, and one conversion packs both w to half. The float steps differ from
           * split_bin's (kk^2 term first) by an ulp of r (1e-7 bins) at most. The pair (0, -SEG / 2)
           * has no partner term. */
          {
            const float kk = (float) (-SEG / 2);
            fp16_pair (sg, pp, sg.fc, fmaf (sg.b1, kk, fmaf (sg.b2, kk * kk, sg.fc)), &accp[SEG / 2],
                       &accq[SEG / 2], &accp[0], &accq[0]);
          }
#pragma unroll
          for (int j = 1; j < SEG / 2; j++)
            {
              const float c = fmaf (sg.b2, (float) (j * j), sg.fc);
              fp16_pair (sg, pp, fmaf (sg.b1, (float) -j, c), fmaf (sg.b1, (float) j, c), &accp[SEG / 2 - j],
                         &accq[SEG / 2 - j], &accp[SEG / 2 + j], &accq[SEG / 2 + j]);
            }
        }
      if (col_in)
        {
#pragma unroll
          for (int k = 0; k < SEG; k++)
            if (row0 + k < (int) A.height)
              {
                float2 fp = __half22float2 (accp[k]), fq = __half22float2 (accq[k]);
                float2 *px = (float2 *) A.image + (size_t) (row0 + k) * A.width + col;
                float2 o = *px;
                o.x = fmaf (fp.x - fq.y, inv_scale, o.x);
                o.y = fmaf (fp.y + fq.x, inv_scale, o.y);
                *px = o;
              }
        }
    }
}

#endif /* __CUDACC__ */

} /* namespace ef_cuda */
