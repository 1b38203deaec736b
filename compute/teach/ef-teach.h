/* ef-teach.h: what a lesson on SAR focusing needs: an aperture stack of block images, and the theory. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

#include "ef-types.h"
#include "ef-dataset.h"
#include "ef-grid.h"

G_BEGIN_DECLS

/*
 * The aperture stack
 *
 * Backprojection is linear in the data: the image of pulses [p0, p1] over samples [k0, k1] is the sum
 * of the images of any partition of them. So a region is formed once per block of pulses and per
 * sub-band (the FX samples outside the sub-band set to zero, everything else as range compression and
 * backprojection always do it), and the stack keeps the two-dimensional prefix sums
 *   S(b, s) = sum of block images b' <= b, s' <= s.
 * The image of blocks [b0, b1] and sub-bands [s0, s1] is then
 *   S(b1, s1) - S(b0 - 1, s1) - S(b1, s0 - 1) + S(b0 - 1, s0 - 1),
 * which with one sub-band is one difference of two sums: O(pixels), whatever the window.
 *
 * Memory: n_blocks x n_bands x pixels x 8 bytes (fp32) or 16 bytes (fp64). When that exceeds the
 * budget, neighbouring blocks are merged (the block length doubles) until it fits; a region whose one
 * block does not fit fails with EF_COMPUTE_ERROR_NO_MEMORY. The weighting is rectangular in both
 * directions unless a window is asked for (EfTeachFormOptions), so that a window of the stack is exactly
 * a formation of its pulses and band.
 */

typedef struct _EfTeachStack EfTeachStack;

/* How a block is formed: the range profile's interpolation, its upsampling, and one window applied in
 * range (over the collection's whole band) and in cross-range (over its whole aperture, by look angle,
 * ef-aperture.h), so that a narrower window of the stack sees the part of the weighting it spans. */
typedef enum {
  EF_TEACH_INTERP_LINEAR,   /* backprojection's own (ef_bp_cpu_fp32, ef_bp_reference) */
  EF_TEACH_INTERP_NEAREST,  /* the nearest profile bin: a plain loop, for the lesson on interpolation */
} EfTeachInterp;

typedef struct {
  EfWindow      window;     /* EF_WINDOW_RECT: none */
  EfTeachInterp interp;
  guint         upsample;   /* range profile zero-padding factor; 0 = 16 */
} EfTeachFormOptions;

typedef struct {
  EfGrid   grid;
  guint    block_pulses;  /* pulses a block, >= 1; more when the budget asks for it */
  guint    n_bands;       /* sub-bands, >= 1; FX data only (RAW and TOA data take 1) */
  gboolean fp64;          /* form and keep the sums in double precision */
  guint64  budget_bytes;  /* the most the sums may take; 0 = EF_TEACH_DEFAULT_BUDGET */
  guint    upsample;      /* range profile zero-padding factor; 0 = 16 */
  guint    n_threads;     /* 0 = all */
  /* FALSE (the default): blocks are formed by the stack's own processor path (ef_teach_form). TRUE:
   * through the formation backend that `echoform-cli form --backend` would pick for `backend`
   * (EF_BACKEND_CUDA: a device or an error; EF_BACKEND_AUTO: a device where there is one, else the
   * processor's backend, and the stack's note says why), in fp32 only. */
  gboolean      use_backend;
  EfBackendKind backend;
  EfWindow      window;   /* range and cross-range window (EfTeachFormOptions); 0 = rectangular */
  EfTeachInterp interp;   /* 0 = linear */
} EfTeachStackParams;

#define EF_TEACH_DEFAULT_BUDGET ((guint64) 512 << 20)

/* Called after each block is formed (from the calling thread); may be NULL. */
typedef void (*EfTeachProgress) (guint done, guint total, gpointer user_data);

/* The bytes the sums of n_blocks x n_bands images of n_pixels take, or 0 on overflow. */
guint64       ef_teach_stack_bytes_for (guint64 n_blocks, guint n_bands, gsize n_pixels, gboolean fp64);

