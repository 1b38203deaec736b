/* ef-cuda-test-scene.h: random profile sets and comparisons shared by the CUDA tests and benchmarks. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "ef-bp.h"
#include "ef-dataset.h"
#include "ef-grid.h"
#include "ef-rangecomp.h"

/* A pulse set over a circular aperture at standoff metres and grazing_deg, aimed at the scene origin,
 * with white complex Gaussian profiles (the hardest input for interpolation and the least forgiving of
 * phase error). n_bins profile bins of dr metres centred on r0; kr for fc. bistatic: the receiver
 * trails the transmitter by a few degrees. Returns the fp64 set; *out32 (may be NULL) gets an fp32
 * copy. Seeded from g_test_rand_int when under g_test, else from seed. */
EfProfiles *ef_cuda_test_profiles (guint n_pulses, guint n_bins, double dr, double standoff, double grazing_deg,
                                   double aperture_deg, double fc, gboolean bistatic, guint32 seed,
                                   EfProfiles **out32);

/* The benchmarks' collection: n_pulses monostatic FX pulses of n_samples over a circular arc at standoff
 * metres (30 degrees grazing, 45 beyond 100 km), wide enough that cross-range resolution matches range
 * resolution, aimed at the origin, band bw about fc. Fills info's domain, sizes, fc, band and channels;
 * returns the pulses, owned. */
EfPulse *ef_cuda_test_arc (EfDatasetInfo *info, guint n_pulses, guint n_samples, double fc, double bw,
                           double standoff);

/* 10 log10(sum |ref|^2 / sum |test - ref|^2); a NaN in test gives -inf, which fails any bound. */
double ef_cuda_test_ser_db (const EfCf32 *test, const EfCf64 *ref, gsize n);
/* PSNR on magnitude against the reference's peak magnitude, dB. */
double ef_cuda_test_psnr_db (const EfCf32 *test, const EfCf64 *ref, gsize n);
/* Number of non-finite values. */
gsize ef_cuda_test_count_nonfinite (const EfCf32 *x, gsize n);
/* Fills x with quiet NaNs. */
void ef_cuda_test_poison (EfCf32 *x, gsize n);
