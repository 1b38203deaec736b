/* ef-cuda-test-scene.c: random profile sets and comparisons shared by the CUDA tests and benchmarks. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <math.h>
#include <string.h>

#include "ef-cuda-test-scene.h"

EfProfiles *
ef_cuda_test_profiles (guint n_pulses, guint n_bins, double dr, double standoff, double grazing_deg,
                       double aperture_deg, double fc, gboolean bistatic, guint32 seed, EfProfiles **out32)
{
  EfProfiles *p64 = ef_profiles_new (n_pulses, n_bins, TRUE, NULL);
  EfProfiles *p32 = out32 ? ef_profiles_new (n_pulses, n_bins, FALSE, NULL) : NULL;
  GRand *rand = g_rand_new_with_seed (seed);
  const double g = grazing_deg * G_PI / 180.0, span = aperture_deg * G_PI / 180.0;
  const double az0 = g_rand_double_range (rand, -G_PI, G_PI);

  g_assert_nonnull (p64);
  for (guint i = 0; i < n_pulses; i++)
    {
      EfProfileMeta *m = &p64->meta[i];
      double az = az0 - 0.5 * span + span * i / MAX (n_pulses - 1.0, 1.0);
      /* Not exactly aimed at the origin: the reference range is a little off, as with real data. */
      double jitter = g_rand_double_range (rand, -0.5, 0.5);

      m->tx[0] = standoff * cos (g) * cos (az);
      m->tx[1] = standoff * cos (g) * sin (az);
      m->tx[2] = standoff * sin (g) + jitter;
      if (bistatic)
        {
          double az2 = az - 3.0 * G_PI / 180.0, g2 = g + 2.0 * G_PI / 180.0, s2 = 0.9 * standoff;

          m->rcv[0] = s2 * cos (g2) * cos (az2);
          m->rcv[1] = s2 * cos (g2) * sin (az2);
          m->rcv[2] = s2 * sin (g2);
        }
      else
        memcpy (m->rcv, m->tx, sizeof m->tx);
      m->r0 = 0.5 * (sqrt (m->tx[0] * m->tx[0] + m->tx[1] * m->tx[1] + m->tx[2] * m->tx[2])
                     + sqrt (m->rcv[0] * m->rcv[0] + m->rcv[1] * m->rcv[1] + m->rcv[2] * m->rcv[2]))
              + g_rand_double_range (rand, -1.0, 1.0);
      m->dr = dr;
      m->r_start = -(double) (n_bins / 2) * dr;
      m->kr = 4.0 * G_PI * fc / EF_C;
    }
  for (gsize i = 0; i < (gsize) n_pulses * n_bins; i++)
    {
      /* Box-Muller */
      double u1 = g_rand_double_range (rand, 1e-12, 1.0), u2 = g_rand_double (rand);
      double r = sqrt (-2.0 * log (u1));

      p64->data64[i] = r * cos (2 * G_PI * u2) + r * sin (2 * G_PI * u2) * I;
    }
  p64->n_pulses = n_pulses;
  p64->monostatic = !bistatic;
  if (p32)
    {
      memcpy (p32->meta, p64->meta, n_pulses * sizeof (EfProfileMeta));
      for (gsize i = 0; i < (gsize) n_pulses * n_bins; i++)
        p32->data32[i] = (EfCf32) p64->data64[i];
      p32->n_pulses = n_pulses;
      p32->monostatic = p64->monostatic;
      *out32 = p32;
    }
  g_rand_free (rand);
  return p64;
}

double
ef_cuda_test_ser_db (const EfCf32 *test, const EfCf64 *ref, gsize n)
{
  double s = 0, e = 0;

  for (gsize i = 0; i < n; i++)
    {
      EfCf64 d = (EfCf64) test[i] - ref[i];

      s += creal (ref[i]) * creal (ref[i]) + cimag (ref[i]) * cimag (ref[i]);
      e += creal (d) * creal (d) + cimag (d) * cimag (d);
    }
  if (!isfinite (e))
    return -INFINITY;
  return e > 0 ? 10.0 * log10 (s / e) : INFINITY;
}

double
ef_cuda_test_psnr_db (const EfCf32 *test, const EfCf64 *ref, gsize n)
{
  double peak = 0, e = 0;

  for (gsize i = 0; i < n; i++)
    {
      double a = cabs (ref[i]), d = cabsf (test[i]) - a;

      peak = MAX (peak, a);
      e += d * d;
    }
  if (!isfinite (e))
    return -INFINITY;
  return e > 0 ? 10.0 * log10 (peak * peak / (e / n)) : INFINITY;
}

gsize
ef_cuda_test_count_nonfinite (const EfCf32 *x, gsize n)
{
  gsize bad = 0;

  for (gsize i = 0; i < n; i++)
    bad += !isfinite (crealf (x[i])) || !isfinite (cimagf (x[i]));
  return bad;
}

void
ef_cuda_test_poison (EfCf32 *x, gsize n)
{
  for (gsize i = 0; i < n; i++)
    x[i] = CMPLXF (NAN, NAN);
}

EfPulse *
ef_cuda_test_arc (EfDatasetInfo *info, guint n_pulses, guint n_samples, double fc, double bw, double standoff)
{
  const double graze = (standoff > 100e3 ? 45.0 : 30.0) * G_PI / 180.0;
  const double span = bw / (fc * cos (graze));
  EfPulse *pl = g_new0 (EfPulse, MAX (n_pulses, 1u));

  info->domain = EF_DOMAIN_FX;
  info->n_pulses = n_pulses;
  info->n_samples = n_samples;
  info->fc = fc;
  info->bandwidth = bw;
  info->n_channels = 1;
  for (guint p = 0; p < n_pulses; p++)
    {
      double az = -0.5 * span + span * p / MAX (n_pulses - 1.0, 1.0);
      EfPulse *pu = &pl[p];

      pu->tx[0] = standoff * cos (graze) * cos (az);
      pu->tx[1] = standoff * cos (graze) * sin (az);
      pu->tx[2] = standoff * sin (graze);
      memcpy (pu->rcv, pu->tx, sizeof pu->tx);
      pu->r0 = standoff;
      pu->sc0 = fc - 0.5 * bw;
      pu->scss = bw / n_samples;
      pu->fx1 = pu->sc0;
      pu->fx2 = pu->sc0 + (n_samples - 1) * pu->scss;
      pu->t = p * 1e-3;
    }
  return pl;
}
