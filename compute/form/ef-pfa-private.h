/* ef-pfa-private.h: the polar format algorithm's host-side geometry, shared by the CPU and CUDA formers. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <math.h>

#include "ef-pfa.h"
#include "ef-vec3.h"

G_BEGIN_DECLS

/*
 * Everything here is double precision and runs on the host: the parameters and the Kaiser-Bessel
 * kernel, the look geometry of every pulse seen, the k-space grid's size (fixed at the first block),
 * the deapodisation, the stencil of three look angles that the distortion correction is computed from,
 * the depth-of-focus check over every pulse seen, and the Knab resampling table. ef-pfa.c grids and
 * transforms with FFTW; compute/cuda/ef-cuda-pfa.c does the same on a device with cuFFT. The geometry
 * is ef-pfa-geometry.c.
 */

#define EF_PFA_KBQ 512          /* Kaiser-Bessel table entries per grid cell */
#define EF_PFA_KNQ 256          /* Knab table phases per pixel */
#define EF_PFA_TAPS_MAX 16
#define EF_PFA_MAX_EDGE 16384   /* largest k-space grid edge */
#define EF_PFA_KERNEL_MAX 12    /* widest gridding kernel, cells */

/* What the stencil needs of each pulse seen. */
typedef struct {
  double tx[3], rcv[3];
  double r0o;          /* (|tx| + |rcv|) / 2: the range to the scene origin */
  double kr;           /* wavenumber of the profile's centre, rad per metre of differential range */
  double uh[3];        /* (tx / |tx| + rcv / |rcv|) / 2: the look direction (bisector) */
  double phi;          /* look angle in the image plane, unwrapped about the first pulse's */
} EfPfaPulseGeo;

/* Three look angles (first, middle, last) and the band's edges: enough to find, for any point, where the
 * FFT image shows it (a phase gradient). How badly it defocuses takes every look (ef_pfa_dof_report). */
typedef struct {
  EfPfaPulseGeo a, m, b;
  double   kr_lo, kr_c, kr_hi;
  gboolean cross_ok;     /* the look angles span enough to resolve the cross-range gradient */
  double   kcu, kcv;     /* the k-space support's centre, in the image plane */
  double   width;        /* the support's larger extent, rad/m */
} EfPfaStencil;

/* Where a profile's spectrum lands: bin q (|q| <= qmax) of its nb-point forward FFT is the sample at
 * wavenumber kq = kr + q dkq, placed at kq (uu, uv) in the image plane, with the phase
 * -(q dkq) r_start + kq (r0o - r0) - kq uo (the reference moved to the origin, then to the lattice
 * origin). */
typedef struct {
  double dkq;          /* wavenumber step between spectral bins, rad/m */
  guint  qmax;
  double uu, uv, uo;   /* the look direction on the grid's axes, and on the lattice origin (m) */
} EfPfaSpectrum;

typedef struct {
  EfGrid       grid;
  double       bandwidth;
  EfPfaParams  params;
  double       beta;             /* Kaiser-Bessel shape */
  double      *kb;               /* owned: kernel at |t| = i / EF_PFA_KBQ cells */
  guint        kb_n;
  double      *kb_nodes;         /* owned: kernel at the nodes of the Simpson rule for its transform */
  /* Fixed at the first block (ef_pfa_core_layout). */
  gboolean     ready;
  int          cc, rc;           /* ROI pixel at the lattice origin */
  double       ol[3];            /* lattice origin, scene frame */
  guint        nu, nv;           /* lattice region kept, centred on the origin */
  guint        mu, mv;           /* k-space grid */
  double       dku, dkv;         /* its spacing, rad/m */
  double      *deap_u, *deap_v;  /* owned: 1 / kernel transform over the kept region; kept over an unlayout
                                  * and reused while the sizes below stay the same */
  guint        deap_nu, deap_mu, deap_nv, deap_mv;
  /* Every pulse gridded so far. */
  GArray      *pulses;           /* owned, of EfPfaPulseGeo */
  guint64      n_gridded;
} EfPfaCore;

/* Checks the parameters (EF_COMPUTE_ERROR_INVALID_ARGUMENT) and fills core, which owns what it allocates
 * until ef_pfa_core_clear. */
gboolean ef_pfa_core_init (EfPfaCore *core, const EfGrid *grid, double bandwidth_hz,
                           const EfPfaParams *params, GError **error);
