/* ef-mri.c: the exact non-Cartesian sums F^H d, Q and F on the CPU, in float64 and float32. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-mri"
#include "config.h"

#include <math.h>
#include <string.h>

#include "ef-error.h"
#include "ef-mri.h"

/* Samples summed in float before the tile's sum joins the double total (fp32 variants): short enough
 * that float's rounding over a tile stays near its epsilon, long enough to vectorise. */
#define EF_MRI_F32_TILE 256

EfMriGrid
ef_mri_grid_image (guint dim, guint n)
{
  EfMriGrid g = { .dim = dim, .n = { n, n, dim == 3 ? n : 1 }, .spacing = n > 0 ? 1.0 / n : 0 };
  return g;
}

EfMriGrid
ef_mri_grid_doubled (const EfMriGrid *image)
{
  EfMriGrid g = *image;

  for (guint a = 0; a < image->dim; a++)
    g.n[a] = 2 * image->n[a];
  return g;
}

gsize
ef_mri_grid_voxels (const EfMriGrid *grid, GError **error)
{
  guint64 v = 1;

  if (grid == NULL || (grid->dim != 2 && grid->dim != 3) || !(grid->spacing > 0) || !isfinite (grid->spacing))
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "A reconstruction grid must be 2-D or 3-D with a positive voxel pitch");
      return 0;
    }
  for (guint a = 0; a < EF_MRI_MAX_DIM; a++)
    {
      guint n = grid->n[a];

      if (n == 0 || n > EF_MRI_MAX_EDGE || (a >= grid->dim && n != 1))
        {
          g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                       "A reconstruction grid of %u x %u x %u voxels is out of range (at most %u a side)", grid->n[0],
                       grid->n[1], grid->n[2], EF_MRI_MAX_EDGE);
          return 0;
        }
      v *= n;
    }
  if (v > EF_MRI_MAX_VOXELS)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "A reconstruction grid of %" G_GUINT64_FORMAT " voxels is too large", v);
      return 0;
    }
  return (gsize) v;
}

EfMriTraj *
ef_mri_traj_new (guint dim, gsize m, GError **error)
{
  EfMriTraj *t;

  if ((dim != 2 && dim != 3) || m == 0 || (guint64) m > EF_MRI_MAX_SAMPLES)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "A %u-D trajectory of %" G_GSIZE_FORMAT " samples is out of range", dim, m);
      return NULL;
    }
  t = g_new0 (EfMriTraj, 1);
  t->dim = dim;
  t->m = m;
  t->k = g_try_new0 (double, m * dim);
  if (t->k == NULL)
    {
      g_free (t);
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_MEMORY, "No memory for %" G_GSIZE_FORMAT " samples", m);
      return NULL;
    }
  return t;
}

void
ef_mri_traj_free (EfMriTraj *t)
{
  if (t == NULL)
    return;
  g_free (t->k);
  g_free (t);
}

gboolean
ef_mri_traj_check (const EfMriTraj *t, GError **error)
{
  for (gsize i = 0; i < t->m * t->dim; i++)
    if (!isfinite (t->k[i]))
      {
        g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                     "k-space sample %" G_GSIZE_FORMAT " is not finite", i / t->dim);
        return FALSE;
      }
  return TRUE;
}

static gboolean
ef_mri_check (const EfMriTraj *t, const EfMriGrid *grid, gsize *n_vox, GError **error)
{
  *n_vox = ef_mri_grid_voxels (grid, error);
  if (*n_vox == 0)
    return FALSE;
  if (t->dim != grid->dim)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "A %u-D trajectory cannot reconstruct a %u-D grid", t->dim, grid->dim);
      return FALSE;
    }
  return ef_mri_traj_check (t, error);
}

/* Voxel v's position (x, y, z; z = 0 in 2-D). */
static inline void
ef_mri_voxel (const EfMriGrid *g, gsize v, double x[3])
{
  guint ix = (guint) (v % g->n[0]);
  guint iy = (guint) ((v / g->n[0]) % g->n[1]);
  guint iz = (guint) (v / ((gsize) g->n[0] * g->n[1]));

  x[0] = ef_mri_grid_x (g, 0, ix);
  x[1] = ef_mri_grid_x (g, 1, iy);
  x[2] = g->dim == 3 ? ef_mri_grid_x (g, 2, iz) : 0.0;
}

/* The k coordinate of sample i along axis a, 0 beyond the trajectory's dimensions. */
static inline double
ef_mri_k (const EfMriTraj *t, gsize i, guint a)
{
  return a < t->dim ? t->k[i * t->dim + a] : 0.0;
}

