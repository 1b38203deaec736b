/* ef-teach-raster.h: a classroom image as pixels: magnitude in dB below its peak through a colour map. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

#include "ef-colormap.h"
#include "ef-types.h"

G_BEGIN_DECLS

/* Writes n = width x height pixels of image as opaque 32-bit native-endian 0xAARRGGBB words (cairo's
 * ARGB32), rows stride bytes apart: 20 log10 |z| relative to ref_peak (the image's own peak when
 * ref_peak <= 0), range_db below it black, through map. Returns the peak magnitude found. Any thread. */
double ef_teach_raster (const EfCf32 *image, guint width, guint height, double ref_peak, double range_db,
                        EfColormap map, guint8 *argb, gsize stride);

G_END_DECLS
