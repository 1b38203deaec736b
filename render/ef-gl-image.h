/* ef-gl-image.h: a complex image held in OpenGL textures, split into tiles past GL_MAX_TEXTURE_SIZE. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>
#include "ef-types.h"

G_BEGIN_DECLS

/* The image is uploaded in square cells of this many pixels; a cell is drawn once it has arrived, so
 * that what lies underneath shows through until then. */
#define EF_GL_IMAGE_CELL 128

typedef struct _EfGlImage EfGlImage;

typedef struct {
  guint    x, y, width, height;   /* pixels of the image this texture holds */
  guint    texture;               /* GL name, RG32F */
} EfGlTile;

/* Creates the textures for a width x height complex image (RG32F). max_tile limits a texture's edge
 * (0 = GL_MAX_TEXTURE_SIZE). The GL context must be current; the object belongs to that context.
 * Returns NULL with error when the driver refuses. */
EfGlImage *ef_gl_image_new (guint width, guint height, guint max_tile, GError **error);
/* Deletes the textures; the context they were made in must be current. */
void       ef_gl_image_free (EfGlImage *image);

guint          ef_gl_image_get_width (const EfGlImage *image);
guint          ef_gl_image_get_height (const EfGlImage *image);
guint          ef_gl_image_get_n_tiles (const EfGlImage *image);
const EfGlTile *ef_gl_image_get_tile (const EfGlImage *image, guint i);
/* The coverage mask: one R8 texel per cell, 255 once the cell has arrived. */
guint          ef_gl_image_get_mask_texture (EfGlImage *image);
void           ef_gl_image_get_mask_scale (const EfGlImage *image, float scale[2]);

/* Uploads a rectangle of complex float pixels (rect->width * rect->height, row-major) with
 * glTexSubImage2D, splitting it across tiles, and marks the cells it covers as arrived. */
void ef_gl_image_upload (EfGlImage *image, const EfRect *rect, const EfCf32 *pixels);
/* Marks the cells that rect touches as arrived, for textures written by other means (CUDA). */
void ef_gl_image_mark_arrived (EfGlImage *image, const EfRect *rect);
/* Marks every cell as not yet arrived (a new job over the same grid). */
void ef_gl_image_reset_mask (EfGlImage *image);
/* Number of cells that have arrived. */
guint ef_gl_image_get_n_valid_cells (const EfGlImage *image);

G_END_DECLS
