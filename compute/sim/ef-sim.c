/* ef-sim.c: a physically exact phase-history simulator (FX and RAW chirp) for point targets. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-sim"
#include "config.h"

#include <math.h>
#include <string.h>

#if HAVE_OPENMP
#include <omp.h>
#endif

#include "ef-sim.h"
#include "ef-sim-private.h"
#include "ef-error.h"

/* The same limits as the dataset readers accept, plus a ceiling on the total so that a typing slip
 * cannot ask for tens of gigabytes. */
#define EF_SIM_MAX_PULSES (G_GUINT64_CONSTANT (1) << 26)
#define EF_SIM_MAX_SAMPLES (G_GUINT64_CONSTANT (1) << 24)
#define EF_SIM_MAX_TOTAL (G_GUINT64_CONSTANT (1) << 31)

/* Targets are processed in blocks small enough that their rotators stay in L1 cache; a multiple of
 * EF_SIM_GROUP below. */
#define TBLOCK 128

#define DEG (G_PI / 180.0)

/* Independent pseudo-random streams per (seed, stream, index) so that the output does not depend on
 * the order in which threads visit pulses. */
enum {
  STREAM_NOISE = 1,
  STREAM_PHASE = 2,
  STREAM_RANGE = 3,
};

static inline guint64
splitmix64_next (guint64 *state)
{
  guint64 z = (*state += G_GUINT64_CONSTANT (0x9E3779B97F4A7C15));

  z = (z ^ (z >> 30)) * G_GUINT64_CONSTANT (0xBF58476D1CE4E5B9);
  z = (z ^ (z >> 27)) * G_GUINT64_CONSTANT (0x94D049BB133111EB);
  return z ^ (z >> 31);
}

static guint64
stream_init (guint64 seed, guint stream, guint64 index)
{
  guint64 s = seed ^ (G_GUINT64_CONSTANT (0xD1B54A32D192ED03) * (guint64) stream);

  s = splitmix64_next (&s) ^ index;
  return splitmix64_next (&s);
}

/* Uniform in (0, 1]: never zero, so that the logarithm in Box-Muller is finite. */
static inline double
uniform_open (guint64 *state)
{
  return ((splitmix64_next (state) >> 11) + 1) * (1.0 / 9007199254740992.0);
}

/* Two independent standard normal deviates. */
static inline void
gauss_pair (guint64 *state, double *a, double *b)
{
  double u1 = uniform_open (state);
  double u2 = uniform_open (state);
  double r = sqrt (-2.0 * log (u1));

  *a = r * cos (2 * G_PI * u2);
  *b = r * sin (2 * G_PI * u2);
}

static void
wgs84_llh_to_ecf (const double llh[3], double ecf[3])
{
  const double a = 6378137.0;
  const double f = 1.0 / 298.257223563;
  const double e2 = f * (2.0 - f);
  double lat = llh[0] * DEG, lon = llh[1] * DEG, h = llh[2];
  double sl = sin (lat), cl = cos (lat);
  double n = a / sqrt (1.0 - e2 * sl * sl);

  ecf[0] = (n + h) * cl * cos (lon);
  ecf[1] = (n + h) * cl * sin (lon);
  ecf[2] = (n * (1.0 - e2) + h) * sl;
}

void
ef_sim_params_init_airborne (EfSimParams *p)
{
  g_return_if_fail (p != NULL);

  memset (p, 0, sizeof *p);
  p->geometry = EF_SIM_CIRCULAR;
  p->domain = EF_DOMAIN_FX;
  p->fc = 9.6e9;
  p->bandwidth = 600e6;
  p->n_samples = 512;
  p->n_pulses = 512;
  p->standoff = 10e3;
  p->grazing_deg = 30.0;
  /* Cross-range resolution lambda / (2 dtheta cos(grazing)) equals the range resolution c / (2B)
   * when dtheta = B / (fc cos(grazing)): about 4.1 degrees here. With 512 pulses and 512 samples the
   * unambiguous scene is then the same 128 m in range and in cross-range. */
  p->aperture_deg = p->bandwidth / (p->fc * cos (p->grazing_deg * DEG)) / DEG;
  p->aperture_len = 0;
  p->azimuth_deg = 0;
  p->speed = 100.0;
  p->chirp_duration = 0;
  p->sample_rate = 0;
  p->snr_db = INFINITY;
  p->phase_error_rad = 0;
  p->range_error_m = 0;
  p->seed = 1;
  /* Albuquerque, New Mexico. */
  p->lat_deg = 35.0;
  p->lon_deg = -106.5;
  p->height_m = 1600.0;
  p->targets = NULL;
  p->n_targets = 0;
  p->n_threads = 0;
}

