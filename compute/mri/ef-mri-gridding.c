/* ef-mri-gridding.c: Kaiser-Bessel gridding onto a 2x grid, FFTW, deapodisation; Pipe-Menon density weights. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-mri-gridding"
#include "config.h"

#include <math.h>
#include <string.h>

#include <fftw3.h>

#include "ef-error.h"
#include "ef-fftw.h"
#include "ef-mri-gridding.h"

#define EF_MRI_SIGMA 2u

double
ef_mri_kb_beta (guint width, double sigma)
{
  double w = width, s = sigma;

  return G_PI * sqrt (w * w / (s * s) * (s - 0.5) * (s - 0.5) - 0.8);
}

double
ef_mri_bessel_i0 (double x)
{
  double sum = 1, term = 1, q = x * x / 4;

  for (int k = 1; k < 200 && term > 1e-17 * sum; k++)
    {
      term *= q / ((double) k * k);
      sum += term;
    }
  return sum;
}

/* The kernel at u grid cells from its centre. */
static inline double
ef_kb (double u, guint width, double beta)
{
  double t = 2 * u / width;

  return fabs (t) < 1 ? ef_mri_bessel_i0 (beta * sqrt (1 - t * t)) : 0;
}

/* Its continuous Fourier transform at nu cycles per grid cell. */
static double
ef_kb_ft (double nu, guint width, double beta)
{
  double z2 = beta * beta - (G_PI * width * nu) * (G_PI * width * nu);

  if (z2 > 1e-12)
    return width * sinh (sqrt (z2)) / sqrt (z2);
  if (z2 < -1e-12)
    return width * sin (sqrt (-z2)) / sqrt (-z2);
  return width;
}

typedef struct {
  guint  dim, width;
  double beta;
  gsize  g[EF_MRI_MAX_DIM];      /* grid cells along each axis (1 beyond dim) */
  gsize  n_cells;
} EfKbGrid;

static gboolean
ef_kb_grid_init (EfKbGrid *kg, const EfMriTraj *t, const EfMriGrid *image, guint width, GError **error)
{
  gsize n_vox = ef_mri_grid_voxels (image, error);

  if (n_vox == 0 || !ef_mri_traj_check (t, error))
    return FALSE;
  if (t->dim != image->dim || width < EF_MRI_KB_MIN_WIDTH || width > EF_MRI_KB_MAX_WIDTH
      || fabs (image->spacing * image->n[0] - 1) > 1e-12 || image->n[0] != image->n[1]
      || (image->dim == 3 && image->n[2] != image->n[0]))
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "Gridding needs a cubic image grid of spacing 1 / N matching the trajectory, and a kernel "
                   "%u to %u cells wide", EF_MRI_KB_MIN_WIDTH, EF_MRI_KB_MAX_WIDTH);
      return FALSE;
    }
  kg->dim = image->dim;
  kg->width = width;
  kg->beta = ef_mri_kb_beta (width, EF_MRI_SIGMA);
  kg->n_cells = 1;
  for (guint a = 0; a < EF_MRI_MAX_DIM; a++)
    {
      kg->g[a] = a < kg->dim ? (gsize) EF_MRI_SIGMA * image->n[a] : 1;
      kg->n_cells *= kg->g[a];
    }
  if (kg->n_cells > EF_MRI_MAX_VOXELS)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "Gridding onto %" G_GSIZE_FORMAT " cells is too large", kg->n_cells);
      return FALSE;
    }
  return TRUE;
}

/* The cells sample i touches along each axis (first index, wrapped later) and their kernel weights. */
static void
ef_kb_taps (const EfKbGrid *kg, const EfMriTraj *t, gsize i, long first[EF_MRI_MAX_DIM],
            double w[EF_MRI_MAX_DIM][EF_MRI_KB_MAX_WIDTH + 1])
{
  for (guint a = 0; a < EF_MRI_MAX_DIM; a++)
    {
      if (a >= kg->dim)
        {
          first[a] = 0;
          w[a][0] = 1;
          for (guint j = 1; j <= kg->width; j++)
            w[a][j] = 0;
          continue;
        }
      double g = EF_MRI_SIGMA * t->k[i * t->dim + a] + (double) (kg->g[a] / 2);
      first[a] = (long) ceil (g - kg->width / 2.0);
      for (guint j = 0; j <= kg->width; j++)
        w[a][j] = ef_kb (g - (double) (first[a] + (long) j), kg->width, kg->beta);
    }
}

