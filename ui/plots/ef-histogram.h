/* ef-histogram.h: the image's magnitudes in dB as a histogram, with the display's black and white levels. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>
#include "ef-types.h"

G_BEGIN_DECLS

#define EF_TYPE_HISTOGRAM (ef_histogram_get_type ())
G_DECLARE_FINAL_TYPE (EfHistogram, ef_histogram, EF, HISTOGRAM, GtkWidget)

/* Counts of an image's magnitudes, dB plus gain_db, in n_bins equal bins over [lo_db, hi_db]; a value
 * on hi_db goes in the last bin, values outside and zero pixels in none. Any thread. */
void ef_histogram_count (const EfCf32 *pixels, gsize n, double gain_db, double lo_db, double hi_db,
                         guint64 *counts, guint n_bins);
/* The span worth showing for an image: from its largest magnitude (dB plus gain_db, rounded up) down
 * by span_db, or to its smallest if that is higher. FALSE when no pixel is finite and nonzero. Any thread. */
gboolean ef_histogram_range (const EfCf32 *pixels, gsize n, double gain_db, double span_db, double *lo_db,
                             double *hi_db);

GtkWidget *ef_histogram_new (void);
/* Shows counts (copied) of n_bins bins over [lo_db, hi_db]; NULL shows nothing. */
void ef_histogram_set_counts (EfHistogram *self, const guint64 *counts, guint n_bins, double lo_db, double hi_db);
/* The counts shown, borrowed, or NULL; their bins and span. */
const guint64 *ef_histogram_get_counts (EfHistogram *self, guint *n_bins, double *lo_db, double *hi_db);
/* The display's levels, drawn as lines over the bars. */
void ef_histogram_set_levels (EfHistogram *self, double black_db, double white_db);

G_END_DECLS
