/* ef-export-png.h: a formed image at full resolution as a dB PNG, with axes, scale bar, north arrow and colour bar. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>
#include "ef-colormap.h"
#include "ef-grid.h"

G_BEGIN_DECLS

/* Where things went in the file written. */
typedef struct {
  guint  width, height;      /* of the file, pixels */
  guint  image_x, image_y;   /* the image's first pixel */
  double scale_bar_m;        /* the scale bar's length, metres */
  double scale_bar_px;       /* and in the file's pixels: one per image pixel */
  char  *scale_bar_label;    /* owned: what it says */
} EfExportLayout;

void ef_export_layout_clear (EfExportLayout *layout);

/* Writes the grid's pixels, one file pixel each, as magnitude in dB (plus gain_db) through params' dB window,
 * colour map and gamma, with metre axes (for a north-up grid), a scale bar, a north arrow and a colour bar
 * in dB, and title above. Blocks (a large image takes a second or more): call it off the main thread.
 * layout (may be NULL) says where things went. FALSE with error if the image is too large for a PNG
 * canvas or the file cannot be written. */
gboolean ef_export_db_png (const EfCf32 *pixels, const EfGrid *grid, const EfDisplayParams *params, double gain_db,
                           const char *title, const char *path, EfExportLayout *layout, GError **error);

G_END_DECLS
