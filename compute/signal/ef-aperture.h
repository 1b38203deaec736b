/* ef-aperture.h: cross-range (aperture) weighting: each pulse's weight from its place in the aperture. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "ef-types.h"
#include "ef-dataset.h"

G_BEGIN_DECLS

/*
 * A point target's cross-range impulse response is the Fourier transform of the aperture's weighting
 * over the pulses' look angles, as its range response is that of the range window over frequency. So the
 * aperture is weighted by scaling each pulse's range profile by the window's value at the pulse's look
 * angle: the azimuth of the antenna (the midpoint of transmitter and receiver), seen from the scene
 * reference point (the frame's origin) in the ground plane. Every former, BP, FFBP, FBP and PFA, on the
 * CPU and in CUDA, and the exact check, takes its profiles from range compression, which applies the
 * weight; the weight depends only on the pulse and on the aperture, never on the block the pulse came in.
 */

/* The angles a job's pulses span. */
typedef struct {
  guint64 n_pulses;  /* pulses in the aperture; 0 = unknown or no angular extent: nothing is weighted */
  double  dir[2];    /* ground-plane unit vector from the SRP towards the aperture's middle pulse */
  double  lo, hi;    /* the pulses' look angles relative to dir, rad: the least and the greatest */
} EfAperture;

/* The aperture of pulses first, first + stride, ... (n_used of them) of pulses[]. Leaves ap->n_pulses 0
 * when the pulses span no angle (a single pulse, an antenna over the SRP), which turns weighting off;
 * ef_aperture_why_not says why. Never blocks. */
void        ef_aperture_init (EfAperture *ap, const EfPulse *pulses, guint64 first, guint64 n_used, guint64 stride);
/* Why ap weights nothing, for a message (static), or NULL when it can. */
const char *ef_aperture_why_not (const EfAperture *ap);

/* The continuous window at x in [0, 1] (the aperture's first edge to its last), normalised to a mean of
 * 1 over [0, 1] as ef_window_fill's discrete windows are; nbar and sll_db as in EfRangeParams. Taylor's
 * coefficients are those ef_window_fill uses, so a window sampled here at (k + 0.5) / n is the Taylor
 * window ef_window_fill makes over n bins. */
double      ef_window_value (EfWindow window, guint nbar, double sll_db, double x);

/* Taylor's cosine coefficients F_m, m = 1 .. nbar - 1 (fm[0] = 0), after Carrara et al., "Spotlight
 * Synthetic Aperture Radar", Appendix D: w(x) = 1 + 2 sum F_m cos(2 pi m x) for x in [-1/2, 1/2]. fm
 * holds 64 values; nbar is clamped to 63. */
void        ef_taylor_coefficients (guint nbar, double sll_db, double fm[64]);

/* The weighting of one job, ready to evaluate per pulse. */
typedef struct {
  EfWindow   window;
  double     fm[64];   /* Taylor */
  guint      nbar;
  EfAperture ap;
} EfAzWeight;

/* The weighting with window (nbar, sll_db as in EfRangeParams) over ap; inactive (every weight 1) when
 * window is EF_WINDOW_RECT or ap spans nothing. */
void        ef_az_weight_init (EfAzWeight *w, EfWindow window, guint nbar, double sll_db, const EfAperture *ap);
/* TRUE when the weighting changes any pulse. */
gboolean    ef_az_weight_active (const EfAzWeight *w);
/* The weight of pulse pu: the window at the pulse's place in the aperture (a pulse at angle a stands for
 * the cell of width (hi - lo) / (n - 1) about it, so the first and last pulses sit half a cell in from
 * the window's edges, as ef_window_fill's Taylor bins do); 1 when inactive. Thread-safe. */
double      ef_az_weight_at (const EfAzWeight *w, const EfPulse *pu);

G_END_DECLS
