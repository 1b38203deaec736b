/* ef-gl-renderer.c: shader programs, colour-map textures and the tile quad. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-gl-renderer"
#include "config.h"

#include <epoxy/gl.h>
#include <gio/gio.h>
#include <math.h>
#include <string.h>

#include "ef-error.h"
#include "ef-gl-renderer.h"

#define SHADER_PATH "/io/github/echoform/Echoform/shaders/"
/* Entries of the table that VALUE images are drawn through: enough that the gamma curve, steepest
 * at its dark end, stays within a few grey levels of pow () there after linear filtering. GL 3.2
 * guarantees textures of 1024 texels. */
#define DISPLAY_LUT_SIZE 1024

/* The programs that draw VALUE images: a precomputed value mapped through the display table. */
typedef struct {
  GLuint program;
  GLint  pix_to_ndc, tile_origin, tile_size, quad_origin, quad_size, data, lut, lut_map, scale, offset, tap;
} ValueProgram;

enum {
  VALUE_PLAIN,
  VALUE_AVERAGE_DB,   /* magnitude zoomed out: averages power over the pixel's footprint */
  N_VALUE_PROGRAMS
};

struct _EfGlRenderer {
  GLuint program;
  GLuint vao, vbo;
  GLuint lut[EF_COLORMAP_N];
  struct {
    GLint pix_to_ndc, tile_origin, tile_size, quad_origin, quad_size, data, mask, use_mask, lut, mask_scale, mode,
          db_min, db_max, inv_gamma, gain_db;
  } u;
  ValueProgram value[N_VALUE_PROGRAMS];  /* program 0 when made from sources without image-value.frag */
  GLuint       display_lut;        /* owned: colour map with the gamma applied, DISPLAY_LUT_SIZE x 1 */
  gboolean     display_lut_valid;
  EfColormap   display_lut_map;    /* what display_lut holds */
  double       display_lut_gamma;
  char *description;
};

/* defines (may be NULL) go right after the #version line, which must stay first. */
static GLuint
compile_shader (GLenum type, const char *name, GBytes *bytes, const char *defines, GError **error)
{
  const char *src, *body;
  const char *parts[3];
  GLint lens[3], n = 0, ok = 0;
  gsize size;
  GLuint shader;

  src = g_bytes_get_data (bytes, &size);
  body = src;
  if (defines != NULL && size > 8 && strncmp (src, "#version", 8) == 0)
    {
      const char *nl = memchr (src, '\n', size);
      body = nl != NULL ? nl + 1 : src + size;
      parts[n] = src;
      lens[n++] = (GLint) (body - src);
      parts[n] = defines;
      lens[n++] = (GLint) strlen (defines);
    }
  parts[n] = body;
  lens[n++] = (GLint) (size - (gsize) (body - src));

  shader = glCreateShader (type);
  glShaderSource (shader, n, parts, lens);
  glCompileShader (shader);
  glGetShaderiv (shader, GL_COMPILE_STATUS, &ok);
  if (!ok)
    {
      GLint log_len = 0;
      g_autofree char *log = NULL;

      glGetShaderiv (shader, GL_INFO_LOG_LENGTH, &log_len);
      log = g_malloc0 (MAX (log_len, 1) + 1);
      glGetShaderInfoLog (shader, log_len, NULL, log);
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_DEVICE, "Shader %s does not compile: %s", name,
                   log);
      glDeleteShader (shader);
      return 0;
    }
  return shader;
}

static GLuint
link_program (GBytes *vert, GBytes *frag, const char *frag_name, const char *frag_defines, GError **error)
{
  GLuint vs, fs, program;
  GLint ok = 0;

  vs = compile_shader (GL_VERTEX_SHADER, "image.vert", vert, NULL, error);
  if (vs == 0)
    return 0;
  fs = compile_shader (GL_FRAGMENT_SHADER, frag_name, frag, frag_defines, error);
  if (fs == 0)
    {
      glDeleteShader (vs);
      return 0;
    }
  program = glCreateProgram ();
  glAttachShader (program, vs);
  glAttachShader (program, fs);
  glBindAttribLocation (program, 0, "a_corner");
  glBindFragDataLocation (program, 0, "o_color");
  glLinkProgram (program);
  glDetachShader (program, vs);
  glDetachShader (program, fs);
  glDeleteShader (vs);
  glDeleteShader (fs);
  glGetProgramiv (program, GL_LINK_STATUS, &ok);
  if (!ok)
    {
      GLint log_len = 0;
      g_autofree char *log = NULL;

      glGetProgramiv (program, GL_INFO_LOG_LENGTH, &log_len);
      log = g_malloc0 (MAX (log_len, 1) + 1);
      glGetProgramInfoLog (program, log_len, NULL, log);
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_DEVICE, "The image shaders do not link: %s", log);
      glDeleteProgram (program);
      return 0;
    }
  return program;
}

