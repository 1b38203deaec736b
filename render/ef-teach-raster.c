/* ef-teach-raster.c: a classroom image as pixels: magnitude in dB below its peak through a colour map. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-teach-raster"
#include "config.h"

#include <complex.h>
#include <math.h>

#include "ef-teach-raster.h"

/* Below this many pixels (a 256² region) one thread does it sooner than waking others. */
#define PARALLEL_MIN ((gsize) 65536)

double
ef_teach_raster (const EfCf32 *image, guint width, guint height, double ref_peak, double range_db, EfColormap map,
                 guint8 *argb, gsize stride)
{
  guint8 lut[EF_COLORMAP_LUT_SIZE * 4];
  guint32 word[EF_COLORMAP_LUT_SIZE];
  gsize n = (gsize) width * height;
  float peak2 = 0, floor2, scale;

  g_return_val_if_fail (image != NULL && argb != NULL && range_db > 0, 0);

  /* A classroom region of 2048² is 4 M pixels, each with a logarithm: rows are shared among threads
   * (the compute library's OpenMP), which changes no pixel, as each depends only on its own value and
   * the peak. */
#if HAVE_OPENMP
#pragma omp parallel for schedule(static) reduction(max : peak2) if (n >= PARALLEL_MIN)
#endif
  for (gsize i = 0; i < n; i++)
    {
      float m2 = crealf (image[i]) * crealf (image[i]) + cimagf (image[i]) * cimagf (image[i]);

      peak2 = MAX (peak2, m2);
    }
  ef_colormap_fill (map, lut);
  for (guint i = 0; i < EF_COLORMAP_LUT_SIZE; i++)
    word[i] = 0xff000000u | (guint32) lut[4 * i] << 16 | (guint32) lut[4 * i + 1] << 8 | lut[4 * i + 2];
  {
    double ref2 = ref_peak > 0 ? ref_peak * ref_peak : peak2;

    /* Power in dB: 10 log10 (m2 / ref2) in [-range_db, 0] maps onto the table. */
    floor2 = (float) (ref2 * pow (10.0, -range_db / 10.0));
    scale = (float) ((EF_COLORMAP_LUT_SIZE - 1) * 10.0 / range_db);
  }
#if HAVE_OPENMP
#pragma omp parallel for schedule(static) if (n >= PARALLEL_MIN)
#endif
  for (guint r = 0; r < height; r++)
    {
      guint32 *out = (guint32 *) (argb + r * stride);
      const EfCf32 *in = image + (gsize) r * width;

      for (guint c = 0; c < width; c++)
        {
          float m2 = crealf (in[c]) * crealf (in[c]) + cimagf (in[c]) * cimagf (in[c]);
          float t = m2 > floor2 && floor2 > 0 ? scale * log10f (m2 / floor2) : 0;

          out[c] = word[(guint) CLAMP (t, 0.0f, (float) (EF_COLORMAP_LUT_SIZE - 1))];
        }
    }
  return sqrt (peak2);
}