/* Forms ds over params->grid block by block and keeps the prefix sums. Blocks for as long as the
 * formation takes; checks cancellable between blocks (EF_COMPUTE_ERROR_CANCELLED). Returns an owned
 * stack (holding a reference to ds) or NULL with error. */
EfTeachStack *ef_teach_stack_new (EfDataset *ds, const EfTeachStackParams *params, EfTeachProgress progress,
                                  gpointer user_data, GCancellable *cancellable, GError **error);
void          ef_teach_stack_free (EfTeachStack *stack);

/* Borrowed: the dataset, the grid. */
EfDataset    *ef_teach_stack_dataset (const EfTeachStack *stack);
const EfGrid *ef_teach_stack_grid (const EfTeachStack *stack);
guint         ef_teach_stack_n_blocks (const EfTeachStack *stack);
guint         ef_teach_stack_block_pulses (const EfTeachStack *stack);  /* as formed, after any merging */
guint         ef_teach_stack_n_bands (const EfTeachStack *stack);
guint64       ef_teach_stack_bytes (const EfTeachStack *stack);
gboolean      ef_teach_stack_is_fp64 (const EfTeachStack *stack);
/* Borrowed: what formed the blocks ("cpu" for the stack's own path, else the backend's name), and what
 * the backend said of how it ran, such as why it is not the device asked for (NULL when nothing). */
const char   *ef_teach_stack_formed_by (const EfTeachStack *stack);
const char   *ef_teach_stack_note (const EfTeachStack *stack);
/* The pulses of block b: [*first, *first + *count). */
void          ef_teach_stack_block_range (const EfTeachStack *stack, guint b, guint64 *first, guint *count);
/* The samples of sub-band s: [*first, *first + *count). */
void          ef_teach_stack_band_range (const EfTeachStack *stack, guint s, guint *first, guint *count);

/* The image of blocks [b0, b1] and sub-bands [s0, s1] into out (pixels, caller-owned), from the sums.
 * FALSE with error when a window is out of range or empty. Thread-safe (reads only); never blocks. */
gboolean      ef_teach_stack_window (const EfTeachStack *stack, guint b0, guint b1, guint s0, guint s1, EfCf32 *out,
                                     GError **error);
