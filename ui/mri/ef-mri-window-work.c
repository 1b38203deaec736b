/* ef-mri-window-work.c: the MRI window's worker threads: the file read and weighed, F^H d block by block, least squares. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-mri-window"
#include "config.h"

#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

#include "ef-error.h"
#include "ef-mri-blocks.h"
#include "ef-mri-cg.h"
#include "ef-mri-coils.h"
#include "ef-mri-gridding.h"
#include "ef-mri-window-private.h"
#if HAVE_ISMRMRD
#include "ef-ismrmrd.h"
#endif

/* The edge assumed for a file whose trajectory is normalised to [-1/2, 1/2] and whose header gives no
 * matrix. */
#define DEFAULT_EDGE 64

static void
prepared_clear (gpointer p)
{
  EfMriPrepared *pr = p;

  g_free (pr->path);
  ef_mri_traj_free (pr->t);
  g_free (pr->d);
  g_free (pr->area);
  g_free (pr->q);
  g_mutex_clear (&pr->q_lock);
}

EfMriPrepared *
ef_mri_prepared_ref (EfMriPrepared *pr)
{
  return g_atomic_rc_box_acquire (pr);
}

void
ef_mri_prepared_unref (EfMriPrepared *pr)
{
  if (pr != NULL)
    g_atomic_rc_box_release_full (pr, prepared_clear);
}

static void
publish_free (EfMriPublish *p)
{
  ef_mri_prepared_unref (p->prep);
  g_free (p->coils);
  g_free (p->iterate);
  ef_mri_run_clear (&p->run);
  g_free (p);
}

static gboolean
publish_idle (gpointer data)
{
  EfMriWindow *self = data;

  ef_mri_window_take_pending (self);
  g_object_unref (self);
  return G_SOURCE_REMOVE;
}

void
ef_mri_window_publish (EfMriWindow *self, EfMriPrepared *prep, const EfCf64 *coils, gsize done, const EfCf64 *iterate,
                       guint iteration, const EfMriRun *run)
{
  EfCf64 *c = coils != NULL ? g_memdup2 (coils, prep->n_coils * prep->nv * sizeof (EfCf64)) : NULL;
  EfCf64 *x = iterate != NULL ? g_memdup2 (iterate, prep->nv * sizeof (EfCf64)) : NULL;
  gboolean schedule = FALSE;

  g_mutex_lock (&self->pub_lock);
  if (self->pending == NULL)
    {
      self->pending = g_new0 (EfMriPublish, 1);
      self->pending->prep = ef_mri_prepared_ref (prep);
      schedule = TRUE;
    }
  if (c != NULL)
    {
      g_free (self->pending->coils);
      self->pending->coils = c;
      self->pending->done = done;
    }
  if (x != NULL)
    {
      g_free (self->pending->iterate);
      self->pending->iterate = x;
      self->pending->iteration = iteration;
    }
  if (run != NULL)
    {
      ef_mri_run_clear (&self->pending->run);
      ef_mri_run_copy (run, &self->pending->run);
    }
  g_mutex_unlock (&self->pub_lock);
  if (schedule)
    g_main_context_invoke (NULL, publish_idle, g_object_ref (self));
}

/* Takes the waiting result out (main loop); the caller frees it with publish_free. */
static EfMriPublish *
steal_pending (EfMriWindow *self)
{
  EfMriPublish *p;

  g_mutex_lock (&self->pub_lock);
  p = g_steal_pointer (&self->pending);
  g_mutex_unlock (&self->pub_lock);
  return p;
}

void
ef_mri_window_take_pending (EfMriWindow *self)
{
  EfMriPublish *p = steal_pending (self);

  if (p == NULL)
    return;
  if (!g_cancellable_is_cancelled (self->cancellable))
    ef_mri_window_show_publish (self, p);
  publish_free (p);
}

void
ef_mri_window_hold (EfMriWindow *self, const guint *hold, guint at, GCancellable *cancel)
{
  g_mutex_lock (&self->hold_lock);
  while (*hold == at && !g_cancellable_is_cancelled (cancel) && !g_cancellable_is_cancelled (self->cancellable))
    g_cond_wait (&self->hold_cond, &self->hold_lock);
  g_mutex_unlock (&self->hold_lock);
}

/* ---- the file and F^H d ---- */

