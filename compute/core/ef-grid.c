/* ef-grid.c: the ROI grid and the complex image accumulator. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-grid"
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef __linux__
#include <sys/mman.h>
#endif

#include "ef-error.h"
#include "ef-grid.h"

/* 2^28 pixels (2 GiB of complex float) is far past any screen and keeps sizes in 32 bits. */
#define EF_GRID_MAX_PIXELS (G_GUINT64_CONSTANT (1) << 28)
#define EF_GRID_MAX_EDGE 65536

gboolean
ef_grid_init_roi (EfGrid *grid, double x0, double y0, double x1, double y1, double spacing, GError **error)
{
  double w, h;
  guint64 nw, nh;

  g_return_val_if_fail (grid != NULL, FALSE);

  if (!isfinite (x0) || !isfinite (y0) || !isfinite (x1) || !isfinite (y1) || !isfinite (spacing))
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT, "The ROI has a non-finite coordinate");
      return FALSE;
    }
  if (!(spacing > 0))
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "The pixel spacing must be positive (got %g m)", spacing);
      return FALSE;
    }
  w = fabs (x1 - x0);
  h = fabs (y1 - y0);
  if (w <= 0 || h <= 0)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "The ROI %g,%g,%g,%g is empty", x0, y0, x1, y1);
      return FALSE;
    }
  if (w / spacing > EF_GRID_MAX_EDGE || h / spacing > EF_GRID_MAX_EDGE)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "The ROI is %.0f x %.0f pixels; the largest edge is %d pixels", w / spacing, h / spacing,
                   EF_GRID_MAX_EDGE);
      return FALSE;
    }
  nw = (guint64) MAX (1.0, floor (w / spacing + 0.5));
  nh = (guint64) MAX (1.0, floor (h / spacing + 0.5));
  if (nw * nh > EF_GRID_MAX_PIXELS)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "The ROI has %" G_GUINT64_FORMAT " pixels; the most is %" G_GUINT64_FORMAT,
                   nw * nh, EF_GRID_MAX_PIXELS);
      return FALSE;
    }

  memset (grid, 0, sizeof *grid);
  grid->width = (guint) nw;
  grid->height = (guint) nh;
  grid->spacing = spacing;
  grid->u[0] = 1.0;
  grid->v[1] = -1.0;
  /* Centre the pixel lattice on the box so that the ROI's centre is the image centre. */
  grid->origin[0] = 0.5 * (x0 + x1) - 0.5 * (double) (nw - 1) * spacing;
  grid->origin[1] = 0.5 * (y0 + y1) + 0.5 * (double) (nh - 1) * spacing;
  grid->origin[2] = 0.0;
  return TRUE;
}

void
ef_grid_pixel_position (const EfGrid *grid, double col, double row, double out[3])
{
  for (int i = 0; i < 3; i++)
    out[i] = grid->origin[i] + col * grid->spacing * grid->u[i] + row * grid->spacing * grid->v[i];
}

void
ef_grid_position_to_pixel (const EfGrid *grid, const double pos[3], double *col, double *row)
{
  double d[3] = { pos[0] - grid->origin[0], pos[1] - grid->origin[1], pos[2] - grid->origin[2] };

  *col = (d[0] * grid->u[0] + d[1] * grid->u[1] + d[2] * grid->u[2]) / grid->spacing;
  *row = (d[0] * grid->v[0] + d[1] * grid->v[1] + d[2] * grid->v[2]) / grid->spacing;
}

gsize
ef_grid_n_pixels (const EfGrid *grid)
{
  return (gsize) grid->width * grid->height;
}

/* Buffers this large start on a huge page, and the kernel is asked to back them with huge pages (it does
 * where transparent huge pages are in madvise mode, Debian's default): the first touch of a block of
 * range profiles (2048 pulses x 8192 bins, 134 MB) otherwise takes 33,000 page faults. */
#define HUGE_MIN ((gsize) 4 << 20)
#define HUGE_PAGE ((gsize) 2 << 20)

gpointer
ef_aligned_alloc (gsize size)
{
  void *p = NULL;
  gsize align = size >= HUGE_MIN ? HUGE_PAGE : 64;

  if (size == 0)
    size = 64;
  if (posix_memalign (&p, align, size) != 0)
    return NULL;
#ifdef MADV_HUGEPAGE
  /* Advice only: without huge pages the buffer works the same. */
  if (size >= HUGE_MIN)
    (void) madvise (p, size & ~(HUGE_PAGE - 1), MADV_HUGEPAGE);
#endif
  return p;
}

gpointer
ef_aligned_alloc0 (gsize size)
{
  void *p = ef_aligned_alloc (size);

  if (p != NULL)
    memset (p, 0, size == 0 ? 64 : size);
  return p;
}

void
ef_aligned_free (gpointer p)
{
  free (p);
}

EfImage *
ef_image_new (const EfGrid *grid, GError **error)
{
  EfImage *image;
  gsize n;

  g_return_val_if_fail (grid != NULL, NULL);

  n = ef_grid_n_pixels (grid);
  if (n == 0 || n > EF_GRID_MAX_PIXELS)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "An image of %u x %u pixels cannot be made", grid->width, grid->height);
      return NULL;
    }
  image = g_new0 (EfImage, 1);
  image->grid = *grid;
  image->data = ef_aligned_alloc0 (n * sizeof (EfCf32));
  if (image->data == NULL)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_MEMORY,
                   "Not enough memory for a %u x %u image", grid->width, grid->height);
      g_free (image);
      return NULL;
    }
  return image;
}

void
ef_image_free (EfImage *image)
{
  if (image == NULL)
    return;
  ef_aligned_free (image->data);
  g_free (image);
}

void
ef_image_clear (EfImage *image)
{
  memset (image->data, 0, ef_grid_n_pixels (&image->grid) * sizeof (EfCf32));
}
