/* ef-sim-bitmap.c: scenes for the simulator made from greyscale pictures, and the demo picture. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-sim-bitmap"
#include "config.h"

#include <math.h>
#include <string.h>

#include "ef-sim.h"

/* A counter-based generator: the phase of a pixel depends only on the seed and the pixel's index,
 * so cropping or thresholding a picture differently does not reshuffle the others. */
static guint64
mix64 (guint64 z)
{
  z += G_GUINT64_CONSTANT (0x9E3779B97F4A7C15);
  z = (z ^ (z >> 30)) * G_GUINT64_CONSTANT (0xBF58476D1CE4E5B9);
  z = (z ^ (z >> 27)) * G_GUINT64_CONSTANT (0x94D049BB133111EB);
  return z ^ (z >> 31);
}

EfSimTarget *
ef_sim_targets_from_bitmap (const float *pixels, guint width, guint height, double spacing, double cx, double cy,
                            float threshold, guint64 seed, guint *n_out)
{
  EfSimTarget *targets;
  guint64 key = mix64 (seed ^ G_GUINT64_CONSTANT (0x5851F42D4C957F2D));
  guint n = 0;

  g_return_val_if_fail (n_out != NULL, NULL);
  *n_out = 0;
  g_return_val_if_fail (pixels != NULL || width == 0 || height == 0, NULL);
  g_return_val_if_fail (isfinite (spacing) && spacing > 0, NULL);
  g_return_val_if_fail ((guint64) width * height <= G_MAXUINT, NULL);

  for (gsize i = 0; i < (gsize) width * height; i++)
    if (pixels[i] > threshold && pixels[i] > 0 && isfinite (pixels[i]))
      n++;
  if (n == 0)
    return NULL;

  targets = g_new (EfSimTarget, n);
  n = 0;
  for (guint r = 0; r < height; r++)
    for (guint c = 0; c < width; c++)
      {
        gsize i = (gsize) r * width + c;
        float v = pixels[i];
        double phase;
        EfSimTarget *t;

        if (!(v > threshold && v > 0 && isfinite (v)))
          continue;
        t = &targets[n++];
        /* Row 0 is north, the largest y; the picture's centre lands on (cx, cy). */
        t->pos[0] = cx + (c - 0.5 * (width - 1.0)) * spacing;
        t->pos[1] = cy + (0.5 * (height - 1.0) - r) * spacing;
        t->pos[2] = 0;
        phase = 2 * G_PI * ((mix64 (key ^ i) >> 11) * (1.0 / 9007199254740992.0));
        t->amp = v * (cos (phase) + I * sin (phase));
      }
  *n_out = n;
  return targets;
}

/* The demo picture: the letters "SAR" in a blocky 5x7 font, a house, a sailing boat and a row of
 * isolated point targets for measuring the impulse response. */
#define DEMO_W 96
#define DEMO_H 64

typedef struct {
  float *px;
  guint  w, h;
} Canvas;

static void
put (Canvas *cv, int x, int y, float v)
{
  if (x >= 0 && y >= 0 && (guint) x < cv->w && (guint) y < cv->h)
    cv->px[(gsize) y * cv->w + x] = MAX (cv->px[(gsize) y * cv->w + x], v);
}

static void
fill_rect (Canvas *cv, int x0, int y0, int w, int h, float v)
{
  for (int y = y0; y < y0 + h; y++)
    for (int x = x0; x < x0 + w; x++)
      put (cv, x, y, v);
}

/* A line of the given thickness, stamped along its longer axis. */
static void
line (Canvas *cv, int x0, int y0, int x1, int y1, int thick, float v)
{
  int n = MAX (ABS (x1 - x0), ABS (y1 - y0));

  for (int i = 0; i <= n; i++)
    {
      double f = n ? (double) i / n : 0.0;
      int x = (int) lround (x0 + f * (x1 - x0));
      int y = (int) lround (y0 + f * (y1 - y0));
      fill_rect (cv, x, y, thick, thick, v);
    }
}

