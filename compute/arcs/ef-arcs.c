/* ef-arcs.c: temporal arc coherence on the CPU: unit phasors, plain coherence, the velocity-height periodogram. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-arcs"
#include "config.h"

#include <math.h>
#include <string.h>

#include "ef-arcs.h"
#include "ef-error.h"
#include "ef-grid.h"
#include "ef-simd.h"
#include "ef-test-hooks.h"

/* Arcs the periodogram takes at once along a row: their series (N passes x CHUNK, re and im) stay in L1
 * while every grid point runs over them, and the accumulators fill a few vector registers. */
#define CHUNK 32

guint
ef_arc_offsets (const EfArcWindow *window, EfArcOffset *out)
{
  int r;
  guint n = 0;

  g_return_val_if_fail (window != NULL && out != NULL, 0);
  r = (int) MIN (window->radius, EF_ARC_MAX_RADIUS);
  for (int dy = 0; dy <= r; dy++)
    for (int dx = -r; dx <= r; dx++)
      {
        if (dy == 0 && dx <= 0)
          continue;
        if (window->shape == EF_ARC_WINDOW_DISC && dx * dx + dy * dy > r * r)
          continue;
        out[n++] = (EfArcOffset) { dx, dy };
      }
  return n;
}

gboolean
ef_arc_window_check (const EfArcWindow *window, GError **error)
{
  if (window->radius < 1 || window->radius > EF_ARC_MAX_RADIUS
      || (window->shape != EF_ARC_WINDOW_SQUARE && window->shape != EF_ARC_WINDOW_DISC))
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "The search window's radius is 1 to %d pixels (got %u)", EF_ARC_MAX_RADIUS, window->radius);
      return FALSE;
    }
  return TRUE;
}

gboolean
ef_arc_model_check (const EfArcModel *m, GError **error)
{
  if (m->n_passes < 2 || m->t_years == NULL || m->bperp == NULL || !(m->wavelength > 0) || !(m->range > 0)
      || !(m->incidence_deg > 0 && m->incidence_deg < 90) || !isfinite (m->wavelength) || !isfinite (m->range))
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "The arcs need at least two passes with dates and baselines, a positive wavelength and range, "
                   "and an incidence in (0, 90) degrees");
      return FALSE;
    }
  for (guint k = 0; k < m->n_passes; k++)
    if (!isfinite (m->t_years[k]) || !isfinite (m->bperp[k]))
      {
        g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                     "Pass %u's date or baseline is not finite", k);
        return FALSE;
      }
  return TRUE;
}

gboolean
ef_arc_grid_check (const EfArcGrid *g, GError **error)
{
  if (g->nv < 1 || g->nh < 1 || (guint64) g->nv * g->nh > EF_ARC_MAX_GRID || !isfinite (g->v_min)
      || !isfinite (g->v_max) || !isfinite (g->h_min) || !isfinite (g->h_max) || g->v_max < g->v_min
      || g->h_max < g->h_min)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "The velocity-height grid must be ordered, finite and of 1 to %d points (got %u x %u)",
                   EF_ARC_MAX_GRID, g->nv, g->nh);
      return FALSE;
    }
  return TRUE;
}

void
ef_arc_grid_point (const EfArcGrid *g, guint i, double *v, double *h)
{
  guint iv = i / g->nh, ih = i % g->nh;

  *v = g->nv > 1 ? g->v_min + iv * (g->v_max - g->v_min) / (g->nv - 1) : g->v_min;
  *h = g->nh > 1 ? g->h_min + ih * (g->h_max - g->h_min) / (g->nh - 1) : g->h_min;
}

