/* ef-cuda-pfa.h: the polar format algorithm (PFA) on a CUDA device: cuFFT, gridding, Knab resampling. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* Plain C: nothing here includes a CUDA header. Streams are cudaStream_t and device buffers are device
 * pointers, both passed as void pointers. */
#include "ef-types.h"
#include "ef-grid.h"
#include "ef-pfa.h"
#include "ef-rangecomp.h"

G_BEGIN_DECLS

/*
 * The same algorithm, parameters and report as the CPU former (ef-pfa.h), which is its reference; the
 * host-side geometry (grid size, deapodisation, stencil, depth of focus) is the very same code
 * (ef-pfa-private.h). On the device, each block of range profiles is forward transformed with one
 * batched cuFFT plan (cached), and every spectral bin inside the processed band is spread onto a float2
 * k-space grid with the Kaiser-Bessel kernel (positions and phases in double, values in float, float
 * atomics: sums are not bit-reproducible from run to run). Forming copies the grid, transforms it with a
 * 2-D cuFFT, divides out the kernel's taper, and reads every output pixel at its apparent place with the
 * Knab interpolator, the place being computed per pixel in double.
 *
 * A former lives on the device that was current when it was made, and every call must be made with that
 * device current, from one thread at a time. Calls may use different streams: each one waits (on the
 * device, not on the host) for the work the previous call queued.
 */

typedef struct _EfCudaPfa EfCudaPfa;

/* A former for one output grid. Makes nothing on the device yet: the first block fixes the k-space grid's
 * size. Fails with EF_COMPUTE_ERROR_NO_DEVICE without a usable device, or INVALID_ARGUMENT for parameters
 * out of range (the same ranges as ef_pfa_new; params->n_threads is not used). */
EfCudaPfa *ef_cuda_pfa_new (const EfGrid *grid, double bandwidth_hz, const EfPfaParams *params,
                            GError **error);
/* Waits for the device's queued work and frees everything. */
void       ef_cuda_pfa_free (EfCudaPfa *self);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (EfCudaPfa, ef_cuda_pfa_free)

/* Grids count range profiles: meta (host, count records) and d_profiles (device, float2, count rows of
 * n_bins; only read, and it must hold its values until the work queued on stream has run). Queued on
 * stream (a cudaStream_t, NULL for the legacy default stream); it returns once queued, except that the
 * first block after creation or a clear allocates the grid (which waits for the device). Fails with:
 * NO_MEMORY when the grid, its buffers or a cuFFT plan cannot be had (nothing was gridded and the former
 * is as before the call); INVALID_ARGUMENT when n_bins changes, is below 4, or the grid would be absurd
 * (see ef_pfa_add); DEVICE when a CUDA call fails, after which the former refuses to work until it is
 * cleared. */
gboolean   ef_cuda_pfa_add (EfCudaPfa *self, void *stream, const EfProfileMeta *meta, const void *d_profiles,
                            guint n_bins, guint count, GError **error);

/* Forms the image from everything gridded so far and writes (does not add) it into d_out (device, float2,
 * width * height of the grid), queued on stream. Zeros when nothing has been gridded. The accumulated grid
 * is left as it was. report (may be NULL) receives what ef_pfa_form reports; asking for it waits for the
 * stream, because the largest shift the correction undid is measured on the device. */
gboolean   ef_cuda_pfa_form (EfCudaPfa *self, void *stream, void *d_out, EfPfaReport *report, GError **error);

/* The depth-of-focus part of the report (as ef_pfa_check) for the pulses gridded so far: host code shared
 * with the CPU former (ef_pfa_dof_report), which the backend calls after every block. Never waits for
 * the device. */
void       ef_cuda_pfa_check (EfCudaPfa *self, EfPfaReport *report);
/* The same over every pulse that n formers of one image have gridded between them (several devices, each
 * forming some of the blocks): the depth of focus is the whole aperture's. */
void       ef_cuda_pfa_check_all (EfCudaPfa *const *formers, guint n, EfPfaReport *report);

/* Forgets every gridded pulse; the next block chooses the grid again (keeping the device buffers when the
 * size comes out the same). Waits for the device. */
void       ef_cuda_pfa_clear (EfCudaPfa *self);

/* How spectral samples reach the grid: through a shared-memory tile per block where the block's samples
 * fall close together (AUTO, the default), or every tap with a global atomic (GLOBAL). The two give the
 * same image up to the order of float additions; GLOBAL is for comparisons. */
typedef enum {
  EF_CUDA_PFA_SPREAD_AUTO,
  EF_CUDA_PFA_SPREAD_GLOBAL,
} EfCudaPfaSpread;

void       ef_cuda_pfa_set_spread (EfCudaPfa *self, EfCudaPfaSpread spread);

typedef struct {
  double   fft_ms;      /* forward FFTs of the profiles, device time */
  double   grid_ms;     /* spreading the spectra onto the k-space grid */
  double   fft2d_ms;    /* copying the grid and its 2-D FFT */
  double   correct_ms;  /* deapodisation, carrier, Knab resampling at the apparent places */
  guint64  n_samples;   /* spectral samples gridded */
  guint    grid_u, grid_v;        /* the k-space grid, cells (0 before the first block) */
  guint    lattice_u, lattice_v;  /* the region of its image kept */
} EfCudaPfaStats;

/* With timing on, every stage is bracketed by events and each call waits for them (so the stages do not
 * overlap): for benchmarks. The times add up until ef_cuda_pfa_reset_stats. */
void       ef_cuda_pfa_set_timing (EfCudaPfa *self, gboolean timing);
void       ef_cuda_pfa_get_stats (EfCudaPfa *self, EfCudaPfaStats *stats);
void       ef_cuda_pfa_reset_stats (EfCudaPfa *self);

G_END_DECLS
