/* ef-cuda-private.h: what the CUDA backend's C and CUDA files share: per-pulse records, launch wrappers. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* Included from C (gcc) and from CUDA C++ (nvcc). Device pointers are plain void pointers here so that
 * the C side needs no CUDA types beyond the runtime API's. */
#include <glib.h>
#include <cuda_runtime_api.h>
#include <cufft.h>

#include "ef-cuda.h"
#include "ef-error.h"

G_BEGIN_DECLS

/* One pulse as the device sees it. Everything that decides a phase is double; the kernels reduce it to
 * small float residuals themselves. */
typedef struct {
  double tx[3], rcv[3];
  double rref;       /* r0 + r_start: bin position b = (R - rref) / dr, R = (|tx - x| + |rcv - x|) / 2 */
  double inv_dr;     /* bins per metre */
  double cyc0;       /* phase of pair 0's centre, in cycles: kr (r_start + dr / 2) / (2 pi) */
  double cyc_step;   /* cycles per bin: kr dr / (2 pi) */
  double raw_cyc0;   /* RAW: carrier term 2 fc r0 / c, in cycles, reduced */
  double raw_cstep;  /* RAW: cycles of the delay shift per FFT bin: (fs / nc) * (2 r0 / c - sc0) */
  float  kdr;        /* kr dr: radians per bin, for the residual inside a pair */
  float  az_w;       /* the cross-range (aperture) weight range compression scales the profile by */
} EfCudaPulse;

/* Where a backprojection launch reads and writes. */
typedef struct {
  double  origin[3], su[3], sv[3];  /* pixel (0, 0) and the grid axes scaled by the spacing */
  guint   width, height;
  const void *table;                /* pair table: n_pulses rows of `stride` entries, guard first */
  guint   stride;                   /* entries per pulse */
  int     guard;                    /* zero entries at each end of a row */
  int     ib_lo, ib_hi;             /* clamp for a segment's base pair (see ef-cuda-bp.cuh) */
  const EfCudaPulse *pulses;        /* device, n_pulses */
  guint   n_pulses;
  gboolean bistatic;
  void   *image;                    /* device float2, width * height, accumulated into */
  const float *scale;               /* fp16: device {scale, 1 / scale} of the table */
} EfCudaBpArgs;

/* Error plumbing: every CUDA and cuFFT call goes through one of these. */
gboolean ef_cuda_check_ (int code, const char *expr, const char *file, int line, GError **error);
gboolean ef_cufft_check_ (int code, const char *expr, const char *file, int line, GError **error);

