/* ef-sim-private.h: what the simulator's FX and RAW paths share: exact phases, ranges, the rotator kernel. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <math.h>

#include "ef-sim.h"

G_BEGIN_DECLS

/* Rotators are advanced by multiplication for at most this many samples before being recomputed
 * from the exact phase, which keeps the accumulated rounding near 64 ulp whatever the pulse length. */
#define EF_SIM_RESEED 64

/* exp(j*2*pi*cycles), with the argument reduced in cycles first so that a phase of thousands of
 * turns loses no more precision than its own representation. */
static inline void
ef_sim_rot_cycles (double cycles, double *re, double *im)
{
  double frac = cycles - nearbyint (cycles);

  sincos (2 * G_PI * frac, im, re);
}

/* |a|^2 as an unevaluated sum hi + lo (Ogita-Rump-Oishi dot product with fma), so that the small
 * difference between the exact |a| and its rounded double r0 can be recovered. */
static inline void
ef_sim_norm2_dd (const double a[3], double *hi, double *lo)
{
  double s = 0, c = 0;

  for (int i = 0; i < 3; i++)
    {
      double p = a[i] * a[i];
      double pe = fma (a[i], a[i], -p);
      double t = s + p;
      double z = t - s;
      double se = (s - (t - z)) + (p - z);
      s = t;
      c += se + pe;
    }
  *hi = s;
  *lo = c;
}

/* The differential range |a - x| - r0 for a target at x, accurate to a few ulp of the difference
 * itself rather than of the 10-700 km absolute range: |a - x| - |a| = (|x|^2 - 2 a.x) / (|a - x| + |a|),
 * plus the (tiny) gap between |a| and the double r0 the dataset records. */
static inline double
ef_sim_diff_range (const double a[3], double r0, double r0_gap, const double x[3])
{
  double d0 = a[0] - x[0], d1 = a[1] - x[1], d2 = a[2] - x[2];
  double r = sqrt (d0 * d0 + d1 * d1 + d2 * d2);
  double num = x[0] * (x[0] - 2 * a[0]) + x[1] * (x[1] - 2 * a[1]) + x[2] * (x[2] - 2 * a[2]);

  return num / (r + r0) + r0_gap;
}

/* |a| - r0 where r0 = fl(|a|). */
static inline double
ef_sim_range_gap (const double a[3], double r0)
{
  double hi, lo;

  ef_sim_norm2_dd (a, &hi, &lo);
  return (fma (-r0, r0, hi) + lo) / (2.0 * r0);
}

/* Four doubles, in the compiler's generic vector extension: one AVX register, or two SSE2 ones. */
typedef double EfV4d __attribute__ ((vector_size (32)));

#define EF_SIM_GROUP 8   /* targets advanced together: two EfV4d each for the real and imaginary parts */

/* Advances EF_SIM_GROUP-target groups of rotators through kn samples and adds their sums, lane by lane,
 * into acc_re/acc_im[kn]. cr/ci are the rotators at the first sample (amplitude included), sr/si
 * their one-sample steps; nb is a multiple of EF_SIM_GROUP (padding has zero amplitude). (ef-sim.c) */
void ef_sim_fx_kernel (const double *cr, const double *ci, const double *sr, const double *si, guint nb, guint kn,
                       EfV4d *acc_re, EfV4d *acc_im);

/* The RAW path's work space, one per thread (ef-sim-raw.c). */
typedef struct _EfSimRawWork EfSimRawWork;

/* The chirp every echo shares, exp(j pi K (n - ns/2)^2 / fs^2) for n < ns: owned (g_free), NULL when
 * it cannot be allocated. */
EfCf64       *ef_sim_raw_chirp_new (guint ns, double fs, double K);
/* A work space for pulses of ns samples; chirp is borrowed and must outlive it. NULL when it cannot be
 * allocated. */
EfSimRawWork *ef_sim_raw_work_new (guint ns, double fs, double K, double T, double fc, const EfCf64 *chirp);
void          ef_sim_raw_work_free (EfSimRawWork *w);
/* One RAW pulse into out[ns], as ef_sim_raw_pulse64 documents it. */
void          ef_sim_raw_pulse (EfSimRawWork *w, const double a[3], double r0, double sc0, double range_offset,
                                const EfSimTarget *targets, guint n_targets, EfCf64 *out);

G_END_DECLS
