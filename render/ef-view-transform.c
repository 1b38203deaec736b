/* ef-view-transform.c: the maps from an image grid to a view's clip space and device pixels. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-view-transform"
#include "config.h"

#include "ef-view-transform.h"

void
ef_view_transform_grid_to_ndc (const EfViewTransform *view, const EfGrid *g, double m[6])
{
  double w = MAX (view->width, 1), h = MAX (view->height, 1);
  double kx = 2.0 * view->scale / w, ky = 2.0 * view->scale / h;

  m[0] = kx * g->spacing * g->u[0];
  m[1] = kx * g->spacing * g->v[0];
  m[2] = kx * (g->origin[0] - view->cx);
  m[3] = ky * g->spacing * g->u[1];
  m[4] = ky * g->spacing * g->v[1];
  m[5] = ky * (g->origin[1] - view->cy);
}

void
ef_view_transform_grid_to_device (const EfViewTransform *view, const EfGrid *g, double m[6])
{
  int sf = view->scale_factor;
  double k = view->scale * sf;

  /* The same map as for GL, with y pointing down and the origin at the top-left corner. */
  m[0] = k * g->spacing * g->u[0];
  m[1] = k * g->spacing * g->v[0];
  m[2] = sf * (0.5 * view->width + view->scale * (g->origin[0] - view->cx));
  m[3] = -k * g->spacing * g->u[1];
  m[4] = -k * g->spacing * g->v[1];
  m[5] = sf * (0.5 * view->height - view->scale * (g->origin[1] - view->cy));
}