EfGlRenderer *
ef_gl_renderer_new (GError **error)
{
  g_autoptr (GBytes) vert = NULL;
  g_autoptr (GBytes) frag = NULL;
  g_autoptr (GBytes) value_frag = NULL;
  EfGlRenderer *self;

  vert = g_resources_lookup_data (SHADER_PATH "image.vert", G_RESOURCE_LOOKUP_FLAGS_NONE, error);
  if (vert == NULL)
    return NULL;
  frag = g_resources_lookup_data (SHADER_PATH "image.frag", G_RESOURCE_LOOKUP_FLAGS_NONE, error);
  if (frag == NULL)
    return NULL;
  value_frag = g_resources_lookup_data (SHADER_PATH "image-value.frag", G_RESOURCE_LOOKUP_FLAGS_NONE, error);
  if (value_frag == NULL)
    return NULL;
  self = ef_gl_renderer_new_from_sources (vert, frag, error);
  if (self == NULL)
    return NULL;
  for (guint i = 0; i < N_VALUE_PROGRAMS; i++)
    {
      ValueProgram *v = &self->value[i];

      v->program = link_program (vert, value_frag, "image-value.frag",
                                 i == VALUE_AVERAGE_DB ? "#define EF_AVERAGE_DB 1\n" : "", error);
      if (v->program == 0)
        {
          ef_gl_renderer_free (self);
          return NULL;
        }
#define U(name) v->name = glGetUniformLocation (v->program, "u_" #name)
      U (pix_to_ndc);
      U (tile_origin);
      U (tile_size);
      U (quad_origin);
      U (quad_size);
      U (data);
      U (lut);
      U (lut_map);
      U (scale);
      U (offset);
      U (tap);
#undef U
    }
  return self;
}