#define EF_CUDA_CHECK(expr, error) \
  G_STMT_START { if (!ef_cuda_check_ ((int) (expr), #expr, __FILE__, __LINE__, (error))) return FALSE; } G_STMT_END
#define EF_CUFFT_CHECK(expr, error) \
  G_STMT_START { if (!ef_cufft_check_ ((int) (expr), #expr, __FILE__, __LINE__, (error))) return FALSE; } G_STMT_END
/* For cleanup paths, where the first error wins and the rest are only logged. */
#define EF_CUDA_WARN(expr) \
  G_STMT_START { cudaError_t ef_w_ = (expr); if (ef_w_ != cudaSuccess) \
    g_warning ("%s failed: %s (%s:%d)", #expr, cudaGetErrorString (ef_w_), __FILE__, __LINE__); } G_STMT_END

/* cudaMalloc, cudaMallocHost and cufftPlanMany, with the tests' allocation failures where they are
 * compiled in (ef-cuda-test-hooks.h). */
cudaError_t ef_cuda_malloc (void **ptr, gsize size);
cudaError_t ef_cuda_malloc_host (void **ptr, gsize size);
/* memcpy between host buffers (pinned and pageable), split over threads when it is large. */
void        ef_cuda_host_copy (void *dst, const void *src, gsize bytes);
cufftResult ef_cufft_plan_many (cufftHandle *plan, int n, cufftType type, int batch);

/* Shapes */
#define EF_CUDA_N_SHAPES 9
extern const EfCudaShape ef_cuda_shapes[EF_CUDA_N_SHAPES];
/* Extra entries at each end of a table row that a segment may read past its base pair. */
int ef_cuda_guard_ext (const EfCudaShape *shape, double spacing, double max_inv_dr);

/* Range compression (ef-cuda-rangecomp.cu). All are asynchronous on stream. */
gboolean ef_cuda_rc_prep_fx (cudaStream_t stream, const void *samples, guint n_in, guint n, const float *coef,
                             const EfCudaPulse *pulses, void *out, guint count, unsigned long long *bad,
                             GError **error);
gboolean ef_cuda_rc_prep_toa (cudaStream_t stream, const void *samples, guint n_in, const EfCudaPulse *pulses,
                              void *out, guint count, unsigned long long *bad, GError **error);
gboolean ef_cuda_rc_prep_raw (cudaStream_t stream, const void *samples, guint n_in, guint nc, void *out,
                              guint count, unsigned long long *bad, GError **error);
gboolean ef_cuda_rc_select_raw (cudaStream_t stream, const void *spec, guint nc, guint k, guint k_first,
                                guint n, const void *chirp_conj, const float *coef, const EfCudaPulse *pulses,
                                void *out, guint count, GError **error);
gboolean ef_cuda_rc_absmax (cudaStream_t stream, const void *prof, gsize n_values, float *scale,
                            guint chunk, GError **error);
gboolean ef_cuda_rc_pack (cudaStream_t stream, EfPrecision precision, const void *prof, guint n, int guard,
                          guint stride, const EfCudaPulse *pulses, const float *scale, void *table, guint count,
                          GError **error);
gboolean ef_cuda_fill_nan (cudaStream_t stream, void *image, gsize n_floats, GError **error);

/* Backprojection (ef-cuda-bp.cu). */
gboolean ef_cuda_bp_launch (cudaStream_t stream, EfPrecision precision, guint variant, const EfCudaBpArgs *args,
                            GError **error);
/* Bytes per table entry for a precision. */
guint ef_cuda_table_entry_size (EfPrecision precision);

/* Adds to *d_count (device) the pixels of image (device float2, n_pixels) that are not finite. */
gboolean ef_cuda_count_nonfinite (cudaStream_t stream, const void *image, gsize n_pixels, unsigned long long *d_count,
                                  GError **error);

/* dst = a + b over n_floats floats (device pointers on the current device; dst may be a). */
gboolean ef_cuda_image_add (cudaStream_t stream, void *dst, const void *a, const void *b, gsize n_floats,
                            GError **error);

/* Several devices (ef-cuda-multi.c): one single-device backend per entry of devices[n], n >= 2. */
EfBackend *ef_cuda_multi_new (const EfDatasetInfo *info, const EfBackendParams *params,
                              const EfCudaOptions *options, const int *devices, guint n, GError **error);
gboolean   ef_cuda_multi_is (const EfBackend *backend);
guint      ef_cuda_multi_n_parts (EfBackend *backend);
EfBackend *ef_cuda_multi_part (EfBackend *backend, guint i);  /* borrowed, i < n_parts */
guint      ef_cuda_multi_n_blocks (EfBackend *backend);

/* What the multi-device backend needs of a single-device one (ef-cuda-backend.c). */
void      *ef_cuda_backend_image (EfBackend *backend, int *device);  /* the device accumulator */
struct _EfCudaPfa *ef_cuda_backend_pfa (EfBackend *backend);   /* the polar format former, or NULL */
/* The event recorded after the newest queued work on the band of rows that holds row (valid until the
 * next call on the backend); *band_end receives the row past that band. */
/* Bytes of each of the two pinned buffers a large read of the image goes through (ef-cuda-backend.c). */
#define EF_CUDA_READ_STAGE_BYTES ((gsize) 8 << 20)
/* Bands a launch may be cut into, and how many it is by default (an image of at least 64 rows a band). */
#define EF_CUDA_ROW_BANDS 8
#define EF_CUDA_ROW_BANDS_DEFAULT 4
cudaEvent_t ef_cuda_backend_rows_event (EfBackend *backend, guint row, guint *band_end);
/* Waits for the device's queued work and refreshes backend->n_bad_samples. */
gboolean   ef_cuda_backend_sync (EfBackend *backend, GError **error);

/* Host-side per-pulse record from profile metadata (shared with the kernel-level entry points). */
void ef_cuda_pulse_from_meta (const EfProfileMeta *m, EfCudaPulse *out);

G_END_DECLS