EfArcPhasors *
ef_arc_phasors_new (const EfCf32 *stack, guint width, guint height, guint n_passes, GError **error)
{
  g_autoptr (EfArcPhasors) ph = g_new0 (EfArcPhasors, 1);
  gsize n, bytes;

  g_return_val_if_fail (stack != NULL, NULL);
  if (!g_size_checked_mul (&n, (gsize) width * height, n_passes)
      || !g_size_checked_mul (&bytes, n, sizeof (float)) || n == 0)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "A region of %u x %u pixels and %u passes is empty or too large", width, height, n_passes);
      return NULL;
    }
  ph->width = width;
  ph->height = height;
  ph->n_passes = n_passes;
  ph->re = ef_aligned_alloc (bytes);
  ph->im = ef_aligned_alloc (bytes);
  if (ph->re == NULL || ph->im == NULL)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_MEMORY,
                   "No memory for the phasors of %u x %u pixels and %u passes", width, height, n_passes);
      return NULL;
    }
#pragma omp parallel for schedule(static)
  for (gsize i = 0; i < n; i++)
    {
      float re = crealf (stack[i]), im = cimagf (stack[i]);
      float a = hypotf (re, im);
      /* A zero (or non-finite) pixel has no phase: it adds nothing to any arc. */
      float s = (a > 0 && isfinite (a)) ? 1.0f / a : 0.0f;

      ph->re[i] = re * s;
      ph->im[i] = im * s;
    }
  return g_steal_pointer (&ph);
}

void
ef_arc_phasors_free (EfArcPhasors *ph)
{
  if (ph == NULL)
    return;
  ef_aligned_free (ph->re);
  ef_aligned_free (ph->im);
  g_free (ph);
}

/* The columns whose neighbour along dx lies inside a row of width w. */
static inline void
valid_columns (int dx, guint w, guint *c0, guint *c1)
{
  *c0 = dx < 0 ? (guint) MIN (-dx, (int) w) : 0;
  *c1 = dx > 0 ? (guint) MAX ((int) w - dx, 0) : w;
}

EF_CLONES static void
plain_row (const EfArcPhasors *ph, guint row, EfArcOffset o, float *acc_re, float *acc_im, float *out)
{
  gsize plane = (gsize) ph->width * ph->height;
  guint c0, c1;
  float inv_n = 1.0f / ph->n_passes;

  for (guint c = 0; c < ph->width; c++)
    out[c] = NAN;
  if ((int) row + o.dy >= (int) ph->height)
    return;
  valid_columns (o.dx, ph->width, &c0, &c1);
  if (c1 <= c0)
    return;
  memset (acc_re, 0, ph->width * sizeof (float));
  memset (acc_im, 0, ph->width * sizeof (float));
  for (guint k = 0; k < ph->n_passes; k++)
    {
      const float *pr = ph->re + k * plane + (gsize) row * ph->width;
      const float *pi = ph->im + k * plane + (gsize) row * ph->width;
      const float *qr = ph->re + k * plane + (gsize) (row + o.dy) * ph->width + o.dx;
      const float *qi = ph->im + k * plane + (gsize) (row + o.dy) * ph->width + o.dx;

      EF_SIMD
      for (guint c = c0; c < c1; c++)
        {
          /* p conj (q) */
          acc_re[c] += pr[c] * qr[c] + pi[c] * qi[c];
          acc_im[c] += pi[c] * qr[c] - pr[c] * qi[c];
        }
    }
  EF_SIMD
  for (guint c = c0; c < c1; c++)
    out[c] = sqrtf (acc_re[c] * acc_re[c] + acc_im[c] * acc_im[c]) * inv_n;
}

void
ef_arcs_plain (const EfArcPhasors *ph, const EfArcOffset *off, guint n_off, float *coh)
{
  gsize plane;

  g_return_if_fail (ph != NULL && off != NULL && coh != NULL);
  plane = (gsize) ph->width * ph->height;
#pragma omp parallel
  {
    float *acc_re = g_new (float, ph->width);
    float *acc_im = g_new (float, ph->width);

#pragma omp for collapse(2) schedule(dynamic, 4)
    for (guint o = 0; o < n_off; o++)
      for (guint row = 0; row < ph->height; row++)
        plain_row (ph, row, off[o], acc_re, acc_im, coh + o * plane + (gsize) row * ph->width);
    g_free (acc_re);
    g_free (acc_im);
  }
}