void
ef_sim_params_init_spaceborne (EfSimParams *p)
{
  g_return_if_fail (p != NULL);

  ef_sim_params_init_airborne (p);
  p->geometry = EF_SIM_STRIPMAP;
  p->standoff = 700e3;
  p->grazing_deg = 45.0;
  p->speed = 7500.0;
  /* The stripmap aperture angle is the slant angle subtended at the SRP, whose cross-range
   * resolution is lambda / (2 dtheta): matching c / (2B) needs dtheta = B / fc (3.6 degrees, a
   * 44 km track at 700 km). */
  p->aperture_deg = p->bandwidth / p->fc / DEG;
  p->aperture_len = 0;
}

/* Smooth zero-mean per-pulse error with the given rms: a random combination of Legendre polynomials
 * of orders 2 to 6 over the aperture. Orders 0 and 1 are left out because a constant only rotates the
 * image and a linear term only shifts it; the higher orders are what defocuses. */
static void
smooth_error (guint64 seed, guint stream, double rms, guint n, double *out)
{
  guint64 st = stream_init (seed, stream, 0);
  double c[7] = { 0 };
  double mean = 0, ss = 0;

  for (guint i = 2; i <= 6; i += 2)
    {
      double a, b;
      gauss_pair (&st, &a, &b);
      c[i] = a / i;
      if (i + 1 <= 6)
        c[i + 1] = b / (i + 1);
    }
  for (guint p = 0; p < n; p++)
    {
      double x = n > 1 ? 2.0 * p / (n - 1) - 1.0 : 0.0;
      double pm1 = 1.0, pc = x, v = 0;

      /* Bonnet's recursion: (k + 1) P_{k+1} = (2k + 1) x P_k - k P_{k-1}. */
      for (guint k = 1; k <= 6; k++)
        {
          double pn;
          v += c[k] * pc;
          pn = ((2.0 * k + 1.0) * x * pc - k * pm1) / (k + 1.0);
          pm1 = pc;
          pc = pn;
        }
      out[p] = v;
      mean += v;
    }
  mean = n ? mean / n : 0;
  for (guint p = 0; p < n; p++)
    {
      out[p] -= mean;
      ss += out[p] * out[p];
    }
  ss = n ? sqrt (ss / n) : 0;
  for (guint p = 0; p < n; p++)
    out[p] = ss > 0 ? out[p] * (rms / ss) : 0.0;
}