/* The same in double precision (from an fp32 stack, the fp32 sums widened). */
gboolean      ef_teach_stack_window64 (const EfTeachStack *stack, guint b0, guint b1, guint s0, guint s1,
                                       EfCf64 *out, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (EfTeachStack, ef_teach_stack_free)

/* Forms pulses [first, first + count) and samples [k0, k0 + nk) of the stack's dataset as its blocks
 * were formed, adding into acc32 (pixels of its grid): the pulses of a window that are not whole
 * blocks. Blocks. */
gboolean      ef_teach_stack_form (const EfTeachStack *stack, guint64 first, guint64 count, guint k0, guint nk,
                                   EfCf32 *acc32, GError **error);

/* Forms pulses [first, first + count) of ds, samples [k0, k0 + nk) only (the others zeroed), over grid
 * with a rectangular window, adding into acc64 (fp64: the float64 reference sum) or acc32 (fp32: the
 * fast path); exactly one of them is set. The stack forms its blocks with this. Blocks. */
gboolean      ef_teach_form (EfDataset *ds, const EfGrid *grid, guint64 first, guint64 count, guint k0, guint nk,
                             guint upsample, guint n_threads, EfCf32 *acc32, EfCf64 *acc64, GError **error);

/* ef_teach_form with options (NULL: rectangular, linear, upsampling 16). */
gboolean      ef_teach_form_ex (EfDataset *ds, const EfGrid *grid, guint64 first, guint64 count, guint k0, guint nk,
                                const EfTeachFormOptions *options, guint n_threads, EfCf32 *acc32, EfCf64 *acc64,
                                GError **error);

/*
 * Theory
 */

typedef struct {
  guint64 n_pulses;     /* in the window */
  guint   n_samples;    /* in the band window */
  double  f_lo, f_hi;   /* the band's edges, Hz: B = f_hi - f_lo = n_samples * df for FX data */
  double  fc;           /* the band's centre, Hz */
  double  bandwidth;    /* Hz */
  double  lambda;       /* c / fc, m */
  double  range_res;    /* c / (2 B), slant, m */
  double  grazing;      /* mean grazing angle of the window's pulses, rad */
  double  range_res_ground;  /* range_res / cos(grazing), m */
  double  dtheta;       /* the angle the window's lines of sight sweep, rad, each pulse standing for its
                         * share: the angle between the first and last lines of sight x n / (n - 1) */
  double  cross_res;    /* lambda / (2 dtheta), m; 0 for one pulse */
  double  look_first, look_last;  /* ground-plane azimuths of the first and last pulses from the SRP, rad */
} EfTeachTheory;

/* The theory of pulses [p0, p1] and samples [k0, k1] of ds. For data other than FX the band is the
 * collection's (k0 and k1 are ignored). Never blocks. */
void ef_teach_theory (const EfDataset *ds, guint64 p0, guint64 p1, guint k0, guint k1, EfTeachTheory *out);

/* The ground-plane azimuth of pulse pu's antenna seen from the SRP, rad in (-pi, pi]. */
double ef_teach_look_angle (const EfPulse *pu);

/* The range ring of one pulse: the points of the grid's plane at range r from the pulse's antenna
 * (the midpoint of transmitter and receiver), as (col, row) pairs along the circle where the sphere
 * cuts the plane, restricted to the grid (with a margin of `margin` pixels). xy receives up to max_pts
 * pairs (2 * max_pts doubles). Returns the number of points written; 0 when the sphere misses the
 * plane or the grid. Consecutive points are joined except across a gap, where a NAN pair is written. */
guint ef_teach_pulse_arc (const EfGrid *grid, const EfPulse *pu, double r, double margin, double *xy, guint max_pts);

/* The k-space extent of a window: the annulus sector of spatial frequencies 2f/c over [f_lo, f_hi] and
 * ground-plane directions over the pulses' look angles. */
typedef struct {
  double k_min, k_max;      /* 2 f_lo / c and 2 f_hi / c, cycles per metre */
  double angle_lo, angle_hi;/* look angles, rad, angle_lo <= angle_hi (unwrapped about the middle) */
} EfTeachKspace;

void ef_teach_kspace (const EfDataset *ds, guint64 p0, guint64 p1, guint k0, guint k1, EfTeachKspace *out);

/* The magnitude range profile of pulse p over samples [k0, k0 + nk) (FX; RAW and TOA take all
 * samples): mag[n_bins] in linear units, and where bin 0 lies and the bin spacing in differential range
 * (m from r0). *n_bins receives the profile's length; mag is owned (g_free). Blocks briefly. */
float *ef_teach_pulse_profile (EfDataset *ds, guint64 p, guint k0, guint nk, guint *n_bins, double *r_start,
                               double *dr, GError **error);

/* The phase history's magnitude, |d(p, k)|, averaged into a width x height thumbnail (rows are pulses,
 * columns samples), normalised to a peak of 1. Owned (g_free). Blocks while it reads the data. */
float *ef_teach_phase_history (EfDataset *ds, guint width, guint height, GError **error);

/*
 * The classroom scene (data/presets/classroom.ini)
 */

/* The points, as x, y, z (m) and amplitude, into xyza (up to max); returns how many there are. */
guint      ef_teach_classroom_targets (double (*xyza)[4], guint max);
/* Simulates the scene: 512 pulses of 256 FX samples. Blocks (about a second). New reference. */
EfDataset *ef_teach_classroom_new (guint n_threads, GError **error);
/* Its region: 20.48 m square about the scene centre, edge x edge pixels. */
void       ef_teach_classroom_grid (EfGrid *grid, guint edge);

G_END_DECLS