void
ef_arc_phase_table (const EfArcModel *m, const EfArcGrid *grid, float *table_re, float *table_im)
{
  guint n_grid = grid->nv * grid->nh;
  double a = 4 * G_PI / m->wavelength;
  double hf = 1.0 / (m->range * sin (m->incidence_deg * G_PI / 180));

  for (guint g = 0; g < n_grid; g++)
    {
      double v, h;

      ef_arc_grid_point (grid, g, &v, &h);
      for (guint k = 0; k < m->n_passes; k++)
        {
          double ph = a * (v * m->t_years[k] + h * m->bperp[k] * hf);

          table_re[(gsize) g * m->n_passes + k] = (float) cos (ph);
          table_im[(gsize) g * m->n_passes + k] = (float) -sin (ph);
        }
    }
}

guint
ef_arc_grid_pairs (const EfArcGrid *grid)
{
  return (grid->nv * grid->nh + 1) / 2;
}

void
ef_arc_half_table (const EfArcModel *m, const EfArcGrid *grid, float *centre_re, float *centre_im, float *p,
                   float *q)
{
  guint n_pairs = ef_arc_grid_pairs (grid);
  double a = 4 * G_PI / m->wavelength;
  double hf = 1.0 / (m->range * sin (m->incidence_deg * G_PI / 180));
  double sv = grid->nv > 1 ? (grid->v_max - grid->v_min) / (grid->nv - 1) : 0;
  double sh = grid->nh > 1 ? (grid->h_max - grid->h_min) / (grid->nh - 1) : 0;
  /* The centre is the mean of the points (v_min itself on a single velocity), so that point g's offset
   * is exactly minus its mirror's, and the centre point's exactly zero. */
  double vc = grid->v_min + 0.5 * (grid->nv - 1) * sv, hc = grid->h_min + 0.5 * (grid->nh - 1) * sh;

  for (guint k = 0; k < m->n_passes; k++)
    {
      double ph = a * (vc * m->t_years[k] + hc * m->bperp[k] * hf);

      centre_re[k] = (float) cos (ph);
      centre_im[k] = (float) -sin (ph);
    }
  for (guint g = 0; g < n_pairs; g++)
    {
      double dv = ((double) (g / grid->nh) - 0.5 * (grid->nv - 1)) * sv;
      double dh = ((double) (g % grid->nh) - 0.5 * (grid->nh - 1)) * sh;

      for (guint k = 0; k < m->n_passes; k++)
        {
          double ph = a * (dv * m->t_years[k] + dh * m->bperp[k] * hf);

          p[(gsize) g * m->n_passes + k] = (float) cos (ph);
          q[(gsize) g * m->n_passes + k] = (float) sin (ph);
        }
    }
}

/* Whether |S|^2 m2 at grid point g beats the best so far: larger, or as large at a lower g (the first
 * maximum in grid order, whatever order the points are visited in). NaN never wins. */
static inline gboolean
beats (float m2, guint g, float best_m2, guint best_g)
{
  return m2 > best_m2 || (m2 == best_m2 && g < best_g);
}

/* One pair's sums over the passes for CHUNK arcs whose rotated series (z'_k = z_k exp (-j theta_k (c)))
 * are in zr, zi ([k][CHUNK], 64-byte aligned), ep, eq the pair's p and q: A = sum x p, B = sum y q, C =
 * sum y p, D = sum x q into sa, sb, sc, sd (CHUNK each). */
EF_CLONES static void
pair_sums (const float *zr, const float *zi, guint n, const float *ep, const float *eq, float *sa, float *sb,
           float *sc, float *sd)
{
  EF_SIMD
  for (guint b = 0; b < CHUNK; b++)
    sa[b] = sb[b] = sc[b] = sd[b] = 0;
  for (guint k = 0; k < n; k++)
    {
      float pk = ep[k], qk = eq[k];
      const float *x = zr + (gsize) k * CHUNK, *y = zi + (gsize) k * CHUNK;

      EF_SIMD
      for (guint b = 0; b < CHUNK; b++)
        {
          sa[b] += x[b] * pk;
          sb[b] += y[b] * qk;
          sc[b] += y[b] * pk;
          sd[b] += x[b] * qk;
        }
    }
}