/* Advances EF_SIM_GROUP-target groups of rotators through kn samples and adds their sums, lane by lane,
 * into acc_re/acc_im[kn]. cr/ci are the rotators at the first sample (amplitude included), sr/si
 * their one-sample steps; nb is a multiple of EF_SIM_GROUP (padding has zero amplitude). The rotators stay
 * in registers for the whole run, so the inner loop costs one complex multiply and one add per
 * target-sample and almost no memory traffic. Built for AVX2 as well where the compiler can choose
 * at run time. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__has_attribute)
#if __has_attribute(target_clones)
__attribute__ ((target_clones ("arch=x86-64-v3", "default")))
#endif
#endif
void
ef_sim_fx_kernel (const double *cr, const double *ci, const double *sr, const double *si, guint nb, guint kn,
           EfV4d *acc_re, EfV4d *acc_im)
{
  for (guint g = 0; g < nb; g += EF_SIM_GROUP)
    {
      EfV4d r0, r1, i0, i1, a0, a1, b0, b1;

      memcpy (&r0, cr + g, sizeof r0);
      memcpy (&r1, cr + g + 4, sizeof r1);
      memcpy (&i0, ci + g, sizeof i0);
      memcpy (&i1, ci + g + 4, sizeof i1);
      memcpy (&a0, sr + g, sizeof a0);
      memcpy (&a1, sr + g + 4, sizeof a1);
      memcpy (&b0, si + g, sizeof b0);
      memcpy (&b1, si + g + 4, sizeof b1);
      for (guint k = 0; k < kn; k++)
        {
          EfV4d nr0 = r0 * a0 - i0 * b0;
          EfV4d nr1 = r1 * a1 - i1 * b1;
          EfV4d ni0 = r0 * b0 + i0 * a0;
          EfV4d ni1 = r1 * b1 + i1 * a1;

          acc_re[k] += r0 + r1;
          acc_im[k] += i0 + i1;
          r0 = nr0;
          r1 = nr1;
          i0 = ni0;
          i1 = ni1;
        }
    }
}

void
ef_sim_fx_pulse64 (const double a[3], double r0, double f0, double df, guint n_samples, double range_offset,
                   const EfSimTarget *targets, guint n_targets, EfCf64 *out)
{
  /* Current rotators (amplitude included), one-sample steps, differential ranges and amplitudes of
   * one block of targets, structure-of-arrays for the vector kernel. */
  double cr[TBLOCK], ci[TBLOCK], sr[TBLOCK], si[TBLOCK], dr[TBLOCK];
  EfCf64 am[TBLOCK];
  EfV4d acc_re[EF_SIM_RESEED], acc_im[EF_SIM_RESEED];
  double gap;

  g_return_if_fail (a != NULL && out != NULL);
  g_return_if_fail (targets != NULL || n_targets == 0);

  memset (out, 0, sizeof (EfCf64) * n_samples);
  gap = ef_sim_range_gap (a, r0);

  for (guint t0 = 0; t0 < n_targets; t0 += TBLOCK)
    {
      guint nb = 0, nv;

      for (guint t = t0; t < n_targets && t < t0 + TBLOCK; t++)
        {
          double c, s;

          if (targets[t].amp == 0)
            continue;
          dr[nb] = ef_sim_diff_range (a, r0, gap, targets[t].pos) + range_offset;
          am[nb] = targets[t].amp;
          /* exp(-j 4 pi df dR / c) */
          ef_sim_rot_cycles (-2.0 * df * dr[nb] / EF_C, &c, &s);
          sr[nb] = c;
          si[nb] = s;
          nb++;
        }
      if (nb == 0)
        continue;
      /* Pad to whole groups with silent targets. */
      nv = (nb + EF_SIM_GROUP - 1) / EF_SIM_GROUP * EF_SIM_GROUP;
      for (guint j = nb; j < nv; j++)
        {
          cr[j] = ci[j] = si[j] = 0;
          sr[j] = 1;
        }

      for (guint k0 = 0; k0 < n_samples; k0 += EF_SIM_RESEED)
        {
          guint kn = MIN (EF_SIM_RESEED, n_samples - k0);
          double fk = f0 + k0 * df;

          /* Re-seed from the exact phase at f_k0 so that the recurrence never runs longer than EF_SIM_RESEED. */
          for (guint j = 0; j < nb; j++)
            {
              double c, s;
              EfCf64 z;

              ef_sim_rot_cycles (-2.0 * fk * dr[j] / EF_C, &c, &s);
              z = am[j] * (c + I * s);
              cr[j] = creal (z);
              ci[j] = cimag (z);
            }
          memset (acc_re, 0, sizeof (EfV4d) * kn);
          memset (acc_im, 0, sizeof (EfV4d) * kn);
          ef_sim_fx_kernel (cr, ci, sr, si, nv, kn, acc_re, acc_im);
          for (guint k = 0; k < kn; k++)
            out[k0 + k] += ((acc_re[k][0] + acc_re[k][1]) + (acc_re[k][2] + acc_re[k][3]))
                           + I * ((acc_im[k][0] + acc_im[k][1]) + (acc_im[k][2] + acc_im[k][3]));
        }
    }
}

