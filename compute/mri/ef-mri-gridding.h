/* ef-mri-gridding.h: the gridding baseline: Kaiser-Bessel interpolation onto a 2x grid, FFT, deapodisation. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "ef-mri.h"

G_BEGIN_DECLS

#define EF_MRI_KB_MIN_WIDTH 2u
#define EF_MRI_KB_MAX_WIDTH 8u

/* Beatty et al.'s (2005) shape parameter for a kernel of width grid cells at oversampling sigma. */
double ef_mri_kb_beta (guint width, double sigma);
/* The modified Bessel function I0 (power series; enough terms for any beta used here). */
double ef_mri_bessel_i0 (double x);

/* Gridding reconstruction of (already density-weighted) samples d onto image, an image grid of
 * ef_mri_grid_image's kind (spacing 1 / n): the samples are spread with a Kaiser-Bessel kernel of width
 * cells onto a grid oversampled twice, inverse-FFTed (FFTW), cropped and divided by the kernel's
 * transform. It approximates ef_mri_adjoint on the same samples. out: one value per voxel (caller's).
 * Blocks. */
gboolean ef_mri_gridding (const EfMriTraj *t, const EfCf64 *d, const EfMriGrid *image, guint width, EfCf64 *out,
                          GError **error);

/* Density compensation by Pipe and Menon's iteration w <- w / (w * C * C) through the same kernel, for
 * samples reconstructed on image. area receives each sample's k-space area in (cycles / FOV)^dim, so that
 * sum_m area_m F(k_m) exp(j 2 pi k_m x) approximates the inverse Fourier transform. Blocks. */
gboolean ef_mri_density_pipe (const EfMriTraj *t, const EfMriGrid *image, guint width, guint iterations, double *area,
                              GError **error);

G_END_DECLS
