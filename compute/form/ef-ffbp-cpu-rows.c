/* ef-ffbp-cpu-rows.c: FFBP and FBP on the CPU: the row loops of the leaves, the merges and the final step. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-ffbp"
#include "config.h"

#include <math.h>
#include <string.h>
#if HAVE_OPENMP
#include <omp.h>
#endif

#include "ef-bp.h"
#include "ef-error.h"
#include "ef-ffbp-cpu.h"
#include "ef-ffbp-cpu-private.h"
#include "ef-ffbp-private.h"
#include "ef-simd.h"

/* The plan (ef-ffbp.c) lays a block's tree out; ef-ffbp-cpu.c runs its stages; this file fills one row
 * of a grid at a time, and interpolates the last stage onto the image. */

#define EF_INLINE static inline __attribute__((always_inline))

#define KQ EF_FFBP_KQ
#define RS EF_FFBP_RS
#define AS EF_FFBP_AS
#define PAD EF_FFBP_PAD

typedef EfFfbpKernel Kernel;
typedef EfFfbpTree Tree;

/* Splits fractional index f into the first tap's index, the table row and the blend towards the next. */
EF_INLINE int
kernel_phase (guint taps, double f, int *q, double *d)
{
  double fl = floor (f), qf = (f - fl) * KQ;
  int qi = (int) qf;

  qi = CLAMP (qi, 0, KQ - 1);
  *q = qi;
  *d = qf - qi;
  return (int) fl - (int) (taps / 2) + 1;
}

/* sin and cos of 2 pi c: reduced to a quarter turn, then Taylor series good to 1e-14. */
EF_INLINE void
sincos_cycles (double c, double *s_out, double *c_out)
{
  double r = c - rint (c);
  double qf = rint (r * 4.0);
  double x = (r - 0.25 * qf) * (2.0 * G_PI);
  double x2 = x * x;
  /* Multiplications by reciprocals: without -ffast-math a division by a constant stays a division. */
  double s = x * (1 - x2 * (1.0 / 6) * (1 - x2 * (1.0 / 20) * (1 - x2 * (1.0 / 42) * (1 - x2 * (1.0 / 72)
                  * (1 - x2 * (1.0 / 110) * (1 - x2 * (1.0 / 156)))))));
  double co = 1 - x2 * 0.5 * (1 - x2 * (1.0 / 12) * (1 - x2 * (1.0 / 30) * (1 - x2 * (1.0 / 56)
                  * (1 - x2 * (1.0 / 90) * (1 - x2 * (1.0 / 132))))));
  int qi = (int) qf;
  /* Quadrant fix-up as arithmetic blends, which vectorise where branches would not. */
  double swap = (double) (qi & 1);
  double sn = s + swap * (co - s);
  double cs = co + swap * (s - co);

  *s_out = sn * (1.0 - 2.0 * (double) ((qi >> 1) & 1));
  *c_out = cs * (1.0 - 2.0 * (double) (((qi + 1) >> 1) & 1));
}

/* ---- The row loops ------------------------------------------------------------------------------- */

void
ef_ffbp_scratch_init (Scratch *s, guint n, guint max_leaf)
{
  memset (s, 0, sizeof *s);
  s->px = g_new (double, n);
  s->py = g_new (double, n);
  s->pz = g_new (double, n);
  s->off = g_new (double, n);
  s->ok = g_new (guint8, n);
  s->fr = g_new (double, n);
  s->fa = g_new (double, n);
  s->cyc = g_new (double, n);
  s->are = g_new (double, n);
  s->aim = g_new (double, n);
  s->vre = g_new (double, n);
  s->vim = g_new (double, n);
  s->dr = g_new (double, n);
  s->kb = g_new (int, n);
  s->taps.kind = g_new (guint8, n);
  s->taps.off = g_new (gint32, n);
  s->taps.qr = g_new (gint32, n);
  s->taps.qa = g_new (gint32, n);
  s->taps.dr = g_new (float, n);
  s->taps.da = g_new (float, n);
  s->ph = g_new (float, n);
  s->fre = g_new (float, n);
  s->fim = g_new (float, n);
  s->gre = g_new (float, n);
  s->gim = g_new (float, n);
  if (max_leaf > 0)
    {
      s->coef = g_new (EfBpCoef, max_leaf);
      s->ta = ef_aligned_alloc0 (5 * LEAF_CHUNK * sizeof (float));
      if (s->ta == NULL)
        g_error ("Out of memory for leaf scratch");
      s->tb = s->ta + LEAF_CHUNK;
      s->tq = s->tb + LEAF_CHUNK;
      s->tre = s->tq + LEAF_CHUNK;
      s->tim = s->tre + LEAF_CHUNK;
    }
}

