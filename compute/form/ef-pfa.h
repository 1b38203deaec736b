/* ef-pfa.h: the polar format algorithm (PFA): k-space gridding of spotlight data and a 2-D FFT, on the CPU. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "ef-types.h"
#include "ef-grid.h"
#include "ef-rangecomp.h"

G_BEGIN_DECLS

/*
 * Spotlight data whose phase is referenced to the scene reference point (the origin of the scene frame)
 * are samples of the scene's spectrum: sample k of pulse p sits at the wavenumber vector
 * K = (4 pi f_k / c) u_p, u_p the unit vector from the origin to the antenna (the bisector for bistatic
 * pulses), once the planar-wavefront approximation |a - x| - |a| ~ -u.x is made. PFA puts those polar
 * samples on a rectangular k-space grid aligned with the image grid and takes one 2-D FFT.
 *
 * The polar-to-rectangular interpolation here is convolutional gridding: every sample is spread onto an
 * oversampled Cartesian grid with a Kaiser-Bessel kernel (Beatty et al., IEEE TMI 24, 2005), the grid is
 * Fourier transformed, and the kernel's transform is divided out. Gridding is linear in the samples, so
 * each pulse block is gridded as it arrives (the progressive job works unchanged, in any block order);
 * the image is formed from the grid accumulated so far whenever it is asked for. Memory is the grid,
 * never the phase history. Samples are weighted as backprojection weights them (no polar Jacobian), so
 * the PFA image equals the BP image wherever the planar wavefront holds.
 *
 * The spectrum is taken back from the range profiles (a forward FFT of each), so any domain and window
 * that range compression accepts works; a profile's reference range r0 that is not the distance to the
 * origin is moved there first with a linear phase.
 *
 * Where the planar wavefront fails. The residual e(x) = |a - x| - |a| + u.x is, to second order,
 * (|x|^2 - (u.x)^2) / (2 R). Across the aperture, the part of it that a displacement d of the image
 * explains (d.u, linear in the k-space position) only moves a scatterer (the geometric distortion); the
 * rest defocuses it. For a circular aperture of azimuth extent theta at grazing angle psi and range R,
 * a scatterer at radius r from the scene centre sees a quadratic phase error of the order of
 *     QPE = (4 pi / lambda) * r^2 cos^2(psi) / (2 R) * (theta / 2)^2 = pi r^2 cos^2(psi) theta^2 / (2 lambda R)
 * and setting QPE = pi / 2 gives the classical limit
 *     r_max = sqrt(lambda R) / (theta cos psi) = 2 rho_a sqrt(R / lambda),
 * rho_a = lambda / (2 theta cos psi) being the ground cross-range resolution (Carrara, Goodman and
 * Majewski, "Spotlight Synthetic Aperture Radar", 1995, section 3.6). That order of magnitude hides a
 * strong dependence on direction: the second difference of e over the look angle is proportional to
 * x^2 - y^2 (along and across the look), which vanishes on the diagonals, but the error that remains once
 * the best displacement is removed does not (the displacement's own curvature over the arc of looks
 * adds to it), and a scatterer on a diagonal defocuses too. So the check measures that: for
 * every pulse seen so far, e at points along the ROI's boundary (where it is largest) and its centre,
 * the best displacement removed by least squares, the rest's peak-to-peak phase at the top of the band.
 * It raises outside_dof when that exceeds the phase at which a uniformly weighted aperture's impulse
 * response widens by 10% (EF_PFA_QPE_LIMIT_RAD, 1.89 rad at the band's centre); test-pfa.c confirms it
 * against the measured width of PFA's and BP's images on axes and diagonals. r_max is reported too.
 *
 * The distortion is deterministic and is corrected (correct_distortion): for each output pixel x the
 * place y(x) where the FFT image shows a scatterer at x (the phase gradient of the exact return across
 * the k-space support, at its centre) is computed exactly, and the image is read there with a Knab
 * interpolator after removing the support's carrier; the residual phase at the support's centre is
 * restored, so that PFA and BP agree in phase as well as in magnitude.
 */

typedef struct {
  double   oversample;          /* k-space grid size over the image lattice: 1.5 to 3 (default 2) */
  guint    kernel_width;        /* Kaiser-Bessel gridding kernel, grid cells: 3 to 12 (default 6) */
  guint    resample_taps;       /* Knab kernel of the distortion correction: even, 4 to 16 (default 8) */
  gboolean correct_distortion;  /* undo the planar-wavefront distortion (default TRUE) */
  guint    n_threads;           /* 0 = all cores */
} EfPfaParams;

void ef_pfa_params_init (EfPfaParams *params);

typedef struct {
  guint64  n_pulses;            /* pulses gridded so far */
  gboolean outside_dof;         /* part of the ROI lies beyond the depth of focus: expect defocus there */
  double   qpe_max_rad;         /* largest quadratic phase error over the ROI, top of the band, rad */
  double   qpe_limit_rad;       /* the error, at the top of the band, past which outside_dof is raised */
  double   qpe_at_m[2];         /* where (scene x, y) the largest error is */
  double   r_max_m;             /* the classical depth-of-focus radius 2 rho_a sqrt(R / lambda) */
  double   roi_radius_m;        /* farthest point of the ROI from the scene centre */
  double   distortion_max_m;    /* largest shift the distortion correction undid (0 when off) */
  char     note[256];           /* one line for the user when outside_dof, else empty */
} EfPfaReport;

typedef struct _EfPfa EfPfa;

/* A former for one output grid. bandwidth_hz is the processed band (it picks the spectral bins out of
 * the profiles); fp64 selects double-precision gridding and FFTs (and profiles). Returns NULL with
 * EF_COMPUTE_ERROR_INVALID_ARGUMENT for parameters out of range. */
EfPfa   *ef_pfa_new (const EfGrid *grid, double bandwidth_hz, gboolean fp64, const EfPfaParams *params,
                     GError **error);
void     ef_pfa_free (EfPfa *self);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (EfPfa, ef_pfa_free)

/* Grids a block of range profiles (of the precision given at creation). The first block fixes the k-space
 * grid's size (from the ROI and the distortion it will need to undo). Fails with NO_MEMORY, or
 * INVALID_ARGUMENT when the grid would be absurdly large (a spacing coarser than the resolution, a
 * distortion of thousands of pixels). Blocks. */
gboolean ef_pfa_add (EfPfa *self, const EfProfiles *profiles, GError **error);

/* Forms the image from everything gridded so far and writes (does not add) it into out64 or out32
 * (exactly one non-NULL; width * height of the grid). Zeros when nothing has been gridded. report may be
 * NULL. Blocks; the accumulated grid is left as it was. */
gboolean ef_pfa_form (EfPfa *self, EfCf64 *out64, EfCf32 *out32, EfPfaReport *report, GError **error);

/* The depth-of-focus part of the report (outside_dof, qpe_*, r_max_m, roi_radius_m, note) for the pulses
 * gridded so far, without forming the image: cheap, for a check after every block. Does not block. */
void     ef_pfa_check (EfPfa *self, EfPfaReport *report);

/* Forgets every gridded pulse. */
void     ef_pfa_clear (EfPfa *self);

G_END_DECLS
