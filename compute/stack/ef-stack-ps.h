/* ef-stack-ps.h: persistent-scatterer selection over a whole stack, a strip at a time, on the CPU or an accelerator. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gio/gio.h>

#include "ef-arcs-accel.h"
#include "ef-arcs-ps.h"
#include "ef-stack.h"

G_BEGIN_DECLS

typedef struct {
  EfBackendKind     backend;      /* CPU; CUDA or AUTO: the registered accelerator (ef-arcs-accel.h) */
  guint             mapping;      /* the accelerator's thread mapping for plain coherence (its index) */
  EfArcsPgPrecision periodogram;  /* the accelerator's periodogram arithmetic (FP32, the default) */
  guint             n_devices;    /* the accelerator's devices that share the strips: 0 all of them */
} EfStackPsOptions;

/* What ran. */
typedef struct {
  char   *backend;             /* owned: "cpu", or the accelerator's name in lower case */
  char   *reason;              /* owned, NULL when it ran as asked: why the CPU ran instead */
  char   *periodogram;         /* owned, NULL for plain coherence: the periodogram's arithmetic, "fp32" or
                                * EF_ARCS_PG_TENSOR_LABEL (with the strips it took when the device failed) */
  char   *periodogram_reason;  /* owned, NULL unless tensor cores were asked for and not used: why */
  guint   n_devices;           /* the accelerator's devices that ran strips (0: none) */
  char   *devices_reason;      /* owned, NULL unless fewer devices ran than asked for: why */
  double  device_s;            /* the accelerator's kernel time, summed over its devices */
  double  elapsed_s;
} EfStackPsReport;

void ef_stack_ps_report_clear (EfStackPsReport *report);

/* Reads stack a strip of tile rows at a time, with the window's radius of halo above and below, scores
 * every pixel (on the accelerator where asked and present; the CPU otherwise, or from the strip where
 * the accelerator fails, with the reason in report), keeps the candidates, and solves the network.
 * With several devices, a thread a device takes the next strip as it finishes one; the strips join the
 * network in order, so that it is the one a single device builds.
 * score and amp_db (image-sized, may be NULL) receive each pixel's score and mean amplitude in dB.
 * cancel (may be NULL) is checked between strips. Owned network, or NULL with error. Blocks. */
EfPsNetwork *ef_stack_ps_run (EfStack *stack, const EfPsParams *params, const EfStackPsOptions *options,
                              float *score, float *amp_db, GCancellable *cancel, EfStackPsReport *report,
                              GError **error);

G_END_DECLS
