/* ef-view-transform.h: where a view shows the scene, and the maps from an image grid to its pixels. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>
#include "ef-grid.h"

G_BEGIN_DECLS

/* Scene point (x, y), in metres, shows at widget pixel
 *   (wx, wy) = (width / 2 + (x - cx) * scale, height / 2 - (y - cy) * scale),
 * and a widget pixel is scale_factor device pixels across. */
typedef struct {
  double cx, cy;          /* the scene point at the centre, m */
  double scale;           /* widget pixels per metre */
  double width, height;   /* the view's size, widget pixels */
  int    scale_factor;    /* device pixels per widget pixel */
} EfViewTransform;

/* The affine map from grid pixel coordinates (pixel (0,0)'s centre at 0,0) to GL clip space, as
 * ef_gl_renderer_draw_image takes it: ndc = [m0 m1 m2; m3 m4 m5] * (col, row, 1). */
void ef_view_transform_grid_to_ndc (const EfViewTransform *view, const EfGrid *grid, double m[6]);

/* The affine map from grid pixel coordinates to device pixels of the view (its top-left corner at 0,0),
 * as ef_soft_draw takes it. */
void ef_view_transform_grid_to_device (const EfViewTransform *view, const EfGrid *grid, double m[6]);

G_END_DECLS
