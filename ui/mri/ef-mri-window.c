/* ef-mri-window.c: an ISMRMRD file's image refined block of samples by block, its k-space, least squares. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-mri-window"
#include "config.h"

#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

#include "ef-error.h"
#include "ef-mri-blocks.h"
#include "ef-mri-cg.h"
#include "ef-mri-gridding.h"
#include "ef-mri-window.h"
#if HAVE_ISMRMRD
#include "ef-ismrmrd.h"
#endif
#ifdef EF_TEST_HOOKS
#include "ef-mri-window-test.h"
#endif

/* Blocks of samples the refinement adds one at a time, and the points the k-space view draws at most. */
#define N_BLOCKS 16
#define MAX_KSPACE_POINTS 60000
#define CG_ITERATIONS 8
/* The edge assumed for a file whose trajectory is normalised to [-1/2, 1/2] and whose header gives no
 * matrix. */
#define DEFAULT_EDGE 64

/* What the worker read and weighed; shared by the worker and the window (atomic reference count). */
typedef struct {
  char       *path;        /* owned */
  EfMriTraj  *t;           /* owned: cycles per FOV */
  EfCf64     *d;           /* owned: channel 0's samples times their density weights */
  double     *area;        /* owned: the density weights */
  EfMriGrid   g;
  gsize       nv;
  guint       n_coils;
  gboolean    edge_guessed;  /* the edge is DEFAULT_EDGE, not the file's */
  double      read_s, density_s;
} Prepared;

static void
prepared_clear (gpointer p)
{
  Prepared *pr = p;

  g_free (pr->path);
  ef_mri_traj_free (pr->t);
  g_free (pr->d);
  g_free (pr->area);
}

struct _EfMriWindow {
  GtkWindow     parent_instance;

  GtkWidget    *header_label;   /* borrowed: file, sizes, timings */
  GtkWidget    *progress_label; /* borrowed */
  GtkWidget    *residual_label; /* borrowed */
  GtkWidget    *planes_box;     /* borrowed */
  GtkWidget    *planes[3];      /* borrowed: axial, coronal, sagittal (only [0] in 2-D) */
  GtkWidget    *sliders[3];     /* borrowed: the voxel along x, y, z */
  GtkWidget    *slider_box;     /* borrowed */
  GtkWidget    *kspace;         /* borrowed */
  GtkWidget    *cancel_button;  /* borrowed */
  GtkWidget    *ls_button;      /* borrowed */

  GCancellable *cancellable;    /* owned */
  Prepared     *prep;           /* owned reference, NULL before the file is read */
  EfCf64       *image;          /* owned: nv voxels, NULL before the first block */
  double        image_max;      /* the largest magnitude */
  gsize         done;           /* samples in the image */
  gboolean      busy;
  gboolean      refined;        /* every block was added */
  guint         cursor[3];      /* the voxel the 3-D planes go through */
  char         *error;          /* owned */
  gint64        started;
  guint         kspace_points, kspace_used;
  /* test hooks: the worker waits after block hold_after (G_MAXUINT: never) until released */
  GMutex        pub_lock;       /* guards pending */
  struct _Publish *pending;     /* owned: the worker's latest result not yet shown, or NULL */
  GMutex        hold_lock;
  GCond         hold_cond;
  guint         hold_after;
};

G_DEFINE_FINAL_TYPE (EfMriWindow, ef_mri_window, GTK_TYPE_WINDOW)

/* ---- the worker ---- */

/* The latest block's result on its way to the main loop. */
typedef struct _Publish {
  Prepared    *prep;    /* owned reference */
  EfCf64      *image;   /* owned copy, NULL before the first block */
  gsize        done;
} Publish;

static gboolean publish_idle (gpointer data);

/* Hands the image after a block to the main loop. A result the main loop has not taken yet is replaced,
 * not queued, so that one copy at most waits however slow the display. */
G_GNUC_UNUSED static void
publish (EfMriWindow *self, Prepared *prep, const EfCf64 *img, gsize done)
{
  EfCf64 *copy = img != NULL ? g_memdup2 (img, prep->nv * sizeof (EfCf64)) : NULL;
  gboolean schedule = FALSE;

  g_mutex_lock (&self->pub_lock);
  if (self->pending == NULL)
    {
      self->pending = g_new0 (Publish, 1);
      self->pending->prep = g_atomic_rc_box_acquire (prep);
      schedule = TRUE;
    }
  if (copy != NULL)
    {
      g_free (self->pending->image);
      self->pending->image = copy;
      self->pending->done = done;
    }
  g_mutex_unlock (&self->pub_lock);
  if (schedule)
    g_main_context_invoke (NULL, publish_idle, g_object_ref (self));
}

