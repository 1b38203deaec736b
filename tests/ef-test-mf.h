/* ef-test-mf.h: random FX collections and the float64 direct sum of the matched filter, for its tests. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "ef-dataset.h"
#include "ef-grid.h"
#include "ef-rangecomp.h"

/* A small random collection: pulses from antennas about 8 km away (the receiver a few hundred metres
 * from the transmitter when bistatic), frequencies near X band with a random spacing and a little
 * jitter per pulse, random samples; a width x height grid 0.4 m apart about the origin; a Taylor range
 * window and a Hann cross-range window over the pulses. */
typedef struct {
  EfDatasetInfo info;
  EfPulse      *pulses;   /* owned */
  EfCf32       *samples;  /* owned */
  EfGrid        grid;
  EfRangeParams range;
} EfTestMfScene;

void    ef_test_mf_scene_init (EfTestMfScene *s, guint n_pulses, guint n_samples, guint width, guint height,
                               gboolean bistatic);
void    ef_test_mf_scene_clear (EfTestMfScene *s);
/* The definition (ef-mf.h) over rect, in double, one term at a time: an independent reading of the sum.
 * Owned, rect->width * rect->height. */
EfCf64 *ef_test_mf_direct_sum (const EfTestMfScene *s, const EfRect *rect);