static gboolean
check_finite (const char *name, double v, GError **error)
{
  if (!isfinite (v))
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "The simulation parameter “%s” is not a finite number", name);
      return FALSE;
    }
  return TRUE;
}

static gboolean
validate (const EfSimParams *p, GError **error)
{
  const struct { const char *name; double v; } finite[] = {
    { "fc", p->fc }, { "bandwidth", p->bandwidth }, { "standoff", p->standoff },
    { "grazing", p->grazing_deg }, { "aperture angle", p->aperture_deg },
    { "aperture length", p->aperture_len }, { "azimuth", p->azimuth_deg }, { "squint", p->squint_deg },
    { "speed", p->speed },
    { "chirp duration", p->chirp_duration }, { "sample rate", p->sample_rate },
    { "phase error", p->phase_error_rad }, { "range error", p->range_error_m },
    { "latitude", p->lat_deg }, { "longitude", p->lon_deg }, { "height", p->height_m },
  };

  for (guint i = 0; i < G_N_ELEMENTS (finite); i++)
    if (!check_finite (finite[i].name, finite[i].v, error))
      return FALSE;
  if (isnan (p->snr_db) || p->snr_db == -INFINITY)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "The signal-to-noise ratio must be a number of dB or +infinity for no noise");
      return FALSE;
    }
  if (p->domain != EF_DOMAIN_FX && p->domain != EF_DOMAIN_RAW)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "The simulator writes FX or RAW data, not %s", ef_domain_to_string (p->domain));
      return FALSE;
    }
  if (p->geometry != EF_SIM_CIRCULAR && p->geometry != EF_SIM_STRIPMAP)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "Unknown simulation geometry %d", (int) p->geometry);
      return FALSE;
    }
  if (p->n_pulses == 0 || p->n_samples == 0)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "A collection needs at least one pulse and one sample (asked for %u pulses of %u samples)",
                   p->n_pulses, p->n_samples);
      return FALSE;
    }
  if (p->n_pulses > EF_SIM_MAX_PULSES || p->n_samples > EF_SIM_MAX_SAMPLES
      || (guint64) p->n_pulses * p->n_samples > EF_SIM_MAX_TOTAL)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "%u pulses of %u samples is too large to simulate (at most %" G_GUINT64_FORMAT
                   " samples in all, %" G_GUINT64_FORMAT " per pulse)",
                   p->n_pulses, p->n_samples, EF_SIM_MAX_TOTAL, EF_SIM_MAX_SAMPLES);
      return FALSE;
    }
  if (!(p->fc > 0) || !(p->bandwidth > 0) || !(p->standoff > 0))
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "The centre frequency, bandwidth and standoff must be positive (got %g Hz, %g Hz, %g m)",
                   p->fc, p->bandwidth, p->standoff);
      return FALSE;
    }
  if (!(p->bandwidth < 2 * p->fc))
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "A bandwidth of %g Hz about %g Hz would reach zero or negative frequencies",
                   p->bandwidth, p->fc);
      return FALSE;
    }
  if (!(p->grazing_deg > 0 && p->grazing_deg <= 90))
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "The grazing angle must be in (0, 90] degrees, not %g", p->grazing_deg);
      return FALSE;
    }
  if (p->geometry == EF_SIM_CIRCULAR && !(p->aperture_deg >= 0 && p->aperture_deg <= 360))
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "A circular aperture sweeps between 0 and 360 degrees, not %g", p->aperture_deg);
      return FALSE;
    }
  if (p->geometry == EF_SIM_STRIPMAP && !(p->aperture_len > 0)
      && !(p->aperture_len == 0 && p->aperture_deg >= 0 && p->aperture_deg < 180))
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "A stripmap track needs a positive length, or an aperture angle below 180 degrees "
                   "(got %g m, %g degrees)", p->aperture_len, p->aperture_deg);
      return FALSE;
    }
  if (!(fabs (p->squint_deg) < 80))
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "A squint of %g degrees is not between -80 and 80", p->squint_deg);
      return FALSE;
    }
  if (p->squint_deg != 0 && fabs (sin (p->squint_deg * DEG)) >= cos (p->grazing_deg * DEG))
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "A squint of %g degrees cannot be flown level at %g degrees grazing", p->squint_deg,
                   p->grazing_deg);
      return FALSE;
    }
  if (p->geometry == EF_SIM_CIRCULAR && p->squint_deg != 0)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "A circular spotlight always looks at the scene centre: squint applies to a straight track");
      return FALSE;
    }
  if (!(p->speed > 0))
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "The platform speed must be positive, not %g m/s", p->speed);
      return FALSE;
    }
  if (p->phase_error_rad < 0 || p->range_error_m < 0)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "Injected errors are given as an rms and cannot be negative");
      return FALSE;
    }
  if (p->lat_deg < -90 || p->lat_deg > 90)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "A latitude of %g degrees is not on the Earth", p->lat_deg);
      return FALSE;
    }
  if (p->n_targets > 0 && p->targets == NULL)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "%u targets were announced but none were given", p->n_targets);
      return FALSE;
    }
  for (guint t = 0; t < p->n_targets; t++)
    {
      const EfSimTarget *tg = &p->targets[t];

      if (!isfinite (tg->pos[0]) || !isfinite (tg->pos[1]) || !isfinite (tg->pos[2])
          || !isfinite (creal (tg->amp)) || !isfinite (cimag (tg->amp)))
        {
          g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                       "Target %u has a NaN or infinite position or amplitude", t);
          return FALSE;
        }
    }
  if (p->domain == EF_DOMAIN_RAW)
    {
      if (p->chirp_duration < 0 || p->sample_rate < 0)
        {
          g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                       "The chirp duration and the sampling rate cannot be negative");
          return FALSE;
        }
      if (p->sample_rate > 0 && p->sample_rate < p->bandwidth)
        {
          g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                       "A sampling rate of %g Hz cannot carry a %g Hz chirp", p->sample_rate, p->bandwidth);
          return FALSE;
        }
    }
  return TRUE;
}

