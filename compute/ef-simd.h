/* ef-simd.h: how the engine's hot loops ask for SIMD: function clones per instruction set, and vectorised
 * loops. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* Built for AVX-512, AVX2 and plain x86-64 and chosen at load time; not under the sanitizers, whose
 * run-time does not follow ifuncs. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__)
#define EF_CLONES __attribute__((target_clones ("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define EF_CLONES
#endif

/* Loops over points ask for vectorisation outright: at -O2 GCC's cost model refuses any loop whose trip
 * count is not known at compile time. */
#if HAVE_OPENMP
#define EF_SIMD _Pragma ("omp simd")
#else
#define EF_SIMD
#endif
