/* ef-pfa.c: the polar format algorithm on the CPU: k-space gridding, one 2-D FFT, distortion correction. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-pfa"
#include "config.h"

#include <fftw3.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#if HAVE_OPENMP
#include <omp.h>
#endif

#include "ef-error.h"
#include "ef-fftw.h"
#include "ef-pfa.h"
#include "ef-pfa-private.h"
#include "ef-simd.h"

#define KNQ EF_PFA_KNQ
#define TAPS_MAX EF_PFA_TAPS_MAX
#define rot_cycles ef_pfa_rot_cycles

typedef EfPfaPulseGeo PulseGeo;
typedef EfPfaStencil Stencil;
typedef EfPfaKnab Knab;

struct _EfPfa {
  EfPfaCore    core;             /* the parameters, the layout and the pulses seen */
  gboolean     fp64;
  /* Made at the first block. */
  gpointer     kgrid;            /* owned: mv rows of mu complex (double or float) */
  gpointer     work;             /* owned: FFT buffer, same shape */
  fftw_plan    plan64;
  fftwf_plan   plan32;
  guint        nbins;            /* profile length the spectrum plan is for */
  fftw_complex *pbuf;            /* owned */
  fftw_plan    pplan;
};

void
ef_pfa_params_init (EfPfaParams *p)
{
  g_return_if_fail (p != NULL);
  p->oversample = 2.0;
  p->kernel_width = 6;
  p->resample_taps = 8;
  p->correct_distortion = TRUE;
  p->n_threads = 0;
}

/* The geometry every former shares (the look angles, the layout, the stencil, the depth of focus) is in
 * ef-pfa-geometry.c; this file grids, transforms and resamples with FFTW. */

EfPfa *
ef_pfa_new (const EfGrid *grid, double bandwidth_hz, gboolean fp64, const EfPfaParams *params, GError **error)
{
  EfPfa *self;

  g_return_val_if_fail (grid != NULL && params != NULL, NULL);

  self = g_new0 (EfPfa, 1);
  if (!ef_pfa_core_init (&self->core, grid, bandwidth_hz, params, error))
    {
      g_free (self);
      return NULL;
    }
  self->fp64 = fp64;
  return self;
}

static void
release_grid (EfPfa *self)
{
  ef_fftw_planner_lock ();
  if (self->plan64)
    fftw_destroy_plan (self->plan64);
  if (self->plan32)
    fftwf_destroy_plan (self->plan32);
  if (self->pplan)
    fftw_destroy_plan (self->pplan);
  ef_fftw_planner_unlock ();
  self->plan64 = NULL;
  self->plan32 = NULL;
  self->pplan = NULL;
  if (self->fp64)
    {
      fftw_free (self->kgrid);
      fftw_free (self->work);
    }
  else
    {
      fftwf_free (self->kgrid);
      fftwf_free (self->work);
    }
  if (self->pbuf)
    fftw_free (self->pbuf);
  self->kgrid = self->work = NULL;
  self->pbuf = NULL;
  ef_pfa_core_unlayout (&self->core);
}

void
ef_pfa_free (EfPfa *self)
{
  if (self == NULL)
    return;
  release_grid (self);
  ef_pfa_core_clear (&self->core);
  g_free (self);
}

void
ef_pfa_check (EfPfa *self, EfPfaReport *report)
{
  g_return_if_fail (self != NULL && report != NULL);

  memset (report, 0, sizeof *report);
  report->n_pulses = self->core.n_gridded;
  ef_pfa_dof_report (&self->core, report);
}

void
ef_pfa_clear (EfPfa *self)
{
  g_return_if_fail (self != NULL);
  /* The grid's size was chosen for the first block's geometry; a new collection chooses again. */
  release_grid (self);
  g_array_set_size (self->core.pulses, 0);
  self->core.n_gridded = 0;
}

