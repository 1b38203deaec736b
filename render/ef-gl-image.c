/* ef-gl-image.c: complex image textures: tiling, sub-rectangle uploads and the coverage mask. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-gl-image"
#include "config.h"

#include <epoxy/gl.h>
#include <string.h>

#include "ef-error.h"
#include "ef-gl-image.h"

struct _EfGlImage {
  guint     width, height;
  EfGlImageFormat format;
  EfViewMode mode;        /* what a VALUE image holds */
  float    *values;       /* owned: conversion buffer of a VALUE upload */
  gsize     values_len;
  GArray   *tiles;        /* owned, EfGlTile */
  guint     cells_w, cells_h;
  guint8   *mask;         /* owned, cells_w * cells_h */
  guint     mask_texture; /* owned GL name */
  gboolean  mask_dirty;
  guint     n_valid;
};

static void
set_texture_params (void)
{
  /* Nearest: a SAR pixel is a sample of a complex field; interpolating re/im between samples would
   * invent interference. The shader averages power itself when zoomed out. */
  glTexParameteri (GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTexParameteri (GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  glTexParameteri (GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
  glTexParameteri (GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
}

EfGlImage *
ef_gl_image_new (guint width, guint height, guint max_tile, GError **error)
{
  return ef_gl_image_new_with_format (width, height, max_tile, EF_GL_IMAGE_COMPLEX, EF_VIEW_MAGNITUDE, error);
}

EfGlImage *
ef_gl_image_new_with_format (guint width, guint height, guint max_tile, EfGlImageFormat format, EfViewMode mode,
                             GError **error)
{
  gboolean value = format == EF_GL_IMAGE_VALUE;
  g_autoptr (GArray) tiles = NULL;
  EfGlImage *self;
  GLint gl_max = 0;
  GLenum err;

  g_return_val_if_fail (width > 0 && height > 0, NULL);

  while (glGetError () != GL_NO_ERROR)
    ;
  glGetIntegerv (GL_MAX_TEXTURE_SIZE, &gl_max);
  if (gl_max <= 0)
    gl_max = 2048;
  if (max_tile == 0 || max_tile > (guint) gl_max)
    max_tile = (guint) gl_max;

  tiles = g_array_new (FALSE, TRUE, sizeof (EfGlTile));
  for (guint y = 0; y < height; y += max_tile)
    for (guint x = 0; x < width; x += max_tile)
      {
        EfGlTile t = { x, y, MIN (max_tile, width - x), MIN (max_tile, height - y), 0 };

        glGenTextures (1, &t.texture);
        glBindTexture (GL_TEXTURE_2D, t.texture);
        set_texture_params ();
        /* Storage only; cells are drawn once uploaded, so the contents need no clearing. */
        glTexImage2D (GL_TEXTURE_2D, 0, value ? GL_R32F : GL_RG32F, (GLsizei) t.width, (GLsizei) t.height, 0,
                      value ? GL_RED : GL_RG, GL_FLOAT, NULL);
        g_array_append_val (tiles, t);
      }

  self = g_new0 (EfGlImage, 1);
  self->width = width;
  self->height = height;
  self->format = value ? EF_GL_IMAGE_VALUE : EF_GL_IMAGE_COMPLEX;
  self->mode = mode;
  self->tiles = g_steal_pointer (&tiles);
  self->cells_w = (width + EF_GL_IMAGE_CELL - 1) / EF_GL_IMAGE_CELL;
  self->cells_h = (height + EF_GL_IMAGE_CELL - 1) / EF_GL_IMAGE_CELL;
  self->mask = g_malloc0 ((gsize) self->cells_w * self->cells_h);
  glGenTextures (1, &self->mask_texture);
  glBindTexture (GL_TEXTURE_2D, self->mask_texture);
  glTexParameteri (GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTexParameteri (GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  glTexParameteri (GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
  glTexParameteri (GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
  glPixelStorei (GL_UNPACK_ALIGNMENT, 1);
  glTexImage2D (GL_TEXTURE_2D, 0, GL_R8, (GLsizei) self->cells_w, (GLsizei) self->cells_h, 0, GL_RED,
                GL_UNSIGNED_BYTE, self->mask);
  glPixelStorei (GL_UNPACK_ALIGNMENT, 4);
  glBindTexture (GL_TEXTURE_2D, 0);

  err = glGetError ();
  if (err != GL_NO_ERROR)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_MEMORY,
                   "The graphics driver could not make a %u × %u image texture (GL error 0x%04x)", width,
                   height, err);
      ef_gl_image_free (self);
      return NULL;
    }
  return self;
}

void
ef_gl_image_free (EfGlImage *self)
{
  if (self == NULL)
    return;
  for (guint i = 0; i < self->tiles->len; i++)
    {
      EfGlTile *t = &g_array_index (self->tiles, EfGlTile, i);
      if (t->texture != 0)
        glDeleteTextures (1, &t->texture);
    }
  if (self->mask_texture != 0)
    glDeleteTextures (1, &self->mask_texture);
  g_array_unref (self->tiles);
  g_free (self->mask);
  g_free (self->values);
  g_free (self);
}

guint
ef_gl_image_get_width (const EfGlImage *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return self->width;
}

guint
ef_gl_image_get_height (const EfGlImage *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return self->height;
}

EfGlImageFormat
ef_gl_image_get_format (const EfGlImage *self)
{
  g_return_val_if_fail (self != NULL, EF_GL_IMAGE_COMPLEX);
  return self->format;
}

EfViewMode
ef_gl_image_get_view_mode (const EfGlImage *self)
{
  g_return_val_if_fail (self != NULL, EF_VIEW_MAGNITUDE);
  return self->mode;
}

void
ef_gl_image_set_view_mode (EfGlImage *self, EfViewMode mode)
{
  g_return_if_fail (self != NULL);
  if (self->format != EF_GL_IMAGE_VALUE || self->mode == mode)
    return;
  self->mode = mode;
  /* What the textures hold is the other quantity: drawing it with the new mapping would flash
   * nonsense until it comes again. */
  ef_gl_image_reset_mask (self);
}

const guint8 *
ef_gl_image_get_mask (const EfGlImage *self, guint *cells_w, guint *cells_h)
{
  g_return_val_if_fail (self != NULL, NULL);
  if (cells_w != NULL)
    *cells_w = self->cells_w;
  if (cells_h != NULL)
    *cells_h = self->cells_h;
  return self->mask;
}

guint
ef_gl_image_get_n_tiles (const EfGlImage *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return self->tiles->len;
}

const EfGlTile *
ef_gl_image_get_tile (const EfGlImage *self, guint i)
{
  g_return_val_if_fail (self != NULL && i < self->tiles->len, NULL);
  return &g_array_index (self->tiles, EfGlTile, i);
}

guint
ef_gl_image_get_mask_texture (EfGlImage *self)
{
  g_return_val_if_fail (self != NULL, 0);
  if (self->mask_dirty)
    {
      glBindTexture (GL_TEXTURE_2D, self->mask_texture);
      glPixelStorei (GL_UNPACK_ALIGNMENT, 1);
      glTexSubImage2D (GL_TEXTURE_2D, 0, 0, 0, (GLsizei) self->cells_w, (GLsizei) self->cells_h, GL_RED,
                       GL_UNSIGNED_BYTE, self->mask);
      glPixelStorei (GL_UNPACK_ALIGNMENT, 4);
      glBindTexture (GL_TEXTURE_2D, 0);
      self->mask_dirty = FALSE;
    }
  return self->mask_texture;
}

void
ef_gl_image_get_mask_scale (const EfGlImage *self, float scale[2])
{
  scale[0] = 1.0f / (float) (self->cells_w * EF_GL_IMAGE_CELL);
  scale[1] = 1.0f / (float) (self->cells_h * EF_GL_IMAGE_CELL);
}

/* Writes a rectangle of texels (GL_RED floats for a VALUE image, GL_RG for a COMPLEX one) into every
 * tile it touches. */
static void
write_texels (EfGlImage *self, const EfRect *rect, GLenum format, const void *data, gsize texel_size)
{
  guint x1 = rect->x + rect->width, y1 = rect->y + rect->height;

  glPixelStorei (GL_UNPACK_ROW_LENGTH, (GLint) rect->width);
  for (guint i = 0; i < self->tiles->len; i++)
    {
      const EfGlTile *t = &g_array_index (self->tiles, EfGlTile, i);
      guint ix0 = MAX (rect->x, t->x), iy0 = MAX (rect->y, t->y);
      guint ix1 = MIN (x1, t->x + t->width), iy1 = MIN (y1, t->y + t->height);
      gsize offset;

      if (ix0 >= ix1 || iy0 >= iy1)
        continue;
      offset = (gsize) (iy0 - rect->y) * rect->width + (ix0 - rect->x);
      glBindTexture (GL_TEXTURE_2D, t->texture);
      glTexSubImage2D (GL_TEXTURE_2D, 0, (GLint) (ix0 - t->x), (GLint) (iy0 - t->y), (GLsizei) (ix1 - ix0),
                       (GLsizei) (iy1 - iy0), format, GL_FLOAT, (const guint8 *) data + offset * texel_size);
    }
  glPixelStorei (GL_UNPACK_ROW_LENGTH, 0);
  glBindTexture (GL_TEXTURE_2D, 0);
  ef_gl_image_mark_arrived (self, rect);
}

void
ef_gl_image_upload (EfGlImage *self, const EfRect *rect, const EfCf32 *pixels)
{
  gsize n;

  g_return_if_fail (self != NULL && rect != NULL && pixels != NULL);
  g_return_if_fail (rect->x + rect->width <= self->width && rect->y + rect->height <= self->height);

  n = (gsize) rect->width * rect->height;
  if (self->format != EF_GL_IMAGE_VALUE)
    {
      write_texels (self, rect, GL_RG, pixels, sizeof (EfCf32));
      return;
    }
  if (n > self->values_len)
    {
      g_free (self->values);
      self->values = g_new (float, n);
      self->values_len = n;
    }
  ef_display_values_convert (self->mode, pixels, self->values, n);
  write_texels (self, rect, GL_RED, self->values, sizeof (float));
}

void
ef_gl_image_upload_values (EfGlImage *self, const EfRect *rect, const float *values)
{
  g_return_if_fail (self != NULL && rect != NULL && values != NULL);
  g_return_if_fail (self->format == EF_GL_IMAGE_VALUE);
  g_return_if_fail (rect->x + rect->width <= self->width && rect->y + rect->height <= self->height);
  write_texels (self, rect, GL_RED, values, sizeof (float));
}

void
ef_gl_image_mark_arrived (EfGlImage *self, const EfRect *rect)
{
  guint x1, y1;

  g_return_if_fail (self != NULL && rect != NULL);
  x1 = MIN (rect->x + rect->width, self->width);
  y1 = MIN (rect->y + rect->height, self->height);
  /* A cell counts as arrived once any write has touched it: writes come in whole cells. */
  for (guint cy = rect->y / EF_GL_IMAGE_CELL; cy * EF_GL_IMAGE_CELL < y1 && cy < self->cells_h; cy++)
    for (guint cx = rect->x / EF_GL_IMAGE_CELL; cx * EF_GL_IMAGE_CELL < x1 && cx < self->cells_w; cx++)
      {
        guint8 *m = &self->mask[(gsize) cy * self->cells_w + cx];
        if (*m == 0)
          {
            *m = 255;
            self->n_valid++;
            self->mask_dirty = TRUE;
          }
      }
}

void
ef_gl_image_reset_mask (EfGlImage *self)
{
  g_return_if_fail (self != NULL);
  memset (self->mask, 0, (gsize) self->cells_w * self->cells_h);
  self->n_valid = 0;
  self->mask_dirty = TRUE;
}

guint
ef_gl_image_get_n_valid_cells (const EfGlImage *self)
{
  g_return_val_if_fail (self != NULL, 0);
  return self->n_valid;
}