#if HAVE_ISMRMRD
/* Reads the file, picks the grid and weighs the samples. */
static Prepared *
prepare (const char *path, GError **error)
{
  g_autofree EfCf64 *d = NULL;
  EfMriTraj *t = NULL;
  EfIsmrmrdInfo info;
  Prepared *pr;
  double kmax = 0;
  gint64 t0 = g_get_monotonic_time ();
  guint n;

  if (!ef_ismrmrd_read_coils (path, 1.0, &info, &t, &d, error))
    return NULL;
  pr = g_atomic_rc_box_new0 (Prepared);
  pr->path = g_strdup (path);
  pr->t = t;
  pr->n_coils = info.n_coils;
  pr->d = g_steal_pointer (&d);
  if (info.n_coils > 1)
    pr->d = g_realloc (pr->d, t->m * sizeof (EfCf64));
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
  pr->read_s = (g_get_monotonic_time () - t0) / 1e6;
  t0 = g_get_monotonic_time ();
  pr->area = g_try_new (double, t->m);
  if (pr->nv == 0 || pr->area == NULL || !ef_mri_density_pipe (t, &pr->g, 4, 20, pr->area, error))
    {
      if (pr->nv != 0 && pr->area == NULL)
        g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_MEMORY, "No memory for the density weights");
      g_atomic_rc_box_release_full (pr, prepared_clear);
      return NULL;
    }
  for (gsize i = 0; i < t->m; i++)
    {
      pr->area[i] /= (double) pr->nv;
      pr->d[i] *= pr->area[i];
    }
  pr->density_s = (g_get_monotonic_time () - t0) / 1e6;
  return pr;
}
#endif

static void
refine_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
#if HAVE_ISMRMRD
  EfMriWindow *self = source;
  GError *error = NULL;
  Prepared *pr = prepare (task_data, &error);
  g_autofree EfCf64 *acc = NULL;

  if (pr == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  publish (self, pr, NULL, 0);
  acc = g_try_new0 (EfCf64, pr->nv);
  if (acc == NULL)
    {
      g_atomic_rc_box_release_full (pr, prepared_clear);
      g_task_return_new_error (task, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_MEMORY, "No memory for the image");
      return;
    }
  for (guint b = 0; b < N_BLOCKS; b++)
    {
      gsize first, last;

      if (g_cancellable_is_cancelled (cancellable))
        break;
      ef_mri_block_bounds (pr->t->m, N_BLOCKS, b, &first, &last);
      if (!ef_mri_adjoint_add_range (pr->t, pr->d, first, last, &pr->g, acc, 0, &error))
        {
          g_atomic_rc_box_release_full (pr, prepared_clear);
          g_task_return_error (task, error);
          return;
        }
      publish (self, pr, acc, last);
      g_mutex_lock (&self->hold_lock);
      while (b == self->hold_after && !g_cancellable_is_cancelled (cancellable))
        g_cond_wait (&self->hold_cond, &self->hold_lock);
      g_mutex_unlock (&self->hold_lock);
    }
  g_atomic_rc_box_release_full (pr, prepared_clear);
  g_task_return_boolean (task, TRUE);
#else
  (void) source;
  (void) task_data;
  (void) cancellable;
  g_task_return_new_error (task, EF_IO_ERROR, EF_IO_ERROR_FORMAT, "%s",
                           _("This build reads no ISMRMRD files (it was built without libismrmrd)"));
#endif
}

/* ---- drawing ---- */

/* Plane i's pixel size: 0 axial (x, y), 1 coronal (x, z), 2 sagittal (y, z). */
static void
plane_size (const EfMriGrid *g, guint i, guint *w, guint *h)
{
  *w = i == 2 ? g->n[1] : g->n[0];
  *h = i == 0 ? g->n[1] : g->n[2];
}

static gsize
plane_voxel (EfMriWindow *self, guint i, guint col, guint row)
{
  const EfMriGrid *g = &self->prep->g;
  guint x = self->cursor[0], y = self->cursor[1], z = self->cursor[2];

  if (i == 0)
    x = col, y = row;
  else if (i == 1)
    x = col, z = row;
  else
    y = col, z = row;
  return ((gsize) z * g->n[1] + y) * g->n[0] + x;
}

