/* ef-soft-draw.h: display values drawn on the processor into 32-bit pixels, as the value shader draws them. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* An image of display values (ef_display_values_convert), borrowed for one call. */
typedef struct {
  const float  *values;     /* height rows of stride floats */
  guint         width, height;
  gsize         stride;
  const guint8 *cell_mask;  /* cells_w x cells_h, non-zero where a cell of `cell` pixels has arrived; NULL:
                             * every cell has */
  guint         cells_w;
  guint         cell;
} EfSoftImage;

/* The image pixels under one output pixel, along columns and rows, for the affine map m (as below). */
void ef_soft_draw_footprint (const double m[6], double *fw_col, double *fw_row);

/* Draws image into out through the affine map m from image pixel coordinates (pixel (0,0)'s centre at
 * 0,0) to output pixel coordinates (the output's top-left corner at 0,0, so pixel centres at +0.5):
 * out = [m0 m1 m2; m3 m4 m5] * (col, row, 1). Each output pixel takes the value of the image pixel
 * under its centre, or, with average_db, the mean power of four taps a quarter of its footprint apart
 * (magnitude in dB zoomed out, as the shader does); t = clamp (value * scale + offset, 0, 1) picks
 * entry round (t * (n_table - 1)) of table (RGBA bytes from ef_display_table_fill). out holds out_h rows
 * of out_stride bytes of out_w pixels, written as native-endian 0xAARRGGBB words (cairo's ARGB32,
 * GDK_MEMORY_DEFAULT), opaque where the image is and transparent (0) outside it or in cells not arrived.
 * Any thread. */
void ef_soft_draw (const EfSoftImage *image, const double m[6], float scale, float offset,
                   const guint8 *table, guint n_table, gboolean average_db, guint8 *out, guint out_w,
                   guint out_h, gsize out_stride);

G_END_DECLS
