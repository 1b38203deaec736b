/* ef-sim-repeat.c: repeat passes of one scene (PS, decorrelating clutter, atmosphere, noise) and their truth. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-sim-repeat"
#include "config.h"

#include <math.h>
#include <string.h>

#include "ef-sim-repeat.h"
#include "ef-grid.h"
#include "ef-error.h"

#define EF_REPEAT_MAX_EDGE 65536
#define EF_REPEAT_MAX_PASSES 1000
#define EF_REPEAT_MAX_APS_LENGTH 4096.0

/* Every random number is drawn from a stream named by (seed, stream, index), so that any pass or pixel
 * can be made alone and in any order: a pass's image does not depend on which passes came before. */
enum {
  STREAM_DATES = 11,
  STREAM_BPERP,
  STREAM_PLACE,
  STREAM_PS,
  STREAM_CLUTTER0,
  STREAM_CLUTTER,
  STREAM_NOISE,
  STREAM_APS,
};

static inline guint64
mix_next (guint64 *state)
{
  guint64 z = (*state += G_GUINT64_CONSTANT (0x9E3779B97F4A7C15));

  z = (z ^ (z >> 30)) * G_GUINT64_CONSTANT (0xBF58476D1CE4E5B9);
  z = (z ^ (z >> 27)) * G_GUINT64_CONSTANT (0x94D049BB133111EB);
  return z ^ (z >> 31);
}

static guint64
stream (guint64 seed, guint name, guint64 a, guint64 b)
{
  guint64 s = seed ^ (G_GUINT64_CONSTANT (0xD1B54A32D192ED03) * (guint64) name);

  s = mix_next (&s) ^ a;
  s = mix_next (&s) ^ b;
  return mix_next (&s);
}

/* Uniform in (0, 1]. */
static inline double
uniform (guint64 *state)
{
  return ((mix_next (state) >> 11) + 1) * (1.0 / 9007199254740992.0);
}

static inline void
gauss_pair (guint64 *state, double *a, double *b)
{
  double r = sqrt (-2.0 * log (uniform (state)));
  double t = 2 * G_PI * uniform (state);

  *a = r * cos (t);
  *b = r * sin (t);
}

/* A circular complex Gaussian of unit power. */
static inline EfCf64
cgauss (guint64 *state)
{
  double a, b;

  gauss_pair (state, &a, &b);
  return (a + I * b) * G_SQRT2 * 0.5;
}

void
ef_repeat_params_init (EfRepeatParams *p, guint width, guint height)
{
  g_return_if_fail (p != NULL);

  memset (p, 0, sizeof *p);
  p->width = width;
  p->height = height;
  p->spacing = 0.5;
  p->n_passes = 60;
  p->span_years = 2.0;
  p->bperp_std = 150.0;
  p->wavelength = 0.031;
  p->range = 700e3;
  p->incidence_deg = 35.0;
  p->n_ps = (guint) ((guint64) width * height / 10);
  p->ps_gap = 2;
  p->scr_db_min = 10.0;
  p->scr_db_max = 20.0;
  p->bowl_depth = 0.015;
  p->velocity_jitter = 0.002;
  p->seasonal_amp = 0.004;
  p->height_max = 10.0;
  p->clutter_coherence = 0.2;
  p->aps_rms = 1.0;
  p->aps_length = 200.0;
  p->noise_db = -10.0;
  p->seed = 1;
}

double
ef_repeat_height_factor (const EfRepeatParams *p)
{
  return 1.0 / (p->range * sin (p->incidence_deg * G_PI / 180.0));
}

double
ef_repeat_displacement (const EfRepeatPs *ps, double t_years)
{
  return ps->velocity * t_years + ps->seasonal_amp * sin (2 * G_PI * t_years);
}

double
ef_repeat_linear_velocity (const EfRepeatTruth *truth, const EfRepeatPs *ps)
{
  guint n = truth->params.n_passes;
  double tm = 0, dm = 0, st = 0, sd = 0;

  for (guint k = 0; k < n; k++)
    {
      tm += truth->t_years[k] / n;
      dm += ef_repeat_displacement (ps, truth->t_years[k]) / n;
    }
  for (guint k = 0; k < n; k++)
    {
      double dt = truth->t_years[k] - tm;

      st += dt * dt;
      sd += dt * (ef_repeat_displacement (ps, truth->t_years[k]) - dm);
    }
  return sd / st;
}

