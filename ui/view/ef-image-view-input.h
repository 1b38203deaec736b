/* ef-image-view-input.h: what the image view's gestures and controllers do, as functions of what GTK hands them. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "ef-image-view.h"

G_BEGIN_DECLS

/* The gesture and controller callbacks call these and nothing else, so that a caller can drive the view
 * without synthesised events (GTK 4 cannot make those). Coordinates are widget pixels; dx, dy are
 * offsets from the drag's start. */
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

G_END_DECLS
