/* ef-mri-window-test.c: test-only access to the MRI window (built with -Dtest_hooks=true). */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-mri-window"
#include "config.h"

#include "ef-mri-window-private.h"
#include "ef-mri-window-test.h"

gboolean
ef_mri_window_test_is_idle (EfMriWindow *self)
{
  return !self->busy;
}

const char *
ef_mri_window_test_error (EfMriWindow *self)
{
  return self->error;
}

const EfCf64 *
ef_mri_window_test_image (EfMriWindow *self, guint n[3])
{
  for (guint a = 0; a < 3; a++)
    n[a] = self->prep != NULL ? self->prep->g.n[a] : 0;
  return self->image;
}

void
ef_mri_window_test_samples (EfMriWindow *self, gsize *done, gsize *total)
{
  *done = self->done;
  *total = self->prep != NULL ? self->prep->t->m : 0;
}

guint
ef_mri_window_test_n_planes (EfMriWindow *self)
{
  guint n = 0;

  for (guint i = 0; i < 3; i++)
    n += gtk_widget_get_visible (gtk_widget_get_parent (self->planes[i]));
  return n;
}

void
ef_mri_window_test_plane_size (EfMriWindow *self, guint i, guint *w, guint *h)
{
  g_return_if_fail (self->prep != NULL && i < 3);
  ef_mri_window_plane_size (&self->prep->g, i, w, h);
}

void
ef_mri_window_test_kspace_drawn (EfMriWindow *self, guint *points, guint *used)
{
  *points = self->kspace_points;
  *used = self->kspace_used;
}

void
ef_mri_window_test_least_squares (EfMriWindow *self)
{
  ef_mri_window_least_squares (self);
}

void
ef_mri_window_test_hold_after (EfMriWindow *self, guint block)
{
  g_mutex_lock (&self->hold_lock);
  self->hold_after = block;
  g_cond_broadcast (&self->hold_cond);
  g_mutex_unlock (&self->hold_lock);
}

void
ef_mri_window_test_cancel (EfMriWindow *self)
{
  g_signal_emit_by_name (self->cancel_button, "clicked");
}

const char *
ef_mri_window_test_progress (EfMriWindow *self)
{
  return gtk_label_get_text (GTK_LABEL (self->progress_label));
}

void
ef_mri_window_test_click_voxel (EfMriWindow *self, guint i, double col, double row)
{
  int width = gtk_widget_get_width (self->planes[i]), height = gtk_widget_get_height (self->planes[i]);
  guint w, h;
  double s;

  g_return_if_fail (self->prep != NULL && i < 3);
  ef_mri_window_plane_size (&self->prep->g, i, &w, &h);
  s = MIN ((double) width / w, (double) height / h);
  ef_mri_window_pick (self, i, (width - s * w) / 2 + s * col, (height - s * h) / 2 + s * (h - row));
}

void
ef_mri_window_test_cursor (EfMriWindow *self, guint cursor[3])
{
  for (guint a = 0; a < 3; a++)
    cursor[a] = self->cursor[a];
}

const char *
ef_mri_window_test_residuals (EfMriWindow *self)
{
  return gtk_label_get_text (GTK_LABEL (self->residual_label));
}

void
ef_mri_window_test_coils (EfMriWindow *self, guint *n_coils, guint *choice)
{
  *n_coils = self->prep != NULL ? self->prep->n_coils : 0;
  *choice = self->coil_choice;
}

const char *
ef_mri_window_test_coil_text (EfMriWindow *self)
{
  return gtk_label_get_text (GTK_LABEL (self->coil_label));
}

void
ef_mri_window_test_choose_coil (EfMriWindow *self, guint choice)
{
  gtk_drop_down_set_selected (GTK_DROP_DOWN (self->coil_drop), choice);
}

void
ef_mri_window_test_backend (EfMriWindow *self, const char **ran, const char **fallback)
{
  *ran = self->run.ran;
  *fallback = self->run.fallback;
}

const char *
ef_mri_window_test_backend_text (EfMriWindow *self)
{
  return gtk_label_get_text (GTK_LABEL (self->backend_label));
}

void
ef_mri_window_test_hold_iteration (EfMriWindow *self, guint k)
{
  g_mutex_lock (&self->hold_lock);
  self->hold_iteration = k;
  g_cond_broadcast (&self->hold_cond);
  g_mutex_unlock (&self->hold_lock);
}

guint
ef_mri_window_test_ls_iterations (EfMriWindow *self)
{
  return self->ls_iterations;
}

void
ef_mri_window_test_click_least_squares (EfMriWindow *self)
{
  g_signal_emit_by_name (self->ls_button, "clicked");
}

const char *
ef_mri_window_test_ls_label (EfMriWindow *self)
{
  return gtk_button_get_label (GTK_BUTTON (self->ls_button));
}
