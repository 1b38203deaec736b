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

/* ---- what if and presenter ---- */

void
ef_classroom_window_test_set_whatif (EfClassroomWindow *self, const EfTeachErrors *e, const EfTeachFormOptions *f)
{
  ef_classroom_whatif_set_controls (self, e, f);
}

gboolean
ef_classroom_window_test_is_settled (EfClassroomWindow *self)
{
  return self->ready && self->whatif_source == 0 && !self->forming;
}

gboolean
ef_classroom_window_test_measure (EfClassroomWindow *self, double out[4], double ref[4])
{
  const EfClassroomMeasure *m = &self->measured, *r = &self->reference;

  out[0] = m->cross_irw, out[1] = m->cross_pslr, out[2] = m->range_irw, out[3] = m->range_pslr;
  ref[0] = r->cross_irw, ref[1] = r->cross_pslr, ref[2] = r->range_irw, ref[3] = r->range_pslr;
  return m->ok && r->ok;
}

const char *
ef_classroom_window_test_measure_text (EfClassroomWindow *self)
{
  return gtk_label_get_text (GTK_LABEL (self->measure_label));
}

double
ef_classroom_window_test_ser_db (EfClassroomWindow *self)
{
  return self->ser_db;
}

void
ef_classroom_window_test_select (EfClassroomWindow *self, double col, double row)
{
  ef_classroom_whatif_select (self, col, row);
}

gboolean
ef_classroom_window_test_key_mod (EfClassroomWindow *self, guint keyval, GdkModifierType state)
{
  return ef_classroom_window_key (self, keyval, state);
}

double
ef_classroom_window_test_text_scale (EfClassroomWindow *self)
{
  return self->text_scale;
}

/* The readout's label, to measure how large it is drawn. */
GtkWidget *
ef_classroom_window_test_pulse_label (EfClassroomWindow *self)
{
  return self->pulse_label;
}

void
ef_classroom_window_test_toggle (EfClassroomWindow *self, gboolean large_text, gboolean high_contrast)
{
  gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (self->large_toggle), large_text);
  gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (self->contrast_toggle), high_contrast);
}

void
ef_classroom_window_test_pin (EfClassroomWindow *self, const char *name)
{
  gtk_editable_set_text (GTK_EDITABLE (self->bookmark_entry), name);
  g_signal_emit_by_name (self->bookmark_entry, "activate");
}

guint
ef_classroom_window_test_n_bookmarks (EfClassroomWindow *self)
{
  return g_list_model_get_n_items (G_LIST_MODEL (self->bookmark_names));
}

gboolean
ef_classroom_window_test_go (EfClassroomWindow *self, guint i)
{
  gtk_drop_down_set_selected (GTK_DROP_DOWN (self->bookmark_drop), i);
  return ef_classroom_whatif_go_bookmark (self, gtk_drop_down_get_selected (GTK_DROP_DOWN (self->bookmark_drop)));
}

void
ef_classroom_window_test_windows (EfClassroomWindow *self, guint64 *first, guint64 *last, guint *band_lo,
                                  guint *band_hi)
{
  *first = self->first;
  *last = self->last;
  *band_lo = self->band_lo;
  *band_hi = self->band_hi;
}

void
ef_classroom_window_test_shown_whatif (EfClassroomWindow *self, EfTeachErrors *e, EfTeachFormOptions *f)
{
  *e = self->errors;
  *f = self->form;
}
