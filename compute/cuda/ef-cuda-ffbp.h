/* ef-cuda-ffbp.h: FFBP and FBP on the GPU: the plan of ef-ffbp-private.h carried out by CUDA kernels. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/*
 * The CPU's algorithm (ef-ffbp.h) with the CPU's plan: ef_ffbp_plan builds the tree from the block's
 * metadata on the host (with the GPU's cost table), and three kinds of kernel carry it out on one
 * stream:
 *
 *   leaves  every pulse of a leaf backprojected onto the leaf's polar grid through the pair table that
 *           the backprojection kernel reads (ef-cuda-bp.cuh): the CPU leaf's linear interpolation of
 *           the profile times the pulse's carrier; the leaf's own demodulation, the same for all its
 *           pulses, turns each sample's sum once;
 *   merges  one launch per stage over all of its nodes: each sample gathers its children through the
 *           separable Knab kernel (the CPU's tables) and re-modulates them;
 *   final   the last stage's grids gathered onto the Cartesian accumulator, added in place.
 *
 * Precision. A kernel works on tiles of one row of its output (a polar row or an image row). For each
 * tile and each source (a pulse, a child grid, a final grid) the block evaluates the exact geometry in
 * double at five points of the tile: the source's fractional range (or profile bin) and angle indices
 * and the phase in cycles, as the CPU computes them for every sample. Four points fix a cubic in the
 * sample offset; the fifth checks it (a tile where the cubic is off by more than 2e-5 samples or 4e-6
 * cycles, as near a grid's ground line, evaluates every sample exactly in double instead). The cubic's
 * constant terms are split in double into an integer index and a small remainder, phases are reduced
 * to [-1/2, 1/2) cycles, and linear terms that grow large over a tile (a leaf's bin position, the
 * final step's phase) are split further so that their product with the integer offset is exact: the
 * per-sample float arithmetic only ever sees numbers of a few units. Everything per sample is float.
 * Against the CPU's fp32 FFBP on the same profiles and tree the image is 105-119 dB (SER) apart on an
 * H200; both are 50-60 dB from exact backprojection.
 *
 * FP16. The polar grids are stored as half2, each node scaled by its own power of two. A leaf's scale
 * comes from the largest profile magnitude of the block times its pulse count; every kernel records the
 * largest magnitude it wrote into each node, and a merged node's scale comes from its children's
 * recorded maxima times the kernels' gain, a strict bound, so fp16 never overflows. The leaves read the
 * fp16 pair table; interpolation, re-modulation and accumulation are in float, and the image stays
 * float (the FBP-GPU-FP16 scheme of Xu et al., Electronics 11, 2807, 2022, extended to FFBP).
 */

#include "ef-cuda-private.h"
#include "ef-ffbp-private.h"

G_BEGIN_DECLS

/* A polar grid as the kernels see it: one per node of every stage. */
typedef struct {
  double  c[3], t[3];          /* centre, unit track direction */
  double  cp[3], e1[3], e2[3]; /* the grid plane's frame (see EfFfbpNode) */
  double  h, hn, itau, qsign;  /* hn = h taun, itau = 1 / tau1 */
  double  r0;                  /* demodulation reference */
  double  rho0, drho, al0, dal;
  double  idrho, idal;         /* 1 / drho, 1 / dal */
  guint64 off;                 /* element offset of sample (0, 0) in the stage's buffer */
  guint   nrho, nal, stride;
  guint   row0;                /* the node's first row, counting rows over the stage's nodes */
  guint   p0, p1;              /* leaves: pulses [p0, p1) of the block */
  guint   c0, nc;              /* merged nodes: children [c0, c0 + nc) of the stage below */
} EfCudaFfbpNode;

/* Where a stage's kernel reads and writes. */
typedef struct {
  /* The output: a stage's grids, or (final) the image. */
  const EfCudaFfbpNode *nodes;  /* device: the stage's nodes (leaves, merges) */
  const guint *groups;          /* device: per group of output rows, its node and first row (leaves,
                                 * merges: one row a group for leaves, ef_cuda_ffbp_gather_rows () for
                                 * merges) */
  guint   n_nodes;
  guint   n_rows;               /* groups of output rows (final: of the image's rows) */
  guint   tiles_per_row;
  void   *out;                  /* float2 or half2 grid samples; final: float2 image */
  float  *out_max;              /* fp16: per node of the stage, the largest magnitude written */
  float  *out_scale;            /* fp16: per node of the stage, its scale */
  /* Leaves: the block's pair table (see ef-cuda-bp.cuh), its pulses, and the largest profile magnitude. */
  const EfCudaPulse *pulses;
  const void *table;            /* float4, or uint2 (half2 pairs) with table_half */
  gboolean table_half;
  const float *table_scale;     /* table_half: device {scale, 1 / scale} */
  guint   table_stride;         /* entries per pulse */
  guint   guard;                /* zero entries at each end of a row (at least 1) */
  guint   n_bins;
  gboolean bistatic;
  const float *prof_max;        /* fp16: the largest profile magnitude of the block */
  /* Merges and final: the stage below. */
  const EfCudaFfbpNode *children;
  guint   n_children;
  const void *in;
  const float *in_max, *in_scale;
  const void *wr, *wa;          /* float2 (w, dw) tables, [KQ][RS] and [KQ][taps_angle] */
  guint   taps_range, taps_angle;
  float   gain;                 /* largest sum of |weights| of the 2-D kernel */
  /* Final: the Cartesian grid. */
  double  origin[3], su[3], sv[3];
  guint   width, height;
  /* The block's demodulation wavenumber in cycles per metre. */
  double  kcb;
  /* Every tile takes the exact double path, as if its cubic had failed its check: FALSE but in tests
   * (ef_cuda_ffbp_debug_force_exact, ef-cuda-test-hooks.h). */
  gboolean force_exact;
} EfCudaFfbpArgs;

