/* ef-mf-cpu.c: the matched filter's inner loops, vectorised over pixels for AVX-512, AVX2 or plain SSE2. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-mf-cpu"
#include "config.h"

#include <math.h>

#include "ef-mf-cpu.h"
#include "ef-simd.h"

/*
 * The samples of a pulse are the sequential axis: each one multiplies a rotator that steps by
 * exp(j 2 pi cs) per sample. Pixels are the vector axis: EF_MF_LANES of them advance together, with the
 * sample broadcast. Every EF_MF_ANCHOR samples the rotator is set again from the exact phase, reduced to
 * [-0.5, 0.5] cycles in double, which keeps its length at one and its phase from drifting.
 */

static inline double
reduce (double c)
{
  return c - rint (c);
}

/* Inlined into each clone of the callers, so that each instruction set gets its own vector loop. */
static inline __attribute__((always_inline)) void
lanes_f32 (const float *restrict d_re, const float *restrict d_im, guint n_samples, const double *restrict c0,
           const double *restrict cs, guint n, float *restrict acc_re, float *restrict acc_im)
{
  float sr[EF_MF_LANES], si[EF_MF_LANES], rr[EF_MF_LANES], ri[EF_MF_LANES];
  float ar[EF_MF_LANES] = { 0 }, ai[EF_MF_LANES] = { 0 };
  double c[EF_MF_LANES], s[EF_MF_LANES];

  for (guint i = 0; i < EF_MF_LANES; i++)
    {
      /* Lanes past n repeat the last pixel and are not stored. */
      guint j = i < n ? i : n - 1;

      c[i] = c0[j];
      s[i] = cs[j];
    }
  EF_SIMD
  for (guint i = 0; i < EF_MF_LANES; i++)
    ef_sincos_cycles_f ((float) reduce (s[i]), &si[i], &sr[i]);
  for (guint k0 = 0; k0 < n_samples; k0 += EF_MF_ANCHOR)
    {
      guint k1 = MIN (n_samples, k0 + EF_MF_ANCHOR);

      EF_SIMD
      for (guint i = 0; i < EF_MF_LANES; i++)
        ef_sincos_cycles_f ((float) reduce (c[i] + (double) k0 * s[i]), &ri[i], &rr[i]);
      for (guint k = k0; k < k1; k++)
        {
          const float xr = d_re[k], xi = d_im[k];

          EF_SIMD
          for (guint i = 0; i < EF_MF_LANES; i++)
            {
              float tr = rr[i] * sr[i] - ri[i] * si[i];
              float ti = rr[i] * si[i] + ri[i] * sr[i];

              ar[i] += xr * rr[i] - xi * ri[i];
              ai[i] += xr * ri[i] + xi * rr[i];
              rr[i] = tr;
              ri[i] = ti;
            }
        }
    }
  for (guint i = 0; i < n; i++)
    {
      acc_re[i] += ar[i];
      acc_im[i] += ai[i];
    }
}

EF_CLONES void
ef_mf_cpu_pulse_f32 (const float *d_re, const float *d_im, guint n_samples, const double *c0, const double *cs,
                     guint n_px, float *acc_re, float *acc_im)
{
  for (guint i = 0; i < n_px; i += EF_MF_LANES)
    lanes_f32 (d_re, d_im, n_samples, c0 + i, cs + i, MIN (EF_MF_LANES, n_px - i), acc_re + i, acc_im + i);
}

static inline __attribute__((always_inline)) void
lanes_f64 (const double *restrict d_re, const double *restrict d_im, guint n_samples, const double *restrict c0,
           const double *restrict cs, guint n, double *restrict acc_re, double *restrict acc_im)
{
  double sr[EF_MF_LANES], si[EF_MF_LANES], rr[EF_MF_LANES], ri[EF_MF_LANES];
  double ar[EF_MF_LANES] = { 0 }, ai[EF_MF_LANES] = { 0 };
  double c[EF_MF_LANES], s[EF_MF_LANES];

  for (guint i = 0; i < EF_MF_LANES; i++)
    {
      guint j = i < n ? i : n - 1;

      c[i] = c0[j];
      s[i] = cs[j];
      sr[i] = cos (2.0 * G_PI * reduce (s[i]));
      si[i] = sin (2.0 * G_PI * reduce (s[i]));
    }
  for (guint k0 = 0; k0 < n_samples; k0 += EF_MF_ANCHOR)
    {
      guint k1 = MIN (n_samples, k0 + EF_MF_ANCHOR);

      for (guint i = 0; i < EF_MF_LANES; i++)
        {
          double ph = 2.0 * G_PI * reduce (c[i] + (double) k0 * s[i]);

          rr[i] = cos (ph);
          ri[i] = sin (ph);
        }
      for (guint k = k0; k < k1; k++)
        {
          const double xr = d_re[k], xi = d_im[k];

          EF_SIMD
          for (guint i = 0; i < EF_MF_LANES; i++)
            {
              double tr = rr[i] * sr[i] - ri[i] * si[i];
              double ti = rr[i] * si[i] + ri[i] * sr[i];

              ar[i] += xr * rr[i] - xi * ri[i];
              ai[i] += xr * ri[i] + xi * rr[i];
              rr[i] = tr;
              ri[i] = ti;
            }
        }
    }
  for (guint i = 0; i < n; i++)
    {
      acc_re[i] += ar[i];
      acc_im[i] += ai[i];
    }
}

EF_CLONES void
ef_mf_cpu_pulse_f64 (const double *d_re, const double *d_im, guint n_samples, const double *c0, const double *cs,
                     guint n_px, double *acc_re, double *acc_im)
{
  for (guint i = 0; i < n_px; i += EF_MF_LANES)
    lanes_f64 (d_re, d_im, n_samples, c0 + i, cs + i, MIN (EF_MF_LANES, n_px - i), acc_re + i, acc_im + i);
}
