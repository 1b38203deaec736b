/* ef-pfa-geometry.c: the polar format algorithm's host-side geometry, for the CPU and CUDA formers. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-pfa"
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#if HAVE_OPENMP
#include <omp.h>
#endif

#include "ef-error.h"
#include "ef-pfa.h"
#include "ef-pfa-private.h"

#define KBQ EF_PFA_KBQ
#define KNQ EF_PFA_KNQ
#define TAPS_MAX EF_PFA_TAPS_MAX
#define MAX_EDGE EF_PFA_MAX_EDGE

typedef EfPfaPulseGeo PulseGeo;
typedef EfPfaStencil Stencil;

static inline double
dist3 (const double a[3], const double b[3])
{
  double d0 = a[0] - b[0], d1 = a[1] - b[1], d2 = a[2] - b[2];
  return sqrt (d0 * d0 + d1 * d1 + d2 * d2);
}

static double
bessel_i0 (double x)
{
  double sum = 1, term = 1, q = 0.25 * x * x;

  for (int k = 1; k < 200 && term > 1e-17 * sum; k++)
    {
      term *= q / ((double) k * k);
      sum += term;
    }
  return sum;
}

static double
kb_exact (const EfPfaCore *self, double t)
{
  double w = self->params.kernel_width, r = 2.0 * t / w;

  if (fabs (r) >= 1)
    return 0;
  return bessel_i0 (self->beta * sqrt (1 - r * r));
}

/* The continuous Fourier transform of the kernel at nu cycles per cell, by Simpson's rule over
 * 64 W + 1 nodes (the kernel's values there are kept in kb_nodes). */
static double
kb_transform (const EfPfaCore *self, double nu)
{
  const int n = 64 * (int) self->params.kernel_width;
  double w = self->params.kernel_width, h = w / n, sum = 0;

  for (int i = 0; i <= n; i++)
    {
      double t = -0.5 * w + i * h;
      double c = (i == 0 || i == n) ? 1 : (i % 2 ? 4 : 2);
      sum += c * self->kb_nodes[i] * cos (2 * G_PI * nu * t);
    }
  return sum * h / 3;
}

/* Knab interpolator: a sinc tapered for data oversampled by os (see ef-ffbp.h). */
static double
knab (double x, guint taps, double os)
{
  double half = 0.5 * taps, v = 1.0 - 1.0 / os, s, r;

  if (fabs (x) >= half)
    return 0.0;
  s = fabs (x) < 1e-12 ? 1.0 : sin (G_PI * x) / (G_PI * x);
  r = sqrt (half * half - x * x);
  return s * cosh (G_PI * v * r) / cosh (G_PI * v * half);
}

void
ef_pfa_knab_fill (EfPfaKnab *kn, guint taps, double os_img)
{
  g_return_if_fail (kn != NULL && taps <= TAPS_MAX);

  memset (kn, 0, sizeof *kn);
  kn->taps = taps;
  for (guint q = 0; q <= KNQ; q++)
    for (guint k = 0; k < kn->taps; k++)
      kn->w[q][k] = knab ((double) q / KNQ + 0.5 * kn->taps - 1.0 - k, kn->taps, os_img);
}

/* The smallest length >= n that FFTW handles fast: 2^a 3^b 5^c 7^d. */
static guint
good_size (guint n)
{
  for (guint m = MAX (n, 2u);; m++)
    {
      guint r = m;
      for (guint f = 2; f <= 7; f++)
        while (r % f == 0)
          r /= f;
      if (r == 1)
        return m;
    }
}

