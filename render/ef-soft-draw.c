/* ef-soft-draw.c: display values drawn on the processor, for renderers that composite in software. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-soft-draw"
#include "config.h"

#include <math.h>
#include <string.h>

#include "ef-simd.h"
#include "ef-soft-draw.h"

/* The same constants as image-value.frag. */
#define DB_TO_LOG2 0.33219280948873623f   /* log2 (10) / 10 */
#define LOG2_TO_DB 3.0102999566398120f    /* 10 / log2 (10) */
#define MAX_TABLE 4096

void
ef_soft_draw_footprint (const double m[6], double *fw_col, double *fw_row)
{
  double det = m[0] * m[4] - m[1] * m[3];

  if (!(fabs (det) > 1e-30))
    {
      *fw_col = *fw_row = INFINITY;
      return;
    }
  *fw_col = (fabs (m[4]) + fabs (m[1])) / fabs (det);
  *fw_row = (fabs (m[3]) + fabs (m[0])) / fabs (det);
}

/* 2^x to 3e-6 relative and log2 (x) to 2e-5: 1e-4 dB, far below what a display shows, and several times
 * faster than libm's, which matters when every pixel of a zoomed-out view averages four taps. */
static inline float
fast_exp2f (float x)
{
  float f, p, scale;
  guint32 bits;
  int xi;

  x = CLAMP (x, -126.0f, 127.0f);
  /* floor () without a call into libm (which plain x86-64 would make) and without a branch (so that the
   * loops vectorise): truncation is floor for the positive x + 128. */
  xi = (int) (x + 128.0f) - 128;
  f = x - (float) xi;
  /* Minimax on [0, 1). */
  p = 1.8775767e-3f;
  p = p * f + 8.9893397e-3f;
  p = p * f + 5.5826318e-2f;
  p = p * f + 2.4015361e-1f;
  p = p * f + 6.9315308e-1f;
  p = p * f + 9.9999994e-1f;
  bits = (guint32) (xi + 127) << 23;
  memcpy (&scale, &bits, sizeof scale);
  return p * scale;
}

static inline float
fast_log2f (float x)
{
  guint32 bits;
  float e, m, t, p;

  memcpy (&bits, &x, sizeof bits);
  e = (float) ((int) ((bits >> 23) & 0xff) - 127);
  bits = (bits & 0x7fffff) | 0x3f800000;
  memcpy (&m, &bits, sizeof m);
  /* log2 (m) for m in [1, 2) through t = (m - 1) / (m + 1): log2 (m) = 2 atanh (t) / ln 2. */
  t = (m - 1.0f) / (m + 1.0f);
  {
    float t2 = t * t;
    p = 0.4121985f;
    p = p * t2 + 0.5770780f;
    p = p * t2 + 0.9617967f;
    p = p * t2 + 2.8853901f;
  }
  return e + t * p;
}

static inline guint32
color_of (const guint32 *colors, float last, float v, float scale, float offset)
{
  float t = v * scale + offset;

  /* NaN goes to the first entry, as clamp does in the shader. */
  t = t > 0.0f ? (t < 1.0f ? t : 1.0f) : 0.0f;
  return colors[(guint) (t * last + 0.5f)];
}

static inline float
power_of_db (float v)
{
  return fast_exp2f (v * DB_TO_LOG2);
}

static inline float
db_of_power (float p)
{
  return LOG2_TO_DB * fast_log2f (MAX (p, 1e-30f));
}

static inline gboolean
arrived (const EfSoftImage *im, guint col, guint row)
{
  return im->cell_mask == NULL || im->cell_mask[(gsize) (row / im->cell) * im->cells_w + col / im->cell] != 0;
}

static inline int index_clamped (double c, guint n);

static inline float
value_at_clamped (const EfSoftImage *im, double c, double r)
{
  gsize row = (gsize) index_clamped (r, im->height), col = (gsize) index_clamped (c, im->width);

  return im->values[row * im->stride + col];
}

/* The nearest image index to coordinate c, -1 outside [-0.5, n - 0.5). */
static inline int
index_of (double c, guint n)
{
  return c >= -0.5 && c < n - 0.5 ? (int) (c + 0.5) : -1;
}

static inline int
index_clamped (double c, guint n)
{
  /* Past the edges the edge pixel, as GL_CLAMP_TO_EDGE. */
  if (!(c > 0))
    return 0;
  return c + 0.5 >= n ? (int) n - 1 : (int) (c + 0.5);
}

/* The mean power of the four taps t[0..3][x] of each output pixel of a row, back in dB: contiguous
 * arithmetic that vectorises (the taps were gathered first). */
EF_CLONES static void
average_taps (const float *restrict t0, const float *restrict t1, const float *restrict t2,
              const float *restrict t3, float *restrict out, guint n)
{
  EF_SIMD
  for (guint x = 0; x < n; x++)
    out[x] = db_of_power (0.25f * (power_of_db (t0[x]) + power_of_db (t1[x]) + power_of_db (t2[x])
                                   + power_of_db (t3[x])));
}

/* Images whose rows run along the output's rows (no rotation): every output column reads the same image
 * column on every row, so the indices are worked out once per column and once per row. */
