/* ef-sidecar.h: the JSON that travels with a formed image: its grid and what formed it (json-glib). */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <json-glib/json-glib.h>

#include "ef-types.h"
#include "ef-grid.h"

G_BEGIN_DECLS

/*
 * {"format": "echoform-image", "version": 1, "dtype": "complex64", "width": W, "height": H,
 *  "spacing": m, "origin": [x, y, z], "u": [..], "v": [..], "extra": {...}}
 *
 * The .npy sidecar (OUT.json next to OUT.npy) and a TIFF's ImageDescription hold it. Pixel (col, row)
 * lies at origin + spacing (col u + row v). "extra" is whatever the writer was given: for images formed
 * by Echoform, the parameters and the run record (ef_run_info_add_json). Numbers are written so that
 * every double reads back exactly, whatever the locale.
 */

/* The text, pretty-printed (with a final newline). extra may be NULL. Owned. */
char     *ef_sidecar_to_text (const EfGrid *grid, JsonObject *extra);
/* Parses text (len bytes, or -1 for a NUL-terminated string) naming it `name` in errors: the grid
 * (width, height and the geometry, checked: spacing > 0, u and v orthonormal) into grid, and "extra"
 * into *extra (new reference, NULL when absent; extra may be NULL). EF_IO_ERROR_FORMAT for malformed
 * JSON or missing fields, EF_IO_ERROR_INVALID_DATA for a grid that makes no sense. */
gboolean  ef_sidecar_parse (const char *text, gssize len, const char *name, EfGrid *grid, JsonObject **extra,
                            GError **error);
/* out.npy -> out.json; any other name gets .json appended. Owned. */
char     *ef_sidecar_path (const char *image_path);
/* TRUE when every coordinate of the grid is finite (a sidecar can hold it). */
gboolean  ef_sidecar_grid_is_finite (const EfGrid *grid);

G_END_DECLS