gboolean
ef_pfa_core_init (EfPfaCore *core, const EfGrid *grid, double bandwidth_hz, const EfPfaParams *params,
                  GError **error)
{
  const EfPfaParams *p = params;
  double w, s;

  g_return_val_if_fail (core != NULL && grid != NULL && params != NULL, FALSE);

  memset (core, 0, sizeof *core);
  if (grid->width == 0 || grid->height == 0 || !(grid->spacing > 0))
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT, "The image grid is empty");
      return FALSE;
    }
  if (!(bandwidth_hz > 0) || !isfinite (bandwidth_hz))
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "The polar format algorithm needs the processed bandwidth (got %g Hz)", bandwidth_hz);
      return FALSE;
    }
  if (!(p->oversample >= 1.5 && p->oversample <= 3) || p->kernel_width < 3
      || p->kernel_width > EF_PFA_KERNEL_MAX || p->resample_taps < 4 || p->resample_taps > TAPS_MAX || p->resample_taps % 2)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "Polar format parameters out of range: oversampling %g (1.5-3), kernel %u cells (3-12), "
                   "resampling taps %u (even, 4-%d)", p->oversample, p->kernel_width, p->resample_taps, TAPS_MAX);
      return FALSE;
    }

  core->grid = *grid;
  core->bandwidth = bandwidth_hz;
  core->params = *params;
  core->pulses = g_array_new (FALSE, FALSE, sizeof (PulseGeo));
  /* Beatty, Nishimura and Pauly's choice of shape for a given width and oversampling. */
  w = p->kernel_width;
  s = p->oversample;
  core->beta = G_PI * sqrt (MAX (w * w / (s * s) * (s - 0.5) * (s - 0.5) - 0.8, 0.1));
  core->kb_n = (guint) ceil (0.5 * w * KBQ) + 2;
  core->kb = g_new (double, core->kb_n);
  for (guint i = 0; i < core->kb_n; i++)
    core->kb[i] = kb_exact (core, (double) i / KBQ);
  {
    const int n = 64 * (int) p->kernel_width;
    double h = w / n;

    core->kb_nodes = g_new (double, n + 1);
    for (int i = 0; i <= n; i++)
      core->kb_nodes[i] = kb_exact (core, -0.5 * w + i * h);
  }
  return TRUE;
}

void
ef_pfa_core_unlayout (EfPfaCore *core)
{
  core->ready = FALSE;
}

void
ef_pfa_core_clear (EfPfaCore *core)
{
  if (core == NULL)
    return;
  ef_pfa_core_unlayout (core);
  g_clear_pointer (&core->deap_u, g_free);
  g_clear_pointer (&core->deap_v, g_free);
  g_clear_pointer (&core->pulses, g_array_unref);
  g_clear_pointer (&core->kb, g_free);
  g_clear_pointer (&core->kb_nodes, g_free);
}

/* 1 / the kernel's transform at lattice index i - n / 2 of a grid of m: the deapodisation, kept while n and m
 * stay the same. Each value depends on its index alone, so the threads change nothing. */
static void
deap_fill (const EfPfaCore *self, double **deap, guint *have_n, guint *have_m, guint n, guint m)
{
  double *d;

  if (*deap != NULL && *have_n == n && *have_m == m)
    return;
  g_free (*deap);
  d = *deap = g_new (double, n);
#if HAVE_OPENMP
#pragma omp parallel for schedule(static) num_threads(ef_thread_count (self->params.n_threads))
#endif
  for (guint i = 0; i < n; i++)
    d[i] = 1.0 / kb_transform (self, ((double) i - n / 2) / m);
  *have_n = n;
  *have_m = m;
}

static void
pulse_geo (const EfPfaCore *self, const EfProfileMeta *m, PulseGeo *g)
{
  double nt = sqrt (ef_dot3 (m->tx, m->tx)), nr = sqrt (ef_dot3 (m->rcv, m->rcv));

  memcpy (g->tx, m->tx, sizeof g->tx);
  memcpy (g->rcv, m->rcv, sizeof g->rcv);
  g->r0o = 0.5 * (nt + nr);
  g->kr = m->kr;
  for (int i = 0; i < 3; i++)
    g->uh[i] = 0.5 * (m->tx[i] / nt + m->rcv[i] / nr);
  g->phi = atan2 (ef_dot3 (g->uh, self->grid.v), ef_dot3 (g->uh, self->grid.u));
  if (self->pulses->len > 0)
    {
      double ref = g_array_index (self->pulses, PulseGeo, 0).phi;
      g->phi = ref + remainder (g->phi - ref, 2 * G_PI);
    }
}

