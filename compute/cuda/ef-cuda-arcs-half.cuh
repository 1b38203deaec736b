/* ef-cuda-arcs-half.cuh: device code for the periodogram on the folded grid, register-tiled on CUDA cores. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <cuda_runtime.h>

#include "ef-cuda-arcs-private.h"
#include "ef-cuda-arcs.cuh"

/*
 * The folded grid (ef-arcs.h): each arc's series is turned once by the grid centre's rotation, z'_k =
 * z_k exp (-j theta_k (c)) = x_k + j y_k, and a pair of mirror points g, G - 1 - g takes four sums over
 * the passes, A = sum x p, B = sum y q, C = sum y p, D = sum x q (p_k - j q_k = exp (-j theta_k (delta_g))):
 * S (g) = (A + B) + j (C - D), S (G - 1 - g) = (A - B) + j (C + D). That is a real matrix product,
 * [x; y] (arcs x passes) times [p q] (passes x pairs), four products instead of the full grid's eight,
 * and it is tiled as an SGEMM is:
 *
 *   a block of 256 threads takes kHpArcs = 64 arcs (consecutive arc indices, so its reads of the
 *   phasors coalesce) and walks the pairs kHpPairs = 64 at a time (a tile);
 *   a thread holds kHpTa = 4 arcs x kHpTg = 4 pairs, 64 accumulators (A, B, C, D of each), in registers;
 *   the block's x, y (all passes, zero-padded to a multiple of kHpPasses) stay in shared memory for the
 *   block's life, computed once from the phasors;
 *   the tables p, q are laid out by the host tile by tile and pass by pass ([tile][k][64 pairs]), so a
 *   chunk of kHpPasses passes of one tile is 4 KiB of each, one float4 of each per thread; a chunk is
 *   read into registers while the previous one's products run, and goes through a double buffer in
 *   shared memory: one barrier a chunk;
 *   per pass a thread reads 4 floats of x, y, p and q each (four 16-byte shared loads; a warp's lanes
 *   share them: 4 distinct x, y and 8 distinct p, q addresses) for 64 FMAs;
 *   at the end of a tile each thread folds its 4 x 4 pairs (two grid points each) into its arcs'
 *   largest |S|^2 and its grid index; at the end, the 16 threads that share an arc agree by shuffles and
 *   one exchange through shared memory. S is never stored.
 *
 * Prediction for the benchmark's workload (15,000 x 8,000 px, 5 x 5 window: 1.44e9 arcs; 100 passes;
 * a 40 x 40 grid: 800 pairs), H100 SXM (132 SMs, 1.98 GHz boost, 128 FP32 lanes an SM: 67 TFLOP/s):
 *   FLOPs: 1.44e9 arcs x 100 passes x 800 pairs x 4 FMA x 2 = 9.2e14 (the full grid's count, 8 a complex
 *     multiply-add, is 1.84e15);
 *   issue: 64 FFMA to 4 LDS.128 a pass, and the loop's few integer instructions: FFMA is 90-94% of what
 *     a warp issues; 127 registers a thread (ptxas, sm_90, no spills), so two blocks (16 warps) an SM;
 *   bytes: the phasors, 64 arcs x 100 passes x 16 B = 102 KB a block, 2.3 TB in all, mostly from L2
 *     (the stack's 96 GB come from DRAM about once); the tables, 13 tiles x 112 passes x 64 pairs x 8 B =
 *     0.75 MB a block from L2 (27 FMA a byte), 17 TB in all over the 22.5 million blocks: under 1 TB/s of
 *     L2 at the predicted rate, a fifth of what it gives;
 *   time: 13.8 s at FP32 peak; expected 60-70% of peak (two blocks an SM, a barrier every 16 passes,
 *     the z' fill not overlapped within a block): 20-23 s for the workload (the old one-arc-a-thread
 *     kernel on the full grid: 79.5 s), i.e. 80-90 TFLOP/s counted the full grid's way.
 * The epilogue (two grid points a pair, once a tile) and the fill (100 passes x 64 arcs) are under 2% of
 * the products' instructions.
 */