void
ef_ffbp_scratch_clear (Scratch *s)
{
  g_free (s->px);
  g_free (s->py);
  g_free (s->pz);
  g_free (s->off);
  g_free (s->ok);
  g_free (s->fr);
  g_free (s->fa);
  g_free (s->cyc);
  g_free (s->are);
  g_free (s->aim);
  g_free (s->vre);
  g_free (s->vim);
  g_free (s->dr);
  g_free (s->kb);
  g_free (s->taps.kind);
  g_free (s->taps.off);
  g_free (s->taps.qr);
  g_free (s->taps.qa);
  g_free (s->taps.dr);
  g_free (s->taps.da);
  g_free (s->ph);
  g_free (s->fre);
  g_free (s->fim);
  g_free (s->gre);
  g_free (s->gim);
  g_free (s->coef);
  ef_aligned_free (s->ta);
}

/* The plane points of row j of a node's grid, with off = -(rho - r0): the node's own demodulation. */
EF_INLINE void
node_row_points (const Node *nd, guint j, Scratch *s)
{
  /* Locals: the stores below could otherwise alias the node's fields and stop vectorisation. */
  const double al = nd->al0 + j * nd->dal, rho0 = nd->rho0, drho = nd->drho, h = nd->h, qsign = nd->qsign;
  const double hn = nd->h * nd->taun, itau = 1.0 / nd->tau1, r0 = nd->r0;
  const double c0 = nd->cp[0], c1 = nd->cp[1], c2 = nd->cp[2];
  const double e10 = nd->e1[0], e11 = nd->e1[1], e12 = nd->e1[2];
  const double e20 = nd->e2[0], e21 = nd->e2[1], e22 = nd->e2[2];
  double *restrict px = s->px, *restrict py = s->py, *restrict pz = s->pz, *restrict off = s->off;
  guint8 *restrict ok = s->ok;
  const guint n = nd->nrho;

  EF_SIMD
  for (guint i = 0; i < n; i++)
    {
      double rho = rho0 + i * drho;
      double pp = (rho * al + hn) * itau;
      double q2 = rho * rho - h * h - pp * pp;
      double q = qsign * sqrt (q2 > 0 ? q2 : 0.0);

      ok[i] = (q2 > 0) & (rho > 0);
      px[i] = c0 + pp * e10 + q * e20;
      py[i] = c1 + pp * e11 + q * e21;
      pz[i] = c2 + pp * e12 + q * e22;
      off[i] = -(rho - r0);
    }
}

/* acc[i] += F_nd(rho_i, alpha_i) exp(+j kr (rho_i - r0 + off_i)) for the n points in s. Three passes so
 * that the geometry and the re-modulation vectorise across points, and the 2-D kernel sum vectorises
 * across its range taps. */
