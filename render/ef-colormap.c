/* ef-colormap.c: the display colour maps and the value-to-colour rule shared with the shader. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-colormap"
#include "config.h"

#include <complex.h>
#include <math.h>

#include "ef-colormap.h"

static const char *const colormap_names[] = { "grey", "perceptual", "cyclic" };
static const char *const view_names[] = { "magnitude", "phase", "real", "imaginary" };

/* A polynomial fit to matplotlib's viridis: monotonic in lightness, good enough for display and cheap. */
static void
perceptual (double t, double rgb[3])
{
  static const double c[7][3] = {
    { 0.2777273272234177, 0.005407344544966578, 0.3340998053353061 },
    { 0.1050930431085774, 1.404613529898575, 1.384590162594685 },
    { -0.3308618287255563, 0.214847559468213, 0.09509516302823659 },
    { -4.634230498983486, -5.799100973351585, -19.33244095627987 },
    { 6.228269936347081, 14.17993336680509, 56.69055260068105 },
    { 4.776384997670288, -13.74514537774601, -65.35303263337234 },
    { -5.435455855934631, 4.645852612178535, 26.3124352495832 },
  };

  for (int i = 0; i < 3; i++)
    {
      double v = c[6][i];
      for (int k = 5; k >= 0; k--)
        v = c[k][i] + t * v;
      rgb[i] = v;
    }
}

/* A cosine palette with an integer frequency, so that t = 0 and t = 1 meet: phase wraps without a seam. */
static void
cyclic (double t, double rgb[3])
{
  static const double a[3] = { 0.56, 0.50, 0.58 };
  static const double b[3] = { 0.42, 0.42, 0.40 };
  static const double d[3] = { 0.00, 0.33, 0.67 };

  for (int i = 0; i < 3; i++)
    rgb[i] = a[i] + b[i] * cos (2.0 * G_PI * (t + d[i]));
}

static guint8
to_byte (double v)
{
  return (guint8) lround (CLAMP (v, 0.0, 1.0) * 255.0);
}

static void
map_rgb (EfColormap map, double t, double rgb[3])
{
  switch (map)
    {
    case EF_COLORMAP_PERCEPTUAL:
      perceptual (t, rgb);
      break;
    case EF_COLORMAP_CYCLIC:
      cyclic (t, rgb);
      break;
    case EF_COLORMAP_GREY:
    case EF_COLORMAP_N:
    default:
      rgb[0] = rgb[1] = rgb[2] = t;
      break;
    }
}

void
ef_colormap_fill (EfColormap map, guint8 *rgba)
{
  g_return_if_fail (rgba != NULL);

  for (guint i = 0; i < EF_COLORMAP_LUT_SIZE; i++)
    {
      double rgb[3];

      map_rgb (map, (double) i / (EF_COLORMAP_LUT_SIZE - 1), rgb);
      rgba[4 * i + 0] = to_byte (rgb[0]);
      rgba[4 * i + 1] = to_byte (rgb[1]);
      rgba[4 * i + 2] = to_byte (rgb[2]);
      rgba[4 * i + 3] = 255;
    }
}

void
ef_colormap_lookup (EfColormap map, double t, guint8 rgb[3])
{
  double c[3];
  /* The shader samples the table with linear filtering; quantise the same way so exports match. */
  double x = CLAMP (t, 0.0, 1.0) * (EF_COLORMAP_LUT_SIZE - 1);
  double i0 = floor (x), f = x - i0;
  double a[3], b[3];

  map_rgb (map, i0 / (EF_COLORMAP_LUT_SIZE - 1), a);
  map_rgb (map, MIN (i0 + 1, EF_COLORMAP_LUT_SIZE - 1) / (EF_COLORMAP_LUT_SIZE - 1), b);
  for (int i = 0; i < 3; i++)
    {
      c[i] = (1 - f) * (double) to_byte (a[i]) / 255.0 + f * (double) to_byte (b[i]) / 255.0;
      rgb[i] = to_byte (c[i]);
    }
}

const char *
ef_colormap_to_string (EfColormap map)
{
  return (guint) map < G_N_ELEMENTS (colormap_names) ? colormap_names[map] : "grey";
}

gboolean
ef_colormap_from_string (const char *s, EfColormap *out)
{
  g_return_val_if_fail (out != NULL, FALSE);
  for (guint i = 0; s != NULL && i < G_N_ELEMENTS (colormap_names); i++)
    if (g_ascii_strcasecmp (s, colormap_names[i]) == 0)
      {
        *out = (EfColormap) i;
        return TRUE;
      }
  return FALSE;
}

const char *
ef_view_mode_to_string (EfViewMode mode)
{
  return (guint) mode < G_N_ELEMENTS (view_names) ? view_names[mode] : "magnitude";
}