namespace ef_cuda_arcs {

constexpr int kHpThreads = 256;
constexpr int kHpTa = 4;                    /* arcs a thread */
constexpr int kHpTg = 4;                    /* pairs a thread */
constexpr int kHpArcs = 16 * kHpTa;         /* arcs a block: 16 threads' groups */
constexpr int kHpPairs = 16 * kHpTg;        /* pairs a tile */
constexpr int kHpPasses = 16;               /* passes a chunk of the tables */
constexpr int kHpChunk = kHpPasses * kHpPairs;   /* floats of p (and of q) a chunk: one float4 a thread */
static_assert (kHpChunk == 4 * kHpThreads, "a chunk is one float4 of p and one of q a thread");
static_assert (kHpPairs == EF_CUDA_ARCS_HALF_PAIRS && kHpPasses == EF_CUDA_ARCS_HALF_PASSES,
               "the host lays the tables out as the kernel reads them");
static_assert (kHpArcs * kHpPairs == kHpThreads * kHpTa * kHpTg, "the threads cover the block's tile");

__device__ __forceinline__ bool
hp_beats (float m2, unsigned g, float best_m2, unsigned best_g)
{
  /* The first maximum in grid order, whatever order the points come in (NaN never wins). */
  return m2 > best_m2 || (m2 == best_m2 && g < best_g);
}

/* One pass of a thread's 4 arcs x 4 pairs. */
__device__ __forceinline__ void
hp_step (const float *zx, const float *zy, const float *pp, const float *pq, float (&sa)[kHpTa][kHpTg],
         float (&sb)[kHpTa][kHpTg], float (&sc)[kHpTa][kHpTg], float (&sd)[kHpTa][kHpTg])
{
  float4 x4 = *(const float4 *) zx, y4 = *(const float4 *) zy;
  float4 p4 = *(const float4 *) pp, q4 = *(const float4 *) pq;
  float x[4] = { x4.x, x4.y, x4.z, x4.w }, y[4] = { y4.x, y4.y, y4.z, y4.w };
  float p[4] = { p4.x, p4.y, p4.z, p4.w }, q[4] = { q4.x, q4.y, q4.z, q4.w };

#pragma unroll
  for (int a = 0; a < kHpTa; a++)
#pragma unroll
    for (int g = 0; g < kHpTg; g++)
      {
        sa[a][g] = fmaf (x[a], p[g], sa[a][g]);
        sb[a][g] = fmaf (y[a], q[g], sb[a][g]);
        sc[a][g] = fmaf (y[a], p[g], sc[a][g]);
        sd[a][g] = fmaf (x[a], q[g], sd[a][g]);
      }
}

/*
 * The kernel. tp, tq: the tables as ef_cuda_arcs_half_layout lays them out (n_tiles tiles of npad passes); rot:
 * the centre's rotation, 2 n floats (re, im of pass k at 2 k, 2 k + 1); n_grid: nv nh; n_pairs: (n_grid
 * + 1) / 2. Dynamic shared memory: 2 npad kHpArcs floats (x and y).
 */
__global__ void __launch_bounds__ (kHpThreads, 2)
periodogram_half_kernel (EfCudaArcsArgs a, const float *__restrict__ tp, const float *__restrict__ tq,
                         const float *__restrict__ rot, unsigned npad, unsigned n_tiles, unsigned n_grid,
                         unsigned n_pairs, unsigned short *best)
{
  extern __shared__ __align__ (16) float hp_smem[];
  __shared__ __align__ (16) float s_tp[2][kHpChunk];
  __shared__ __align__ (16) float s_tq[2][kHpChunk];
  __shared__ long long s_p[kHpArcs], s_q[kHpArcs];
  __shared__ float s_m2[kHpArcs];
  __shared__ unsigned s_g[kHpArcs];
  float *zx = hp_smem, *zy = hp_smem + (size_t) npad * kHpArcs;
  const unsigned tid = threadIdx.x, lane = tid % 32, warp = tid / 32, n = a.n_passes;
  /* Lanes: 4 arc groups x 8 pair groups; warps: 4 more arc groups x 2 more pair groups. */
  const unsigned ta = (lane & 3u) | ((warp & 3u) << 2), tg = (lane >> 2) | ((warp >> 2) << 3);
  const size_t plane = (size_t) a.width * a.rows, n_arcs = (size_t) a.n_off * plane;
  const size_t arc0 = (size_t) blockIdx.x * kHpArcs;
  const unsigned kcs = npad / kHpPasses, n_chunks = n_tiles * kcs;
  const float4 *tp4 = (const float4 *) tp, *tq4 = (const float4 *) tq;
  float best_m2[kHpTa];
  unsigned best_g[kHpTa];
  float4 np, nq;
  int any;

  /* Each arc's two pixels, or -1 where it leaves the region (its result written here, its series zero). */
  if (tid < kHpArcs)
    {
      size_t arc = arc0 + tid;
      long long pp = -1, qq = -1;

      if (arc < n_arcs)
        {
          size_t p, q;

          if (arc_pixels (a, arc, plane, best, &p, &q))
            {
              pp = (long long) p;
              qq = (long long) q;
            }
        }
      s_p[tid] = pp;
      s_q[tid] = qq;
    }
  /* A block whose arcs all leave the region (the last rows of an offset with dy > 0) is done. */
  any = __syncthreads_or (tid < kHpArcs && s_p[tid] >= 0);
  if (!any)
    return;

  /* x, y: consecutive threads take consecutive arcs of one pass, so the phasors' reads coalesce. */
#pragma unroll 4
  for (unsigned e = tid; e < (unsigned) kHpArcs * npad; e += kHpThreads)
    {
      unsigned i = e % kHpArcs, k = e / kHpArcs;
      float x = 0.0f, y = 0.0f;

      if (k < n && s_p[i] >= 0)
        {
          size_t p = (size_t) s_p[i], q = (size_t) s_q[i];
          float pr = __ldg (a.re + k * plane + p), pi = __ldg (a.im + k * plane + p);
          float qr = __ldg (a.re + k * plane + q), qi = __ldg (a.im + k * plane + q);
          float zr = pr * qr + pi * qi, zi = pi * qr - pr * qi;
          float cr = __ldg (rot + 2 * k), ci = __ldg (rot + 2 * k + 1);

          x = zr * cr - zi * ci;
          y = zr * ci + zi * cr;
        }
      zx[e] = x;
      zy[e] = y;
    }
  /* The first chunk of the tables. */
  np = __ldg (tp4 + tid);
  nq = __ldg (tq4 + tid);
  ((float4 *) s_tp[0])[tid] = np;
  ((float4 *) s_tq[0])[tid] = nq;
#pragma unroll
  for (int i = 0; i < kHpTa; i++)
    {
      best_m2[i] = -1.0f;
      best_g[i] = 0;
    }
  __syncthreads ();

  for (unsigned tile = 0, c = 0; tile < n_tiles; tile++)
    {
      float sa[kHpTa][kHpTg], sb[kHpTa][kHpTg], sc[kHpTa][kHpTg], sd[kHpTa][kHpTg];

#pragma unroll
      for (int i = 0; i < kHpTa; i++)
#pragma unroll
        for (int j = 0; j < kHpTg; j++)
          sa[i][j] = sb[i][j] = sc[i][j] = sd[i][j] = 0.0f;
      for (unsigned kc = 0; kc < kcs; kc++, c++)
        {
          const unsigned buf = c & 1u, k0 = kc * kHpPasses;
          const float *bx = zx + (size_t) k0 * kHpArcs + kHpTa * ta, *by = zy + (size_t) k0 * kHpArcs + kHpTa * ta;
          const float *bp = s_tp[buf] + kHpTg * tg, *bq = s_tq[buf] + kHpTg * tg;

          /* The next chunk into registers while this one's products run (uniform over the block). */
          if (c + 1 < n_chunks)
            {
              np = __ldg (tp4 + (size_t) (c + 1) * kHpThreads + tid);
              nq = __ldg (tq4 + (size_t) (c + 1) * kHpThreads + tid);
            }
          if (k0 + kHpPasses <= n)
            {
#pragma unroll
              for (int kk = 0; kk < kHpPasses; kk++)
                hp_step (bx + kk * kHpArcs, by + kk * kHpArcs, bp + kk * kHpPairs, bq + kk * kHpPairs, sa, sb, sc, sd);
            }
          else
            {
              /* The last, partial chunk: its padded passes are zeros, and are skipped. */
              for (unsigned kk = 0; kk < n - k0; kk++)
                hp_step (bx + kk * kHpArcs, by + kk * kHpArcs, bp + kk * kHpPairs, bq + kk * kHpPairs, sa, sb, sc, sd);
            }
          /* The other buffer was last read before the previous barrier. */
          if (c + 1 < n_chunks)
            {
              ((float4 *) s_tp[buf ^ 1u])[tid] = np;
              ((float4 *) s_tq[buf ^ 1u])[tid] = nq;
            }
          __syncthreads ();
        }
#pragma unroll
      for (int j = 0; j < kHpTg; j++)
        {
          unsigned gp = tile * kHpPairs + kHpTg * tg + j, mirror = n_grid - 1u - gp;

          if (gp >= n_pairs)
            continue;
#pragma unroll
          for (int i = 0; i < kHpTa; i++)
            {
              float pr = sa[i][j] + sb[i][j], pi = sc[i][j] - sd[i][j];
              float mr = sa[i][j] - sb[i][j], mi = sc[i][j] + sd[i][j];
              float m2p = pr * pr + pi * pi, m2m = mr * mr + mi * mi;

              if (hp_beats (m2p, gp, best_m2[i], best_g[i]))
                {
                  best_m2[i] = m2p;
                  best_g[i] = gp;
                }
              if (hp_beats (m2m, mirror, best_m2[i], best_g[i]))
                {
                  best_m2[i] = m2m;
                  best_g[i] = mirror;
                }
            }
        }
    }

  /* The 16 threads of an arc group: 8 in a warp (lane bits 2-4), then the two halves of the block. */
#pragma unroll
  for (int i = 0; i < kHpTa; i++)
#pragma unroll
    for (unsigned sh = 4; sh <= 16; sh <<= 1)
      {
        float om2 = __shfl_xor_sync (0xffffffffu, best_m2[i], sh);
        unsigned og = __shfl_xor_sync (0xffffffffu, best_g[i], sh);

        if (hp_beats (om2, og, best_m2[i], best_g[i]))
          {
            best_m2[i] = om2;
            best_g[i] = og;
          }
      }
  if (warp >= 4 && lane < 4)
#pragma unroll
    for (int i = 0; i < kHpTa; i++)
      {
        s_m2[kHpTa * ta + i] = best_m2[i];
        s_g[kHpTa * ta + i] = best_g[i];
      }
  __syncthreads ();
  if (warp < 4 && lane < 4)
#pragma unroll
    for (int i = 0; i < kHpTa; i++)
      {
        unsigned local = kHpTa * ta + i;
        size_t arc = arc0 + local;

        if (hp_beats (s_m2[local], s_g[local], best_m2[i], best_g[i]))
          {
            best_m2[i] = s_m2[local];
            best_g[i] = s_g[local];
          }
        if (s_p[local] >= 0)
          {
            a.coh[arc] = sqrtf (fmaxf (best_m2[i], 0.0f)) * (1.0f / n);
            if (best != NULL)
              best[arc] = (unsigned short) best_g[i];
          }
      }
}

}  /* namespace ef_cuda_arcs */
