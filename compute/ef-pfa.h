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
 * Where the planar wavefront fails. The residual |a - x| - |a| + u.x is, to second order,
 * (|x|^2 - (u.x)^2) / (2 R). Across the aperture it has a linear part, which moves a scatterer (the
 * geometric distortion), and a quadratic part, which defocuses it. For a circular aperture of azimuth
 * extent theta at grazing angle psi and range R, a scatterer at radius r from the scene centre sees the
 * quadratic phase error, at the aperture's edges relative to its centre,
 *     QPE = (4 pi / lambda) * r^2 cos^2(psi) / (2 R) * (theta / 2)^2 = pi r^2 cos^2(psi) theta^2 / (2 lambda R)
 * (largest along the range and cross-range axes). Setting QPE = pi / 2 gives the classical limit
 *     r_max = sqrt(lambda R) / (theta cos psi) = 2 rho_a sqrt(R / lambda),
 * rho_a = lambda / (2 theta cos psi) being the ground cross-range resolution (Carrara, Goodman and
 * Majewski, "Spotlight Synthetic Aperture Radar", 1995, section 3.6). Beyond r_max a scatterer is
 * visibly defocused. ef_pfa_form measures the QPE itself, for the actual pulses, at the ROI's boundary
 * (a second difference of the planar residual over the first, middle and last look angles, at the top of
 * the band) and raises outside_dof when it passes pi / 2; it also reports r_max from the formula.
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
  double   qpe_max_rad;         /* largest quadratic phase error over the ROI's boundary */
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

/* Forgets every gridded pulse. */
void     ef_pfa_clear (EfPfa *self);

G_END_DECLS
