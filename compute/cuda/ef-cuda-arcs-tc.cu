/* ef-cuda-arcs-tc.cu: the velocity-height periodogram as a complex matrix product on tensor cores (fp16 in, fp32 sums). */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-cuda-arcs"
#include "config.h"

#include <cuda_fp16.h>
#include <mma.h>

#include "ef-cuda-private.h"
#include "ef-cuda-arcs-private.h"
#include "ef-cuda-arcs-pixels.cuh"

using namespace nvcuda;

#define EF_LAUNCH_CHECK(name, error) \
  ef_cuda_check_ ((int) cudaGetLastError (), name "<<<>>>", __FILE__, __LINE__, (error))

/*
 * S = Z T^T, Z the arcs' phase series (arcs x passes, z_k = p_k conj (q_k)) and T the rotations (grid
 * points x passes), taken as one real product on the real embedding: a row of A is
 * [Re z_0 .. Re z_{N-1}, Im z_0 .. Im z_{N-1}, 0 ..] (K2 = 2N rounded up to 16), and two real matrices of
 * K2 x grid points give Re S = A Br and Im S = A Bi, with Br's column g = [Re t_g, -Im t_g, 0 ..] and Bi's
 * = [Im t_g, Re t_g, 0 ..]. A block takes kTcArcs arcs (a warp 16 of them); A stays in shared memory for
 * the block's life, and the grid is taken kTcChunk points at a time: their columns of Br and Bi come
 * into shared memory, each warp forms its 16 x kTcChunk complex sums in four accumulators by
 * m16n16k16 products, writes them to its scratch, and each lane keeps the largest |S|^2 of its row and
 * half the columns. S is never stored.
 */
