/* ef-cuda-mf-private.h: the matched filter on the device: its pulse records, launch wrappers and state. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* Included from C (gcc) and from CUDA C++ (nvcc), as ef-cuda-private.h is. */
#include "ef-cuda-private.h"
#include "ef-mf.h"
#include "ef-cuda-mf.h"

G_BEGIN_DECLS

/* One pulse as the matched-filter kernel sees it. The geometry is double: the kernel takes each pixel's
 * differential range and phases in double and reduces them to cycles before anything goes to float. */
typedef struct {
  double tx[3], rcv[3];
  double r0;
  double k0;   /* 2 f0 / c: cycles of sample 0 per metre of dR */
  double ks;   /* 2 df / c: cycles of the step between samples per metre of dR */
  float  w;    /* the cross-range weight */
  float  pad;
} EfCudaMfPulse;

/* Where a matched-filter launch reads and writes. */
typedef struct {
  double origin[3], su[3], sv[3];   /* pixel (0, 0) and the grid axes scaled by the spacing */
  guint  width, height;
  const void *samples;              /* device float2: weighted samples, n_pulses rows of n_samples */
  guint  n_samples;
  const EfCudaMfPulse *pulses;      /* device, n_pulses */
  guint  n_pulses;
  void  *image;                     /* device float2, width * height, accumulated into */
} EfCudaMfArgs;

/* The record of pulse m with cross-range weight w. */
void     ef_cuda_mf_pulse_fill (const EfMfPulse *m, double w, EfCudaMfPulse *out);

/* ef-cuda-mf.cu; both asynchronous on stream. out[p][k] = samples[p][k] * coef[k] * pulses[p].w, with
 * non-finite samples as zero and counted into *bad (device). */
gboolean ef_cuda_mf_weight (cudaStream_t stream, const void *samples, guint n_samples, const float *coef,
                            const EfCudaMfPulse *pulses, guint count, void *out, unsigned long long *bad,
                            GError **error);
/* Adds the matched filter of args' pulses into args->image with kernel shape `shape` (1-based, see
 * ef-cuda-mf.h). A constant-memory shape queues a copy into constant memory and a launch per tile, ordered
 * after any other constant-memory launch on the same device (whatever its stream) that was queued before
 * it, so that two backends never overwrite each other's tile. */
gboolean ef_cuda_mf_launch (cudaStream_t stream, guint shape, const EfCudaMfArgs *args, GError **error);

/* The backend's matched-filter state (ef-cuda-mf.c): pinned and device pulse records, two slots. */
typedef struct _EfCudaMf EfCudaMf;

/* For sub-blocks of up to capacity pulses. Owned; free with ef_cuda_mf_free on the backend's device. */
EfCudaMf *ef_cuda_mf_new (guint capacity, GError **error);
void      ef_cuda_mf_free (EfCudaMf *mf);

/* Chooses the backend's kernel shape: its options' mf_shape, else the tuned one for its device and
 * class, else the default; and records it in the run record (with a note when nothing was tuned). */
void      ef_cuda_backend_mf_choose (EfBackend *self);

/* One sub-block of the backend (ef-cuda-backend-private.h's CudaPriv, with its mf set): copies the
 * samples and records, weights them and queues the sum into the accumulator. Returns once queued. */
gboolean  ef_cuda_backend_run_mf (EfBackend *self, const EfPulse *pulses, const EfCf32 *samples, guint count,
                                  GError **error);

G_END_DECLS
