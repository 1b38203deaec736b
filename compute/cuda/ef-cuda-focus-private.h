/* ef-cuda-focus-private.h: autofocus's kernels (the sharpness sweeps, PGA's projections), as the C side of the CUDA library launches them. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* Included from C (gcc) and from CUDA C++ (nvcc): device pointers are plain pointers of GLib types. */
#include <glib.h>
#include <cuda_runtime_api.h>

G_BEGIN_DECLS

/* Threads a block of the step kernel; it writes 4 doubles a block (its partial alpha and beta). */
#define EF_CUDA_FOCUS_THREADS 256

/* img (device, npix complex doubles as re, im pairs) += (cr + j ci) * b (device, npix complex floats). */
gboolean ef_cuda_focus_add_launch (cudaStream_t stream, double *img, const float *b, double cr, double ci,
                                   gsize npix, guint grid, GError **error);
/* ef_focus_sweep_step over the device's arrays: prev (may be NULL) times (pcr + j pci) into img, then
 * block b's partial sums with rot (rr + j ri), each of the grid blocks writing alpha.re, alpha.im,
 * beta.re, beta.im to partials[4 * block]. */
gboolean ef_cuda_focus_step_launch (cudaStream_t stream, double *img, const float *prev, double pcr, double pci,
                                    const float *b, double rr, double ri, gsize npix, guint grid, double *partials,
                                    GError **error);

/* Threads a block of PGA's projection kernel (one pulse each), and the columns of a row its shared
 * memory holds at a time. */
#define EF_CUDA_PGA_THREADS 128
#define EF_CUDA_PGA_TILE 512
/* Doubles a pulse in the projections' table (EF_PGA_PULSE_DOUBLES, ef-focus-sweep.h). */
#define EF_CUDA_PGA_PULSE_DOUBLES 8

/* The grid as PGA's projections see it: pixel (col, row) at origin + col du + row dv, m. */
typedef struct {
  double origin[3], du[3], dv[3];
  guint  width, height;
} EfCudaPgaGrid;

/* g (device, n_patch * n complex doubles): pulse i's sample of patch j (patch: n_patch (row, col) pairs on
 * the device) of img (device, the grid's complex floats), as ef_pga_patch_spectra's fast way computes it
 * (compute/focus/ef-pga-project.c); pulse: n x 8 doubles (transmitter, receiver, the band's centre and
 * step). */
gboolean ef_cuda_pga_spectra_launch (cudaStream_t stream, const float *img, const EfCudaPgaGrid *grid,
                                     const double *pulse, guint64 n, guint ns, const guint *patch, guint n_patch,
                                     guint win, guint half_h, double *g, GError **error);

/* Registers the device sweeper with the engine (ef-focus-sweep.h); from the library's constructor. */
void ef_cuda_focus_register (void);

G_END_DECLS
