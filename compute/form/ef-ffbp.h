/* ef-ffbp.h: fast factorised backprojection (FFBP) and one-level fast backprojection (FBP) on the CPU. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "ef-types.h"
#include "ef-grid.h"
#include "ef-rangecomp.h"

G_BEGIN_DECLS

/*
 * One call forms one block of range profiles (a sub-aperture of B pulses) and adds it into a Cartesian
 * accumulator, exactly where ef_bp_reference would add the same block:
 *
 * 1. The block is cut into leaves of L0 consecutive pulses. Each leaf is backprojected, with the same
 *    linear interpolation of the profile as the reference, onto a polar grid about the leaf's centre c:
 *    range rho = |x - c| and direction cosine alpha = (x - c).t / rho, t the leaf's unit track
 *    direction. The polar grids are coordinates of the image plane itself (each (rho, alpha) names one
 *    point of the plane on the side of the track where the ROI lies), so a curved track costs nothing
 *    but a little extra angular bandwidth.
 * 2. FFBP merges `merge_base` neighbouring sub-apertures into one, stage after stage, until at most
 *    `max_final` remain. Each merged grid samples alpha base times finer, as its aperture is base times
 *    longer. FBP skips this step.
 * 3. The remaining sub-apertures are interpolated onto the Cartesian grid and summed.
 *
 * Every polar grid stores its image demodulated, F(rho, alpha) = f(x) exp(-j kr (rho - r0_node)), so
 * that the stored data is low-pass in both coordinates: its bandwidth is B/c cycles per metre in range
 * and f_max L / c cycles per unit of alpha, where L is the sub-aperture's length. The grids are sampled
 * at c / (2 B os_range) in range and c / (2 f_max L os_angle) in alpha. A merge or the final step reads
 * F at the point's coordinates in the child's grid with a separable Knab kernel (a sinc tapered for the
 * known guard band of the oversampled data) and re-modulates it with exp(+j kr (rho_child - r0_child)),
 * less the parent's own demodulation. Geometry is always double precision; the samples are stored in
 * the precision of the profiles.
 *
 * The leaf length and the number of stages are chosen from the geometry (the ROI's extent in range and
 * angle seen from each sub-aperture) by minimising an operation count. When that count says exact
 * backprojection would be cheaper (small blocks, tiny ROIs), or the geometry does not allow polar grids
 * (the ROI straddles the track's ground line, or the track is nearly normal to the image plane), the
 * block is backprojected exactly instead, unless bp_fallback is off.
 *
 * Blocks. The recursion runs within one block of pulses; blocks formed one after another add up to the
 * whole aperture exactly as BP's do, so the progressive job and its block orders work unchanged. The gain
 * grows with the block: formation alone, float32 on one core (AMD EPYC Zen 4, against the AVX-512
 * backprojector), 4x for 128 pulses on 512 x 512 pixels, 7x for 256, 12x for 512; 24x for 1024 pulses on
 * 1024 x 1024 pixels and 35x for 2048. Reading and range compression, which BP pays too, then bound
 * what a user sees (tests/bench/RESULTS.md). Blocks of a few dozen pulses go to exact BP: give FFBP
 * blocks of 256 pulses or more.
 *
 * The CUDA backend forms blocks by the very same plan on the device (cuda/ef-cuda-ffbp.h; the plan
 * itself is in ef-ffbp-private.h). On an H200, 4096 x 4096 pixels from one block of 8192 pulses take
 * 10.6 ms by FFBP against 142 ms by exact GPU backprojection (fp16 polar grids: 8.6 ms).
 *
 * Range upsampling. Backprojection interpolates the profiles linearly, and at the smallest upsampling
 * (2) that interpolation's own error is some 24 dB below the image: a fast algorithm, which samples
 * and re-interpolates the image, cannot follow it that closely. Against BP it then scores about 24 dB;
 * with the profiles upsampled 8 times (16, the default range parameters) it scores 47 (53) dB.
 */

typedef struct {
  gboolean factorised;       /* TRUE: FFBP; FALSE: FBP (leaves fused straight onto the grid) */
  guint    merge_base;       /* sub-apertures merged into one at each FFBP stage: 2 to 4 (default 4) */
  guint    leaf_pulses;      /* pulses per first-stage sub-aperture; 0 = chosen from the geometry */
  guint    max_final;        /* FFBP: merging stops when this many sub-apertures remain or fewer (>= 1,
                              * default 1) */
  double   oversample_range; /* range sampling of the polar grids over Nyquist c/(2B): 1.2 to 8 */
  double   oversample_angle; /* angular sampling over Nyquist: 1.2 to 8 */
  guint    taps_range;       /* Knab kernel length in range: even, 2 to 8 */
  guint    taps_angle;       /* Knab kernel length in angle: even, 2 to 16 */
  gboolean bp_fallback;      /* form a block by exact BP when that is cheaper or FFBP cannot apply */
  guint    n_threads;        /* 0 = all cores */
} EfFfbpParams;

/* Defaults: merge base 4 down to one sub-aperture, oversampling 2 in range and angle, 8-tap kernels. They
 * keep the image 50-55 dB from exact backprojection (signal-to-error ratio; the tests ask for 48) and
 * gave the best speed of the settings tried: a base of 4 needs half the stages, and so half the
 * interpolations, of a base of 2. Oversampling and taps trade accuracy for speed: 1.5 with 4 taps is some
 * 20 dB, 3 with 8 taps 60-65 dB. Most of the error is the range interpolation's: on a 1024 x 1024
 * region from 2048 pulses, oversampling 2.2 in range gains 2-3 dB for 2-6% more time, 2.4 in angle
 * under 1 dB. */
void ef_ffbp_params_init (EfFfbpParams *params);
/* The same for one-level FBP. */
void ef_fbp_params_init (EfFfbpParams *params);

/* What one call did, for tests, benchmarks and the curious. */
typedef struct {
  guint    n_pulses;
  guint    leaf_pulses;
  guint    n_leaves;
  guint    n_stages;         /* merge stages (0 for FBP) */
  guint    n_final;          /* sub-apertures fused onto the grid */
  guint64  polar_samples;    /* samples of all polar grids formed, all stages */
  double   est_speedup;      /* the operation-count model's estimate of the gain over BP */
  gboolean used_bp;          /* the block was formed by exact backprojection */
  const char *why_bp;        /* static string: why, or NULL */
  double   seconds_leaves, seconds_merge, seconds_final;
} EfFfbpStats;

typedef struct _EfFfbp EfFfbp;

/* A former for one output grid. bandwidth_hz is the processed band of the profiles (it sets the range
 * sampling). Returns NULL with EF_COMPUTE_ERROR_INVALID_ARGUMENT for parameters out of range. */
EfFfbp *ef_ffbp_new (const EfGrid *grid, double bandwidth_hz, const EfFfbpParams *params, GError **error);
void    ef_ffbp_free (EfFfbp *self);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (EfFfbp, ef_ffbp_free)

/* Forms the block in profiles (fp64 or fp32; the polar grids take the same precision) and adds it into
 * acc64 or acc32 (exactly one non-NULL, width * height of the grid). stats may be NULL. Blocks; uses
 * params.n_threads threads. Fails only on memory exhaustion. Not thread-safe: one caller at a time. */
gboolean ef_ffbp_process (EfFfbp *self, const EfProfiles *profiles, EfCf64 *acc64, EfCf32 *acc32,
                          EfFfbpStats *stats, GError **error);

G_END_DECLS