gboolean
ef_view_mode_from_string (const char *s, EfViewMode *out)
{
  g_return_val_if_fail (out != NULL, FALSE);
  for (guint i = 0; s != NULL && i < G_N_ELEMENTS (view_names); i++)
    if (g_ascii_strcasecmp (s, view_names[i]) == 0)
      {
        *out = (EfViewMode) i;
        return TRUE;
      }
  return FALSE;
}

void
ef_display_params_init (EfDisplayParams *params)
{
  g_return_if_fail (params != NULL);
  params->mode = EF_VIEW_MAGNITUDE;
  params->colormap = EF_COLORMAP_GREY;
  params->db_min = -50.0;
  params->db_max = 0.0;
  params->gamma = 1.0;
}

#if EF_TEST_HOOKS
double
ef_display_value (const EfDisplayParams *p, float re, float im, double gain_db)
{
  double t;

  switch (p->mode)
    {
    case EF_VIEW_PHASE:
      t = atan2 (im, re) / (2.0 * G_PI) + 0.5;
      break;
    case EF_VIEW_REAL:
    case EF_VIEW_IMAGINARY:
      {
        double a = (p->mode == EF_VIEW_REAL ? re : im) * pow (10.0, gain_db / 20.0);
        double lim = pow (10.0, p->db_max / 20.0);
        t = CLAMP (0.5 + 0.5 * a / lim, 0.0, 1.0);
      }
      break;
    case EF_VIEW_MAGNITUDE:
    case EF_VIEW_N:
    default:
      {
        double pw = (double) re * re + (double) im * im;
        double db = 10.0 * log10 (MAX (pw, 1e-30)) + gain_db;
        double span = MAX (p->db_max - p->db_min, 1e-6);
        t = CLAMP ((db - p->db_min) / span, 0.0, 1.0);
        t = pow (t, 1.0 / MAX (p->gamma, 1e-3));
      }
      break;
    }
  return t;
}
#endif /* EF_TEST_HOOKS */

void
ef_display_values_convert (EfViewMode mode, const EfCf32 *restrict in, float *restrict out, gsize n)
{
  g_return_if_fail (n == 0 || (in != NULL && out != NULL));

  switch (mode)
    {
    case EF_VIEW_PHASE:
      for (gsize i = 0; i < n; i++)
        out[i] = atan2f (cimagf (in[i]), crealf (in[i])) * (float) (0.5 / G_PI) + 0.5f;
      break;
    case EF_VIEW_REAL:
      for (gsize i = 0; i < n; i++)
        out[i] = crealf (in[i]);
      break;
    case EF_VIEW_IMAGINARY:
      for (gsize i = 0; i < n; i++)
        out[i] = cimagf (in[i]);
      break;
    case EF_VIEW_MAGNITUDE:
    case EF_VIEW_N:
    default:
      /* log2f rather than log10f: the same accuracy, and glibc's is the faster of the two. */
      for (gsize i = 0; i < n; i++)
        {
          float re = crealf (in[i]), im = cimagf (in[i]);
          float p = re * re + im * im;
          out[i] = (float) (10.0 * G_LN2 / G_LN10) * log2f (MAX (p, 1e-30f));
        }
      break;
    }
}

float
ef_display_values_zero (EfViewMode mode)
{
  const EfCf32 zero = 0;
  float v;

  ef_display_values_convert (mode, &zero, &v, 1);
  return v;
}

void
ef_display_values_map (const EfDisplayParams *params, double gain_db, double *scale, double *offset)
{
  g_return_if_fail (params != NULL && scale != NULL && offset != NULL);

  switch (params->mode)
    {
    case EF_VIEW_PHASE:
      *scale = 1.0;
      *offset = 0.0;
      break;
    case EF_VIEW_REAL:
    case EF_VIEW_IMAGINARY:
      *scale = 0.5 * pow (10.0, (gain_db - params->db_max) / 20.0);
      *offset = 0.5;
      break;
    case EF_VIEW_MAGNITUDE:
    case EF_VIEW_N:
    default:
      {
        double span = MAX (params->db_max - params->db_min, 1e-6);
        *scale = 1.0 / span;
        *offset = (gain_db - params->db_min) / span;
      }
      break;
    }
}

void
ef_display_table_fill (EfColormap map, double gamma, guint8 *rgba, guint n)
{
  double inv_gamma = 1.0 / MAX (gamma, 1e-3);

  g_return_if_fail (rgba != NULL && n >= 2);
  for (guint i = 0; i < n; i++)
    {
      double t = (double) i / (n - 1);

      ef_colormap_lookup (map, gamma == 1.0 ? t : pow (t, inv_gamma), &rgba[4 * i]);
      rgba[4 * i + 3] = 255;
    }
}
