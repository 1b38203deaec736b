/* ef-cuda-backend-private.h: what the CUDA backend's files share: its state, buffers, plans and steps. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "ef-cuda-private.h"
#include "ef-cuda-ffbp.h"
#include "ef-cuda-pfa.h"
#include "ef-cuda-mf-private.h"
#include "ef-cuda-image-private.h"
#include "ef-cuda-tune-private.h"

G_BEGIN_DECLS

#define N_PLANS 3
#define MAX_BLOCK 8192u

typedef struct {
  cufftHandle handle;
  int         n;
  int         batch;
  cufftType   type;
  guint64     last_use;
  gboolean    valid;
} Plan;

typedef struct {
  cudaEvent_t h2d0, h2d1;   /* copy: start, end */
  cudaEvent_t rc0, rc1;     /* compute: before the first step, after the table */
  cudaEvent_t bp1;          /* compute: after the backprojection */
  guint64     n_bp;
  gboolean    pending;      /* recorded, not yet added to the stats */
} Timing;

typedef struct {
  int            device;
  EfCudaOptions  opts;
  EfPrecision    precision;
  guint          variant;       /* in use, 1-based; 0 until the first block when automatic */
  guint          tuned;         /* from the tuning cache, 0 if none */

  EfProfileLayout layout;       /* samples, bins kept, profile bins; RAW: the matched filter's FFT (the
                                 * CPU's, ef_profile_layout_init) */

  guint          max_block;     /* pulses per sub-block now */
  int            ext, guard;    /* table guard (see ef-cuda-bp.cuh) */
  guint          stride;        /* table entries per pulse */

  cudaStream_t   s_copy, s_comp;
  cudaEvent_t    ev_h2d[2];     /* the slot's copy is done: its pinned buffer may be refilled */
  cudaEvent_t    ev_done[2];    /* the slot's device buffers have been consumed */
  /* Bands of the image's rows, and for each an event recorded after the newest queued work that
   * writes them: backprojection launches a band at a time, so a reader may start on the first rows of
   * the last block while the rest are still being formed (ef-cuda-multi.c). */
  guint          n_bands, band_rows;
  cudaEvent_t    ev_band[EF_CUDA_ROW_BANDS];
  /* The bands' launches run on streams of their own (so that one band's last blocks share the device
   * with the next band's first), after ev_bands_in on the compute stream, which then waits for them. */
  cudaStream_t   s_band[EF_CUDA_ROW_BANDS];
  cudaEvent_t    ev_bands_in;
  Timing         timing[2];
  guint          slot;

  EfCf32        *h_samples[2];  /* pinned, max_block * n_in */
  void          *h_read[2];     /* pinned, EF_CUDA_READ_STAGE_BYTES each, made at the first large read */
  cudaEvent_t    ev_read[2];    /* the device's copy into h_read[s] is done */
  gboolean       read_unstaged; /* the staging buffers could not be made: reads go straight to the caller */
  EfCudaPulse   *h_pulses[2];   /* pinned, max_block */
  void          *d_samples[2];
  EfCudaPulse   *d_pulses[2];
  void          *d_raw;         /* RAW: max_block * nc */
  void          *d_prof;        /* max_block * n */
  void          *d_table;       /* max_block * stride entries */
  float         *d_coef;        /* K: window / K */
  EfAzWeight     az;            /* each pulse's cross-range weight (az_w of its record) */
  void          *d_chirp;       /* RAW: nc, conj(FFT(chirp)) scaled */
  EfCudaImage   *image;         /* owned reference: the accumulator, shared with displays */
  void          *d_image;       /* float2, width * height; borrowed from image */
  float         *d_scale;       /* fp16: scale, 1 / scale, max bits, spare */
  unsigned long long *d_bad;

  Plan           plans[N_PLANS];
  guint64        plan_clock;

  EfCudaFfbp    *ffbp;          /* owned: the FFBP or FBP former, or NULL */
  EfCudaPfa     *pfa;           /* owned: the PFA former, or NULL */
  EfCudaMf      *mf;            /* owned: the matched filter's records (algo MF), or NULL */

  guint          n_blocks;      /* process_block calls so far */
  EfCudaStats    stats;
} CudaPriv;

/* Records every band's event on the compute stream: all the image's rows written so far. */
gboolean ef_cuda_backend_mark_bands (CudaPriv *priv, GError **error);

#define FREE_DEV(p) G_STMT_START { if (p) EF_CUDA_WARN (cudaFree (p)); (p) = NULL; } G_STMT_END
#define FREE_HOST(p) G_STMT_START { if (p) EF_CUDA_WARN (cudaFreeHost (p)); (p) = NULL; } G_STMT_END

/* The single-device backend's operations (ef-cuda-backend.c). */
extern const EfBackendOps ef_cuda_backend_ops;
/* Copies the count of non-finite samples from the device into self->n_bad_samples (waits). */
gboolean ef_cuda_backend_read_bad (EfBackend *self, GError **error);

/* Device resources (ef-cuda-resources.c). */
/* A cuFFT plan of n points, batch transforms, from a small cache (the least recently used goes). */
gboolean ef_cuda_backend_get_plan (CudaPriv *priv, int n, int batch, cufftType type, cufftHandle *out,
                                   GError **error);
/* Frees everything whose size follows the sub-block, plans included. */
void     ef_cuda_backend_free_buffers (CudaPriv *priv);
/* The pair table for max_block pulses of the current stride, zeroed. */
gboolean ef_cuda_backend_alloc_table (CudaPriv *priv, GError **error);
/* Allocates for max_block pulses, halving it while the device says it is out of memory. */
gboolean ef_cuda_backend_alloc (CudaPriv *priv, GError **error);
/* FALSE with an error when n range bins and the guard are more than the kernels index. */
gboolean ef_cuda_table_fits (guint n, int guard, GError **error);
/* The table guard for a segment that spans ext bins either side, and the row stride that follows. */
void     ef_cuda_backend_set_guard (CudaPriv *priv, int ext);
/* Adds a slot's recorded timings to the stats once they are done (waits for them). */
gboolean ef_cuda_backend_collect_timing (CudaPriv *priv, int slot, GError **error);

/* One sub-block (ef-cuda-block.c): queues range compression and formation of count pulses. */
gboolean ef_cuda_backend_run_sub_block (EfBackend *self, const EfPulse *pulses, const EfCf32 *samples, guint count,
                                        GError **error);
/* PFA: writes the image of every pulse gridded so far over the accumulator (queued), and records the
 * depth of focus over them. */
gboolean ef_cuda_backend_pfa_form (EfBackend *self, GError **error);
void     ef_cuda_backend_pfa_check (EfBackend *self);

G_END_DECLS
