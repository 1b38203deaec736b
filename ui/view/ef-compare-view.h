/* ef-compare-view.h: two formed images compared: side by side (pan and zoom linked), a swipe, a dB difference. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>
#include "ef-grid.h"

G_BEGIN_DECLS

#define EF_TYPE_COMPARE_VIEW (ef_compare_view_get_type ())
G_DECLARE_FINAL_TYPE (EfCompareView, ef_compare_view, EF, COMPARE_VIEW, GtkWidget)

typedef enum {
  EF_COMPARE_SIDE_BY_SIDE,  /* A on the left half, B on the right, one view of the scene in each */
  EF_COMPARE_SWIPE,         /* A left of the swipe line, B right of it, one view of the scene */
  EF_COMPARE_DIFFERENCE,    /* dB(|A|) - dB(|B|), each relative to its own peak */
} EfCompareMode;

/* What a point of the widget shows. */
typedef enum {
  EF_COMPARE_NOTHING,       /* outside both images (or outside the one shown there) */
  EF_COMPARE_A,
  EF_COMPARE_B,
  EF_COMPARE_DIFF,
} EfCompareSource;

GtkWidget *ef_compare_view_new (void);

/* The two images (copied), each with its grid in the scene frame: they are shown where they lie, so two
 * regions are compared over their overlap and one region formed two ways pixel for pixel. label_a and
 * label_b name them (may be NULL). Resets the view to fit both. */
void ef_compare_view_set_images (EfCompareView *self, const EfImage *a, const char *label_a, const EfImage *b,
                                 const char *label_b);
void          ef_compare_view_set_mode (EfCompareView *self, EfCompareMode mode);
EfCompareMode ef_compare_view_get_mode (EfCompareView *self);
/* The swipe line as a fraction of the width (clamped to 0..1). */
void          ef_compare_view_set_swipe (EfCompareView *self, double fraction);
double        ef_compare_view_get_swipe (EfCompareView *self);
/* The dB range shown for the images (dB below each image's peak, positive) and the difference's scale
 * (+-diff_db maps to the ends of the diverging colours). */
void          ef_compare_view_set_range (EfCompareView *self, double range_db, double diff_db);

/* Pan by (dx, dy) widget pixels and zoom by factor about the widget point (x, y). Both halves of the side
 * by side view and both sides of the swipe follow: there is one view of the scene. */
void ef_compare_view_pan (EfCompareView *self, double dx, double dy);
void ef_compare_view_zoom (EfCompareView *self, double factor, double x, double y);

/* What the widget shows at (x, y) (widget pixels, as drawn for a widget of width x height): the scene
 * point there (m, may be NULL), which image, and the value in dB (image: below its peak; difference:
 * A - B). The drawing uses this for every pixel. */
EfCompareSource ef_compare_view_probe (EfCompareView *self, int width, int height, double x, double y,
                                       double scene[2], double *value_db);

/* Draws the widget's picture for a width x height widget into a new cairo image surface (owned). */
cairo_surface_t *ef_compare_view_render (EfCompareView *self, int width, int height);

G_END_DECLS
