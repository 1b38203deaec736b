/* test-sim-raw.c: the simulator's RAW chirp echoes against a direct evaluation of each echo in extended precision. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "test-sim-raw"
#include "config.h"

#include <math.h>
#include <string.h>

#include "ef-sim.h"

#define PI_L 3.141592653589793238462643383279503L

/* The pulse in double, against the direct sum: the tones' recurrences run at most 64 samples from an
 * exact seed, the delays are formed relative to the scene centre's, and what is left is the rounding of
 * the carrier phase 2 fc (|a - x| - r0) / c, which grows with a target's distance from the centre. Over
 * 300 random scenes (delay spreads up to kilometres of range, 10 and 700 km) the worst pulse had a
 * max |error| / max |direct| of 2.0e-10 and an SER of 193.1 dB; the bounds are twice that error and that
 * SER less 3 dB. */
#define MAX_REL_ERR64 4e-10
#define MIN_SER64_DB 190.0
/* The stored complex float samples: their rounding, sqrt(2) 2^-24 of the largest at most. */
#define MAX_REL_ERR32 1e-7
/* SER of the stored samples against the direct sum: complex float rounding, 151.3 to 153.4 dB over 100
 * random collections; the bound is the least measured less 3 dB. */
#define MIN_SER32_DB 148.0

/* One RAW sample as the DESIGN.md model states it, with a direct complex exponential per target and no
 * recurrence, in extended precision: the echo of x_t at t_n = sc0 + n / fs is
 * amp_t exp(j 2 pi (K u^2 / 2 - fc tau_t)) while 0 <= t_n - tau_t < T, u = t_n - tau_t - T / 2,
 * tau_t = 2 (|a - x_t| + offset) / c. */
static long double _Complex
naive_raw (const double a[3], double sc0, double fc, double fs, double K, double T, guint n, double offset,
           const EfSimTarget *t, guint nt)
{
  long double _Complex s = 0;
  long double tn_rel = (long double) n / fs;

  for (guint i = 0; i < nt; i++)
    {
      long double d0 = (long double) a[0] - t[i].pos[0];
      long double d1 = (long double) a[1] - t[i].pos[1];
      long double d2 = (long double) a[2] - t[i].pos[2];
      long double tau = 2.0L * (sqrtl (d0 * d0 + d1 * d1 + d2 * d2) + offset) / (long double) EF_C;
      long double d = ((long double) sc0 - tau) + tn_rel;   /* t_n - tau */
      long double u, fct, cyc;

      if (!(d >= 0 && d < T))
        continue;
      u = d - 0.5L * T;
      fct = (long double) fc * tau;
      cyc = 0.5L * K * u * u - (fct - nearbyintl (fct));
      s += ((long double _Complex) t[i].amp) * (cosl (2 * PI_L * cyc) + I * sinl (2 * PI_L * cyc));
    }
  return s;
}

typedef struct {
  double err_max, ref_max;   /* max |got - ref|, max |ref| */
  double err2, ref2;         /* sums of squares */
} Cmp;

static void
cmp_add (Cmp *c, long double _Complex got, long double _Complex ref)
{
  double e = (double) cabsl (got - ref), r = (double) cabsl (ref);

  c->err_max = MAX (c->err_max, e);
  c->ref_max = MAX (c->ref_max, r);
  c->err2 += e * e;
  c->ref2 += r * r;
}

static double
cmp_ser_db (const Cmp *c)
{
  return c->err2 > 0 ? 10 * log10 (c->ref2 / c->err2) : INFINITY;
}

/* Targets near the line of sight of antenna a whose delays spread over [rel_lo, rel_hi] s from sc0,
 * so that some echoes lie inside the window, some are cut at either end and some miss it; one is
 * silent. */