EF_INLINE void
gather_impl (const EfFfbp *self, const Node *nd, double kr, guint n, Scratch *s, const gboolean f64)
{
  const Kernel *kR = self->kr_range, *kA = self->kr_angle;
  const guint ta = kA->taps, tr = kR->taps;
  const double cx = nd->c[0], cy = nd->c[1], cz = nd->c[2];
  const double tx = nd->t[0], ty = nd->t[1], tz = nd->t[2];
  const double irho = 1.0 / nd->drho, ial = 1.0 / nd->dal, kc = kr / (2.0 * G_PI);
  const double rho0 = nd->rho0, al0 = nd->al0, r0 = nd->r0;
  const double rmax = nd->nrho + (double) RS, amax = nd->nal + (double) AS;

  {
    const double *restrict px = s->px, *restrict py = s->py, *restrict pz = s->pz, *restrict off = s->off;
    double *restrict fr = s->fr, *restrict fa = s->fa, *restrict cyc = s->cyc;

    EF_SIMD
    for (guint i = 0; i < n; i++)
      {
        double dx = px[i] - cx, dy = py[i] - cy, dz = pz[i] - cz;
        double rho = sqrt (dx * dx + dy * dy + dz * dz);
        double al = (dx * tx + dy * ty + dz * tz) / rho;

        fr[i] = (rho - rho0) * irho;
        fa[i] = (al - al0) * ial;
        cyc[i] = kc * ((rho - r0) + off[i]);
      }
  }

  for (guint i = 0; i < n; i++)
    {
      double re = 0, im = 0, dR, dA;
      int i0, j0, qR, qA;

      s->vre[i] = s->vim[i] = 0;
      if (!s->ok[i] || !(s->fr[i] > -(double) RS) || !(s->fr[i] < rmax) || !(s->fa[i] > -(double) AS)
          || !(s->fa[i] < amax))
        continue;
      i0 = kernel_phase (tr, s->fr[i], &qR, &dR);
      j0 = kernel_phase (ta, s->fa[i], &qA, &dA);
      if (i0 >= 0 && i0 + RS <= (int) nd->stride && j0 >= 0 && j0 + (int) ta <= (int) nd->nal)
        {
          if (f64)
            {
              const double *base = (const double *) nd->data + 2 * ((gsize) j0 * nd->stride + i0);
              const double *w0 = kR->wd[qR], *w1 = kR->wd[qR + 1];
              double a0[2 * RS] = { 0 }, a1[2 * RS] = { 0 }, t[2 * RS];

              /* Two partial sums halve the dependency chain. */
              for (guint j = 0; j + 1 < ta; j += 2)
                {
                  const double *ra = base + 2 * (gsize) j * nd->stride, *rb = ra + 2 * (gsize) nd->stride;
                  double wa = kA->w[qA][j] + dA * (kA->w[qA + 1][j] - kA->w[qA][j]);
                  double wb = kA->w[qA][j + 1] + dA * (kA->w[qA + 1][j + 1] - kA->w[qA][j + 1]);
                  for (guint k = 0; k < 2 * RS; k++)
                    {
                      a0[k] += wa * ra[k];
                      a1[k] += wb * rb[k];
                    }
                }
              for (guint k = 0; k < 2 * RS; k++)
                t[k] = (a0[k] + a1[k]) * (w0[k] + dR * (w1[k] - w0[k]));
              /* A tree over the lanes keeps even (real) and odd (imaginary) lanes apart. */
              for (guint k = 0; k < RS; k++)
                t[k] += t[k + RS];
              for (guint k = 0; k < RS / 2; k++)
                t[k] += t[k + RS / 2];
              re = t[0] + t[2];
              im = t[1] + t[3];
            }
          else
            {
              const float *base = (const float *) nd->data + 2 * ((gsize) j0 * nd->stride + i0);
              const float *w0 = kR->wdf[qR], *w1 = kR->wdf[qR + 1];
              const float fd = (float) dR, fa = (float) dA;
              float a0[2 * RS] = { 0 }, a1[2 * RS] = { 0 }, t[2 * RS];

              for (guint j = 0; j + 1 < ta; j += 2)
                {
                  const float *ra = base + 2 * (gsize) j * nd->stride, *rb = ra + 2 * (gsize) nd->stride;
                  float wa = kA->wf[qA][j] + fa * (kA->wf[qA + 1][j] - kA->wf[qA][j]);
                  float wb = kA->wf[qA][j + 1] + fa * (kA->wf[qA + 1][j + 1] - kA->wf[qA][j + 1]);
                  for (guint k = 0; k < 2 * RS; k++)
                    {
                      a0[k] += wa * ra[k];
                      a1[k] += wb * rb[k];
                    }
                }
              for (guint k = 0; k < 2 * RS; k++)
                t[k] = (a0[k] + a1[k]) * (w0[k] + fd * (w1[k] - w0[k]));
              for (guint k = 0; k < RS; k++)
                t[k] += t[k + RS];
              for (guint k = 0; k < RS / 2; k++)
                t[k] += t[k + RS / 2];
              re = t[0] + t[2];
              im = t[1] + t[3];
            }
        }
      else
        {
          /* Near the edges of the grid: the taps that fall outside read zero. */
          for (guint j = 0; j < ta; j++)
            {
              int jj = j0 + (int) j;
              double wa = kA->w[qA][j] + dA * (kA->w[qA + 1][j] - kA->w[qA][j]);

              if (jj < 0 || jj >= (int) nd->nal)
                continue;
              for (guint k = 0; k < tr; k++)
                {
                  int ii = i0 + (int) k;
                  double w = wa * (kR->w[qR][k] + dR * (kR->w[qR + 1][k] - kR->w[qR][k]));
                  gsize at;

                  if (ii < 0 || ii >= (int) nd->nrho)
                    continue;
                  at = (gsize) jj * nd->stride + ii;
                  if (f64)
                    {
                      EfCf64 v = ((const EfCf64 *) nd->data)[at];
                      re += w * creal (v);
                      im += w * cimag (v);
                    }
                  else
                    {
                      EfCf32 v = ((const EfCf32 *) nd->data)[at];
                      re += w * crealf (v);
                      im += w * cimagf (v);
                    }
                }
            }
        }
      s->vre[i] = re;
      s->vim[i] = im;
    }

  {
    const double *restrict cyc = s->cyc, *restrict vre = s->vre, *restrict vim = s->vim;
    double *restrict are = s->are, *restrict aim = s->aim;

    EF_SIMD
    for (guint i = 0; i < n; i++)
      {
        double sn, cs;

        sincos_cycles (cyc[i], &sn, &cs);
        are[i] += vre[i] * cs - vim[i] * sn;
        aim[i] += vre[i] * sn + vim[i] * cs;
      }
  }
}

