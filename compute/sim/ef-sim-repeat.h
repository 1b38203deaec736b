/* ef-sim-repeat.h: repeat passes of one scene, for time-series analysis, with their ground truth. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "ef-types.h"
#include "ef-sim.h"

G_BEGIN_DECLS

/* The interferometric phase model shared by the simulator and the estimators. A scatterer at pixel p with
 * line-of-sight displacement d(t) (positive towards the sensor) and height error h has, in pass k,
 *   phi_k = (4 pi / lambda) (d(t_k) + h * bperp_k / (R sin theta)) + aps_k(p) + its own constant phase,
 * so that the arc between pixels p and q, z_k = s_p,k conj (s_q,k), turns at
 * (4 pi / lambda) (dv t_k + dh bperp_k / (R sin theta)) with dv = v_p - v_q, dh = h_p - h_q.
 * Baselines enter through this term only: every pass is simulated (and, as phase histories, flown) on
 * one geometry, and the height error is written into the scatterer's phase. */
typedef struct {
  guint   width, height;     /* pixels */
  double  spacing;           /* m: the phase-history passes' pixel spacing */
  guint   n_passes;          /* 2 .. 1000 */
  double  span_years;        /* dates spread evenly over [0, span], each moved by up to a quarter step */
  double  bperp_std;         /* m: perpendicular baselines drawn N(0, std) */
  double  wavelength;        /* m */
  double  range;             /* slant range, m */
  double  incidence_deg;     /* theta */
  guint   n_ps;              /* persistent scatterers, at random pixels */
  guint   ps_gap;            /* no two PS closer than this (Chebyshev distance, pixels; >= 1) */
  double  scr_db_min;        /* PS signal-to-clutter ratio (clutter plus noise) drawn uniformly in */
  double  scr_db_max;        /*   [min, max] dB */
  double  bowl_depth;        /* m/yr: a Gaussian subsidence bowl at the centre, sigma = width / 4 */
  double  velocity_jitter;   /* m/yr: each PS's own velocity, uniform in +-jitter, on top */
  double  seasonal_amp;      /* m: annual term, growing linearly across the scene from half to full */
  double  height_max;        /* m: PS height errors uniform in +-height_max */
  double  clutter_coherence; /* clutter's coherence between any two passes, 0..1 */
  double  aps_rms;           /* rad: each pass's atmospheric screen, rms */
  double  aps_length;        /* pixels: the screen's correlation length (Gaussian kernel sigma) */
  double  noise_db;          /* thermal noise power relative to the clutter's */
  guint64 seed;
} EfRepeatParams;

/* One persistent scatterer's truth. */
typedef struct {
  guint  col, row;
  double velocity;        /* m/yr, line of sight */
  double height;          /* m */
  double seasonal_amp;    /* m */
  double scr_db;
  double amplitude;       /* |s| */
  double phase0;          /* its constant phase, rad */
} EfRepeatPs;

typedef struct {
  EfRepeatParams params;
  double         *t_years;   /* owned, n_passes: dates, years from the first pass */
  double         *bperp;     /* owned, n_passes: m */
  EfRepeatPs     *ps;        /* owned, n_ps, ordered by row, then column */
  guint           n_ps;
  gint           *ps_index;  /* owned, width * height: index into ps, or -1 */
} EfRepeatTruth;

/* X-band spaceborne defaults: 60 passes over two years, lambda 3.1 cm, 700 km at 35 deg, bperp std
 * 150 m; PS at 10..20 dB SCR; clutter coherence 0.2; 1 rad of atmosphere correlated over 200 pixels
 * (an atmosphere varies over kilometres). */
void ef_repeat_params_init (EfRepeatParams *p, guint width, guint height);

/* Draws dates, baselines and scatterers. Returns owned truth, or NULL with error on bad parameters (sizes
 * out of range, more PS than fit at the given gap). Does not block beyond the draw itself. */
EfRepeatTruth *ef_repeat_truth_new (const EfRepeatParams *params, GError **error);
void           ef_repeat_truth_free (EfRepeatTruth *truth);

/* The line-of-sight displacement of a PS at date t (years): v t + A sin (2 pi t). */
double ef_repeat_displacement (const EfRepeatPs *ps, double t_years);
/* The least-squares linear trend of a PS's true displacement over the truth's dates, m/yr: what a
 * linear-velocity estimator can see. Over a finite span the seasonal term leaks into it (over two whole
 * years by about -0.48 A per year for A sin (2 pi t)), so estimates are compared with this, not with
 * ps->velocity alone. */
double ef_repeat_linear_velocity (const EfRepeatTruth *truth, const EfRepeatPs *ps);
/* The height term's factor 1 / (R sin theta). */
double ef_repeat_height_factor (const EfRepeatParams *p);

/* Pass k's atmospheric phase screen, rad, width * height, into out (caller-owned). Depends only on the
 * seed and k. Blocks for a few separable convolutions. */
void ef_repeat_aps (const EfRepeatTruth *truth, guint k, float *out);

/* Pass k as a focused complex image on the pixel grid (an ideal impulse response: a scatterer lights
 * its own pixel only): clutter, PS and noise, all under the pass's atmosphere. out is caller-owned,
 * width * height, row-major. Depends only on the seed and k. */
void ef_repeat_slc (const EfRepeatTruth *truth, guint k, EfCf32 *out);

/* Pass k as scatterers for the phase-history simulator: one per pixel at the pixel's centre on grid (a
 * grid of the truth's size), with the pixel's complex reflectivity from ef_repeat_slc less the noise
 * (ef_sim_run adds its own). Owned array of width * height targets. */
EfSimTarget *ef_repeat_targets (const EfRepeatTruth *truth, guint k, const EfGrid *grid);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (EfRepeatTruth, ef_repeat_truth_free)

G_END_DECLS
