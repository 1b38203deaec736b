/* ef-image-io.h: writing formed images: .npy with a .json sidecar, float TIFF, dB PNG. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <json-glib/json-glib.h>

#include "ef-types.h"
#include "ef-grid.h"

G_BEGIN_DECLS

typedef struct {
  double db_min, db_max;   /* PNG: dynamic range; db_min >= db_max picks it from percentiles */
  double gamma;            /* PNG: 1 = linear in dB */
} EfPngOptions;

/* Each writer is atomic: it writes a temporary file in the same folder and renames it. extra (may be
 * NULL) is kept under "extra" in the .npy sidecar and in a TIFF's description (ef-sidecar.h): what
 * formed the image (ef_run_info_add_json). It is not changed. */
gboolean ef_image_write_npy (const EfImage *image, const char *path, JsonObject *extra, GError **error);
gboolean ef_image_write_tiff (const EfImage *image, const char *path, JsonObject *extra, GError **error);
gboolean ef_image_write_png (const EfImage *image, const char *path, const EfPngOptions *opts, GError **error);
/* Chooses the writer from the file name's extension; extra and png (may be NULL) as above. */
gboolean ef_image_write_full (const EfImage *image, const char *path, JsonObject *extra, const EfPngOptions *png,
                              GError **error);
gboolean ef_image_write (const EfImage *image, const char *path, GError **error);
/* Reads an image written by ef_image_write_npy back, with its grid from the sidecar (PATH.json). An array
 * without one has no known pixel size: EF_IO_ERROR_NO_GRID, unless spacing > 0 gives it (x to the right,
 * y up, origin 0). had_sidecar and extra (the sidecar's "extra", a new reference or NULL) may be NULL. */
EfImage *ef_image_read_npy_full (const char *path, double spacing, gboolean *had_sidecar, JsonObject **extra,
                                 GError **error);
/* The same with spacing 0. */
EfImage *ef_image_read_npy (const char *path, GError **error);

/* Where the complex64 array of a .npy file held in memory (a mapped file: bytes, len) starts: checks the
 * header as ef_image_read_npy does and that len holds the whole array. path names the file in messages.
 * Does not block. */
gboolean ef_npy_c8_view (const guint8 *bytes, gsize len, const char *path, guint64 *height, guint64 *width,
                         gsize *offset, GError **error);

/* Percentile-based dB range for display: [p_lo, p_hi] percentiles of 20 log10 |z| over non-zero pixels. */
void ef_image_db_range (const EfCf32 *data, gsize n, double p_lo, double p_hi, double *db_min, double *db_max);

G_END_DECLS