/* The float32 kernel sum for the points of kind INSIDE, in plain C: the compiler vectorises the 16 floats
 * of a row of taps. The same sums, in the same order, as ef_ffbp_cpu_gather_avx512. */
EF_INLINE void
gather_inside_portable (const EfFfbp *self, const Node *nd, guint n, Scratch *s)
{
  const Kernel *kR = self->kr_range, *kA = self->kr_angle;
  const guint ta = kA->taps;
  const EfFfbpTaps *tp = &s->taps;

  for (guint i = 0; i < n; i++)
    {
      const float *base, *w0, *w1;
      float a0[2 * RS] = { 0 }, a1[2 * RS] = { 0 }, t[2 * RS], fd, fa;
      int qA;

      if (tp->kind[i] != EF_FFBP_TAPS_INSIDE)
        continue;
      base = (const float *) nd->data + 2 * (gsize) tp->off[i];
      w0 = kR->wdf[tp->qr[i]];
      w1 = kR->wdf[tp->qr[i] + 1];
      fd = tp->dr[i];
      fa = tp->da[i];
      qA = tp->qa[i];
      for (guint j = 0; j + 1 < ta; j += 2)
        {
          const float *ra = base + 2 * (gsize) j * nd->stride, *rb = ra + 2 * (gsize) nd->stride;
          float wa = kA->wf[qA][j] + fa * (kA->wf[qA + 1][j] - kA->wf[qA][j]);
          float wb = kA->wf[qA][j + 1] + fa * (kA->wf[qA + 1][j + 1] - kA->wf[qA][j + 1]);
          for (guint k = 0; k < 2 * RS; k++)
            {
              a0[k] += wa * ra[k];
              a1[k] += wb * rb[k];
            }
        }
      for (guint k = 0; k < 2 * RS; k++)
        t[k] = (a0[k] + a1[k]) * (w0[k] + fd * (w1[k] - w0[k]));
      for (guint k = 0; k < RS; k++)
        t[k] += t[k + RS];
      for (guint k = 0; k < RS / 2; k++)
        t[k] += t[k + RS / 2];
      s->gre[i] = t[0] + t[2];
      s->gim[i] = t[1] + t[3];
    }
}

G_STATIC_ASSERT (EF_FFBP_TAPS_NONE == 0 && EF_FFBP_TAPS_INSIDE == 1 && EF_FFBP_TAPS_EDGE == 2);

/* fre/fim[i] += F_nd(rho_i, alpha_i) exp(+j kr (rho_i - r0 + off_i)) for the n points in s, float32 grids.
 * Four passes: the geometry in double, vectorised across points; where each point reads the grid and
 * its phase, vectorised too; the kernel sums, one point at a time (AVX-512 when there); the
 * re-modulation, vectorised again. */