namespace {

constexpr int kTcWarps = 8;
constexpr int kTcArcs = 16 * kTcWarps;
constexpr int kTcChunk = 32;
constexpr int kTcPad = 8;   /* halves added to every shared row: rows 16 bytes off a bank cycle */
constexpr int kTcPrefetch = (kTcChunk * (2 * EF_CUDA_ARCS_TC_MAX_PASSES / 8) + kTcWarps * 32 - 1) / (kTcWarps * 32);

__global__ void
tc_table_kernel (const float *__restrict__ tre, const float *__restrict__ tim, unsigned n, unsigned n_grid,
                 unsigned k2, size_t total, __half *__restrict__ br, __half *__restrict__ bi)
{
  size_t idx = (size_t) blockIdx.x * blockDim.x + threadIdx.x;
  float r = 0.0f, i = 0.0f;
  unsigned g, k;

  if (idx >= total)
    return;
  g = (unsigned) (idx / k2);
  k = (unsigned) (idx % k2);
  if (g < n_grid && k < n)
    {
      r = tre[(size_t) g * n + k];
      i = tim[(size_t) g * n + k];
    }
  else if (g < n_grid && k < 2 * n)
    {
      r = -tim[(size_t) g * n + k - n];
      i = tre[(size_t) g * n + k - n];
    }
  br[idx] = __float2half_rn (r);
  bi[idx] = __float2half_rn (i);
}

__global__ void __launch_bounds__ (kTcWarps * 32)
periodogram_tc_kernel (EfCudaArcsArgs a, const __half *__restrict__ br, const __half *__restrict__ bi,
                       unsigned n_grid, unsigned n_grid_pad, unsigned k2, unsigned short *best)
{
  extern __shared__ __align__ (128) unsigned char smem[];
  __shared__ long long s_p[kTcArcs], s_q[kTcArcs];
  const unsigned lda = k2 + kTcPad;
  __half *sa = (__half *) smem;
  __half *sbr = sa + (size_t) kTcArcs * lda;
  __half *sbi = sbr + (size_t) kTcChunk * lda;
  float *scratch = (float *) (sbi + (size_t) kTcChunk * lda);
  const unsigned tid = threadIdx.x, warp = tid / 32, lane = tid % 32, n = a.n_passes;
  const size_t plane = (size_t) a.width * a.rows, n_arcs = (size_t) a.n_off * plane;
  const size_t arc0 = (size_t) blockIdx.x * kTcArcs;
  float *wr = scratch + warp * 512, *wi = wr + 256;
  const unsigned row = lane / 2, cbase = (lane % 2) * 8;
  float best_m2 = -1.0f;
  unsigned best_g = 0;

  /* Each arc's two pixels, or -1 where it leaves the region (its result written here, its row zeros). */
  if (tid < kTcArcs)
    {
      size_t arc = arc0 + tid;
      long long pp = -1, qq = -1;

      if (arc < n_arcs)
        {
          size_t p, q;

          if (ef_cuda_arcs::arc_pixels (a, arc, plane, best, &p, &q))
            {
              pp = (long long) p;
              qq = (long long) q;
            }
        }
      s_p[tid] = pp;
      s_q[tid] = qq;
    }
  __syncthreads ();
  /* A: consecutive threads take consecutive arcs of one pass, so the phasors' reads coalesce. */
  for (unsigned e = tid; e < (unsigned) kTcArcs * n; e += blockDim.x)
    {
      unsigned i = e % kTcArcs, k = e / kTcArcs;
      float zr = 0.0f, zi = 0.0f;

      if (s_p[i] >= 0)
        {
          size_t p = (size_t) s_p[i], q = (size_t) s_q[i];
          float pr = __ldg (a.re + k * plane + p), pi = __ldg (a.im + k * plane + p);
          float qr = __ldg (a.re + k * plane + q), qi = __ldg (a.im + k * plane + q);

          zr = pr * qr + pi * qi;
          zi = pi * qr - pr * qi;
        }
      sa[(size_t) i * lda + k] = __float2half_rn (zr);
      sa[(size_t) i * lda + n + k] = __float2half_rn (zi);
    }
  for (unsigned e = tid; e < (unsigned) kTcArcs * (k2 - 2 * n); e += blockDim.x)
    sa[(size_t) (e % kTcArcs) * lda + 2 * n + e / kTcArcs] = __float2half_rn (0.0f);

  /* The next chunk's columns are read into registers while this chunk's products run (kTcPrefetch
   * 16-byte pieces of each matrix a thread: enough for a chunk of EF_CUDA_ARCS_TC_MAX_PASSES). */
  const unsigned vec = k2 / 8;   /* 16-byte pieces of a column */
  int4 nr[kTcPrefetch], ni[kTcPrefetch];

#pragma unroll
  for (int u = 0; u < kTcPrefetch; u++)
    {
      unsigned e = tid + u * kTcWarps * 32, j = e / vec, v = e % vec;

      if (e < kTcChunk * vec)
        {
          nr[u] = __ldg ((const int4 *) (br + (size_t) j * k2) + v);
          ni[u] = __ldg ((const int4 *) (bi + (size_t) j * k2) + v);
        }
    }
  for (unsigned g0 = 0; g0 < n_grid_pad; g0 += kTcChunk)
    {
      wmma::fragment<wmma::accumulator, 16, 16, 16, float> cr0, cr1, ci0, ci1;

      __syncthreads ();   /* A is written; the last chunk's columns are no longer read */
#pragma unroll
      for (int u = 0; u < kTcPrefetch; u++)
        {
          unsigned e = tid + u * kTcWarps * 32, j = e / vec, v = e % vec;

          if (e < kTcChunk * vec)
            {
              ((int4 *) (sbr + (size_t) j * lda))[v] = nr[u];
              ((int4 *) (sbi + (size_t) j * lda))[v] = ni[u];
            }
        }
      __syncthreads ();
      if (g0 + kTcChunk < n_grid_pad)
#pragma unroll
        for (int u = 0; u < kTcPrefetch; u++)
          {
            unsigned e = tid + u * kTcWarps * 32, j = e / vec, v = e % vec;

            if (e < kTcChunk * vec)
              {
                nr[u] = __ldg ((const int4 *) (br + (size_t) (g0 + kTcChunk + j) * k2) + v);
                ni[u] = __ldg ((const int4 *) (bi + (size_t) (g0 + kTcChunk + j) * k2) + v);
              }
          }
      wmma::fill_fragment (cr0, 0.0f);
      wmma::fill_fragment (cr1, 0.0f);
      wmma::fill_fragment (ci0, 0.0f);
      wmma::fill_fragment (ci1, 0.0f);
      for (unsigned kk = 0; kk < k2; kk += 16)
        {
          wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> fa;
          wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> fb;

          wmma::load_matrix_sync (fa, sa + (size_t) warp * 16 * lda + kk, lda);
          wmma::load_matrix_sync (fb, sbr + kk, lda);
          wmma::mma_sync (cr0, fa, fb, cr0);
          wmma::load_matrix_sync (fb, sbr + (size_t) 16 * lda + kk, lda);
          wmma::mma_sync (cr1, fa, fb, cr1);
          wmma::load_matrix_sync (fb, sbi + kk, lda);
          wmma::mma_sync (ci0, fa, fb, ci0);
          wmma::load_matrix_sync (fb, sbi + (size_t) 16 * lda + kk, lda);
          wmma::mma_sync (ci1, fa, fb, ci1);
        }
      /* The first maximum in grid order, as the CPU keeps it: a lane's columns ascend. */
      for (unsigned h = 0; h < 2; h++)
        {
          wmma::store_matrix_sync (wr, h == 0 ? cr0 : cr1, 16, wmma::mem_row_major);
          wmma::store_matrix_sync (wi, h == 0 ? ci0 : ci1, 16, wmma::mem_row_major);
          __syncwarp ();
#pragma unroll
          for (unsigned c = 0; c < 8; c++)
            {
              unsigned col = cbase + c, g = g0 + h * 16 + col;
              float sr = wr[row * 16 + col], si = wi[row * 16 + col], m2 = sr * sr + si * si;

              if (g < n_grid && m2 > best_m2)
                {
                  best_m2 = m2;
                  best_g = g;
                }
            }
          __syncwarp ();
        }
    }
  {
    float om2 = __shfl_xor_sync (0xffffffffu, best_m2, 1);
    unsigned og = __shfl_xor_sync (0xffffffffu, best_g, 1);
    size_t arc = arc0 + warp * 16 + row;

    if (om2 > best_m2 || (om2 == best_m2 && og < best_g))
      {
        best_m2 = om2;
        best_g = og;
      }
    if (lane % 2 == 0 && arc < n_arcs && s_p[warp * 16 + row] >= 0)
      {
        a.coh[arc] = sqrtf (fmaxf (best_m2, 0.0f)) * (1.0f / n);
        if (best != NULL)
          best[arc] = (unsigned short) best_g;
      }
  }
}

/*
 * The folded grid (ef-arcs.h) on tensor cores: four real products of K = the passes rounded up to 16,
 * X P, Y Q, Y P and X Q, with X, Y (arcs x passes) the rotated series' real and imaginary parts and P, Q
 * (passes x pairs) the folded tables: A, B, C and D of every arc and pair, half the full embedding's
 * work (its K is twice the passes, for every grid point). A block takes kTcArcs arcs, X and Y in shared
 * memory for its life, and walks the pairs kThPairs (16: 32 grid points, as the full-grid kernel's
 * chunk) at a time; per 16 passes a warp loads X, Y, P, Q fragments once each for four products. The
 * accumulators' elements of one shape map to the same (row, column) whatever the fragment layout, so
 * the pair's two |S|^2 are formed in place, element by element, and only they go through the scratch.
 */
constexpr int kThPairs = 16;
constexpr int kThPrefetch = (kThPairs * (EF_CUDA_ARCS_TC_MAX_PASSES / 8) + kTcWarps * 32 - 1) / (kTcWarps * 32);

__device__ __forceinline__ bool
th_beats (float m2, unsigned g, float best_m2, unsigned best_g)
{
  /* The first maximum in grid order, whatever order the points come in (NaN never wins). */
  return m2 > best_m2 || (m2 == best_m2 && g < best_g);
}

/* The folded tables in fp16, pair-major (bp[gp * kp + k]), from the fp32 ones as the CUDA-core kernel
 * takes them ([tile][kp][EF_CUDA_ARCS_HALF_PAIRS]; kp: the passes rounded up to 16, as there). */
__global__ void
tc_half_table_kernel (const float *__restrict__ hp, const float *__restrict__ hq, unsigned kp, unsigned n_pairs,
                      size_t total, __half *__restrict__ bp, __half *__restrict__ bq)
{
  size_t idx = (size_t) blockIdx.x * blockDim.x + threadIdx.x;
  float p = 0.0f, q = 0.0f;
  unsigned gp, k;

  if (idx >= total)
    return;
  gp = (unsigned) (idx / kp);
  k = (unsigned) (idx % kp);
  if (gp < n_pairs)
    {
      size_t src = ((size_t) (gp / EF_CUDA_ARCS_HALF_PAIRS) * kp + k) * EF_CUDA_ARCS_HALF_PAIRS
                   + gp % EF_CUDA_ARCS_HALF_PAIRS;

      p = hp[src];
      q = hq[src];
    }
  bp[idx] = __float2half_rn (p);
  bq[idx] = __float2half_rn (q);
}

__global__ void __launch_bounds__ (kTcWarps * 32)
periodogram_tc_half_kernel (EfCudaArcsArgs a, const __half *__restrict__ bp, const __half *__restrict__ bq,
                            const float *__restrict__ rot, unsigned n_grid, unsigned n_pairs, unsigned n_pairs_pad,
                            unsigned kp, unsigned short *best)
{
  extern __shared__ __align__ (128) unsigned char smem[];
  __shared__ long long s_p[kTcArcs], s_q[kTcArcs];
  const unsigned lda = kp + kTcPad;
  __half *sx = (__half *) smem;
  __half *sy = sx + (size_t) kTcArcs * lda;
  __half *sbp = sy + (size_t) kTcArcs * lda;
  __half *sbq = sbp + (size_t) kThPairs * lda;
  float *scratch = (float *) (sbq + (size_t) kThPairs * lda);
  const unsigned tid = threadIdx.x, warp = tid / 32, lane = tid % 32, n = a.n_passes;
  const size_t plane = (size_t) a.width * a.rows, n_arcs = (size_t) a.n_off * plane;
  const size_t arc0 = (size_t) blockIdx.x * kTcArcs;
  float *wp = scratch + warp * 512, *wm = wp + 256;
  const unsigned row = lane / 2, cbase = (lane % 2) * 8;
  float best_m2 = -1.0f;
  unsigned best_g = 0;

  /* Each arc's two pixels, or -1 where it leaves the region (its result written here, its row zeros). */
  if (tid < kTcArcs)
    {
      size_t arc = arc0 + tid;
      long long pp = -1, qq = -1;

      if (arc < n_arcs)
        {
          size_t p, q;

          if (ef_cuda_arcs::arc_pixels (a, arc, plane, best, &p, &q))
            {
              pp = (long long) p;
              qq = (long long) q;
            }
        }
      s_p[tid] = pp;
      s_q[tid] = qq;
    }
  __syncthreads ();
  /* X and Y: consecutive threads take consecutive arcs of one pass, so the phasors' reads coalesce;
   * passes from n to kp are zeros. */
  for (unsigned e = tid; e < (unsigned) kTcArcs * kp; e += blockDim.x)
    {
      unsigned i = e % kTcArcs, k = e / kTcArcs;
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
      sx[(size_t) i * lda + k] = __float2half_rn (x);
      sy[(size_t) i * lda + k] = __float2half_rn (y);
    }

  /* The next chunk's columns of P and Q are read into registers while this chunk's products run. */
  const unsigned vec = kp / 8;   /* 16-byte pieces of a column */
  int4 np[kThPrefetch], nq[kThPrefetch];

#pragma unroll
  for (int u = 0; u < kThPrefetch; u++)
    {
      unsigned e = tid + u * kTcWarps * 32, j = e / vec, v = e % vec;

      if (e < kThPairs * vec)
        {
          np[u] = __ldg ((const int4 *) (bp + (size_t) j * kp) + v);
          nq[u] = __ldg ((const int4 *) (bq + (size_t) j * kp) + v);
        }
    }
  for (unsigned g0 = 0; g0 < n_pairs_pad; g0 += kThPairs)
    {
      wmma::fragment<wmma::accumulator, 16, 16, 16, float> fa, fb, fc, fd;

      __syncthreads ();   /* X and Y are written; the last chunk's columns are no longer read */
#pragma unroll
      for (int u = 0; u < kThPrefetch; u++)
        {
          unsigned e = tid + u * kTcWarps * 32, j = e / vec, v = e % vec;

          if (e < kThPairs * vec)
            {
              ((int4 *) (sbp + (size_t) j * lda))[v] = np[u];
              ((int4 *) (sbq + (size_t) j * lda))[v] = nq[u];
            }
        }
      __syncthreads ();
      if (g0 + kThPairs < n_pairs_pad)
#pragma unroll
        for (int u = 0; u < kThPrefetch; u++)
          {
            unsigned e = tid + u * kTcWarps * 32, j = e / vec, v = e % vec;

            if (e < kThPairs * vec)
              {
                np[u] = __ldg ((const int4 *) (bp + (size_t) (g0 + kThPairs + j) * kp) + v);
                nq[u] = __ldg ((const int4 *) (bq + (size_t) (g0 + kThPairs + j) * kp) + v);
              }
          }
      wmma::fill_fragment (fa, 0.0f);
      wmma::fill_fragment (fb, 0.0f);
      wmma::fill_fragment (fc, 0.0f);
      wmma::fill_fragment (fd, 0.0f);
      for (unsigned kk = 0; kk < kp; kk += 16)
        {
          wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> fx, fy;
          wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> fp, fq;

          wmma::load_matrix_sync (fx, sx + (size_t) warp * 16 * lda + kk, lda);
          wmma::load_matrix_sync (fy, sy + (size_t) warp * 16 * lda + kk, lda);
          wmma::load_matrix_sync (fp, sbp + kk, lda);
          wmma::load_matrix_sync (fq, sbq + kk, lda);
          wmma::mma_sync (fa, fx, fp, fa);   /* A = sum x p */
          wmma::mma_sync (fb, fy, fq, fb);   /* B = sum y q */
          wmma::mma_sync (fc, fy, fp, fc);   /* C = sum y p */
          wmma::mma_sync (fd, fx, fq, fd);   /* D = sum x q */
        }
      /* |S|^2 of the pair's two points, in place: fa the point c + delta, fb its mirror. */
#pragma unroll
      for (int i = 0; i < fa.num_elements; i++)
        {
          float pr = fa.x[i] + fb.x[i], pi = fc.x[i] - fd.x[i];
          float mr = fa.x[i] - fb.x[i], mi = fc.x[i] + fd.x[i];

          fa.x[i] = pr * pr + pi * pi;
          fb.x[i] = mr * mr + mi * mi;
        }
      wmma::store_matrix_sync (wp, fa, 16, wmma::mem_row_major);
      wmma::store_matrix_sync (wm, fb, 16, wmma::mem_row_major);
      __syncwarp ();
#pragma unroll
      for (unsigned c = 0; c < 8; c++)
        {
          unsigned gp = g0 + cbase + c, mirror = n_grid - 1u - gp;
          float m2p = wp[row * 16 + cbase + c], m2m = wm[row * 16 + cbase + c];

          if (gp < n_pairs)
            {
              if (th_beats (m2p, gp, best_m2, best_g))
                {
                  best_m2 = m2p;
                  best_g = gp;
                }
              if (th_beats (m2m, mirror, best_m2, best_g))
                {
                  best_m2 = m2m;
                  best_g = mirror;
                }
            }
        }
      __syncwarp ();
    }
  {
    float om2 = __shfl_xor_sync (0xffffffffu, best_m2, 1);
    unsigned og = __shfl_xor_sync (0xffffffffu, best_g, 1);
    size_t arc = arc0 + warp * 16 + row;

    if (th_beats (om2, og, best_m2, best_g))
      {
        best_m2 = om2;
        best_g = og;
      }
    if (lane % 2 == 0 && arc < n_arcs && s_p[warp * 16 + row] >= 0)
      {
        a.coh[arc] = sqrtf (fmaxf (best_m2, 0.0f)) * (1.0f / n);
        if (best != NULL)
          best[arc] = (unsigned short) best_g;
      }
  }
}

}  // namespace

