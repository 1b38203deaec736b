/* ef-image-view-test.h: what only tests and benches ask of the image view: counts, timings, edit state, switches. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#if !EF_TEST_HOOKS
#error "ef-image-view-test.h is for tests: configure with -Dtest_hooks=true"
#endif

#include "ef-image-view-private.h"

G_BEGIN_DECLS

/* How many times a layer's pending damage was fully uploaded and drawn: the updates a user saw. */
guint    ef_image_view_get_n_updates (EfImageView *self, EfLayerId layer);
/* Limits a texture's edge, to exercise tiling on drivers with a large GL_MAX_TEXTURE_SIZE; 0 = the
 * driver's limit. Takes effect when layers are next created. */
void     ef_image_view_set_max_texture_size (EfImageView *self, guint max_size);

/* TRUE while a ROI drawing, move or resize is in flight; its outline in metres. */
gboolean ef_image_view_get_edit_roi (EfImageView *self, double roi[4]);
/* Where the region's size label is drawn, in widget pixels; FALSE when it is not shown. */
gboolean ef_image_view_get_roi_label_rect (EfImageView *self, graphene_rect_t *rect);
/* The scale bar shown: its length in metres and in widget pixels; FALSE when none is. */
gboolean ef_image_view_get_scale_bar (EfImageView *self, double *metres, double *pixels);

/* Draws the layers on the processor even where GL would be used (see use_soft () in ef-image-view.c). */
void     ef_image_view_set_force_soft (EfImageView *self, gboolean force);
/* TRUE when the last frame was drawn on the processor. */
gboolean ef_image_view_is_soft (EfImageView *self);

/* Starts (TRUE) or stops recording each render's times (EfImageViewFrameTiming); starting clears what
 * was recorded. */
void     ef_image_view_set_timing (EfImageView *self, gboolean timing);
/* The renders recorded since timing started (EfImageViewFrameTiming), borrowed. */
GArray  *ef_image_view_get_timings (EfImageView *self);

G_END_DECLS