EF_INLINE void
gather32_impl (const EfFfbp *self, const Node *nd, double kr, guint n, Scratch *s)
{
  const Kernel *kR = self->kr_range, *kA = self->kr_angle;
  const int ta = (int) kA->taps, tr = (int) kR->taps, stride = (int) nd->stride, nal = (int) nd->nal;
  const double cx = nd->c[0], cy = nd->c[1], cz = nd->c[2];
  const double tx = nd->t[0], ty = nd->t[1], tz = nd->t[2];
  const double irho = 1.0 / nd->drho, ial = 1.0 / nd->dal, kc = kr / (2.0 * G_PI);
  const double rho0 = nd->rho0, al0 = nd->al0, r0 = nd->r0;
  const double rmax = nd->nrho + (double) RS, amax = nd->nal + (double) AS;

  {
    const double *restrict px = s->px, *restrict py = s->py, *restrict pz = s->pz, *restrict off = s->off;
    const guint8 *restrict ok = s->ok;
    guint8 *restrict kind = s->taps.kind;
    gint32 *restrict toff = s->taps.off, *restrict qr = s->taps.qr, *restrict qa = s->taps.qa;
    float *restrict dr = s->taps.dr, *restrict da = s->taps.da, *restrict ph = s->ph;
    double *restrict fr = s->fr, *restrict fa = s->fa;

    EF_SIMD
    for (guint i = 0; i < n; i++)
      {
        double dx = px[i] - cx, dy = py[i] - cy, dz = pz[i] - cz;
        double rho = sqrt (dx * dx + dy * dy + dz * dz);
        double al = (dx * tx + dy * ty + dz * tz) / rho;
        double f = (rho - rho0) * irho, a = (al - al0) * ial;
        double cyc = kc * ((rho - r0) + off[i]);
        int valid = (int) ok[i] & (f > -(double) RS) & (f < rmax) & (a > -(double) AS) & (a < amax);
        double ff, fl, qf, af, afl, qaf;
        int q1, q2, i0, j0, inside;

        /* Written so that GCC vectorises it: clamps by comparison (NaN goes to the bound, so the
         * conversions stay in range), floor as truncation of a value made non-negative, rounding by
         * the 1.5 * 2^52 constant, and no selects that share a condition (GCC turns those into
         * branches). */
        ff = f > -(double) RS ? f : -(double) RS;
        ff = ff < rmax ? ff : rmax;
        af = a > -(double) AS ? a : -(double) AS;
        af = af < amax ? af : amax;
        fl = (double) ((int) (ff + RS) - RS);
        qf = (ff - fl) * KQ;
        q1 = (int) qf;
        q1 = q1 > KQ - 1 ? KQ - 1 : q1;
        i0 = (int) fl - tr / 2 + 1;
        afl = (double) ((int) (af + AS) - AS);
        qaf = (af - afl) * KQ;
        q2 = (int) qaf;
        q2 = q2 > KQ - 1 ? KQ - 1 : q2;
        j0 = (int) afl - ta / 2 + 1;
        inside = valid & (i0 >= 0) & (i0 + RS <= stride) & (j0 >= 0) & (j0 + ta <= nal);
        /* NONE 0, INSIDE 1, EDGE 2. */
        kind[i] = (guint8) (valid * (2 - inside));
        toff[i] = (j0 * stride + i0) & -inside;
        qr[i] = q1;
        qa[i] = q2;
        dr[i] = (float) (qf - q1);
        da[i] = (float) (qaf - q2);
        fr[i] = f;
        fa[i] = a;
        ph[i] = (float) (cyc - ((cyc + 0x1.8p52) - 0x1.8p52));
      }
  }

  /* Points outside the grid read zero; the sums below overwrite the others. */
  memset (s->gre, 0, n * sizeof (float));
  memset (s->gim, 0, n * sizeof (float));
  if (self->avx512)
    ef_ffbp_cpu_gather_avx512 ((const float *) nd->data, nd->stride, (guint) ta, &kR->wdf[0][0], &kA->wf[0][0], n,
                               &s->taps, s->gre, s->gim);
  else
    gather_inside_portable (self, nd, n, s);

  /* Most rows have no point near the grid's edges: look for one before going through them all. */
  for (guint i = memchr (s->taps.kind, EF_FFBP_TAPS_EDGE, n) != NULL ? 0 : n; i < n; i++)
    {
      int i0, j0, qR, qA;
      double dR, dA, re = 0, im = 0;

      if (s->taps.kind[i] != EF_FFBP_TAPS_EDGE)
        continue;
      /* Near the edges of the grid: the taps that fall outside read zero. */
      i0 = kernel_phase ((guint) tr, s->fr[i], &qR, &dR);
      j0 = kernel_phase ((guint) ta, s->fa[i], &qA, &dA);
      for (int j = 0; j < ta; j++)
        {
          int jj = j0 + j;
          double wa = kA->w[qA][j] + dA * (kA->w[qA + 1][j] - kA->w[qA][j]);

          if (jj < 0 || jj >= nal)
            continue;
          for (int k = 0; k < tr; k++)
            {
              int ii = i0 + k;
              double w = wa * (kR->w[qR][k] + dR * (kR->w[qR + 1][k] - kR->w[qR][k]));
              EfCf32 v;

              if (ii < 0 || ii >= (int) nd->nrho)
                continue;
              v = ((const EfCf32 *) nd->data)[(gsize) jj * nd->stride + ii];
              re += w * crealf (v);
              im += w * cimagf (v);
            }
        }
      s->gre[i] = (float) re;
      s->gim[i] = (float) im;
    }

  {
    const float *restrict ph = s->ph, *restrict gre = s->gre, *restrict gim = s->gim;
    float *restrict fre = s->fre, *restrict fim = s->fim;

    EF_SIMD
    for (guint i = 0; i < n; i++)
      {
        float sn, cs;

        ef_sincos_cycles_f (ph[i], &sn, &cs);
        fre[i] += gre[i] * cs - gim[i] * sn;
        fim[i] += gre[i] * sn + gim[i] * cs;
      }
  }
}

/* The largest points per chunk (a multiple of 16, at most LEAF_CHUNK) that keep the tile loop's
 * third-order range expansion within 1e-4 rad of phase at ranges from r on (its error is below
 * o^4 / (2 r^3) for offsets o from the chunk's centre), and the offsets within 8 m, where float32 keeps
 * the phase of a pulse to some 4e-4 rad (the leaf sums many, with independent rounding). */
