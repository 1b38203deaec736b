/* ef-focus-private.h: what the autofocus estimators share: their grid, forming on it, detrending. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "ef-backend.h"
#include "ef-focus.h"
#include "ef-focus-sweep.h"

G_BEGIN_DECLS

#define EF_FOCUS_C 299792458.0

typedef struct {
  EfDataset *ds;        /* borrowed */
  EfBackend *be;        /* owned: backprojection on grid (the backend asked for), rectangular windows */
  char      *be_note;   /* owned, may be NULL: why the backend is not the one asked for */
  EfGrid     grid;      /* rows along cross-range (u), range increasing down the columns (v) */
  guint64    first;     /* the pulses used: [first, first + n) of the collection */
  guint64    n;
  guint      block;     /* pulses handed to the backend at a time */
  EfCf32    *samples;   /* owned, block * n_samples */
  EfPulse   *pulses;    /* owned, block */
  double    *kappa;     /* owned, n: each pulse's spatial frequency along the rows, cycles/m */
  double     res_cross; /* ground cross-range resolution of the pulses used, m */
  double     res_range; /* ground range resolution, m */
  double     dtheta;    /* the pulses' span of look angle on the ground, rad */
  guint      asked_cols; /* the middle columns that are the square region asked for (PGA's grid is wider) */
  GCancellable *cancellable; /* borrowed, may be NULL */
  double     form_s;    /* seconds spent in ef_focus_form so far */
  guint64    n_formations;
} EfFocusCtx;

gboolean ef_focus_ctx_init (EfFocusCtx *c, EfDataset *ds, const EfFocusParams *p, GError **error);
void     ef_focus_ctx_clear (EfFocusCtx *c);

/* Forms pulses [p0, p0 + count) of the collection into out (the grid's pixels), each multiplied by
 * exp(-j phase[p]) first (phase indexed by the collection's pulse; NULL: none), into a freshly cleared
 * accumulator, and reads it back. Blocks; counts its time in c->form_s. */
gboolean ef_focus_form (EfFocusCtx *c, guint64 p0, guint64 count, const double *phase, EfCf32 *out,
                        GError **error);

/* Removes from e[0..n) its least-squares fit a + b * kappa, once e is unwrapped along kappa (each pulse's
 * value moved by whole turns so that neighbours in spatial frequency differ by at most pi): a constant
 * and a linear phase across the aperture only move the image, and no image can tell them. */
void     ef_focus_detrend (const double *kappa, double *e, guint64 n);

/* The estimators. phase (the collection's pulses) holds the correction to start from and receives the
 * new one; r->iterations, r->last_change_rad (and the sharpness's block fields) are set. */
gboolean ef_focus_pga (EfFocusCtx *c, const EfFocusParams *p, double *phase, EfFocusResult *r, GError **error);
/* g[j * c->n + i]: pulse i's sample of patch j of img (the grid's pixels), the patch projected on what the
 * pulse alone puts in an image for a scatterer at the patch's centre (ef-pga-project.c). exact: every
 * range and sine computed (the reference); else the ranges followed along each row by a quadratic.
 * Threaded over the pulses; once c->cancellable is cancelled the pulses left are skipped (g then holds
 * garbage: check it). */
void     ef_pga_patch_spectra (const EfFocusCtx *c, const EfCf32 *img, const EfPgaPatch *patch, guint n_patch,
                               guint win, guint half_h, gboolean exact, guint n_threads, EfCf64 *g);
/* The collection's pulses [c->first, c->first + c->n) and c's grid as an accelerator's projections take
 * them; geo->pulse points into *table (owned by the caller, g_free). */
void     ef_pga_geometry_init (const EfFocusCtx *c, EfPgaGeometry *geo, double **table);

gboolean ef_focus_sharpness_run (EfFocusCtx *c, const EfFocusParams *p, double *phase, EfFocusResult *r,
                                 GError **error);

G_END_DECLS
