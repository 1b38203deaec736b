/* ef-image-view-private.h: the image view's input entry points and frame timings, for tests and benches. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "ef-image-view.h"

G_BEGIN_DECLS

/* What the gesture and controller callbacks do, as functions of the values GTK hands them, so that
 * tests can drive them without synthesised events (GTK 4 cannot make those). The callbacks themselves
 * call these and nothing else. Coordinates are widget pixels; dx, dy are offsets from the drag's start. */
void     ef_image_view_input_drag_begin (EfImageView *self, guint button, GdkModifierType mods, double wx,
                                         double wy);
void     ef_image_view_input_drag_update (EfImageView *self, double dx, double dy);
void     ef_image_view_input_drag_end (EfImageView *self, double dx, double dy);
/* A wheel or touchpad scroll of dy (wheel notches, or pixels for GDK_SCROLL_UNIT_SURFACE) at the pointer. */
gboolean ef_image_view_input_scroll (EfImageView *self, GdkScrollUnit unit, double dy);
/* A pinch: begin, then the scale since the pinch began about the fingers' centre (cx < 0: the widget's). */
void     ef_image_view_input_pinch_begin (EfImageView *self);
void     ef_image_view_input_pinch (EfImageView *self, double scale, double cx, double cy);
void     ef_image_view_input_motion (EfImageView *self, double wx, double wy);
void     ef_image_view_input_leave (EfImageView *self);
gboolean ef_image_view_input_key (EfImageView *self, guint keyval, GdkModifierType state);
/* TRUE while a ROI drawing, move or resize is in flight; its outline in metres. */
gboolean ef_image_view_get_edit_roi (EfImageView *self, double roi[4]);

/* Draws the layers on the processor even where GL would be used (see use_soft () in the source). */
void     ef_image_view_set_force_soft (EfImageView *self, gboolean force);
/* TRUE when the last frame was drawn on the processor. */
gboolean ef_image_view_is_soft (EfImageView *self);

/* One render of the view, timed when timing is on (each part ends with glFinish, so that the time
 * is the rasteriser's as well as ours; this serialises the GL pipeline and costs a little). */
typedef struct {
  gint64 start_us;     /* monotonic time the render began */
  guint  read_us;      /* reading source pixels or prepared values */
  guint  upload_us;    /* conversion on the main thread, if any, and glTexSubImage2D */
  guint  draw_us;      /* drawing the layers */
  guint  pixels;       /* uploaded */
  guint  converted;    /* of which converted on the main thread (no prepared values) */
} EfImageViewFrameTiming;

/* Starts (TRUE) or stops recording; starting clears what was recorded. */
void    ef_image_view_set_timing (EfImageView *self, gboolean timing);
/* The renders recorded since timing started (EfImageViewFrameTiming), borrowed. */
GArray *ef_image_view_get_timings (EfImageView *self);

G_END_DECLS