/* Fixes the lattice and the k-space grid from the first block's geometry, and makes the buffers. */
static gboolean
setup (EfPfa *self, guint nbins, GError **error)
{
  EfPfaCore *c = &self->core;
  gsize cells, elem = self->fp64 ? sizeof (fftw_complex) : sizeof (fftwf_complex);

  if (!ef_pfa_core_layout (c, error))
    return FALSE;
  cells = (gsize) c->mu * c->mv;
  if (self->fp64)
    {
      self->kgrid = fftw_malloc (cells * elem);
      self->work = fftw_malloc (cells * elem);
    }
  else
    {
      self->kgrid = fftwf_malloc (cells * elem);
      self->work = fftwf_malloc (cells * elem);
    }
  self->pbuf = fftw_malloc (sizeof (fftw_complex) * nbins);
  if (self->kgrid == NULL || self->work == NULL || self->pbuf == NULL)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_MEMORY,
                   "Not enough memory for a %u x %u polar format grid", c->mu, c->mv);
      return FALSE;
    }
  memset (self->kgrid, 0, cells * elem);
  self->nbins = nbins;
  ef_fftw_planner_lock ();
  if (self->fp64)
    self->plan64 = fftw_plan_dft_2d ((int) c->mv, (int) c->mu, self->work, self->work, FFTW_FORWARD,
                                     FFTW_ESTIMATE);
  else
    self->plan32 = fftwf_plan_dft_2d ((int) c->mv, (int) c->mu, self->work, self->work, FFTW_FORWARD,
                                      FFTW_ESTIMATE);
  self->pplan = fftw_plan_dft_1d ((int) nbins, self->pbuf, self->pbuf, FFTW_FORWARD, FFTW_ESTIMATE);
  ef_fftw_planner_unlock ();
  if ((self->fp64 ? self->plan64 == NULL : self->plan32 == NULL) || self->pplan == NULL)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_FAILED, "FFTW could not plan a %u x %u transform",
                   c->mu, c->mv);
      return FALSE;
    }
  return TRUE;
}

/* Spreads one spectral sample onto the k-space grid (wrapping round its edges: the image is periodic). */
static void
spread (EfPfa *self, double ku, double kv, EfCf64 val)
{
  const EfPfaCore *c = &self->core;
  const guint n = c->params.kernel_width + 1;
  const double half = 0.5 * c->params.kernel_width;
  double fu = ku / c->dku, fv = kv / c->dkv;
  double bu = ceil (fu - half), bv = ceil (fv - half);
  gint64 mu = c->mu, mv = c->mv;
  gint64 su = (((gint64) bu % mu) + mu) % mu, sv = (((gint64) bv % mv) + mv) % mv;
  double wu[16], wv[16];
  gint64 iu[16], iv[16];

  for (guint j = 0; j < n; j++)
    {
      wu[j] = ef_pfa_core_kb_lookup (c, fu - (bu + j));
      wv[j] = ef_pfa_core_kb_lookup (c, fv - (bv + j));
      iu[j] = (su + j) % mu;
      iv[j] = (sv + j) % mv;
    }
  for (guint j = 0; j < n; j++)
    {
      EfCf64 vj = val * wv[j];

      if (wv[j] == 0)
        continue;
      if (self->fp64)
        {
          EfCf64 *row = (EfCf64 *) self->kgrid + (gsize) iv[j] * c->mu;
          for (guint i = 0; i < n; i++)
            row[iu[i]] += vj * wu[i];
        }
      else
        {
          EfCf32 *row = (EfCf32 *) self->kgrid + (gsize) iv[j] * c->mu;
          for (guint i = 0; i < n; i++)
            row[iu[i]] += (EfCf32) (vj * wu[i]);
        }
    }
}

gboolean
ef_pfa_add (EfPfa *self, const EfProfiles *profiles, GError **error)
{
  EfPfaCore *core;
  guint nb, first;

  g_return_val_if_fail (self != NULL && profiles != NULL, FALSE);

  if ((profiles->data64 != NULL) != self->fp64)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "The profiles are %s but the polar format former was made for %s", self->fp64 ? "fp32" : "fp64",
                   self->fp64 ? "fp64" : "fp32");
      return FALSE;
    }
  if (profiles->n_pulses == 0)
    return TRUE;
  core = &self->core;
  nb = profiles->n_bins;
  first = core->pulses->len;
  ef_pfa_core_append (core, profiles->meta, profiles->n_pulses);
  if (!core->ready && !setup (self, nb, error))
    {
      release_grid (self);
      g_array_set_size (core->pulses, first);
      return FALSE;
    }
  if (nb != self->nbins)
    {
      g_array_set_size (core->pulses, first);
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "The profiles changed length (%u bins, then %u)", self->nbins, nb);
      return FALSE;
    }

  for (guint p = 0; p < profiles->n_pulses; p++)
    {
      const EfProfileMeta *m = &profiles->meta[p];
      const PulseGeo *pg = &g_array_index (core->pulses, PulseGeo, first + p);
      EfPfaSpectrum sp;
      double dkq, uu, uv, uo;
      guint qmax;

      ef_pfa_core_spectrum (core, m, pg, nb, &sp);
      dkq = sp.dkq;
      uu = sp.uu;
      uv = sp.uv;
      uo = sp.uo;
      qmax = sp.qmax;
      for (guint i = 0; i < nb; i++)
        {
          EfCf64 z = self->fp64 ? profiles->data64[(gsize) p * nb + i] : (EfCf64) profiles->data32[(gsize) p * nb + i];
          self->pbuf[i][0] = creal (z);
          self->pbuf[i][1] = cimag (z);
        }
      fftw_execute_dft (self->pplan, self->pbuf, self->pbuf);
      for (int q = -(int) qmax; q <= (int) qmax; q++)
        {
          const double *z = self->pbuf[(q + (int) nb) % (int) nb];
          double kq = m->kr + q * dkq;
          /* The spectral coefficient (profile(dR) = sum_q c_q exp(j (kq - kr) dR)), moved to the origin as
           * reference (r0 -> r0o), and referred to the lattice origin: phase -K.ol. */
          double ph = -(q * dkq) * m->r_start + kq * (pg->r0o - m->r0) - kq * uo;
          EfCf64 c = (z[0] + I * z[1]) / nb * cexp (I * ph);

          spread (self, kq * uu, kq * uv, c);
        }
    }
  core->n_gridded += profiles->n_pulses;
  return TRUE;
}

