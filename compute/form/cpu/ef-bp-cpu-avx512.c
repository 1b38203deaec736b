/* ef-bp-cpu-avx512.c: the float32 backprojection loop in AVX-512 intrinsics, for monostatic pulses. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-bp-cpu"
#include "config.h"

#include "ef-bp-cpu.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#define EF_AVX512 __attribute__((target ("avx512f,avx512dq,avx512vl,fma")))

gboolean
ef_bp_cpu_have_avx512 (void)
{
  __builtin_cpu_init ();
  return __builtin_cpu_supports ("avx512f") && __builtin_cpu_supports ("avx512dq")
         && __builtin_cpu_supports ("avx512vl");
}

/*
 * Each pixel needs two neighbouring profile samples, z[bin] and z[bin + 1]: 16 contiguous bytes. One
 * unaligned 128-bit load per pixel fetches both, and a 4x4 transpose inside each 128-bit lane turns 16
 * such loads into the four vectors re0, im0, re1, im1. Gather instructions are slower than this on
 * the processors measured. Lane e of the result comes from load vector e % 4, 128-bit lane e / 4, so
 * load vector m holds the pixels m, 4 + m, 8 + m, 12 + m.
 */
EF_AVX512 static inline void
load_pairs (const float *prof, const int *bin, __m512 *r0, __m512 *i0, __m512 *r1, __m512 *i1)
{
  __m512 z[4];

  for (int m = 0; m < 4; m++)
    {
      __m512 v = _mm512_castps128_ps512 (_mm_loadu_ps (prof + 2 * bin[m]));
      v = _mm512_insertf32x4 (v, _mm_loadu_ps (prof + 2 * bin[4 + m]), 1);
      v = _mm512_insertf32x4 (v, _mm_loadu_ps (prof + 2 * bin[8 + m]), 2);
      z[m] = _mm512_insertf32x4 (v, _mm_loadu_ps (prof + 2 * bin[12 + m]), 3);
    }
  {
    __m512 t0 = _mm512_unpacklo_ps (z[0], z[1]);  /* r0a r0b i0a i0b */
    __m512 t1 = _mm512_unpackhi_ps (z[0], z[1]);  /* r1a r1b i1a i1b */
    __m512 t2 = _mm512_unpacklo_ps (z[2], z[3]);
    __m512 t3 = _mm512_unpackhi_ps (z[2], z[3]);

    *r0 = _mm512_shuffle_ps (t0, t2, 0x44);
    *i0 = _mm512_shuffle_ps (t0, t2, 0xEE);
    *r1 = _mm512_shuffle_ps (t1, t3, 0x44);
    *i1 = _mm512_shuffle_ps (t1, t3, 0xEE);
  }
}

/* sin and cos of 2 pi c, c in [-0.5, 0.5]: the same octant reduction and polynomials as the portable
 * loop, so both paths agree to rounding. */
