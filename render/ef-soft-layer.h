/* ef-soft-layer.h: an image layer drawn on the processor: its display values in host memory, painted with cairo. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <cairo.h>
#include <glib.h>
#include "ef-colormap.h"
#include "ef-view-transform.h"

G_BEGIN_DECLS

/* The display values of one image (ef_display_values_convert) for one view mode, arriving in square cells
 * of EF_GL_IMAGE_CELL pixels as the GL textures do: a cell shows once it has arrived. Any thread, one at
 * a time. */
typedef struct _EfSoftLayer EfSoftLayer;

/* Everything a layer's picture depends on: while it is the same, so is the picture, and a compositor
 * need not paint it again. Compare two with ef_soft_place_equal. */
typedef struct {
  double     m[6];           /* image pixel -> pixel of the picture */
  int        x0, y0, w, h;   /* the picture's place and size, device pixels of the view */
  int        scale_factor;   /* device pixels per view pixel */
  float      scale, offset;  /* value -> t (ef_display_values_map) */
  EfColormap map;
  double     gamma;
  gboolean   average_db;     /* zoomed out on magnitude: mean power of four taps */
  guint      version;        /* of the values */
} EfSoftPlace;

/* A width x height layer holding nothing yet, for mode; NULL when there is not enough memory for it. */
EfSoftLayer *ef_soft_layer_try_new (guint width, guint height, EfViewMode mode);
void         ef_soft_layer_free (EfSoftLayer *self);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (EfSoftLayer, ef_soft_layer_free)

/* Makes the layer hold mode's quantity: unless it does already, nothing of it shows until it comes again. */
void         ef_soft_layer_set_mode (EfSoftLayer *self, EfViewMode mode);
EfViewMode   ef_soft_layer_get_mode (const EfSoftLayer *self);
/* Writes a rectangle of values (rect->width * rect->height, row-major) and marks its cells arrived. */
void         ef_soft_layer_write (EfSoftLayer *self, const EfRect *rect, const float *values);

/* Where a layer of grid shows in view with params and gain_db: the part on screen, in device pixels.
 * FALSE when nothing shows: the layer holds another quantity than params->mode, or lies off screen. */
gboolean     ef_soft_layer_place (EfSoftLayer *self, const EfGrid *grid, const EfViewTransform *view,
                                  const EfDisplayParams *params, double gain_db, EfSoftPlace *place);
gboolean     ef_soft_place_equal (const EfSoftPlace *a, const EfSoftPlace *b);

/* Paints the layer at place into cr, whose user space is view pixels: pixel for device pixel, never
 * resampled, transparent where no cell has arrived. FALSE when cairo has no memory for the picture (cr
 * is left as it was). */
gboolean     ef_soft_layer_paint (EfSoftLayer *self, const EfSoftPlace *place, cairo_t *cr);

G_END_DECLS
