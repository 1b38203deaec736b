/* ef-focus-sweep.h: autofocus's sums over the pixels on an accelerator (the sharpness sweeps, PGA's projections), as the engine sees them. */
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

/*
 * PGA projects a patch about each prominent scatterer on every pulse's own contribution to the image
 * (ef-pga-project.c says how, and ef_pga_patch_spectra's fast way is what an accelerator computes): for
 * every patch and pulse, a sum over the patch's pixels. An accelerator may take these sums from the
 * image and the collection's geometry, kept in its memory for the estimate's iterations.
 */
typedef struct _EfPgaProjector EfPgaProjector;

/* A prominent scatterer's patch for PGA: the rows [row - half_h, row + half_h] and the columns
 * [col - win / 2, col - win / 2 + win) about its brightest pixel, clipped to the grid. */
typedef struct {
  guint row, col;
} EfPgaPatch;

/* What PGA's projections need of the collection and of the grid. */
typedef struct {
  guint64       n_pulses;
  const double *pulse;      /* n_pulses x EF_PGA_PULSE_DOUBLES: transmitter and receiver positions (m), the
                             * band's centre and its step between samples (Hz) */
  guint         n_samples;
  guint         width, height;
  double        origin[3];  /* pixel (col, row) lies at origin + col du + row dv, m */
  double        du[3], dv[3];
} EfPgaGeometry;

#define EF_PGA_PULSE_DOUBLES 8

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

  /* PGA's projections on the device that be forms on, or NULL with error (the host projects then); the
   * geometry is copied. */
  EfPgaProjector *(*pga_create) (EfBackend *be, const EfPgaGeometry *geo, GError **error);
  /* The image to project (host memory, width x height pixels), copied to the device. */
  gboolean (*pga_set_image) (EfPgaProjector *p, const EfCf32 *img, GError **error);
  /* g[j * n_pulses + i]: pulse i's sample of patch j of the image set last, as ef_pga_patch_spectra's
   * fast way computes it (host memory, n_patch * n_pulses). Waits for them. */
  gboolean (*pga_spectra) (EfPgaProjector *p, const EfPgaPatch *patch, guint n_patch, guint win, guint half_h,
                           EfCf64 *g, GError **error);
  void     (*pga_free) (EfPgaProjector *p);
} EfFocusSweepProvider;

/* Adds provider (static storage) to the registry; a later one for the same backend replaces it.
 * Thread-safe. */
void                        ef_focus_sweep_register (const EfFocusSweepProvider *provider);
/* The provider for the backend named backend ("cuda"), or NULL. Thread-safe. */
const EfFocusSweepProvider *ef_focus_sweep_get (const char *backend);

G_END_DECLS
