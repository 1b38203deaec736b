/* test-sim.c: the phase-history simulator against independent evaluations of its physics. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "test-sim"
#include "config.h"

#include <math.h>
#include <string.h>

#include "ef-sim.h"
#include "ef-error.h"

#define DEG (G_PI / 180.0)

static void
random_targets (GRand *rng, EfSimTarget *t, guint n, double extent)
{
  for (guint i = 0; i < n; i++)
    {
      double ph = g_rand_double_range (rng, -G_PI, G_PI);
      double mag = g_rand_double_range (rng, 0.2, 2.0);

      t[i].pos[0] = g_rand_double_range (rng, -extent, extent);
      t[i].pos[1] = g_rand_double_range (rng, -extent, extent);
      t[i].pos[2] = g_rand_double_range (rng, -0.1 * extent, 0.1 * extent);
      t[i].amp = mag * (cos (ph) + I * sin (ph));
    }
}

/* The DESIGN.md formula evaluated sample by sample with a direct complex exponential and no
 * recurrence, in extended precision so that the reference's own rounding is far below the
 * tolerance. r0 is the range the dataset records. */
static long double _Complex
naive_fx (const double a[3], double r0, double f, const EfSimTarget *t, guint n)
{
  long double _Complex s = 0;

  for (guint i = 0; i < n; i++)
    {
      long double d0 = (long double) a[0] - t[i].pos[0];
      long double d1 = (long double) a[1] - t[i].pos[1];
      long double d2 = (long double) a[2] - t[i].pos[2];
      long double dR = sqrtl (d0 * d0 + d1 * d1 + d2 * d2) - (long double) r0;
      long double ph = -4.0L * 3.141592653589793238462643383279503L * (long double) f * dR / (long double) EF_C;

      s += ((long double _Complex) t[i].amp) * (cosl (ph) + I * sinl (ph));
    }
  return s;
}

static void
check_fx_against_naive (EfSimParams *p, const char *what)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (EfDataset) ds = NULL;
  g_autofree EfCf64 *row = NULL;
  const EfCf32 *samples;
  double max_err64 = 0, max_err32 = 0, max_ref = 0;
  guint ns = p->n_samples;

  ds = ef_sim_run (p, &error);
  g_assert_no_error (error);
  g_assert_nonnull (ds);
  samples = ef_dataset_memory_samples (ds);
  g_assert_nonnull (samples);
  row = g_new (EfCf64, ns);

  for (guint i = 0; i < p->n_pulses; i++)
    {
      const EfPulse *pu = &ds->pulses[i];

      ef_sim_fx_pulse64 (pu->tx, pu->r0, pu->sc0, pu->scss, ns, 0.0, p->targets, p->n_targets, row);
      for (guint k = 0; k < ns; k++)
        {
          /* f_k as the dataset states it: sc0 + k * scss. */
          long double _Complex ref = naive_fx (pu->tx, pu->r0, pu->sc0 + k * pu->scss, p->targets, p->n_targets);
          max_err64 = MAX (max_err64, cabsl (row[k] - ref));
          max_err32 = MAX (max_err32, cabsl (samples[(gsize) i * ns + k] - ref));
          max_ref = MAX (max_ref, cabsl (ref));
        }
    }
  g_test_message ("%s: max |error| / max |reference|: double %.3g, stored float %.3g", what,
                  max_err64 / max_ref, max_err32 / max_ref);
  /* The recurrence's drift in double: about 1e-11 at 700 km, 1e-12 at 10 km. */
  g_assert_cmpfloat (max_err64 / max_ref, <, 1e-10);
  /* The stored samples are complex float: at most the rounding of the largest, sqrt(2) 2^-24 of it. */
  g_assert_cmpfloat (max_err32 / max_ref, <, 1e-7);
}

static void
test_fx_naive (void)
{
  GRand *rng = g_rand_new_with_seed (g_test_rand_int ());
  EfSimTarget targets[7];
  EfSimParams p;

  random_targets (rng, targets, G_N_ELEMENTS (targets), 60.0);

  ef_sim_params_init_airborne (&p);
  p.n_pulses = 12;
  p.n_samples = 200;  /* not a multiple of the re-seeding interval */
  p.targets = targets;
  p.n_targets = G_N_ELEMENTS (targets);
  check_fx_against_naive (&p, "airborne");

  /* 700 km: the absolute range is 70 times longer, which is where a careless range difference
   * would show. */
  ef_sim_params_init_spaceborne (&p);
  p.n_pulses = 9;
  p.n_samples = 257;
  p.azimuth_deg = g_rand_double_range (rng, -180, 180);
  p.targets = targets;
  p.n_targets = G_N_ELEMENTS (targets);
  check_fx_against_naive (&p, "spaceborne");

  /* More targets than one internal block, and a zero amplitude among them. */
  {
    EfSimTarget many[300];
    random_targets (rng, many, G_N_ELEMENTS (many), 40.0);
    many[17].amp = 0;
    ef_sim_params_init_airborne (&p);
    p.n_pulses = 3;
    p.n_samples = 130;
    p.targets = many;
    p.n_targets = G_N_ELEMENTS (many);
    check_fx_against_naive (&p, "300 targets");
  }
  g_rand_free (rng);
}

/* The exact matched filter at a target's own position sums every sample coherently: a single target
 * gives amp * n_pulses * n_samples there, and the peak is where the target is. */