static guint
leaf_chunk (const Node *nd, double kr)
{
  double r = MAX (MAX (nd->rho0, fabs (nd->h)), 1.0), o = pow (2e-4 / MAX (kr, 1e-9) * r * r * r, 0.25);
  guint c = (guint) (2.0 * MIN (o, 8.0) / nd->drho) / 16 * 16;

  return CLAMP (c, 16u, (guint) LEAF_CHUNK);
}

/* One row of a leaf's grid by the float32 backprojector's tile loop (monostatic pulses, AVX-512): the
 * row is cut into chunks short enough for the loop's expansion about each chunk's centre, and the
 * backprojected sum is demodulated afterwards. */
EF_CLONES void
ef_ffbp_leaf_row32_tiles (const EfFfbp *self, const Block *b, const Node *nd, guint j, Scratch *s)
{
  const EfProfiles *pr = b->pr;
  const EfGrid *g = &self->grid;
  const guint n = nd->nrho, np = nd->p1 - nd->p0, chunk = leaf_chunk (nd, b->kr_max);
  const double kcb = b->kr / (2.0 * G_PI);
  const double ux = g->u[0], uy = g->u[1], uz = g->u[2], vx = g->v[0], vy = g->v[1], vz = g->v[2];
  const float *prof = (const float *) (pr->data32 + (gsize) nd->p0 * pr->n_bins);
  float *restrict fre = s->fre, *restrict fim = s->fim;

  node_row_points (nd, j, s);
  for (guint c0 = 0; c0 < n; c0 += chunk)
    {
      const guint m = MIN (chunk, n - c0), npx = (m + 15) & ~15u, mid = c0 + m / 2;
      const double xc[3] = { s->px[mid], s->py[mid], s->pz[mid] };
      const double *restrict px = s->px + c0, *restrict py = s->py + c0, *restrict pz = s->pz + c0;
      float *restrict ta = s->ta, *restrict tb = s->tb, *restrict tq = s->tq;

      EF_SIMD
      for (guint i = 0; i < m; i++)
        {
          double ox = px[i] - xc[0], oy = py[i] - xc[1], oz = pz[i] - xc[2];
          float a = (float) (ox * ux + oy * uy + oz * uz), bb = (float) (ox * vx + oy * vy + oz * vz);

          ta[i] = a;
          tb[i] = bb;
          tq[i] = a * a + bb * bb;
        }
      /* Points past the row's end repeat its last one; their sums are dropped. */
      for (guint i = m; i < npx; i++)
        {
          ta[i] = ta[m - 1];
          tb[i] = tb[m - 1];
          tq[i] = tq[m - 1];
        }
      memset (s->tre, 0, npx * sizeof (float));
      memset (s->tim, 0, npx * sizeof (float));
      for (guint p = 0; p < np; p++)
        ef_bp_cpu_tile_coef (g, &pr->meta[nd->p0 + p], xc, FALSE, &s->coef[p]);
      ef_bp_cpu_tile_avx512 (s->coef, np, prof, pr->n_bins, ta, tb, tq, npx, s->tre, s->tim);
      memcpy (fre + c0, s->tre, m * sizeof (float));
      memcpy (fim + c0, s->tim, m * sizeof (float));
    }
  {
    EfCf32 *row = (EfCf32 *) nd->data + (gsize) j * nd->stride;
    float *restrict out = (float *) row;
    const double *restrict off = s->off;
    const guint8 *restrict ok = s->ok;

    /* The leaf's own demodulation, once a sample. */
    EF_SIMD
    for (gsize i = 0; i < n; i++)
      {
        double cyc = kcb * off[i];
        float sn, cs, keep = (float) ok[i];

        ef_sincos_cycles_f ((float) (cyc - ((cyc + 0x1.8p52) - 0x1.8p52)), &sn, &cs);
        out[2 * i] = keep * (fre[i] * cs - fim[i] * sn);
        out[2 * i + 1] = keep * (fre[i] * sn + fim[i] * cs);
      }
  }
}

/* One row of a leaf's grid: every pulse of the leaf backprojected with the reference's interpolation.
 * The loop over points has no branches so that it vectorises, gathers included. */