static void
draw_plane (GtkDrawingArea *area, cairo_t *cr, int width, int height, gpointer user_data)
{
  EfMriWindow *self = user_data;
  guint i = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (area), "plane"));
  cairo_surface_t *surf;
  guint w, h, stride;
  unsigned char *px;
  double s;

  if (self->prep == NULL || self->image == NULL)
    return;
  plane_size (&self->prep->g, i, &w, &h);
  surf = cairo_image_surface_create (CAIRO_FORMAT_RGB24, (int) w, (int) h);
  stride = (guint) cairo_image_surface_get_stride (surf);
  px = cairo_image_surface_get_data (surf);
  for (guint r = 0; r < h; r++)
    for (guint c = 0; c < w; c++)
      {
        /* y (and z) up: the first row drawn is the last voxel row */
        double m = cabs (self->image[plane_voxel (self, i, c, h - 1 - r)]);
        guint v = self->image_max > 0 ? (guint) CLAMP (255.0 * m / self->image_max, 0, 255) : 0;

        ((guint32 *) (px + (gsize) r * stride))[c] = (v << 16) | (v << 8) | v;
      }
  cairo_surface_mark_dirty (surf);
  s = MIN ((double) width / w, (double) height / h);
  cairo_translate (cr, (width - s * w) / 2, (height - s * h) / 2);
  cairo_scale (cr, s, s);
  cairo_set_source_surface (cr, surf, 0, 0);
  cairo_pattern_set_filter (cairo_get_source (cr), CAIRO_FILTER_NEAREST);
  cairo_paint (cr);
  cairo_surface_destroy (surf);
  if (self->prep->g.dim == 3)
    {
      /* where the other planes cut this one */
      double cx = i == 2 ? self->cursor[1] : self->cursor[0];
      double cy = i == 0 ? self->cursor[1] : self->cursor[2];

      cairo_set_source_rgba (cr, 1.0, 0.6, 0.1, 0.6);
      cairo_set_line_width (cr, 1 / s);
      cairo_move_to (cr, cx + 0.5, 0);
      cairo_line_to (cr, cx + 0.5, h);
      cairo_move_to (cr, 0, h - cy - 0.5);
      cairo_line_to (cr, w, h - cy - 0.5);
      cairo_stroke (cr);
    }
}

/* The grey scale: a ramp from 0 to the largest magnitude. */
static void
draw_scale (GtkDrawingArea *area, cairo_t *cr, int width, int height, gpointer user_data)
{
  EfMriWindow *self = user_data;
  cairo_pattern_t *ramp = cairo_pattern_create_linear (8, 0, width - 8, 0);
  char label[64];

  (void) area;
  cairo_pattern_add_color_stop_rgb (ramp, 0, 0, 0, 0);
  cairo_pattern_add_color_stop_rgb (ramp, 1, 1, 1, 1);
  cairo_rectangle (cr, 8, 2, width - 16, height / 2 - 2);
  cairo_set_source (cr, ramp);
  cairo_fill (cr);
  cairo_pattern_destroy (ramp);
  cairo_set_source_rgb (cr, 0.5, 0.5, 0.5);
  cairo_set_font_size (cr, 11);
  cairo_move_to (cr, 8, height - 3);
  cairo_show_text (cr, "0");
  g_snprintf (label, sizeof label, _("|image| %.4g"), self->image_max);
  {
    cairo_text_extents_t ext;

    cairo_text_extents (cr, label, &ext);
    cairo_move_to (cr, width - 8 - ext.x_advance, height - 3);
  }
  cairo_show_text (cr, label);
}

/* The trajectory's kx, ky (a projection along kz in 3-D): the samples already summed in orange. */
static void
draw_kspace (GtkDrawingArea *area, cairo_t *cr, int width, int height, gpointer user_data)
{
  EfMriWindow *self = user_data;
  const EfMriTraj *t;
  double s, half;
  gsize step;

  (void) area;
  /* a square plot, centred */
  cairo_set_source_rgb (cr, 0.08, 0.08, 0.1);
  cairo_rectangle (cr, (width - MIN (width, height)) / 2.0, (height - MIN (width, height)) / 2.0, MIN (width, height),
                   MIN (width, height));
  cairo_fill (cr);
  self->kspace_points = self->kspace_used = 0;
  if (self->prep == NULL)
    return;
  t = self->prep->t;
  half = self->prep->g.n[0] / 2.0;
  s = (MIN (width, height) - 8) / (2 * half);
  step = MAX ((gsize) 1, (t->m + MAX_KSPACE_POINTS - 1) / MAX_KSPACE_POINTS);
  for (int pass = 0; pass < 2; pass++)
    {
      if (pass == 0)
        cairo_set_source_rgb (cr, 0.35, 0.35, 0.4);
      else
        cairo_set_source_rgb (cr, 1.0, 0.55, 0.1);
      for (gsize i = 0; i < t->m; i += step)
        {
          gboolean used = i < self->done;

          if (used != (pass == 1))
            continue;
          cairo_rectangle (cr, width / 2.0 + s * t->k[i * t->dim] - 0.75,
                           height / 2.0 - s * t->k[i * t->dim + 1] - 0.75, 1.5, 1.5);
          self->kspace_points++;
          self->kspace_used += used;
        }
      cairo_fill (cr);
    }
  cairo_set_source_rgb (cr, 0.7, 0.7, 0.7);
  cairo_set_font_size (cr, 11);
  cairo_move_to (cr, (width - MIN (width, height)) / 2.0 + 6, (height - MIN (width, height)) / 2.0 + 14);
  cairo_show_text (cr, t->dim == 3 ? _("k-space: kx, ky (all kz)") : _("k-space: kx, ky"));
}

