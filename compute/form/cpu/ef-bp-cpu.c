/* ef-bp-cpu.c: the float32 backprojection inner loop, vectorised for AVX-512, AVX2 or plain SSE2. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-bp-cpu"
#include "config.h"

#include <math.h>

#include "ef-bp-cpu.h"
#include "ef-simd.h"

/* The loop is written once in scalar form with no branches so that the compiler vectorises it, and
 * built for each instruction set (EF_CLONES). */

static inline float
tile_delta (float a, float b, float q, float al, float be, float c1, float c2)
{
  float p = a * al + b * be;
  float aa = q - p * p;

  return -p + aa * (c1 + p * c2);
}

static inline void
tile_loop (const EfBpCoef *k, const float *restrict re, const float *restrict im, guint n_bins,
           const float *restrict a, const float *restrict b, const float *restrict q, guint n_px,
           float *restrict acc_re, float *restrict acc_im, gboolean bistatic)
{
  /* Copies in locals: the compiler cannot prove the stores below leave *k alone. */
  const float al = k->al, be = k->be, c1 = k->c1, c2 = k->c2;
  const float al2 = k->al2, be2 = k->be2, c12 = k->c12, c22 = k->c22;
  const float bf = k->bf, idr = k->idr, c0 = k->c0, kc = k->kc;
  const int bint = k->bint, last = (int) n_bins - 1;

  for (guint i = 0; i < n_px; i++)
    {
      float d = tile_delta (a[i], b[i], q[i], al, be, c1, c2);
      float f, fl, w, m, r0, r1, i0, i1, vr, vi, s, c, cyc;
      int bin;

      if (bistatic)
        d = 0.5f * (d + tile_delta (a[i], b[i], q[i], al2, be2, c12, c22));
      f = bf + d * idr;
      fl = floorf (f);
      w = f - fl;
      bin = bint + (int) fl;
      /* Outside the profile the pair contributes nothing; the index is clamped so the loads stay inside. */
      m = (bin >= 0 && bin < last) ? 1.0f : 0.0f;
      bin = bin < 0 ? 0 : bin;
      bin = bin > last - 1 ? last - 1 : bin;
      r0 = re[bin];
      r1 = re[bin + 1];
      i0 = im[bin];
      i1 = im[bin + 1];
      vr = m * (r0 + w * (r1 - r0));
      vi = m * (i0 + w * (i1 - i0));
      cyc = c0 + d * kc;
      cyc -= rintf (cyc);
      ef_sincos_cycles_f (cyc, &s, &c);
      acc_re[i] += vr * c - vi * s;
      acc_im[i] += vr * s + vi * c;
    }
}

EF_CLONES void
ef_bp_cpu_tile (const EfBpCoef *coef, guint n_pulses, const float *re, const float *im, guint n_bins,
                const float *a, const float *b, const float *q, guint n_px, float *acc_re, float *acc_im,
                gboolean bistatic)
{
  for (guint p = 0; p < n_pulses; p++)
    {
      const float *pr = re + (gsize) p * n_bins;
      const float *pi = im + (gsize) p * n_bins;

      if (bistatic)
        tile_loop (&coef[p], pr, pi, n_bins, a, b, q, n_px, acc_re, acc_im, TRUE);
      else
        tile_loop (&coef[p], pr, pi, n_bins, a, b, q, n_px, acc_re, acc_im, FALSE);
    }
}

const char *
ef_bp_cpu_tile_isa (void)
{
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__)
  __builtin_cpu_init ();
  if (__builtin_cpu_supports ("x86-64-v4"))
    return "AVX-512";
  if (__builtin_cpu_supports ("x86-64-v3"))
    return "AVX2";
  return "SSE2";
#else
  return "generic";
#endif
}