/* Antenna positions and pulse times. */
static void
make_geometry (const EfSimParams *p, EfPulse *pulses)
{
  double g = p->grazing_deg * DEG;
  double az = p->azimuth_deg * DEG;
  guint n = p->n_pulses;

  if (p->geometry == EF_SIM_CIRCULAR)
    {
      double ap = p->aperture_deg * DEG;
      double ground = p->standoff * cos (g);

      for (guint i = 0; i < n; i++)
        {
          double frac = n > 1 ? (double) i / (n - 1) : 0.5;
          double phi = az - 0.5 * ap + ap * frac;
          double *a = pulses[i].tx;

          a[0] = ground * cos (phi);
          a[1] = ground * sin (phi);
          a[2] = p->standoff * sin (g);
          /* Arc length flown since the first pulse. */
          pulses[i].t = ground * ap * frac / p->speed;
        }
    }
  else
    {
      /* Mid-aperture position, and the horizontal track direction perpendicular to the line of
       * sight (turned by the squint), turning the same way as the circular path does for increasing
       * pulse index. */
      /* Squint is the slant-plane angle: the track turns in the ground plane by psi with
       * cos(grazing) sin(psi) = sin(squint), which validate() keeps possible. */
      double sq = asin (sin (p->squint_deg * DEG) / cos (g));
      double c0[3] = { p->standoff * cos (g) * cos (az), p->standoff * cos (g) * sin (az), p->standoff * sin (g) };
      double d[3] = { -sin (az + sq), cos (az + sq), 0 };
      double len = p->aperture_len > 0 ? p->aperture_len : 2.0 * p->standoff * tan (0.5 * p->aperture_deg * DEG);

      for (guint i = 0; i < n; i++)
        {
          double frac = n > 1 ? (double) i / (n - 1) : 0.5;
          double s = len * (frac - 0.5);

          for (int c = 0; c < 3; c++)
            pulses[i].tx[c] = c0[c] + s * d[c];
          pulses[i].t = len * frac / p->speed;
        }
    }
  for (guint i = 0; i < n; i++)
    {
      double *a = pulses[i].tx;

      memcpy (pulses[i].rcv, a, sizeof pulses[i].rcv);
      pulses[i].r0 = sqrt (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
    }
}

EfDataset *
ef_sim_run (const EfSimParams *params, GError **error)
{
  const EfSimParams *p = params;
  EfDatasetInfo info = { 0 };
  g_autofree EfPulse *pulses = NULL;
  g_autofree EfCf32 *samples = NULL;
  g_autofree double *phase_err = NULL;
  g_autofree double *range_err = NULL;
  g_autofree EfCf64 *chirp = NULL;      /* RAW: the chirp every echo shares */
  g_autoptr (EfDataset) ds = NULL;
  double noise_sigma = 0;      /* per real component */
  double fs = 0, T = 0, K = 0, window = 0;
  guint ns, np;
  gsize total;
  gboolean no_memory = FALSE;
#if HAVE_OPENMP
  int n_threads;
#endif

  g_return_val_if_fail (params != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (!validate (p, error))
    return NULL;

  ns = p->n_samples;
  np = p->n_pulses;
  total = (gsize) ns * np;
  pulses = g_try_new0 (EfPulse, np);
  samples = g_try_new (EfCf32, total);
  phase_err = g_try_new0 (double, np);
  range_err = g_try_new0 (double, np);
  if (pulses == NULL || samples == NULL || phase_err == NULL || range_err == NULL)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_MEMORY,
                   "Not enough memory to simulate %u pulses of %u samples (%.1f GiB)", np, ns,
                   total * sizeof (EfCf32) / 1073741824.0);
      return NULL;
    }

  make_geometry (p, pulses);
  if (p->phase_error_rad > 0)
    smooth_error (p->seed, STREAM_PHASE, p->phase_error_rad, np, phase_err);
  if (p->range_error_m > 0)
    smooth_error (p->seed, STREAM_RANGE, p->range_error_m, np, range_err);
  if (isfinite (p->snr_db))
    /* A unit target puts power 1 in every sample; the noise's total power is 10^(-SNR/10), half in
     * each of I and Q. */
    noise_sigma = sqrt (0.5 * pow (10.0, -p->snr_db / 10.0));

  if (p->domain == EF_DOMAIN_FX)
    {
      double df = p->bandwidth / ns;
      double f0 = p->fc - 0.5 * p->bandwidth;

      for (guint i = 0; i < np; i++)
        {
          pulses[i].sc0 = f0;
          pulses[i].scss = df;
          pulses[i].fx1 = f0;
          pulses[i].fx2 = f0 + (ns - 1) * df;
        }
    }
  else
    {
      T = p->chirp_duration > 0 ? p->chirp_duration : 5e-6;
      fs = p->sample_rate > 0 ? p->sample_rate : 1.25 * p->bandwidth;
      K = p->bandwidth / T;
      window = ns / fs;

      for (guint i = 0; i < np; i++)
        {
          double tau0 = 2.0 * pulses[i].r0 / EF_C;
          /* The window is centred on the SRP's echo [tau0, tau0 + T). If the targets' echoes
           * [tau_min, tau_max + T) would not then all fit but could fit in a window this long, the
           * window moves by the least amount that makes them fit; if they cannot fit at all it stays
           * centred on the SRP and the far echoes are cut. */
          double lead = 0.5 * (window - T);   /* tau0 - sc0 */

          if (p->n_targets > 0)
            {
              double gap = ef_sim_range_gap (pulses[i].tx, pulses[i].r0);
              double lo = INFINITY, hi = -INFINITY;

              for (guint t = 0; t < p->n_targets; t++)
                {
                  double rel;
                  if (p->targets[t].amp == 0)
                    continue;
                  rel = 2.0 * (ef_sim_diff_range (pulses[i].tx, pulses[i].r0, gap, p->targets[t].pos)
                               + range_err[i]) / EF_C;  /* tau - tau0 */
                  lo = MIN (lo, rel);
                  hi = MAX (hi, rel);
                }
              if (lo <= hi && hi - lo + T <= window)
                {
                  if (lead + lo < 0)
                    lead = -lo;
                  else if (lead + hi + T > window)
                    lead = window - T - hi;
                }
            }
          pulses[i].sc0 = tau0 - lead;
          pulses[i].scss = 1.0 / fs;
          pulses[i].fx1 = p->fc - 0.5 * p->bandwidth;
          pulses[i].fx2 = p->fc + 0.5 * p->bandwidth;
        }
    }

  if (p->domain == EF_DOMAIN_RAW)
    {
      chirp = ef_sim_raw_chirp_new (ns, fs, K);
      if (chirp == NULL)
        {
          g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_MEMORY,
                       "Not enough memory for the simulator's work buffers");
          return NULL;
        }
    }