void     ef_pfa_core_clear (EfPfaCore *core);
/* Forgets the layout (ready becomes FALSE); the pulses stay. Cheap. */
void     ef_pfa_core_unlayout (EfPfaCore *core);
/* Appends the look geometry of count pulses. */
void     ef_pfa_core_append (EfPfaCore *core, const EfProfileMeta *meta, guint count);
/* Fixes the lattice and the k-space grid from the pulses appended so far (the first block's geometry)
 * and fills the deapodisation. INVALID_ARGUMENT when the grid would exceed EF_PFA_MAX_EDGE. */
gboolean ef_pfa_core_layout (EfPfaCore *core, GError **error);
/* The spectral placement of one profile of nb bins (pg: its geometry, as appended). */
void     ef_pfa_core_spectrum (const EfPfaCore *core, const EfProfileMeta *m, const EfPfaPulseGeo *pg,
                               guint nb, EfPfaSpectrum *sp);
/* The gridding kernel t cells from its centre, from the table (inline: gridding asks for every tap). */
static inline double
ef_pfa_core_kb_lookup (const EfPfaCore *core, double t)
{
  double f = fabs (t) * EF_PFA_KBQ;
  guint i = (guint) f;

  if (i + 1 >= core->kb_n)
    return 0;
  return core->kb[i] + (f - i) * (core->kb[i + 1] - core->kb[i]);
}

/* The stencil of every pulse seen; FALSE when there is none. */
gboolean ef_pfa_stencil_make (const EfPfaCore *core, EfPfaStencil *st);
/* Where the FFT image shows a scatterer at x, as lattice coordinates in metres (al, be) from the lattice
 * origin, and the phase psi the exact return has at the support's centre. Without the cross-range span
 * (or with the correction off) the scatterer is taken where it is. */
void     ef_pfa_apparent (const EfPfaCore *core, const EfPfaStencil *st, const double x[3], gboolean correct,
                          double *al, double *be, double *psi);
/* The image's own oversampling (pixels per resolution cell) that the resampling kernel is cut for. */
double   ef_pfa_image_oversampling (const EfPfaCore *core, const EfPfaStencil *st);
/* The quadratic phase error, peak to peak across a uniformly weighted aperture, at which the impulse
 * response's -3 dB width grows by 10%: 1.89 rad (the integral of exp(j Q t^2) over t in [-1, 1]
 * evaluated numerically; Q = pi / 2, the classical limit, widens it by 7%). test-pfa.c checks it in the
 * airborne geometry: PFA's cross-range width against BP's on axes and diagonals. */
#define EF_PFA_QPE_LIMIT_RAD 1.89

/* The depth-of-focus part of the report (qpe_max_rad, qpe_limit_rad, qpe_at_m, r_max_m, roi_radius_m,
 * outside_dof, note) over every pulse seen so far; the other fields are left as they are. Host code
 * shared by the CPU and CUDA formers, which call it after every block. The pulses' geometry only:
 * nothing waits for a device. */
void     ef_pfa_dof_report (const EfPfaCore *core, EfPfaReport *rep);

/* The Knab resampling table: w[q][k] is tap k's weight at fractional offset q / EF_PFA_KNQ. */
typedef struct {
  double w[EF_PFA_KNQ + 1][EF_PFA_TAPS_MAX];
  guint  taps;
} EfPfaKnab;

void     ef_pfa_knab_fill (EfPfaKnab *kn, guint taps, double os_img);

/* exp(j 2 pi c): the argument reduced to a quarter turn, then Taylor series good to 1e-14. */
static inline EfCf64
ef_pfa_rot_cycles (double c)
{
  double r = c - rint (c);
  double qf = rint (r * 4.0);
  double x = (r - 0.25 * qf) * (2.0 * G_PI);
  double x2 = x * x;
  double sn = x * (1 - x2 * (1.0 / 6) * (1 - x2 * (1.0 / 20) * (1 - x2 * (1.0 / 42) * (1 - x2 * (1.0 / 72)
                   * (1 - x2 * (1.0 / 110) * (1 - x2 * (1.0 / 156)))))));
  double cs = 1 - x2 * 0.5 * (1 - x2 * (1.0 / 12) * (1 - x2 * (1.0 / 30) * (1 - x2 * (1.0 / 56)
                   * (1 - x2 * (1.0 / 90) * (1 - x2 * (1.0 / 132))))));

  switch (((int) qf) & 3)
    {
    case 0: return cs + I * sn;
    case 1: return -sn + I * cs;
    case 2: return -cs - I * sn;
    default: return sn - I * cs;
    }
}

G_END_DECLS
