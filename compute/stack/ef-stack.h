/* ef-stack.h: a stack of co-registered complex images from repeat passes, kept on disk in tiles. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <json-glib/json-glib.h>

#include "ef-types.h"
#include "ef-grid.h"
#include "ef-job.h"

G_BEGIN_DECLS

/*
 * A stack is a folder:
 *   DIR/stack.json               the index (json-glib): "format": "echoform-stack", "version": 1,
 *                                "width", "height", "tile" (edge, pixels), "grid" {"origin", "u", "v",
 *                                "spacing"}, "wavelength", "range", "incidence_deg", and "passes": one
 *                                object a pass, in order: {"t_years", "bperp", "source", "formed"}
 *                                ("formed": what formed it, as a formed image's sidecar "extra", or null)
 *   DIR/tiles/R-C/K.npy          pass K's tile at tile row R, tile column C: complex64, (rows, columns),
 *                                with the tile's own .json sidecar (its grid) beside it
 * Tile (R, C) holds rows [R tile, (R + 1) tile) and columns [C tile, (C + 1) tile), clipped at the
 * image's edge. Every pass is formed on one grid, so pixel (col, row) is the same ground point in every
 * pass: the stack is co-registered by construction. Tiles are read memory-mapped, so a stack larger
 * than memory is read a region at a time.
 */

typedef struct _EfStack EfStack;

/* What the time-series estimators need to know of the acquisitions. */
typedef struct {
  double wavelength;      /* m */
  double range;           /* slant range to the scene, m */
  double incidence_deg;   /* theta */
} EfStackGeometry;

/* Starts a new, empty stack in dir (created; it must not hold a stack already). tile: 16 .. 65536.
 * Returns an owned stack to add passes to, or NULL with error. Blocks for the file system. */
EfStack *ef_stack_create (const char *dir, const EfGrid *grid, guint tile, const EfStackGeometry *geometry,
                          GError **error);
/* Opens the stack in dir, checking its index; tiles are mapped when first used. Owned, or NULL with
 * error (EF_IO_ERROR) for a missing or malformed index. Blocks for the file system. */
EfStack *ef_stack_open (const char *dir, GError **error);
void     ef_stack_free (EfStack *stack);

/* Adds image (on the stack's grid) as the next pass: writes its tiles, then the index (atomically).
 * formed (may be NULL) is kept as the pass's "formed" member. Blocks for the writes. */
gboolean ef_stack_add_pass (EfStack *stack, const EfImage *image, double t_years, double bperp,
                            const char *source, JsonObject *formed, GError **error);

/* Forms dataset with params (whose grid must be the stack's) through the progressive job on the calling
 * thread and adds the image as the next pass, with what ran recorded under "formed". Blocks. */
gboolean ef_stack_form_pass (EfStack *stack, EfDataset *dataset, const EfJobParams *params, double t_years,
                             double bperp, const char *source, GError **error);

const EfGrid          *ef_stack_get_grid (EfStack *stack);
const EfStackGeometry *ef_stack_get_geometry (EfStack *stack);
guint                  ef_stack_get_tile (EfStack *stack);
guint                  ef_stack_get_n_passes (EfStack *stack);
/* Pass k's date (years) and perpendicular baseline (m); its source (borrowed). */
double                 ef_stack_get_t_years (EfStack *stack, guint k);
double                 ef_stack_get_bperp (EfStack *stack, guint k);
const char            *ef_stack_get_source (EfStack *stack, guint k);

/* Pass k's tile (tile_row, tile_col), memory-mapped: borrowed, valid while the stack is; its size in
 * *width, *height. NULL with error when the file is missing, truncated or not the size the index says.
 * Thread-safe; blocks only to map the file the first time. */
const EfCf32 *ef_stack_map_tile (EfStack *stack, guint k, guint tile_row, guint tile_col, guint *width,
                                 guint *height, GError **error);
/* Unmaps every tile mapped so far, invalidating the pointers ef_stack_map_tile returned. A reader that
 * walks a large stack a strip at a time calls it after each strip: every tile of every pass would
 * otherwise stay mapped, and a large stack has more tiles than a process may map (vm.max_map_count).
 * Thread-safe; must not run while another thread uses a mapped tile. */
void ef_stack_unmap (EfStack *stack);

/* Copies passes [k0, k0 + n) of rect (inside the image) into out, pass-major: out[(k - k0) * rect->width *
 * rect->height + row * rect->width + col]. Thread-safe; blocks for page faults. */
gboolean ef_stack_read_region (EfStack *stack, const EfRect *rect, guint k0, guint n, EfCf32 *out,
                               GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (EfStack, ef_stack_free)

G_END_DECLS