#if HAVE_OPENMP
  n_threads = p->n_threads > 0 ? (int) p->n_threads : omp_get_max_threads ();
#endif

#if HAVE_OPENMP
#pragma omp parallel num_threads(n_threads)
#endif
  {
    EfCf64 *acc = g_try_new (EfCf64, ns);
    EfSimRawWork *raw = NULL;

    if (p->domain == EF_DOMAIN_RAW && acc != NULL && chirp != NULL)
      raw = ef_sim_raw_work_new (ns, fs, K, T, p->fc, chirp);
    if (acc == NULL || (p->domain == EF_DOMAIN_RAW && raw == NULL))
      {
#if HAVE_OPENMP
#pragma omp atomic write
#endif
        no_memory = TRUE;
      }

#if HAVE_OPENMP
#pragma omp for schedule(dynamic, 1)
#endif
    for (guint i = 0; i < np; i++)
      {
        const EfPulse *pu = &pulses[i];
        EfCf32 *dst = samples + (gsize) i * ns;
        EfCf64 perr = 1.0;

        if (acc == NULL || (p->domain == EF_DOMAIN_RAW && raw == NULL))
          continue;
        if (p->domain == EF_DOMAIN_FX)
          ef_sim_fx_pulse64 (pu->tx, pu->r0, pu->sc0, pu->scss, ns, range_err[i], p->targets, p->n_targets,
                             acc);
        else
          ef_sim_raw_pulse (raw, pu->tx, pu->r0, pu->sc0, range_err[i], p->targets, p->n_targets, acc);

        if (phase_err[i] != 0)
          perr = cos (phase_err[i]) + I * sin (phase_err[i]);
        if (noise_sigma > 0)
          {
            /* One stream per pulse: the noise does not depend on how pulses are shared out. */
            guint64 st = stream_init (p->seed, STREAM_NOISE, i);

            for (guint k = 0; k < ns; k++)
              {
                double a, b;
                gauss_pair (&st, &a, &b);
                dst[k] = (EfCf32) (acc[k] * perr + noise_sigma * (a + I * b));
              }
          }
        else
          {
            for (guint k = 0; k < ns; k++)
              dst[k] = (EfCf32) (acc[k] * perr);
          }
      }
    ef_sim_raw_work_free (raw);
    g_free (acc);
  }

  if (no_memory)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_MEMORY,
                   "Not enough memory for the simulator's work buffers");
      return NULL;
    }

  info.domain = p->domain;
  info.n_pulses = np;
  info.n_samples = ns;
  info.fc = p->fc;
  info.bandwidth = p->bandwidth;
  if (p->domain == EF_DOMAIN_RAW)
    {
      info.chirp_rate = K;
      info.chirp_duration = T;
      info.sample_rate = fs;
    }
  info.has_geo = TRUE;
  info.srp_llh[0] = p->lat_deg;
  info.srp_llh[1] = p->lon_deg;
  info.srp_llh[2] = p->height_m;
  wgs84_llh_to_ecf (info.srp_llh, info.srp_ecf);
  info.n_channels = 1;
  info.channel = 0;
  info.source = g_strdup ("Echoform simulator");

  ds = ef_dataset_new_memory (&info, g_steal_pointer (&pulses), g_steal_pointer (&samples));
  ef_dataset_info_clear (&info);
  if (!ef_dataset_validate (ds, error))
    return NULL;
  return g_steal_pointer (&ds);
}