/* ---- the main loop's side ---- */

static void
update_header (EfMriWindow *self)
{
  const Prepared *pr = self->prep;
  g_autofree char *name = g_path_get_basename (pr->path);
  g_autofree char *dims = NULL, *text = NULL;

  if (pr->g.dim == 3)
    dims = g_strdup_printf ("%u × %u × %u", pr->g.n[0], pr->g.n[1], pr->g.n[2]);
  else
    dims = g_strdup_printf ("%u × %u", pr->g.n[0], pr->g.n[1]);
  /* Translators: the MRI window's header: file, image size, samples, channels, timings */
  text = g_strdup_printf (_("%s\n%u-D image %s%s\n%'lu samples, channel 1 of %u\n"
                            "read %.2f s, density weights %.2f s (Pipe–Menon, CPU)"),
                          name, pr->g.dim, dims, pr->edge_guessed ? _(" (assumed: the file gives no matrix)") : "",
                          (unsigned long) pr->t->m, pr->n_coils, pr->read_s, pr->density_s);
  gtk_label_set_text (GTK_LABEL (self->header_label), text);
}

static void
set_planes (EfMriWindow *self)
{
  guint np = self->prep->g.dim == 3 ? 3 : 1;

  for (guint i = 0; i < 3; i++)
    gtk_widget_set_visible (gtk_widget_get_parent (self->planes[i]), i < np);
  /* one plane needs no name */
  gtk_widget_set_visible (gtk_widget_get_prev_sibling (self->planes[0]), np == 3);
  /* one plane: k-space beside it; three: k-space in the fourth corner */
  g_object_ref (self->kspace);
  gtk_grid_remove (GTK_GRID (self->planes_box), self->kspace);
  gtk_grid_attach (GTK_GRID (self->planes_box), self->kspace, 1, np == 3 ? 1 : 0, 1, 1);
  g_object_unref (self->kspace);
  gtk_widget_set_visible (self->slider_box, np == 3);
  for (guint a = 0; a < 3; a++)
    {
      guint n = self->prep->g.n[a];

      self->cursor[a] = n / 2;
      gtk_range_set_range (GTK_RANGE (self->sliders[a]), 0, MAX (n, 2u) - 1);
      gtk_range_set_value (GTK_RANGE (self->sliders[a]), n / 2);
    }
}

static void
set_image (EfMriWindow *self, EfCf64 *img)
{
  g_free (self->image);
  self->image = img;
  self->image_max = 0;
  for (gsize v = 0; v < self->prep->nv; v++)
    self->image_max = MAX (self->image_max, cabs (img[v]));
  for (guint i = 0; i < 3; i++)
    gtk_widget_queue_draw (self->planes[i]);
  gtk_widget_queue_draw (g_object_get_data (G_OBJECT (self), "scale"));
}

static gboolean
publish_idle (gpointer data)
{
  EfMriWindow *self = data;
  Publish *p;

  g_mutex_lock (&self->pub_lock);
  p = g_steal_pointer (&self->pending);
  g_mutex_unlock (&self->pub_lock);
  if (!g_cancellable_is_cancelled (self->cancellable))
    {
      if (self->prep == NULL)
        {
          self->prep = g_atomic_rc_box_acquire (p->prep);
          update_header (self);
          set_planes (self);
        }
      if (p->image != NULL)
        {
          char text[160];

          self->done = p->done;
          set_image (self, g_steal_pointer (&p->image));
          g_snprintf (text, sizeof text, _("samples %'lu of %'lu (F^H d, exact, CPU), %.2f s"),
                      (unsigned long) p->done, (unsigned long) self->prep->t->m,
                      (g_get_monotonic_time () - self->started) / 1e6);
          gtk_label_set_text (GTK_LABEL (self->progress_label), text);
        }
      gtk_widget_queue_draw (self->kspace);
    }
  g_free (p->image);
  g_atomic_rc_box_release_full (p->prep, prepared_clear);
  g_free (p);
  g_object_unref (self);
  return G_SOURCE_REMOVE;
}

static void
show_error (EfMriWindow *self, const GError *error)
{
  g_free (self->error);
  self->error = g_strdup (error->message);
  gtk_label_set_text (GTK_LABEL (self->progress_label), error->message);
}

