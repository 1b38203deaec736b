/* ef-bp.h: backprojection of range profiles onto a grid, on the CPU. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "ef-types.h"
#include "ef-grid.h"
#include "ef-rangecomp.h"
#include "ef-bp-cpu.h"

G_BEGIN_DECLS

/* The float64 yardstick: plainly correct, scalar, one pixel and one pulse at a time with linear
 * interpolation. profiles must be fp64. Adds into acc (width * height). Blocks; single thread. */
void ef_bp_reference (const EfGrid *grid, const EfProfiles *profiles, EfCf64 *acc);

/* The same sum as ef_bp_reference over a sub-rectangle, for spot checks of large images. */
void ef_bp_reference_rect (const EfGrid *grid, const EfProfiles *profiles, const EfRect *rect,
                           EfCf64 *acc_rect);

/* The fast float32 path: tiles x pulse blocks, threads over tiles, SIMD inner loops chosen at run time.
 * Geometry is referenced to each tile's centre in double; only small residuals go through float.
 * profiles must be fp32. Adds into acc. n_threads == 0 uses all cores. Blocks. */
void ef_bp_cpu_fp32 (const EfGrid *grid, const EfProfiles *profiles, EfCf32 *acc, guint n_threads);

/* The per-pulse coefficients of the float32 loops (ef-bp-cpu.h) for points about xc that lie in the
 * grid's plane, their offsets measured along the grid's axes. */
void ef_bp_cpu_tile_coef (const EfGrid *grid, const EfProfileMeta *m, const double xc[3], gboolean bistatic,
                          EfBpCoef *k);

/* The tile edge used by the fast paths, in pixels, and the name of the SIMD level chosen. */
#define EF_BP_TILE 16
const char *ef_bp_cpu_simd_name (void);

G_END_DECLS