#if EF_HAVE_CLONES
/* The same on x86-64-v3 (AVX2) and later, 16 arcs at a time in eight GCC vectors of 8, so that the sums
 * stay in registers: the loop above keeps them in its arrays, a load, an add and a store a pass, at half
 * the speed. (Vectors wider than the machine's are split by GCC very slowly: hence its own function
 * rather than a clone.) The same operations in the same order: the same sums to the bit. */
typedef float EfArcV8 __attribute__ ((vector_size (32)));
G_STATIC_ASSERT (CHUNK % 16 == 0);

__attribute__ ((target ("arch=x86-64-v3"))) static void
pair_sums_v3 (const float *zr, const float *zi, guint n, const float *ep, const float *eq, float *sa, float *sb,
              float *sc, float *sd)
{
  for (guint h = 0; h < CHUNK; h += 16)
    {
      EfArcV8 a0 = { 0 }, a1 = { 0 }, b0 = { 0 }, b1 = { 0 }, c0 = { 0 }, c1 = { 0 }, d0 = { 0 }, d1 = { 0 };

      for (guint k = 0; k < n; k++)
        {
          const EfArcV8 *x = (const EfArcV8 *) (zr + (gsize) k * CHUNK + h);
          const EfArcV8 *y = (const EfArcV8 *) (zi + (gsize) k * CHUNK + h);
          EfArcV8 pk = (EfArcV8) { 0 } + ep[k], qk = (EfArcV8) { 0 } + eq[k];

          a0 += x[0] * pk;
          a1 += x[1] * pk;
          b0 += y[0] * qk;
          b1 += y[1] * qk;
          c0 += y[0] * pk;
          c1 += y[1] * pk;
          d0 += x[0] * qk;
          d1 += x[1] * qk;
        }
      *(EfArcV8 *) (sa + h) = a0;
      *(EfArcV8 *) (sa + h + 8) = a1;
      *(EfArcV8 *) (sb + h) = b0;
      *(EfArcV8 *) (sb + h + 8) = b1;
      *(EfArcV8 *) (sc + h) = c0;
      *(EfArcV8 *) (sc + h + 8) = c1;
      *(EfArcV8 *) (sd + h) = d0;
      *(EfArcV8 *) (sd + h + 8) = d1;
    }
}
#endif

/* Whether this machine takes pair_sums_v3 (and the test hooks do not ask for the plain loop). */
static gboolean
use_v3 (void)
{
#if EF_HAVE_CLONES
  __builtin_cpu_init ();
  return __builtin_cpu_supports ("x86-64-v3") && !ef_test_hooks_portable_simd ();
#else
  return FALSE;
#endif
}

/* The periodogram of CHUNK arcs (zr, zi as pair_sums takes them) on the folded grid of n_pairs pairs
 * (tables p, q [pair][k]) of n_grid points: the best |S|^2 and its grid point for each. */
EF_CLONES static void
periodogram_chunk (const float *zr, const float *zi, guint n, const float *tp, const float *tq, guint n_pairs,
                   guint n_grid, gboolean v3, float *best_m2, guint *best_g)
{
  float sa[CHUNK] __attribute__ ((aligned (64))), sb[CHUNK] __attribute__ ((aligned (64)));
  float sc[CHUNK] __attribute__ ((aligned (64))), sd[CHUNK] __attribute__ ((aligned (64)));

  for (guint b = 0; b < CHUNK; b++)
    {
      best_m2[b] = -1.0f;
      best_g[b] = 0;
    }
  for (guint g = 0; g < n_pairs; g++)
    {
      const float *ep = tp + (gsize) g * n, *eq = tq + (gsize) g * n;
      guint mirror = n_grid - 1 - g;

#if EF_HAVE_CLONES
      if (v3)
        pair_sums_v3 (zr, zi, n, ep, eq, sa, sb, sc, sd);
      else
#endif
        pair_sums (zr, zi, n, ep, eq, sa, sb, sc, sd);
      /* S (g) = (A + B) + j (C - D), S (mirror) = (A - B) + j (C + D) */
      EF_SIMD
      for (guint b = 0; b < CHUNK; b++)
        {
          float pr = sa[b] + sb[b], pi = sc[b] - sd[b], mr = sa[b] - sb[b], mi = sc[b] + sd[b];
          float m2p = pr * pr + pi * pi, m2m = mr * mr + mi * mi;
          gboolean bp = beats (m2p, g, best_m2[b], best_g[b]);
          float m2 = bp ? m2p : best_m2[b];
          guint bg = bp ? g : best_g[b];
          gboolean bm = beats (m2m, mirror, m2, bg);

          best_m2[b] = bm ? m2m : m2;
          best_g[b] = bm ? mirror : bg;
        }
    }
}

