/* cphd-testdata.h: small phase-history collections built directly, for the CPHD tests and demo. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <math.h>

#include "ef-cphd.h"
#include "ef-dataset.h"

typedef struct {
  EfDomain domain;
  guint    n_pulses, n_samples;
  gboolean bistatic;
  gboolean point_targets;  /* FALSE: random samples */
  double   lat, lon, height;
  guint32  seed;
} CphdTestSpec;

static inline void
cphd_test_spec_init (CphdTestSpec *s)
{
  s->domain = EF_DOMAIN_FX;
  s->n_pulses = 64;
  s->n_samples = 128;
  s->bistatic = FALSE;
  s->point_targets = FALSE;
  s->lat = 34.05;
  s->lon = -118.25;
  s->height = 120.0;
  s->seed = 1;
}

/* A circular spotlight pass at 10 km slant range and 30 degrees grazing, 3 degrees of azimuth, X band,
 * about 100 m/s. Bistatic: the receiver sits 25 degrees further round and higher. */
static inline EfDataset *
cphd_test_dataset (const CphdTestSpec *s)
{
  const double fc = 9.6e9, bw = 600e6, slant = 10e3, graze = 30.0 * G_PI / 180, sweep = 3.0 * G_PI / 180;
  const double ground = slant * cos (graze), up = slant * sin (graze);
  const double duration = ground * sweep / 100.0;
  const double targets[3][3] = { { 0, 0, 0 }, { 5, -3, 0 }, { -4, 6, 0 } };
  GRand *rng = g_rand_new_with_seed (s->seed);
  EfDatasetInfo info = { 0 };
  EfPulse *pulses = g_new0 (EfPulse, s->n_pulses);
  EfCf32 *samples = g_new (EfCf32, (gsize) s->n_pulses * s->n_samples);
  EfDataset *ds;

  info.domain = s->domain;
  info.n_pulses = s->n_pulses;
  info.n_samples = s->n_samples;
  info.fc = fc;
  info.bandwidth = bw;
  info.has_geo = TRUE;
  info.srp_llh[0] = s->lat;
  info.srp_llh[1] = s->lon;
  info.srp_llh[2] = s->height;
  ef_geo_llh_to_ecf (info.srp_llh, info.srp_ecf);
  info.n_channels = 1;
  info.source = (char *) "Echoform test";

  for (guint p = 0; p < s->n_pulses; p++)
    {
      EfPulse *pu = &pulses[p];
      double az = -0.5 * sweep + sweep * p / MAX (1, s->n_pulses - 1) + 0.3;

      pu->tx[0] = ground * cos (az);
      pu->tx[1] = ground * sin (az);
      pu->tx[2] = up;
      if (s->bistatic)
        {
          double az2 = az + 25.0 * G_PI / 180;
          pu->rcv[0] = 1.2 * ground * cos (az2);
          pu->rcv[1] = 1.2 * ground * sin (az2);
          pu->rcv[2] = 1.5 * up;
        }
      else
        memcpy (pu->rcv, pu->tx, sizeof pu->tx);
      pu->r0 = 0.5 * (sqrt (pu->tx[0] * pu->tx[0] + pu->tx[1] * pu->tx[1] + pu->tx[2] * pu->tx[2])
                      + sqrt (pu->rcv[0] * pu->rcv[0] + pu->rcv[1] * pu->rcv[1] + pu->rcv[2] * pu->rcv[2]));
      pu->t = duration * p / MAX (1, s->n_pulses - 1);
      if (s->domain == EF_DOMAIN_FX)
        {
          pu->scss = bw / s->n_samples;
          pu->sc0 = fc - 0.5 * bw;
          pu->fx1 = pu->sc0;
          pu->fx2 = pu->sc0 + (s->n_samples - 1) * pu->scss;
        }
      else
        {
          /* 1.25 times oversampled in delay. */
          pu->scss = 1.0 / (1.25 * bw);
          pu->sc0 = -0.5 * s->n_samples * pu->scss;
          pu->fx1 = fc - 0.5 * bw;
          pu->fx2 = fc + 0.5 * bw;
        }
      for (guint k = 0; k < s->n_samples; k++)
        {
          EfCf64 acc = 0;

          if (!s->point_targets)
            acc = g_rand_double_range (rng, -1, 1) + I * g_rand_double_range (rng, -1, 1);
          else
            for (int t = 0; t < 3; t++)
              {
                double dtx[3], drx[3], dr;
                for (int i = 0; i < 3; i++)
                  {
                    dtx[i] = pu->tx[i] - targets[t][i];
                    drx[i] = pu->rcv[i] - targets[t][i];
                  }
                dr = 0.5 * (sqrt (dtx[0] * dtx[0] + dtx[1] * dtx[1] + dtx[2] * dtx[2])
                            + sqrt (drx[0] * drx[0] + drx[1] * drx[1] + drx[2] * drx[2])) - pu->r0;
                if (s->domain == EF_DOMAIN_FX)
                  acc += cexp (-I * 4 * G_PI * (pu->sc0 + k * pu->scss) * dr / EF_C);
                else
                  {
                    double tau = pu->sc0 + k * pu->scss - 2 * dr / EF_C;
                    double x = bw * tau;
                    acc += (fabs (x) < 1e-12 ? 1.0 : sin (G_PI * x) / (G_PI * x)) * cexp (-I * 2 * G_PI * fc * 2 * dr / EF_C);
                  }
              }
          samples[(gsize) p * s->n_samples + k] = (EfCf32) acc;
        }
    }
  g_rand_free (rng);
  ds = ef_dataset_new_memory (&info, pulses, samples);
  return ds;
}
