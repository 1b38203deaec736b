/* ef-arcs-accel.h: how an accelerator offers arc coherence to the engine, which includes nothing of it. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "ef-arcs.h"

G_BEGIN_DECLS

/* An accelerator's session for regions of one width: its buffers, owned by the provider. */
typedef struct _EfArcsSession EfArcsSession;

/* The periodogram's arithmetic on an accelerator. FP32: float throughout. TENSOR: tensor cores, the
 * phase series and rotations rounded to fp16 and the sums kept in fp32 (coherence within about 1e-4). */
typedef enum {
  EF_ARCS_PG_FP32,
  EF_ARCS_PG_TENSOR,
} EfArcsPgPrecision;

/* How reports name what ran. */
#define EF_ARCS_PG_TENSOR_LABEL "tensor cores (fp16 in, fp32 sums)"

typedef struct {
  const char *name;                  /* as messages name it: "CUDA" */
  const char *const *mappings;       /* the plain coherence's thread mappings, NULL-terminated; 0 first */
  /* TRUE when a device is there; otherwise FALSE and *why an owned one-line reason. Thread-safe. */
  gboolean (*available) (char **why);
  /* A session on device (0 .. n_devices - 1; -1: the default) for regions of width x up to max_rows
   * pixels (model and grid: NULL for no periodogram). May block while it allocates. */
  EfArcsSession *(*session_new) (int device, guint width, guint max_rows, guint n_passes, const EfArcOffset *off,
                                 guint n_off, const EfArcModel *model, const EfArcGrid *grid, GError **error);
  /* coh (and best, for the periodogram) of the region ph, laid out as ef_arcs_plain's and
   * ef_arcs_periodogram's; *kernel_ms receives the device's time. Blocks until they are in host memory.
   * Sessions (on one device or several) may run from different threads at once, each from one. */
  gboolean (*session_run) (EfArcsSession *s, const EfArcPhasors *ph, guint mapping, gboolean periodogram,
                           float *coh, guint16 *best, double *kernel_ms, GError **error);
  void     (*session_free) (EfArcsSession *s);
  /* Optional (NULL: one device). How many devices sessions may be opened on. Thread-safe. */
  guint    (*n_devices) (void);
  /* Optional (NULL: FP32 only). Chooses the periodogram's arithmetic for the session's later runs;
   * FALSE with error saying why when the session cannot (it then stays FP32). */
  gboolean (*session_set_periodogram) (EfArcsSession *s, EfArcsPgPrecision precision, GError **error);
} EfArcsProvider;

/* Registers the accelerator (static storage; the last one registered is used). */
void                  ef_arcs_register (const EfArcsProvider *provider);
/* The registered accelerator, or NULL. */
const EfArcsProvider *ef_arcs_provider (void);

G_END_DECLS
