/* ef-mri-coils.h: several receive coils: sensitivities (synthetic, or estimated from the centre of k-space), SENSE least squares. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "ef-mri-cg.h"

G_BEGIN_DECLS

/*
 * Coil c sees S_c(x) rho(x), so its samples are d_c = F S_c rho. Sensitivity arrays hold n_coils maps of
 * one value per voxel of the image grid, one map after the other (coil-major), and so do the coils'
 * sample arrays (n_coils arrays of t->m samples).
 */
#define EF_MRI_MAX_COILS 256u

/* Smooth synthetic sensitivities of n_coils coils spaced round the object (in the x-y plane, 0.75 FOV
 * from its centre): each a Gaussian of its distance, 0.45 FOV wide, with a phase that turns by one
 * radian across the FOV along the coil's direction and a constant offset of its own; normalised so that
 * sum_c |S_c|^2 = 1 at every voxel. s: n_coils maps on grid (caller's). */
void     ef_mri_coils_synthetic (const EfMriGrid *grid, guint n_coils, EfCf64 *s);

typedef struct {
  double centre_radius;   /* cycles per FOV: the samples with |k| below it are used (> 0) */
  double threshold;       /* voxels where the low-resolution root sum of squares is below threshold times its
                           * largest value get no sensitivity (S = 0): outside the object; 0 keeps them all */
} EfMriCoilEstimate;

/* The standard estimate from the data: each coil's low-resolution image, the adjoint of its samples
 * with |k| < centre_radius weighted by w (density weights; NULL: 1) and a Hann taper in |k|, divided
 * by the root sum of squares of all the coils' images. It matches the true maps times the phase of the
 * low-resolution object, up to the blur of a smooth map. d: n_coils arrays of t->m samples; s receives
 * n_coils maps on grid (caller's). Blocks (OpenMP). FALSE with error for bad sizes or no central sample. */
gboolean ef_mri_coils_estimate (const EfMriTraj *t, const EfCf64 *d, const double *w, guint n_coils,
                                const EfMriGrid *grid, const EfMriCoilEstimate *p, EfCf64 *s, GError **error);

/* out = sum_c conj(S_c) img_c (coil images img: n_coils maps), or with s NULL the root sum of squares
 * sqrt(sum_c |img_c|^2) (real, in the real parts). */
void     ef_mri_coils_combine (const EfCf64 *s, const EfCf64 *img, guint n_coils, gsize voxels, EfCf64 *out);

/* Conjugate gradients on the SENSE normal equations
 *   (sum_c S_c^H F^H W F S_c + lambda I) x = b,   b = sum_c S_c^H F^H W d_c,
 * with F^H W F applied through t (the coils share one trajectory). x holds the start (zeros for none)
 * and receives the solution; report as ef_mri_cg's (its objective is left at 0). Blocks. */
gboolean ef_mri_sense_cg (EfMriToeplitz *t, const EfCf64 *s, guint n_coils, const EfCf64 *b, double lambda,
                          guint max_iter, double tol, EfCf64 *x, EfMriCgReport *report, GError **error);
/* The same with p: its lambda (R = I: p->reg must be EF_MRI_REG_NONE or EF_MRI_REG_TIKHONOV), max_iter,
 * tol, and its step callback after every iteration (which may stop it). Blocks. */
gboolean ef_mri_sense_cg_params (EfMriToeplitz *t, const EfCf64 *s, guint n_coils, const EfCf64 *b,
                                 const EfMriCgParams *p, EfCf64 *x, EfMriCgReport *report, GError **error);
/* y = (sum_c S_c^H F^H W F S_c) x: the operator of ef_mri_sense_cg, without lambda. work: one image. */
void     ef_mri_sense_apply (EfMriToeplitz *t, const EfCf64 *s, guint n_coils, gsize voxels, const EfCf64 *x,
                             EfCf64 *work, EfCf64 *y);

G_END_DECLS