/* The sum for one voxel in float64: (dr, di) are the sample weights' parts (di NULL: real weights). */
static gboolean
ef_mri_sum64 (const EfMriTraj *t, const double *dr, const double *di, const EfMriGrid *grid, EfCf64 *out,
              gsize n_vox, guint n_threads, GError **error)
{
  guint nt = ef_thread_count (n_threads);
  gsize m = t->m;
  /* 2 pi k, structure of arrays (z zeros in 2-D) */
  g_autofree double *kw = g_try_new (double, 3 * m);

  if (kw == NULL)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_MEMORY, "No memory for %" G_GSIZE_FORMAT " samples", m);
      return FALSE;
    }
  for (gsize i = 0; i < m; i++)
    for (guint a = 0; a < 3; a++)
      kw[a * m + i] = 2 * G_PI * ef_mri_k (t, i, a);
  (void) nt;
#pragma omp parallel for schedule(static) num_threads(nt)
  for (gsize v = 0; v < n_vox; v++)
    {
      double x[3], re = 0, im = 0;
      const double *kx = kw, *ky = kw + m, *kz = kw + 2 * m;

      ef_mri_voxel (grid, v, x);
      for (gsize i = 0; i < m; i++)
        {
          double ph = kx[i] * x[0] + ky[i] * x[1] + kz[i] * x[2];
          double c = cos (ph), s = sin (ph);
          double a = dr[i], b = di != NULL ? di[i] : 0.0;

          re += a * c - b * s;
          im += a * s + b * c;
        }
      out[v] = re + I * im;
    }
  return TRUE;
}

/* Splits complex samples into real and imaginary arrays, or NULL with error when memory is short. */
static gboolean
ef_mri_split64 (const EfCf64 *d, gsize m, double **re, double **im, GError **error)
{
  *re = g_try_new (double, m);
  *im = g_try_new (double, m);
  if (*re == NULL || *im == NULL)
    {
      g_free (*re);
      g_free (*im);
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_MEMORY, "No memory for %" G_GSIZE_FORMAT " samples", m);
      return FALSE;
    }
  for (gsize i = 0; i < m; i++)
    {
      (*re)[i] = creal (d[i]);
      (*im)[i] = cimag (d[i]);
    }
  return TRUE;
}

gboolean
ef_mri_adjoint (const EfMriTraj *t, const EfCf64 *d, const EfMriGrid *grid, EfCf64 *out, guint n_threads,
                GError **error)
{
  g_autofree double *re = NULL, *im = NULL;
  gsize n_vox;

  g_return_val_if_fail (t != NULL && d != NULL && grid != NULL && out != NULL, FALSE);
  if (!ef_mri_check (t, grid, &n_vox, error) || !ef_mri_split64 (d, t->m, &re, &im, error))
    return FALSE;
  return ef_mri_sum64 (t, re, im, grid, out, n_vox, n_threads, error);
}

gboolean
ef_mri_q (const EfMriTraj *t, const double *w, const EfMriGrid *grid, EfCf64 *out, guint n_threads, GError **error)
{
  g_autofree double *ones = NULL;
  gsize n_vox;

  g_return_val_if_fail (t != NULL && grid != NULL && out != NULL, FALSE);
  if (!ef_mri_check (t, grid, &n_vox, error))
    return FALSE;
  if (w == NULL)
    {
      ones = g_try_new (double, t->m);
      if (ones == NULL)
        {
          g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_MEMORY, "No memory for the weights");
          return FALSE;
        }
      for (gsize i = 0; i < t->m; i++)
        ones[i] = 1.0;
      w = ones;
    }
  return ef_mri_sum64 (t, w, NULL, grid, out, n_vox, n_threads, error);
}

/* The float32 sum: k in structure-of-arrays form, the phase reduced to cycles in (-1/2, 1/2]. */
typedef struct {
  float *kx, *ky, *kz, *dr, *di;  /* owned, m each (di NULL for real weights) */
} EfMriF32Samples;

static void
ef_mri_f32_clear (EfMriF32Samples *s)
{
  g_free (s->kx);
  g_free (s->ky);
  g_free (s->kz);
  g_free (s->dr);
  g_free (s->di);
}

