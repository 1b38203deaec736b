/* ef-gl-image.h: a complex image held in OpenGL textures, split into tiles past GL_MAX_TEXTURE_SIZE. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>
#include "ef-colormap.h"
#include "ef-types.h"

G_BEGIN_DECLS

/* The image is uploaded in square cells of this many pixels; a cell is drawn once it has arrived, so
 * that what lies underneath shows through until then. */
#define EF_GL_IMAGE_CELL 128

typedef struct _EfGlImage EfGlImage;

/* What the textures hold. COMPLEX: the complex pixels themselves (RG32F), as CUDA writes them and as
 * the shader that takes magnitude, phase or parts reads them. VALUE: one float a pixel, already the
 * quantity that the view mode shows (magnitude in dB, phase as a fraction of a turn in [0, 1], real or
 * imaginary part), converted at upload so that a frame only maps it through the dB window and the
 * colour table: the fragment work that software rasterisers pay for every pixel of every frame. */
typedef enum {
  EF_GL_IMAGE_COMPLEX,
  EF_GL_IMAGE_VALUE,
} EfGlImageFormat;

typedef struct {
  guint    x, y, width, height;   /* pixels of the image this texture holds */
  guint    texture;               /* GL name: RG32F (complex) or R32F (value) */
} EfGlTile;

/* Creates the textures for a width x height complex image (RG32F). max_tile limits a texture's edge
 * (0 = GL_MAX_TEXTURE_SIZE). The GL context must be current; the object belongs to that context.
 * Returns NULL with error when the driver refuses. */
EfGlImage *ef_gl_image_new (guint width, guint height, guint max_tile, GError **error);
/* The same, holding format; mode says what a VALUE image holds (ignored for COMPLEX). */
EfGlImage *ef_gl_image_new_with_format (guint width, guint height, guint max_tile, EfGlImageFormat format,
                                        EfViewMode mode, GError **error);
/* Deletes the textures; the context they were made in must be current. */
void       ef_gl_image_free (EfGlImage *image);

guint          ef_gl_image_get_width (const EfGlImage *image);
guint          ef_gl_image_get_height (const EfGlImage *image);
EfGlImageFormat ef_gl_image_get_format (const EfGlImage *image);
EfViewMode     ef_gl_image_get_view_mode (const EfGlImage *image);
/* Makes a VALUE image hold another quantity: every cell becomes not arrived, and must be uploaded
 * again. Does nothing if the mode is the same, or for a COMPLEX image. */
void           ef_gl_image_set_view_mode (EfGlImage *image, EfViewMode mode);
/* The coverage mask in host memory, cells_w x cells_h row-major, non-zero where a cell has arrived;
 * borrowed, valid until the next call that changes the image. */
const guint8  *ef_gl_image_get_mask (const EfGlImage *image, guint *cells_w, guint *cells_h);
guint          ef_gl_image_get_n_tiles (const EfGlImage *image);
const EfGlTile *ef_gl_image_get_tile (const EfGlImage *image, guint i);
/* The coverage mask: one R8 texel per cell, 255 once the cell has arrived. */
guint          ef_gl_image_get_mask_texture (EfGlImage *image);
void           ef_gl_image_get_mask_scale (const EfGlImage *image, float scale[2]);

/* Uploads a rectangle of complex float pixels (rect->width * rect->height, row-major) with
 * glTexSubImage2D, splitting it across tiles, and marks the cells it covers as arrived. A VALUE image
 * converts the pixels to its view mode's quantity first. */
void ef_gl_image_upload (EfGlImage *image, const EfRect *rect, const EfCf32 *pixels);
/* Uploads a rectangle of display values already computed for the image's view mode
 * (ef_display_values_convert), so that nothing is converted here. VALUE images only. */
void ef_gl_image_upload_values (EfGlImage *image, const EfRect *rect, const float *values);
/* Marks the cells that rect touches as arrived, for textures written by other means (CUDA). */
void ef_gl_image_mark_arrived (EfGlImage *image, const EfRect *rect);
/* Marks every cell as not yet arrived (a new job over the same grid). */
void ef_gl_image_reset_mask (EfGlImage *image);
/* Number of cells that have arrived. */
guint ef_gl_image_get_n_valid_cells (const EfGlImage *image);

G_END_DECLS