void
ef_pfa_core_append (EfPfaCore *core, const EfProfileMeta *meta, guint count)
{
  for (guint p = 0; p < count; p++)
    {
      PulseGeo pg;
      pulse_geo (core, &meta[p], &pg);
      g_array_append_val (core->pulses, pg);
    }
}

void
ef_pfa_core_spectrum (const EfPfaCore *core, const EfProfileMeta *m, const EfPfaPulseGeo *pg, guint nb,
                      EfPfaSpectrum *sp)
{
  const EfGrid *g = &core->grid;
  guint qmax;

  sp->dkq = 2 * G_PI / (nb * m->dr);     /* wavenumber step between spectral bins */
  sp->uu = ef_dot3 (pg->uh, g->u);
  sp->uv = ef_dot3 (pg->uh, g->v);
  sp->uo = ef_dot3 (pg->uh, core->ol);
  qmax = (guint) ceil (core->bandwidth * 2 * G_PI / EF_C / sp->dkq);
  sp->qmax = MIN (qmax, nb / 2 - 1);
}

static gboolean
stencil_make (const EfPfaCore *self, Stencil *st)
{
  const GArray *ps = self->pulses;
  guint ia = 0, ib = 0, im = 0;
  double mid, best = INFINITY, ku[6], kv[6], lo_u = INFINITY, hi_u = -INFINITY, lo_v = INFINITY,
         hi_v = -INFINITY;

  if (ps->len == 0)
    return FALSE;
  for (guint i = 1; i < ps->len; i++)
    {
      if (g_array_index (ps, PulseGeo, i).phi < g_array_index (ps, PulseGeo, ia).phi)
        ia = i;
      if (g_array_index (ps, PulseGeo, i).phi > g_array_index (ps, PulseGeo, ib).phi)
        ib = i;
    }
  mid = 0.5 * (g_array_index (ps, PulseGeo, ia).phi + g_array_index (ps, PulseGeo, ib).phi);
  for (guint i = 0; i < ps->len; i++)
    {
      double d = fabs (g_array_index (ps, PulseGeo, i).phi - mid);
      if (d < best)
        {
          best = d;
          im = i;
        }
    }
  st->a = g_array_index (ps, PulseGeo, ia);
  st->b = g_array_index (ps, PulseGeo, ib);
  st->m = g_array_index (ps, PulseGeo, im);
  st->kr_c = st->m.kr;
  st->kr_lo = st->kr_c - 2 * G_PI * self->bandwidth / EF_C;
  st->kr_hi = st->kr_c + 2 * G_PI * self->bandwidth / EF_C;
  st->cross_ok = st->b.phi - st->a.phi > 1e-9;
  /* The support's bounding box from its corners and middle, in the image plane. */
  for (int k = 0; k < 6; k++)
    {
      const PulseGeo *g = k % 3 == 0 ? &st->a : (k % 3 == 1 ? &st->m : &st->b);
      double kr = k < 3 ? st->kr_lo : st->kr_hi;

      ku[k] = kr * ef_dot3 (g->uh, self->grid.u);
      kv[k] = kr * ef_dot3 (g->uh, self->grid.v);
      lo_u = MIN (lo_u, ku[k]);
      hi_u = MAX (hi_u, ku[k]);
      lo_v = MIN (lo_v, kv[k]);
      hi_v = MAX (hi_v, kv[k]);
    }
  st->kcu = 0.5 * (lo_u + hi_u);
  st->kcv = 0.5 * (lo_v + hi_v);
  st->width = MAX (hi_u - lo_u, hi_v - lo_v);
  return TRUE;
}

gboolean
ef_pfa_stencil_make (const EfPfaCore *core, EfPfaStencil *st)
{
  return stencil_make (core, st);
}

static inline double
diff_range (const PulseGeo *g, const double x[3])
{
  return 0.5 * (dist3 (g->tx, x) + dist3 (g->rcv, x)) - g->r0o;
}