static void
refine_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  EfMriWindow *self = EF_MRI_WINDOW (source);
  g_autoptr (GError) error = NULL;

  (void) user_data;
  self->busy = FALSE;
  gtk_widget_set_sensitive (self->cancel_button, FALSE);
  if (!g_task_propagate_boolean (G_TASK (result), &error)
      && !g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      show_error (self, error);
      return;
    }
  if (self->prep != NULL && self->done == self->prep->t->m && error == NULL)
    {
      self->refined = TRUE;
      gtk_widget_set_sensitive (self->ls_button, TRUE);
    }
  else
    {
      char text[160];

      g_snprintf (text, sizeof text, _("cancelled at %'lu samples"), (unsigned long) self->done);
      gtk_label_set_text (GTK_LABEL (self->progress_label), text);
    }
}

void
ef_mri_window_open (EfMriWindow *self, const char *path)
{
  g_autoptr (GTask) task = NULL;
  g_autofree char *name = NULL;

  g_return_if_fail (EF_IS_MRI_WINDOW (self));
  g_return_if_fail (path != NULL);
  g_return_if_fail (!self->busy && self->prep == NULL);

  name = g_filename_display_basename (path);
  gtk_window_set_title (GTK_WINDOW (self), name);
  gtk_label_set_text (GTK_LABEL (self->header_label), name);
  gtk_label_set_text (GTK_LABEL (self->progress_label), _("Reading the samples and their density weights…"));
  self->busy = TRUE;
  self->started = g_get_monotonic_time ();
  gtk_widget_set_sensitive (self->cancel_button, TRUE);
  task = g_task_new (self, self->cancellable, refine_done, NULL);
  g_task_set_task_data (task, g_strdup (path), g_free);
  g_task_run_in_thread (task, refine_thread);
}

/* ---- least squares ---- */

typedef struct {
  Prepared *prep;     /* owned reference */
  EfCf64   *b;        /* owned: F^H W d */
  EfCf64   *x;        /* owned: the result */
  char     *report;   /* owned */
} LsData;

static void
ls_data_free (gpointer p)
{
  LsData *ls = p;

  g_atomic_rc_box_release_full (ls->prep, prepared_clear);
  g_free (ls->b);
  g_free (ls->x);
  g_free (ls->report);
  g_free (ls);
}

static void
ls_thread (GTask *task, gpointer source, gpointer task_data, GCancellable *cancellable)
{
  LsData *ls = task_data;
  const Prepared *pr = ls->prep;
  EfMriGrid big = ef_mri_grid_doubled (&pr->g);
  GError *error = NULL;
  gsize nb = ef_mri_grid_voxels (&big, &error);
  g_autofree EfCf64 *q = NULL;
  g_autoptr (EfMriToeplitz) T = NULL;
  EfMriCgParams prm = { .reg = EF_MRI_REG_NONE, .max_iter = CG_ITERATIONS, .tol = 1e-6 };
  EfMriCgReport rep;
  GString *s;
  gint64 t0 = g_get_monotonic_time ();
  double q_s;

  (void) source;
  (void) cancellable;
  if (nb == 0 || (q = g_try_new (EfCf64, nb)) == NULL)
    {
      if (error == NULL)
        g_set_error (&error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_MEMORY, "No memory for Q");
      g_task_return_error (task, error);
      return;
    }
  if (!ef_mri_q (pr->t, pr->area, &big, q, 0, &error) || (T = ef_mri_toeplitz_new (&pr->g, q, &error)) == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  q_s = (g_get_monotonic_time () - t0) / 1e6;
  t0 = g_get_monotonic_time ();
  ls->x = g_new0 (EfCf64, pr->nv);
  if (!ef_mri_cg (T, ls->b, &prm, ls->x, &rep, &error))
    {
      g_task_return_error (task, error);
      return;
    }
  s = g_string_new (NULL);
  g_string_append_printf (s, _("Least squares: Q %.2f s, %u CG iterations %.2f s (CPU, FFTW)\n"), q_s, rep.iterations,
                          (g_get_monotonic_time () - t0) / 1e6);
  for (guint k = 0; k <= rep.iterations; k++)
    g_string_append_printf (s, "%s%u: %.2e", k == 0 ? "|b − Ax| / |b|  " : ", ", k, rep.residual[k]);
  ef_mri_cg_report_clear (&rep);
  ls->report = g_string_free (s, FALSE);
  g_task_return_boolean (task, TRUE);
}

static void
ls_done (GObject *source, GAsyncResult *result, gpointer user_data)
{
  EfMriWindow *self = EF_MRI_WINDOW (source);
  LsData *ls = g_task_get_task_data (G_TASK (result));
  g_autoptr (GError) error = NULL;

  (void) user_data;
  self->busy = FALSE;
  gtk_widget_set_sensitive (self->ls_button, TRUE);
  if (!g_task_propagate_boolean (G_TASK (result), &error))
    {
      show_error (self, error);
      return;
    }
  set_image (self, g_steal_pointer (&ls->x));
  gtk_label_set_text (GTK_LABEL (self->residual_label), ls->report);
  gtk_label_set_text (GTK_LABEL (self->progress_label), _("least-squares image (conjugate gradients through Q)"));
}

static void
least_squares (EfMriWindow *self)
{
  g_autoptr (GTask) task = NULL;
  LsData *ls;

  if (self->busy || !self->refined)
    return;
  ls = g_new0 (LsData, 1);
  ls->prep = g_atomic_rc_box_acquire (self->prep);
  ls->b = g_memdup2 (self->image, self->prep->nv * sizeof (EfCf64));
  self->busy = TRUE;
  gtk_widget_set_sensitive (self->ls_button, FALSE);
  gtk_label_set_text (GTK_LABEL (self->residual_label), _("Least squares: computing Q and conjugate gradients…"));
  task = g_task_new (self, self->cancellable, ls_done, NULL);
  g_task_set_task_data (task, ls, ls_data_free);
  g_task_run_in_thread (task, ls_thread);
}

/* ---- widgets ---- */

static void
slider_changed (GtkRange *range, EfMriWindow *self)
{
  guint a = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (range), "axis"));

  self->cursor[a] = (guint) gtk_range_get_value (range);
  for (guint i = 0; i < 3; i++)
    gtk_widget_queue_draw (self->planes[i]);
}

