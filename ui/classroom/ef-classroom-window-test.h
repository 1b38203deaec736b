/* ef-classroom-window-test.h: what the GUI tests read and drive in the classroom window (test builds only). */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "ef-classroom-window.h"
#include "ef-teach.h"
#include "ef-teach-whatif.h"

G_BEGIN_DECLS

#if EF_TEST_HOOKS
gboolean         ef_classroom_window_test_is_ready (EfClassroomWindow *self);
/* Moves the aperture's range slider as a user would, to [first, last] pulse. */
void             ef_classroom_window_test_set_aperture (EfClassroomWindow *self, guint64 first, guint64 last);
void             ef_classroom_window_test_set_band (EfClassroomWindow *self, guint lo, guint hi);
/* Borrowed: the image shown (pixels of the stack's grid), and *n its pixel count. */
const EfCf32    *ef_classroom_window_test_image (EfClassroomWindow *self, gsize *n);
const EfTeachTheory *ef_classroom_window_test_theory (EfClassroomWindow *self);
EfDataset       *ef_classroom_window_test_dataset (EfClassroomWindow *self);
/* The readouts as shown: the aperture's, the band's. */
const char      *ef_classroom_window_test_aperture_text (EfClassroomWindow *self);
const char      *ef_classroom_window_test_band_text (EfClassroomWindow *self);
guint64          ef_classroom_window_test_current (EfClassroomWindow *self);
guint            ef_classroom_window_test_block (EfClassroomWindow *self);
gboolean         ef_classroom_window_test_playing (EfClassroomWindow *self);
gboolean         ef_classroom_window_test_key (EfClassroomWindow *self, guint keyval);
/* Times view v (EfClassroomView order: image, geometry, profile, history, k-space) has drawn. */
guint            ef_classroom_window_test_draws (EfClassroomWindow *self, guint v);
guint            ef_classroom_window_test_n_arcs (EfClassroomWindow *self);
/* From the last change of the windows or the pulse to its image drawn, ms. */
double           ef_classroom_window_test_frame_ms (EfClassroomWindow *self);
/* What if: sets the controls as a user would (the stack is formed again after a short pause). */
void             ef_classroom_window_test_set_whatif (EfClassroomWindow *self, const EfTeachErrors *e,
                                                      const EfTeachFormOptions *f);
/* TRUE when no formation is pending or running. */
gboolean         ef_classroom_window_test_is_settled (EfClassroomWindow *self);
/* The selected target's cross IRW (m), cross PSLR (dB), range IRW, range PSLR: shown and error-free. */
gboolean         ef_classroom_window_test_measure (EfClassroomWindow *self, double out[4], double ref[4]);
const char      *ef_classroom_window_test_measure_text (EfClassroomWindow *self);
double           ef_classroom_window_test_ser_db (EfClassroomWindow *self);
void             ef_classroom_window_test_select (EfClassroomWindow *self, double col, double row);
gboolean         ef_classroom_window_test_key_mod (EfClassroomWindow *self, guint keyval, GdkModifierType state);
double           ef_classroom_window_test_text_scale (EfClassroomWindow *self);
GtkWidget       *ef_classroom_window_test_pulse_label (EfClassroomWindow *self);
/* Presses the presenter's toggles. */
void             ef_classroom_window_test_toggle (EfClassroomWindow *self, gboolean large_text, gboolean high_contrast);
/* Types a name and pins it; the bookmarks listed; goes back to bookmark i. */
void             ef_classroom_window_test_pin (EfClassroomWindow *self, const char *name);
guint            ef_classroom_window_test_n_bookmarks (EfClassroomWindow *self);
gboolean         ef_classroom_window_test_go (EfClassroomWindow *self, guint i);
void             ef_classroom_window_test_windows (EfClassroomWindow *self, guint64 *first, guint64 *last,
                                                   guint *band_lo, guint *band_hi);
/* The errors and options of the image shown. */
void             ef_classroom_window_test_shown_whatif (EfClassroomWindow *self, EfTeachErrors *e,
                                                        EfTeachFormOptions *f);
#endif

G_END_DECLS
