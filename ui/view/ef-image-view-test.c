/* ef-image-view-test.c: the image view's test-only interface (ef-image-view-test.h), built with -Dtest_hooks=true. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-image-view"
#include "config.h"

#include <string.h>

#include "ef-image-view-test.h"

guint
ef_image_view_get_n_updates (EfImageView *self, EfLayerId id)
{
  g_return_val_if_fail (EF_IS_IMAGE_VIEW (self) && id < EF_N_LAYERS, 0);
  return self->layers[id].n_updates;
}

void
ef_image_view_set_max_texture_size (EfImageView *self, guint max_size)
{
  g_return_if_fail (EF_IS_IMAGE_VIEW (self));
  self->max_texture = max_size;
}

gboolean
ef_image_view_get_edit_roi (EfImageView *self, double roi[4])
{
  g_return_val_if_fail (EF_IS_IMAGE_VIEW (self), FALSE);
  if (ef_image_view_input_is_editing (self) && roi != NULL)
    memcpy (roi, self->edit_roi, sizeof self->edit_roi);
  return ef_image_view_input_is_editing (self);
}

void
ef_image_view_set_force_soft (EfImageView *self, gboolean force)
{
  g_return_if_fail (EF_IS_IMAGE_VIEW (self));
  self->force_soft = !!force;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

gboolean
ef_image_view_is_soft (EfImageView *self)
{
  g_return_val_if_fail (EF_IS_IMAGE_VIEW (self), FALSE);
  return self->soft;
}

void
ef_image_view_set_timing (EfImageView *self, gboolean timing)
{
  g_return_if_fail (EF_IS_IMAGE_VIEW (self));
  g_clear_pointer (&self->timings, g_array_unref);
  if (timing)
    self->timings = g_array_new (FALSE, TRUE, sizeof (EfImageViewFrameTiming));
}

GArray *
ef_image_view_get_timings (EfImageView *self)
{
  g_return_val_if_fail (EF_IS_IMAGE_VIEW (self), NULL);
  return self->timings;
}