static inline gsize
ef_wrap (long j, gsize n)
{
  long r = j % (long) n;

  return (gsize) (r < 0 ? r + (long) n : r);
}

/* Spreads (value) of sample i onto cells (complex, interleaved re/im), or with gather reads them back. */
static void
ef_kb_visit (const EfKbGrid *kg, const EfMriTraj *t, gsize i, double *cells, double *re, double *im, gboolean gather)
{
  long first[EF_MRI_MAX_DIM];
  double w[EF_MRI_MAX_DIM][EF_MRI_KB_MAX_WIDTH + 1];
  guint nz = kg->dim == 3 ? kg->width + 1 : 1;
  double sr = 0, si = 0;

  ef_kb_taps (kg, t, i, first, w);
  for (guint jz = 0; jz < nz; jz++)
    for (guint jy = 0; jy <= kg->width; jy++)
      {
        double wyz = w[2][jz] * w[1][jy];
        gsize row = (ef_wrap (first[2] + jz, kg->g[2]) * kg->g[1] + ef_wrap (first[1] + jy, kg->g[1])) * kg->g[0];

        if (wyz == 0)
          continue;
        for (guint jx = 0; jx <= kg->width; jx++)
          {
            double ww = wyz * w[0][jx];
            gsize c = 2 * (row + ef_wrap (first[0] + jx, kg->g[0]));

            if (gather)
              {
                sr += ww * cells[c];
                si += ww * cells[c + 1];
              }
            else
              {
                cells[c] += ww * *re;
                cells[c + 1] += ww * *im;
              }
          }
      }
  if (gather)
    {
      *re = sr;
      *im = si;
    }
}

