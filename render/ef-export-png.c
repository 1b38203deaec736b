/* ef-export-png.c: a formed image at full resolution as a dB PNG, with axes, scale bar, north arrow and colour bar. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-export-png"
#include "config.h"

#include <cairo.h>
#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

#include "ef-annotate.h"
#include "ef-error.h"
#include "ef-export-png.h"

/* The frame around the image: y labels on the left, the title above, x labels and then the footer (scale
 * bar, colour bar, north arrow) below. The footer needs this much width, however narrow the image. */
#define MARGIN_LEFT 64
#define MARGIN_RIGHT 24
#define MARGIN_TOP 30
#define AXIS_BELOW 30
#define FOOTER 78
#define FOOTER_MIN_WIDTH 600
#define SCALE_BAR_MAX_PX 200.0
#define COLOUR_BAR_W 220.0
/* cairo's largest image surface edge. */
#define MAX_EDGE 32767

void
ef_export_layout_clear (EfExportLayout *layout)
{
  if (layout == NULL)
    return;
  g_clear_pointer (&layout->scale_bar_label, g_free);
  memset (layout, 0, sizeof *layout);
}

/* The image's pixels into the surface at (x0, y0), row by row, as the display maps magnitude. */
static void
paint_image (cairo_surface_t *surface, guint x0, guint y0, const EfCf32 *pixels, const EfGrid *grid,
             const EfDisplayParams *params, double gain_db)
{
  guint8 table[EF_COLORMAP_LUT_SIZE * 4];
  g_autofree float *row = g_new (float, grid->width);
  EfDisplayParams p = *params;
  double scale, offset;
  guint8 *data;
  int stride;

  p.mode = EF_VIEW_MAGNITUDE;
  if (p.colormap == EF_COLORMAP_CYCLIC)
    p.colormap = EF_COLORMAP_GREY;  /* a dB image on the phase map reads as nothing */
  ef_display_table_fill (p.colormap, p.gamma, table, EF_COLORMAP_LUT_SIZE);
  ef_display_values_map (&p, gain_db, &scale, &offset);
  cairo_surface_flush (surface);
  data = cairo_image_surface_get_data (surface);
  stride = cairo_image_surface_get_stride (surface);
  for (guint r = 0; r < grid->height; r++)
    {
      guint32 *out = (guint32 *) (data + (gsize) (y0 + r) * (gsize) stride) + x0;

      ef_display_values_convert (EF_VIEW_MAGNITUDE, pixels + (gsize) r * grid->width, row, grid->width);
      for (guint c = 0; c < grid->width; c++)
        {
          double t = CLAMP (row[c] * scale + offset, 0.0, 1.0);
          const guint8 *rgba = table + 4 * (guint) (t * (EF_COLORMAP_LUT_SIZE - 1) + 0.5);
          out[c] = 0xff000000u | ((guint32) rgba[0] << 16) | ((guint32) rgba[1] << 8) | rgba[2];
        }
    }
  cairo_surface_mark_dirty (surface);
}

/* Ticks and values in metres along the bottom (x) and left (y) edges of a north-up image. */
static void
draw_axes (cairo_t *cr, double x0, double y0, const EfGrid *grid, const double ink[3])
{
  double s = grid->spacing, w = grid->width * s, h = grid->height * s;
  double left = grid->origin[0] - 0.5 * s, top = grid->origin[1] + 0.5 * s;
  double step = ef_nice_step (MAX (w, h), 6);
  int tw, th;

  ef_annotate_text_size (cr, "0", &tw, &th);
  cairo_set_line_width (cr, 1);
  cairo_set_source_rgb (cr, ink[0], ink[1], ink[2]);
  cairo_rectangle (cr, x0 - 0.5, y0 - 0.5, grid->width + 1, grid->height + 1);
  cairo_stroke (cr);
  for (double v = ceil (left / step - 1e-9) * step; v <= left + w + 1e-9 * step; v += step)
    {
      double px = x0 + (v - left) / s;
      g_autofree char *text = g_strdup_printf ("%g", fabs (v) < 1e-9 * step ? 0.0 : v);

      cairo_move_to (cr, round (px) + 0.5, y0 + grid->height);
      cairo_line_to (cr, round (px) + 0.5, y0 + grid->height + 5);
      cairo_stroke (cr);
      ef_annotate_text (cr, text, px, y0 + grid->height + 6, 0.5, ink);
    }
  for (double v = floor (top / step + 1e-9) * step; v >= top - h - 1e-9 * step; v -= step)
    {
      double py = y0 + (top - v) / s;
      g_autofree char *text = g_strdup_printf ("%g", fabs (v) < 1e-9 * step ? 0.0 : v);

      cairo_move_to (cr, x0 - 5, round (py) + 0.5);
      cairo_line_to (cr, x0, round (py) + 0.5);
      cairo_stroke (cr);
      ef_annotate_text_size (cr, text, &tw, &th);
      ef_annotate_text (cr, text, x0 - 7, py - 0.5 * th, 1.0, ink);
    }
  /* The unit once, at the far end of each axis. */
  ef_annotate_text (cr, _("x (m)"), x0 + grid->width, y0 + grid->height + 6 + th, 1.0, ink);
  ef_annotate_text (cr, _("y (m)"), 4, y0 - th - 2, 0.0, ink);
}

