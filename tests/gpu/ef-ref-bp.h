/* ef-ref-bp.h: float64 backprojection on a device, the yardstick of the GPU benchmarks and tests. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

/* Plain C: nothing here includes a CUDA header. */
#include "ef-grid.h"
#include "ef-rangecomp.h"

G_BEGIN_DECLS

/*
 * The definition of backprojection, evaluated in double on the device, one thread per pixel and one
 * pulse at a time: for pixel x and pulse p, dR = (|tx_p - x| + |rcv_p - x|) / 2 - r0_p; the profile
 * interpolated linearly at (dR - r_start_p) / dr_p (nothing where that leaves the profile, as in
 * ef_bp_reference); times exp(+j kr_p dR) with double sincos. Exact double sqrt and sincos per
 * pixel-pulse pair: no series, tables or float residuals, so it shares nothing with the fast kernels
 * but the input. Its agreement with ef_bp_reference (the CPU float64 path) is checked by test-cuda's
 * /compute/cuda/reference case.
 */
typedef struct _EfRefBp EfRefBp;

/* A float64 accumulator for grid on the current device, zeroed, taking blocks of up to max_pulses
 * profiles of n_bins bins. Owned; NULL with error (EF_COMPUTE_ERROR) when the device cannot hold it. */
EfRefBp *ef_ref_bp_new (const EfGrid *grid, guint max_pulses, guint n_bins, GError **error);
/* Adds profiles (fp64, host memory, at most max_pulses of n_bins) into the accumulator. Blocks until
 * the device is done. */
gboolean ef_ref_bp_add (EfRefBp *ref, const EfProfiles *profiles, GError **error);
/* Copies the whole accumulator (width * height, row-major) to out. Blocks. */
gboolean ef_ref_bp_read (EfRefBp *ref, EfCf64 *out, GError **error);
void     ef_ref_bp_free (EfRefBp *ref);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (EfRefBp, ef_ref_bp_free)

/* The float64 image of a whole collection over grid: range compression on the CPU in float64
 * (ef_range_compress, params rp) in blocks of 256 pulses, each block backprojected by EfRefBp. pulses and
 * samples as a backend's process_block takes them (n_pulses of info->n_samples). Returns an owned
 * width * height image, or NULL with error. Blocks for seconds on a large case. */
EfCf64 *ef_ref_bp_form (const EfDatasetInfo *info, const EfPulse *pulses, const EfCf32 *samples, guint n_pulses,
                        const EfRangeParams *rp, const EfGrid *grid, GError **error);

/* The same from range profiles already compressed in float64 on the host (n_pulses of them), in blocks
 * of up to 256 pulses. */
EfCf64 *ef_ref_bp_form_profiles (const EfProfiles *profiles, const EfGrid *grid, GError **error);

G_END_DECLS
