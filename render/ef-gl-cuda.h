/* ef-gl-cuda.h: CUDA–OpenGL sharing: an image's textures written in place from the device accumulator. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* Plain C, and no CUDA header: every build has these functions. Without CUDA they report that there
 * is no device, and the host-upload path (ef_gl_image_upload) does the job. */
#include <glib.h>
#include "ef-gl-image.h"

G_BEGIN_DECLS

/* compute/cuda/ef-cuda.h and ef-job.h declare the same type. */
typedef struct _EfCudaImage EfCudaImage;
typedef struct _EfGlCuda EfGlCuda;

/* Whether the current GL context is drawn by CUDA device compute_device, the one that forms the
 * images, according to cudaGLGetDevices. Returns compute_device if so, else -1: Mesa's llvmpipe, the
 * integrated GPU of a hybrid laptop, another NVIDIA device, no NVIDIA driver (cudaGLGetDevices then
 * fails with cudaErrorInsufficientDriver), or a build without CUDA. *why (may be NULL) receives an
 * owned sentence that says which, for the log. The context must be current. Does not block. */
int       ef_gl_cuda_choose_device (int compute_device, char **why);

/* Registers every tile texture of image (EF_GL_IMAGE_COMPLEX: RG32F) with CUDA on device for surface writes, and makes the
 * display stream. The GL context must be current here and in every call below, and image must outlive
 * the result; register again whenever the textures are made again. Returns NULL with error when the
 * driver refuses: the caller then uploads from host memory. */
EfGlCuda *ef_gl_cuda_new (EfGlImage *image, int device, GError **error);
/* Unregisters the textures; the context must be current. Waits for the display stream's last
 * conversion (a short kernel), never for a block. */
void      ef_gl_cuda_free (EfGlCuda *self);

/* Writes rects (image pixels) of source into the textures, as host uploads would: maps the textures
 * that rects touch (unless held), converts those rectangles on the display stream after the newest
 * block the device has finished, and unmaps, so that GL draws after the conversion; held textures are
 * unmapped even when there is nothing to write, so every texture is GL's again on return. Never waits
 * for a block and never makes the compute stream wait. *mark receives the mark of the state written (see
 * ef_cuda_image_order_after_finished); 0 means that none has finished yet and nothing was written.
 * Cells written are marked arrived. source must have the image's size and live on self's device. */
gboolean  ef_gl_cuda_update (EfGlCuda *self, EfCudaImage *source, const EfRect *rects, guint n_rects,
                             guint64 *mark, GError **error);
/* Maps every texture for CUDA now, at the end of a frame, after the frame's last use of them has been
 * queued and before GL flushes it: GL's release of the textures then goes to the GPU with the frame's
 * own work, and the next ef_gl_cuda_update only converts and unmaps. Without it, an update's map asks GL
 * for the textures on its own, apart from the frame (on an H200 a write then costs the job about twice
 * as much GPU time: tests/bench/RESULTS.md). Until the next update (which always leaves the textures
 * unmapped) GL must not touch them. Does not wait. */
gboolean  ef_gl_cuda_hold (EfGlCuda *self, GError **error);
/* Gives held textures back to GL without writing (ef_gl_cuda_update does it too). Does not wait. */
gboolean  ef_gl_cuda_release (EfGlCuda *self, GError **error);
/* How many updates mapped the textures and converted (an update that finds the same mark and the same
 * rectangles as the last one written maps nothing). */
guint64   ef_gl_cuda_get_n_writes (EfGlCuda *self);

G_END_DECLS
