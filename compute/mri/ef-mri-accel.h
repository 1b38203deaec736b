/* ef-mri-accel.h: how an accelerator offers the exact MRI sums to the engine, and the choice between it and the CPU. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "ef-mri.h"

G_BEGIN_DECLS

/* An accelerator's exact sums. The engine includes nothing of it: its library registers the provider
 * when the program starts (compute/cuda/ef-cuda-register.c). */
typedef struct {
  const char *name;   /* as messages name it: "CUDA" */
  const char *id;     /* as run records name it: "cuda" */
  /* TRUE when a device is there; otherwise FALSE and *why an owned one-line reason. Thread-safe. */
  gboolean (*available) (char **why);
  /* F^H d (d given) or Q with weights w (d NULL; w NULL: 1) on every voxel of g into out, as ef_mri_adjoint
   * and ef_mri_q define them, in the accelerator's arithmetic; *detail receives an owned description of
   * what ran (device, arithmetic). Blocks until out is written. */
  gboolean (*sum) (const EfMriTraj *t, const EfCf64 *d, const double *w, const EfMriGrid *g, EfCf64 *out,
                   char **detail, GError **error);
} EfMriAccel;

/* Registers the accelerator (static storage; the last one registered is used). Thread-safe. */
void              ef_mri_accel_register (const EfMriAccel *accel);
/* The registered accelerator, or NULL. Thread-safe. */
const EfMriAccel *ef_mri_accel_get (void);

/* Where a reconstruction's exact sums run, decided once per job as the image formers' backends are
 * (ef_backend_new): auto takes the accelerator when a device is there and the CPU otherwise, saying why;
 * cuda asked by name fails instead of running elsewhere. */
typedef struct {
  EfBackendKind     requested;
  const EfMriAccel *accel;     /* borrowed: the accelerator the sums run on, or NULL for the CPU */
  char             *ran;       /* owned: "cpu" or the accelerator's id */
  char             *detail;    /* owned: what ran, for people ("CPU, fp64", or the accelerator's words) */
  char             *fallback;  /* owned: why the CPU runs although auto was asked ("…; using the CPU"), or NULL */
} EfMriRun;

/* Fills run for kind (run's previous contents are not freed). FALSE with EF_COMPUTE_ERROR_NO_DEVICE when
 * kind is EF_BACKEND_CUDA and no accelerator can run. May block the first time a device is looked for. */
gboolean ef_mri_run_choose (EfBackendKind kind, EfMriRun *run, GError **error);
/* The sum (as EfMriAccel's) on what run chose. When the accelerator fails and auto was asked, run turns
 * to the CPU for good, fallback says why, and the sum is done there. Blocks. */
gboolean ef_mri_run_sum (EfMriRun *run, const EfMriTraj *t, const EfCf64 *d, const double *w, const EfMriGrid *g,
                         EfCf64 *out, GError **error);
/* The same over samples [first, last) of t (d and w indexed as t's), added into out. Blocks. */
gboolean ef_mri_run_sum_add (EfMriRun *run, const EfMriTraj *t, const EfCf64 *d, const double *w, gsize first,
                             gsize last, const EfMriGrid *g, EfCf64 *out, GError **error);
void     ef_mri_run_copy (const EfMriRun *src, EfMriRun *dst);
void     ef_mri_run_clear (EfMriRun *run);

G_END_DECLS
