/* ef-gl-renderer.h: the shader programs, colour-map tables and geometry that draw image layers. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>
#include "ef-colormap.h"
#include "ef-gl-image.h"

G_BEGIN_DECLS

typedef struct _EfGlRenderer EfGlRenderer;

/* Compiles the programs (GLSL from the application's GResource) and builds the colour-map tables.
 * The GL context must be current and stay current for every call below; the renderer belongs to it.
 * Returns NULL with error if the shaders do not compile or link. */
EfGlRenderer *ef_gl_renderer_new (GError **error);
/* The same from GLSL sources (image.vert, image.frag) given directly, for programs that do not carry
 * the application's resources, such as the GPU tests. */
EfGlRenderer *ef_gl_renderer_new_from_sources (GBytes *vert, GBytes *frag, GError **error);
/* Deletes the GL objects; the context must be current. */
void          ef_gl_renderer_free (EfGlRenderer *renderer);

/* Draws every tile of image. pix_to_ndc is the affine map from image pixel coordinates (pixel (0,0)'s
 * centre at 0,0) to clip space: ndc = [a b c; d e f] * (col, row, 1). gain_db is added to the
 * magnitude in dB (the per-pulse normalisation of this layer). */
void ef_gl_renderer_draw_image (EfGlRenderer *renderer, EfGlImage *image, const double pix_to_ndc[6],
                                const EfDisplayParams *params, double gain_db);

/* The version string of the current context, for the about window and logs; static. */
const char *ef_gl_renderer_describe (EfGlRenderer *renderer);

/* TRUE when a GL_RENDERER string names a rasteriser that runs on the processor (Mesa's llvmpipe,
 * softpipe, swrast, OpenSWR, Microsoft's WARP). */
gboolean ef_gl_renderer_name_is_software (const char *gl_renderer);

G_END_DECLS