gboolean
ef_mri_gridding (const EfMriTraj *t, const EfCf64 *d, const EfMriGrid *image, guint width, EfCf64 *out,
                 GError **error)
{
  EfKbGrid kg;
  fftw_complex *cells;
  fftw_plan plan;
  int dims[EF_MRI_MAX_DIM];
  g_autofree double *deapo = NULL;   /* per axis, EF_MRI_MAX_EDGE values apart */

  g_return_val_if_fail (t != NULL && d != NULL && image != NULL && out != NULL, FALSE);
  if (!ef_kb_grid_init (&kg, t, image, width, error))
    return FALSE;
  cells = fftw_malloc (kg.n_cells * sizeof (fftw_complex));
  if (cells == NULL)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_MEMORY, "No memory for the gridding grid");
      return FALSE;
    }
  memset (cells, 0, kg.n_cells * sizeof (fftw_complex));
  for (gsize i = 0; i < t->m; i++)
    {
      double re = creal (d[i]), im = cimag (d[i]);
      ef_kb_visit (&kg, t, i, (double *) cells, &re, &im, FALSE);
    }

  /* Cell j holds k = (j - G/2) / sigma and voxel i sits at x = (i - G/2) / N: the transform's kernel is
   * exp(+j 2 pi (j - G/2)(i - G/2) / G), a plain backward DFT between two sign flips (G/2 = N). */
  for (guint a = 0; a < kg.dim; a++)
    dims[a] = (int) kg.g[kg.dim - 1 - a];
  for (gsize c = 0; c < kg.n_cells; c++)
    {
      gsize ix = c % kg.g[0], iy = (c / kg.g[0]) % kg.g[1], iz = c / (kg.g[0] * kg.g[1]);

      if ((ix + iy + iz) & 1)
        {
          cells[c][0] = -cells[c][0];
          cells[c][1] = -cells[c][1];
        }
    }
  ef_fftw_planner_lock ();
  plan = fftw_plan_dft ((int) kg.dim, dims, cells, cells, FFTW_BACKWARD, FFTW_ESTIMATE);
  ef_fftw_planner_unlock ();
  if (plan == NULL)
    {
      fftw_free (cells);
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_FAILED, "FFTW could not plan the gridding transform");
      return FALSE;
    }
  fftw_execute (plan);
  ef_fftw_planner_lock ();
  fftw_destroy_plan (plan);
  ef_fftw_planner_unlock ();

  deapo = g_new (double, EF_MRI_MAX_DIM * EF_MRI_MAX_EDGE);
  for (guint a = 0; a < EF_MRI_MAX_DIM; a++)
    for (guint i = 0; i < image->n[a]; i++)
      deapo[a * EF_MRI_MAX_EDGE + i] =
        a < kg.dim ? 1.0 / ef_kb_ft (((double) i - image->n[a] / 2) / (double) kg.g[a], width, kg.beta) : 1.0;
  for (guint iz = 0; iz < image->n[2]; iz++)
    for (guint iy = 0; iy < image->n[1]; iy++)
      for (guint ix = 0; ix < image->n[0]; ix++)
        {
          gsize cx = ix + image->n[0] / 2, cy = iy + image->n[1] / 2, cz = kg.dim == 3 ? iz + image->n[2] / 2 : 0;
          gsize c = (cz * kg.g[1] + cy) * kg.g[0] + cx;
          /* (-1)^(i + G/2) per axis, G/2 = N */
          gsize par = cx + cy + cz + image->n[0] + image->n[1] + (kg.dim == 3 ? image->n[2] : 0);
          double s = (par & 1 ? -1.0 : 1.0) * deapo[ix] * deapo[EF_MRI_MAX_EDGE + iy]
                     * deapo[2 * EF_MRI_MAX_EDGE + iz];

          out[((gsize) iz * image->n[1] + iy) * image->n[0] + ix] = s * (cells[c][0] + I * cells[c][1]);
        }
  fftw_free (cells);
  return TRUE;
}

gboolean
ef_mri_density_pipe (const EfMriTraj *t, const EfMriGrid *image, guint width, guint iterations, double *area,
                     GError **error)
{
  EfKbGrid kg;
  g_autofree double *cells = NULL;
  double c0, scale = 1;

  g_return_val_if_fail (t != NULL && image != NULL && area != NULL, FALSE);
  if (!ef_kb_grid_init (&kg, t, image, width, error))
    return FALSE;
  if (iterations == 0 || iterations > 1000)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "Density compensation: %u iterations is out of range", iterations);
      return FALSE;
    }
  cells = g_try_new (double, 2 * kg.n_cells);
  if (cells == NULL)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_MEMORY, "No memory for the density grid");
      return FALSE;
    }
  for (gsize i = 0; i < t->m; i++)
    area[i] = 1;
  for (guint it = 0; it < iterations; it++)
    {
      memset (cells, 0, 2 * kg.n_cells * sizeof (double));
      for (gsize i = 0; i < t->m; i++)
        {
          double re = area[i], im = 0;
          ef_kb_visit (&kg, t, i, cells, &re, &im, FALSE);
        }
      for (gsize i = 0; i < t->m; i++)
        {
          double re = 0, im = 0;
          ef_kb_visit (&kg, t, i, cells, &re, &im, TRUE);
          if (re > 0)
            area[i] /= re;
        }
    }
  /* At the fixed point sum_m' w_m' (C * C)(k_m - k_m') = 1; the kernel's self-convolution integrates to
   * C^(0)^2 per axis, in cells of 1 / sigma cycles per FOV. */
  c0 = ef_kb_ft (0, width, kg.beta);
  for (guint a = 0; a < kg.dim; a++)
    scale *= c0 * c0 / EF_MRI_SIGMA;
  for (gsize i = 0; i < t->m; i++)
    area[i] *= scale;
  return TRUE;
}
