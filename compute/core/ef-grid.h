/* ef-grid.h: the output image grid (region of interest) and the complex accumulator. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "ef-types.h"

G_BEGIN_DECLS

/* Pixel (col, row) sits at origin + col * spacing * u + row * spacing * v. u and v are orthonormal. */
struct _EfGrid {
  double origin[3];  /* centre of pixel (0, 0), scene frame, m */
  double u[3];       /* unit vector along a row (increasing column) */
  double v[3];       /* unit vector down a column (increasing row) */
  double spacing;    /* m */
  guint  width;      /* columns */
  guint  height;     /* rows */
};

/* A ground-plane grid (z = 0) covering [x0, x1] x [y0, y1], north up: row 0 is the largest y.
 * Returns FALSE with error when the box is empty, the spacing is not positive or the size is absurd. */
gboolean ef_grid_init_roi (EfGrid *grid, double x0, double y0, double x1, double y1, double spacing,
                           GError **error);
void     ef_grid_pixel_position (const EfGrid *grid, double col, double row, double out[3]);
/* Fractional (col, row) of a scene point projected onto the grid plane. */
void     ef_grid_position_to_pixel (const EfGrid *grid, const double pos[3], double *col, double *row);
gsize    ef_grid_n_pixels (const EfGrid *grid);

struct _EfImage {
  EfGrid  grid;
  EfCf32 *data;   /* owned, width * height, row-major, 64-byte aligned */
};

EfImage *ef_image_new (const EfGrid *grid, GError **error);  /* zeroed; NULL if too large */
void     ef_image_free (EfImage *image);
void     ef_image_clear (EfImage *image);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (EfImage, ef_image_free)

/* 64-byte aligned allocation for SIMD and DMA (buffers of 4 MB and more: huge-page aligned, and backed by
 * huge pages where the system allows); NULL on failure (never aborts). ef_aligned_alloc leaves the
 * memory uninitialised, ef_aligned_alloc0 zeroes it. Freed with ef_aligned_free. */
gpointer ef_aligned_alloc (gsize size);
gpointer ef_aligned_alloc0 (gsize size);
void     ef_aligned_free (gpointer p);

G_END_DECLS