/* A click at (x, y) on plane i moves the other planes through the voxel clicked. */
static void
pick (EfMriWindow *self, guint i, double x, double y)
{
  GtkWidget *area = self->planes[i];
  int width = gtk_widget_get_width (area), height = gtk_widget_get_height (area);
  guint w, h, ca, ra;
  double s, col, row;

  if (self->prep == NULL || self->prep->g.dim != 3)
    return;
  plane_size (&self->prep->g, i, &w, &h);
  s = MIN ((double) width / w, (double) height / h);
  col = (x - (width - s * w) / 2) / s;
  row = h - (y - (height - s * h) / 2) / s;
  if (col < 0 || row < 0 || col >= w || row >= h)
    return;
  ca = i == 2 ? 1 : 0;
  ra = i == 0 ? 1 : 2;
  gtk_range_set_value (GTK_RANGE (self->sliders[ca]), floor (col));
  gtk_range_set_value (GTK_RANGE (self->sliders[ra]), floor (row));
}

static void
plane_clicked (GtkGestureClick *gesture, int n_press, double x, double y, EfMriWindow *self)
{
  GtkWidget *area = gtk_event_controller_get_widget (GTK_EVENT_CONTROLLER (gesture));

  (void) n_press;
  pick (self, GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (area), "plane")), x, y);
}

static GtkWidget *
new_area (EfMriWindow *self, GtkDrawingAreaDrawFunc func, int w, int h)
{
  GtkWidget *a = gtk_drawing_area_new ();

  gtk_drawing_area_set_content_width (GTK_DRAWING_AREA (a), w);
  gtk_drawing_area_set_content_height (GTK_DRAWING_AREA (a), h);
  gtk_drawing_area_set_draw_func (GTK_DRAWING_AREA (a), func, self, NULL);
  return a;
}