/* Launch wrappers (ef-cuda-ffbp.cu): asynchronous on stream, launch errors checked. */
gboolean ef_cuda_ffbp_absmax (cudaStream_t stream, const void *prof, guint n_pulses, guint n_bins,
                              guint stride, float *out, GError **error);
gboolean ef_cuda_ffbp_leaves (cudaStream_t stream, EfPrecision precision, const EfCudaFfbpArgs *args,
                              GError **error);
gboolean ef_cuda_ffbp_merge (cudaStream_t stream, EfPrecision precision, const EfCudaFfbpArgs *args,
                             GError **error);
gboolean ef_cuda_ffbp_final (cudaStream_t stream, EfPrecision precision, const EfCudaFfbpArgs *args,
                             GError **error);
/* Samples per tile of the leaf and gather kernels, and rows per block of the gather kernels (the host
 * sizes tiles_per_row and the groups from them). */
guint ef_cuda_ffbp_leaf_tile (void);
guint ef_cuda_ffbp_gather_tile (void);
guint ef_cuda_ffbp_gather_rows (void);

/* ---- the former ---- */

typedef struct _EfCudaFfbp EfCudaFfbp;

/* A GPU former for one output grid on the current device, in precision FP32 or FP16 (the polar
 * grids' storage; the image is always float). bandwidth_hz and params as for ef_ffbp_new. Allocates
 * the kernel tables; the polar grids follow at the first block. Blocks. */
EfCudaFfbp *ef_cuda_ffbp_new (const EfGrid *grid, double bandwidth_hz, const EfFfbpParams *params,
                              EfPrecision precision, GError **error);
void        ef_cuda_ffbp_free (EfCudaFfbp *self);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (EfCudaFfbp, ef_cuda_ffbp_free)

/* What a block's formation reads on the device: the range profiles (float2, pulse p's n_bins bins at
 * p * n_bins), the pulses' records, and the pair table that ef_cuda_rc_pack made of them (fp32, or fp16
 * with its scale), with table_stride entries and guard >= 1 zero entries at each end per pulse. */
typedef struct {
  const void        *prof;
  const EfCudaPulse *pulses;
  const void        *table;
  EfPrecision        table_precision;
  const float       *table_scale;
  guint              table_stride;
  guint              guard;
} EfCudaFfbpInput;

/* Plans the block whose metadata is meta (n_pulses, n_bins, monostatic and meta are read; the samples
 * are not) on the host. *use_bp is set when the plan is exact backprojection: then the caller
 * backprojects the block itself and does not call ef_cuda_ffbp_queue. stats (may be NULL) receives the
 * plan's figures (no timings). The plan borrows meta until ef_cuda_ffbp_queue. Fails with
 * EF_COMPUTE_ERROR_INVALID_ARGUMENT when the block cannot be formed and params.bp_fallback is off.
 * Does not touch the device: a caller plans the next block while the device works on this one. */
gboolean ef_cuda_ffbp_prepare (EfCudaFfbp *self, const EfProfiles *meta, gboolean *use_bp, EfFfbpStats *stats,
                               GError **error);
/* Queues the prepared block's leaves, merges and final step on stream, reading in and adding into image
 * (device float2, width * height of the grid). Returns once the work is queued; waits only for the
 * pinned staging buffer that it refills (two alternate). Fails with EF_COMPUTE_ERROR_NO_MEMORY when the
 * polar grids do not fit (nothing was queued then). */
gboolean ef_cuda_ffbp_queue (EfCudaFfbp *self, cudaStream_t stream, const EfCudaFfbpInput *in, void *image,
                             GError **error);

/* Bytes of device memory the former holds now (tables, polar grids, per-block records). */
guint64 ef_cuda_ffbp_device_bytes (EfCudaFfbp *self);

/* Kernel level, for tests and benchmarks: forms profiles (fp32, host memory) by FFBP or FBP on the GPU
 * onto a zeroed device image and writes it to out (host, width * height), overwriting it; a plan of
 * exact backprojection runs the fp32 or fp16 backprojection kernel instead. stats (may be NULL)
 * receives the plan's figures and the device time of each step (seconds_leaves, seconds_merge,
 * seconds_final); kernel_ms (may be NULL) the device time of the whole formation. Blocks. */
gboolean ef_cuda_ffbp_profiles (const EfGrid *grid, double bandwidth_hz, const EfFfbpParams *params,
                                EfPrecision precision, const EfProfiles *profiles, EfCf32 *out,
                                EfFfbpStats *stats, double *kernel_ms, GError **error);

G_END_DECLS
