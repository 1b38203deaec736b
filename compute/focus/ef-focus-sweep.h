/* ef-focus-sweep.h: the sharpness sweeps' sums over the pixels on an accelerator, as the engine sees them. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "ef-backend.h"
#include "ef-types.h"

G_BEGIN_DECLS

/*
 * The sharpness method's sweeps visit every block's image once a sweep (ef_focus_sweep_step in
 * ef-focus-private.h says the sums). Where the images were formed on an accelerator, its library may
 * offer to keep the blocks' images and their sum in its memory and take the sums there: the engine
 * includes nothing of it; the library registers its provider when the program starts, as backends do.
 * The host still chooses each block's phase from the two sums (a few numbers a block).
 */
typedef struct _EfFocusSweeper EfFocusSweeper;

/* One step of a sweep on the host, the device's gold path, over the sum img of the blocks' images (each
 * already turned by its phase): adds prev_change * prev (prev may be NULL: nothing) to img, then takes
 * block b's sums with rot = exp(j theta_b): r = img - rot b, z = b conj(r), A = |b|^2 + |r|^2,
 * alpha = sum A z, beta = sum z^2. Threaded over the pixels (n_threads, 0: all). */
void ef_focus_sweep_step (const EfCf32 *prev, EfCf64 prev_change, const EfCf32 *b, EfCf64 rot, EfCf64 *img,
                          gsize npix, guint n_threads, EfCf64 *alpha, EfCf64 *beta);
/* img += change * b, threaded. */
void ef_focus_sweep_add (const EfCf32 *b, EfCf64 change, EfCf64 *img, gsize npix, guint n_threads);

typedef struct {
  const char *backend;  /* the backend's name in its run record that it serves: "cuda" */
  /* A sweeper for n_blocks images of npix pixels on the device that be forms on, or NULL with error
   * (too little memory: the host sweeps then). */
  EfFocusSweeper *(*create) (EfBackend *be, guint64 n_blocks, gsize npix, GError **error);
  /* Copies block k's image (host memory, npix pixels) to the device and adds it, unturned, to the sum. */
  gboolean (*set_block) (EfFocusSweeper *s, guint64 k, const EfCf32 *image, GError **error);
  /* ef_focus_sweep_step on the device: block prev (-1: none) times prev_change into the sum, then block
   * k's alpha and beta with rot. Waits for the two sums. */
  gboolean (*step) (EfFocusSweeper *s, gint64 prev, EfCf64 prev_change, guint64 k, EfCf64 rot, EfCf64 *alpha,
                    EfCf64 *beta, GError **error);
  /* The sum += change * block k. */
  gboolean (*add) (EfFocusSweeper *s, guint64 k, EfCf64 change, GError **error);
  void     (*free) (EfFocusSweeper *s);
} EfFocusSweepProvider;

/* Adds provider (static storage) to the registry; a later one for the same backend replaces it.
 * Thread-safe. */
void                        ef_focus_sweep_register (const EfFocusSweepProvider *provider);
/* The provider for the backend named backend ("cuda"), or NULL. Thread-safe. */
const EfFocusSweepProvider *ef_focus_sweep_get (const char *backend);

G_END_DECLS