/* One output row: where each pixel appears in the lattice image, the lattice read there, the phase
 * restored. Returns the largest shift applied. */
EF_CLONES static double
resample_row (const EfPfaCore *self, const Stencil *st, const EfCf64 *lat, const Knab *kn, gboolean correct,
              guint r, int u0, int v0, EfCf64 *out64, EfCf32 *out32)
{
  const EfGrid *g = &self->grid;
  const double km_u = st->kr_c * ef_dot3 (st->m.uh, g->u), km_v = st->kr_c * ef_dot3 (st->m.uh, g->v);
  double dist_max = 0;

  for (guint c = 0; c < g->width; c++)
    {
      double x[3], al, be, psi, fu, fv, wu[TAPS_MAX], wv[TAPS_MAX];
      EfCf64 sum = 0, outv;
      int iu, iv;

      ef_grid_pixel_position (g, c, r, x);
      ef_pfa_apparent (self, st, x, correct, &al, &be, &psi);
      if (correct)
        {
          double du = al - ((double) c - self->cc) * g->spacing, dv = be - ((double) r - self->rc) * g->spacing;
          dist_max = MAX (dist_max, sqrt (du * du + dv * dv));
        }
      fu = al / g->spacing - u0;
      fv = be / g->spacing - v0;
      if (!correct)
        {
          /* On the lattice: no interpolation. */
          iu = (int) lround (fu);
          iv = (int) lround (fv);
          sum = lat[(gsize) iv * self->nu + iu];
        }
      else
        {
          double flu = floor (fu), flv = floor (fv), qu = (fu - flu) * KNQ, qv = (fv - flv) * KNQ;
          int qiu = CLAMP ((int) qu, 0, KNQ - 1), qiv = CLAMP ((int) qv, 0, KNQ - 1);

          for (guint k = 0; k < kn->taps; k++)
            {
              wu[k] = kn->w[qiu][k] + (qu - qiu) * (kn->w[qiu + 1][k] - kn->w[qiu][k]);
              wv[k] = kn->w[qiv][k] + (qv - qiv) * (kn->w[qiv + 1][k] - kn->w[qiv][k]);
            }
          iu = (int) flu - (int) kn->taps / 2 + 1;
          iv = (int) flv - (int) kn->taps / 2 + 1;
          if (iu >= 0 && iv >= 0 && iu + (int) kn->taps <= (int) self->nu && iv + (int) kn->taps <= (int) self->nv)
            {
              /* Inside the lattice: plain sums over interleaved (re, im) pairs, which vectorise. */
              double acc[2 * TAPS_MAX] = { 0 }, sre = 0, sim = 0;

              for (guint j = 0; j < kn->taps; j++)
                {
                  const double *restrict row = (const double *) (lat + (gsize) (iv + (int) j) * self->nu + iu);

                  EF_SIMD
                  for (guint k = 0; k < 2 * kn->taps; k++)
                    acc[k] += wv[j] * row[k];
                }
              for (guint k = 0; k < kn->taps; k++)
                {
                  sre += wu[k] * acc[2 * k];
                  sim += wu[k] * acc[2 * k + 1];
                }
              sum = sre + I * sim;
            }
          else
            for (guint j = 0; j < kn->taps; j++)
              {
                int jj = iv + (int) j;
                EfCf64 rs = 0;

                if (jj < 0 || jj >= (int) self->nv)
                  continue;
                for (guint k = 0; k < kn->taps; k++)
                  {
                    int ii = iu + (int) k;
                    if (ii >= 0 && ii < (int) self->nu)
                      rs += wu[k] * lat[(gsize) jj * self->nu + ii];
                  }
                sum += wv[j] * rs;
              }
        }
      /* Back to the carrier at the apparent place, and the exact phase of the return at the support's
       * centre: sum * exp(j (psi + (K_m - K_c).(al, be))). */
      {
        double cyc = (psi + (km_u - st->kcu) * al + (km_v - st->kcv) * be) / (2 * G_PI);

        outv = sum * rot_cycles (cyc);
      }
      if (out64)
        out64[(gsize) r * g->width + c] = outv;
      else
        out32[(gsize) r * g->width + c] = (EfCf32) outv;
    }
  return dist_max;
}

