/* ef-types.h: forward declarations and small value types shared by the whole engine. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>
#include <complex.h>

G_BEGIN_DECLS

/* Speed of light in vacuum, m/s. */
#define EF_C 299792458.0

typedef float _Complex EfCf32;
typedef double _Complex EfCf64;

typedef struct _EfDataset EfDataset;
typedef struct _EfDatasetInfo EfDatasetInfo;
typedef struct _EfPulse EfPulse;
typedef struct _EfGrid EfGrid;
typedef struct _EfImage EfImage;
typedef struct _EfProfiles EfProfiles;
typedef struct _EfRangeCompressor EfRangeCompressor;
typedef struct _EfBackend EfBackend;
typedef struct _EfJob EfJob;

typedef enum {
  EF_DOMAIN_FX,   /* dechirped frequency samples: sc0 = first frequency (Hz), scss = spacing (Hz) */
  EF_DOMAIN_TOA,  /* range-compressed: sc0 = first two-way delay relative to r0 (s), scss (s) */
  EF_DOMAIN_RAW,  /* chirp echoes: sc0 = absolute two-way fast time of sample 0 (s), scss = 1/fs */
} EfDomain;

typedef enum {
  EF_PRECISION_FP64,
  EF_PRECISION_FP32,
  EF_PRECISION_FP16,
} EfPrecision;

typedef enum {
  EF_ALGO_BP,
  EF_ALGO_FFBP,
  EF_ALGO_FBP,
  EF_ALGO_PFA,
  EF_ALGO_MF,   /* the exact matched filter of FX data (k-space direct sum) */
} EfAlgo;

typedef enum {
  EF_BACKEND_AUTO,
  EF_BACKEND_CPU,
  EF_BACKEND_CUDA,
} EfBackendKind;

typedef enum {
  EF_WINDOW_RECT,
  EF_WINDOW_HANN,
  EF_WINDOW_HAMMING,
  EF_WINDOW_TAYLOR,
} EfWindow;

/* The order in which a job takes its pulse blocks. */
typedef enum {
  EF_ORDER_SEQUENTIAL,   /* the aperture grows: focus builds up */
  EF_ORDER_INTERLEAVED,  /* bit-reversed blocks: full resolution at once, clutter fades */
} EfOrder;

/* A rectangle of pixels: columns [x, x+width), rows [y, y+height). */
typedef struct {
  guint x, y, width, height;
} EfRect;

const char *ef_domain_to_string (EfDomain domain);
const char *ef_precision_to_string (EfPrecision precision);
gboolean    ef_precision_from_string (const char *s, EfPrecision *out);
const char *ef_algo_to_string (EfAlgo algo);
gboolean    ef_algo_from_string (const char *s, EfAlgo *out);
const char *ef_backend_kind_to_string (EfBackendKind kind);
gboolean    ef_backend_kind_from_string (const char *s, EfBackendKind *out);
const char *ef_window_to_string (EfWindow window);
gboolean    ef_window_from_string (const char *s, EfWindow *out);
const char *ef_order_to_string (EfOrder order);
gboolean    ef_order_from_string (const char *s, EfOrder *out);

/* CPU seconds of the whole process so far, every thread: the debug timers print it beside wall time,
 * which says little on a shared machine. */
double      ef_process_cpu_seconds (void);
/* The threads a parallel loop runs on when asked for `asked`: asked itself, or with 0 as many as
 * OpenMP offers (1 without OpenMP). */
guint       ef_thread_count (guint asked);

G_END_DECLS
