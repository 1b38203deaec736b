/* ef-arcs-accel.h: how an accelerator offers arc coherence to the engine, which includes nothing of it. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "ef-arcs.h"

G_BEGIN_DECLS

/* An accelerator's session for regions of one width: its buffers, owned by the provider. */
typedef struct _EfArcsSession EfArcsSession;

typedef struct {
  const char *name;                  /* as messages name it: "CUDA" */
  const char *const *mappings;       /* the plain coherence's thread mappings, NULL-terminated; 0 first */
  /* TRUE when a device is there; otherwise FALSE and *why an owned one-line reason. Thread-safe. */
  gboolean (*available) (char **why);
  /* A session for regions of width x up to max_rows pixels (model and grid: NULL for no periodogram).
   * May block while it allocates. */
  EfArcsSession *(*session_new) (guint width, guint max_rows, guint n_passes, const EfArcOffset *off, guint n_off,
                                 const EfArcModel *model, const EfArcGrid *grid, GError **error);
  /* coh (and best, for the periodogram) of the region ph, laid out as ef_arcs_plain's and
   * ef_arcs_periodogram's; *kernel_ms receives the device's time. Blocks until they are in host memory. */
  gboolean (*session_run) (EfArcsSession *s, const EfArcPhasors *ph, guint mapping, gboolean periodogram,
                           float *coh, guint16 *best, double *kernel_ms, GError **error);
  void     (*session_free) (EfArcsSession *s);
} EfArcsProvider;

/* Registers the accelerator (static storage; the last one registered is used). */
void                  ef_arcs_register (const EfArcsProvider *provider);
/* The registered accelerator, or NULL. */
const EfArcsProvider *ef_arcs_provider (void);

G_END_DECLS