static gboolean
check_params (const EfRepeatParams *p, GError **error)
{
#define BAD(...) do { g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT, __VA_ARGS__); \
                      return FALSE; } while (0)
  if (p->width < 1 || p->height < 1 || p->width > EF_REPEAT_MAX_EDGE || p->height > EF_REPEAT_MAX_EDGE)
    BAD ("A repeat-pass scene is 1 to %d pixels on a side (asked for %u x %u)", EF_REPEAT_MAX_EDGE, p->width,
         p->height);
  if (p->n_passes < 2 || p->n_passes > EF_REPEAT_MAX_PASSES)
    BAD ("A stack has 2 to %d passes (asked for %u)", EF_REPEAT_MAX_PASSES, p->n_passes);
  if (!(p->span_years > 0) || !isfinite (p->span_years))
    BAD ("The passes must span a positive time (got %g years)", p->span_years);
  if (!(p->wavelength > 0) || !(p->range > 0) || !(p->incidence_deg > 0 && p->incidence_deg < 90)
      || !isfinite (p->wavelength) || !isfinite (p->range))
    BAD ("The wavelength and range must be positive and the incidence in (0, 90) degrees");
  if (!(p->bperp_std >= 0) || !isfinite (p->bperp_std) || !(p->spacing > 0) || !isfinite (p->spacing))
    BAD ("The baseline spread must be >= 0 and the spacing > 0");
  if (!(p->clutter_coherence >= 0 && p->clutter_coherence <= 1))
    BAD ("The clutter coherence must lie in [0, 1] (got %g)", p->clutter_coherence);
  if (!(p->aps_rms >= 0) || !(p->aps_length >= 0 && p->aps_length <= EF_REPEAT_MAX_APS_LENGTH))
    BAD ("The atmosphere's rms must be >= 0 and its length 0 .. %g pixels", EF_REPEAT_MAX_APS_LENGTH);
  if (!(p->scr_db_min <= p->scr_db_max) || !isfinite (p->scr_db_min) || !isfinite (p->scr_db_max)
      || !isfinite (p->noise_db) || p->noise_db > 60)
    BAD ("The PS SCR range must be finite and ordered, and the noise level finite");
  if (!isfinite (p->bowl_depth) || !isfinite (p->velocity_jitter) || !isfinite (p->seasonal_amp)
      || !isfinite (p->height_max) || p->ps_gap < 1)
    BAD ("The deformation and height parameters must be finite, and the PS gap at least 1");
  if ((guint64) p->n_ps * p->ps_gap * p->ps_gap > (guint64) p->width * p->height)
    BAD ("%u PS at a gap of %u pixels do not fit in %u x %u pixels", p->n_ps, p->ps_gap, p->width, p->height);
#undef BAD
  return TRUE;
}

static gboolean
place_ps (EfRepeatTruth *t, GError **error)
{
  const EfRepeatParams *p = &t->params;
  guint64 rs = stream (p->seed, STREAM_PLACE, 0, 0);
  guint64 tries = 0, max_tries = 200 * (guint64) p->n_ps + 1000;
  guint placed = 0, n = 0;
  int gap = (int) p->ps_gap;
  double sigma = p->width / 4.0;

  while (placed < p->n_ps)
    {
      guint col = (guint) (uniform (&rs) * p->width - 1e-9);
      guint row = (guint) (uniform (&rs) * p->height - 1e-9);
      gboolean free_spot = TRUE;

      if (++tries > max_tries)
        {
          g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                       "Only %u of %u PS could be placed %u pixels apart in %u x %u pixels", placed, p->n_ps,
                       p->ps_gap, p->width, p->height);
          return FALSE;
        }
      for (int dy = -(gap - 1); dy <= gap - 1 && free_spot; dy++)
        for (int dx = -(gap - 1); dx <= gap - 1; dx++)
          {
            int c = (int) col + dx, r = (int) row + dy;

            if (c >= 0 && r >= 0 && c < (int) p->width && r < (int) p->height
                && t->ps_index[(gsize) r * p->width + c] >= 0)
              {
                free_spot = FALSE;
                break;
              }
          }
      if (!free_spot)
        continue;
      t->ps_index[(gsize) row * p->width + col] = 0;
      placed++;
    }

  t->ps = g_new0 (EfRepeatPs, MAX (p->n_ps, 1));
  for (guint row = 0; row < p->height; row++)
    for (guint col = 0; col < p->width; col++)
      {
        gsize i = (gsize) row * p->width + col;
        EfRepeatPs *ps;
        guint64 s;
        double dx, dy, scr_u;

        if (t->ps_index[i] < 0)
          continue;
        ps = &t->ps[n];
        t->ps_index[i] = (gint) n++;
        s = stream (p->seed, STREAM_PS, i, 0);
        ps->col = col;
        ps->row = row;
        dx = col - 0.5 * (p->width - 1.0);
        dy = row - 0.5 * (p->height - 1.0);
        ps->velocity = -p->bowl_depth * exp (-(dx * dx + dy * dy) / (2 * sigma * sigma))
                       + p->velocity_jitter * (2 * uniform (&s) - 1);
        ps->height = p->height_max * (2 * uniform (&s) - 1);
        ps->seasonal_amp = p->seasonal_amp * (0.5 + 0.5 * (p->width > 1 ? col / (p->width - 1.0) : 1.0));
        scr_u = uniform (&s);
        ps->scr_db = p->scr_db_min + scr_u * (p->scr_db_max - p->scr_db_min);
        ps->amplitude = sqrt (pow (10.0, ps->scr_db / 10) * (1.0 + pow (10.0, p->noise_db / 10)));
        ps->phase0 = 2 * G_PI * uniform (&s);
      }
  t->n_ps = n;
  return TRUE;
}

