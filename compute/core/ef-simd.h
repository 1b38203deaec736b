/* ef-simd.h: how the engine's hot loops ask for SIMD: function clones per instruction set, and vectorised
 * loops. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <math.h>

/* Built for AVX-512, AVX2 and plain x86-64 and chosen at load time; not under the sanitizers, whose
 * run-time does not follow ifuncs. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__)
#define EF_CLONES __attribute__((target_clones ("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#define EF_HAVE_CLONES 1
#else
#define EF_CLONES
#define EF_HAVE_CLONES 0
#endif

/* Loops over points ask for vectorisation outright: at -O2 GCC's cost model refuses any loop whose trip
 * count is not known at compile time. */
#if HAVE_OPENMP
#define EF_SIMD _Pragma ("omp simd")
#else
#define EF_SIMD
#endif

/* sin and cos of 2 pi c for c in [-0.5, 0.5]: octant reduction and short Taylor polynomials,
 * accurate to about 3e-7 absolute. The float32 backprojector and FFBP share it. */
static inline void
ef_sincos_cycles_f (float c, float *s_out, float *c_out)
{
  float qf = rintf (c * 4.0f);
  float r = c - qf * 0.25f;
  float x = r * 6.28318530717958647692f;
  float x2 = x * x;
  float s = x * (1.0f + x2 * (-1.0f / 6 + x2 * (1.0f / 120 + x2 * (-1.0f / 5040))));
  float co = 1.0f + x2 * (-0.5f + x2 * (1.0f / 24 + x2 * (-1.0f / 720 + x2 * (1.0f / 40320))));
  /* Quadrant fix-up as arithmetic blends: conditional selects on floats defeat the vectoriser. */
  int qi = (int) qf;
  float swap = (float) (qi & 1);
  float sn = s + swap * (co - s);
  float cs = co + swap * (s - co);

  *s_out = sn * (1.0f - 2.0f * (float) ((qi >> 1) & 1));
  *c_out = cs * (1.0f - 2.0f * (float) (((qi + 1) >> 1) & 1));
}
