/* ef-mri.h: non-Cartesian Fourier reconstruction: trajectories, the exact F^H d and Q sums, the forward F. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

#include "ef-types.h"

G_BEGIN_DECLS

/*
 * Conventions. Positions are in units of the field of view (FOV = 1); k is in cycles per FOV unit, so
 * a grid of N voxels is sampled to Nyquist by k in [-N/2, N/2). A voxel grid of n[a] voxels along
 * axis a (a = 0 is x, the fastest in memory) has voxel i at x = (i - n[a] / 2) * spacing. The image
 * grid has spacing 1 / N; Q's doubled grid has 2 N voxels at the same spacing, so that it holds every
 * difference x_n - x_n' of two image voxels.
 *
 *   forward:   (F rho)_m   = sum_n rho_n exp(-j 2 pi k_m . x_n)
 *   adjoint:   (F^H d)_n   = sum_m d_m   exp(+j 2 pi k_m . x_n)
 *   Q:         Q(x_n)      = sum_m w_m   exp(+j 2 pi k_m . x_n)    (w = |phi|^2 / density, real)
 * so that (F^H W F rho)_n = sum_n' Q(x_n - x_n') rho_n'.
 */
#define EF_MRI_MAX_DIM 3
/* Limits that keep every product of sizes far from overflow and every allocation bounded. */
#define EF_MRI_MAX_EDGE 4096u
#define EF_MRI_MAX_VOXELS (G_GUINT64_CONSTANT (1) << 30)
#define EF_MRI_MAX_SAMPLES (G_GUINT64_CONSTANT (1) << 32)

typedef struct {
  guint  dim;          /* 2 or 3 */
  guint  n[EF_MRI_MAX_DIM];  /* voxels along x, y (, z); unused axes are 1 */
  double spacing;      /* voxel pitch in FOV units */
} EfMriGrid;

/* A k-space trajectory: m samples of dim coordinates, sample-major (k[m * dim + a]). */
typedef struct {
  guint   dim;
  gsize   m;
  double *k;           /* owned, m * dim */
} EfMriTraj;

/* The image grid of n voxels a side (spacing 1 / n), and Q's doubled grid for it. */
EfMriGrid ef_mri_grid_image (guint dim, guint n);
EfMriGrid ef_mri_grid_doubled (const EfMriGrid *image);
/* Voxels in grid, or 0 (with error) when the grid is malformed or too large. */
gsize     ef_mri_grid_voxels (const EfMriGrid *grid, GError **error);
/* Voxel i's position along axis a. */
static inline double
ef_mri_grid_x (const EfMriGrid *g, guint a, guint i)
{
  return ((double) i - (double) (g->n[a] / 2)) * g->spacing;
}

/* A trajectory of m samples, its coordinates zeroed; owned, or NULL with error for bad sizes. */
EfMriTraj *ef_mri_traj_new (guint dim, gsize m, GError **error);
void       ef_mri_traj_free (EfMriTraj *t);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (EfMriTraj, ef_mri_traj_free)
/* FALSE with error when a coordinate is not finite. */
gboolean   ef_mri_traj_check (const EfMriTraj *t, GError **error);

/* The exact sums, on the CPU, OpenMP over voxels (over samples for the forward). out has one value per
 * voxel of grid (per sample for the forward) and is overwritten; the caller owns every buffer. The
 * fp32 variants keep k, x and the phase in float (the phase reduced to cycles before sin and cos) and
 * sum tiles of samples in float, adding each tile's sum into a double. n_threads 0: all. Block. */
gboolean ef_mri_adjoint (const EfMriTraj *t, const EfCf64 *d, const EfMriGrid *grid, EfCf64 *out, guint n_threads,
                         GError **error);
gboolean ef_mri_adjoint_f32 (const EfMriTraj *t, const EfCf32 *d, const EfMriGrid *grid, EfCf32 *out,
                             guint n_threads, GError **error);
/* Q on grid (usually ef_mri_grid_doubled of the image's); w NULL means |phi|^2 = 1. */
gboolean ef_mri_q (const EfMriTraj *t, const double *w, const EfMriGrid *grid, EfCf64 *out, guint n_threads,
                   GError **error);
gboolean ef_mri_q_f32 (const EfMriTraj *t, const float *w, const EfMriGrid *grid, EfCf32 *out, guint n_threads,
                       GError **error);
gboolean ef_mri_forward (const EfMriTraj *t, const EfCf64 *rho, const EfMriGrid *grid, EfCf64 *out, guint n_threads,
                         GError **error);

G_END_DECLS
