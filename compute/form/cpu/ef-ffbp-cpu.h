/* ef-ffbp-cpu.h: the float32 kernel sum of FFBP's merges and final step, one point at a time, in AVX-512. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Where and how one point reads a polar grid, as ef-ffbp-cpu.c lays it out before the sum. */
typedef struct {
  guint8 *kind;   /* EF_FFBP_TAPS_*: what to do with the point */
  gint32 *off;    /* complex sample of the first tap: row j0, column i0 (row-major, stride samples) */
  gint32 *qr;     /* range table row */
  gint32 *qa;     /* angle table row */
  float  *dr;     /* blend towards range row qr + 1 */
  float  *da;     /* blend towards angle row qa + 1 */
} EfFfbpTaps;

enum {
  EF_FFBP_TAPS_NONE = 0,    /* outside the grid: the value is zero */
  EF_FFBP_TAPS_INSIDE = 1,  /* every tap inside the grid: the fast sum applies */
  EF_FFBP_TAPS_EDGE = 2,    /* some taps outside: summed by the caller, reading zero there */
};

/* For the points i < n of kind EF_FFBP_TAPS_INSIDE: (vre[i], vim[i]) = sum over the angular taps j < ta
 * and the 8 range taps k of wa_j wr_k data[off + j stride + k], with wr the blend of rows qr and qr + 1
 * of wr_table (16 floats a row: each of the 8 range weights twice, for interleaved re and im) and wa of
 * rows qa, qa + 1 of wa_table (16 floats a row, zero past ta). data: interleaved complex float. Other
 * points are left alone. Both tables 64-byte aligned. */
void ef_ffbp_cpu_gather_avx512 (const float *data, gsize stride, guint ta, const float *wr_table,
                                const float *wa_table, guint n, const EfFfbpTaps *taps, float *vre, float *vim);

G_END_DECLS