gboolean
ef_export_db_png (const EfCf32 *pixels, const EfGrid *grid, const EfDisplayParams *params, double gain_db,
                  const char *title, const char *path, EfExportLayout *layout, GError **error)
{
  const double ink[3] = { 0, 0, 0 };
  cairo_surface_t *surface;
  cairo_status_t status;
  cairo_t *cr;
  guint width, height, x0 = MARGIN_LEFT, y0 = MARGIN_TOP, footer;
  double bar_m = 0, bar_px = 0, nx, ny;
  g_autofree char *label = NULL;
  gboolean north_up;

  g_return_val_if_fail (pixels != NULL && grid != NULL && params != NULL && path != NULL, FALSE);

  if (grid->width == 0 || grid->height == 0 || grid->width > MAX_EDGE - MARGIN_LEFT - MARGIN_RIGHT
      || grid->height > MAX_EDGE - MARGIN_TOP - AXIS_BELOW - FOOTER)
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA,
                   _("An image of %u × %u pixels does not fit a PNG of at most %d pixels a side with its "
                     "axes and scale"), grid->width, grid->height, MAX_EDGE);
      return FALSE;
    }
  width = MAX (x0 + grid->width + MARGIN_RIGHT, FOOTER_MIN_WIDTH);
  height = y0 + grid->height + AXIS_BELOW + FOOTER;
  surface = cairo_image_surface_create (CAIRO_FORMAT_RGB24, (int) width, (int) height);
  if (cairo_surface_status (surface) != CAIRO_STATUS_SUCCESS)
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FAILED, _("No memory for a %u × %u image: %s"), width, height,
                   cairo_status_to_string (cairo_surface_status (surface)));
      cairo_surface_destroy (surface);
      return FALSE;
    }
  cr = cairo_create (surface);
  cairo_set_source_rgb (cr, 1, 1, 1);
  cairo_paint (cr);
  paint_image (surface, x0, y0, pixels, grid, params, gain_db);

  if (title != NULL)
    ef_annotate_text (cr, title, x0, 6, 0.0, ink);
  /* Rows run along v and columns along u: north (+y) points along (u_y, v_y) in the file. */
  nx = grid->u[1];
  ny = grid->v[1];
  north_up = grid->u[0] == 1.0 && grid->u[1] == 0.0 && grid->v[0] == 0.0 && grid->v[1] == -1.0;
  if (north_up)
    draw_axes (cr, x0, y0, grid, ink);

  /* The footer: the scale bar under the image's left edge, the colour bar, the north arrow at the right. */
  footer = y0 + grid->height + AXIS_BELOW;
  /* A round length of 80 to 200 pixels, drawn to the whole pixel: within 0.6 % of what it says. */
  ef_scale_bar_choose (grid->spacing, SCALE_BAR_MAX_PX, &bar_m, &bar_px);
  label = ef_scale_bar_label (bar_m);
  ef_draw_scale_bar (cr, x0, footer + 30, round (bar_px), label, ink);
  {
    EfDisplayParams p = *params;
    double cx = x0 + SCALE_BAR_MAX_PX + 40;

    p.mode = EF_VIEW_MAGNITUDE;
    if (p.colormap == EF_COLORMAP_CYCLIC)
      p.colormap = EF_COLORMAP_GREY;
    ef_annotate_text (cr, _("dB"), cx + COLOUR_BAR_W + 6, footer + 24, 0.0, ink);
    ef_draw_colour_bar (cr, cx, footer + 24, COLOUR_BAR_W, 12, &p, ink);
  }
  ef_draw_north_arrow (cr, width - 30, footer + 42, 34, nx, ny, ink);

  cairo_destroy (cr);
  status = cairo_surface_write_to_png (surface, path);
  cairo_surface_destroy (surface);
  if (status != CAIRO_STATUS_SUCCESS)
    {
      g_autofree char *name = g_filename_display_name (path);
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FAILED, _("Could not write %s: %s"), name,
                   cairo_status_to_string (status));
      return FALSE;
    }
  if (layout != NULL)
    {
      ef_export_layout_clear (layout);
      layout->width = width;
      layout->height = height;
      layout->image_x = x0;
      layout->image_y = y0;
      layout->scale_bar_m = bar_m;
      layout->scale_bar_px = round (bar_px);
      layout->scale_bar_label = g_steal_pointer (&label);
    }
  return TRUE;
}
