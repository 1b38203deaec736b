/* ef-mf.h: the exact matched filter of FX phase history (k-space direct sum), on the CPU. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "ef-types.h"
#include "ef-dataset.h"
#include "ef-grid.h"
#include "ef-rangecomp.h"

G_BEGIN_DECLS

/*
 * I(x) = sum_p w_p sum_k v_k d(p,k) exp(+j 4 pi f_k dR_p(x) / c), with f_k = sc0_p + k scss_p,
 * dR_p(x) = (|tx_p - x| + |rcv_p - x|) / 2 - r0_p, v_k the range window over the K samples divided by K,
 * and w_p the pulse's cross-range weight (ef_az_weight_at). This is the sum that backprojection
 * approximates by interpolating a range profile made with the same window and weights, so the two images
 * agree but for BP's interpolation error (ef-rangecomp.c gives the profile's convention). There is no
 * range interpolation: the matched filter is the yardstick of BP's, at K times its cost.
 * Only FX data can be summed so: TOA and RAW datasets are refused (EF_COMPUTE_ERROR_INVALID_ARGUMENT).
 */

/* One pulse as the matched filter sees it. */
typedef struct {
  double tx[3], rcv[3];
  double r0;
  double f0;  /* Hz, sample 0 */
  double df;  /* Hz per sample */
} EfMfPulse;

/* A block of pulses, weighted and ready to sum, in split planes: pulse p's sample k at re[p * n_samples
 * + k], im[...]. Exactly one precision's planes are set. */
typedef struct {
  guint      n_pulses;
  guint      n_samples;
  guint      capacity;    /* pulses allocated */
  EfMfPulse *meta;        /* owned, capacity */
  float     *re32, *im32; /* owned, capacity * n_samples, or NULL */
  double    *re64, *im64; /* owned, capacity * n_samples, or NULL */
  double    *window;      /* owned, n_samples: the range window / K */
  EfAzWeight az;          /* the cross-range weighting */
} EfMfBlock;

/* TRUE when info can be summed by the matched filter; otherwise FALSE with a clear error. */
gboolean   ef_mf_check_info (const EfDatasetInfo *info, GError **error);
/* The range window of range over n samples, divided by n: what each sample is scaled by before the sum,
 * as range compression scales the bins before its inverse FFT. w is caller-owned, n values. */
void       ef_mf_window_fill (const EfRangeParams *range, guint n, double *w);
/* The pulse's record. */
void       ef_mf_pulse_fill (const EfPulse *pu, EfMfPulse *out);

/* A block of capacity pulses of info's shape, weighted by range (window, cross-range window and
 * aperture). Fails for data other than FX and for sizes that do not fit. Owned; free with
 * ef_mf_block_free. */
EfMfBlock *ef_mf_block_new (const EfDatasetInfo *info, const EfRangeParams *range, guint capacity, gboolean fp64,
                            GError **error);
void       ef_mf_block_free (EfMfBlock *block);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (EfMfBlock, ef_mf_block_free)
/* Weights count pulses (samples: count * n_samples) into the block. Non-finite samples become zero and
 * are counted in *n_bad (may be NULL). Fails when count exceeds the capacity. */
gboolean   ef_mf_block_fill (EfMfBlock *block, const EfPulse *pulses, const EfCf32 *samples, guint count,
                             guint64 *n_bad, GError **error);

/* Adds the matched filter of the block's pulses over rect of grid into acc (rect->width * rect->height,
 * row-major). The geometry of every pixel and pulse is in double; the _f32 form rotates and sums each
 * pulse in float (the block must be fp32), the _f64 form in double (fp64 block). Rows are spread over
 * n_threads threads (0 = all). Blocks. */
void       ef_mf_form_f32 (const EfGrid *grid, const EfMfBlock *block, const EfRect *rect, EfCf32 *acc,
                           guint n_threads);
void       ef_mf_form_f64 (const EfGrid *grid, const EfMfBlock *block, const EfRect *rect, EfCf64 *acc,
                           guint n_threads);

G_END_DECLS
