/* ef-metrics.h: image-quality measurements: impulse response, entropy, SER, PSNR, SSIM. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "ef-types.h"
#include "ef-grid.h"

G_BEGIN_DECLS

/* One cut through an impulse response, resampled on a fine grid for measurement and plotting. */
typedef struct {
  guint   n;
  double *offset_m;   /* owned: distance from the peak along the cut, m */
  double *level_db;   /* owned: magnitude relative to the peak, dB */
  double  irw_m;      /* -3 dB width */
  double  pslr_db;    /* highest sidelobe outside the main lobe, relative to the peak */
  double  islr_db;    /* sidelobe energy / main-lobe energy (main lobe between the first nulls) */
} EfCut;

typedef struct {
  double col, row;       /* sub-pixel peak, pixels */
  double position[3];    /* scene frame, m */
  double peak_db;        /* 20 log10 |peak| */
  EfCut  range;          /* along the grid's u axis, or along dir_range if given */
  EfCut  cross;          /* perpendicular */
} EfPointResult;

/* Analyses the point target nearest (col, row): finds the local peak within search_px, upsamples a
 * window around it by FFT (FFTW) and measures both cuts. dir (unit, in the grid plane, may be NULL)
 * gives the range direction; NULL uses the grid axes. Returns FALSE with error if no peak is found. */
gboolean ef_point_analyse (const EfImage *image, double col, double row, guint search_px,
                           const double *dir, EfPointResult *result, GError **error);
void     ef_point_result_clear (EfPointResult *result);

/* Shannon entropy of the normalised intensity. */
double ef_image_entropy (const EfCf32 *data, gsize n);
/* Signal-to-error ratio, dB: 10 log10(sum |ref|^2 / sum |test - ref|^2). */
double ef_ser_db_f32 (const EfCf32 *test, const EfCf32 *ref, gsize n);
double ef_ser_db_f32_f64 (const EfCf32 *test, const EfCf64 *ref, gsize n);
/* PSNR on magnitude, dB, with the peak of ref as the signal. */
double ef_psnr_db (const EfCf32 *test, const EfCf32 *ref, gsize n);
/* SSIM on dB magnitude clipped to [max - range_db, max], with 8x8 windows. */
double ef_ssim (const EfCf32 *test, const EfCf32 *ref, guint width, guint height, double range_db);
/* Pearson correlation of magnitudes. */
double ef_magnitude_correlation (const EfCf32 *a, const EfCf32 *b, gsize n);

G_END_DECLS
