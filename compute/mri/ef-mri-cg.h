/* ef-mri-cg.h: least-squares reconstruction: F^H W F as a convolution with Q, and conjugate gradients. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "ef-mri.h"

G_BEGIN_DECLS

/* F^H W F on an image grid, applied as the circular convolution with Q on the doubled grid that equals
 * it on the image (FFTW, float64). */
typedef struct _EfMriToeplitz EfMriToeplitz;

/* q: Q on ef_mri_grid_doubled (image), as ef_mri_q computes it (borrowed, read once). Owned, or NULL
 * with error. Blocks while FFTW plans. */
EfMriToeplitz *ef_mri_toeplitz_new (const EfMriGrid *image, const EfCf64 *q, GError **error);
void           ef_mri_toeplitz_free (EfMriToeplitz *t);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (EfMriToeplitz, ef_mri_toeplitz_free)
/* y = F^H W F x on the image grid (x and y may be the same buffer). Not reentrant on one object. */
void           ef_mri_toeplitz_apply (EfMriToeplitz *t, const EfCf64 *x, EfCf64 *y);
/* Voxels of its image grid. */
gsize          ef_mri_toeplitz_voxels (const EfMriToeplitz *t);

typedef enum {
  EF_MRI_REG_NONE,
  EF_MRI_REG_TIKHONOV,    /* R = I */
  EF_MRI_REG_GRADIENT,    /* R = D^H D, D the forward differences along each axis inside the grid */
} EfMriReg;

/* Called after iteration k (1 ..) with the iterate x_k (n voxels, borrowed for the call) and its
 * residual |b - A x_k| / |b|; FALSE stops the iteration at x_k. It runs on the iterating thread. */
typedef gboolean (*EfMriCgStep) (guint k, const EfCf64 *x, gsize n, double residual, gpointer user_data);

typedef struct {
  EfMriReg reg;
  double   lambda;        /* weight of R */
  guint    max_iter;
  double   tol;           /* stop when |b - A x| <= tol |b| */
  double   data_norm2;    /* d^H W d when known (> 0): the objective is then reported relative to it */
  EfMriCgStep step;       /* may be NULL: asked after every iteration whether to go on */
  gpointer    step_data;
} EfMriCgParams;

/* Per iteration k = 0 .. iterations (k = 0: the start). */
typedef struct {
  guint    iterations;
  gboolean converged;     /* the tolerance was reached */
  gboolean stopped;       /* the step callback stopped it */
  double  *residual;      /* owned: |b - A x_k| / |b|, the normal equations' residual */
  double  *objective;     /* owned: with data_norm2, sqrt(J(x_k) / d^H W d) where
                           * J = |W^1/2 (F x - d)|^2 + lambda x^H R x; otherwise J - d^H W d */
} EfMriCgReport;

void ef_mri_cg_report_clear (EfMriCgReport *r);

/* y = A x over the n values of an image, for ef_mri_cg_run; data is the caller's. */
typedef void (*EfMriCgOperator) (const EfCf64 *x, EfCf64 *y, gpointer data);

/* Conjugate gradients on A x = b (A Hermitian positive definite, n values) with p's max_iter, tol and
 * step; x holds the start and receives the solution. The objective (p's reg, lambda and data_norm2
 * describing A) is reported when objective is TRUE and left at 0 otherwise. what names the solver in
 * the out-of-memory message. The parameters are the caller's to check. Blocks. */
gboolean ef_mri_cg_run (EfMriCgOperator apply, gpointer data, gsize n, const EfCf64 *b, const EfMriCgParams *p,
                        gboolean objective, EfCf64 *x, EfMriCgReport *report, const char *what, GError **error);

/* Conjugate gradients on (F^H W F + lambda R) x = b, b = F^H W d. x holds the start (zeros for none) and
 * receives the solution. CG decreases J monotonically; the normal residual need not. Blocks. */
gboolean ef_mri_cg (EfMriToeplitz *t, const EfCf64 *b, const EfMriCgParams *p, EfCf64 *x, EfMriCgReport *report,
                    GError **error);

G_END_DECLS
