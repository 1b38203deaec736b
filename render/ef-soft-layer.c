/* ef-soft-layer.c: a layer's display values in host memory, and its picture painted through cairo. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-soft-layer"
#include "config.h"

#include <math.h>
#include <string.h>

#include "ef-gl-image.h"
#include "ef-soft-draw.h"
#include "ef-soft-layer.h"

/* Entries of the display table drawn through, as in the GL renderer. */
#define TABLE_SIZE 1024

struct _EfSoftLayer {
  guint      width, height;
  guint      cells_w, cells_h;
  float     *values;           /* owned, width * height */
  guint8    *mask;             /* owned, cells_w * cells_h: non-zero where a cell has arrived */
  EfViewMode mode;             /* the quantity values hold */
  guint      version;          /* bumped by every change of the values */
  guint8     table[TABLE_SIZE * 4];
  gboolean   table_valid;
  EfColormap table_map;
  double     table_gamma;
};

EfSoftLayer *
ef_soft_layer_try_new (guint width, guint height, EfViewMode mode)
{
  g_autoptr (EfSoftLayer) self = g_new0 (EfSoftLayer, 1);
  gsize n;

  g_return_val_if_fail (width > 0 && height > 0, NULL);
  if (!g_size_checked_mul (&n, width, height))
    return NULL;
  self->width = width;
  self->height = height;
  self->cells_w = (width + EF_GL_IMAGE_CELL - 1) / EF_GL_IMAGE_CELL;
  self->cells_h = (height + EF_GL_IMAGE_CELL - 1) / EF_GL_IMAGE_CELL;
  self->values = g_try_new (float, n);
  if (self->values == NULL)
    return NULL;
  self->mask = g_malloc0 ((gsize) self->cells_w * self->cells_h);
  self->mode = mode;
  self->version = 1;
  return g_steal_pointer (&self);
}

void
ef_soft_layer_free (EfSoftLayer *self)
{
  if (self == NULL)
    return;
  g_free (self->values);
  g_free (self->mask);
  g_free (self);
}

void
ef_soft_layer_set_mode (EfSoftLayer *self, EfViewMode mode)
{
  if (self->mode == mode)
    return;
  /* Whatever the values held was another quantity: nothing of it shows until it comes again. */
  memset (self->mask, 0, (gsize) self->cells_w * self->cells_h);
  self->mode = mode;
  self->version++;
}

EfViewMode
ef_soft_layer_get_mode (const EfSoftLayer *self)
{
  return self->mode;
}

void
ef_soft_layer_write (EfSoftLayer *self, const EfRect *rect, const float *values)
{
  g_return_if_fail (rect->x + rect->width <= self->width && rect->y + rect->height <= self->height);

  for (guint r = 0; r < rect->height; r++)
    memcpy (self->values + (gsize) (rect->y + r) * self->width + rect->x, values + (gsize) r * rect->width,
            rect->width * sizeof (float));
  for (guint cy = rect->y / EF_GL_IMAGE_CELL; cy * EF_GL_IMAGE_CELL < rect->y + rect->height; cy++)
    for (guint cx = rect->x / EF_GL_IMAGE_CELL; cx * EF_GL_IMAGE_CELL < rect->x + rect->width; cx++)
      self->mask[(gsize) cy * self->cells_w + cx] = 1;
  self->version++;
}

