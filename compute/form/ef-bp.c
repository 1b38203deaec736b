/* ef-bp.c: backprojection on the CPU: the float64 reference and the tiled float32 path. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-bp"
#include "config.h"

#include <math.h>
#include <string.h>
#if HAVE_OPENMP
#include <omp.h>
#endif

#include "ef-bp.h"
#include "ef-bp-cpu.h"
#include "ef-grid.h"
#include "ef-test-hooks.h"

static inline double
dist3 (const double a[3], const double b[3])
{
  double dx = a[0] - b[0], dy = a[1] - b[1], dz = a[2] - b[2];
  return sqrt (dx * dx + dy * dy + dz * dz);
}

/* One pixel, one pulse, in double: the definition every fast path is measured against. */
static inline EfCf64
reference_pair (const EfProfileMeta *m, const EfCf64 *prof, guint n_bins, const double x[3])
{
  double dr = 0.5 * (dist3 (m->tx, x) + dist3 (m->rcv, x)) - m->r0;
  double f = (dr - m->r_start) / m->dr;
  double fl = floor (f);
  gint64 i = (gint64) fl;
  double w = f - fl;
  EfCf64 v;

  if (i < 0 || i + 1 >= (gint64) n_bins)
    return 0;
  v = prof[i] + w * (prof[i + 1] - prof[i]);
  return v * cexp (I * m->kr * dr);
}

void
ef_bp_reference_rect (const EfGrid *grid, const EfProfiles *profiles, const EfRect *rect, EfCf64 *acc)
{
  g_return_if_fail (grid != NULL && profiles != NULL && rect != NULL && acc != NULL);
  g_return_if_fail (profiles->data64 != NULL);

  for (guint p = 0; p < profiles->n_pulses; p++)
    {
      const EfProfileMeta *m = &profiles->meta[p];
      const EfCf64 *prof = profiles->data64 + (gsize) p * profiles->n_bins;

      for (guint r = 0; r < rect->height; r++)
        for (guint c = 0; c < rect->width; c++)
          {
            double x[3];

            ef_grid_pixel_position (grid, rect->x + c, rect->y + r, x);
            acc[(gsize) r * rect->width + c] += reference_pair (m, prof, profiles->n_bins, x);
          }
    }
}

void
ef_bp_reference (const EfGrid *grid, const EfProfiles *profiles, EfCf64 *acc)
{
  EfRect all = { 0, 0, grid->width, grid->height };

  ef_bp_reference_rect (grid, profiles, &all, acc);
}

/* Reduces one antenna's geometry relative to the tile centre xc. */
static void
coef_term (const EfGrid *grid, const double ant[3], const double xc[3], float *al, float *be, float *c1,
           float *c2, double *rc)
{
  double h[3] = { ant[0] - xc[0], ant[1] - xc[1], ant[2] - xc[2] };
  double r = sqrt (h[0] * h[0] + h[1] * h[1] + h[2] * h[2]);

  for (int i = 0; i < 3; i++)
    h[i] /= r;
  *al = (float) (h[0] * grid->u[0] + h[1] * grid->u[1] + h[2] * grid->u[2]);
  *be = (float) (h[0] * grid->v[0] + h[1] * grid->v[1] + h[2] * grid->v[2]);
  *c1 = (float) (0.5 / r);
  *c2 = (float) (0.5 / (r * r));
  *rc = r;
}

void
ef_bp_cpu_tile_coef (const EfGrid *grid, const EfProfileMeta *m, const double xc[3], gboolean bistatic, EfBpCoef *k)
{
  double rt, rr = 0, base, bins, cycles;

  coef_term (grid, m->tx, xc, &k->al, &k->be, &k->c1, &k->c2, &rt);
  if (bistatic)
    coef_term (grid, m->rcv, xc, &k->al2, &k->be2, &k->c12, &k->c22, &rr);
  base = (bistatic ? 0.5 * (rt + rr) : rt) - m->r0;
  /* Split the large parts in double so that only small residuals reach float. */
  bins = (base - m->r_start) / m->dr;
  k->bint = (int) floor (bins);
  k->bf = (float) (bins - floor (bins));
  k->idr = (float) (1.0 / m->dr);
  cycles = m->kr * base / (2.0 * G_PI);
  k->c0 = (float) (cycles - floor (cycles));
  k->kc = (float) (m->kr / (2.0 * G_PI));
}