EfGlRenderer *
ef_gl_renderer_new_from_sources (GBytes *vert, GBytes *frag, GError **error)
{
  static const float corners[] = { 0, 0, 1, 0, 0, 1, 1, 1 };
  EfGlRenderer *self;
  GLuint program;
  GLenum err;

  g_return_val_if_fail (vert != NULL && frag != NULL, NULL);

  while (glGetError () != GL_NO_ERROR)
    ;
  program = link_program (vert, frag, "image.frag", NULL, error);
  if (program == 0)
    return NULL;

  self = g_new0 (EfGlRenderer, 1);
  self->program = program;
#define U(name) self->u.name = glGetUniformLocation (program, "u_" #name)
  U (pix_to_ndc);
  U (tile_origin);
  U (tile_size);
  U (quad_origin);
  U (quad_size);
  U (data);
  U (mask);
  U (use_mask);
  U (lut);
  U (mask_scale);
  U (mode);
  U (db_min);
  U (db_max);
  U (inv_gamma);
  U (gain_db);
#undef U

  glGenVertexArrays (1, &self->vao);
  glBindVertexArray (self->vao);
  glGenBuffers (1, &self->vbo);
  glBindBuffer (GL_ARRAY_BUFFER, self->vbo);
  glBufferData (GL_ARRAY_BUFFER, sizeof corners, corners, GL_STATIC_DRAW);
  glEnableVertexAttribArray (0);
  glVertexAttribPointer (0, 2, GL_FLOAT, GL_FALSE, 2 * sizeof (float), NULL);
  glBindVertexArray (0);
  glBindBuffer (GL_ARRAY_BUFFER, 0);

  glGenTextures (EF_COLORMAP_N, self->lut);
  for (guint m = 0; m < EF_COLORMAP_N; m++)
    {
      guint8 rgba[EF_COLORMAP_LUT_SIZE * 4];

      ef_colormap_fill ((EfColormap) m, rgba);
      glBindTexture (GL_TEXTURE_2D, self->lut[m]);
      glTexParameteri (GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
      glTexParameteri (GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
      /* Repeat suits the cyclic map; the others never sample past their ends. */
      glTexParameteri (GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, m == EF_COLORMAP_CYCLIC ? GL_REPEAT : GL_CLAMP_TO_EDGE);
      glTexParameteri (GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
      glTexImage2D (GL_TEXTURE_2D, 0, GL_RGBA8, EF_COLORMAP_LUT_SIZE, 1, 0, GL_RGBA, GL_UNSIGNED_BYTE, rgba);
    }
  glGenTextures (1, &self->display_lut);
  glBindTexture (GL_TEXTURE_2D, self->display_lut);
  glTexParameteri (GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
  glTexParameteri (GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
  glTexParameteri (GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
  glTexParameteri (GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
  glTexImage2D (GL_TEXTURE_2D, 0, GL_RGBA8, DISPLAY_LUT_SIZE, 1, 0, GL_RGBA, GL_UNSIGNED_BYTE, NULL);
  glBindTexture (GL_TEXTURE_2D, 0);

  self->description = g_strdup_printf ("%s; %s", (const char *) glGetString (GL_RENDERER),
                                       (const char *) glGetString (GL_VERSION));
  err = glGetError ();
  if (err != GL_NO_ERROR)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_DEVICE,
                   "The graphics driver refused the image renderer's objects (GL error 0x%04x)", err);
      ef_gl_renderer_free (self);
      return NULL;
    }
  return self;
}

void
ef_gl_renderer_free (EfGlRenderer *self)
{
  if (self == NULL)
    return;
  if (self->program)
    glDeleteProgram (self->program);
  for (guint i = 0; i < N_VALUE_PROGRAMS; i++)
    if (self->value[i].program)
      glDeleteProgram (self->value[i].program);
  if (self->display_lut)
    glDeleteTextures (1, &self->display_lut);
  if (self->vbo)
    glDeleteBuffers (1, &self->vbo);
  if (self->vao)
    glDeleteVertexArrays (1, &self->vao);
  glDeleteTextures (EF_COLORMAP_N, self->lut);
  g_free (self->description);
  g_free (self);
}

const char *
ef_gl_renderer_describe (EfGlRenderer *self)
{
  g_return_val_if_fail (self != NULL, "");
  return self->description;
}

/* A COMPLEX image: the shader takes magnitude, phase or a part of every pixel, every frame. */
static void
draw_complex (EfGlRenderer *self, EfGlImage *image, const double m[6], const EfDisplayParams *params,
              double gain_db)
{
  /* Column-major 3x3 for GLSL. */
  const float mat[9] = {
    (float) m[0], (float) m[3], 0.0f,
    (float) m[1], (float) m[4], 0.0f,
    (float) m[2], (float) m[5], 1.0f,
  };
  float mask_scale[2];
  guint map = (guint) params->colormap < EF_COLORMAP_N ? (guint) params->colormap : 0;
  guint mask_tex, cells_w = 0, cells_h = 0;

  mask_tex = ef_gl_image_get_mask_texture (image);
  ef_gl_image_get_mask_scale (image, mask_scale);
  (void) ef_gl_image_get_mask (image, &cells_w, &cells_h);

  glUseProgram (self->program);
  glBindVertexArray (self->vao);
  glUniformMatrix3fv (self->u.pix_to_ndc, 1, GL_FALSE, mat);
  glUniform1i (self->u.data, 0);
  glUniform1i (self->u.mask, 1);
  glUniform1i (self->u.lut, 2);
  glUniform2f (self->u.mask_scale, mask_scale[0], mask_scale[1]);
  glUniform1i (self->u.use_mask, ef_gl_image_get_n_valid_cells (image) < cells_w * cells_h);
  glUniform1i (self->u.mode, (GLint) params->mode);
  glUniform1f (self->u.db_min, (float) params->db_min);
  glUniform1f (self->u.db_max, (float) params->db_max);
  glUniform1f (self->u.inv_gamma, (float) (1.0 / MAX (params->gamma, 1e-3)));
  glUniform1f (self->u.gain_db, (float) gain_db);

  glActiveTexture (GL_TEXTURE1);
  glBindTexture (GL_TEXTURE_2D, mask_tex);
  glActiveTexture (GL_TEXTURE2);
  glBindTexture (GL_TEXTURE_2D, self->lut[map]);
  glActiveTexture (GL_TEXTURE0);

  for (guint i = 0; i < ef_gl_image_get_n_tiles (image); i++)
    {
      const EfGlTile *t = ef_gl_image_get_tile (image, i);

      glBindTexture (GL_TEXTURE_2D, t->texture);
      glUniform2f (self->u.tile_origin, (float) t->x, (float) t->y);
      glUniform2f (self->u.tile_size, (float) t->width, (float) t->height);
      glUniform2f (self->u.quad_origin, (float) t->x, (float) t->y);
      glUniform2f (self->u.quad_size, (float) t->width, (float) t->height);
      glDrawArrays (GL_TRIANGLE_STRIP, 0, 4);
    }

  glBindTexture (GL_TEXTURE_2D, 0);
  glActiveTexture (GL_TEXTURE1);
  glBindTexture (GL_TEXTURE_2D, 0);
  glActiveTexture (GL_TEXTURE2);
  glBindTexture (GL_TEXTURE_2D, 0);
  glActiveTexture (GL_TEXTURE0);
  glBindVertexArray (0);
  glUseProgram (0);
}

/* Rebuilds the display table when the colour map or the gamma has changed: the colour that the
 * complex shader shows for t, at DISPLAY_LUT_SIZE points (a few microseconds, so such changes stay
 * instant). */
static void
update_display_lut (EfGlRenderer *self, EfColormap map, double gamma)
{
  guint8 rgba[DISPLAY_LUT_SIZE * 4];

  if (self->display_lut_valid && self->display_lut_map == map && self->display_lut_gamma == gamma)
    return;
  ef_display_table_fill (map, gamma, rgba, DISPLAY_LUT_SIZE);
  glBindTexture (GL_TEXTURE_2D, self->display_lut);
  glPixelStorei (GL_UNPACK_ALIGNMENT, 4);
  glTexSubImage2D (GL_TEXTURE_2D, 0, 0, 0, DISPLAY_LUT_SIZE, 1, GL_RGBA, GL_UNSIGNED_BYTE, rgba);
  glBindTexture (GL_TEXTURE_2D, 0);
  self->display_lut_valid = TRUE;
  self->display_lut_map = map;
  self->display_lut_gamma = gamma;
}

/* A VALUE image: one fetch, a multiply-add and a table lookup a pixel, and only over the cells that
 * have arrived (runs of cells along a row, clipped to each tile), so no mask is read or discarded. */
static void
draw_value (EfGlRenderer *self, EfGlImage *image, const double m[6], const EfDisplayParams *params,
            double gain_db)
{
  const float mat[9] = {
    (float) m[0], (float) m[3], 0.0f,
    (float) m[1], (float) m[4], 0.0f,
    (float) m[2], (float) m[5], 1.0f,
  };
  EfColormap map = (guint) params->colormap < EF_COLORMAP_N ? params->colormap : EF_COLORMAP_GREY;
  EfViewMode mode = params->mode;
  const guint8 *mask;
  guint cells_w, cells_h, width, height;
  GLint vp[4] = { 0, 0, 1, 1 };
  double j00, j01, j10, j11, det, fw_col, fw_row, scale, offset;
  const ValueProgram *v;

  /* The textures hold another quantity until they have been uploaded again. */
  if (ef_gl_image_get_view_mode (image) != mode || ef_gl_image_get_n_valid_cells (image) == 0)
    return;
  if (self->value[VALUE_PLAIN].program == 0)
    {
      g_critical ("This renderer was made without the value shader and cannot draw a value image");
      return;
    }

  /* The texels under one device pixel, as fwidth () would find them: the map from image pixels to
   * the framebuffer is affine, so this is one number for the whole image. */
  glGetIntegerv (GL_VIEWPORT, vp);
  j00 = m[0] * 0.5 * vp[2];
  j01 = m[1] * 0.5 * vp[2];
  j10 = m[3] * 0.5 * vp[3];
  j11 = m[4] * 0.5 * vp[3];
  det = j00 * j11 - j01 * j10;
  if (!(fabs (det) > 1e-30))
    return;
  fw_col = (fabs (j11) + fabs (j01)) / fabs (det);
  fw_row = (fabs (j10) + fabs (j00)) / fabs (det);

  ef_display_values_map (params, gain_db, &scale, &offset);
  update_display_lut (self, map, mode == EF_VIEW_MAGNITUDE ? params->gamma : 1.0);

  v = &self->value[mode == EF_VIEW_MAGNITUDE && MAX (fw_col, fw_row) > 1.5 ? VALUE_AVERAGE_DB : VALUE_PLAIN];
  glUseProgram (v->program);
  glBindVertexArray (self->vao);
  glUniformMatrix3fv (v->pix_to_ndc, 1, GL_FALSE, mat);
  glUniform1i (v->data, 0);
  glUniform1i (v->lut, 2);
  glUniform2f (v->lut_map, (float) (DISPLAY_LUT_SIZE - 1) / DISPLAY_LUT_SIZE, 0.5f / DISPLAY_LUT_SIZE);
  glUniform1f (v->scale, (float) scale);
  glUniform1f (v->offset, (float) offset);
  glActiveTexture (GL_TEXTURE2);
  glBindTexture (GL_TEXTURE_2D, self->display_lut);
  glActiveTexture (GL_TEXTURE0);

  mask = ef_gl_image_get_mask (image, &cells_w, &cells_h);
  width = ef_gl_image_get_width (image);
  height = ef_gl_image_get_height (image);
  for (guint i = 0; i < ef_gl_image_get_n_tiles (image); i++)
    {
      const EfGlTile *t = ef_gl_image_get_tile (image, i);
      guint tx1 = t->x + t->width, ty1 = t->y + t->height;

      glBindTexture (GL_TEXTURE_2D, t->texture);
      glUniform2f (v->tile_origin, (float) t->x, (float) t->y);
      glUniform2f (v->tile_size, (float) t->width, (float) t->height);
      glUniform2f (v->tap, (float) (0.25 * fw_col / t->width), (float) (0.25 * fw_row / t->height));
      for (guint cy = t->y / EF_GL_IMAGE_CELL; cy < cells_h && cy * EF_GL_IMAGE_CELL < ty1; cy++)
        for (guint cx = t->x / EF_GL_IMAGE_CELL; cx < cells_w && cx * EF_GL_IMAGE_CELL < tx1;)
          {
            guint run = 0, x0, y0, x1, y1;

            while (cx + run < cells_w && (cx + run) * EF_GL_IMAGE_CELL < tx1 && mask[(gsize) cy * cells_w + cx + run])
              run++;
            if (run == 0)
              {
                cx++;
                continue;
              }
            x0 = MAX (cx * EF_GL_IMAGE_CELL, t->x);
            y0 = MAX (cy * EF_GL_IMAGE_CELL, t->y);
            x1 = MIN (MIN ((cx + run) * EF_GL_IMAGE_CELL, width), tx1);
            y1 = MIN (MIN ((cy + 1) * EF_GL_IMAGE_CELL, height), ty1);
            glUniform2f (v->quad_origin, (float) x0, (float) y0);
            glUniform2f (v->quad_size, (float) (x1 - x0), (float) (y1 - y0));
            glDrawArrays (GL_TRIANGLE_STRIP, 0, 4);
            cx += run;
          }
    }

  glBindTexture (GL_TEXTURE_2D, 0);
  glActiveTexture (GL_TEXTURE2);
  glBindTexture (GL_TEXTURE_2D, 0);
  glActiveTexture (GL_TEXTURE0);
  glBindVertexArray (0);
  glUseProgram (0);
}

void
ef_gl_renderer_draw_image (EfGlRenderer *self, EfGlImage *image, const double m[6],
                           const EfDisplayParams *params, double gain_db)
{
  g_return_if_fail (self != NULL && image != NULL && params != NULL);

  if (ef_gl_image_get_format (image) == EF_GL_IMAGE_VALUE)
    draw_value (self, image, m, params, gain_db);
  else
    draw_complex (self, image, m, params, gain_db);
}

gboolean
ef_gl_renderer_name_is_software (const char *gl_renderer)
{
  static const char *const names[] = { "llvmpipe", "softpipe", "swrast", "SWR", "Software Rasterizer",
                                       "Microsoft Basic Render" };

  if (gl_renderer == NULL)
    return FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    if (strstr (gl_renderer, names[i]) != NULL)
      return TRUE;
  return FALSE;
}