EF_INLINE void
leaf_row_impl (const Block *b, const Node *nd, guint j, Scratch *s, const gboolean f64)
{
  const EfProfiles *pr = b->pr;
  const guint n = nd->nrho;
  const int nb = (int) pr->n_bins;
  const double kcb = b->kr / (2.0 * G_PI), fnb = (double) nb;
  const double *restrict px = s->px, *restrict py = s->py, *restrict pz = s->pz, *restrict off = s->off;
  const guint8 *restrict ok = s->ok;
  double *restrict dr = s->dr, *restrict are = s->are, *restrict aim = s->aim;
  double *restrict w0 = s->fr, *restrict w1 = s->fa, *restrict vre = s->vre, *restrict vim = s->vim;
  int *restrict kb = s->kb;

  node_row_points (nd, j, s);
  memset (s->are, 0, n * sizeof (double));
  memset (s->aim, 0, n * sizeof (double));
  for (guint p = nd->p0; p < nd->p1; p++)
    {
      const EfProfileMeta *m = &pr->meta[p];
      const double t0 = m->tx[0], t1 = m->tx[1], t2 = m->tx[2];
      const double r0 = m->rcv[0], r1 = m->rcv[1], r2 = m->rcv[2];
      const double ref = m->r0, idr = 1.0 / m->dr, rs = m->r_start, kcp = m->kr / (2.0 * G_PI);
      const double *g64 = f64 ? (const double *) (pr->data64 + (gsize) p * nb) : NULL;
      const float *g32 = f64 ? NULL : (const float *) (pr->data32 + (gsize) p * nb);

      if (pr->monostatic)
        {
          EF_SIMD
          for (guint i = 0; i < n; i++)
            {
              double dx = t0 - px[i], dy = t1 - py[i], dz = t2 - pz[i];
              dr[i] = sqrt (dx * dx + dy * dy + dz * dz) - ref;
            }
        }
      else
        {
          EF_SIMD
          for (guint i = 0; i < n; i++)
            {
              double dx = t0 - px[i], dy = t1 - py[i], dz = t2 - pz[i];
              double ex = r0 - px[i], ey = r1 - py[i], ez = r2 - pz[i];
              dr[i] = 0.5 * (sqrt (dx * dx + dy * dy + dz * dz) + sqrt (ex * ex + ey * ey + ez * ez)) - ref;
            }
        }
      /* Bins and weights, then the profile lookups, then the phase: the first and last vectorise. */
      EF_SIMD
      for (guint i = 0; i < n; i++)
        {
          double f = (dr[i] - rs) * idr;
          /* Far outside the profile: clamp before the conversion to an integer. */
          double fc = f < -2.0 ? -2.0 : (f > fnb ? fnb : f);
          double fl = floor (fc);
          int k = (int) fl;
          int valid = (int) ok[i] & (k >= 0) & (k + 1 < nb);

          kb[i] = valid ? k : 0;
          w1[i] = valid ? fc - fl : 0.0;
          w0[i] = valid ? 1.0 - (fc - fl) : 0.0;
        }
      if (f64)
        for (guint i = 0; i < n; i++)
          {
            const double *g = g64 + 2 * kb[i];
            vre[i] = w0[i] * g[0] + w1[i] * g[2];
            vim[i] = w0[i] * g[1] + w1[i] * g[3];
          }
      else
        for (guint i = 0; i < n; i++)
          {
            const float *g = g32 + 2 * kb[i];
            vre[i] = w0[i] * g[0] + w1[i] * g[2];
            vim[i] = w0[i] * g[1] + w1[i] * g[3];
          }
      EF_SIMD
      for (guint i = 0; i < n; i++)
        {
          double sn, cs;

          sincos_cycles (kcp * dr[i] + kcb * off[i], &sn, &cs);
          are[i] += vre[i] * cs - vim[i] * sn;
          aim[i] += vre[i] * sn + vim[i] * cs;
        }
    }
  if (f64)
    {
      EfCf64 *row = (EfCf64 *) nd->data + (gsize) j * nd->stride;
      for (guint i = 0; i < n; i++)
        row[i] = s->are[i] + I * s->aim[i];
    }
  else
    {
      EfCf32 *row = (EfCf32 *) nd->data + (gsize) j * nd->stride;
      for (guint i = 0; i < n; i++)
        row[i] = (float) s->are[i] + I * (float) s->aim[i];
    }
}

EF_INLINE void
merge_row_impl (const EfFfbp *self, const Block *b, const Node *nd, const Node *children, guint j, Scratch *s,
                const gboolean f64)
{
  const guint n = nd->nrho;

  node_row_points (nd, j, s);
  if (f64)
    {
      EfCf64 *row = (EfCf64 *) nd->data + (gsize) j * nd->stride;

      memset (s->are, 0, n * sizeof (double));
      memset (s->aim, 0, n * sizeof (double));
      for (guint c = 0; c < nd->nc; c++)
        gather_impl (self, &children[nd->c0 + c], b->kr, n, s, TRUE);
      for (guint i = 0; i < n; i++)
        row[i] = s->ok[i] ? s->are[i] + I * s->aim[i] : 0;
    }
  else
    {
      float *restrict row = (float *) ((EfCf32 *) nd->data + (gsize) j * nd->stride);
      const float *restrict fre = s->fre, *restrict fim = s->fim;
      const guint8 *restrict ok = s->ok;

      memset (s->fre, 0, n * sizeof (float));
      memset (s->fim, 0, n * sizeof (float));
      for (guint c = 0; c < nd->nc; c++)
        gather32_impl (self, &children[nd->c0 + c], b->kr, n, s);
      EF_SIMD
      for (gsize i = 0; i < n; i++)
        {
          float keep = (float) ok[i];

          row[2 * i] = keep * fre[i];
          row[2 * i + 1] = keep * fim[i];
        }
    }
}