/* 5x7 glyphs, one byte per row, bit 4 = leftmost column. */
static const struct {
  char ch;
  guint8 rows[7];
} glyphs[] = {
  { 'S', { 0x0F, 0x10, 0x10, 0x0E, 0x01, 0x01, 0x1E } },
  { 'A', { 0x0E, 0x11, 0x11, 0x1F, 0x11, 0x11, 0x11 } },
  { 'R', { 0x1E, 0x11, 0x11, 0x1E, 0x14, 0x12, 0x11 } },
  { 'E', { 0x1F, 0x10, 0x10, 0x1E, 0x10, 0x10, 0x1F } },
  { 'C', { 0x0E, 0x11, 0x10, 0x10, 0x10, 0x11, 0x0E } },
  { 'H', { 0x11, 0x11, 0x11, 0x1F, 0x11, 0x11, 0x11 } },
  { 'O', { 0x0E, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0E } },
};

static void
text (Canvas *cv, const char *s, int x, int y, int scale, int gap, float v)
{
  for (; *s != '\0'; s++, x += 5 * scale + gap)
    for (guint g = 0; g < G_N_ELEMENTS (glyphs); g++)
      {
        if (glyphs[g].ch != *s)
          continue;
        for (int r = 0; r < 7; r++)
          for (int c = 0; c < 5; c++)
            if (glyphs[g].rows[r] & (0x10 >> c))
              fill_rect (cv, x + c * scale, y + r * scale, scale, scale, v);
      }
}

float *
ef_sim_demo_bitmap (guint *width, guint *height)
{
  Canvas cv = { g_new0 (float, DEMO_W * DEMO_H), DEMO_W, DEMO_H };

  g_return_val_if_fail (width != NULL && height != NULL, NULL);

  /* "SAR", 15 x 21 pixels a letter, top left. */
  text (&cv, "SAR", 4, 4, 3, 3, 1.0f);

  /* A house, top right: walls, a pitched roof, a door and a window. */
  line (&cv, 64, 24, 64, 48, 2, 0.8f);
  line (&cv, 88, 24, 88, 48, 2, 0.8f);
  line (&cv, 64, 48, 89, 48, 2, 0.8f);
  line (&cv, 62, 24, 91, 24, 2, 0.8f);
  line (&cv, 62, 24, 76, 8, 2, 0.8f);
  line (&cv, 76, 8, 90, 24, 2, 0.8f);
  line (&cv, 73, 38, 73, 47, 2, 0.8f);
  line (&cv, 79, 38, 79, 47, 2, 0.8f);
  line (&cv, 73, 38, 80, 38, 2, 0.8f);
  line (&cv, 68, 29, 71, 29, 2, 0.8f);
  line (&cv, 68, 33, 71, 33, 2, 0.8f);
  line (&cv, 68, 29, 68, 34, 2, 0.8f);
  line (&cv, 72, 29, 72, 34, 2, 0.8f);

  /* A sailing boat, bottom left: hull, mast and a triangular sail. */
  line (&cv, 4, 50, 54, 50, 2, 0.8f);
  line (&cv, 4, 50, 12, 58, 2, 0.8f);
  line (&cv, 54, 50, 46, 58, 2, 0.8f);
  line (&cv, 12, 58, 46, 58, 2, 0.8f);
  line (&cv, 29, 30, 29, 50, 2, 0.8f);
  line (&cv, 31, 31, 46, 47, 2, 0.8f);
  line (&cv, 31, 47, 46, 47, 2, 0.8f);
  line (&cv, 26, 33, 14, 47, 2, 0.8f);
  line (&cv, 14, 47, 27, 47, 2, 0.8f);

  /* Isolated point targets, far enough apart to measure one at a time. */
  for (int i = 0; i < 5; i++)
    put (&cv, 62 + 7 * i, 58, 1.0f);

  *width = DEMO_W;
  *height = DEMO_H;
  return cv.px;
}