/* Where the FFT image shows a scatterer at x (see ef_pfa_apparent). */
static void
apparent (const EfPfaCore *self, const Stencil *st, const double x[3], gboolean correct, double *al,
          double *be, double *psi)
{
  const double *u = self->grid.u, *v = self->grid.v, *ol = self->ol;
  double dm = diff_range (&st->m, x), om = ef_dot3 (st->m.uh, ol);

  *psi = st->kr_c * (dm + om);
  if (correct && st->cross_ok)
    {
      double da = diff_range (&st->a, x), db = diff_range (&st->b, x);
      double duh[3] = { st->b.uh[0] - st->a.uh[0], st->b.uh[1] - st->a.uh[1], st->b.uh[2] - st->a.uh[2] };
      double k = st->kr_hi - st->kr_lo;
      /* [dK_ab; dK_lohi] (al, be) = -(dPsi_ab; dPsi_lohi) */
      double a11 = st->kr_c * ef_dot3 (duh, u), a12 = st->kr_c * ef_dot3 (duh, v);
      double a21 = k * ef_dot3 (st->m.uh, u), a22 = k * ef_dot3 (st->m.uh, v);
      double r1 = -st->kr_c * ((db - da) + ef_dot3 (duh, ol)), r2 = -k * (dm + om);
      double det = a11 * a22 - a12 * a21;

      if (fabs (det) > 1e-12 * (fabs (a11 * a22) + fabs (a12 * a21)))
        {
          *al = (r1 * a22 - r2 * a12) / det;
          *be = (a11 * r2 - a21 * r1) / det;
          return;
        }
    }
  {
    double d[3] = { x[0] - ol[0], x[1] - ol[1], x[2] - ol[2] };
    *al = ef_dot3 (d, u);
    *be = ef_dot3 (d, v);
  }
}

void
ef_pfa_apparent (const EfPfaCore *core, const EfPfaStencil *st, const double x[3], gboolean correct,
                 double *al, double *be, double *psi)
{
  apparent (core, st, x, correct, al, be, psi);
}

gboolean
ef_pfa_core_layout (EfPfaCore *self, GError **error)
{
  const EfGrid *g = &self->grid;
  const EfPfaParams *p = &self->params;
  Stencil st;
  double shift = 0;
  guint margin;
  guint w = g->width, h = g->height;

  self->cc = (int) (w / 2);
  self->rc = (int) (h / 2);
  ef_grid_pixel_position (g, self->cc, self->rc, self->ol);
  if (p->correct_distortion && stencil_make (self, &st))
    {
      /* The largest shift along the ROI's boundary (the distortion grows outwards), with room to spare for
       * the rest of the aperture. */
      for (guint k = 0; k <= 64; k++)
        {
          double f = k / 64.0;
          double pts[4][2] = { { f * (w - 1), 0 }, { f * (w - 1), h - 1 }, { 0, f * (h - 1) }, { w - 1, f * (h - 1) } };

          for (int e = 0; e < 4; e++)
            {
              double x[3], al, be, psi;

              ef_grid_pixel_position (g, pts[e][0], pts[e][1], x);
              apparent (self, &st, x, TRUE, &al, &be, &psi);
              shift = MAX (shift, hypot (al - (pts[e][0] - self->cc) * g->spacing,
                                         be - (pts[e][1] - self->rc) * g->spacing));
            }
        }
    }
  margin = (guint) ceil (1.25 * shift / g->spacing) + p->resample_taps / 2 + 4;
  if (shift / g->spacing > MAX_EDGE)
    margin = MAX_EDGE;
  self->nu = 2 * (MAX ((guint) self->cc, w - self->cc) + margin);
  self->nv = 2 * (MAX ((guint) self->rc, h - self->rc) + margin);
  self->mu = good_size ((guint) ceil (p->oversample * self->nu));
  self->mv = good_size ((guint) ceil (p->oversample * self->nv));
  if (self->mu > MAX_EDGE || self->mv > MAX_EDGE)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "The polar format grid would be %u x %u cells (the ROI of %u x %u pixels plus a planar-wavefront "
                   "distortion of up to %.0f pixels); use a smaller ROI or backprojection",
                   self->mu, self->mv, w, h, shift / g->spacing);
      return FALSE;
    }
  self->dku = 2 * G_PI / (self->mu * g->spacing);
  self->dkv = 2 * G_PI / (self->mv * g->spacing);
  /* Dividing by the kernel's transform undoes the taper the gridding put on the image. */
  deap_fill (self, &self->deap_u, &self->deap_nu, &self->deap_mu, self->nu, self->mu);
  deap_fill (self, &self->deap_v, &self->deap_nv, &self->deap_mv, self->nv, self->mv);
  g_debug ("polar format grid %u x %u for a %u x %u lattice (distortion up to %.2f m)", self->mu, self->mv,
           self->nu, self->nv, shift);
  self->ready = TRUE;
  return TRUE;
}

