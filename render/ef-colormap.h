/* ef-colormap.h: the display colour maps, as small lookup tables shared by the shader and the exports. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>
#include "ef-types.h"

G_BEGIN_DECLS

typedef enum {
  EF_COLORMAP_GREY,
  EF_COLORMAP_PERCEPTUAL,  /* viridis-like: monotonic lightness, readable by colour-blind users */
  EF_COLORMAP_CYCLIC,      /* the same colour at both ends, for phase */
  EF_COLORMAP_N
} EfColormap;

/* What the display shows of each complex pixel. */
typedef enum {
  EF_VIEW_MAGNITUDE,
  EF_VIEW_PHASE,
  EF_VIEW_REAL,
  EF_VIEW_IMAGINARY,
  EF_VIEW_N
} EfViewMode;

#define EF_COLORMAP_LUT_SIZE 256

/* Fills rgba[EF_COLORMAP_LUT_SIZE * 4] with the map, opaque. */
void ef_colormap_fill (EfColormap map, guint8 *rgba);
/* One colour of the map at t in [0, 1] (clamped), as the shader shows it. */
void ef_colormap_lookup (EfColormap map, double t, guint8 rgb[3]);

const char *ef_colormap_to_string (EfColormap map);
gboolean    ef_colormap_from_string (const char *s, EfColormap *out);
const char *ef_view_mode_to_string (EfViewMode mode);
gboolean    ef_view_mode_from_string (const char *s, EfViewMode *out);

/* How a value turns into a colour; the same numbers drive the shader and the CPU exports. */
typedef struct {
  EfViewMode mode;
  EfColormap colormap;
  double     db_min, db_max;  /* magnitude: the dB window; real/imaginary: +-10^(db_max/20) */
  double     gamma;           /* applied to the normalised value as t^(1/gamma) */
} EfDisplayParams;

void ef_display_params_init (EfDisplayParams *params);

/* Display values: one float a pixel holding the quantity that mode shows (magnitude in dB, phase as a
 * fraction of a turn in [0, 1], real or imaginary part), computed once when a pixel changes so that
 * drawing only maps it. Converts n complex pixels; any thread. */
void ef_display_values_convert (EfViewMode mode, const EfCf32 *in, float *out, gsize n);
/* What a zero pixel converts to: the value of parts of an image that nothing has reached yet. */
float ef_display_values_zero (EfViewMode mode);
/* The affine step from a display value to the map position: t = clamp (value * scale + offset, 0, 1),
 * for params' mode with the layer's gain_db; the gamma is in the table (below). */
void ef_display_values_map (const EfDisplayParams *params, double gain_db, double *scale, double *offset);

/* The display table: n colours (RGBA, opaque) of map at t = i / (n - 1) with the gamma applied (t^(1/gamma),
 * as for magnitude; pass 1 otherwise). Drawing a value looks up t * (n - 1). */
void ef_display_table_fill (EfColormap map, double gamma, guint8 *rgba, guint n);

G_END_DECLS