#if HAVE_ISMRMRD
/* Reads every channel of the file, picks the grid and weighs the samples. */
static EfMriPrepared *
prepare (const char *path, GError **error)
{
  g_autofree EfCf64 *d = NULL;
  EfMriTraj *t = NULL;
  EfIsmrmrdInfo info;
  EfMriPrepared *pr;
  double kmax = 0;
  gint64 t0 = g_get_monotonic_time ();
  guint n;

  if (!ef_ismrmrd_read_coils (path, 1.0, &info, &t, &d, error))
    return NULL;
  pr = g_atomic_rc_box_new0 (EfMriPrepared);
  g_mutex_init (&pr->q_lock);
  pr->path = g_strdup (path);
  pr->t = t;
  pr->n_coils = info.n_coils;
  pr->d = g_steal_pointer (&d);
  for (gsize i = 0; i < t->m * t->dim; i++)
    kmax = MAX (kmax, fabs (t->k[i]));
  /* a trajectory within [-1/2, 1/2] is normalised: scale it by the matrix */
  if (kmax <= 0.5 + 1e-9)
    {
      n = info.matrix[0] > 0 ? info.matrix[0] : DEFAULT_EDGE;
      pr->edge_guessed = info.matrix[0] == 0;
      for (gsize i = 0; i < t->m * t->dim; i++)
        t->k[i] *= n;
    }
  else
    n = info.matrix[0] > 0 ? info.matrix[0] : ef_mri_traj_edge (t);
  pr->g = ef_mri_grid_image (t->dim, n);
  pr->nv = ef_mri_grid_voxels (&pr->g, error);
  if (pr->nv != 0 && (pr->n_coils == 0 || pr->n_coils > EF_MRI_MAX_COILS))
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FORMAT, "%s: %u receive channels (1 to %u are read)", path,
                   pr->n_coils, EF_MRI_MAX_COILS);
      ef_mri_prepared_unref (pr);
      return NULL;
    }
  pr->read_s = (g_get_monotonic_time () - t0) / 1e6;
  t0 = g_get_monotonic_time ();
  pr->area = g_try_new (double, t->m);
  if (pr->nv == 0 || pr->area == NULL || !ef_mri_density_pipe (t, &pr->g, 4, 20, pr->area, error))
    {
      if (pr->nv != 0 && pr->area == NULL)
        g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_MEMORY, "No memory for the density weights");
      ef_mri_prepared_unref (pr);
      return NULL;
    }
  for (gsize i = 0; i < t->m; i++)
    {
      pr->area[i] /= (double) pr->nv;
      for (guint c = 0; c < pr->n_coils; c++)
        pr->d[(gsize) c * t->m + i] *= pr->area[i];
    }
  pr->density_s = (g_get_monotonic_time () - t0) / 1e6;
  return pr;
}
#endif

void
ef_mri_window_refine_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
#if HAVE_ISMRMRD
  EfMriWindow *self = source;
  const char *path = task_data;
  GError *error = NULL;
  EfMriPrepared *pr;
  g_autofree EfCf64 *acc = NULL;
  EfMriRun run;
  gsize n_img;

  /* the settings' backend was copied at open; what it gives is decided here, off the main loop */
  if (!ef_mri_run_choose (self->backend, &run, &error))
    {
      g_task_return_error (task, error);
      return;
    }
  pr = prepare (path, &error);
  if (pr == NULL)
    {
      ef_mri_run_clear (&run);
      g_task_return_error (task, error);
      return;
    }
  ef_mri_window_publish (self, pr, NULL, 0, NULL, 0, &run);
  /* nv <= 2^30 and n_coils <= 256: no overflow */
  n_img = pr->n_coils * pr->nv;
  acc = g_try_new0 (EfCf64, n_img);
  if (acc == NULL)
    {
      ef_mri_prepared_unref (pr);
      ef_mri_run_clear (&run);
      g_task_return_new_error (task, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_MEMORY, "No memory for %u coil images",
                               pr->n_coils);
      return;
    }
  for (guint b = 0; b < EF_MRI_WINDOW_BLOCKS && !g_cancellable_is_cancelled (cancellable); b++)
    {
      gsize first, last;
      guint c;

      ef_mri_block_bounds (pr->t->m, EF_MRI_WINDOW_BLOCKS, b, &first, &last);
      for (c = 0; c < pr->n_coils && !g_cancellable_is_cancelled (cancellable); c++)
        if (!ef_mri_run_sum_add (&run, pr->t, pr->d + (gsize) c * pr->t->m, NULL, first, last, &pr->g,
                                 acc + (gsize) c * pr->nv, &error))
          {
            ef_mri_prepared_unref (pr);
            ef_mri_run_clear (&run);
            g_task_return_error (task, error);
            return;
          }
      /* a block some of whose coils were left out is not shown */
      if (c < pr->n_coils)
        break;
      ef_mri_window_publish (self, pr, acc, last, NULL, 0, &run);
      ef_mri_window_hold (self, &self->hold_after, b, cancellable);
    }
  ef_mri_prepared_unref (pr);
  ef_mri_run_clear (&run);
  g_task_return_boolean (task, TRUE);
