/* ef-mri-phantom.c: Shepp-Logan ellipses and ellipsoids, their exact transforms, and k-space trajectories. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define _DEFAULT_SOURCE   /* j1 () */
#define G_LOG_DOMAIN "ef-mri-phantom"
#include "config.h"

#include <math.h>

#include "ef-error.h"
#include "ef-mri-phantom.h"

/* Toft's modified Shepp-Logan on [-1, 1]: value, semi-axes, centre, angle (degrees); the 3-D set is the
 * usual extension with the z semi-axes and centres, turned about z only. Scaled by 1/2 when used. */
static const double sl_table[10][9] = {
  /* value  a       b      c      x0     y0      z0     phi */
  { 1.0,   .6900, .920,  .810,  0,     0,      0,     0 },
  { -.8,   .6624, .874,  .780,  0,    -.0184,  0,     0 },
  { -.2,   .1100, .310,  .220,  .22,   0,      0,   -18 },
  { -.2,   .1600, .410,  .280, -.22,   0,      0,    18 },
  { .1,    .2100, .250,  .410,  0,     .35,   -.15,   0 },
  { .1,    .0460, .046,  .050,  0,     .1,     .25,   0 },
  { .1,    .0460, .046,  .050,  0,    -.1,     .25,   0 },
  { .1,    .0460, .023,  .050, -.08,  -.605,   0,     0 },
  { .1,    .0230, .023,  .020,  0,    -.606,   0,     0 },
  { .1,    .0230, .046,  .020,  .06,  -.605,   0,     0 },
};

static EfMriEllipse sl_2d[10], sl_3d[10];

static void
ef_sl_init (EfMriEllipse *e, guint dim)
{
  for (guint i = 0; i < 10; i++)
    {
      const double *r = sl_table[i];

      e[i].value = r[0];
      for (guint a = 0; a < 3; a++)
        {
          e[i].axes[a] = a < dim ? r[1 + a] / 2 : 1;
          e[i].centre[a] = a < dim ? r[4 + a] / 2 : 0;
        }
      e[i].phi = r[7] * G_PI / 180;
    }
}

EfMriPhantom
ef_mri_phantom_shepp_logan (guint dim)
{
  static gsize once = 0;
  EfMriPhantom p = { .dim = dim == 3 ? 3 : 2, .n = 10 };

  if (g_once_init_enter (&once))
    {
      ef_sl_init (sl_2d, 2);
      ef_sl_init (sl_3d, 3);
      g_once_init_leave (&once, 1);
    }
  p.e = p.dim == 3 ? sl_3d : sl_2d;
  return p;
}

/* v in the ellipse's own frame: R^T (v) for a rotation by phi about z. */
static inline void
ef_unrotate (double phi, const double v[3], double out[3])
{
  double c = cos (phi), s = sin (phi);

  out[0] = c * v[0] + s * v[1];
  out[1] = -s * v[0] + c * v[1];
  out[2] = v[2];
}

double
ef_mri_phantom_value (const EfMriPhantom *p, const double x[3])
{
  double f = 0;

  for (guint i = 0; i < p->n; i++)
    {
      const EfMriEllipse *e = &p->e[i];
      double v[3], u[3], r2 = 0;

      for (guint a = 0; a < 3; a++)
        v[a] = a < p->dim ? x[a] - e->centre[a] : 0;
      ef_unrotate (e->phi, v, u);
      for (guint a = 0; a < p->dim; a++)
        r2 += (u[a] / e->axes[a]) * (u[a] / e->axes[a]);
      if (r2 <= 1)
        f += e->value;
    }
  return f;
}

EfCf64
ef_mri_phantom_ft (const EfMriPhantom *p, const double k[3])
{
  EfCf64 f = 0;

  for (guint i = 0; i < p->n; i++)
    {
      const EfMriEllipse *e = &p->e[i];
      double kk[3] = { k[0], k[1], p->dim == 3 ? k[2] : 0 }, u[3], r2 = 0, vol = e->value, shape, dot = 0, r;

      ef_unrotate (e->phi, kk, u);
      for (guint a = 0; a < p->dim; a++)
        {
          r2 += (u[a] * e->axes[a]) * (u[a] * e->axes[a]);
          vol *= e->axes[a];
          dot += kk[a] * e->centre[a];
        }
      r = sqrt (r2);
      if (p->dim == 2)
        /* unit disc: J1(2 pi r) / r, pi at r = 0 */
        shape = r < 1e-8 ? G_PI : j1 (2 * G_PI * r) / r;
      else
        {
          /* unit ball: 4 pi (sin s - s cos s) / s^3, 4 pi / 3 at s = 0 (series below 1e-3) */
          double s = 2 * G_PI * r;
          shape = s < 1e-3 ? 4 * G_PI * (1.0 / 3 - s * s / 30) : 4 * G_PI * (sin (s) - s * cos (s)) / (s * s * s);
        }
      f += vol * shape * cexp (-2 * G_PI * I * dot);
    }
  return f;
}

void
ef_mri_phantom_raster (const EfMriPhantom *p, const EfMriGrid *grid, guint super, double *out)
{
  guint s = MAX (super, 1u), sz = grid->dim == 3 ? s : 1;
  gsize n = (gsize) grid->n[0] * grid->n[1] * grid->n[2];

  for (gsize v = 0; v < n; v++)
    {
      guint ix = (guint) (v % grid->n[0]), iy = (guint) ((v / grid->n[0]) % grid->n[1]);
      guint iz = (guint) (v / ((gsize) grid->n[0] * grid->n[1]));
      double acc = 0;

      for (guint a = 0; a < sz; a++)
        for (guint b = 0; b < s; b++)
          for (guint c = 0; c < s; c++)
            {
              double x[3] = {
                ef_mri_grid_x (grid, 0, ix) + grid->spacing * ((c + 0.5) / s - 0.5),
                ef_mri_grid_x (grid, 1, iy) + grid->spacing * ((b + 0.5) / s - 0.5),
                grid->dim == 3 ? ef_mri_grid_x (grid, 2, iz) + grid->spacing * ((a + 0.5) / s - 0.5) : 0,
              };
              acc += ef_mri_phantom_value (p, x);
            }
      out[v] = acc / ((double) s * s * sz);
    }
}