gboolean
ef_arcs_periodogram (const EfArcPhasors *ph, const EfArcOffset *off, guint n_off, const EfArcModel *model,
                     const EfArcGrid *grid, float *coh, guint16 *best, GError **error)
{
  gsize plane, table_n;
  guint n_grid, n_pairs, n;
  float *tp, *tq, *cr, *ci;
  gboolean v3 = use_v3 ();

  g_return_val_if_fail (ph != NULL && off != NULL && model != NULL && grid != NULL && coh != NULL, FALSE);
  if (!ef_arc_model_check (model, error) || !ef_arc_grid_check (grid, error))
    return FALSE;
  if (model->n_passes != ph->n_passes)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "The model has %u passes and the stack %u", model->n_passes, ph->n_passes);
      return FALSE;
    }
  n = ph->n_passes;
  n_grid = grid->nv * grid->nh;
  n_pairs = ef_arc_grid_pairs (grid);
  plane = (gsize) ph->width * ph->height;
  table_n = (gsize) n_pairs * n;
  tp = ef_aligned_alloc (table_n * sizeof (float));
  tq = ef_aligned_alloc (table_n * sizeof (float));
  cr = ef_aligned_alloc ((gsize) n * sizeof (float));
  ci = ef_aligned_alloc ((gsize) n * sizeof (float));
  if (tp == NULL || tq == NULL || cr == NULL || ci == NULL)
    {
      ef_aligned_free (tp);
      ef_aligned_free (tq);
      ef_aligned_free (cr);
      ef_aligned_free (ci);
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_MEMORY, "No memory for the periodogram's table");
      return FALSE;
    }
  ef_arc_half_table (model, grid, cr, ci, tp, tq);

#pragma omp parallel
  {
    float *zr = ef_aligned_alloc ((gsize) n * CHUNK * sizeof (float));
    float *zi = ef_aligned_alloc ((gsize) n * CHUNK * sizeof (float));
    float m2[CHUNK];
    guint bg[CHUNK];
    float inv_n = 1.0f / n;

#pragma omp for collapse(2) schedule(dynamic, 2)
    for (guint o = 0; o < n_off; o++)
      for (guint row = 0; row < ph->height; row++)
        {
          float *out = coh + o * plane + (gsize) row * ph->width;
          guint16 *bout = best != NULL ? best + o * plane + (gsize) row * ph->width : NULL;
          guint c0, c1;

          for (guint c = 0; c < ph->width; c++)
            {
              out[c] = NAN;
              if (bout != NULL)
                bout[c] = G_MAXUINT16;
            }
          if ((int) row + off[o].dy >= (int) ph->height)
            continue;
          valid_columns (off[o].dx, ph->width, &c0, &c1);
          for (guint cs = c0; cs < c1; cs += CHUNK)
            {
              guint nb = MIN (CHUNK, c1 - cs);

              for (guint k = 0; k < n; k++)
                {
                  gsize base = k * plane + (gsize) row * ph->width + cs;
                  gsize qbase = k * plane + (gsize) (row + off[o].dy) * ph->width + cs + off[o].dx;
                  float rr = cr[k], ri = ci[k];

                  for (guint b = 0; b < CHUNK; b++)
                    {
                      float pr = b < nb ? ph->re[base + b] : 0, pi = b < nb ? ph->im[base + b] : 0;
                      float qr = b < nb ? ph->re[qbase + b] : 0, qi = b < nb ? ph->im[qbase + b] : 0;
                      /* p conj (q), turned by the centre's rotation */
                      float xr = pr * qr + pi * qi, xi = pi * qr - pr * qi;

                      zr[k * CHUNK + b] = xr * rr - xi * ri;
                      zi[k * CHUNK + b] = xr * ri + xi * rr;
                    }
                }
              periodogram_chunk (zr, zi, n, tp, tq, n_pairs, n_grid, v3, m2, bg);
              for (guint b = 0; b < nb; b++)
                {
                  out[cs + b] = sqrtf (MAX (m2[b], 0.0f)) * inv_n;
                  if (bout != NULL)
                    bout[cs + b] = (guint16) bg[b];
                }
            }
        }
    ef_aligned_free (zr);
    ef_aligned_free (zi);
  }
  ef_aligned_free (tp);
  ef_aligned_free (tq);
  ef_aligned_free (cr);
  ef_aligned_free (ci);
  return TRUE;
}

