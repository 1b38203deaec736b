/* ef-render-test.h: what only tests ask of render/: the shader's colour rule in float64, sharing state. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#if !EF_TEST_HOOKS
#error "ef-render-test.h is for tests: configure with -Dtest_hooks=true"
#endif

#include "ef-colormap.h"
#include "ef-gl-cuda.h"

G_BEGIN_DECLS

/* The map position t in [0, 1] of one complex value z scaled by gain_db, exactly as the shader does,
 * in float64: the yardstick for the GL and processor drawings. */
double   ef_display_value (const EfDisplayParams *params, float re, float im, double gain_db);

/* TRUE while the textures are mapped for CUDA (ef_gl_cuda_hold) and not yet given back to GL. */
gboolean ef_gl_cuda_is_held (EfGlCuda *self);

G_END_DECLS
