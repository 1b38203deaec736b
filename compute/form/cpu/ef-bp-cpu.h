/* ef-bp-cpu.h: the float32 backprojection inner loop over one tile, compiled for several SIMD levels. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Per pulse and tile: the geometry of the tile centre reduced, in double, to small float terms.
 * For a pixel at offset (a, b) metres from the tile centre along the grid axes, with q = a^2 + b^2:
 *   p = a * al + b * be                 (projection of the offset on the unit line of sight)
 *   d = -p + (q - p^2) * (c1 + p * c2)  (range minus the centre's range, to third order)
 *   bin = bint + bf + d * idr           (fractional range bin)
 *   cycles = c0 + d * kc                (phase, in cycles, of exp(+j kr dR))
 * For bistatic pulses d is the mean of a transmit and a receive term (al2, be2, c12, c22). */
typedef struct {
  float al, be, c1, c2;
  float al2, be2, c12, c22;
  float bf, idr, c0, kc;
  int   bint;
  int   pad[3];
} EfBpCoef;

/* Adds n_pulses pulses into acc_re/acc_im (n_px pixels). re/im: split profile planes, pulse p at
 * re + p * n_bins. Never reads outside [0, n_bins). */
void ef_bp_cpu_tile (const EfBpCoef *coef, guint n_pulses, const float *re, const float *im, guint n_bins,
                     const float *a, const float *b, const float *q, guint n_px, float *acc_re,
                     float *acc_im, gboolean bistatic);

const char *ef_bp_cpu_tile_isa (void);

G_END_DECLS

G_BEGIN_DECLS

/* TRUE when the hand-written AVX-512 loop can run on this CPU. */
gboolean ef_bp_cpu_have_avx512 (void);

/* The AVX-512 loop for monostatic pulses. prof: interleaved complex profiles (re, im), pulse p at
 * prof + 2 * p * n_bins. n_px must be a multiple of 16; a, b, q, acc_re, acc_im 64-byte aligned. */
void ef_bp_cpu_tile_avx512 (const EfBpCoef *coef, guint n_pulses, const float *prof, guint n_bins,
                            const float *a, const float *b, const float *q, guint n_px, float *acc_re,
                            float *acc_im);

G_END_DECLS
