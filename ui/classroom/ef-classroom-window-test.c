/* ef-classroom-window-test.c: what the GUI tests read and drive in the classroom window (test builds only). */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-classroom"
#include "config.h"

#include "ef-classroom-window-private.h"
#include "ef-classroom-window-test.h"

gboolean
ef_classroom_window_test_is_ready (EfClassroomWindow *self)
{
  return self->ready;
}

void
ef_classroom_window_test_set_aperture (EfClassroomWindow *self, guint64 first, guint64 last)
{
  ef_range_slider_move (self->aperture_slider, (double) first, (double) last);
}

void
ef_classroom_window_test_set_band (EfClassroomWindow *self, guint lo, guint hi)
{
  ef_range_slider_move (self->band_slider, lo, hi);
}

const EfCf32 *
ef_classroom_window_test_image (EfClassroomWindow *self, gsize *n)
{
  *n = self->stack_data != NULL ? ef_grid_n_pixels (ef_teach_stack_grid (self->stack_data)) : 0;
  return self->image;
}

const EfTeachTheory *
ef_classroom_window_test_theory (EfClassroomWindow *self)
{
  return &self->theory;
}

EfDataset *
ef_classroom_window_test_dataset (EfClassroomWindow *self)
{
  return self->ds;
}

const char *
ef_classroom_window_test_aperture_text (EfClassroomWindow *self)
{
  return gtk_label_get_text (GTK_LABEL (self->aperture_label));
}

const char *
ef_classroom_window_test_band_text (EfClassroomWindow *self)
{
  return gtk_label_get_text (GTK_LABEL (self->band_label));
}

guint64
ef_classroom_window_test_current (EfClassroomWindow *self)
{
  return self->current;
}

guint
ef_classroom_window_test_block (EfClassroomWindow *self)
{
  return self->block;
}

gboolean
ef_classroom_window_test_playing (EfClassroomWindow *self)
{
  return self->playing;
}

gboolean
ef_classroom_window_test_key (EfClassroomWindow *self, guint keyval)
{
  return ef_classroom_window_key (self, keyval, 0);
}

guint
ef_classroom_window_test_draws (EfClassroomWindow *self, guint v)
{
  return v < EF_CLASSROOM_N_VIEWS ? self->draws[v] : 0;
}

guint
ef_classroom_window_test_n_arcs (EfClassroomWindow *self)
{
  return self->n_arcs;
}

double
ef_classroom_window_test_frame_ms (EfClassroomWindow *self)
{
  return self->frame_ms;
}
