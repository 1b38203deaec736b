/* ef-test-scene.h: simulated scenes and image formation shared by the engine tests. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "ef-bp.h"
#include "ef-dataset.h"
#include "ef-grid.h"
#include "ef-pfa.h"
#include "ef-rangecomp.h"
#include "ef-sim.h"

/* Range-compresses every pulse of dataset at the given precision. */
EfProfiles *ef_test_compress (EfDataset *ds, const EfRangeParams *rp, gboolean fp64);
/* Forms the fp64 reference image of the whole grid. Owned, width * height. */
EfCf64 *ef_test_form_fp64 (EfDataset *ds, const EfGrid *grid, const EfRangeParams *rp);
/* The CPU PFA of a whole profile set, added in blocks of `block` pulses and formed once at the end, in the
 * profiles' precision: a new EfCf64 array for fp64 profiles, EfCf32 for fp32. rep may be NULL. */
gpointer ef_test_form_pfa (const EfProfiles *all, const EfGrid *grid, double bandwidth, const EfPfaParams *pp,
                           guint block, EfPfaReport *rep);
/* Forms the fp32 image through the fast path. Owned. */
EfCf32 *ef_test_form_fp32 (EfDataset *ds, const EfGrid *grid, const EfRangeParams *rp);
/* Fills tg[n] with point targets at xy[i] (metres, on the ground plane) of unit amplitude and random
 * phase. */
void ef_test_place_targets (EfSimTarget *tg, const double (*xy)[2], guint n);
/* n random point targets in [x0,x1]x[y0,y1] with random complex amplitudes. Owned. */
EfSimTarget *ef_test_random_targets (guint n, double x0, double y0, double x1, double y1);
/* Signal-to-error ratio of t against the reference r, both float64, dB. */
double ef_test_ser_db64 (const EfCf64 *t, const EfCf64 *r, gsize n);
/* Theoretical ISLR (dB) of a rectangular-window sinc cut integrated out to +-extent -3 dB widths, with
 * the main lobe between the first nulls. */
double ef_test_sinc_islr_db (double extent_irw);
/* The peak sidelobe ratio (dB) of the discrete-time Fourier transform of the real, symmetric weights
 * w[n] (a window's theory), from a float64 FFT zero-padded 64 times. */
double ef_test_pslr_db (const double *w, guint n);
/* The aperture weights of n pulses evenly spread in look angle, as ef_az_weight_at gives them (Taylor:
 * -35 dB, nbar 4). */
void ef_test_az_weights (EfWindow window, guint n, double *w);