EF_AVX512 static inline void
sincos_cycles16 (__m512 c, __m512 *s_out, __m512 *c_out)
{
  const __m512 two_pi = _mm512_set1_ps (6.28318530717958647692f);
  __m512 qf = _mm512_roundscale_ps (_mm512_mul_ps (c, _mm512_set1_ps (4.0f)),
                                    _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m512 x = _mm512_mul_ps (_mm512_fnmadd_ps (qf, _mm512_set1_ps (0.25f), c), two_pi);
  __m512 x2 = _mm512_mul_ps (x, x);
  __m512 s, co;
  __m512i qi = _mm512_cvtps_epi32 (qf);
  __mmask16 swap = _mm512_test_epi32_mask (qi, _mm512_set1_epi32 (1));
  __mmask16 neg_s = _mm512_test_epi32_mask (qi, _mm512_set1_epi32 (2));
  __mmask16 neg_c = _mm512_test_epi32_mask (_mm512_add_epi32 (qi, _mm512_set1_epi32 (1)), _mm512_set1_epi32 (2));
  __m512 sn, cs;
  const __m512i sign = _mm512_set1_epi32 ((int) 0x80000000u);

  s = _mm512_fmadd_ps (x2, _mm512_set1_ps (-1.0f / 5040), _mm512_set1_ps (1.0f / 120));
  s = _mm512_fmadd_ps (x2, s, _mm512_set1_ps (-1.0f / 6));
  s = _mm512_fmadd_ps (x2, s, _mm512_set1_ps (1.0f));
  s = _mm512_mul_ps (x, s);
  co = _mm512_fmadd_ps (x2, _mm512_set1_ps (1.0f / 40320), _mm512_set1_ps (-1.0f / 720));
  co = _mm512_fmadd_ps (x2, co, _mm512_set1_ps (1.0f / 24));
  co = _mm512_fmadd_ps (x2, co, _mm512_set1_ps (-0.5f));
  co = _mm512_fmadd_ps (x2, co, _mm512_set1_ps (1.0f));
  sn = _mm512_mask_blend_ps (swap, s, co);
  cs = _mm512_mask_blend_ps (swap, co, s);
  *s_out = _mm512_castsi512_ps (_mm512_mask_xor_epi32 (_mm512_castps_si512 (sn), neg_s, _mm512_castps_si512 (sn), sign));
  *c_out = _mm512_castsi512_ps (_mm512_mask_xor_epi32 (_mm512_castps_si512 (cs), neg_c, _mm512_castps_si512 (cs), sign));
}

EF_AVX512 void
ef_bp_cpu_tile_avx512 (const EfBpCoef *coef, guint n_pulses, const float *prof, guint n_bins, const float *a,
                       const float *b, const float *q, guint n_px, float *acc_re, float *acc_im)
{
  int bins[16] __attribute__((aligned (64)));

  for (guint p = 0; p < n_pulses; p++)
    {
      const EfBpCoef *k = &coef[p];
      const float *pr = prof + 2 * (gsize) p * n_bins;
      const __m512 al = _mm512_set1_ps (k->al), be = _mm512_set1_ps (k->be);
      const __m512 c1 = _mm512_set1_ps (k->c1), c2 = _mm512_set1_ps (k->c2);
      const __m512 bf = _mm512_set1_ps (k->bf), idr = _mm512_set1_ps (k->idr);
      const __m512 c0 = _mm512_set1_ps (k->c0), kc = _mm512_set1_ps (k->kc);
      const __m512i bint = _mm512_set1_epi32 (k->bint);
      const __m512i lo = _mm512_setzero_si512 (), hi = _mm512_set1_epi32 ((int) n_bins - 2);

      for (guint i = 0; i < n_px; i += 16)
        {
          __m512 va = _mm512_load_ps (a + i), vb = _mm512_load_ps (b + i), vq = _mm512_load_ps (q + i);
          __m512 pp = _mm512_fmadd_ps (va, al, _mm512_mul_ps (vb, be));
          __m512 aa = _mm512_fnmadd_ps (pp, pp, vq);
          __m512 d = _mm512_fmsub_ps (aa, _mm512_fmadd_ps (pp, c2, c1), pp);
          __m512 f = _mm512_fmadd_ps (d, idr, bf);
          __m512 fl = _mm512_roundscale_ps (f, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
          __m512 w = _mm512_sub_ps (f, fl);
          __m512i bin = _mm512_add_epi32 (_mm512_cvtps_epi32 (fl), bint);
          __mmask16 ok = _mm512_cmpge_epi32_mask (bin, lo) & _mm512_cmple_epi32_mask (bin, hi);
          __m512 r0, i0, r1, i1, vr, vi, cyc, s, c, are, aim;

          _mm512_store_si512 ((__m512i *) bins, _mm512_min_epi32 (_mm512_max_epi32 (bin, lo), hi));
          load_pairs (pr, bins, &r0, &i0, &r1, &i1);
          vr = _mm512_maskz_mov_ps (ok, _mm512_fmadd_ps (w, _mm512_sub_ps (r1, r0), r0));
          vi = _mm512_maskz_mov_ps (ok, _mm512_fmadd_ps (w, _mm512_sub_ps (i1, i0), i0));
          cyc = _mm512_fmadd_ps (d, kc, c0);
          cyc = _mm512_sub_ps (cyc, _mm512_roundscale_ps (cyc, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
          sincos_cycles16 (cyc, &s, &c);
          are = _mm512_load_ps (acc_re + i);
          aim = _mm512_load_ps (acc_im + i);
          are = _mm512_fmadd_ps (vr, c, _mm512_fnmadd_ps (vi, s, are));
          aim = _mm512_fmadd_ps (vr, s, _mm512_fmadd_ps (vi, c, aim));
          _mm512_store_ps (acc_re + i, are);
          _mm512_store_ps (acc_im + i, aim);
        }
    }
}

#else

gboolean
ef_bp_cpu_have_avx512 (void)
{
  return FALSE;
}

void
ef_bp_cpu_tile_avx512 (const EfBpCoef *coef, guint n_pulses, const float *prof, guint n_bins, const float *a,
                       const float *b, const float *q, guint n_px, float *acc_re, float *acc_im)
{
  g_assert_not_reached ();
}

#endif
