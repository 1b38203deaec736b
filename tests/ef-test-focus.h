/* ef-test-focus.h: the autofocus tests' point-target scenes, injected phase errors and focus measures. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "ef-dataset.h"
#include "ef-focus-private.h"
#include "ef-grid.h"
#include "ef-metrics.h"
#include "ef-types.h"

/* What a corrected image must match in the error-free one, target by target, in both directions. */
#define EF_TEST_FOCUS_PSLR_TOL_DB 0.5
#define EF_TEST_FOCUS_IRW_TOL_REL 0.02
/* In clutter a target's sidelobes are read through the clutter about it, and the 0.04-0.06 rad that the
 * clutter leaves in every estimate (both methods) moves them: the worst target's PSLR came within
 * 0.04-0.60 dB of the error-free image's over 55 runs (test-autofocus's four clutter cases with bounds of
 * their own aside, fresh draws each, and the device's), 0.5 dB failing about one run in twenty. Twice the
 * worst. */
#define EF_TEST_FOCUS_CLUTTER_PSLR_TOL_DB 1.2
/* The residual phase error: ef_focus_phase_residual (modulo 2 pi a pulse, constant and linear terms
 * removed). */
#define EF_TEST_FOCUS_RESIDUAL_TOL_RAD 0.1
/* An estimate formed in fp32 against the same formed in fp64 on the CPU (RMS about its line, rad):
 * 0.8e-6 to 4.7e-6 measured over 36 scenes (PGA and sharpness, clutter or not; the same iterations at
 * both precisions), so twice the worst. The CPU's fp32 images there are 99.5 dB from float64. */
#define EF_TEST_FOCUS_FP32_FP64_RAD 1e-5

typedef enum {
  EF_TEST_ERR_QUADRATIC,
  EF_TEST_ERR_SINUSOID,
  EF_TEST_ERR_RANDOM_WALK,
} EfTestErrKind;

/* "quadratic", "sinusoid", "random-walk". */
const char *ef_test_err_name (EfTestErrKind kind);

/* Five point targets about the scene centre (the ones ef_test_focus_compare measures), bright enough
 * over one another that each range line holds one; with clutter, 600 weak scatterers spread over
 * +-8 m, each 28 dB below the brightest target, together as bright as it. 256 pulses of 128 samples,
 * airborne or spaceborne; random phases from g_test_rand. Owned. */
EfDataset *ef_test_focus_scene (gboolean spaceborne, gboolean clutter);

/* Pulse p of n's error, rid of its least-squares line over the pulse index and scaled to rms_rad RMS:
 * a quadratic, 2.5 cycles of a sinusoid, or a random walk of uniform steps. Owned. */
double    *ef_test_focus_error (EfTestErrKind kind, guint n, double rms_rad);

/* A copy of ds in memory with pulse p multiplied by exp(+j err[p]). Owned. */
EfDataset *ef_test_focus_with_error (EfDataset *ds, const double *err);

/* The RMS of a - b about its least-squares line over the pulse index. */
double     ef_test_focus_residual (const double *a, const double *b, guint n);

/* The region's image formed by a job through backend kind (EF_BACKEND_CPU, ...) by algo, rectangular
 * windows. Owned. */
EfImage   *ef_test_focus_form (EfDataset *ds, const EfGrid *grid, EfAlgo algo, EfBackendKind kind);
/* PGA's grid (16 m asked) over the scene with a 2 rad random walk: *ds receives the dataset (owned), c
 * the estimator's context on backend kind (clear it with ef_focus_ctx_clear before ds goes), and the
 * return the grid's image formed through it (g_free). NULL, with a failed assertion, when it cannot. */
EfCf32    *ef_test_focus_pga_image (gboolean spaceborne, EfBackendKind kind, EfDataset **ds, EfFocusCtx *c);

/* The worst differences over the scene's five targets, in both directions, of focused from ref: PSLR
 * (dB, absolute) and IRW (relative); each target's measures as test messages. */
void       ef_test_focus_compare (const EfImage *ref, const EfImage *focused, double *worst_pslr_db,
                                  double *worst_irw_rel);
