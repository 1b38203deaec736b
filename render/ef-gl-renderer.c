/* ef-gl-renderer.c: shader programs, colour-map textures and the tile quad. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-gl-renderer"
#include "config.h"

#include <epoxy/gl.h>
#include <gio/gio.h>

#include "ef-error.h"
#include "ef-gl-renderer.h"

#define SHADER_PATH "/io/github/echoform/Echoform/shaders/"

struct _EfGlRenderer {
  GLuint program;
  GLuint vao, vbo;
  GLuint lut[EF_COLORMAP_N];
  struct {
    GLint pix_to_ndc, tile_origin, tile_size, data, mask, lut, mask_scale, mode, db_min, db_max,
          inv_gamma, gain_db;
  } u;
  char *description;
};

static GLuint
compile_shader (GLenum type, const char *resource, GError **error)
{
  g_autoptr (GBytes) bytes = NULL;
  const char *src;
  GLint len, ok = 0;
  GLuint shader;

  bytes = g_resources_lookup_data (resource, G_RESOURCE_LOOKUP_FLAGS_NONE, error);
  if (bytes == NULL)
    return 0;
  src = g_bytes_get_data (bytes, NULL);
  len = (GLint) g_bytes_get_size (bytes);

  shader = glCreateShader (type);
  glShaderSource (shader, 1, &src, &len);
  glCompileShader (shader);
  glGetShaderiv (shader, GL_COMPILE_STATUS, &ok);
  if (!ok)
    {
      GLint log_len = 0;
      g_autofree char *log = NULL;

      glGetShaderiv (shader, GL_INFO_LOG_LENGTH, &log_len);
      log = g_malloc0 (MAX (log_len, 1) + 1);
      glGetShaderInfoLog (shader, log_len, NULL, log);
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_DEVICE, "Shader %s does not compile: %s", resource,
                   log);
      glDeleteShader (shader);
      return 0;
    }
  return shader;
}

static GLuint
link_program (const char *vert, const char *frag, GError **error)
{
  GLuint vs, fs, program;
  GLint ok = 0;

  vs = compile_shader (GL_VERTEX_SHADER, vert, error);
  if (vs == 0)
    return 0;
  fs = compile_shader (GL_FRAGMENT_SHADER, frag, error);
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
  static const float corners[] = { 0, 0, 1, 0, 0, 1, 1, 1 };
  EfGlRenderer *self;
  GLuint program;
  GLenum err;

  while (glGetError () != GL_NO_ERROR)
    ;
  program = link_program (SHADER_PATH "image.vert", SHADER_PATH "image.frag", error);
  if (program == 0)
    return NULL;

  self = g_new0 (EfGlRenderer, 1);
  self->program = program;
#define U(name) self->u.name = glGetUniformLocation (program, "u_" #name)
  U (pix_to_ndc);
  U (tile_origin);
  U (tile_size);
  U (data);
  U (mask);
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

void
ef_gl_renderer_draw_image (EfGlRenderer *self, EfGlImage *image, const double m[6],
                           const EfDisplayParams *params, double gain_db)
{
  /* Column-major 3x3 for GLSL. */
  const float mat[9] = {
    (float) m[0], (float) m[3], 0.0f,
    (float) m[1], (float) m[4], 0.0f,
    (float) m[2], (float) m[5], 1.0f,
  };
  float mask_scale[2];
  guint map = (guint) params->colormap < EF_COLORMAP_N ? (guint) params->colormap : 0;
  guint mask_tex;

  g_return_if_fail (self != NULL && image != NULL && params != NULL);

  mask_tex = ef_gl_image_get_mask_texture (image);
  ef_gl_image_get_mask_scale (image, mask_scale);

  glUseProgram (self->program);
  glBindVertexArray (self->vao);
  glUniformMatrix3fv (self->u.pix_to_ndc, 1, GL_FALSE, mat);
  glUniform1i (self->u.data, 0);
  glUniform1i (self->u.mask, 1);
  glUniform1i (self->u.lut, 2);
  glUniform2f (self->u.mask_scale, mask_scale[0], mask_scale[1]);
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
