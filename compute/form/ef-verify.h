/* ef-verify.h: a formed image checked against exact float64 backprojection at a sample of its pixels. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>
#include "ef-dataset.h"
#include "ef-grid.h"
#include "ef-rangecomp.h"
#include "ef-types.h"

G_BEGIN_DECLS

/* Which pixels, and which pulses the image was formed from (as EfJobParams says them). */
typedef struct {
  guint   n_pixels;      /* pixels sampled, 256 by default; all of them if the image has fewer */
  guint64 seed;          /* the same seed samples the same pixels */
  guint64 first_pulse;   /* the pulses used: first_pulse, first_pulse + stride, ... */
  guint64 n_pulses;      /* how many of the collection's pulses from first_pulse on; 0 = to the end */
  guint   pulse_stride;  /* 1 = every pulse */
  guint   block_size;    /* pulses read and compressed at a time (256 by default) */
} EfVerifyParams;

typedef struct {
  double  ser_db;        /* 10 log10 (sum |ref|^2 / sum |image - ref|^2) over the sample; +inf if equal */
  double  ref_rms;       /* root mean square of the reference over the sample */
  guint   n_pixels;      /* pixels sampled */
  guint64 n_pulses;      /* pulses backprojected into each */
  double  seconds;
} EfVerifyResult;

void ef_verify_params_init (EfVerifyParams *params);

/* Backprojects exactly, in float64 (range compression included), at params->n_pixels pixels of grid
 * drawn at random with params->seed, over the pulses params names, and compares the result with image
 * (grid->width * grid->height complex float, as a job formed it with range) by signal-to-error ratio.
 * That is how far a fast algorithm (FFBP, FBP, PFA, fp16) is from exact backprojection, for the cost
 * of n_pixels pixels. Blocks; reads the dataset; checks cancellable between pulse blocks and fails with
 * G_IO_ERROR_CANCELLED. */
gboolean ef_verify_image (EfDataset *dataset, const EfRangeParams *range, const EfGrid *grid,
                          const EfCf32 *image, const EfVerifyParams *params, GCancellable *cancellable,
                          EfVerifyResult *result, GError **error);

G_END_DECLS
