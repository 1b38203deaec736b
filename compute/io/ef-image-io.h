/* ef-image-io.h: writing formed images: .npy with a .json sidecar, float TIFF, dB PNG. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "ef-types.h"
#include "ef-grid.h"

G_BEGIN_DECLS

typedef struct {
  double db_min, db_max;   /* PNG: dynamic range; db_min >= db_max picks it from percentiles */
  double gamma;            /* PNG: 1 = linear in dB */
} EfPngOptions;

/* Each writer is atomic: it writes a temporary file in the same folder and renames it. */
gboolean ef_image_write_npy (const EfImage *image, const char *path, const char *extra_json, GError **error);
gboolean ef_image_write_tiff (const EfImage *image, const char *path, GError **error);
gboolean ef_image_write_png (const EfImage *image, const char *path, const EfPngOptions *opts, GError **error);
/* Chooses the writer from the file name's extension. */
gboolean ef_image_write (const EfImage *image, const char *path, GError **error);
/* Reads an image written by ef_image_write_npy back, with its grid from the sidecar. */
EfImage *ef_image_read_npy (const char *path, GError **error);

/* Percentile-based dB range for display: [p_lo, p_hi] percentiles of 20 log10 |z| over non-zero pixels. */
void ef_image_db_range (const EfCf32 *data, gsize n, double p_lo, double p_hi, double *db_min, double *db_max);

G_END_DECLS