double
ef_pfa_image_oversampling (const EfPfaCore *core, const EfPfaStencil *st)
{
  double os_img = st->width > 0 ? 2 * G_PI / (st->width * core->grid.spacing) : 8;

  return CLAMP (os_img, 1.2, 8.0);
}

/* The pulses the depth-of-focus check reads: all of them up to this many, else an even subset that keeps
 * the aperture's two ends. The residual is smooth over the aperture, so the subset finds the same fit and
 * the same extremes; it keeps the check's cost per block bounded on long collections. */
#define DOF_MAX_PULSES 4096
/* Points along each edge of the region where the error is evaluated (corners included, so 4 (n - 1)
 * on the boundary), plus its centre. The error is close to a quadratic form of the position about the
 * scene centre, largest on the boundary; along an edge it is a parabola whose extreme may fall between
 * the corners and the midpoint, which eight intervals catch to within a percent. */
#define DOF_EDGE_POINTS 9

/* The non-shift part of the planar-wavefront residual at x, peak to peak, in metres: the residual
 * e_p = dR_p(x) + uh_p.x of every pulse in idx, less its best fit (least squares) by a displacement
 * d.(uh_p.u, uh_p.v) of the image, which the distortion correction undoes and which costs no focus. */
static double
residual_pp (const EfPfaCore *core, const guint *idx, guint n, const double *fu, const double *fv, double *e,
             const double x[3])
{
  double s11 = 0, s12 = 0, s22 = 0, t1 = 0, t2 = 0, det, du, dv, lo = INFINITY, hi = -INFINITY;

  for (guint i = 0; i < n; i++)
    {
      const PulseGeo *pg = &g_array_index (core->pulses, PulseGeo, idx[i]);

      e[i] = diff_range (pg, x) + ef_dot3 (pg->uh, x);
      s11 += fu[i] * fu[i];
      s12 += fu[i] * fv[i];
      s22 += fv[i] * fv[i];
      t1 += fu[i] * e[i];
      t2 += fv[i] * e[i];
    }
  det = s11 * s22 - s12 * s12;
  /* Looks that all point one way resolve no cross-range: nothing to defocus. */
  if (!(det > 1e-12 * s11 * s22))
    return 0;
  du = (t1 * s22 - t2 * s12) / det;
  dv = (s11 * t2 - s12 * t1) / det;
  for (guint i = 0; i < n; i++)
    {
      double r = e[i] - du * fu[i] - dv * fv[i];

      lo = MIN (lo, r);
      hi = MAX (hi, r);
    }
  return hi - lo;
}