static gboolean
ef_mri_f32_prepare (const EfMriTraj *t, const EfCf32 *d, const float *w, EfMriF32Samples *s, GError **error)
{
  gsize m = t->m;

  memset (s, 0, sizeof *s);
  s->kx = g_try_new (float, m);
  s->ky = g_try_new (float, m);
  s->kz = g_try_new (float, m);
  s->dr = g_try_new (float, m);
  s->di = d != NULL ? g_try_new (float, m) : NULL;
  if (s->kx == NULL || s->ky == NULL || s->kz == NULL || s->dr == NULL || (d != NULL && s->di == NULL))
    {
      ef_mri_f32_clear (s);
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_MEMORY, "No memory for %" G_GSIZE_FORMAT " samples", m);
      return FALSE;
    }
  for (gsize i = 0; i < m; i++)
    {
      s->kx[i] = (float) ef_mri_k (t, i, 0);
      s->ky[i] = (float) ef_mri_k (t, i, 1);
      s->kz[i] = (float) ef_mri_k (t, i, 2);
      s->dr[i] = d != NULL ? crealf (d[i]) : (w != NULL ? w[i] : 1.0f);
      if (d != NULL)
        s->di[i] = cimagf (d[i]);
    }
  return TRUE;
}

static void
ef_mri_sum32 (const EfMriF32Samples *s, gsize m, const EfMriGrid *grid, EfCf32 *out, gsize n_vox, guint n_threads)
{
  guint nt = ef_thread_count (n_threads);

  (void) nt;
#pragma omp parallel for schedule(static) num_threads(nt)
  for (gsize v = 0; v < n_vox; v++)
    {
      double x[3], re = 0, im = 0;
      float xf, yf, zf;

      ef_mri_voxel (grid, v, x);
      xf = (float) x[0];
      yf = (float) x[1];
      zf = (float) x[2];
      for (gsize i0 = 0; i0 < m; i0 += EF_MRI_F32_TILE)
        {
          gsize i1 = MIN (m, i0 + EF_MRI_F32_TILE);
          float tr = 0, ti = 0;

          for (gsize i = i0; i < i1; i++)
            {
              float cyc = s->kx[i] * xf + s->ky[i] * yf + s->kz[i] * zf;
              float ph = 2 * (float) G_PI * (cyc - rintf (cyc));
              float c = cosf (ph), sn = sinf (ph);
              float a = s->dr[i], b = s->di != NULL ? s->di[i] : 0.0f;

              tr += a * c - b * sn;
              ti += a * sn + b * c;
            }
          re += tr;
          im += ti;
        }
      out[v] = (float) re + I * (float) im;
    }
}

gboolean
ef_mri_adjoint_f32 (const EfMriTraj *t, const EfCf32 *d, const EfMriGrid *grid, EfCf32 *out, guint n_threads,
                    GError **error)
{
  EfMriF32Samples s;
  gsize n_vox;

  g_return_val_if_fail (t != NULL && d != NULL && grid != NULL && out != NULL, FALSE);
  if (!ef_mri_check (t, grid, &n_vox, error) || !ef_mri_f32_prepare (t, d, NULL, &s, error))
    return FALSE;
  ef_mri_sum32 (&s, t->m, grid, out, n_vox, n_threads);
  ef_mri_f32_clear (&s);
  return TRUE;
}

gboolean
ef_mri_q_f32 (const EfMriTraj *t, const float *w, const EfMriGrid *grid, EfCf32 *out, guint n_threads, GError **error)
{
  EfMriF32Samples s;
  gsize n_vox;

  g_return_val_if_fail (t != NULL && grid != NULL && out != NULL, FALSE);
  if (!ef_mri_check (t, grid, &n_vox, error) || !ef_mri_f32_prepare (t, NULL, w, &s, error))
    return FALSE;
  ef_mri_sum32 (&s, t->m, grid, out, n_vox, n_threads);
  ef_mri_f32_clear (&s);
  return TRUE;
}

gboolean
ef_mri_forward (const EfMriTraj *t, const EfCf64 *rho, const EfMriGrid *grid, EfCf64 *out, guint n_threads,
                GError **error)
{
  guint nt = ef_thread_count (n_threads);
  gsize n_vox;

  g_return_val_if_fail (t != NULL && rho != NULL && grid != NULL && out != NULL, FALSE);
  if (!ef_mri_check (t, grid, &n_vox, error))
    return FALSE;
  (void) nt;
#pragma omp parallel for schedule(static) num_threads(nt)
  for (gsize i = 0; i < t->m; i++)
    {
      double re = 0, im = 0;

      for (gsize v = 0; v < n_vox; v++)
        {
          double x[3], ph, c, s;

          ef_mri_voxel (grid, v, x);
          ph = -2 * G_PI * (ef_mri_k (t, i, 0) * x[0] + ef_mri_k (t, i, 1) * x[1] + ef_mri_k (t, i, 2) * x[2]);
          c = cos (ph);
          s = sin (ph);
          re += creal (rho[v]) * c - cimag (rho[v]) * s;
          im += creal (rho[v]) * s + cimag (rho[v]) * c;
        }
      out[i] = re + I * im;
    }
  return TRUE;
}