static void
ef_mri_window_init (EfMriWindow *self)
{
  static const char *const plane_names[3] = { N_("axial (x, y)"), N_("coronal (x, z)"), N_("sagittal (y, z)") };
  static const char *const axis_names[3] = { "x", "y", "z" };
  GtkWidget *root = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 12);
  GtkWidget *side = gtk_box_new (GTK_ORIENTATION_VERTICAL, 8);
  GtkWidget *scale, *title;

  self->cancellable = g_cancellable_new ();
  g_mutex_init (&self->pub_lock);
  g_mutex_init (&self->hold_lock);
  g_cond_init (&self->hold_cond);
  self->hold_after = G_MAXUINT;
  gtk_window_set_title (GTK_WINDOW (self), _("MRI reconstruction"));
  gtk_window_set_default_size (GTK_WINDOW (self), 1180, 720);
  gtk_widget_set_margin_start (root, 12);
  gtk_widget_set_margin_end (root, 12);
  gtk_widget_set_margin_top (root, 12);
  gtk_widget_set_margin_bottom (root, 12);

  self->planes_box = gtk_grid_new ();
  gtk_grid_set_row_spacing (GTK_GRID (self->planes_box), 6);
  gtk_grid_set_column_spacing (GTK_GRID (self->planes_box), 6);
  gtk_widget_set_hexpand (self->planes_box, TRUE);
  for (guint i = 0; i < 3; i++)
    {
      GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);
      GtkGesture *click = gtk_gesture_click_new ();

      self->planes[i] = new_area (self, draw_plane, 300, 300);
      gtk_widget_set_hexpand (self->planes[i], TRUE);
      gtk_widget_set_vexpand (self->planes[i], TRUE);
      g_object_set_data (G_OBJECT (self->planes[i]), "plane", GUINT_TO_POINTER (i));
      g_signal_connect (click, "pressed", G_CALLBACK (plane_clicked), self);
      gtk_widget_add_controller (self->planes[i], GTK_EVENT_CONTROLLER (click));
      gtk_box_append (GTK_BOX (box), gtk_label_new (_(plane_names[i])));
      gtk_box_append (GTK_BOX (box), self->planes[i]);
      gtk_grid_attach (GTK_GRID (self->planes_box), box, i % 2, i / 2, 1, 1);
    }
  self->kspace = new_area (self, draw_kspace, 300, 300);
  gtk_widget_set_hexpand (self->kspace, TRUE);
  gtk_widget_set_vexpand (self->kspace, TRUE);
  gtk_grid_attach (GTK_GRID (self->planes_box), self->kspace, 1, 1, 1, 1);
  gtk_box_append (GTK_BOX (root), self->planes_box);

  gtk_widget_set_size_request (side, 340, -1);
  title = gtk_label_new (_("MRI reconstruction"));
  gtk_widget_add_css_class (title, "title-3");
  gtk_label_set_xalign (GTK_LABEL (title), 0);
  gtk_box_append (GTK_BOX (side), title);
  self->header_label = gtk_label_new ("");
  self->progress_label = gtk_label_new ("");
  self->residual_label = gtk_label_new ("");
  for (guint i = 0; i < 3; i++)
    {
      GtkWidget *l = i == 0 ? self->header_label : i == 1 ? self->progress_label : self->residual_label;

      gtk_label_set_xalign (GTK_LABEL (l), 0);
      gtk_label_set_wrap (GTK_LABEL (l), TRUE);
    }
  gtk_box_append (GTK_BOX (side), self->header_label);
  gtk_box_append (GTK_BOX (side), self->progress_label);
  scale = new_area (self, draw_scale, 320, 34);
  g_object_set_data (G_OBJECT (self), "scale", scale);
  gtk_box_append (GTK_BOX (side), scale);

  self->slider_box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);
  gtk_box_append (GTK_BOX (self->slider_box), gtk_label_new (_("Planes through the voxel (x, y, z)")));
  for (guint a = 0; a < 3; a++)
    {
      GtkWidget *row = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 4);

      self->sliders[a] = gtk_scale_new_with_range (GTK_ORIENTATION_HORIZONTAL, 0, 1, 1);
      gtk_scale_set_digits (GTK_SCALE (self->sliders[a]), 0);
      gtk_scale_set_draw_value (GTK_SCALE (self->sliders[a]), TRUE);
      gtk_widget_set_hexpand (self->sliders[a], TRUE);
      g_object_set_data (G_OBJECT (self->sliders[a]), "axis", GUINT_TO_POINTER (a));
      g_signal_connect (self->sliders[a], "value-changed", G_CALLBACK (slider_changed), self);
      gtk_box_append (GTK_BOX (row), gtk_label_new (axis_names[a]));
      gtk_box_append (GTK_BOX (row), self->sliders[a]);
      gtk_box_append (GTK_BOX (self->slider_box), row);
    }
  gtk_widget_set_visible (self->slider_box, FALSE);
  gtk_box_append (GTK_BOX (side), self->slider_box);

  self->cancel_button = gtk_button_new_with_mnemonic (_("_Cancel"));
  gtk_widget_set_sensitive (self->cancel_button, FALSE);
  g_signal_connect_swapped (self->cancel_button, "clicked", G_CALLBACK (g_cancellable_cancel), self->cancellable);
  gtk_box_append (GTK_BOX (side), self->cancel_button);
  self->ls_button = gtk_button_new_with_mnemonic (_("_Least squares"));
  gtk_widget_set_tooltip_text (self->ls_button, _("Conjugate gradients through Q (F^H W F as a convolution), "
                                                  "starting from zero, a few iterations"));
  gtk_widget_set_sensitive (self->ls_button, FALSE);
  g_signal_connect_swapped (self->ls_button, "clicked", G_CALLBACK (least_squares), self);
  gtk_box_append (GTK_BOX (side), self->ls_button);
  gtk_box_append (GTK_BOX (side), self->residual_label);
  gtk_box_append (GTK_BOX (root), side);
  gtk_window_set_child (GTK_WINDOW (self), root);
}