gboolean
ef_pfa_form (EfPfa *self, EfCf64 *out64, EfCf32 *out32, EfPfaReport *report, GError **error)
{
  const EfPfaCore *c;
  const EfGrid *g;
  const EfPfaParams *p;
  EfPfaReport rep = { 0 };
  Stencil st;
  g_autofree EfCf64 *lat = NULL;
  g_autofree Knab *kn = NULL;
  gsize npx, cells;
  double dist_max = 0;
  gboolean correct;
  int u0, v0;

  g_return_val_if_fail (self != NULL, FALSE);
  g_return_val_if_fail ((out64 != NULL) != (out32 != NULL), FALSE);

  c = &self->core;
  g = &c->grid;
  p = &c->params;
  npx = ef_grid_n_pixels (g);
  rep.n_pulses = c->n_gridded;
  if (!c->ready || c->n_gridded == 0 || !ef_pfa_stencil_make (c, &st))
    {
      if (out64)
        memset (out64, 0, npx * sizeof (EfCf64));
      else
        memset (out32, 0, npx * sizeof (EfCf32));
      if (report)
        *report = rep;
      return TRUE;
    }
  correct = p->correct_distortion && st.cross_ok;

  /* The lattice image: FFT of the grid, the kernel's taper divided out, the support's carrier removed. */
  cells = (gsize) c->mu * c->mv;
  lat = g_try_new (EfCf64, (gsize) c->nu * c->nv);
  if (lat == NULL)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_MEMORY, "Not enough memory for the polar format image");
      return FALSE;
    }
  if (self->fp64)
    {
      memcpy (self->work, self->kgrid, cells * sizeof (fftw_complex));
      fftw_execute (self->plan64);
    }
  else
    {
      memcpy (self->work, self->kgrid, cells * sizeof (fftwf_complex));
      fftwf_execute (self->plan32);
    }
  u0 = -(int) (c->nu / 2);
  v0 = -(int) (c->nv / 2);
#if HAVE_OPENMP
#pragma omp parallel for schedule(static) num_threads(ef_thread_count (p->n_threads))
#endif
  for (guint j = 0; j < c->nv; j++)
    {
      int b = v0 + (int) j;
      gsize row = (gsize) ((b % (int) c->mv + (int) c->mv) % (int) c->mv) * c->mu;

      for (guint i = 0; i < c->nu; i++)
        {
          int a = u0 + (int) i;
          gsize at = row + (gsize) ((a % (int) c->mu + (int) c->mu) % (int) c->mu);
          EfCf64 z = self->fp64 ? ((EfCf64 *) self->work)[at] : (EfCf64) ((EfCf32 *) self->work)[at];
          double cyc = (st.kcu * a + st.kcv * b) * g->spacing / (2 * G_PI);

          lat[(gsize) j * c->nu + i] = z * (c->deap_u[i] * c->deap_v[j]) * rot_cycles (cyc);
        }
    }

  /* The resampling kernel, for the image's own oversampling (pixels per resolution cell). */
  kn = g_new0 (Knab, 1);
  ef_pfa_knab_fill (kn, p->resample_taps, ef_pfa_image_oversampling (c, &st));

#if HAVE_OPENMP
#pragma omp parallel for schedule(dynamic, 4) reduction(max:dist_max) num_threads(ef_thread_count (p->n_threads))
#endif
  for (guint r = 0; r < g->height; r++)
    {
      double d = resample_row (c, &st, lat, kn, correct, r, u0, v0, out64, out32);
      dist_max = MAX (dist_max, d);
    }

  ef_pfa_dof_report (c, &rep);
  rep.distortion_max_m = dist_max;
  if (report)
    *report = rep;
  return TRUE;
}
