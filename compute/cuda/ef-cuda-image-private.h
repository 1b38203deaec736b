/* ef-cuda-image-private.h: how a CUDA backend makes and marks the device image that displays share. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>
#include <cuda_runtime_api.h>

#include "ef-cuda.h"

G_BEGIN_DECLS

/* Allocates an uninitialised width x height float2 image on device (made current here), with its ring
 * of events. Returns NULL with error (EF_COMPUTE_ERROR_NO_MEMORY when it does not fit). */
EfCudaImage *ef_cuda_image_new (int device, guint width, guint height, GError **error);
/* The buffer, writable: for the backend that owns the accumulator. */
void        *ef_cuda_image_get_data_mutable (EfCudaImage *image);
/* Records the end of the work queued so far on stream (a block, or a clear) as the next mark. Called
 * by the one thread that queues work into the image. */
gboolean     ef_cuda_image_mark (EfCudaImage *image, cudaStream_t stream, GError **error);

G_END_DECLS
