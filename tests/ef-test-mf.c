/* ef-test-mf.c: random FX collections and the float64 direct sum of the matched filter, for its tests. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <math.h>
#include <string.h>

#include "ef-aperture.h"
#include "ef-test-mf.h"

void
ef_test_mf_scene_init (EfTestMfScene *s, guint n_pulses, guint n_samples, guint width, guint height, gboolean bistatic)
{
  /* Fresh inputs each run, reproducible from the test's printed seed. */
  GRand *rng = g_rand_new_with_seed (g_test_initialized () ? (guint32) g_test_rand_int () : g_random_int ());
  double f0 = g_rand_double_range (rng, 9.0e9, 10.0e9), df = g_rand_double_range (rng, 0.5e6, 2.0e6);

  memset (s, 0, sizeof *s);
  s->info.domain = EF_DOMAIN_FX;
  s->info.n_pulses = n_pulses;
  s->info.n_samples = n_samples;
  s->info.fc = f0 + 0.5 * n_samples * df;
  s->info.bandwidth = n_samples * df;
  s->pulses = g_new0 (EfPulse, n_pulses);
  s->samples = g_new (EfCf32, (gsize) n_pulses * n_samples);
  for (guint p = 0; p < n_pulses; p++)
    {
      EfPulse *pu = &s->pulses[p];
      double az = 0.05 * ((double) p / n_pulses - 0.5), el = 0.5;

      pu->tx[0] = 8000 * cos (el) * cos (az);
      pu->tx[1] = 8000 * cos (el) * sin (az);
      pu->tx[2] = 8000 * sin (el);
      memcpy (pu->rcv, pu->tx, sizeof pu->tx);
      if (bistatic)
        pu->rcv[1] += g_rand_double_range (rng, 200, 400);
      pu->r0 = 0.5 * (sqrt (pu->tx[0] * pu->tx[0] + pu->tx[1] * pu->tx[1] + pu->tx[2] * pu->tx[2])
                      + sqrt (pu->rcv[0] * pu->rcv[0] + pu->rcv[1] * pu->rcv[1] + pu->rcv[2] * pu->rcv[2]));
      /* A little jitter in the frequencies: each pulse's own f0 and df must be used. */
      pu->sc0 = f0 + g_rand_double_range (rng, -1e5, 1e5);
      pu->scss = df * (1 + g_rand_double_range (rng, -1e-4, 1e-4));
      pu->fx1 = pu->sc0;
      pu->fx2 = pu->sc0 + (n_samples - 1) * pu->scss;
      pu->t = p * 1e-3;
    }
  for (gsize i = 0; i < (gsize) n_pulses * n_samples; i++)
    s->samples[i] = (float) g_rand_double_range (rng, -1, 1) + (float) g_rand_double_range (rng, -1, 1) * I;
  g_assert_true (ef_grid_init_roi (&s->grid, -0.2 * width, -0.2 * height, 0.2 * width, 0.2 * height, 0.4, NULL));
  s->grid.width = width;
  s->grid.height = height;
  s->range = EF_RANGE_PARAMS_DEFAULT;
  s->range.window = EF_WINDOW_TAYLOR;
  s->range.az_window = EF_WINDOW_HANN;
  ef_aperture_init (&s->range.aperture, s->pulses, 0, n_pulses, 1);
  g_rand_free (rng);
}

void
ef_test_mf_scene_clear (EfTestMfScene *s)
{
  g_free (s->pulses);
  g_free (s->samples);
}

EfCf64 *
ef_test_mf_direct_sum (const EfTestMfScene *s, const EfRect *rect)
{
  guint k = (guint) s->info.n_samples;
  g_autofree double *w = g_new (double, k);
  EfCf64 *out = g_new0 (EfCf64, (gsize) rect->width * rect->height);
  EfAzWeight az;

  ef_window_fill (s->range.window, s->range.taylor_nbar, s->range.taylor_sll_db, w, k);
  ef_az_weight_init (&az, s->range.az_window, s->range.az_taylor_nbar, s->range.az_taylor_sll_db,
                     &s->range.aperture);
  for (guint r = 0; r < rect->height; r++)
    for (guint c = 0; c < rect->width; c++)
      {
        double x[3];
        EfCf64 sum = 0;

        ef_grid_pixel_position (&s->grid, rect->x + c, rect->y + r, x);
        for (guint p = 0; p < s->info.n_pulses; p++)
          {
            const EfPulse *pu = &s->pulses[p];
            double dt = sqrt ((pu->tx[0] - x[0]) * (pu->tx[0] - x[0]) + (pu->tx[1] - x[1]) * (pu->tx[1] - x[1])
                              + (pu->tx[2] - x[2]) * (pu->tx[2] - x[2]));
            double dr = sqrt ((pu->rcv[0] - x[0]) * (pu->rcv[0] - x[0]) + (pu->rcv[1] - x[1]) * (pu->rcv[1] - x[1])
                              + (pu->rcv[2] - x[2]) * (pu->rcv[2] - x[2]));
            double d_range = 0.5 * (dt + dr) - pu->r0;
            double wp = ef_az_weight_at (&az, pu);

            for (guint i = 0; i < k; i++)
              {
                double f = pu->sc0 + i * pu->scss;

                sum += (EfCf64) s->samples[(gsize) p * k + i] * (w[i] / k * wp)
                       * cexp (I * 4 * G_PI * f * d_range / EF_C);
              }
          }
        out[(gsize) r * rect->width + c] = sum;
      }
  return out;
}

