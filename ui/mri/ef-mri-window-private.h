/* ef-mri-window-private.h: what the MRI window's parts share: the window, the file as read, the worker's results. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <gtk/gtk.h>

#include "ef-mri-accel.h"
#include "ef-mri-window.h"

G_BEGIN_DECLS

/* Blocks of samples the refinement adds one at a time (Q's sum is cut into as many, to be cancellable),
 * and the conjugate-gradient iterations of least squares. */
#define EF_MRI_WINDOW_BLOCKS 16
#define EF_MRI_WINDOW_CG_ITERATIONS 8

/* What the worker read and weighed; shared by the worker and the window (an atomic reference-counted
 * box: ef_mri_prepared_ref, ef_mri_prepared_unref). Immutable once published, but for Q, which the
 * first least squares to finish computing it keeps for the next ones. */
typedef struct {
  char       *path;          /* owned */
  EfMriTraj  *t;             /* owned: cycles per FOV */
  EfCf64     *d;             /* owned: n_coils arrays of t->m samples, times their density weights */
  double     *area;          /* owned: the density weights */
  EfMriGrid   g;
  gsize       nv;
  guint       n_coils;
  gboolean    edge_guessed;  /* the edge is assumed, not the file's */
  double      read_s, density_s;
  GMutex      q_lock;
  EfCf64     *q;             /* owned, guarded by q_lock: Q on the doubled grid once computed, or NULL */
} EfMriPrepared;

EfMriPrepared *ef_mri_prepared_ref (EfMriPrepared *pr);
void           ef_mri_prepared_unref (EfMriPrepared *pr);

/* A worker's latest result on its way to the main loop (see ef_mri_window_publish). */
typedef struct {
  EfMriPrepared *prep;       /* owned reference */
  EfCf64        *coils;      /* owned: the coils' images after `done` samples (n_coils maps), or NULL */
  gsize          done;
  EfCf64        *iterate;    /* owned: the latest conjugate-gradient iterate, or NULL */
  guint          iteration;
  EfMriRun       run;        /* owned: what the sums ran on (ran NULL: not known yet) */
} EfMriPublish;

struct _EfMriWindow {
  GtkWindow     parent_instance;

  GtkWidget    *header_label;   /* borrowed: file, sizes, timings */
  GtkWidget    *coil_label;     /* borrowed: the coils in use */
  GtkWidget    *coil_drop;      /* borrowed: all coils combined, or one */
  GtkWidget    *backend_label;  /* borrowed: what the sums ran on */
  GtkWidget    *progress_label; /* borrowed: the status line */
  GtkWidget    *residual_label; /* borrowed */
  GtkWidget    *planes_box;     /* borrowed */
  GtkWidget    *planes[3];      /* borrowed: axial, coronal, sagittal (only [0] in 2-D) */
  GtkWidget    *sliders[3];     /* borrowed: the voxel along x, y, z */
  GtkWidget    *slider_box;     /* borrowed */
  GtkWidget    *kspace;         /* borrowed */
  GtkWidget    *scale;          /* borrowed */
  GtkWidget    *cancel_button;  /* borrowed: stops the refinement */
  GtkWidget    *ls_button;      /* borrowed: Least squares, or Cancel while it runs */

  GCancellable *cancellable;    /* owned: the window's; cancelled when it goes */
  GCancellable *ls_cancellable; /* owned while least squares runs, else NULL */
  EfBackendKind backend;        /* asked (the settings' backend), copied at open */
  EfMriRun      run;            /* owned: what the sums ran on, as last reported */
  EfMriPrepared *prep;          /* owned reference, NULL before the file is read */
  EfCf64       *coil_images;    /* owned: n_coils maps of F^H d, NULL before the first block */
  EfCf64       *image;          /* owned: nv voxels shown, NULL before the first block */
  double        image_max;      /* the largest magnitude */
  guint         coil_choice;    /* 0: every coil combined; c + 1: coil c alone */
  gsize         done;           /* samples in the image */
  gboolean      busy;
  gboolean      disposed;       /* the widgets are gone: a worker's late end touches none */
  gboolean      refined;        /* every block was added */
  guint         ls_iterations;  /* iterations of the least-squares image shown (0: F^H d) */
  guint         cursor[3];      /* the voxel the 3-D planes go through */
  char         *error;          /* owned */
  char         *fhd_line;       /* owned: the status line of the F^H d images, shown again with them */
  gint64        started;
  guint         kspace_points, kspace_used;
  GMutex        pub_lock;       /* guards pending */
  EfMriPublish *pending;        /* owned: the worker's latest result not yet shown, or NULL */
  /* test hooks: the worker waits after block hold_after, or after iteration hold_iteration, until
   * released (G_MAXUINT: never) or cancelled */
  GMutex        hold_lock;
  GCond         hold_cond;
  guint         hold_after;
  guint         hold_iteration;
};

/* ef-mri-window.c */
/* Starts least squares on the coil choice's F^H d (nothing while busy or before every block is in). */
void ef_mri_window_least_squares (EfMriWindow *self);
/* Plane i's pixel size: 0 axial (x, y), 1 coronal (x, z), 2 sagittal (y, z). */
void ef_mri_window_plane_size (const EfMriGrid *g, guint i, guint *w, guint *h);
/* A click at (x, y) on plane i moves the other planes through the voxel clicked. */
void ef_mri_window_pick (EfMriWindow *self, guint i, double x, double y);

/* ef-mri-window-work.c: the worker threads, run through GTask. */
void ef_mri_window_refine_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable);
/* Least squares: the job (ef_mri_window_ls_new takes what it needs from the window) and its thread. */
typedef struct _EfMriLs EfMriLs;
EfMriLs *ef_mri_window_ls_new (EfMriWindow *self);
void     ef_mri_window_ls_free (gpointer ls);
void     ef_mri_window_ls_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable);
/* The finished job's image (owned; NULL when no iteration ran), its iterations, whether it was
 * cancelled, and its report (borrowed). */
EfCf64     *ef_mri_window_ls_steal_image (EfMriLs *ls);
guint       ef_mri_window_ls_iterations (EfMriLs *ls);
gboolean    ef_mri_window_ls_cancelled (EfMriLs *ls);
const char *ef_mri_window_ls_report (EfMriLs *ls);
const EfMriRun *ef_mri_window_ls_run (EfMriLs *ls);

/* Hands a worker's result to the main loop (from any thread): the coils' images after done samples, or
 * a conjugate-gradient iterate, either may be NULL, and run (may be NULL). A result the main loop has not
 * taken yet is replaced, not queued, so that one copy at most waits however slow the display. */
void ef_mri_window_publish (EfMriWindow *self, EfMriPrepared *prep, const EfCf64 *coils, gsize done,
                            const EfCf64 *iterate, guint iteration, const EfMriRun *run);
/* Shows p (main loop, ef-mri-window.c). */
void ef_mri_window_show_publish (EfMriWindow *self, EfMriPublish *p);
/* Shows the result waiting, if any (main loop). */
void ef_mri_window_take_pending (EfMriWindow *self);
/* Waits while the test hook holds the worker after step `at` (hold_after or hold_iteration), until
 * released or cancel is cancelled. */
void ef_mri_window_hold (EfMriWindow *self, const guint *hold, guint at, GCancellable *cancel);

G_END_DECLS
