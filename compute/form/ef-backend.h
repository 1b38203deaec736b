/* ef-backend.h: one interface for the image-formation engines, and the registry of accelerator backends. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "ef-types.h"
#include "ef-dataset.h"
#include "ef-device-image.h"
#include "ef-grid.h"
#include "ef-rangecomp.h"
#include "ef-run-info.h"

G_BEGIN_DECLS

/* What a backend is asked to do; copied at creation, never read from the UI afterwards. */
typedef struct {
  EfGrid        grid;
  EfRangeParams range;
  EfPrecision   precision;
  EfAlgo        algo;
  guint         block_size;  /* pulses per block */
  guint         n_threads;   /* CPU threads, 0 = all */
  int           device;      /* CUDA device, -1 = choose */
  /* CUDA devices to spread the pulses over, from `device` on (device 0 when device is -1): 0 or 1 =
   * one device, EF_BACKEND_ALL_DEVICES = every device from there on. Each device forms a partial image
   * from its share of every block; reading the image sums them. */
  guint         n_devices;
} EfBackendParams;

#define EF_BACKEND_ALL_DEVICES G_MAXUINT

typedef struct {
  const char *name;
  /* Range-compresses and backprojects count pulses into the accumulator. samples: count * n_samples.
   * May block for the duration of the block. */
  gboolean (*process_block) (EfBackend *self, const EfPulse *pulses, const EfCf32 *samples, guint count,
                             GError **error);
  /* Copies the accumulator (or a rectangle of it) to host memory as complex float. */
  gboolean (*read_image) (EfBackend *self, const EfRect *rect, EfCf32 *out, GError **error);
  /* Zeroes the accumulator. */
  gboolean (*clear) (EfBackend *self, GError **error);
  void     (*free) (EfBackend *self);
  /* Brings self->run up to date from parts kept elsewhere (several devices' records); may be NULL. */
  void     (*update_run) (EfBackend *self);
  /* A new reference to the accumulator where it stays in an accelerator's memory and a display may read
   * it in place, or NULL; may be NULL. Thread-safe; never blocks. */
  EfDeviceImage *(*ref_device_image) (EfBackend *self);
} EfBackendOps;

struct _EfBackend {
  const EfBackendOps *ops;
  EfBackendParams     params;
  EfDatasetInfo       info;    /* owned copy */
  guint64             n_bad_samples;
  EfRunInfo           run;     /* what runs, as the backend decides it and as blocks are formed */
  /* Blocks of params.block_size pulses a process_block call is best given at once (0 or 1: one). Several
   * devices forming a fast algorithm's image each take one whole block of a call, as one device forms
   * it: the per-block work on the whole image (FFBP's and FBP's last stage, PFA's image transform) is
   * then paid once a block, not once a device's share of it. Callers that give fewer get the same image,
   * more slowly. */
  guint               blocks_per_call;
  gpointer            priv;
};

/* An accelerator backend, as it offers itself to the engine. The engine includes nothing of it: the
 * accelerator's library registers its provider when the program starts (compute/cuda/ef-cuda-register.c),
 * and ef_backend_new asks the registry. The CPU backend is always there and is not registered. */
typedef struct {
  EfBackendKind kind;  /* the request it serves: EF_BACKEND_CUDA */
  const char   *name;  /* as messages name it: "CUDA" */
  /* TRUE when it can run params on this machine. Otherwise FALSE, and *why receives an owned one-line
   * reason (never NULL). Cheap after the first call; thread-safe. */
  gboolean    (*available) (const EfBackendParams *params, char **why);
  /* Creates the backend for params (may block while it allocates). */
  EfBackend  *(*create) (const EfDatasetInfo *info, const EfBackendParams *params, GError **error);
} EfBackendProvider;

/* Adds provider (static storage, never freed) to the registry; a later one for the same kind takes the
 * place of an earlier one. Thread-safe. */
void                     ef_backend_register (const EfBackendProvider *provider);
/* The provider registered for kind, or NULL when this program has none. Thread-safe. */
const EfBackendProvider *ef_backend_get_provider (EfBackendKind kind);

/* Creates the backend asked for. EF_BACKEND_AUTO picks CUDA when a device is present and falls back to
 * the CPU otherwise; *note (may be NULL) receives an owned one-line message saying why, or NULL.
 * EF_BACKEND_CUDA fails with EF_COMPUTE_ERROR_NO_DEVICE instead of falling back. */
EfBackend *ef_backend_new (EfBackendKind kind, const EfDatasetInfo *info, const EfBackendParams *params,
                           char **note, GError **error);
EfBackend *ef_backend_cpu_new (const EfDatasetInfo *info, const EfBackendParams *params, GError **error);
void       ef_backend_free (EfBackend *self);
gboolean   ef_backend_process_block (EfBackend *self, const EfPulse *pulses, const EfCf32 *samples,
                                     guint count, GError **error);
gboolean   ef_backend_read_image (EfBackend *self, const EfRect *rect, EfCf32 *out, GError **error);
const char *ef_backend_name (const EfBackend *self);
/* self->blocks_per_call, at least 1. */
guint      ef_backend_blocks_per_call (const EfBackend *self);
/* A new reference to the backend's device-resident accumulator (see EfBackendOps), or NULL. */
EfDeviceImage *ef_backend_ref_device_image (EfBackend *self);
/* What the backend has run so far (see ef-run-info.h): borrowed, valid until the next call on the
 * backend. Non-finite samples are counted as of the last block a read or a sync waited for. */
const EfRunInfo *ef_backend_get_run_info (EfBackend *self);
/* Starts self->run for params as run by the CPU (kind EF_BACKEND_CPU, n_devices 0) or CUDA (on n_devices
 * devices). For backend implementations, which then record what they decide. */
void        ef_backend_run_init (EfBackend *self, const EfBackendParams *params, EfBackendKind kind,
                                 guint n_devices);
/* Records in run the windows that range (with its aperture) applies: the cross-range window is rect,
 * with the reason, when the aperture spans no look angle. */
void        ef_backend_run_set_weighting (EfRunInfo *run, const EfRangeParams *range);
/* The processed band of the profiles the backend forms (what sets the fast formers' range sampling): the
 * dataset header's, or the first pulse's when the header leaves it out. */
double      ef_backend_processed_band (const EfBackend *self, const EfPulse *pulses);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (EfBackend, ef_backend_free)

G_END_DECLS
