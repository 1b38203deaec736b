/* ef-cuda-arcs.h: temporal arc coherence and the velocity-height periodogram on a CUDA device. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* Plain C: no CUDA header. */
#include "ef-types.h"
#include "ef-arcs.h"

G_BEGIN_DECLS

/* The three thread mappings of the plain coherence (all agree with ef_arcs_plain):
 *   WINDOW  a thread a pixel: it visits its window's arcs in row order, each over every pass;
 *   ARC     a thread an arc: the arcs' end pixels are listed (structure of arrays: p and q indices) and
 *           their phasors gathered into arc-major arrays first, so that every read is coalesced, at the
 *           price of reading the image twice over;
 *   GRAPH   a thread an arc, the arcs grouped so that a warp's 32 are a compact graph: 8 neighbouring
 *           pixels times 4 neighbouring offsets of the window, 32 edges among about 19 pixels, so that
 *           neighbouring lanes read pixels the others have just brought into cache. */
typedef enum {
  EF_CUDA_ARCS_WINDOW,
  EF_CUDA_ARCS_ARC,
  EF_CUDA_ARCS_GRAPH,
} EfCudaArcsMapping;

const char *ef_cuda_arcs_mapping_to_string (EfCudaArcsMapping mapping);
gboolean    ef_cuda_arcs_mapping_from_string (const char *s, EfCudaArcsMapping *out);

typedef struct _EfCudaArcs EfCudaArcs;

typedef struct {
  double h2d_ms;      /* the phasors in */
  double kernel_ms;   /* the coherence (and gather, and scores) kernels */
  double d2h_ms;      /* the results out */
} EfCudaArcsTiming;

/* A device session for regions up to width x max_rows pixels of n_passes passes and the window's n_off
 * offsets: the device buffers, a stream and its events. With model and grid (both or neither) it also runs
 * the periodogram: on CUDA cores, fp32, on the folded grid (ef-arcs.h: four multiply-adds a pair of
 * mirror grid points a pass), register-tiled, 64 arcs a block with their series in shared memory; where
 * the device's shared memory a block is too small for that (about 0.5 KiB a pass: beyond some 400
 * passes on an H100, 250 on an A100, 90 on a Turing card), a thread an arc over the full grid, as
 * accurate and about 4 times slower (ef_cuda_arcs_periodogram_kernel says which). device
 * < 0: the default; one past the last: EF_COMPUTE_ERROR_INVALID_ARGUMENT. Owned, or NULL with error (no
 * device: EF_COMPUTE_ERROR_NO_DEVICE; too little memory: EF_COMPUTE_ERROR_NO_MEMORY). Blocks while it
 * allocates. */
EfCudaArcs *ef_cuda_arcs_new (int device, guint width, guint max_rows, guint n_passes, const EfArcOffset *off,
                              guint n_off, const EfArcModel *model, const EfArcGrid *grid, GError **error);
void        ef_cuda_arcs_free (EfCudaArcs *s);

/* One region of `rows` rows: copies the phasors in (re, im as EfArcPhasors lays them out; pinned host
 * memory from ef_cuda_arcs_host_alloc copies fastest), runs the plain coherence with mapping, or the
 * periodogram when periodogram is TRUE, then each pixel's score, and copies out what is asked for (any
 * of coh, best, score may be NULL; laid out as ef_arcs_plain, ef_arcs_periodogram and
 * ef_arcs_pixel_scores lay them out). Blocks until the results are in host memory. */
gboolean ef_cuda_arcs_run (EfCudaArcs *s, const float *re, const float *im, guint rows, EfCudaArcsMapping mapping,
                           gboolean periodogram, float *coh, guint16 *best, float *score, EfCudaArcsTiming *timing,
                           GError **error);

/* The periodogram's arithmetic. FP32: CUDA cores, float throughout (the default). TENSOR: tensor cores
 * on the folded grid, the rotated phase series and the folded tables rounded to fp16 and the sums kept
 * in fp32 (coherence within about 1e-4 of the fp32 path; where two grid points' coherences are that
 * close, the best point may differ). */
typedef enum {
  EF_CUDA_ARCS_PG_FP32,
  EF_CUDA_ARCS_PG_TENSOR,
} EfCudaArcsPgPath;

/* Chooses the periodogram's path for the session's later runs. TENSOR needs a session made with a
 * model and grid, at most 128 passes, a device of compute capability 7.0 or later and shared memory
 * for the passes (about 0.8 KiB a pass a block: 100 passes take 97 KiB); otherwise FALSE with error
 * (the path stays as it was), so that the caller can say why it runs on CUDA cores. */
gboolean ef_cuda_arcs_set_periodogram_path (EfCudaArcs *s, EfCudaArcsPgPath path, GError **error);

/* Which periodogram kernel the session's next run takes, for the record: "CUDA cores, folded grid",
 * "CUDA cores, full grid", "tensor cores, folded grid" (or "tensor cores, full grid", which only a
 * test hook selects); NULL for a session without a model. Static string. */
const char *ef_cuda_arcs_periodogram_kernel (EfCudaArcs *s);

/* Pinned host memory for the phasors (NULL with error when refused); freed with ef_cuda_arcs_host_free. */
gpointer ef_cuda_arcs_host_alloc (gsize bytes, GError **error);
void     ef_cuda_arcs_host_free (gpointer p);

/* The host-to-device bandwidth of this session's device, GB/s, measured on pinned memory of bytes. */
double   ef_cuda_arcs_h2d_gbps (EfCudaArcs *s, gsize bytes, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (EfCudaArcs, ef_cuda_arcs_free)

G_END_DECLS