extern "C" {

gsize
ef_cuda_arcs_tc_smem_bytes (guint n_passes)
{
  gsize k2 = ((gsize) 2 * n_passes + 15) / 16 * 16, lda = k2 + kTcPad;

  return (kTcArcs + 2 * kTcChunk) * lda * sizeof (__half) + (gsize) kTcWarps * 512 * sizeof (float);
}

guint
ef_cuda_arcs_tc_k2 (guint n_passes)
{
  return (2 * n_passes + 15) / 16 * 16;
}

guint
ef_cuda_arcs_tc_grid_pad (guint n_grid)
{
  return (n_grid + kTcChunk - 1) / kTcChunk * kTcChunk;
}

gboolean
ef_cuda_arcs_tc_tables (cudaStream_t stream, const float *tre, const float *tim, guint n_passes, guint n_grid,
                        void *br, void *bi, GError **error)
{
  guint k2 = ef_cuda_arcs_tc_k2 (n_passes);
  size_t total = (size_t) ef_cuda_arcs_tc_grid_pad (n_grid) * k2;

  tc_table_kernel<<<(unsigned) ((total + 255) / 256), 256, 0, stream>>> (tre, tim, n_passes, n_grid, k2, total,
                                                                         (__half *) br, (__half *) bi);
  return EF_LAUNCH_CHECK ("tc_table_kernel", error);
}

gboolean
ef_cuda_arcs_tc_launch (cudaStream_t stream, const EfCudaArcsArgs *a, const void *br, const void *bi, guint n_grid,
                        guint16 *best, GError **error)
{
  size_t arcs = (size_t) a->n_off * a->width * a->rows;
  size_t gx = (arcs + kTcArcs - 1) / kTcArcs;
  gsize bytes = ef_cuda_arcs_tc_smem_bytes (a->n_passes);

  if (gx == 0 || gx > 0x7fffffffu)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT, "Launch grid %zu is out of range", gx);
      return FALSE;
    }
  EF_CUDA_CHECK (cudaFuncSetAttribute (periodogram_tc_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       (int) bytes), error);
  periodogram_tc_kernel<<<(unsigned) gx, kTcWarps * 32, bytes, stream>>> (
      *a, (const __half *) br, (const __half *) bi, n_grid, ef_cuda_arcs_tc_grid_pad (n_grid),
      ef_cuda_arcs_tc_k2 (a->n_passes), (unsigned short *) best);
  return EF_LAUNCH_CHECK ("periodogram_tc_kernel", error);
}

