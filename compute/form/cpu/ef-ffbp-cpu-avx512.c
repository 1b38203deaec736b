/* ef-ffbp-cpu-avx512.c: the float32 kernel sum of FFBP's merges and final step, in AVX-512 intrinsics. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-ffbp-cpu"
#include "config.h"

#include <string.h>

#include "ef-ffbp-cpu.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#define EF_AVX512 __attribute__((target ("avx512f,avx512dq,avx512vl,fma")))

/*
 * Eight complex range taps are sixteen floats: one vector. A point's sum is then one load and one FMA
 * per angular tap, weighted by that tap's broadcast weight, and one multiply by the range weights.
 * The sixteen lanes of that product are summed four points at a time, which takes half the shuffles
 * of one point at a time; either way in the order of the portable loop in ef-ffbp-cpu.c (halves, then
 * quarters, then the two complex pairs), so that all paths round alike.
 */
EF_AVX512 static inline __m512
point_sum (const float *data, gsize row, guint ta, const float *wr_table, const float *wa_table,
           const EfFfbpTaps *taps, guint i)
{
  const float *w0 = wr_table + 16 * (gsize) taps->qr[i];
  const float *a0 = wa_table + 16 * (gsize) taps->qa[i];
  const float *base = data + 2 * (gsize) taps->off[i];
  __m512 wr, wa, s0 = _mm512_setzero_ps (), s1 = _mm512_setzero_ps ();

  wr = _mm512_load_ps (w0);
  wr = _mm512_fmadd_ps (_mm512_set1_ps (taps->dr[i]), _mm512_sub_ps (_mm512_load_ps (w0 + 16), wr), wr);
  wa = _mm512_load_ps (a0);
  wa = _mm512_fmadd_ps (_mm512_set1_ps (taps->da[i]), _mm512_sub_ps (_mm512_load_ps (a0 + 16), wa), wa);
  /* Two partial sums halve the chain of dependent FMAs. */
  for (guint j = 0; j + 1 < ta; j += 2)
    {
      s0 = _mm512_fmadd_ps (_mm512_permutexvar_ps (_mm512_set1_epi32 ((int) j), wa), _mm512_loadu_ps (base + j * row),
                            s0);
      s1 = _mm512_fmadd_ps (_mm512_permutexvar_ps (_mm512_set1_epi32 ((int) j + 1), wa),
                            _mm512_loadu_ps (base + (j + 1) * row), s1);
    }
  return _mm512_mul_ps (_mm512_add_ps (s0, s1), wr);
}

EF_AVX512 static inline void
point_store (__m512 t, float *re, float *im)
{
  __m256 h = _mm256_add_ps (_mm512_castps512_ps256 (t), _mm512_extractf32x8_ps (t, 1));
  __m128 g = _mm_add_ps (_mm256_castps256_ps128 (h), _mm256_extractf128_ps (h, 1));

  g = _mm_add_ps (g, _mm_movehl_ps (g, g));
  *re = _mm_cvtss_f32 (g);
  *im = _mm_cvtss_f32 (_mm_shuffle_ps (g, g, 1));
}

EF_AVX512 static inline void
gather_points (const float *data, gsize stride, guint ta, const float *wr_table, const float *wa_table, guint n,
               const EfFfbpTaps *taps, float *vre, float *vim)
{
  const gsize row = 2 * stride;
  /* Lane k of a 128-bit quarter q holds point q's (re, im) twice after the sums: re to 0-3, im to 4-7. */
  const __m512i pick = _mm512_set_epi32 (0, 0, 0, 0, 0, 0, 0, 0, 13, 9, 5, 1, 12, 8, 4, 0);
  guint i = 0;

  for (; i + 4 <= n; i += 4)
    {
      __m512 a, b, c, d, ab, cd, u;
      guint32 kinds;

      memcpy (&kinds, taps->kind + i, sizeof kinds);
      if (kinds != 0x01010101u)
        {
          for (guint k = i; k < i + 4; k++)
            if (taps->kind[k] == EF_FFBP_TAPS_INSIDE)
              point_store (point_sum (data, row, ta, wr_table, wa_table, taps, k), &vre[k], &vim[k]);
          continue;
        }
      a = point_sum (data, row, ta, wr_table, wa_table, taps, i);
      b = point_sum (data, row, ta, wr_table, wa_table, taps, i + 1);
      c = point_sum (data, row, ta, wr_table, wa_table, taps, i + 2);
      d = point_sum (data, row, ta, wr_table, wa_table, taps, i + 3);
      /* Quarters (0 + 2, 1 + 3) of two points, then (0 + 2) + (1 + 3) of four: one point a quarter. */
      ab = _mm512_add_ps (_mm512_shuffle_f32x4 (a, b, 0x44), _mm512_shuffle_f32x4 (a, b, 0xEE));
      cd = _mm512_add_ps (_mm512_shuffle_f32x4 (c, d, 0x44), _mm512_shuffle_f32x4 (c, d, 0xEE));
      u = _mm512_add_ps (_mm512_shuffle_f32x4 (ab, cd, 0x88), _mm512_shuffle_f32x4 (ab, cd, 0xDD));
      /* (re0, im0, re1, im1) + (re1, im1, re0, im0) in each quarter. */
      u = _mm512_add_ps (u, _mm512_permute_ps (u, 0x4E));
      u = _mm512_permutexvar_ps (pick, u);
      _mm_storeu_ps (vre + i, _mm512_castps512_ps128 (u));
      _mm_storeu_ps (vim + i, _mm512_extractf32x4_ps (u, 1));
    }
  for (; i < n; i++)
    if (taps->kind[i] == EF_FFBP_TAPS_INSIDE)
      point_store (point_sum (data, row, ta, wr_table, wa_table, taps, i), &vre[i], &vim[i]);
}

EF_AVX512 void
ef_ffbp_cpu_gather_avx512 (const float *data, gsize stride, guint ta, const float *wr_table, const float *wa_table,
                           guint n, const EfFfbpTaps *taps, float *vre, float *vim)
{
  /* The usual 8 angular taps with a constant count, so that the loop unrolls. */
  if (ta == 8)
    gather_points (data, stride, 8, wr_table, wa_table, n, taps, vre, vim);
  else
    gather_points (data, stride, ta, wr_table, wa_table, n, taps, vre, vim);
}

#else

void
ef_ffbp_cpu_gather_avx512 (const float *data, gsize stride, guint ta, const float *wr_table, const float *wa_table,
                           guint n, const EfFfbpTaps *taps, float *vre, float *vim)
{
  g_assert_not_reached ();
}

#endif
