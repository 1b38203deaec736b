/* ef-cuda-focus-private.h: the sharpness sweeps' kernels, as the C side of the CUDA library launches them. */
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

/* Registers the device sweeper with the engine (ef-focus-sweep.h); from the library's constructor. */
void ef_cuda_focus_register (void);

G_END_DECLS