static void
test_fx_focus (void)
{
  EfSimTarget t = { { 7.25, -3.5, 0.0 }, 0.6 - 0.8 * I };
  g_autoptr (GError) error = NULL;
  g_autoptr (EfDataset) ds = NULL;
  const EfCf32 *d;
  EfSimParams p;
  EfCf64 at, off;
  double probe[3] = { 7.25 + 1.0, -3.5, 0.0 };

  ef_sim_params_init_airborne (&p);
  p.n_pulses = 64;
  p.n_samples = 64;
  p.targets = &t;
  p.n_targets = 1;
  ds = ef_sim_run (&p, &error);
  g_assert_no_error (error);
  d = ef_dataset_memory_samples (ds);

  at = off = 0;
  for (guint i = 0; i < p.n_pulses; i++)
    {
      const EfPulse *pu = &ds->pulses[i];
      double r_at = sqrt (pow (pu->tx[0] - t.pos[0], 2) + pow (pu->tx[1] - t.pos[1], 2) + pow (pu->tx[2], 2)) - pu->r0;
      double r_off = sqrt (pow (pu->tx[0] - probe[0], 2) + pow (pu->tx[1] - probe[1], 2) + pow (pu->tx[2], 2)) - pu->r0;

      for (guint k = 0; k < p.n_samples; k++)
        {
          double f = pu->sc0 + k * pu->scss;
          at += d[i * p.n_samples + k] * cexp (I * 4 * G_PI * f * r_at / EF_C);
          off += d[i * p.n_samples + k] * cexp (I * 4 * G_PI * f * r_off / EF_C);
        }
    }
  at /= (double) p.n_pulses * p.n_samples;
  off /= (double) p.n_pulses * p.n_samples;
  g_test_message ("focused value %.9f%+.9fi, 1 m away |%.4f|", creal (at), cimag (at), cabs (off));
  g_assert_cmpfloat (cabs (at - t.amp), <, 1e-5);
  g_assert_cmpfloat (cabs (off), <, 0.5 * cabs (at));
}