static void
targets_about (const double a[3], double sc0, double rel_lo, double rel_hi, EfSimTarget *t, guint n)
{
  double r0 = sqrt (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
  double u[3] = { a[0] / r0, a[1] / r0, a[2] / r0 };
  /* A horizontal direction across the line of sight. */
  double h = hypot (u[0], u[1]), w[3] = { -u[1] / h, u[0] / h, 0 };

  for (guint i = 0; i < n; i++)
    {
      double rel = g_test_rand_double_range (rel_lo, rel_hi);
      double across = g_test_rand_double_range (-20, 20);
      double R = 0.5 * EF_C * (sc0 + rel);   /* the target's range from a */
      double ph = g_test_rand_double_range (-G_PI, G_PI);
      double mag = g_test_rand_double_range (0.2, 2.0);

      for (int c = 0; c < 3; c++)
        t[i].pos[c] = a[c] - R * u[c] + across * w[c];
      t[i].amp = i == n / 2 ? 0 : mag * (cos (ph) + I * sin (ph));
    }
}

/* ef_sim_raw_pulse64 on random chirps, windows and targets. */
static void
test_pulse64 (void)
{
  for (guint trial = 0; trial < 12; trial++)
    {
      double standoff = trial % 2 ? 700e3 : 10e3;
      double el = g_test_rand_double_range (0.3, 1.2), az = g_test_rand_double_range (-G_PI, G_PI);
      double a[3] = { standoff * cos (el) * cos (az), standoff * cos (el) * sin (az), standoff * sin (el) };
      double r0 = sqrt (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
      double fc = g_test_rand_double_range (1e9, 10e9);
      double B = g_test_rand_double_range (20e6, 0.5 * fc);
      double fs = B * g_test_rand_double_range (1.0, 2.0);
      guint L = (guint) g_test_rand_int_range (8, 1200);          /* chirp samples */
      guint ns = (guint) g_test_rand_int_range (16, 1600);
      double T = L / fs, K = B / T;
      double lead = g_test_rand_double_range (-0.2, 0.8) * ns / fs;
      double sc0 = 2 * r0 / EF_C - lead;
      double offset = trial % 3 == 0 ? g_test_rand_double_range (-2, 2) : 0;
      guint nt = (guint) g_test_rand_int_range (1, 60);
      g_autofree EfSimTarget *t = g_new (EfSimTarget, nt);
      g_autofree EfCf64 *out = g_new (EfCf64, ns);
      Cmp c = { 0 };

      /* Delays from a whole chirp before the window to past its end. */
      targets_about (a, sc0, -1.1 * T, 1.1 * ns / fs, t, nt);
      for (guint k = 0; k < ns; k++)
        out[k] = NAN;
      g_assert_true (ef_sim_raw_pulse64 (a, r0, sc0, fc, fs, K, T, ns, offset, t, nt, out));
      for (guint k = 0; k < ns; k++)
        cmp_add (&c, out[k], naive_raw (a, sc0, fc, fs, K, T, k, offset, t, nt));
      g_test_message ("%.0f km, %u samples, chirp of %u at %.3g MHz, %u targets: max |error| / max |direct| %.3g, "
                      "SER %.1f dB", standoff / 1e3, ns, L, fs / 1e6, nt, c.err_max / c.ref_max, cmp_ser_db (&c));
      if (c.ref_max > 0)
        {
          g_assert_cmpfloat (c.err_max / c.ref_max, <, MAX_REL_ERR64);
          g_assert_cmpfloat (cmp_ser_db (&c), >=, MIN_SER64_DB);
        }
      else
        g_assert_cmpfloat (c.err_max, ==, 0);
    }
}

/* Whole collections: what ef_sim_run stores (complex float) against the direct sum, for spotlight and
 * stripmap, airborne and spaceborne, one thread and several. */
static void
test_run (void)
{
  for (guint trial = 0; trial < 4; trial++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (EfDataset) ds = NULL;
      g_autoptr (EfDataset) ds1 = NULL;
      g_autofree EfSimTarget *t = NULL;
      const EfCf32 *d, *d1;
      EfSimParams p;
      guint nt = (guint) g_test_rand_int_range (3, 40);
      Cmp c = { 0 };
      double extent;

      if (trial % 2)
        ef_sim_params_init_spaceborne (&p);
      else
        ef_sim_params_init_airborne (&p);
      if (trial == 2)
        p.geometry = EF_SIM_STRIPMAP;
      p.domain = EF_DOMAIN_RAW;
      p.bandwidth = g_test_rand_double_range (50e6, 300e6);
      p.sample_rate = p.bandwidth * g_test_rand_double_range (1.1, 1.5);
      p.chirp_duration = g_test_rand_double_range (0.3e-6, 2e-6);
      p.n_samples = (guint) (p.chirp_duration * p.sample_rate) + (guint) g_test_rand_int_range (64, 600);
      p.n_pulses = 6;
      p.seed = g_test_rand_int ();
      /* Enough range spread that the window cannot hold every echo and stays on the scene centre. */
      extent = 0.6 * EF_C * p.n_samples / p.sample_rate;
      t = g_new (EfSimTarget, nt);
      for (guint i = 0; i < nt; i++)
        {
          double ph = g_test_rand_double_range (-G_PI, G_PI);

          t[i].pos[0] = g_test_rand_double_range (-extent, extent);
          t[i].pos[1] = g_test_rand_double_range (-extent, extent);
          t[i].pos[2] = g_test_rand_double_range (-2, 2);
          t[i].amp = g_test_rand_double_range (0.2, 2.0) * (cos (ph) + I * sin (ph));
        }
      p.targets = t;
      p.n_targets = nt;
      ds = ef_sim_run (&p, &error);
      g_assert_no_error (error);
      p.n_threads = 1;
      ds1 = ef_sim_run (&p, &error);
      g_assert_no_error (error);
      d = ef_dataset_memory_samples (ds);
      d1 = ef_dataset_memory_samples (ds1);
      /* The threads share out pulses, never a pulse's sum: the same bits either way. */
      g_assert_cmpmem (d, sizeof (EfCf32) * p.n_pulses * p.n_samples, d1, sizeof (EfCf32) * p.n_pulses * p.n_samples);
      for (guint i = 0; i < p.n_pulses; i++)
        {
          const EfPulse *pu = &ds->pulses[i];

          for (guint k = 0; k < p.n_samples; k++)
            cmp_add (&c, d[(gsize) i * p.n_samples + k],
                     naive_raw (pu->tx, pu->sc0, p.fc, p.sample_rate, ds->info.chirp_rate, p.chirp_duration, k, 0, t,
                                nt));
        }
      g_test_message ("%s %s, %u pulses x %u samples, %u targets: stored max |error| / max |direct| %.3g, SER %.1f dB",
                      trial % 2 ? "spaceborne" : "airborne", p.geometry == EF_SIM_STRIPMAP ? "stripmap" : "spotlight",
                      p.n_pulses, p.n_samples, nt, c.err_max / c.ref_max, cmp_ser_db (&c));
      g_assert_cmpfloat (c.ref_max, >, 0);
      g_assert_cmpfloat (c.err_max / c.ref_max, <, MAX_REL_ERR32);
      g_assert_cmpfloat (cmp_ser_db (&c), >=, MIN_SER32_DB);
    }
}

/* No target, or every echo outside the window: zeros, not garbage. */
static void
test_empty (void)
{
  double a[3] = { 8e3, 0, 6e3 };
  EfSimTarget far = { { -5e3, 0, 0 }, 1.0 };
  EfCf64 out[100];

  for (guint k = 0; k < 100; k++)
    out[k] = NAN;
  g_assert_true (ef_sim_raw_pulse64 (a, 1e4, 2e4 / EF_C, 9.6e9, 125e6, 100e6 / 0.2e-6, 0.2e-6, 100, 0, NULL, 0, out));
  for (guint k = 0; k < 100; k++)
    g_assert_cmpfloat (cabs (out[k]), ==, 0);
  g_assert_true (ef_sim_raw_pulse64 (a, 1e4, 2e4 / EF_C, 9.6e9, 125e6, 100e6 / 0.2e-6, 0.2e-6, 100, 0, &far, 1, out));
  for (guint k = 0; k < 100; k++)
    g_assert_cmpfloat (cabs (out[k]), ==, 0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/compute/sim/raw/pulse64-vs-direct", test_pulse64);
  g_test_add_func ("/compute/sim/raw/run-vs-direct", test_run);
  g_test_add_func ("/compute/sim/raw/empty", test_empty);

  return g_test_run ();
}
