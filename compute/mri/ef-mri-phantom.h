/* ef-mri-phantom.h: Shepp-Logan phantoms with exact Fourier transforms, and non-Cartesian trajectories. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "ef-mri.h"

G_BEGIN_DECLS

/* One ellipse (2-D) or ellipsoid (3-D) of the phantom, in FOV units, rotated by phi about z. */
typedef struct {
  double value;
  double axes[3];
  double centre[3];
  double phi;            /* radians */
} EfMriEllipse;

typedef struct {
  guint               dim;
  guint               n;
  const EfMriEllipse *e;   /* borrowed: static tables */
} EfMriPhantom;

/* The modified (Toft) Shepp-Logan phantom in 2-D (10 ellipses) and its 3-D form (10 ellipsoids, turned
 * about z only), scaled into the FOV [-1/2, 1/2)^dim. */
EfMriPhantom ef_mri_phantom_shepp_logan (guint dim);

/* The phantom's value at x (FOV units). */
double ef_mri_phantom_value (const EfMriPhantom *p, const double x[3]);
/* Its exact continuous Fourier transform, integral f(x) exp(-j 2 pi k . x) dx, at k (cycles per FOV):
 * each ellipse's is a jinc J1(2 pi r) / r, each ellipsoid's 4 pi (sin s - s cos s) / s^3 with s = 2 pi r,
 * r = |diag(axes) R^T k|, scaled by value * product of axes and shifted by exp(-j 2 pi k . centre). */
EfCf64 ef_mri_phantom_ft (const EfMriPhantom *p, const double k[3]);
/* The phantom sampled at grid's voxel centres (super > 1: the mean of super^dim points in each voxel). */
void   ef_mri_phantom_raster (const EfMriPhantom *p, const EfMriGrid *grid, guint super, double *out);
/* Its samples on a trajectory, scaled by scale (N^dim turns them into the discrete model's d = F rho). */
void   ef_mri_phantom_sample (const EfMriPhantom *p, const EfMriTraj *t, double scale, EfCf64 *d, guint n_threads);

/* Trajectories, all within |k_a| <= n / 2 (cycles per FOV) for an image of n voxels a side; owned, or
 * NULL with error.
 *   radial: n_spokes diameters at angles pi s / n_spokes, n_read samples each, spacing n / n_read;
 *   spiral: n_arms interleaved Archimedean arms of n_per_arm samples, turns enough for Nyquist;
 *   stack of spirals: n_part partitions kz = p - n_part / 2 scaled to [-n/2, n/2), a spiral on each. */
EfMriTraj *ef_mri_traj_radial (guint n, guint n_spokes, guint n_read, GError **error);
EfMriTraj *ef_mri_traj_spiral (guint n, guint n_arms, guint n_per_arm, GError **error);
EfMriTraj *ef_mri_traj_stack_of_spirals (guint n, guint n_part, guint n_arms, guint n_per_arm, GError **error);
/* The exact k-space area of each radial sample (a ring sector of pi / n_spokes radians), (cycles/FOV)^2. */
void       ef_mri_density_radial (guint n, guint n_spokes, guint n_read, double *area);

/* The problem of the reference GPU study: 64^3 voxels and 3.2 million samples (stack of 64 spirals of
 * 16 arms of 3125 samples), with the phantom's data. Large: for benchmarks, not for tests. */
EfMriTraj *ef_mri_seed_problem (EfCf64 **d, GError **error);

G_END_DECLS
