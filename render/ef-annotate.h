/* ef-annotate.h: scale bar, north arrow, colour bar and axis ticks, drawn with cairo for the view and exports. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <cairo.h>
#include <glib.h>
#include "ef-colormap.h"

G_BEGIN_DECLS

/* A round step (1, 2 or 5 × 10^k) that divides span into about n parts. */
double ef_nice_step (double span, int n);

/* The longest round length (1, 2 or 5 × 10^k metres) whose bar is at most max_px long at metres_per_px;
 * its length in pixels in *pixels. FALSE (and nothing set) for a scale that is not finite and positive. */
gboolean ef_scale_bar_choose (double metres_per_px, double max_px, double *metres, double *pixels);

/* A length as a scale bar says it: "50 cm", "2 m", "1.5 km"; owned. */
char *ef_scale_bar_label (double metres);

/* Draws a scale bar pixels long, its left end at (x, y), y its top, in rgb; its label above it. The bar is
 * EF_SCALE_BAR_HEIGHT tall and filled solid, from x to x + pixels. */
#define EF_SCALE_BAR_HEIGHT 6.0
void ef_draw_scale_bar (cairo_t *cr, double x, double y, double pixels, const char *label, const double rgb[3]);

/* A north arrow centred on (cx, cy), size pixels long, pointing along (nx, ny) in device coordinates
 * (y down), with an "N" beyond its tip. */
void ef_draw_north_arrow (cairo_t *cr, double cx, double cy, double size, double nx, double ny,
                          const double rgb[3]);

/* A horizontal colour bar of params' map from db_min to db_max in the box (x, y, w, h), with dB ticks and
 * values below it, in rgb. */
void ef_draw_colour_bar (cairo_t *cr, double x, double y, double w, double h, const EfDisplayParams *params,
                         const double rgb[3]);

/* A text's width and height in pixels with the annotations' font. */
void ef_annotate_text_size (cairo_t *cr, const char *text, int *width, int *height);
/* Draws text with its top left (align 0), centre (0.5) or right (1) at (x, y). */
void ef_annotate_text (cairo_t *cr, const char *text, double x, double y, double align, const double rgb[3]);

G_END_DECLS
