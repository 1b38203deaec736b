/* ef-run-info.h: the record of what an image formation actually ran, which every output states. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "ef-types.h"

G_BEGIN_DECLS

/*
 * A request is not always what runs: fp16 needs CUDA, the CUDA polar format former grids in fp32, FFBP
 * and FBP give a block to exact backprojection when their cost model says so, an automatic backend
 * resolves to one device or another. A backend fills this record as it decides and as it forms; the job
 * copies it for its callers; the .npy sidecar, `echoform-cli form --json`, its messages on stderr and the
 * application's window all state it (ef_run_info_add_json in io/ef-run-info-json.h writes the JSON
 * form). Nothing here is an error: a run whose record differs from its request still made an image.
 *
 * Plain C with GLib only: the CUDA backend fills it too.
 */

typedef struct {
  /* What was asked. */
  EfBackendKind backend_requested;
  EfAlgo        algo_requested;
  EfPrecision   precision_requested;
  /* What ran. backend is "cpu" or "cuda" (owned; NULL until a backend exists). */
  char         *backend;
  guint         n_devices;          /* CUDA devices the pulses were spread over; 0 on the CPU */
  EfAlgo        algo;               /* for a mix of FFBP (FBP) and exact blocks, FFBP (FBP) */
  EfPrecision   precision;
  /* Why each differs from the request (owned; NULL when it ran as asked). An automatic backend has a
   * reason whenever it did not resolve to CUDA. */
  char         *backend_reason;
  char         *algo_reason;
  char         *precision_reason;
  /* FFBP and FBP: blocks formed by the factorised tree, and blocks formed by exact backprojection
   * because the plan found it cheaper or the only way (bp_why: the first such reason, static). */
  guint64       blocks_fast;
  guint64       blocks_bp;
  const char   *bp_why;
  /* Input samples that were not finite (NaN or infinite); range compression takes them as zero. */
  guint64       nonfinite_samples;
  /* Pixels of the image that are not finite (an overflow of the accumulator's precision): counted once
   * the image is complete (pixels_counted). */
  gboolean      pixels_counted;
  guint64       nonfinite_pixels;
  /* PFA: the depth-of-focus check over the pulses so far (see ef-pfa.h). */
  gboolean      pfa_checked;
  gboolean      pfa_outside_dof;
  double        pfa_qpe_rad;        /* largest quadratic phase error over the region, top of the band */
  double        pfa_qpe_limit_rad;  /* where the impulse response widens by 10% */
  char         *pfa_note;           /* owned: one line for the user when outside, else NULL */
  /* Weighting: the range window, and the cross-range (aperture) window asked for and the one applied
   * (rect when the pulses span no look angle to weight over), with why they differ (owned, or NULL). */
  EfWindow      window;
  EfWindow      az_window_requested;
  EfWindow      az_window;
  char         *az_window_reason;
  /* Autofocus: the per-pulse phase correction the pulses were formed with (owned, NULL when none):
   * "pga" or "sharpness" (estimated for this image), or "file" (read from a corrections file, autofocus_file,
   * owned); with the estimate's grid image's entropy and sharpness without and with it (when estimated). */
  char         *autofocus;
  char         *autofocus_file;
  gboolean      autofocus_measured;
  double        autofocus_entropy_before, autofocus_entropy_after;
  double        autofocus_sharpness_before, autofocus_sharpness_after;
  /* When estimated: where its images were formed ("cpu" or "cuda", owned), on how many devices (0 on
   * the CPU), and why that is not what was asked (owned, NULL when it is). */
  char         *autofocus_backend;
  guint         autofocus_n_devices;
  char         *autofocus_backend_reason;
  /* A CUDA kernel with launch shapes to choose from (backprojection's variant, the matched filter's
   * shape): the shape that ran (1-based, the last one where blocks differ; 0: none recorded), its name
   * (owned), whether the tuner's cached choice for this device and problem class picked it, and a note
   * for the user (owned, NULL when none), such as that nothing was cached and the default ran. */
  guint         kernel_shape;
  char         *kernel_shape_name;
  gboolean      kernel_tuned;
  char         *kernel_note;
} EfRunInfo;

/* Starts a record for a request: what ran is what was asked until a backend says otherwise. */
void   ef_run_info_init (EfRunInfo *info, EfBackendKind backend, EfAlgo algo, EfPrecision precision);
void   ef_run_info_clear (EfRunInfo *info);
/* A deep copy into dst, which is cleared first (it must hold a record or zeros). */
void   ef_run_info_copy (const EfRunInfo *src, EfRunInfo *dst);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (EfRunInfo, ef_run_info_clear)

/* Replaces *slot (one of the owned reason strings) with a formatted message, or NULL for format NULL. */
void   ef_run_info_set_reason (char **slot, const char *format, ...) G_GNUC_PRINTF (2, 3);
/* Sets backend (and its reason, which may be NULL). */
void   ef_run_info_set_backend (EfRunInfo *info, const char *backend, guint n_devices, const char *reason);
/* Records precision as what runs, with why when it differs from the request. */
void   ef_run_info_set_precision (EfRunInfo *info, EfPrecision precision, const char *reason);
/* Records the windows: range, cross-range as asked and as applied, with why they differ (or NULL). */
void   ef_run_info_set_weighting (EfRunInfo *info, EfWindow window, EfWindow az_requested, EfWindow az_applied,
                                  const char *reason);
/* Records the kernel shape that runs (see kernel_shape); name and note are copied (note may be NULL). */
void   ef_run_info_set_kernel (EfRunInfo *info, guint shape, const char *name, gboolean tuned, const char *note);
/* Counts one FFBP or FBP block: formed by the tree, or by exact backprojection for the plan's reason
 * `why` (static). Updates algo and algo_reason: bp once every block so far went to exact
 * backprojection, the factorised algorithm with the counts otherwise. */
void   ef_run_info_add_block (EfRunInfo *info, gboolean exact, const char *why);

/* Adds what part counted (blocks, non-finite samples) into info, and takes its depth-of-focus check
 * when that found the larger error: for an image summed from parts formed apart (several devices). */
void   ef_run_info_merge (EfRunInfo *info, const EfRunInfo *part);
/* Forgets what was counted of an image (blocks, the depth of focus, pixels) when its accumulator is
 * cleared; the decisions about backend, precision and algorithm stay. */
void   ef_run_info_reset_image (EfRunInfo *info);
/* Records a depth-of-focus check (note: one line, used when outside). */
void   ef_run_info_set_pfa (EfRunInfo *info, gboolean outside, double qpe_rad, double limit_rad, const char *note);

/* The user's news in a record, one line each: every difference from the request with its reason,
 * non-finite samples and pixels, the PFA depth of focus. An owned NULL-terminated array (empty when
 * it ran as asked and nothing went wrong). */
char **ef_run_info_warnings (const EfRunInfo *info);
/* What ran, short: "cuda fp16 ffbp (4 of 16 blocks by exact bp)", "cpu fp32 bp", "cpu fp32 bp,
 * phase-corrected (pga)". Owned. */
char  *ef_run_info_describe (const EfRunInfo *info);
/* TRUE when a warning would be given. */
gboolean ef_run_info_has_news (const EfRunInfo *info);

G_END_DECLS
