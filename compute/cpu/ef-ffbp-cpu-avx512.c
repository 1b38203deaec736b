/* ef-ffbp-cpu-avx512.c: the float32 kernel sum of FFBP's merges and final step, in AVX-512 intrinsics. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-ffbp-cpu"
#include "config.h"

#include "ef-ffbp-cpu.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#define EF_AVX512 __attribute__((target ("avx512f,avx512dq,avx512vl,fma")))

/*
 * Eight complex range taps are sixteen floats: one vector. A point's sum is then one load and one FMA
 * per angular tap, weighted by that tap's broadcast weight, and one multiply by the range weights;
 * the lanes are summed as the portable loop in ef-ffbp.c sums them (halves, then quarters, then the
 * two complex pairs), so both paths round alike.
 */
EF_AVX512 static inline void
gather_one (const float *base, gsize row, const float *wav, guint ta, __m512 wr, float *re, float *im)
{
  __m512 s0 = _mm512_setzero_ps (), s1 = _mm512_setzero_ps (), t;
  __m256 h;
  __m128 g;

  /* Two partial sums halve the chain of dependent FMAs. */
  for (guint j = 0; j + 1 < ta; j += 2)
    {
      s0 = _mm512_fmadd_ps (_mm512_set1_ps (wav[j]), _mm512_loadu_ps (base + j * row), s0);
      s1 = _mm512_fmadd_ps (_mm512_set1_ps (wav[j + 1]), _mm512_loadu_ps (base + (j + 1) * row), s1);
    }
  t = _mm512_mul_ps (_mm512_add_ps (s0, s1), wr);
  h = _mm256_add_ps (_mm512_castps512_ps256 (t), _mm512_extractf32x8_ps (t, 1));
  g = _mm_add_ps (_mm256_castps256_ps128 (h), _mm256_extractf128_ps (h, 1));
  g = _mm_add_ps (g, _mm_movehl_ps (g, g));
  *re = _mm_cvtss_f32 (g);
  *im = _mm_cvtss_f32 (_mm_shuffle_ps (g, g, 1));
}

EF_AVX512 void
ef_ffbp_cpu_gather_avx512 (const float *data, gsize stride, guint ta, const float *wr_table, const float *wa_table,
                           guint n, const EfFfbpTaps *taps, float *vre, float *vim)
{
  const gsize row = 2 * stride;
  float wav[16] __attribute__((aligned (64)));

  for (guint i = 0; i < n; i++)
    {
      const float *w0, *a0;
      __m512 wr, wa;

      if (taps->kind[i] != EF_FFBP_TAPS_INSIDE)
        continue;
      w0 = wr_table + 16 * (gsize) taps->qr[i];
      a0 = wa_table + 16 * (gsize) taps->qa[i];
      wr = _mm512_load_ps (w0);
      wr = _mm512_fmadd_ps (_mm512_set1_ps (taps->dr[i]), _mm512_sub_ps (_mm512_load_ps (w0 + 16), wr), wr);
      wa = _mm512_load_ps (a0);
      wa = _mm512_fmadd_ps (_mm512_set1_ps (taps->da[i]), _mm512_sub_ps (_mm512_load_ps (a0 + 16), wa), wa);
      _mm512_store_ps (wav, wa);
      /* The usual 8 angular taps with a constant count, so that the loop unrolls. */
      if (ta == 8)
        gather_one (data + 2 * (gsize) taps->off[i], row, wav, 8, wr, &vre[i], &vim[i]);
      else
        gather_one (data + 2 * (gsize) taps->off[i], row, wav, ta, wr, &vre[i], &vim[i]);
    }
}

#else

void
ef_ffbp_cpu_gather_avx512 (const float *data, gsize stride, guint ta, const float *wr_table, const float *wa_table,
                           guint n, const EfFfbpTaps *taps, float *vre, float *vim)
{
  g_assert_not_reached ();
}

#endif
