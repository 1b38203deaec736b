/* ef-sim-raw.c: the simulator's RAW chirp echoes: one shared chirp times per-target tones. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-sim"
#include "config.h"

#include <math.h>
#include <string.h>

#include "ef-sim.h"
#include "ef-sim-private.h"

/*
 * RAW echoes.
 *
 * The echo of target t at sample n (time t_n = sc0 + n / fs) is amp_t exp(j 2 pi phi) while
 * 0 <= t_n - tau_t < T, with phi = K u^2 / 2 - fc tau_t cycles and u = t_n - tau_t - T / 2. All targets
 * share the chirp rate, so with m = n - nc (nc the window's middle sample) and
 * v_t = tau_t - sc0 + T / 2 - nc / fs,
 *   phi = K m^2 / (2 fs^2) + beta_t m + gamma_t,   beta_t = -K v_t / fs,   gamma_t = K v_t^2 / 2 - fc tau_t.
 * The first term is common: a pulse is the chirp Q(m) = exp(j pi K m^2 / fs^2) times a sum of pure tones,
 * one per target over its own support. The tones are summed as FX samples are (ef_sim_fx_kernel: the rotators
 * of eight targets at a time in registers, re-seeded from the exact phase every EF_SIM_RESEED samples) over
 * each block of samples that a target's echo covers whole; in the two blocks where an echo starts and
 * ends, it is added one sample at a time. The chirp multiplies the sum once at the end. This costs
 * about what FX samples cost per target and sample, where evaluating each echo's chirp by its own
 * second-order recurrence cost several times more.
 */

/* Targets prepared at a time: bounds the work space whatever the scene's size. */
#define RAW_CHUNK 1024

struct _EfSimRawWork {
  guint   n_samples;
  guint   nc;                     /* the window's middle sample */
  double  fs, K, T, fc;
  const EfCf64 *chirp;            /* borrowed: n_samples of Q(n - nc) */
  EfCf64 *tones;                  /* owned: n_samples, the sum of the tones */
  /* Per target of a chunk: tone (cycles a sample, reduced), phase at m = 0 (cycles, reduced), the
   * tone's one-sample step, the amplitude, and the samples its echo covers (first > last: none). */
  double  beta[RAW_CHUNK], gamma[RAW_CHUNK], step_re[RAW_CHUNK], step_im[RAW_CHUNK];
  EfCf64  amp[RAW_CHUNK];
  guint   first[RAW_CHUNK], last[RAW_CHUNK];
  /* The targets that cover one block whole, gathered for the kernel and padded to whole groups. */
  double  cr[RAW_CHUNK + EF_SIM_GROUP], ci[RAW_CHUNK + EF_SIM_GROUP];
  double  sr[RAW_CHUNK + EF_SIM_GROUP], si[RAW_CHUNK + EF_SIM_GROUP];
};

/* Q(n - nc) for n < ns: the chirp every echo shares. */
EfCf64 *
ef_sim_raw_chirp_new (guint ns, double fs, double K)
{
  EfCf64 *q = g_try_new (EfCf64, ns);
  double half_rate = 0.5 * K / (fs * fs);   /* cycles per sample squared */
  gint64 nc = ns / 2;

  if (q == NULL)
    return NULL;
  for (guint n = 0; n < ns; n++)
    {
      double m = (double) ((gint64) n - nc), c, s;

      /* m * m is exact below 2^26 samples. */
      ef_sim_rot_cycles (half_rate * (m * m), &c, &s);
      q[n] = c + I * s;
    }
  return q;
}

EfSimRawWork *
ef_sim_raw_work_new (guint ns, double fs, double K, double T, double fc, const EfCf64 *chirp)
{
  EfSimRawWork *w = g_try_new (EfSimRawWork, 1);

  if (w == NULL)
    return NULL;
  w->tones = g_try_new (EfCf64, ns);
  if (w->tones == NULL)
    {
      g_free (w);
      return NULL;
    }
  w->n_samples = ns;
  w->nc = ns / 2;
  w->fs = fs;
  w->K = K;
  w->T = T;
  w->fc = fc;
  w->chirp = chirp;
  return w;
}