void
ef_pfa_dof_report (const EfPfaCore *core, EfPfaReport *rep)
{
  const EfGrid *g = &core->grid;
  const GArray *ps = core->pulses;
  guint w = g->width, h = g->height, n = 0, ia = 0, ib = 0, stride;
  g_autofree guint *idx = NULL;
  g_autofree double *fu = NULL, *fv = NULL, *scratch = NULL;
  double kr_sum = 0, kr_top = -INFINITY, r_sum = 0, kr_hi, kr_c, theta, lambda, cos_psi, uh_mean[3] = { 0, 0, 0 };
  double qpe_pp = 0;

  g_return_if_fail (core != NULL && rep != NULL);

  rep->qpe_max_rad = 0;
  rep->roi_radius_m = 0;
  rep->outside_dof = FALSE;
  rep->note[0] = '\0';
  rep->qpe_limit_rad = EF_PFA_QPE_LIMIT_RAD;
  rep->r_max_m = INFINITY;
  if (ps->len == 0)
    return;
  for (guint i = 0; i < ps->len; i++)
    {
      const PulseGeo *pg = &g_array_index (ps, PulseGeo, i);

      kr_sum += pg->kr;
      kr_top = MAX (kr_top, pg->kr);
      r_sum += pg->r0o;
      for (int k = 0; k < 3; k++)
        uh_mean[k] += pg->uh[k];
      if (pg->phi < g_array_index (ps, PulseGeo, ia).phi)
        ia = i;
      if (pg->phi > g_array_index (ps, PulseGeo, ib).phi)
        ib = i;
    }
  kr_c = kr_sum / ps->len;
  kr_hi = kr_top + 2 * G_PI * core->bandwidth / EF_C;
  stride = (ps->len + DOF_MAX_PULSES - 1) / DOF_MAX_PULSES;
  idx = g_new (guint, ps->len / stride + 3);
  for (guint i = 0; i < ps->len; i += stride)
    idx[n++] = i;
  idx[n++] = ia;
  idx[n++] = ib;
  fu = g_new (double, n);
  fv = g_new (double, n);
  scratch = g_new (double, n);
  for (guint i = 0; i < n; i++)
    {
      const PulseGeo *pg = &g_array_index (ps, PulseGeo, idx[i]);

      /* Where the spectrum of pulse i lies in the image plane (ef_pfa_core_spectrum's uu, uv). */
      fu[i] = ef_dot3 (pg->uh, g->u);
      fv[i] = ef_dot3 (pg->uh, g->v);
    }

  for (guint k = 0; k < DOF_EDGE_POINTS; k++)
    {
      double f = (double) k / (DOF_EDGE_POINTS - 1);
      double pts[5][2] = { { f * (w - 1), 0 }, { f * (w - 1), h - 1 }, { 0, f * (h - 1) }, { w - 1, f * (h - 1) },
                           { 0.5 * (w - 1), 0.5 * (h - 1) } };

      for (int e = 0; e < (k == 0 ? 5 : 4); e++)
        {
          double x[3], pp;

          ef_grid_pixel_position (g, pts[e][0], pts[e][1], x);
          pp = residual_pp (core, idx, n, fu, fv, scratch, x);
          if (pp > qpe_pp)
            {
              qpe_pp = pp;
              rep->qpe_at_m[0] = x[0];
              rep->qpe_at_m[1] = x[1];
            }
          rep->roi_radius_m = MAX (rep->roi_radius_m, sqrt (ef_dot3 (x, x)));
        }
    }
  /* The phase at the top of the band, the worst; the limit was found for the band's centre, where the
   * error of a band-limited image effectively sits. */
  rep->qpe_max_rad = kr_hi * qpe_pp;
  rep->qpe_limit_rad = EF_PFA_QPE_LIMIT_RAD * kr_hi / kr_c;
  rep->outside_dof = rep->qpe_max_rad > rep->qpe_limit_rad;

  /* The classical radius, for the message. */
  theta = g_array_index (ps, PulseGeo, ib).phi - g_array_index (ps, PulseGeo, ia).phi;
  lambda = 4 * G_PI / kr_hi;
  cos_psi = hypot (ef_dot3 (uh_mean, g->u), ef_dot3 (uh_mean, g->v)) / sqrt (ef_dot3 (uh_mean, uh_mean));
  rep->r_max_m = theta > 0 ? sqrt (lambda * r_sum / ps->len) / (theta * cos_psi) : INFINITY;
  if (rep->outside_dof)
    snprintf (rep->note, sizeof rep->note,
              "the region reaches %.0f m from the scene centre, past the polar format depth of focus: a quadratic "
              "phase error of %.2f rad (limit %.2f) at (%.0f, %.0f) m widens the impulse response by more than 10%%; "
              "use backprojection there", rep->roi_radius_m, rep->qpe_max_rad, rep->qpe_limit_rad, rep->qpe_at_m[0],
              rep->qpe_at_m[1]);
}