EfRepeatTruth *
ef_repeat_truth_new (const EfRepeatParams *params, GError **error)
{
  g_autoptr (EfRepeatTruth) t = NULL;
  const EfRepeatParams *p = params;
  gsize n_px;
  double step;

  g_return_val_if_fail (params != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!check_params (params, error))
    return NULL;
  t = g_new0 (EfRepeatTruth, 1);
  t->params = *params;
  n_px = (gsize) p->width * p->height;
  t->ps_index = g_try_new (gint, n_px);
  if (t->ps_index == NULL)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_MEMORY, "No memory for a %u x %u scene", p->width,
                   p->height);
      return NULL;
    }
  memset (t->ps_index, 0xff, n_px * sizeof (gint));
  t->t_years = g_new (double, p->n_passes);
  t->bperp = g_new (double, p->n_passes);
  step = p->span_years / (p->n_passes - 1);
  for (guint k = 0; k < p->n_passes; k++)
    {
      guint64 s = stream (p->seed, STREAM_DATES, k, 0);
      double a, b;
      double jitter = (k == 0 || k + 1 == p->n_passes) ? 0 : 0.25 * step * (2 * uniform (&s) - 1);

      t->t_years[k] = k * step + jitter;
      s = stream (p->seed, STREAM_BPERP, k, 0);
      gauss_pair (&s, &a, &b);
      t->bperp[k] = p->bperp_std * a;
    }
  if (!place_ps (t, error))
    return NULL;
  return g_steal_pointer (&t);
}

void
ef_repeat_truth_free (EfRepeatTruth *truth)
{
  if (truth == NULL)
    return;
  g_free (truth->t_years);
  g_free (truth->bperp);
  g_free (truth->ps);
  g_free (truth->ps_index);
  g_free (truth);
}

/* A running box mean of half-width r along a line of n samples, stride apart, edges clamped: O(1) a
 * sample whatever r. Three of them make a close approximation of a Gaussian. */
static void
box_line (const float *in, float *out, guint n, gsize stride, int r)
{
  double sum = 0;
  int last = (int) n - 1;

  for (int j = -r; j <= r; j++)
    sum += in[(gsize) CLAMP (j, 0, last) * stride];
  for (int i = 0; i < (int) n; i++)
    {
      out[(gsize) i * stride] = (float) (sum / (2 * r + 1));
      sum += in[(gsize) CLAMP (i + r + 1, 0, last) * stride] - in[(gsize) CLAMP (i - r, 0, last) * stride];
    }
}

