/* ef-annotate.c: scale bar, north arrow, colour bar and axis ticks, drawn with cairo for the view and exports. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-annotate"
#include "config.h"

#include <glib/gi18n.h>
#include <math.h>
#include <pango/pangocairo.h>

#include "ef-annotate.h"

#define FONT "Sans 9"

double
ef_nice_step (double span, int n)
{
  double raw, mag, f;

  if (!(span > 0) || !isfinite (span) || n < 1)
    return 1.0;
  raw = span / n;
  mag = pow (10.0, floor (log10 (raw)));
  f = raw / mag;
  return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * mag;
}

gboolean
ef_scale_bar_choose (double metres_per_px, double max_px, double *metres, double *pixels)
{
  double top, mag, best = 0;
  const double steps[] = { 5, 2, 1 };

  if (!(metres_per_px > 0) || !isfinite (metres_per_px) || !(max_px >= 1))
    return FALSE;
  top = metres_per_px * max_px;
  mag = pow (10.0, floor (log10 (top)));
  for (guint i = 0; i < G_N_ELEMENTS (steps) && best == 0; i++)
    if (steps[i] * mag <= top * (1 + 1e-12))
      best = steps[i] * mag;
  if (best == 0)
    best = 5 * mag / 10;
  *metres = best;
  *pixels = best / metres_per_px;
  return TRUE;
}

char *
ef_scale_bar_label (double metres)
{
  /* Round lengths only: %g keeps "0.5" and "20" as they are. */
  if (metres >= 1000)
    return g_strdup_printf (_("%g km"), metres / 1000);
  if (metres >= 1)
    return g_strdup_printf (_("%g m"), metres);
  if (metres >= 0.01)
    return g_strdup_printf (_("%g cm"), metres * 100);
  return g_strdup_printf (_("%g mm"), metres * 1000);
}

static PangoLayout *
layout_new (cairo_t *cr, const char *text)
{
  PangoLayout *layout = pango_cairo_create_layout (cr);
  PangoFontDescription *font = pango_font_description_from_string (FONT);

  pango_layout_set_font_description (layout, font);
  pango_font_description_free (font);
  pango_layout_set_text (layout, text, -1);
  return layout;
}

void
ef_annotate_text_size (cairo_t *cr, const char *text, int *width, int *height)
{
  g_autoptr (PangoLayout) layout = layout_new (cr, text);

  pango_layout_get_pixel_size (layout, width, height);
}

void
ef_annotate_text (cairo_t *cr, const char *text, double x, double y, double align, const double rgb[3])
{
  g_autoptr (PangoLayout) layout = layout_new (cr, text);
  int w, h;

  pango_layout_get_pixel_size (layout, &w, &h);
  cairo_set_source_rgb (cr, rgb[0], rgb[1], rgb[2]);
  cairo_move_to (cr, round (x - align * w), round (y));
  pango_cairo_show_layout (cr, layout);
}

void
ef_draw_scale_bar (cairo_t *cr, double x, double y, double pixels, const char *label, const double rgb[3])
{
  int w, h;

  ef_annotate_text_size (cr, label, &w, &h);
  ef_annotate_text (cr, label, x + 0.5 * pixels, y - h - 2, 0.5, rgb);
  cairo_set_source_rgb (cr, rgb[0], rgb[1], rgb[2]);
  cairo_rectangle (cr, x, y, pixels, EF_SCALE_BAR_HEIGHT);
  cairo_fill (cr);
}

void
ef_draw_north_arrow (cairo_t *cr, double cx, double cy, double size, double nx, double ny, const double rgb[3])
{
  double n = hypot (nx, ny), ux, uy, tipx, tipy;
  int w, h;

  if (!(n > 0))
    return;
  ux = nx / n;
  uy = ny / n;
  tipx = cx + 0.5 * size * ux;
  tipy = cy + 0.5 * size * uy;
  cairo_set_source_rgb (cr, rgb[0], rgb[1], rgb[2]);
  cairo_set_line_width (cr, 2);
  cairo_move_to (cr, cx - 0.5 * size * ux, cy - 0.5 * size * uy);
  cairo_line_to (cr, tipx - 6 * ux, tipy - 6 * uy);
  cairo_stroke (cr);
  /* The head: a triangle whose tip is the arrow's. */
  cairo_move_to (cr, tipx, tipy);
  cairo_line_to (cr, tipx - 10 * ux - 5 * uy, tipy - 10 * uy + 5 * ux);
  cairo_line_to (cr, tipx - 10 * ux + 5 * uy, tipy - 10 * uy - 5 * ux);
  cairo_close_path (cr);
  cairo_fill (cr);
  ef_annotate_text_size (cr, C_("compass", "N"), &w, &h);
  ef_annotate_text (cr, C_("compass", "N"), tipx + 9 * ux, tipy + 9 * uy - 0.5 * h, 0.5, rgb);
}

void
ef_draw_colour_bar (cairo_t *cr, double x, double y, double w, double h, const EfDisplayParams *params,
                    const double rgb[3])
{
  guint8 table[EF_COLORMAP_LUT_SIZE * 4];
  double span = params->db_max - params->db_min, step, first;
  cairo_pattern_t *grad;

  if (!(span > 0) || !(w > 2))
    return;
  ef_display_table_fill (params->colormap, params->gamma, table, EF_COLORMAP_LUT_SIZE);
  grad = cairo_pattern_create_linear (x, 0, x + w, 0);
  for (guint i = 0; i < EF_COLORMAP_LUT_SIZE; i++)
    cairo_pattern_add_color_stop_rgb (grad, i / (double) (EF_COLORMAP_LUT_SIZE - 1), table[4 * i] / 255.0,
                                      table[4 * i + 1] / 255.0, table[4 * i + 2] / 255.0);
  cairo_set_source (cr, grad);
  cairo_rectangle (cr, x, y, w, h);
  cairo_fill (cr);
  cairo_pattern_destroy (grad);

  cairo_set_source_rgb (cr, rgb[0], rgb[1], rgb[2]);
  cairo_set_line_width (cr, 1);
  cairo_rectangle (cr, x + 0.5, y + 0.5, w - 1, h - 1);
  cairo_stroke (cr);
  step = ef_nice_step (span, 5);
  first = ceil (params->db_min / step - 1e-9) * step;
  for (double v = first; v <= params->db_max + 1e-9 * step; v += step)
    {
      double px = x + (v - params->db_min) / span * w;
      g_autofree char *text = g_strdup_printf ("%g", fabs (v) < 1e-9 * step ? 0.0 : v);

      cairo_set_source_rgb (cr, rgb[0], rgb[1], rgb[2]);
      cairo_move_to (cr, round (px) + 0.5, y + h);
      cairo_line_to (cr, round (px) + 0.5, y + h + 4);
      cairo_stroke (cr);
      ef_annotate_text (cr, text, px, y + h + 5, 0.5, rgb);
    }
}
