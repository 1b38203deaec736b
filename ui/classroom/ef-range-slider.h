/* ef-range-slider.h: a slider with two handles, for a window [first, last] of a range. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define EF_TYPE_RANGE_SLIDER (ef_range_slider_get_type ())
G_DECLARE_FINAL_TYPE (EfRangeSlider, ef_range_slider, EF, RANGE_SLIDER, GtkWidget)

/* A slider over [min, max] whose handles move in steps of step (> 0) from min. "changed" is emitted
 * when the user moves a handle (a drag, a click, the arrow keys), not when the values are set. */
GtkWidget *ef_range_slider_new (void);
void       ef_range_slider_set_range (EfRangeSlider *self, double min, double max, double step);
/* The last handle stops offset past each step (step - 1: at the end of each whole block). */
void       ef_range_slider_set_hi_offset (EfRangeSlider *self, double offset);
/* Sets both handles (lo <= hi, clamped to the range and snapped to the steps) without "changed". */
void       ef_range_slider_set_values (EfRangeSlider *self, double lo, double hi);
void       ef_range_slider_get_values (EfRangeSlider *self, double *lo, double *hi);
/* What the user does: sets the handles and emits "changed" (tests use it as a drag would). */
void       ef_range_slider_move (EfRangeSlider *self, double lo, double hi);

G_END_DECLS