void
ef_repeat_aps (const EfRepeatTruth *truth, guint k, float *out)
{
  const EfRepeatParams *p;
  gsize n_px;
  g_autofree float *tmp = NULL;
  int half;
  double sum2 = 0, scale;

  g_return_if_fail (truth != NULL && out != NULL);
  p = &truth->params;
  g_return_if_fail (k < p->n_passes);
  n_px = (gsize) p->width * p->height;
  if (p->aps_rms == 0)
    {
      memset (out, 0, n_px * sizeof (float));
      return;
    }
  for (gsize i = 0; i < n_px; i += 2)
    {
      guint64 s = stream (p->seed, STREAM_APS, k, i);
      double a, b;

      gauss_pair (&s, &a, &b);
      out[i] = (float) a;
      if (i + 1 < n_px)
        out[i + 1] = (float) b;
    }
  /* A field of white noise smoothed by a Gaussian of sigma aps_length, correlated over that many pixels:
   * three box means of half-width r in each direction, each of variance r (r + 1) / 3, so r (r + 1) in all. */
  half = (int) floor (0.5 * (sqrt (1 + 4 * p->aps_length * p->aps_length) - 1) + 0.5);
  if (half > 0)
    {
      tmp = g_new (float, n_px);
      for (int pass = 0; pass < 3; pass++)
        {
          for (guint r = 0; r < p->height; r++)
            box_line (out + (gsize) r * p->width, tmp + (gsize) r * p->width, p->width, 1, half);
          for (guint c = 0; c < p->width; c++)
            box_line (tmp + c, out + c, p->height, p->width, half);
        }
    }
  for (gsize i = 0; i < n_px; i++)
    sum2 += (double) out[i] * out[i];
  scale = sum2 > 0 ? p->aps_rms / sqrt (sum2 / n_px) : 0;
  for (gsize i = 0; i < n_px; i++)
    out[i] = (float) (out[i] * scale);
}

/* Pixel i's reflectivity in pass k before noise and atmosphere: clutter, and its PS if it has one. */
static EfCf64
reflectivity (const EfRepeatTruth *t, guint k, gsize i)
{
  const EfRepeatParams *p = &t->params;
  guint64 s0 = stream (p->seed, STREAM_CLUTTER0, i, 0);
  guint64 sk = stream (p->seed, STREAM_CLUTTER, k, i);
  double g = p->clutter_coherence;
  /* Coherence g between any two passes: a common part of power g and a new part of power 1 - g. */
  EfCf64 v = sqrt (g) * cgauss (&s0) + sqrt (1 - g) * cgauss (&sk);
  gint j = t->ps_index[i];

  if (j >= 0)
    {
      const EfRepeatPs *ps = &t->ps[j];
      double tk = t->t_years[k];
      double ph = ps->phase0 + 4 * G_PI / p->wavelength
                  * (ef_repeat_displacement (ps, tk) + ps->height * t->bperp[k] * ef_repeat_height_factor (p));

      v += ps->amplitude * (cos (ph) + I * sin (ph));
    }
  return v;
}

void
ef_repeat_slc (const EfRepeatTruth *truth, guint k, EfCf32 *out)
{
  const EfRepeatParams *p;
  gsize n_px;
  g_autofree float *aps = NULL;
  double noise_amp;

  g_return_if_fail (truth != NULL && out != NULL);
  p = &truth->params;
  g_return_if_fail (k < p->n_passes);
  n_px = (gsize) p->width * p->height;
  aps = g_new (float, n_px);
  ef_repeat_aps (truth, k, aps);
  noise_amp = sqrt (pow (10.0, p->noise_db / 10));
#pragma omp parallel for schedule(static) if (n_px > 65536)
  for (gsize i = 0; i < n_px; i++)
    {
      guint64 sn = stream (p->seed, STREAM_NOISE, k, i);
      EfCf64 v = reflectivity (truth, k, i) * (cos (aps[i]) + I * sin (aps[i]));

      out[i] = (EfCf32) (v + noise_amp * cgauss (&sn));
    }
}

EfSimTarget *
ef_repeat_targets (const EfRepeatTruth *truth, guint k, const EfGrid *grid)
{
  const EfRepeatParams *p;
  gsize n_px;
  g_autofree float *aps = NULL;
  EfSimTarget *t;

  g_return_val_if_fail (truth != NULL && grid != NULL, NULL);
  p = &truth->params;
  g_return_val_if_fail (k < p->n_passes, NULL);
  g_return_val_if_fail (grid->width == p->width && grid->height == p->height, NULL);
  n_px = (gsize) p->width * p->height;
  aps = g_new (float, n_px);
  ef_repeat_aps (truth, k, aps);
  t = g_new (EfSimTarget, n_px);
  for (guint row = 0; row < p->height; row++)
    for (guint col = 0; col < p->width; col++)
      {
        gsize i = (gsize) row * p->width + col;

        ef_grid_pixel_position (grid, col, row, t[i].pos);
        t[i].amp = reflectivity (truth, k, i) * (cos (aps[i]) + I * sin (aps[i]));
      }
  return t;
}