void
ef_sim_raw_work_free (EfSimRawWork *w)
{
  if (w == NULL)
    return;
  g_free (w->tones);
  g_free (w);
}

/* -2 fc r0 / c in cycles, reduced to (-1/2, 1/2], to a rounding of the result rather than of the
 * hundreds of thousands (airborne) to tens of millions (spaceborne) of whole cycles: fc r0 is kept as
 * an unevaluated sum, and its quotient by c split into a whole part and a remainder. */
static double
carrier_cycles (double fc, double r0)
{
  double p = fc * r0, e = fma (fc, r0, -p);
  double q = p / EF_C;
  double rem = (fma (-q, EF_C, p) + e) / EF_C;   /* (fc r0) / c = q + rem */
  double whole = 2.0 * q;                        /* exact */
  double base = -(whole - nearbyint (whole)) - 2.0 * rem;

  return base - nearbyint (base);
}

/* 2 r0 / c - sc0, to a rounding of the difference rather than of the delays (milliseconds from
 * orbit), which the chirp's phase K u (tau - sc0) would otherwise feel: the quotient's remainder is
 * kept, and q - sc0 is exact when the two are within a factor of two. */
static double
raw_lead (double r0, double sc0)
{
  double q = 2.0 * r0 / EF_C;
  double rem = fma (-q, EF_C, 2.0 * r0) / EF_C;

  return (q - sc0) + rem;
}

/* Adds targets [0, n) of the work space's chunk over block [k0, k0 + kn). */
static void
raw_block (EfSimRawWork *w, guint n, guint k0, guint kn)
{
  EfV4d acc_re[EF_SIM_RESEED], acc_im[EF_SIM_RESEED];
  guint k1 = k0 + kn - 1;
  double m0 = (double) k0 - (double) w->nc;
  guint nb = 0, nv;

  for (guint j = 0; j < n; j++)
    {
      guint lo = w->first[j], hi = w->last[j];
      double c, s;
      EfCf64 z;

      if (lo > k1 || hi < k0 || lo > hi)
        continue;
      if (lo <= k0 && hi >= k1)
        {
          /* Whole: into the kernel, seeded from the exact phase at k0. */
          ef_sim_rot_cycles (w->beta[j] * m0 + w->gamma[j], &c, &s);
          z = w->amp[j] * (c + I * s);
          w->cr[nb] = creal (z);
          w->ci[nb] = cimag (z);
          w->sr[nb] = w->step_re[j];
          w->si[nb] = w->step_im[j];
          nb++;
          continue;
        }
      /* The echo starts or ends in this block: its samples here one at a time. */
      {
        guint a = MAX (lo, k0), b = MIN (hi, k1);
        EfCf64 st = w->step_re[j] + I * w->step_im[j];

        ef_sim_rot_cycles (w->beta[j] * ((double) a - (double) w->nc) + w->gamma[j], &c, &s);
        z = w->amp[j] * (c + I * s);
        for (guint k = a; k <= b; k++)
          {
            w->tones[k] += z;
            z *= st;
          }
      }
    }
  if (nb == 0)
    return;
  nv = (nb + EF_SIM_GROUP - 1) / EF_SIM_GROUP * EF_SIM_GROUP;
  for (guint j = nb; j < nv; j++)
    {
      w->cr[j] = w->ci[j] = w->si[j] = 0;
      w->sr[j] = 1;
    }
  memset (acc_re, 0, sizeof (EfV4d) * kn);
  memset (acc_im, 0, sizeof (EfV4d) * kn);
  ef_sim_fx_kernel (w->cr, w->ci, w->sr, w->si, nv, kn, acc_re, acc_im);
  for (guint k = 0; k < kn; k++)
    w->tones[k0 + k] += ((acc_re[k][0] + acc_re[k][1]) + (acc_re[k][2] + acc_re[k][3]))
                        + I * ((acc_im[k][0] + acc_im[k][1]) + (acc_im[k][2] + acc_im[k][3]));
}