gboolean
ef_soft_layer_place (EfSoftLayer *self, const EfGrid *g, const EfViewTransform *view,
                     const EfDisplayParams *params, double gain_db, EfSoftPlace *place)
{
  int sf = view->scale_factor;
  double w = view->width, h = view->height;
  double xmin = G_MAXDOUBLE, ymin = G_MAXDOUBLE, xmax = -G_MAXDOUBLE, ymax = -G_MAXDOUBLE;
  double scale, offset, fw_col, fw_row;

  if (self->mode != params->mode)
    return FALSE;
  /* Compared byte by byte: the padding too. */
  memset (place, 0, sizeof *place);
  ef_view_transform_grid_to_device (view, g, place->m);
  for (int c = 0; c < 4; c++)
    {
      double col = (c & 1) ? g->width - 0.5 : -0.5, row = (c & 2) ? g->height - 0.5 : -0.5;
      double x = place->m[0] * col + place->m[1] * row + place->m[2];
      double y = place->m[3] * col + place->m[4] * row + place->m[5];

      xmin = MIN (xmin, x);
      xmax = MAX (xmax, x);
      ymin = MIN (ymin, y);
      ymax = MAX (ymax, y);
    }
  if (!isfinite (xmin + xmax + ymin + ymax))
    return FALSE;
  /* Only the part on screen. */
  place->x0 = (int) floor (MAX (xmin, 0));
  place->y0 = (int) floor (MAX (ymin, 0));
  place->w = (int) ceil (MIN (xmax, w * sf)) - place->x0;
  place->h = (int) ceil (MIN (ymax, h * sf)) - place->y0;
  if (place->w <= 0 || place->h <= 0)
    return FALSE;
  place->m[2] -= place->x0;
  place->m[5] -= place->y0;
  place->scale_factor = sf;
  ef_display_values_map (params, gain_db, &scale, &offset);
  place->scale = (float) scale;
  place->offset = (float) offset;
  place->map = (guint) params->colormap < EF_COLORMAP_N ? params->colormap : EF_COLORMAP_GREY;
  place->gamma = params->mode == EF_VIEW_MAGNITUDE ? params->gamma : 1.0;
  ef_soft_draw_footprint (place->m, &fw_col, &fw_row);
  place->average_db = params->mode == EF_VIEW_MAGNITUDE && MAX (fw_col, fw_row) > 1.5;
  place->version = self->version;
  return TRUE;
}

gboolean
ef_soft_place_equal (const EfSoftPlace *a, const EfSoftPlace *b)
{
  return memcmp (a, b, sizeof *a) == 0;
}

static const guint8 *
table_for (EfSoftLayer *self, EfColormap map, double gamma)
{
  if (!self->table_valid || self->table_map != map || self->table_gamma != gamma)
    {
      ef_display_table_fill (map, gamma, self->table, TABLE_SIZE);
      self->table_valid = TRUE;
      self->table_map = map;
      self->table_gamma = gamma;
    }
  return self->table;
}

gboolean
ef_soft_layer_paint (EfSoftLayer *self, const EfSoftPlace *place, cairo_t *cr)
{
  int sf = place->scale_factor;
  EfSoftImage image;
  cairo_surface_t *surface;

  surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, place->w, place->h);
  if (cairo_surface_status (surface) != CAIRO_STATUS_SUCCESS)
    {
      cairo_surface_destroy (surface);
      return FALSE;
    }
  image.values = self->values;
  image.width = self->width;
  image.height = self->height;
  image.stride = self->width;
  image.cell_mask = self->mask;
  image.cells_w = self->cells_w;
  image.cell = EF_GL_IMAGE_CELL;
  cairo_surface_flush (surface);
  ef_soft_draw (&image, place->m, place->scale, place->offset, table_for (self, place->map, place->gamma),
                TABLE_SIZE, place->average_db, cairo_image_surface_get_data (surface), (guint) place->w,
                (guint) place->h, (gsize) cairo_image_surface_get_stride (surface));
  cairo_surface_mark_dirty (surface);
  cairo_surface_set_device_scale (surface, sf, sf);

  cairo_save (cr);
  cairo_set_source_surface (cr, surface, (double) place->x0 / sf, (double) place->y0 / sf);
  /* Nearest: one surface pixel per device pixel, never resampled. */
  cairo_pattern_set_filter (cairo_get_source (cr), CAIRO_FILTER_NEAREST);
  cairo_paint (cr);
  cairo_restore (cr);
  cairo_surface_destroy (surface);
  return TRUE;
}
