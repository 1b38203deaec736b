/* bench-sim-raw.c: the simulator's RAW chirp echoes against its FX samples at the same size, timed. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "bench-sim-raw"
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "ef-sim.h"

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *) a, y = *(const double *) b;

  return (x > y) - (x < y);
}

/* The median wall time of `repeat` runs, s. */
static double
time_sim (const EfSimParams *p, guint repeat)
{
  g_autofree double *t = g_new (double, repeat);

  for (guint r = 0; r < repeat; r++)
    {
      g_autoptr (GError) error = NULL;
      g_autoptr (EfDataset) ds = NULL;
      gint64 t0 = g_get_monotonic_time ();

      ds = ef_sim_run (p, &error);
      t[r] = (g_get_monotonic_time () - t0) * 1e-6;
      if (ds == NULL)
        {
          g_printerr ("bench-sim-raw: %s\n", error->message);
          exit (1);
        }
    }
  qsort (t, repeat, sizeof *t, cmp_double);
  return t[repeat / 2];
}

int
main (int argc, char **argv)
{
  g_autoptr (GOptionContext) ctx = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree EfSimTarget *targets = NULL;
  g_autoptr (GRand) rng = NULL;
  gint pulses = 512, samples = 0, n_targets = 200, repeat = 3, threads = 0;
  double extent = 30, T = 5e-6, fs = 0, bandwidth = 600e6;
  gboolean spaceborne = FALSE;
  EfSimParams p;
  double t_fx, t_raw;
  const GOptionEntry entries[] = {
    { "pulses", 0, 0, G_OPTION_ARG_INT, &pulses, "Pulses (512)", "N" },
    { "samples", 0, 0, G_OPTION_ARG_INT, &samples, "Samples a pulse, both domains (0: the chirp plus 512, as "
      "echoform-cli simulate takes for RAW)", "N" },
    { "targets", 0, 0, G_OPTION_ARG_INT, &n_targets, "Random point targets (200)", "N" },
    { "extent", 0, 0, G_OPTION_ARG_DOUBLE, &extent, "Targets within +-M of the scene centre in x and y (30)", "M" },
    { "pulse-length", 0, 0, G_OPTION_ARG_DOUBLE, &T, "Chirp duration, s (5e-6)", "S" },
    { "sample-rate", 0, 0, G_OPTION_ARG_DOUBLE, &fs, "Sampling rate, Hz (0: 1.25 x bandwidth)", "HZ" },
    { "bandwidth", 0, 0, G_OPTION_ARG_DOUBLE, &bandwidth, "Bandwidth, Hz (600e6)", "HZ" },
    { "spaceborne", 0, 0, G_OPTION_ARG_NONE, &spaceborne, "Spaceborne stripmap at 700 km", NULL },
    { "repeat", 0, 0, G_OPTION_ARG_INT, &repeat, "Runs of each; the median is reported (3)", "N" },
    { "threads", 't', 0, G_OPTION_ARG_INT, &threads, "Threads (0: all)", "N" },
    { NULL }
  };

  ctx = g_option_context_new ("- time RAW against FX simulation at the same size");
  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    {
      g_printerr ("bench-sim-raw: %s\n", error->message);
      return 2;
    }
  if (pulses < 1 || samples < 0 || n_targets < 1 || repeat < 1 || threads < 0 || !(T > 0) || fs < 0
      || !(bandwidth > 0) || !(extent >= 0))
    {
      g_printerr ("bench-sim-raw: sizes must be positive\n");
      return 2;
    }

  if (spaceborne)
    ef_sim_params_init_spaceborne (&p);
  else
    ef_sim_params_init_airborne (&p);
  p.bandwidth = bandwidth;
  p.chirp_duration = T;
  p.sample_rate = fs > 0 ? fs : 1.25 * bandwidth;
  if (samples == 0)
    samples = (gint) (ceil ((ceil (T * p.sample_rate) + 512) / 64.0) * 64.0);
  p.n_pulses = (guint) pulses;
  p.n_samples = (guint) samples;
  p.n_threads = (guint) threads;
  rng = g_rand_new_with_seed (7);
  targets = g_new (EfSimTarget, n_targets);
  for (gint i = 0; i < n_targets; i++)
    {
      double ph = g_rand_double_range (rng, -G_PI, G_PI);

      targets[i].pos[0] = g_rand_double_range (rng, -extent, extent);
      targets[i].pos[1] = g_rand_double_range (rng, -extent, extent);
      targets[i].pos[2] = 0;
      targets[i].amp = cos (ph) + I * sin (ph);
    }
  p.targets = targets;
  p.n_targets = (guint) n_targets;

  p.domain = EF_DOMAIN_FX;
  t_fx = time_sim (&p, (guint) repeat);
  p.domain = EF_DOMAIN_RAW;
  t_raw = time_sim (&p, (guint) repeat);
  printf ("%s, %d pulses x %d samples, %d targets, chirp %.3g us at %.4g MHz (%.0f samples), %d threads\n",
          spaceborne ? "spaceborne" : "airborne", pulses, samples, n_targets, T * 1e6, p.sample_rate * 1e-6,
          ceil (T * p.sample_rate), threads > 0 ? threads : (int) g_get_num_processors ());
  printf ("FX  %.3f s\nRAW %.3f s\nRAW / FX %.2f\n", t_fx, t_raw, t_raw / t_fx);
  return 0;
}