#else
  (void) source;
  (void) task_data;
  (void) cancellable;
  g_task_return_new_error (task, EF_IO_ERROR, EF_IO_ERROR_FORMAT, "%s",
                           _("This build reads no ISMRMRD files (it was built without libismrmrd)"));
#endif
}

/* ---- least squares ---- */

struct _EfMriLs {
  EfMriWindow   *self;       /* borrowed: the task holds a reference */
  EfMriPrepared *prep;       /* owned reference */
  EfCf64        *coils;      /* owned copy: the coils' F^H W d */
  guint          choice;     /* as the window's coil_choice */
  EfMriRun       run;        /* owned: where Q's sum runs */
  GCancellable  *cancel;     /* owned reference */
  EfCf64        *x;          /* owned: the result, NULL before the first iteration */
  guint          iterations;
  gboolean       cancelled;
  char          *report;     /* owned */
};

EfMriLs *
ef_mri_window_ls_new (EfMriWindow *self)
{
  EfMriLs *ls = g_new0 (EfMriLs, 1);

  ls->self = self;
  ls->prep = ef_mri_prepared_ref (self->prep);
  ls->coils = g_memdup2 (self->coil_images, self->prep->n_coils * self->prep->nv * sizeof (EfCf64));
  ls->choice = self->coil_choice;
  ef_mri_run_copy (&self->run, &ls->run);
  ls->cancel = g_object_ref (self->ls_cancellable);
  return ls;
}

void
ef_mri_window_ls_free (gpointer p)
{
  EfMriLs *ls = p;

  ef_mri_prepared_unref (ls->prep);
  g_free (ls->coils);
  ef_mri_run_clear (&ls->run);
  g_clear_object (&ls->cancel);
  g_free (ls->x);
  g_free (ls->report);
  g_free (ls);
}

EfCf64 *
ef_mri_window_ls_steal_image (EfMriLs *ls)
{
  return ls->iterations > 0 ? g_steal_pointer (&ls->x) : NULL;
}

guint
ef_mri_window_ls_iterations (EfMriLs *ls)
{
  return ls->iterations;
}

gboolean
ef_mri_window_ls_cancelled (EfMriLs *ls)
{
  return ls->cancelled;
}

const char *
ef_mri_window_ls_report (EfMriLs *ls)
{
  return ls->report;
}

const EfMriRun *
ef_mri_window_ls_run (EfMriLs *ls)
{
  return &ls->run;
}

static gboolean
stopping (EfMriLs *ls)
{
  return g_cancellable_is_cancelled (ls->cancel) || g_cancellable_is_cancelled (ls->self->cancellable);
}

/* After each iteration: the iterate to the display, then go on unless cancelled. */
static gboolean
ls_step (guint k, const EfCf64 *x, gsize n, double residual, gpointer data)
{
  EfMriLs *ls = data;

  (void) n;
  (void) residual;
  ef_mri_window_publish (ls->self, ls->prep, NULL, 0, x, k, NULL);
  ef_mri_window_hold (ls->self, &ls->self->hold_iteration, k, ls->cancel);
  return !stopping (ls);
}

/* Q on the doubled grid, a block of samples at a time so that Cancel is heard between blocks, or the
 * one an earlier least squares on the same file kept (*kept TRUE). NULL with error, or NULL and no
 * error when cancelled. */
static EfMriToeplitz *
toeplitz (EfMriLs *ls, gboolean *kept, GError **error)
{
  EfMriPrepared *pr = ls->prep;
  EfMriGrid big = ef_mri_grid_doubled (&pr->g);
  gsize nb = ef_mri_grid_voxels (&big, error);
  g_autofree EfCf64 *q = NULL;
  EfMriToeplitz *T;

  if (nb == 0)
    return NULL;
  g_mutex_lock (&pr->q_lock);
  *kept = pr->q != NULL;
  T = *kept ? ef_mri_toeplitz_new (&pr->g, pr->q, error) : NULL;
  g_mutex_unlock (&pr->q_lock);
  if (*kept)
    return T;
  q = g_try_new0 (EfCf64, nb);
  if (q == NULL)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_MEMORY, "No memory for Q");
      return NULL;
    }
  for (guint b = 0; b < EF_MRI_WINDOW_BLOCKS; b++)
    {
      gsize first, last;

      if (stopping (ls))
        return NULL;
      ef_mri_block_bounds (pr->t->m, EF_MRI_WINDOW_BLOCKS, b, &first, &last);
      if (!ef_mri_run_sum_add (&ls->run, pr->t, NULL, pr->area, first, last, &big, q, error))
        return NULL;
    }
  T = ef_mri_toeplitz_new (&pr->g, q, error);
  g_mutex_lock (&pr->q_lock);
  if (T != NULL && pr->q == NULL)
    pr->q = g_steal_pointer (&q);
  g_mutex_unlock (&pr->q_lock);
  return T;
}