double
ef_arc_periodogram64 (const EfCf64 *z, const EfArcModel *m, double v, double h)
{
  double a = 4 * G_PI / m->wavelength;
  double hf = 1.0 / (m->range * sin (m->incidence_deg * G_PI / 180));
  EfCf64 acc = 0;

  for (guint k = 0; k < m->n_passes; k++)
    {
      double ph = a * (v * m->t_years[k] + h * m->bperp[k] * hf);

      acc += z[k] * (cos (ph) - I * sin (ph));
    }
  return cabs (acc) / m->n_passes;
}

double
ef_arc_refine (const EfCf64 *z, const EfArcModel *m, const EfArcGrid *grid, double *v, double *h)
{
  double sv = grid->nv > 1 ? (grid->v_max - grid->v_min) / (grid->nv - 1) : 0;
  double sh = grid->nh > 1 ? (grid->h_max - grid->h_min) / (grid->nh - 1) : 0;
  double best = ef_arc_periodogram64 (z, m, *v, *h);

  /* A pattern search: the coarse grid has put the arc on the main lobe, within half a step of the peak.
   * At each step, move to the best of the eight neighbours while one is better (the coherence rises with
   * every move, so this ends), then halve the step: ten halvings leave it a thousandth of the grid's. */
  for (int level = 0; level < 10; level++)
    {
      gboolean moved = TRUE;

      sv *= 0.5;
      sh *= 0.5;
      for (int moves = 0; moved && moves < 16; moves++)
        {
          double bv = *v, bh = *h;

          moved = FALSE;
          for (int i = -1; i <= 1; i++)
            for (int j = -1; j <= 1; j++)
              {
                double cv = *v + i * sv, ch = *h + j * sh, c;

                if ((i == 0 && j == 0) || (sv == 0 && i != 0) || (sh == 0 && j != 0))
                  continue;
                c = ef_arc_periodogram64 (z, m, cv, ch);
                if (c > best)
                  {
                    best = c;
                    bv = cv;
                    bh = ch;
                    moved = TRUE;
                  }
              }
          *v = bv;
          *h = bh;
        }
    }
  return best;
}

void
ef_arcs_pixel_scores (const float *coh, guint width, guint height, const EfArcOffset *off, guint n_off,
                      float *score)
{
  gsize plane = (gsize) width * height;

  g_return_if_fail (coh != NULL && off != NULL && score != NULL);
#pragma omp parallel for schedule(static)
  for (guint row = 0; row < height; row++)
    for (guint col = 0; col < width; col++)
      {
        float s = 0;

        for (guint o = 0; o < n_off; o++)
          {
            int qc = (int) col - off[o].dx, qr = (int) row - off[o].dy;
            float a = coh[o * plane + (gsize) row * width + col];

            /* The arc that starts here, and the one along the same offset that ends here. */
            if (a > s)
              s = a;
            if (qc >= 0 && qr >= 0 && qc < (int) width)
              {
                float b = coh[o * plane + (gsize) qr * width + qc];
                if (b > s)
                  s = b;
              }
          }
        score[(gsize) row * width + col] = s;
      }
}