static void
test_geometry_circular (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (EfDataset) ds = NULL;
  EfSimParams p;
  double total = 0, prev = 0;

  ef_sim_params_init_airborne (&p);
  p.n_pulses = 101;
  p.n_samples = 16;
  p.azimuth_deg = 170.0;  /* the sweep crosses +-180 degrees */
  p.grazing_deg = 37.5;
  ds = ef_sim_run (&p, &error);
  g_assert_no_error (error);

  g_assert_cmpint (ds->info.domain, ==, EF_DOMAIN_FX);
  g_assert_cmpuint (ds->info.n_pulses, ==, 101);
  g_assert_cmpuint (ds->info.n_samples, ==, 16);
  g_assert_cmpfloat (ds->info.fc, ==, p.fc);
  g_assert_cmpfloat (ds->info.bandwidth, ==, p.bandwidth);
  g_assert_true (ds->info.has_geo);
  g_assert_cmpstr (ds->info.source, ==, "Echoform simulator");
  /* 35 N, 106.5 W, 1600 m: the ECF radius is about 6371 km and the latitude comes back. */
  {
    const double *e = ds->info.srp_ecf;
    double rad = sqrt (e[0] * e[0] + e[1] * e[1] + e[2] * e[2]);
    g_assert_cmpfloat (fabs (rad - 6372.4e3), <, 5e3);
    g_assert_cmpfloat (fabs (atan2 (e[1], e[0]) / DEG - p.lon_deg), <, 1e-9);
  }

  for (guint i = 0; i < p.n_pulses; i++)
    {
      const EfPulse *pu = &ds->pulses[i];
      const double *a = pu->tx;
      double norm = sqrt (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
      double az = atan2 (a[1], a[0]);

      g_assert_cmpmem (pu->tx, sizeof pu->tx, pu->rcv, sizeof pu->rcv);
      g_assert_cmpfloat (fabs (pu->r0 - norm), <=, 1e-9);
      g_assert_cmpfloat (fabs (pu->r0 - p.standoff), <, 1e-9 * p.standoff);
      g_assert_cmpfloat (fabs (asin (a[2] / norm) - p.grazing_deg * DEG), <, 1e-9);
      g_assert_cmpfloat (pu->sc0, ==, p.fc - 0.5 * p.bandwidth);
      g_assert_cmpfloat (fabs (pu->scss - p.bandwidth / p.n_samples), <, 1e-6);
      g_assert_cmpfloat (fabs (pu->fx2 - (pu->fx1 + 15 * pu->scss)), <, 1e-3);
      if (i > 0)
        {
          total += remainder (az - prev, 2 * G_PI);
          g_assert_cmpfloat (pu->t, >, ds->pulses[i - 1].t);
        }
      prev = az;
    }
  g_assert_cmpfloat (fabs (total - p.aperture_deg * DEG), <, 1e-9);
  g_assert_cmpfloat (fabs (ef_dataset_aperture_angle (ds) - p.aperture_deg * DEG), <, 1e-9);
  /* Mid-aperture is at the requested azimuth. */
  {
    const double *a = ds->pulses[50].tx;
    g_assert_cmpfloat (fabs (remainder (atan2 (a[1], a[0]) - p.azimuth_deg * DEG, 2 * G_PI)), <, 1e-9);
  }
  /* The last pulse time is the arc length over the speed. */
  g_assert_cmpfloat (fabs (ds->pulses[100].t - p.standoff * cos (p.grazing_deg * DEG) * p.aperture_deg * DEG / p.speed),
                     <, 1e-9);
  g_assert_cmpfloat (fabs (ef_dataset_crossrange_resolution (ds)
                           - EF_C / p.fc / (2 * p.aperture_deg * DEG * cos (p.grazing_deg * DEG))), <, 1e-9);

  /* The airborne defaults give the same resolution in range and in cross-range. */
  g_clear_pointer (&ds, ef_dataset_unref);
  ef_sim_params_init_airborne (&p);
  p.n_samples = 4;
  ds = ef_sim_run (&p, &error);
  g_assert_no_error (error);
  g_test_message ("defaults: aperture %.3f deg, range resolution %.4f m, cross-range %.4f m", p.aperture_deg,
                  ef_dataset_range_resolution (ds), ef_dataset_crossrange_resolution (ds));
  g_assert_cmpfloat (fabs (ef_dataset_crossrange_resolution (ds) / ef_dataset_range_resolution (ds) - 1), <, 1e-6);
}

static void
test_geometry_stripmap (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (EfDataset) ds = NULL;
  EfSimParams p;
  const double *a0, *am, *a1;
  double u[3], v[3], w[3], los[3], cosang, dot = 0, nu = 0, nv = 0;

  ef_sim_params_init_spaceborne (&p);
  p.n_pulses = 33;
  p.n_samples = 8;
  p.azimuth_deg = -60.0;
  ds = ef_sim_run (&p, &error);
  g_assert_no_error (error);

  a0 = ds->pulses[0].tx;
  am = ds->pulses[16].tx;
  a1 = ds->pulses[32].tx;
  /* Broadside at mid-aperture: the standoff and grazing angle there, at the requested azimuth. */
  g_assert_cmpfloat (fabs (ds->pulses[16].r0 - p.standoff), <, 1e-9 * p.standoff);
  g_assert_cmpfloat (fabs (asin (am[2] / ds->pulses[16].r0) - p.grazing_deg * DEG), <, 1e-9);
  g_assert_cmpfloat (fabs (atan2 (am[1], am[0]) - p.azimuth_deg * DEG), <, 1e-9);
  for (int c = 0; c < 3; c++)
    {
      u[c] = a0[c];
      v[c] = a1[c];
      w[c] = a1[c] - a0[c];
      los[c] = am[c];
    }
  /* The track is level, perpendicular to the line of sight, and the angle it subtends at the SRP is
   * the aperture angle. */
  g_assert_cmpfloat (fabs (w[2]), <, 1e-6);
  g_assert_cmpfloat (fabs (w[0] * los[0] + w[1] * los[1] + w[2] * los[2]) / (p.standoff * sqrt (w[0] * w[0] + w[1] * w[1])),
                     <, 1e-12);
  for (int c = 0; c < 3; c++)
    {
      dot += u[c] * v[c];
      nu += u[c] * u[c];
      nv += v[c] * v[c];
    }
  cosang = dot / sqrt (nu * nv);
  g_assert_cmpfloat (fabs (acos (cosang) - p.aperture_deg * DEG), <, 1e-9);
  for (guint i = 0; i < p.n_pulses; i++)
    {
      /* Collinear with the end points. */
      const double *a = ds->pulses[i].tx;
      double f = (double) i / (p.n_pulses - 1);
      for (int c = 0; c < 3; c++)
        g_assert_cmpfloat (fabs (a[c] - (a0[c] + f * w[c])), <, 1e-6);
    }
  g_assert_cmpfloat (fabs (ds->pulses[32].t - sqrt (w[0] * w[0] + w[1] * w[1]) / p.speed), <, 1e-9);

  /* An explicit track length wins over the angle. */
  p.aperture_len = 1234.5;
  g_clear_pointer (&ds, ef_dataset_unref);
  ds = ef_sim_run (&p, &error);
  g_assert_no_error (error);
  {
    const double *b0 = ds->pulses[0].tx, *b1 = ds->pulses[32].tx;
    g_assert_cmpfloat (fabs (hypot (b1[0] - b0[0], b1[1] - b0[1]) - 1234.5), <, 1e-6);
  }
}

/* Naive correlation of pulse 0 of a RAW dataset with the transmitted chirp, in double. Returns the
 * lag (samples) of the peak and the correlation there. */
static guint
raw_peak (EfDataset *ds, EfCf64 *value)
{
  const EfDatasetInfo *info = &ds->info;
  const EfCf32 *s = ef_dataset_memory_samples (ds);
  double fs = info->sample_rate, K = info->chirp_rate, T = info->chirp_duration;
  guint L = (guint) ceil (T * fs), ns = info->n_samples, best = 0;
  double best_mag = -1;
  g_autofree EfCf64 *h = g_new (EfCf64, L);

  for (guint m = 0; m < L; m++)
    {
      double t = m / fs;
      h[m] = cexp (I * G_PI * K * (t - 0.5 * T) * (t - 0.5 * T));
    }
  for (guint lag = 0; lag < ns; lag++)
    {
      EfCf64 c = 0;
      for (guint m = 0; m < L && lag + m < ns; m++)
        c += s[lag + m] * conj (h[m]);
      if (cabs (c) > best_mag)
        {
          best_mag = cabs (c);
          best = lag;
          *value = c;
        }
    }
  return best;
}

static void
test_raw_chirp (void)
{
  g_autoptr (GError) error = NULL;
  EfSimTarget t = { { 0, 0, 0 }, 1.0 };
  EfSimParams p;
  double sc0, lead, R, u[3], fs, tau, expect, got;
  EfCf64 peak;
  guint lag, want;

  ef_sim_params_init_airborne (&p);
  p.geometry = EF_SIM_STRIPMAP;
  p.domain = EF_DOMAIN_RAW;
  p.bandwidth = 100e6;
  p.chirp_duration = 0.2e-6;
  p.sample_rate = 125e6;
  p.n_samples = 160;
  p.n_pulses = 3;
  p.targets = &t;
  p.n_targets = 1;

  {
    g_autoptr (EfDataset) ds = ef_sim_run (&p, &error);
    g_assert_no_error (error);
    g_assert_cmpint (ds->info.domain, ==, EF_DOMAIN_RAW);
    g_assert_cmpfloat (ds->info.chirp_rate, ==, p.bandwidth / p.chirp_duration);
    g_assert_cmpfloat (ds->info.chirp_duration, ==, p.chirp_duration);
    g_assert_cmpfloat (ds->info.sample_rate, ==, p.sample_rate);
    g_assert_cmpfloat (ds->pulses[0].fx1, ==, p.fc - 0.5 * p.bandwidth);
    g_assert_cmpfloat (ds->pulses[0].fx2, ==, p.fc + 0.5 * p.bandwidth);
    g_assert_cmpfloat (ds->pulses[0].scss, ==, 1.0 / p.sample_rate);
    sc0 = ds->pulses[0].sc0;
    /* With the target at the SRP the window is centred on its echo. */
    lead = 2 * ds->pulses[0].r0 / EF_C - sc0;
    g_assert_cmpfloat (fabs (lead - 0.5 * (p.n_samples / p.sample_rate - p.chirp_duration)), <, 1e-15);
    lag = raw_peak (ds, &peak);
    g_assert_cmpfloat (fabs (lag - lead * p.sample_rate), <=, 1.0);

    /* Place a target on the line of sight of pulse 0 so that its delay lands exactly on sample 47. */
    fs = p.sample_rate;
    want = 47;
    R = 0.5 * EF_C * (sc0 + want / fs);
    for (int c = 0; c < 3; c++)
      u[c] = ds->pulses[0].tx[c] / ds->pulses[0].r0;
    for (int c = 0; c < 3; c++)
      t.pos[c] = ds->pulses[0].tx[c] - R * u[c];
  }
  t.amp = 1.0;
  {
    g_autoptr (EfDataset) ds = ef_sim_run (&p, &error);
    const double *a;
    double Rt;

    g_assert_no_error (error);
    /* The echo fits in the SRP-centred window, so the window has not moved. */
    g_assert_cmpfloat (ds->pulses[0].sc0, ==, sc0);
    lag = raw_peak (ds, &peak);
    a = ds->pulses[0].tx;
    Rt = sqrt (pow (a[0] - t.pos[0], 2) + pow (a[1] - t.pos[1], 2) + pow (a[2] - t.pos[2], 2));
    tau = 2 * Rt / EF_C;
    g_assert_cmpfloat (fabs ((tau - sc0) * fs - want), <, 1e-4);
    g_assert_cmpuint (lag, ==, want);
    /* -2 pi fc tau, reduced in cycles to keep its precision. */
    expect = -2 * G_PI * (p.fc * tau - nearbyint (p.fc * tau));
    got = carg (peak);
    g_test_message ("RAW peak at lag %u (want %u), |peak| %.3f, phase error %.3g rad", lag, want, cabs (peak),
                    remainder (got - expect, 2 * G_PI));
    g_assert_cmpfloat (fabs (remainder (got - expect, 2 * G_PI)), <, 1e-5);
    /* The whole chirp was inside the window: the peak is the sum of L unit samples. */
    g_assert_cmpfloat (fabs (cabs (peak) - ceil (p.chirp_duration * fs)), <, 1e-3);
  }

  /* A target whose delay falls between samples still peaks within one sample of it. */
  for (int c = 0; c < 3; c++)
    t.pos[c] += 0.37 * 0.5 * EF_C / p.sample_rate * -u[c];
  {
    g_autoptr (EfDataset) ds = ef_sim_run (&p, &error);
    double frac;

    g_assert_no_error (error);
    lag = raw_peak (ds, &peak);
    frac = (2 * sqrt (pow (ds->pulses[0].tx[0] - t.pos[0], 2) + pow (ds->pulses[0].tx[1] - t.pos[1], 2)
                      + pow (ds->pulses[0].tx[2] - t.pos[2], 2)) / EF_C - ds->pulses[0].sc0) * p.sample_rate;
    g_assert_cmpfloat (fabs (lag - frac), <=, 1.0);
  }
}

/* Targets whose echoes miss the SRP-centred window but fit in one as long move the window. */
static void
test_raw_window (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (EfDataset) ds = NULL;
  EfSimTarget t[2] = { { { 30, 0, 0 }, 1.0 }, { { 40, 0, 0 }, 1.0 } };
  EfSimParams p;

  ef_sim_params_init_airborne (&p);
  p.domain = EF_DOMAIN_RAW;
  p.azimuth_deg = 0;
  p.bandwidth = 100e6;
  p.chirp_duration = 0.2e-6;
  p.sample_rate = 125e6;
  p.n_samples = 64;      /* 0.51 us: the SRP-centred window would end short of the targets' echoes */
  p.n_pulses = 2;
  p.targets = t;
  p.n_targets = 2;
  ds = ef_sim_run (&p, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < 2; i++)
    {
      const EfPulse *pu = &ds->pulses[i];
      double end = pu->sc0 + p.n_samples / p.sample_rate;
      for (guint j = 0; j < 2; j++)
        {
          const double *a = pu->tx;
          double tau = 2 * sqrt (pow (a[0] - t[j].pos[0], 2) + pow (a[1] - t[j].pos[1], 2) + pow (a[2], 2)) / EF_C;
          g_assert_cmpfloat (tau, >=, pu->sc0 - 1e-15);
          g_assert_cmpfloat (tau + p.chirp_duration, <=, end + 1e-15);
        }
    }
}

static double
mean_power (EfDataset *ds)
{
  const EfCf32 *d = ef_dataset_memory_samples (ds);
  gsize n = ds->info.n_pulses * ds->info.n_samples;
  double s = 0;

  for (gsize i = 0; i < n; i++)
    s += creal (d[i]) * creal (d[i]) + cimag (d[i]) * cimag (d[i]);
  return s / n;
}

static void
test_noise (void)
{
  g_autoptr (GError) error = NULL;
  EfSimTarget t = { { 3, 4, 0 }, 1.0 };
  EfSimParams p;
  gsize bytes;

  ef_sim_params_init_airborne (&p);
  p.n_pulses = 256;
  p.n_samples = 256;
  p.snr_db = 10.0;
  p.seed = g_test_rand_int ();
  bytes = (gsize) p.n_pulses * p.n_samples * sizeof (EfCf32);

  /* Noise alone: power 10^(-SNR/10) per sample. */
  {
    g_autoptr (EfDataset) ds = ef_sim_run (&p, &error);
    double pw;
    g_assert_no_error (error);
    pw = mean_power (ds);
    g_test_message ("noise power %.5f for SNR %g dB (expected %.5f)", pw, p.snr_db, pow (10, -p.snr_db / 10));
    /* 65536 samples: the estimate of the power has a standard deviation of 0.4%. */
    g_assert_cmpfloat (fabs (pw / pow (10, -p.snr_db / 10) - 1), <, 0.02);
  }

  /* With a unit target: the noisy minus the clean data has the same power, the target 1. */
  p.targets = &t;
  p.n_targets = 1;
  p.snr_db = -3.0;
  {
    g_autoptr (EfDataset) noisy = ef_sim_run (&p, &error);
    g_autoptr (EfDataset) same = NULL;
    g_autoptr (EfDataset) one_thread = NULL;
    g_autoptr (EfDataset) other = NULL;
    g_autoptr (EfDataset) clean = NULL;
    const EfCf32 *a, *b;
    double s = 0, sig = 0;
    EfSimParams q;

    g_assert_no_error (error);
    q = p;
    q.snr_db = INFINITY;
    clean = ef_sim_run (&q, &error);
    g_assert_no_error (error);
    a = ef_dataset_memory_samples (noisy);
    b = ef_dataset_memory_samples (clean);
    for (gsize i = 0; i < (gsize) p.n_pulses * p.n_samples; i++)
      {
        EfCf64 dd = (EfCf64) a[i] - (EfCf64) b[i];
        s += creal (dd) * creal (dd) + cimag (dd) * cimag (dd);
        sig += cabs (b[i]) * cabs (b[i]);
      }
    s /= (double) p.n_pulses * p.n_samples;
    sig /= (double) p.n_pulses * p.n_samples;
    g_assert_cmpfloat (fabs (sig - 1), <, 1e-5);
    g_assert_cmpfloat (fabs (s / pow (10, -p.snr_db / 10) - 1), <, 0.02);

    /* Same seed: bit-identical, whatever the number of threads. */
    same = ef_sim_run (&p, &error);
    g_assert_no_error (error);
    g_assert_cmpint (memcmp (ef_dataset_memory_samples (same), a, bytes), ==, 0);
    q = p;
    q.n_threads = 1;
    one_thread = ef_sim_run (&q, &error);
    g_assert_no_error (error);
    g_assert_cmpint (memcmp (ef_dataset_memory_samples (one_thread), a, bytes), ==, 0);

    /* Another seed: other noise. */
    q = p;
    q.seed = p.seed + 1;
    other = ef_sim_run (&q, &error);
    g_assert_no_error (error);
    g_assert_cmpint (memcmp (ef_dataset_memory_samples (other), a, bytes), !=, 0);
    b = ef_dataset_memory_samples (other);
    s = 0;
    for (gsize i = 0; i < (gsize) p.n_pulses * p.n_samples; i++)
      s += cabs (a[i] - b[i]) > 1e-3;
    g_assert_cmpfloat (s, >, 0.99 * p.n_pulses * p.n_samples);
  }
}

/* A target at the SRP has zero differential range: every clean sample is exactly its amplitude,
 * which makes injected errors directly readable. */
static void
test_phase_error (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (EfDataset) ds = NULL;
  g_autoptr (EfDataset) ds2 = NULL;
  EfSimTarget t = { { 0, 0, 0 }, 1.0 };
  EfSimParams p;
  const EfCf32 *d;
  double mean = 0, ss = 0, max_dd = 0;
  g_autofree double *phi = NULL;

  ef_sim_params_init_airborne (&p);
  p.n_pulses = 200;
  p.n_samples = 8;
  p.phase_error_rad = 0.7;
  p.seed = g_test_rand_int ();
  p.targets = &t;
  p.n_targets = 1;
  ds = ef_sim_run (&p, &error);
  g_assert_no_error (error);
  d = ef_dataset_memory_samples (ds);
  phi = g_new (double, p.n_pulses);
  for (guint i = 0; i < p.n_pulses; i++)
    {
      phi[i] = carg (d[i * p.n_samples]);
      /* The same phase on every sample of the pulse. */
      g_assert_cmpfloat (fabs (remainder (carg (d[i * p.n_samples + 5]) - phi[i], 2 * G_PI)), <, 1e-6);
    }
  /* Unwrap, then measure. */
  for (guint i = 1; i < p.n_pulses; i++)
    phi[i] = phi[i - 1] + remainder (phi[i] - phi[i - 1], 2 * G_PI);
  for (guint i = 0; i < p.n_pulses; i++)
    mean += phi[i] / p.n_pulses;
  for (guint i = 0; i < p.n_pulses; i++)
    ss += (phi[i] - mean) * (phi[i] - mean) / p.n_pulses;
  for (guint i = 1; i + 1 < p.n_pulses; i++)
    max_dd = MAX (max_dd, fabs (phi[i + 1] - 2 * phi[i] + phi[i - 1]));
  g_test_message ("phase error rms %.6f rad (asked %.3f), max second difference %.2g", sqrt (ss), p.phase_error_rad,
                  max_dd);
  g_assert_cmpfloat (fabs (sqrt (ss) - p.phase_error_rad), <, 1e-5);
  /* Smooth: the pulse-to-pulse curvature is a small fraction of the rms. The roughest allowed shape,
   * a pure 6th-order Legendre polynomial, gives 0.077 rms over 200 pulses; white noise would give
   * second differences larger than the rms itself. */
  g_assert_cmpfloat (max_dd, <, 0.1 * p.phase_error_rad);

  /* Deterministic per seed; another seed gives another error. */
  ds2 = ef_sim_run (&p, &error);
  g_assert_no_error (error);
  g_assert_cmpmem (ef_dataset_memory_samples (ds2), p.n_pulses * p.n_samples * sizeof (EfCf32), d,
                   p.n_pulses * p.n_samples * sizeof (EfCf32));
  g_clear_pointer (&ds2, ef_dataset_unref);
  p.seed++;
  ds2 = ef_sim_run (&p, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (fabs (carg (ef_dataset_memory_samples (ds2)[0]) - carg (d[0])), >, 1e-4);
}

static void
test_range_error (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (EfDataset) ds = NULL;
  g_autoptr (EfDataset) clean = NULL;
  EfSimTarget t = { { 0, 0, 0 }, 1.0 };
  EfSimParams p;
  const EfCf32 *d;
  double ss = 0, mean = 0;

  ef_sim_params_init_airborne (&p);
  p.n_pulses = 128;
  p.n_samples = 32;
  p.range_error_m = 0.05;
  p.seed = g_test_rand_int ();
  p.targets = &t;
  p.n_targets = 1;
  ds = ef_sim_run (&p, &error);
  g_assert_no_error (error);
  p.range_error_m = 0;
  clean = ef_sim_run (&p, &error);
  g_assert_no_error (error);
  d = ef_dataset_memory_samples (ds);

  /* The recorded geometry is the true one without the error. */
  g_assert_cmpmem (ds->pulses, p.n_pulses * sizeof (EfPulse), clean->pulses, p.n_pulses * sizeof (EfPulse));
  for (guint i = 0; i < p.n_pulses; i++)
    {
      const EfPulse *pu = &ds->pulses[i];
      /* d(k) = exp(-j 4 pi f_k e / c): the phase step between samples gives e; the 4 cm error is well
       * inside the unambiguous c / (4 df) = 2 m. */
      double total = 0, e, e0;

      for (guint k = 0; k + 1 < p.n_samples; k++)
        total += carg (d[i * p.n_samples + k + 1] * conj (d[i * p.n_samples + k]));
      e = -total * EF_C / (4 * G_PI * (p.n_samples - 1) * pu->scss);
      e0 = -carg (d[i * p.n_samples]) * EF_C / (4 * G_PI * pu->sc0);
      /* The absolute phase agrees modulo one carrier wavelength: it is a range, not a phase, error. */
      g_assert_cmpfloat (fabs (remainder (4 * G_PI * pu->sc0 * (e - e0) / EF_C, 2 * G_PI)), <, 1e-2);
      mean += e / p.n_pulses;
      ss += e * e / p.n_pulses;
    }
  ss = sqrt (ss - mean * mean);
  g_test_message ("range error rms %.6f m (asked 0.05), mean %.2g m", ss, mean);
  g_assert_cmpfloat (fabs (ss - 0.05), <, 1e-4);
  g_assert_cmpfloat (fabs (mean), <, 1e-4);
}

typedef void (*Spoil) (EfSimParams *p);

static void spoil_pulses (EfSimParams *p) { p->n_pulses = 0; }
static void spoil_samples (EfSimParams *p) { p->n_samples = 0; }
static void spoil_huge (EfSimParams *p) { p->n_pulses = 1u << 20; p->n_samples = 1u << 12; }
static void spoil_huge_pulse (EfSimParams *p) { p->n_pulses = 1; p->n_samples = 1u << 30; }
static void spoil_bandwidth (EfSimParams *p) { p->bandwidth = 0; }
static void spoil_fc (EfSimParams *p) { p->fc = -1e9; }
static void spoil_band_below_zero (EfSimParams *p) { p->bandwidth = 3 * p->fc; }
static void spoil_standoff (EfSimParams *p) { p->standoff = 0; }
static void spoil_nan_fc (EfSimParams *p) { p->fc = NAN; }
static void spoil_nan_grazing (EfSimParams *p) { p->grazing_deg = NAN; }
static void spoil_grazing (EfSimParams *p) { p->grazing_deg = -5; }
static void spoil_inf_standoff (EfSimParams *p) { p->standoff = INFINITY; }
static void spoil_nan_snr (EfSimParams *p) { p->snr_db = NAN; }
static void spoil_speed (EfSimParams *p) { p->speed = 0; }
static void spoil_aperture (EfSimParams *p) { p->aperture_deg = 400; }
static void spoil_stripmap (EfSimParams *p) { p->geometry = EF_SIM_STRIPMAP; p->aperture_deg = 180; }
static void spoil_domain (EfSimParams *p) { p->domain = EF_DOMAIN_TOA; }
static void spoil_targets (EfSimParams *p) { p->targets = NULL; p->n_targets = 3; }
static void spoil_errors (EfSimParams *p) { p->phase_error_rad = -1; }
static void spoil_rate (EfSimParams *p) { p->domain = EF_DOMAIN_RAW; p->sample_rate = 0.5 * p->bandwidth; }
static void spoil_lat (EfSimParams *p) { p->lat_deg = 95; }

static EfSimTarget nan_target = { { NAN, 0, 0 }, 1.0 };
static void spoil_nan_target (EfSimParams *p) { p->targets = &nan_target; p->n_targets = 1; }

static void
test_bad_params (void)
{
  const Spoil spoils[] = {
    spoil_pulses, spoil_samples, spoil_huge, spoil_huge_pulse, spoil_bandwidth, spoil_fc,
    spoil_band_below_zero, spoil_standoff, spoil_nan_fc, spoil_nan_grazing, spoil_grazing,
    spoil_inf_standoff, spoil_nan_snr, spoil_speed, spoil_aperture, spoil_stripmap, spoil_domain,
    spoil_targets, spoil_errors, spoil_rate, spoil_lat, spoil_nan_target,
  };

  for (guint i = 0; i < G_N_ELEMENTS (spoils); i++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (EfDataset) ds = NULL;
      EfSimParams p;

      ef_sim_params_init_airborne (&p);
      p.n_pulses = 4;
      p.n_samples = 4;
      spoils[i] (&p);
      ds = ef_sim_run (&p, &error);
      g_assert_null (ds);
      g_assert_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT);
      g_assert_nonnull (error->message);
      g_test_message ("case %u: %s", i, error->message);
    }
}

static void
test_bitmap (void)
{
  const float px[3 * 4] = {
    0.9f, 0.0f, 0.0f, 0.0f,
    0.0f, 0.2f, 0.0f, 0.0f,
    0.0f, 0.0f, 0.0f, 0.5f,
  };
  guint n = 0, n2 = 0, n3 = 0, w = 0, h = 0, lit = 0;
  g_autofree EfSimTarget *t = ef_sim_targets_from_bitmap (px, 4, 3, 0.5, 10.0, -20.0, 0.1f, 42, &n);
  g_autofree EfSimTarget *t2 = ef_sim_targets_from_bitmap (px, 4, 3, 0.5, 10.0, -20.0, 0.1f, 42, &n2);
  g_autofree EfSimTarget *t3 = ef_sim_targets_from_bitmap (px, 4, 3, 0.5, 10.0, -20.0, 0.3f, 43, &n3);
  g_autofree float *demo = NULL;

  g_assert_cmpuint (n, ==, 3);
  g_assert_cmpuint (n2, ==, 3);
  g_assert_cmpuint (n3, ==, 2);
  /* Row 0 is north: the top-left pixel is at the largest y and smallest x. Centre (10, -20). */
  g_assert_cmpfloat (fabs (t[0].pos[0] - (10.0 - 1.5 * 0.5)), <, 1e-12);
  g_assert_cmpfloat (fabs (t[0].pos[1] - (-20.0 + 1.0 * 0.5)), <, 1e-12);
  g_assert_cmpfloat (fabs (t[1].pos[0] - (10.0 - 0.5 * 0.5)), <, 1e-12);
  g_assert_cmpfloat (fabs (t[1].pos[1] - -20.0), <, 1e-12);
  g_assert_cmpfloat (fabs (t[2].pos[0] - (10.0 + 1.5 * 0.5)), <, 1e-12);
  g_assert_cmpfloat (fabs (t[2].pos[1] - (-20.0 - 0.5)), <, 1e-12);
  g_assert_cmpfloat (t[2].pos[2], ==, 0.0);
  g_assert_cmpfloat (fabs (cabs (t[0].amp) - 0.9), <, 1e-6);
  g_assert_cmpfloat (fabs (cabs (t[1].amp) - 0.2), <, 1e-6);
  g_assert_cmpfloat (fabs (cabs (t[2].amp) - 0.5), <, 1e-6);
  /* Random phases, repeatable from the seed. */
  g_assert_cmpmem (t, 3 * sizeof *t, t2, 3 * sizeof *t2);
  g_assert_cmpfloat (fabs (carg (t[0].amp) - carg (t[2].amp)), >, 1e-6);
  g_assert_nonnull (t3);
  g_assert_cmpfloat (fabs (cabs (t3[0].amp) - 0.9), <, 1e-6);
  g_assert_cmpfloat (fabs (carg (t3[0].amp) - carg (t[0].amp)), >, 1e-6);

  demo = ef_sim_demo_bitmap (&w, &h);
  g_assert_nonnull (demo);
  g_assert_cmpuint (w, >=, 64);
  g_assert_cmpuint (h, >=, 32);
  for (guint i = 0; i < w * h; i++)
    {
      g_assert_cmpfloat (demo[i], >=, 0.0f);
      g_assert_cmpfloat (demo[i], <=, 1.0f);
      lit += demo[i] > 0.1f;
    }
  g_test_message ("demo picture %ux%u, %u lit pixels", w, h, lit);
  g_assert_cmpuint (lit, >, w * h / 20);
  g_assert_cmpuint (lit, <, w * h / 2);
}

/* A dense scene at full size, timed. The full 20000 x 512 x 512 case runs with -m perf. */
static void
test_dense (void)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (EfDataset) ds = NULL;
  g_autofree float *demo = NULL;
  g_autofree EfSimTarget *t = NULL;
  GRand *rng = g_rand_new_with_seed (g_test_rand_int ());
  guint w, h, n, n_targets = g_test_perf () ? 20000 : 2000;
  EfSimParams p;
  gint64 t0;
  double secs, ops;

  demo = ef_sim_demo_bitmap (&w, &h);
  t = ef_sim_targets_from_bitmap (demo, w, h, 0.5, 0, 0, 0.1f, 7, &n);
  t = g_renew (EfSimTarget, t, n_targets);
  for (guint i = n; i < n_targets; i++)
    random_targets (rng, &t[i], 1, 60.0);
  ef_sim_params_init_airborne (&p);
  p.targets = t;
  p.n_targets = n_targets;
  t0 = g_get_monotonic_time ();
  ds = ef_sim_run (&p, &error);
  secs = (g_get_monotonic_time () - t0) * 1e-6;
  g_assert_no_error (error);
  ops = (double) n_targets * p.n_pulses * p.n_samples;
  g_test_message ("%u targets x %u pulses x %u samples: %.3f s, %.1f M target-samples/s", n_targets, p.n_pulses,
                  p.n_samples, secs, ops / secs * 1e-6);
  if (g_test_perf ())
    g_test_minimized_result (secs, "dense scene %.3f s", secs);
  /* Three random pulses against the direct evaluation of the formula (naive_fx, extended precision, no
   * recurrence): what is stored is that sum rounded to complex float, so the error is at most the rounding
   * of the largest sample, sqrt(2) 2^-24 = 8.4e-8 of it. */
  for (int k = 0; k < 3; k++)
    {
      guint ip = (guint) g_rand_int_range (rng, 0, (gint32) p.n_pulses);
      const EfPulse *pu = &ds->pulses[ip];
      const EfCf32 *d = ef_dataset_memory_samples (ds) + (gsize) ip * p.n_samples;
      double err = 0, ref = 0;

      for (guint s = 0; s < p.n_samples; s++)
        {
          long double _Complex want = naive_fx (pu->tx, pu->r0, pu->sc0 + s * pu->scss, t, n_targets);

          err = MAX (err, cabsl (d[s] - want));
          ref = MAX (ref, cabsl (want));
        }
      g_test_message ("pulse %u: max |stored - direct| / max |direct| = %.3g", ip, err / ref);
      g_assert_cmpfloat (err / ref, <, 1e-7);
    }
  g_rand_free (rng);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/compute/sim/fx/naive", test_fx_naive);
  g_test_add_func ("/compute/sim/fx/focus", test_fx_focus);
  g_test_add_func ("/compute/sim/geometry/circular", test_geometry_circular);
  g_test_add_func ("/compute/sim/geometry/stripmap", test_geometry_stripmap);
  g_test_add_func ("/compute/sim/raw/chirp", test_raw_chirp);
  g_test_add_func ("/compute/sim/raw/window", test_raw_window);
  g_test_add_func ("/compute/sim/noise", test_noise);
  g_test_add_func ("/compute/sim/phase-error", test_phase_error);
  g_test_add_func ("/compute/sim/range-error", test_range_error);
  g_test_add_func ("/compute/sim/bad-params", test_bad_params);
  g_test_add_func ("/compute/sim/bitmap", test_bitmap);
  g_test_add_func ("/compute/sim/dense", test_dense);

  return g_test_run ();
}
