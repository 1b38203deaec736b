/* ef-teach-whatif.h: what-if lessons: errors injected into a collection, and the interpolation error measured. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

#include "ef-types.h"
#include "ef-dataset.h"
#include "ef-grid.h"
#include "ef-teach.h"

G_BEGIN_DECLS

/*
 * Errors a lesson injects. The data stay as recorded; what changes is either the data's phase (as an
 * uncompensated path length would change it) or the antenna positions the formation believes:
 *
 * - a phase error e[p] over the collection's pulses: pulse p is read multiplied by exp(+j e[p])
 *   (ef_dataset_new_phase_corrected with -e). Its shape is quadratic (a defocus), sinusoidal (paired
 *   echoes), linear (a shift) or a random walk (seeded, reproducible), its mean removed and scaled to exactly the RMS asked
 *   for over all the collection's pulses (a narrower aperture sees part of it);
 * - a platform-speed error of x %: the believed antenna positions are stretched about the middle pulse's,
 *   a_p + x/100 (a_p - a_mid), as a navigation that misreads the speed would place them;
 * - a position error of d metres: every believed antenna position moved by d along the track (the
 *   first pulse's towards the last's) or along the middle pulse's line of sight (towards the scene's
 *   reference point). A constant offset displaces the image rather than blurring it.
 * Reference ranges r0 stay as recorded: the formation's error at a point x is |a'_p - x| - |a_p - x|.
 */

typedef enum {
  EF_TEACH_PHASE_QUADRATIC,
  EF_TEACH_PHASE_SINE,
  EF_TEACH_PHASE_RANDOM_WALK,
  EF_TEACH_PHASE_LINEAR,      /* a ramp: moves the image in cross-range, blurs nothing */
} EfTeachPhaseShape;

typedef enum {
  EF_TEACH_OFFSET_ALONG_TRACK,
  EF_TEACH_OFFSET_LINE_OF_SIGHT,
} EfTeachOffsetAxis;

typedef struct {
  EfTeachPhaseShape phase_shape;
  double            phase_rms;    /* rad, >= 0 */
  double            sine_cycles;  /* sinusoid: cycles over the collection; 0 = 3 */
  guint32           seed;         /* random walk */
  double            speed_pct;    /* platform speed error, % */
  double            offset_m;     /* position error, m */
  EfTeachOffsetAxis offset_axis;
} EfTeachErrors;

/* TRUE when e injects nothing (every amount zero): the formation then reads the collection itself. */
gboolean   ef_teach_errors_none (const EfTeachErrors *e);

/* The phase error of shape over n pulses into out[n], rad: mean zero (for the random walk also the
 * straight line fitted through it removed, so that it blurs rather than moves the image) and RMS rms
 * exactly; all zero when rms is 0 or n < 2. The random walk's steps come from GLib's seeded Mersenne
 * twister, so a seed gives the same error everywhere. Never blocks. */
void       ef_teach_phase_error (EfTeachPhaseShape shape, double rms, double sine_cycles, guint32 seed, guint64 n,
                                 double *out);

/* A dataset reading ds with the errors of e (above). Returns a new reference: ds itself when e injects
 * nothing, so that the image is bit for bit the error-free one. NULL with error for non-finite amounts
 * or a collection with too few pulses. Never blocks. */
EfDataset *ef_teach_errors_apply (EfDataset *ds, const EfTeachErrors *e, GError **error);

/* The quadratic phase, rad at the edges of pulses [p0, p1], that a wrong-position dataset `erred`
 * (made by ef_teach_errors_apply from `truth`) puts on a point at the frame's origin: the least-squares
 * parabola's x^2 coefficient of 4 pi fc / c (|a'_p| - |a_p|) over x in [-1, 1]. For a speed error of
 * x % this is pi (x / 100) L^2 / (lambda R0) on a straight path broadside to the point (L the aperture's
 * chord, R0 its middle range), and half that on a circle about it (a spotlight at constant range, as the
 * simulator flies). Never blocks. */
double     ef_teach_errors_qpe (const EfDataset *truth, const EfDataset *erred, guint64 p0, guint64 p1);

/* A dataset that reads ds one caller at a time (a mutex about ds's reads), with ds's description and
 * pulses: a lesson reads its collection from the main thread and from a formation's thread at once,
 * which a reader need only allow one thread at a time. Returns a new reference. Its reads block while
 * another is under way. */
EfDataset *ef_teach_dataset_serialized (EfDataset *ds);

/* The interpolation error of a formation: pulses [first, first + count) and samples [k0, k0 + nk) of ds
 * formed over the edge x edge pixels of grid about (col, row) (clamped inside the grid) with options,
 * against the exact matched filter of the same pulses, samples and weights in double precision
 * (ef_mf_form_f64, no range interpolation). Returns the signal-to-error ratio, dB, or NAN with error
 * (data other than FX cannot be summed so). Blocks (the matched filter costs n_samples backprojections). */
double     ef_teach_interp_ser_db (EfDataset *ds, const EfGrid *grid, guint col, guint row, guint edge, guint64 first,
                                   guint64 count, guint k0, guint nk, const EfTeachFormOptions *options,
                                   GError **error);

G_END_DECLS