static void
ef_mri_window_dispose (GObject *object)
{
  EfMriWindow *self = EF_MRI_WINDOW (object);

  g_mutex_lock (&self->hold_lock);
  g_cancellable_cancel (self->cancellable);
  g_cond_broadcast (&self->hold_cond);
  g_mutex_unlock (&self->hold_lock);
  G_OBJECT_CLASS (ef_mri_window_parent_class)->dispose (object);
}

static void
ef_mri_window_finalize (GObject *object)
{
  EfMriWindow *self = EF_MRI_WINDOW (object);

  g_clear_object (&self->cancellable);
  g_mutex_clear (&self->pub_lock);
  g_mutex_clear (&self->hold_lock);
  g_cond_clear (&self->hold_cond);
  if (self->prep != NULL)
    g_atomic_rc_box_release_full (self->prep, prepared_clear);
  g_free (self->image);
  g_free (self->error);
  G_OBJECT_CLASS (ef_mri_window_parent_class)->finalize (object);
}

static void
ef_mri_window_class_init (EfMriWindowClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = ef_mri_window_dispose;
  G_OBJECT_CLASS (klass)->finalize = ef_mri_window_finalize;
}

EfMriWindow *
ef_mri_window_new (GtkApplication *app)
{
  return g_object_new (EF_TYPE_MRI_WINDOW, "application", app, NULL);
}

gboolean
ef_mri_window_accepts (const char *path)
{
  g_autofree char *lower = NULL;

  g_return_val_if_fail (path != NULL, FALSE);
  lower = g_ascii_strdown (path, -1);
  return g_str_has_suffix (lower, ".h5") || g_str_has_suffix (lower, ".mrd") || g_str_has_suffix (lower, ".ismrmrd");
}

#ifdef EF_TEST_HOOKS
gboolean
ef_mri_window_test_is_idle (EfMriWindow *self)
{
  return !self->busy;
}

const char *
ef_mri_window_test_error (EfMriWindow *self)
{
  return self->error;
}

const EfCf64 *
ef_mri_window_test_image (EfMriWindow *self, guint n[3])
{
  for (guint a = 0; a < 3; a++)
    n[a] = self->prep != NULL ? self->prep->g.n[a] : 0;
  return self->image;
}

void
ef_mri_window_test_samples (EfMriWindow *self, gsize *done, gsize *total)
{
  *done = self->done;
  *total = self->prep != NULL ? self->prep->t->m : 0;
}

guint
ef_mri_window_test_n_planes (EfMriWindow *self)
{
  guint n = 0;

  for (guint i = 0; i < 3; i++)
    n += gtk_widget_get_visible (gtk_widget_get_parent (self->planes[i]));
  return n;
}

void
ef_mri_window_test_plane_size (EfMriWindow *self, guint i, guint *w, guint *h)
{
  g_return_if_fail (self->prep != NULL && i < 3);
  plane_size (&self->prep->g, i, w, h);
}

void
ef_mri_window_test_kspace_drawn (EfMriWindow *self, guint *points, guint *used)
{
  *points = self->kspace_points;
  *used = self->kspace_used;
}

void
ef_mri_window_test_least_squares (EfMriWindow *self)
{
  least_squares (self);
}

void
ef_mri_window_test_hold_after (EfMriWindow *self, guint block)
{
  g_mutex_lock (&self->hold_lock);
  self->hold_after = block;
  g_cond_broadcast (&self->hold_cond);
  g_mutex_unlock (&self->hold_lock);
}

void
ef_mri_window_test_cancel (EfMriWindow *self)
{
  g_signal_emit_by_name (self->cancel_button, "clicked");
}

const char *
ef_mri_window_test_progress (EfMriWindow *self)
{
  return gtk_label_get_text (GTK_LABEL (self->progress_label));
}

void
ef_mri_window_test_click_voxel (EfMriWindow *self, guint i, double col, double row)
{
  int width = gtk_widget_get_width (self->planes[i]), height = gtk_widget_get_height (self->planes[i]);
  guint w, h;
  double s;

  g_return_if_fail (self->prep != NULL && i < 3);
  plane_size (&self->prep->g, i, &w, &h);
  s = MIN ((double) width / w, (double) height / h);
  pick (self, i, (width - s * w) / 2 + s * col, (height - s * h) / 2 + s * (h - row));
}

void
ef_mri_window_test_cursor (EfMriWindow *self, guint cursor[3])
{
  for (guint a = 0; a < 3; a++)
    cursor[a] = self->cursor[a];
}

const char *
ef_mri_window_test_residuals (EfMriWindow *self)
{
  return gtk_label_get_text (GTK_LABEL (self->residual_label));
}
#endif
