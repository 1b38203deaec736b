/* ef-device-image.h: an image that a backend keeps in an accelerator's memory, as the engine sees it. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "ef-types.h"

G_BEGIN_DECLS

/* The job hands a backend's device-resident accumulator to displays and reads it back through this
 * interface alone, so that nothing in the engine knows which accelerator holds it. A backend's own
 * image type (EfCudaImage) starts with an EfDeviceImage; displays that write it into their textures in
 * place turn it back into that type (ef_cuda_image_from_device). */
typedef struct _EfDeviceImage EfDeviceImage;

typedef struct {
  /* Frees the image once the last reference is gone; may wait for device work that still reads it. */
  void     (*free) (EfDeviceImage *image);
  /* Copies rect (inside the image) to out (host memory, rect->width * rect->height). Waits for the
   * copy only, not for queued blocks. Thread-safe. */
  gboolean (*read) (EfDeviceImage *image, const EfRect *rect, EfCf32 *out, GError **error);
  /* Counts the pixels with a component that is not finite, on the device. Waits for the count only.
   * Thread-safe. */
  gboolean (*count_nonfinite) (EfDeviceImage *image, guint64 *count, GError **error);
} EfDeviceImageOps;

struct _EfDeviceImage {
  const EfDeviceImageOps *ops;
  gatomicrefcount         ref_count;
};

/* For implementations: sets ops and the first reference. */
void           ef_device_image_init (EfDeviceImage *image, const EfDeviceImageOps *ops);

/* A new reference. Thread-safe; never blocks. */
EfDeviceImage *ef_device_image_ref (EfDeviceImage *image);
/* Drops a reference (NULL is ignored). The last one frees the image, which may wait for the device. */
void           ef_device_image_unref (EfDeviceImage *image);
/* See EfDeviceImageOps. */
gboolean       ef_device_image_read (EfDeviceImage *image, const EfRect *rect, EfCf32 *out, GError **error);
gboolean       ef_device_image_count_nonfinite (EfDeviceImage *image, guint64 *count, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (EfDeviceImage, ef_device_image_unref)

G_END_DECLS
