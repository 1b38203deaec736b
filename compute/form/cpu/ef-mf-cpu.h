/* ef-mf-cpu.h: the matched filter's inner loops: one pulse's frequency samples summed into a run of pixels. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Pixels a loop advances together; the caller's runs may be any length. */
#define EF_MF_LANES 32
/* Steps of the rotator between two exact phases. */
#define EF_MF_ANCHOR 64

/* For each pixel i < n_px, adds sum_k (d_re[k] + j d_im[k]) * exp(+j 2 pi (c0[i] + k cs[i])) into
 * acc_re[i], acc_im[i] (n_samples samples k). c0 and cs are the phase of sample 0 and the step per
 * sample, in cycles, in double. The phase is advanced by a rotator and set again from c0 + k cs every
 * EF_MF_ANCHOR samples, so no rounding builds up over a long pulse. The _f32 loop rotates and sums a pulse
 * in float and adds the pulse's sum into float accumulators; the _f64 loop does all of it in double. */
void ef_mf_cpu_pulse_f32 (const float *d_re, const float *d_im, guint n_samples, const double *c0,
                          const double *cs, guint n_px, float *acc_re, float *acc_im);
void ef_mf_cpu_pulse_f64 (const double *d_re, const double *d_im, guint n_samples, const double *c0,
                          const double *cs, guint n_px, double *acc_re, double *acc_im);

G_END_DECLS