void
ef_sim_raw_pulse (EfSimRawWork *w, const double a[3], double r0, double sc0, double range_offset,
                  const EfSimTarget *targets, guint n_targets, EfCf64 *out)
{
  guint ns = w->n_samples;
  /* 2 r0 / c - sc0, so that tau - sc0 is formed without cancelling two large delays. */
  double lead = raw_lead (r0, sc0);
  double fs = w->fs, K = w->K, T = w->T, fc = w->fc;
  double gap = ef_sim_range_gap (a, r0);
  /* -fc * 2 r0 / c cycles, once per pulse; the target's own part is added below. */
  double base = carrier_cycles (fc, r0);

  memset (w->tones, 0, sizeof (EfCf64) * ns);

  for (guint t0 = 0; t0 < n_targets; t0 += RAW_CHUNK)
    {
      guint n = 0, lo_all = G_MAXUINT, hi_all = 0;

      for (guint t = t0; t < n_targets && t < t0 + RAW_CHUNK; t++)
        {
          double dR, rel, carrier, v, beta, gamma, n_lo, n_hi;

          if (targets[t].amp == 0)
            continue;
          dR = ef_sim_diff_range (a, r0, gap, targets[t].pos) + range_offset;
          /* tau - sc0 */
          rel = lead + 2.0 * dR / EF_C;
          /* The echo occupies 0 <= t_n - tau < T. */
          n_lo = ceil (rel * fs);
          n_hi = ceil ((rel + T) * fs) - 1.0;
          if (n_hi < 0 || n_lo > (double) ns - 1 || n_hi < n_lo)
            continue;
          carrier = base - 2.0 * fc * dR / EF_C;
          v = rel + 0.5 * T - (double) w->nc / fs;
          /* A whole number of cycles a sample does not turn an integer-indexed tone. */
          beta = -K * v / fs;
          beta -= nearbyint (beta);
          gamma = 0.5 * K * v * v;
          gamma -= nearbyint (gamma);
          gamma += carrier;
          w->beta[n] = beta;
          w->gamma[n] = gamma - nearbyint (gamma);
          ef_sim_rot_cycles (beta, &w->step_re[n], &w->step_im[n]);
          w->amp[n] = targets[t].amp;
          w->first[n] = n_lo < 0 ? 0 : (guint) n_lo;
          w->last[n] = n_hi > ns - 1.0 ? ns - 1 : (guint) n_hi;
          lo_all = MIN (lo_all, w->first[n]);
          hi_all = MAX (hi_all, w->last[n]);
          n++;
        }
      if (n == 0)
        continue;
      for (guint k0 = lo_all / EF_SIM_RESEED * EF_SIM_RESEED; k0 <= hi_all; k0 += EF_SIM_RESEED)
        raw_block (w, n, k0, MIN (EF_SIM_RESEED, ns - k0));
    }
  for (guint k = 0; k < ns; k++)
    out[k] = w->chirp[k] * w->tones[k];
}

gboolean
ef_sim_raw_pulse64 (const double a[3], double r0, double sc0, double fc, double fs, double K, double T,
                    guint n_samples, double range_offset, const EfSimTarget *targets, guint n_targets,
                    EfCf64 *out)
{
  g_autofree EfCf64 *chirp = NULL;
  EfSimRawWork *w;

  g_return_val_if_fail (a != NULL && out != NULL, FALSE);
  g_return_val_if_fail (targets != NULL || n_targets == 0, FALSE);
  g_return_val_if_fail (fs > 0 && T > 0 && n_samples > 0, FALSE);

  chirp = ef_sim_raw_chirp_new (n_samples, fs, K);
  w = chirp != NULL ? ef_sim_raw_work_new (n_samples, fs, K, T, fc, chirp) : NULL;
  if (w == NULL)
    return FALSE;
  ef_sim_raw_pulse (w, a, r0, sc0, range_offset, targets, n_targets, out);
  ef_sim_raw_work_free (w);
  return TRUE;
}
