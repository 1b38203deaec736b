/* ef-device-image.c: an image that a backend keeps in an accelerator's memory, as the engine sees it. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-device-image"
#include "config.h"

#include "ef-device-image.h"

void
ef_device_image_init (EfDeviceImage *image, const EfDeviceImageOps *ops)
{
  g_return_if_fail (image != NULL && ops != NULL && ops->free != NULL);
  image->ops = ops;
  g_atomic_ref_count_init (&image->ref_count);
}

EfDeviceImage *
ef_device_image_ref (EfDeviceImage *image)
{
  g_return_val_if_fail (image != NULL, NULL);
  g_atomic_ref_count_inc (&image->ref_count);
  return image;
}

void
ef_device_image_unref (EfDeviceImage *image)
{
  if (image == NULL)
    return;
  if (g_atomic_ref_count_dec (&image->ref_count))
    image->ops->free (image);
}

gboolean
ef_device_image_read (EfDeviceImage *image, const EfRect *rect, EfCf32 *out, GError **error)
{
  g_return_val_if_fail (image != NULL && rect != NULL && out != NULL, FALSE);
  return image->ops->read (image, rect, out, error);
}

gboolean
ef_device_image_count_nonfinite (EfDeviceImage *image, guint64 *count, GError **error)
{
  g_return_val_if_fail (image != NULL && count != NULL, FALSE);
  return image->ops->count_nonfinite (image, count, error);
}