void
ef_mri_window_ls_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  EfMriLs *ls = task_data;
  const EfMriPrepared *pr = ls->prep;
  GError *error = NULL;
  g_autoptr (EfMriToeplitz) T = NULL;
  g_autofree EfCf64 *s = NULL, *b = NULL;
  EfMriCgParams prm = { .reg = EF_MRI_REG_NONE, .max_iter = EF_MRI_WINDOW_CG_ITERATIONS, .tol = 1e-6,
                        .step = ls_step, .step_data = ls };
  EfMriCgReport rep = { 0 };
  gboolean sense = pr->n_coils > 1 && ls->choice == 0;
  double radius = MAX (pr->g.n[0] / 5.0, 2.0);
  GString *str;
  gint64 t0 = g_get_monotonic_time ();
  double q_s;
  gboolean ok, kept = FALSE;

  (void) source;
  (void) cancellable;
  T = toeplitz (ls, &kept, &error);
  if (T == NULL)
    {
      if (error != NULL)
        g_task_return_error (task, error);
      else
        {
          ls->cancelled = TRUE;
          g_task_return_boolean (task, TRUE);
        }
      return;
    }
  q_s = (g_get_monotonic_time () - t0) / 1e6;
  t0 = g_get_monotonic_time ();
  ls->x = g_try_new0 (EfCf64, pr->nv);
  if (sense)
    {
      s = g_try_new (EfCf64, pr->n_coils * pr->nv);
      b = g_try_new (EfCf64, pr->nv);
    }
  if (ls->x == NULL || (sense && (s == NULL || b == NULL)))
    {
      g_task_return_new_error (task, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_MEMORY, "No memory for least squares");
      return;
    }
  if (sense)
    {
      /* as echoform-cli mri --coils estimate: a file carries no sensitivities; the samples are weighed */
      EfMriCoilEstimate ce = { .centre_radius = radius, .threshold = 0.05 };

      if (!ef_mri_coils_estimate (pr->t, pr->d, NULL, pr->n_coils, &pr->g, &ce, s, &error))
        {
          g_task_return_error (task, error);
          return;
        }
      ef_mri_coils_combine (s, ls->coils, pr->n_coils, pr->nv, b);
      ok = ef_mri_sense_cg_params (T, s, pr->n_coils, b, &prm, ls->x, &rep, &error);
    }
  else
    ok = ef_mri_cg (T, ls->coils + (gsize) (ls->choice > 0 ? ls->choice - 1 : 0) * pr->nv, &prm, ls->x, &rep, &error);
  if (!ok)
    {
      g_task_return_error (task, error);
      return;
    }
  ls->iterations = rep.iterations;
  ls->cancelled = rep.stopped;
  str = g_string_new (NULL);
  if (sense)
    g_string_append_printf (str, _("SENSE least squares, %u coils, sensitivities from |k| < %g cycles per FOV\n"),
                            pr->n_coils, radius);
  if (kept)
    g_string_append_printf (str, _("Least squares: Q as computed before, %u CG iterations %.2f s (CPU, FFTW)\n"),
                            rep.iterations, (g_get_monotonic_time () - t0) / 1e6);
  else
    g_string_append_printf (str, _("Least squares: Q %.2f s (%s), %u CG iterations %.2f s (CPU, FFTW)\n"), q_s,
                            ls->run.detail, rep.iterations, (g_get_monotonic_time () - t0) / 1e6);
  for (guint k = 0; k <= rep.iterations; k++)
    g_string_append_printf (str, "%s%u: %.2e", k == 0 ? "|b − Ax| / |b|  " : ", ", k, rep.residual[k]);
  ef_mri_cg_report_clear (&rep);
  ls->report = g_string_free (str, FALSE);
  g_task_return_boolean (task, TRUE);
}