void
ef_bp_cpu_fp32 (const EfGrid *grid, const EfProfiles *profiles, EfCf32 *acc, guint n_threads)
{
  const guint T = EF_BP_TILE, NPX = EF_BP_TILE * EF_BP_TILE;
  guint tiles_x, tiles_y, n_pulses, n_bins;
  float a[EF_BP_TILE * EF_BP_TILE] __attribute__((aligned (64)));
  float b[EF_BP_TILE * EF_BP_TILE] __attribute__((aligned (64)));
  float q[EF_BP_TILE * EF_BP_TILE] __attribute__((aligned (64)));
  float *re = NULL, *im = NULL;
  gboolean bistatic, fast;

  g_return_if_fail (grid != NULL && profiles != NULL && acc != NULL);
  g_return_if_fail (profiles->data32 != NULL);

  n_pulses = profiles->n_pulses;
  n_bins = profiles->n_bins;
  if (n_pulses == 0)
    return;
  bistatic = !profiles->monostatic;
  tiles_x = (grid->width + T - 1) / T;
  tiles_y = (grid->height + T - 1) / T;

  /* Pixel offsets from a tile's centre are the same for every tile. */
  for (guint j = 0; j < T; j++)
    for (guint i = 0; i < T; i++)
      {
        float da = (float) ((i - 0.5 * (T - 1)) * grid->spacing);
        float db = (float) ((j - 0.5 * (T - 1)) * grid->spacing);

        a[j * T + i] = da;
        b[j * T + i] = db;
        q[j * T + i] = da * da + db * db;
      }

  /* The AVX-512 loop reads the interleaved profiles directly; the portable loop wants split planes so
   * that it can load real and imaginary parts with plain float loads. */
  fast = !bistatic && ef_bp_cpu_have_avx512 () && !ef_test_hooks_portable_simd ();
  if (!fast)
    {
      re = ef_aligned_alloc0 ((gsize) n_pulses * n_bins * sizeof (float));
      im = ef_aligned_alloc0 ((gsize) n_pulses * n_bins * sizeof (float));
      if (re == NULL || im == NULL)
        {
          g_critical ("Out of memory splitting %u profiles", n_pulses);
          ef_aligned_free (re);
          ef_aligned_free (im);
          return;
        }
      for (gsize i = 0; i < (gsize) n_pulses * n_bins; i++)
        {
          re[i] = crealf (profiles->data32[i]);
          im[i] = cimagf (profiles->data32[i]);
        }
    }

  if (n_threads == 0)
    {
#if HAVE_OPENMP
      n_threads = (guint) omp_get_max_threads ();
#else
      n_threads = 1;
#endif
    }

#if HAVE_OPENMP
#pragma omp parallel num_threads(n_threads)
#endif
  {
    EfBpCoef *coef = g_new (EfBpCoef, n_pulses);
    float acc_re[EF_BP_TILE * EF_BP_TILE] __attribute__((aligned (64)));
    float acc_im[EF_BP_TILE * EF_BP_TILE] __attribute__((aligned (64)));

#if HAVE_OPENMP
#pragma omp for schedule(dynamic, 1)
#endif
    for (guint t = 0; t < tiles_x * tiles_y; t++)
      {
        guint tx = t % tiles_x, ty = t / tiles_x;
        guint x0 = tx * T, y0 = ty * T;
        guint w = MIN (T, grid->width - x0), h = MIN (T, grid->height - y0);
        double xc[3];

        ef_grid_pixel_position (grid, x0 + 0.5 * (T - 1), y0 + 0.5 * (T - 1), xc);
        for (guint p = 0; p < n_pulses; p++)
          ef_bp_cpu_tile_coef (grid, &profiles->meta[p], xc, bistatic, &coef[p]);
        memset (acc_re, 0, sizeof acc_re);
        memset (acc_im, 0, sizeof acc_im);
        if (fast)
          ef_bp_cpu_tile_avx512 (coef, n_pulses, (const float *) profiles->data32, n_bins, a, b, q, NPX, acc_re,
                                 acc_im);
        else
          ef_bp_cpu_tile (coef, n_pulses, re, im, n_bins, a, b, q, NPX, acc_re, acc_im, bistatic);
        for (guint j = 0; j < h; j++)
          for (guint i = 0; i < w; i++)
            acc[(gsize) (y0 + j) * grid->width + x0 + i] += acc_re[j * T + i] + acc_im[j * T + i] * I;
      }
    g_free (coef);
  }
  ef_aligned_free (re);
  ef_aligned_free (im);
}

const char *
ef_bp_cpu_simd_name (void)
{
  if (ef_bp_cpu_have_avx512 () && !ef_test_hooks_portable_simd ())
    return "AVX-512 (intrinsics)";
  return ef_bp_cpu_tile_isa ();
}