EF_INLINE void
final_row_impl (const EfFfbp *self, const Block *b, const Stage *st, guint r, Scratch *s, EfCf64 *acc64,
                EfCf32 *acc32, const gboolean f64)
{
  const EfGrid *g = &self->grid;
  const guint n = g->width;
  double x0[3];

  ef_grid_pixel_position (g, 0, r, x0);
  {
    /* Locals: stores through s could otherwise alias the grid and stop vectorisation. */
    const double sx = g->spacing * g->u[0], sy = g->spacing * g->u[1], sz = g->spacing * g->u[2];
    const double x = x0[0], y = x0[1], z = x0[2];
    double *restrict px = s->px, *restrict py = s->py, *restrict pz = s->pz, *restrict off = s->off;
    guint8 *restrict ok = s->ok;

    EF_SIMD
    for (guint i = 0; i < n; i++)
      {
        px[i] = x + i * sx;
        py[i] = y + i * sy;
        pz[i] = z + i * sz;
        off[i] = 0;
        ok[i] = 1;
      }
  }
  if (f64)
    {
      memset (s->are, 0, n * sizeof (double));
      memset (s->aim, 0, n * sizeof (double));
      for (guint k = 0; k < st->n; k++)
        gather_impl (self, &st->nodes[k], b->kr, n, s, TRUE);
      for (guint i = 0; i < n; i++)
        acc64[(gsize) r * n + i] += s->are[i] + I * s->aim[i];
    }
  else
    {
      float *restrict out = (float *) (acc32 + (gsize) r * n);
      const float *restrict fre = s->fre, *restrict fim = s->fim;

      /* The accumulator row is out of cache (each block passes over the whole image once): ask for it
       * now, so that it has arrived when the sums are added in. */
      for (gsize i = 0; i < 2 * (gsize) n; i += 16)
        __builtin_prefetch (out + i, 1, 0);
      memset (s->fre, 0, n * sizeof (float));
      memset (s->fim, 0, n * sizeof (float));
      for (guint k = 0; k < st->n; k++)
        gather32_impl (self, &st->nodes[k], b->kr, n, s);
      /* A gsize index: with an unsigned one GCC does not vectorise the strided stores. */
      EF_SIMD
      for (gsize i = 0; i < n; i++)
        {
          out[2 * i] += fre[i];
          out[2 * i + 1] += fim[i];
        }
    }
}

EF_CLONES void
ef_ffbp_leaf_row64 (const Block *b, const Node *nd, guint j, Scratch *s)
{
  leaf_row_impl (b, nd, j, s, TRUE);
}

EF_CLONES void
ef_ffbp_leaf_row32 (const Block *b, const Node *nd, guint j, Scratch *s)
{
  leaf_row_impl (b, nd, j, s, FALSE);
}

/* Whether a block's leaves go through the backprojector's AVX-512 tile loop. */
gboolean
ef_ffbp_leaves_by_tiles (const EfFfbp *self, const Block *b, gboolean f64)
{
  return !f64 && self->avx512 && b->pr->monostatic;
}

EF_CLONES void
ef_ffbp_merge_row64 (const EfFfbp *self, const Block *b, const Node *nd, const Node *children, guint j, Scratch *s)
{
  merge_row_impl (self, b, nd, children, j, s, TRUE);
}

EF_CLONES void
ef_ffbp_merge_row32 (const EfFfbp *self, const Block *b, const Node *nd, const Node *children, guint j, Scratch *s)
{
  merge_row_impl (self, b, nd, children, j, s, FALSE);
}

EF_CLONES void
ef_ffbp_final_row64 (const EfFfbp *self, const Block *b, const Stage *st, guint r, Scratch *s, EfCf64 *acc64,
             EfCf32 *acc32)
{
  final_row_impl (self, b, st, r, s, acc64, acc32, TRUE);
}

EF_CLONES void
ef_ffbp_final_row32 (const EfFfbp *self, const Block *b, const Stage *st, guint r, Scratch *s, EfCf64 *acc64,
             EfCf32 *acc32)
{
  final_row_impl (self, b, st, r, s, acc64, acc32, FALSE);
}