static void
draw_axis_aligned (const EfSoftImage *im, const double m[6], double tap_c, double tap_r,
                   const guint32 *colors, float last, float scale, float offset, gboolean average_db, guint8 *out,
                   guint out_w, guint out_h, gsize out_stride)
{
  g_autofree int *col = g_new (int, 4 * (gsize) out_w);
  int *col_a = col + out_w, *col_b = col + 2 * (gsize) out_w, *col_cell = col + 3 * (gsize) out_w;
  g_autofree float *taps = average_db ? g_new (float, 5 * (gsize) out_w) : NULL;
  float *averaged = average_db ? taps + 4 * (gsize) out_w : NULL;

  for (guint x = 0; x < out_w; x++)
    {
      double c = (x + 0.5 - m[2]) / m[0];

      col[x] = index_of (c, im->width);
      col_cell[x] = col[x] >= 0 && im->cell_mask != NULL ? col[x] / (int) im->cell : 0;
      col_a[x] = index_clamped (c - tap_c, im->width);
      col_b[x] = index_clamped (c + tap_c, im->width);
    }
  for (guint y = 0; y < out_h; y++)
    {
      guint32 *row = (guint32 *) (out + y * out_stride);
      double r = (y + 0.5 - m[5]) / m[4];
      int ri = index_of (r, im->height);
      const guint8 *mask_row;
      const float *v, *va, *vb;

      if (ri < 0)
        {
          memset (row, 0, (gsize) out_w * 4);
          continue;
        }
      mask_row = im->cell_mask != NULL ? im->cell_mask + (gsize) (ri / im->cell) * im->cells_w : NULL;
      v = im->values + (gsize) ri * im->stride;
      va = im->values + (gsize) index_clamped (r - tap_r, im->height) * im->stride;
      vb = im->values + (gsize) index_clamped (r + tap_r, im->height) * im->stride;
      if (average_db)
        {
          for (guint x = 0; x < out_w; x++)
            {
              taps[x] = va[col_a[x]];
              taps[out_w + x] = va[col_b[x]];
              taps[2 * out_w + x] = vb[col_a[x]];
              taps[3 * out_w + x] = vb[col_b[x]];
            }
          average_taps (taps, taps + out_w, taps + 2 * out_w, taps + 3 * out_w, averaged, out_w);
        }
      for (guint x = 0; x < out_w; x++)
        {
          int ci = col[x];
          float value;

          if (ci < 0 || (mask_row != NULL && mask_row[col_cell[x]] == 0))
            {
              row[x] = 0;
              continue;
            }
          value = average_db ? averaged[x] : v[ci];
          row[x] = color_of (colors, last, value, scale, offset);
        }
    }
}

void
ef_soft_draw (const EfSoftImage *im, const double m[6], float scale, float offset, const guint8 *table,
              guint n_table, gboolean average_db, guint8 *out, guint out_w, guint out_h, gsize out_stride)
{
  guint32 colors[MAX_TABLE];
  double det, ia, ib, ic, id, fw_col, fw_row, tap_c, tap_r;
  float last;

  g_return_if_fail (im != NULL && im->values != NULL && table != NULL && out != NULL);
  g_return_if_fail (n_table >= 2 && n_table <= MAX_TABLE);
  g_return_if_fail (im->cell_mask == NULL || im->cell > 0);

  det = m[0] * m[4] - m[1] * m[3];
  if (!(fabs (det) > 1e-30))
    {
      for (guint y = 0; y < out_h; y++)
        memset (out + y * out_stride, 0, (gsize) out_w * 4);
      return;
    }
  ef_soft_draw_footprint (m, &fw_col, &fw_row);
  tap_c = 0.25 * fw_col;
  tap_r = 0.25 * fw_row;
  for (guint i = 0; i < n_table; i++)
    colors[i] = 0xff000000u | (guint32) table[4 * i] << 16 | (guint32) table[4 * i + 1] << 8
                | table[4 * i + 2];
  last = (float) (n_table - 1);

  /* Grids along the scene's axes come out of their basis vectors with rounding in the last bits: far
   * below a pixel over any image (1e-9 of a pixel per pixel). */
  if (fabs (m[1]) <= 1e-9 * fabs (m[0]) && fabs (m[3]) <= 1e-9 * fabs (m[4]))
    {
      draw_axis_aligned (im, m, tap_c, tap_r, colors, last, scale, offset, average_db, out, out_w, out_h,
                         out_stride);
      return;
    }

  /* The inverse map: (col, row) = [ia ib; ic id] * (x - m2, y - m5). */
  ia = m[4] / det;
  ib = -m[1] / det;
  ic = -m[3] / det;
  id = m[0] / det;
  for (guint y = 0; y < out_h; y++)
    {
      guint32 *row = (guint32 *) (out + y * out_stride);
      double yy = y + 0.5 - m[5], xx0 = 0.5 - m[2];
      /* Image coordinates of this row's first pixel centre, and their step per output pixel. */
      double c = ia * xx0 + ib * yy, r = ic * xx0 + id * yy;

      for (guint x = 0; x < out_w; x++, c += ia, r += ic)
        {
          int ci = index_of (c, im->width), ri = index_of (r, im->height);
          float value;

          /* Pixel i covers [i - 0.5, i + 0.5): the quads the shader draws end at the image's edges. */
          if (ci < 0 || ri < 0 || !arrived (im, (guint) ci, (guint) ri))
            {
              row[x] = 0;
              continue;
            }
          if (average_db)
            value = db_of_power (0.25f * (power_of_db (value_at_clamped (im, c - tap_c, r - tap_r))
                                          + power_of_db (value_at_clamped (im, c + tap_c, r - tap_r))
                                          + power_of_db (value_at_clamped (im, c - tap_c, r + tap_r))
                                          + power_of_db (value_at_clamped (im, c + tap_c, r + tap_r))));
          else
            value = im->values[(gsize) ri * im->stride + (gsize) ci];
          row[x] = color_of (colors, last, value, scale, offset);
        }
    }
}