void
ef_mri_phantom_sample (const EfMriPhantom *p, const EfMriTraj *t, double scale, EfCf64 *d, guint n_threads)
{
  guint nt = ef_thread_count (n_threads);

  (void) nt;
#pragma omp parallel for schedule(static) num_threads(nt)
  for (gsize i = 0; i < t->m; i++)
    {
      double k[3] = { t->k[i * t->dim], t->k[i * t->dim + 1], t->dim == 3 ? t->k[i * t->dim + 2] : 0 };
      d[i] = scale * ef_mri_phantom_ft (p, k);
    }
}

static gboolean
ef_traj_sizes (guint n, guint a, guint b, guint c, gsize *m, GError **error)
{
  guint64 total = (guint64) a * b * c;

  if (n < 2 || n > EF_MRI_MAX_EDGE || a == 0 || b == 0 || c == 0 || total > EF_MRI_MAX_SAMPLES)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "A trajectory of %u x %u x %u samples for %u voxels a side is out of range", a, b, c, n);
      return FALSE;
    }
  *m = (gsize) total;
  return TRUE;
}

EfMriTraj *
ef_mri_traj_radial (guint n, guint n_spokes, guint n_read, GError **error)
{
  EfMriTraj *t;
  gsize m;

  if (!ef_traj_sizes (n, n_spokes, n_read, 1, &m, error) || !(t = ef_mri_traj_new (2, m, error)))
    return NULL;
  for (guint s = 0; s < n_spokes; s++)
    {
      double th = G_PI * s / n_spokes;

      for (guint r = 0; r < n_read; r++)
        {
          double kr = ((double) r - n_read / 2) * n / (double) n_read;
          t->k[2 * ((gsize) s * n_read + r)] = kr * cos (th);
          t->k[2 * ((gsize) s * n_read + r) + 1] = kr * sin (th);
        }
    }
  return t;
}

void
ef_mri_density_radial (guint n, guint n_spokes, guint n_read, double *area)
{
  double dk = n / (double) n_read;

  for (guint s = 0; s < n_spokes; s++)
    for (guint r = 0; r < n_read; r++)
      {
        double kr = fabs ((double) r - n_read / 2) * dk;
        /* a sector of pi / n_spokes radians, dk deep (half a disc of radius dk / 2 at the centre, which every
         * spoke shares; the outermost sample, alone on its side, gets the same) */
        area[(gsize) s * n_read + r] = kr > 0 ? G_PI / n_spokes * kr * dk : G_PI * dk * dk / 4 / n_spokes;
      }
}

/* One arm of Archimedean spiral into k (2 values a sample, stride values apart). */
static void
ef_spiral_arms (double *k, guint stride, guint n, guint n_arms, guint n_per_arm)
{
  double kmax = n / 2.0, turns = n / (2.0 * n_arms);

  for (guint a = 0; a < n_arms; a++)
    for (guint i = 0; i < n_per_arm; i++)
      {
        double s = (double) i / n_per_arm, r = kmax * s, th = 2 * G_PI * (turns * s + (double) a / n_arms);
        double *kk = &k[(gsize) stride * ((gsize) a * n_per_arm + i)];

        kk[0] = r * cos (th);
        kk[1] = r * sin (th);
      }
}

EfMriTraj *
ef_mri_traj_spiral (guint n, guint n_arms, guint n_per_arm, GError **error)
{
  EfMriTraj *t;
  gsize m;

  if (!ef_traj_sizes (n, n_arms, n_per_arm, 1, &m, error) || !(t = ef_mri_traj_new (2, m, error)))
    return NULL;
  ef_spiral_arms (t->k, 2, n, n_arms, n_per_arm);
  return t;
}

EfMriTraj *
ef_mri_traj_stack_of_spirals (guint n, guint n_part, guint n_arms, guint n_per_arm, GError **error)
{
  EfMriTraj *t;
  gsize m, per;

  if (!ef_traj_sizes (n, n_part, n_arms, n_per_arm, &m, error) || !(t = ef_mri_traj_new (3, m, error)))
    return NULL;
  per = (gsize) n_arms * n_per_arm;
  for (guint p = 0; p < n_part; p++)
    {
      double kz = ((double) p - n_part / 2) * n / (double) n_part;

      ef_spiral_arms (&t->k[3 * p * per], 3, n, n_arms, n_per_arm);
      for (gsize i = 0; i < per; i++)
        t->k[3 * (p * per + i) + 2] = kz;
    }
  return t;
}

EfMriTraj *
ef_mri_seed_problem (EfCf64 **d, GError **error)
{
  const guint n = 64;
  EfMriPhantom ph = ef_mri_phantom_shepp_logan (3);
  EfMriTraj *t = ef_mri_traj_stack_of_spirals (n, 64, 16, 3125, error);

  if (t == NULL)
    return NULL;
  *d = g_try_new (EfCf64, t->m);
  if (*d == NULL)
    {
      ef_mri_traj_free (t);
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_MEMORY, "No memory for the samples");
      return NULL;
    }
  ef_mri_phantom_sample (&ph, t, (double) n * n * n, *d, 0);
  return t;
}