gsize
ef_cuda_arcs_tc_half_smem_bytes (guint n_passes)
{
  gsize lda = ef_cuda_arcs_half_npad (n_passes) + kTcPad;

  return (2 * kTcArcs + 2 * kThPairs) * lda * sizeof (__half) + (gsize) kTcWarps * 512 * sizeof (float);
}

guint
ef_cuda_arcs_tc_half_pairs_pad (guint n_pairs)
{
  return (n_pairs + kThPairs - 1) / kThPairs * kThPairs;
}

gboolean
ef_cuda_arcs_tc_half_tables (cudaStream_t stream, const float *hp, const float *hq, guint n_passes, guint n_pairs,
                             void *bp, void *bq, GError **error)
{
  guint kp = ef_cuda_arcs_half_npad (n_passes);
  size_t total = (size_t) ef_cuda_arcs_tc_half_pairs_pad (n_pairs) * kp;

  tc_half_table_kernel<<<(unsigned) ((total + 255) / 256), 256, 0, stream>>> (hp, hq, kp, n_pairs, total,
                                                                              (__half *) bp, (__half *) bq);
  return EF_LAUNCH_CHECK ("tc_half_table_kernel", error);
}

gboolean
ef_cuda_arcs_tc_half_launch (cudaStream_t stream, const EfCudaArcsArgs *a, const void *bp, const void *bq,
                             const float *rot, guint n_grid, guint16 *best, GError **error)
{
  size_t arcs = (size_t) a->n_off * a->width * a->rows;
  size_t gx = (arcs + kTcArcs - 1) / kTcArcs;
  gsize bytes = ef_cuda_arcs_tc_half_smem_bytes (a->n_passes);
  guint n_pairs = (n_grid + 1) / 2;

  if (gx == 0 || gx > 0x7fffffffu)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT, "Launch grid %zu is out of range", gx);
      return FALSE;
    }
  EF_CUDA_CHECK (cudaFuncSetAttribute (periodogram_tc_half_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       (int) bytes), error);
  periodogram_tc_half_kernel<<<(unsigned) gx, kTcWarps * 32, bytes, stream>>> (
      *a, (const __half *) bp, (const __half *) bq, rot, n_grid, n_pairs, ef_cuda_arcs_tc_half_pairs_pad (n_pairs),
      ef_cuda_arcs_half_npad (a->n_passes), (unsigned short *) best);
  return EF_LAUNCH_CHECK ("periodogram_tc_half_kernel", error);
}

}
