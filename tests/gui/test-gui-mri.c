/* test-gui-mri.c: the MRI window on ISMRMRD files written here: the refined image is the exact F^H d, the
 * k-space view draws the samples, a 3-D file shows three planes, least squares runs, Cancel stops it,
 * several coils are combined as the engine combines them and solved by SENSE, whose Cancel stops it
 * after the iteration it is in, the settings' backend is followed and what ran is said, the main
 * window's File → Open routes the file there, the window is freed. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "test-gui-mri"
#include "config.h"

#include <complex.h>
#include <glib/gstdio.h>
#include <gtk/gtk.h>
#include <math.h>
#include <string.h>

#include "ef-gui-screenshot.h"
#include "ef-gui-window-test.h"
#include "ef-mri-accel.h"
#include "ef-mri-blocks.h"
#include "ef-mri-cg.h"
#include "ef-mri-coils.h"
#include "ef-mri-gridding.h"
#include "ef-mri-phantom.h"
#include "ef-mri-window-test.h"
#if HAVE_ISMRMRD
#include "ef-ismrmrd.h"

/* Writes the Shepp-Logan phantom's samples on t to path (trajectory in cycles per FOV) and returns the
 * exact density-weighted F^H d on the n-voxel grid of what the file holds (ISMRMRD keeps float32),
 * read back and computed here in one sum. */
static EfCf64 *
write_phantom (const char *path, EfMriTraj *t, guint n)
{
  g_autoptr (GError) error = NULL;
  EfMriPhantom ph = ef_mri_phantom_shepp_logan (t->dim);
  EfMriGrid g = ef_mri_grid_image (t->dim, n);
  gsize nv = ef_mri_grid_voxels (&g, &error);
  g_autofree EfCf64 *d = g_new (EfCf64, t->m), *fd = NULL;
  g_autofree double *area = g_new (double, t->m);
  g_autoptr (EfMriTraj) ft = NULL;
  EfCf64 *ref = g_new (EfCf64, nv);

  ef_mri_phantom_sample (&ph, t, (double) nv, d, 0);
  g_assert_true (ef_ismrmrd_write (path, t, d, 2 * n, 1.0, &error));
  g_assert_no_error (error);
  g_assert_true (ef_ismrmrd_read (path, 0, 1.0, &ft, &fd, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (ft->m, ==, t->m);
  g_assert_true (ef_mri_density_pipe (ft, &g, 4, 20, area, &error));
  for (gsize i = 0; i < ft->m; i++)
    fd[i] *= area[i] / (double) nv;
  g_assert_true (ef_mri_adjoint (ft, fd, &g, ref, 0, &error));
  g_assert_no_error (error);
  return ref;
}

static void
iterate_until_idle (EfMriWindow *w, guint timeout_ms)
{
  gint64 end = g_get_monotonic_time () + (gint64) timeout_ms * 1000;

  while (!ef_mri_window_test_is_idle (w))
    {
      g_assert_cmpint (g_get_monotonic_time (), <, end);
      g_main_context_iteration (NULL, FALSE);
      g_usleep (1000);
    }
  for (int i = 0; i < 50; i++)
    g_main_context_iteration (NULL, FALSE);
}

static double
nrmse (const EfCf64 *a, const EfCf64 *ref, gsize n)
{
  double num = 0, den = 0;

  for (gsize i = 0; i < n; i++)
    {
      num += pow (cabs (a[i] - ref[i]), 2);
      den += pow (cabs (ref[i]), 2);
    }
  return sqrt (num / den);
}

static void
destroy_and_check (EfMriWindow *w)
{
  GWeakRef ref;
  GObject *alive;

  g_weak_ref_init (&ref, w);
  gtk_window_destroy (GTK_WINDOW (w));
  /* a worker still running ends first: it holds the window until it returns */
  for (int i = 0; i < 10000 && (alive = g_weak_ref_get (&ref)) != NULL; i++)
    {
      g_object_unref (alive);
      g_main_context_iteration (NULL, FALSE);
      g_usleep (1000);
    }
  alive = g_weak_ref_get (&ref);
  g_assert_null (alive);
  g_weak_ref_clear (&ref);
}

static void
test_2d (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("ef-mri-gui-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "phantom.h5", NULL);
  guint n = 64;
  g_autoptr (EfMriTraj) t = ef_mri_traj_radial (n, (guint) ceil (G_PI / 2 * n), 2 * n, &error);
  g_autofree EfCf64 *ref = write_phantom (path, t, n);
  EfMriWindow *w = ef_mri_window_new (NULL);
  const EfCf64 *img;
  guint dims[3], points, used, pw, ph;
  gsize done, total;
  double err;

  g_assert_true (ef_mri_window_accepts (path));
  g_assert_false (ef_mri_window_accepts ("data.cphd"));
  ef_mri_window_test_hold_after (w, 5);
  ef_mri_window_open (w, path);
  gtk_window_present (GTK_WINDOW (w));
  /* part way (the worker held after block 5 of 16): the image holds 6/16 of the samples and the
   * k-space view highlights just those */
  while (!(ef_mri_window_test_samples (w, &done, &total), done > 0))
    {
      g_assert_true (ef_mri_window_test_error (w) == NULL);
      g_main_context_iteration (NULL, TRUE);
    }
  for (int i = 0; i < 200 && done < 6 * total / 16; i++)
    {
      g_main_context_iteration (NULL, FALSE);
      g_usleep (5000);
      ef_mri_window_test_samples (w, &done, &total);
    }
  g_assert_cmpuint (done, ==, 6 * total / 16);
  /* the settings ask for the CPU (ef_test_app_setup): it runs, with nothing to explain */
  {
    const char *ran, *fallback;

    ef_mri_window_test_backend (w, &ran, &fallback);
    g_assert_cmpstr (ran, ==, "cpu");
    g_assert_null (fallback);
    g_assert_nonnull (strstr (ef_mri_window_test_backend_text (w), "CPU, fp64"));
  }
  gtk_test_widget_wait_for_draw (GTK_WIDGET (w));
  screenshot (GTK_WIDGET (w), "mri-2d-refining.png");
  ef_mri_window_test_kspace_drawn (w, &points, &used);
  g_test_message ("part way: %u of %u points drawn as used, %" G_GSIZE_FORMAT " of %" G_GSIZE_FORMAT
                  " samples summed", used, points, done, total);
  g_assert_cmpuint (points, ==, t->m);
  g_assert_cmpuint (used, ==, done);
  ef_mri_window_test_hold_after (w, G_MAXUINT);
  iterate_until_idle (w, 120000);
  g_assert_null (ef_mri_window_test_error (w));
  ef_mri_window_test_samples (w, &done, &total);
  g_assert_cmpuint (total, ==, t->m);
  g_assert_cmpuint (done, ==, t->m);
  img = ef_mri_window_test_image (w, dims);
  g_assert_nonnull (img);
  g_assert_cmpuint (dims[0], ==, n);
  g_assert_cmpuint (dims[1], ==, n);
  g_assert_cmpuint (dims[2], ==, 1);
  err = nrmse (img, ref, (gsize) n * n);
  g_test_message ("2-D: %" G_GSIZE_FORMAT " samples in blocks, NRMSE against the whole sum %.3e", total, err);
  g_assert_cmpfloat (err, <, 1e-9);
  g_assert_cmpuint (ef_mri_window_test_n_planes (w), ==, 1);
  ef_mri_window_test_plane_size (w, 0, &pw, &ph);
  g_assert_cmpuint (pw, ==, n);
  g_assert_cmpuint (ph, ==, n);
  gtk_test_widget_wait_for_draw (GTK_WIDGET (w));
  ef_mri_window_test_kspace_drawn (w, &points, &used);
  g_test_message ("k-space: %u points drawn, %u used", points, used);
  g_assert_cmpuint (points, ==, t->m);
  g_assert_cmpuint (used, ==, t->m);
  screenshot (GTK_WIDGET (w), "mri-2d.png");

  /* least squares replaces the image and reports falling residuals */
  ef_mri_window_test_least_squares (w);
  g_assert_false (ef_mri_window_test_is_idle (w));
  iterate_until_idle (w, 120000);
  g_assert_null (ef_mri_window_test_error (w));
  g_test_message ("%s", ef_mri_window_test_residuals (w));
  g_assert_nonnull (strstr (ef_mri_window_test_residuals (w), "|b − Ax| / |b|"));
  img = ef_mri_window_test_image (w, dims);
  g_assert_cmpfloat (nrmse (img, ref, (gsize) n * n), >, 1e-3);
  screenshot (GTK_WIDGET (w), "mri-2d-cg.png");

  /* again on the same file: Q as computed before, and the same image to the bit */
  {
    g_autofree EfCf64 *first = g_memdup2 (img, (gsize) n * n * sizeof (EfCf64));

    ef_mri_window_test_least_squares (w);
    iterate_until_idle (w, 120000);
    g_assert_null (ef_mri_window_test_error (w));
    g_test_message ("%s", ef_mri_window_test_residuals (w));
    g_assert_nonnull (strstr (ef_mri_window_test_residuals (w), "Q as computed before"));
    img = ef_mri_window_test_image (w, dims);
    g_assert_true (memcmp (img, first, (gsize) n * n * sizeof (EfCf64)) == 0);
  }

  destroy_and_check (w);
  g_unlink (path);
  g_rmdir (dir);
}

static void
test_3d (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("ef-mri-gui-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "phantom3d.mrd", NULL);
  guint n = 24;
  g_autoptr (EfMriTraj) t = ef_mri_traj_stack_of_spirals (n, n, 8, n * n / 8, &error);
  g_autofree EfCf64 *ref = write_phantom (path, t, n);
  EfMriWindow *w = ef_mri_window_new (NULL);
  const EfCf64 *img;
  guint dims[3], points, used;
  gsize done, total;
  double err;

  ef_mri_window_open (w, path);
  gtk_window_present (GTK_WINDOW (w));
  iterate_until_idle (w, 240000);
  g_assert_null (ef_mri_window_test_error (w));
  ef_mri_window_test_samples (w, &done, &total);
  g_assert_cmpuint (done, ==, t->m);
  img = ef_mri_window_test_image (w, dims);
  g_assert_cmpuint (dims[0], ==, n);
  g_assert_cmpuint (dims[1], ==, n);
  g_assert_cmpuint (dims[2], ==, n);
  err = nrmse (img, ref, (gsize) n * n * n);
  g_test_message ("3-D: %" G_GSIZE_FORMAT " samples in blocks, NRMSE against the whole sum %.3e", total, err);
  g_assert_cmpfloat (err, <, 1e-9);
  g_assert_cmpuint (ef_mri_window_test_n_planes (w), ==, 3);
  for (guint i = 0; i < 3; i++)
    {
      guint pw, ph;

      ef_mri_window_test_plane_size (w, i, &pw, &ph);
      g_assert_cmpuint (pw, ==, n);
      g_assert_cmpuint (ph, ==, n);
    }
  gtk_test_widget_wait_for_draw (GTK_WIDGET (w));
  ef_mri_window_test_kspace_drawn (w, &points, &used);
  g_assert_cmpuint (points, ==, t->m);
  g_assert_cmpuint (used, ==, t->m);
  /* clicks pick the planes: the axial plane sets x and y, the sagittal y and z */
  {
    guint c[3];

    ef_mri_window_test_click_voxel (w, 0, 5.5, 17.5);
    ef_mri_window_test_cursor (w, c);
    g_assert_cmpuint (c[0], ==, 5);
    g_assert_cmpuint (c[1], ==, 17);
    g_assert_cmpuint (c[2], ==, n / 2);
    ef_mri_window_test_click_voxel (w, 2, 9.5, 3.5);
    ef_mri_window_test_cursor (w, c);
    g_assert_cmpuint (c[0], ==, 5);
    g_assert_cmpuint (c[1], ==, 9);
    g_assert_cmpuint (c[2], ==, 3);
    ef_mri_window_test_click_voxel (w, 1, 12.5, 12.5);
    ef_mri_window_test_cursor (w, c);
    g_assert_cmpuint (c[0], ==, 12);
    g_assert_cmpuint (c[1], ==, 9);
    g_assert_cmpuint (c[2], ==, 12);
    gtk_test_widget_wait_for_draw (GTK_WIDGET (w));
  }
  screenshot (GTK_WIDGET (w), "mri-3d.png");
  destroy_and_check (w);
  g_unlink (path);
  g_rmdir (dir);
}

static void
set_backend (const char *kind)
{
  g_autoptr (GSettings) settings = g_settings_new (APP_ID);

  g_settings_set_string (settings, "backend", kind);
}

static double
rel_err (const EfCf64 *a, const EfCf64 *ref, gsize n)
{
  return nrmse (a, ref, n);
}

/* n_coils synthetic coils see the phantom's raster (the discrete model d_c = F (S_c rho)); the file is
 * written, read back, and the engine reconstructs what it holds directly: *fd the coils' density-weighted
 * samples, *coils their exact F^H d; returns their root sum of squares. */
static EfCf64 *
write_coils (const char *path, EfMriTraj *t, guint n, guint n_coils, EfMriTraj **ft, EfCf64 **fd, double **area,
             EfCf64 **coils)
{
  g_autoptr (GError) error = NULL;
  EfMriPhantom ph = ef_mri_phantom_shepp_logan (2);
  EfMriGrid g = ef_mri_grid_image (2, n);
  gsize nv = (gsize) n * n;
  g_autofree double *rho = g_new (double, nv);
  g_autofree EfCf64 *s = g_new (EfCf64, n_coils * nv), *sr = g_new (EfCf64, nv);
  g_autofree EfCf64 *d = g_new (EfCf64, n_coils * t->m);
  EfCf64 *rss = g_new (EfCf64, nv);
  EfIsmrmrdInfo info;

  ef_mri_phantom_raster (&ph, &g, 4, rho);
  ef_mri_coils_synthetic (&g, n_coils, s);
  for (guint c = 0; c < n_coils; c++)
    {
      for (gsize v = 0; v < nv; v++)
        sr[v] = s[c * nv + v] * rho[v];
      g_assert_true (ef_mri_forward (t, sr, &g, d + c * t->m, 0, &error));
    }
  g_assert_true (ef_ismrmrd_write_coils (path, t, d, n_coils, 2 * n, 1.0, &error));
  g_assert_no_error (error);
  g_assert_true (ef_ismrmrd_read_coils (path, 1.0, &info, ft, fd, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (info.n_coils, ==, n_coils);
  *area = g_new (double, t->m);
  g_assert_true (ef_mri_density_pipe (*ft, &g, 4, 20, *area, &error));
  *coils = g_new (EfCf64, n_coils * nv);
  for (gsize i = 0; i < t->m; i++)
    {
      (*area)[i] /= (double) nv;
      for (guint c = 0; c < n_coils; c++)
        (*fd)[c * t->m + i] *= (*area)[i];
    }
  for (guint c = 0; c < n_coils; c++)
    g_assert_true (ef_mri_adjoint (*ft, *fd + c * t->m, &g, *coils + c * nv, 0, &error));
  ef_mri_coils_combine (NULL, *coils, n_coils, nv, rss);
  return rss;
}

/* SENSE least squares as echoform-cli mri --coils estimate runs it, computed here in one piece: Q in one
 * sum, the maps estimated from |k| < max (n / 5, 2), iters iterations from zero. */
static EfCf64 *
sense_direct (const EfMriTraj *t, const EfCf64 *fd, const double *area, const EfCf64 *coils, guint n, guint n_coils,
              guint iters)
{
  g_autoptr (GError) error = NULL;
  EfMriGrid g = ef_mri_grid_image (2, n), big = ef_mri_grid_doubled (&g);
  gsize nv = (gsize) n * n;
  g_autofree EfCf64 *q = g_new (EfCf64, 4 * nv), *s = g_new (EfCf64, n_coils * nv), *b = g_new (EfCf64, nv);
  g_autoptr (EfMriToeplitz) T = NULL;
  EfMriCoilEstimate ce = { .centre_radius = MAX (n / 5.0, 2.0), .threshold = 0.05 };
  EfMriCgReport rep;
  EfCf64 *x = g_new0 (EfCf64, nv);

  g_assert_true (ef_mri_q (t, area, &big, q, 0, &error));
  T = ef_mri_toeplitz_new (&g, q, &error);
  g_assert_nonnull (T);
  g_assert_true (ef_mri_coils_estimate (t, fd, NULL, n_coils, &g, &ce, s, &error));
  ef_mri_coils_combine (s, coils, n_coils, nv, b);
  g_assert_true (ef_mri_sense_cg (T, s, n_coils, b, 0, iters, 1e-6, x, &rep, &error));
  g_assert_no_error (error);
  ef_mri_cg_report_clear (&rep);
  return x;
}

static gboolean
all_finite (const EfCf64 *x, gsize n)
{
  for (gsize i = 0; i < n; i++)
    if (!isfinite (creal (x[i])) || !isfinite (cimag (x[i])))
      return FALSE;
  return TRUE;
}

/* A file of several coils, the settings asking for auto on a machine without a device: every coil in the
 * image (their root sum of squares, as the engine combines them), one coil on demand, the CPU and why,
 * SENSE least squares as the engine solves it, and Cancel heard after the iteration in progress. */
static void
test_coils (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("ef-mri-gui-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "coils.h5", NULL);
  const guint n = 48, nc = 6;
  const gsize nv = (gsize) n * n;
  g_autoptr (EfMriTraj) t = ef_mri_traj_radial (n, (guint) ceil (G_PI / 2 * n), 2 * n, &error);
  g_autoptr (EfMriTraj) ft = NULL;
  g_autofree EfCf64 *fd = NULL, *coils = NULL, *ref = NULL, *sense = NULL, *sense2 = NULL;
  g_autofree double *area = NULL;
  EfMriWindow *w;
  const EfCf64 *img;
  const char *ran, *fallback;
  guint dims[3], n_coils, choice;
  double err, tol, ls_tol;
  const EfMriAccel *accel = ef_mri_accel_get ();
  g_autofree char *why = NULL;

  ref = write_coils (path, t, n, nc, &ft, &fd, &area, &coils);
  set_backend ("auto");
  w = ef_mri_window_new (NULL);
  ef_mri_window_open (w, path);
  gtk_window_present (GTK_WINDOW (w));
  iterate_until_idle (w, 120000);
  g_assert_null (ef_mri_window_test_error (w));

  /* what ran: without a device, the CPU and the reason in the main window's words; with one, the device */
  ef_mri_window_test_backend (w, &ran, &fallback);
  g_test_message ("auto: ran %s; %s; the window says “%s”", ran, fallback, ef_mri_window_test_backend_text (w));
  if (accel != NULL && accel->available (&why))
    {
      g_assert_cmpstr (ran, ==, accel->id);
      g_assert_null (fallback);
    }
  else
    {
      g_assert_cmpstr (ran, ==, "cpu");
      g_assert_nonnull (fallback);
      g_assert_true (g_str_has_suffix (fallback, "; using the CPU"));
      g_assert_nonnull (strstr (ef_mri_window_test_backend_text (w), fallback));
    }

  /* the coils: how many, and the combined image */
  ef_mri_window_test_coils (w, &n_coils, &choice);
  g_assert_cmpuint (n_coils, ==, nc);
  g_assert_cmpuint (choice, ==, 0);
  g_test_message ("coils: “%s”", ef_mri_window_test_coil_text (w));
  g_assert_nonnull (strstr (ef_mri_window_test_coil_text (w), "6 coils"));
  img = ef_mri_window_test_image (w, dims);
  g_assert_cmpuint (dims[0], ==, n);
  err = rel_err (img, ref, nv);
  /* the CPU's sums are fp64: the blocks' order of summation is the only difference; a device's are fp32 */
  tol = g_strcmp0 (ran, "cpu") == 0 ? 1e-9 : 1e-5;
  g_test_message ("%u coils combined: rel. L2 %.2e from the engine's own root sum of squares (bound %.0e)", nc, err,
                  tol);
  g_assert_cmpfloat (err, <=, tol);
  gtk_test_widget_wait_for_draw (GTK_WIDGET (w));
  screenshot (GTK_WIDGET (w), "mri-coils.png");

  /* one coil alone, then all again */
  ef_mri_window_test_choose_coil (w, 3);
  ef_mri_window_test_coils (w, &n_coils, &choice);
  g_assert_cmpuint (choice, ==, 3);
  g_assert_nonnull (strstr (ef_mri_window_test_coil_text (w), "coil 3 of 6"));
  err = rel_err (ef_mri_window_test_image (w, dims), coils + 2 * nv, nv);
  g_test_message ("coil 3 alone: rel. L2 %.2e from its F^H d", err);
  g_assert_cmpfloat (err, <=, tol);
  ef_mri_window_test_choose_coil (w, 0);
  g_assert_cmpfloat (rel_err (ef_mri_window_test_image (w, dims), ref, nv), <=, tol);

  /* SENSE least squares to the end: the engine's own result */
  g_assert_cmpstr (ef_mri_window_test_ls_label (w), ==, "_Least squares");
  ef_mri_window_test_click_least_squares (w);
  g_assert_false (ef_mri_window_test_is_idle (w));
  iterate_until_idle (w, 120000);
  g_assert_null (ef_mri_window_test_error (w));
  g_test_message ("%s", ef_mri_window_test_residuals (w));
  g_assert_nonnull (strstr (ef_mri_window_test_residuals (w), "SENSE"));
  g_assert_nonnull (strstr (ef_mri_window_test_coil_text (w), "SENSE"));
  g_assert_cmpuint (ef_mri_window_test_ls_iterations (w), ==, 8);
  sense = sense_direct (ft, fd, area, coils, n, nc, 8);
  err = rel_err (ef_mri_window_test_image (w, dims), sense, nv);
  g_test_message ("SENSE, 8 iterations: rel. L2 %.2e from the engine's run in one piece", err);
  /* a device's fp32 F^H d and Q carried through 8 iterations: a looser bound, not yet measured */
  ls_tol = g_strcmp0 (ran, "cpu") == 0 ? 1e-9 : 1e-4;
  g_assert_cmpfloat (err, <=, ls_tol);
  screenshot (GTK_WIDGET (w), "mri-coils-sense.png");
  g_assert_nonnull (strstr (ef_mri_window_test_progress (w), "least-squares"));

  /* a coil chosen after least squares shows that coil's F^H d, and the status line says F^H d again */
  ef_mri_window_test_choose_coil (w, 3);
  g_test_message ("coil 3 after least squares: “%s”", ef_mri_window_test_progress (w));
  g_assert_nonnull (strstr (ef_mri_window_test_progress (w), "F^H d"));
  g_assert_cmpfloat (rel_err (ef_mri_window_test_image (w, dims), coils + 2 * nv, nv), <=, tol);
  ef_mri_window_test_choose_coil (w, 0);

  /* again, cancelled while the worker waits after iteration 2: it stops there, the button is back, the
   * second iterate stays */
  ef_mri_window_test_hold_iteration (w, 2);
  ef_mri_window_test_click_least_squares (w);
  g_assert_cmpstr (ef_mri_window_test_ls_label (w), ==, "_Cancel");
  for (int i = 0; i < 120000 && ef_mri_window_test_ls_iterations (w) != 2; i++)
    {
      g_main_context_iteration (NULL, FALSE);
      g_usleep (1000);
    }
  g_assert_cmpuint (ef_mri_window_test_ls_iterations (w), ==, 2);
  screenshot (GTK_WIDGET (w), "mri-coils-running.png");
  ef_mri_window_test_click_least_squares (w);
  iterate_until_idle (w, 60000);
  g_test_message ("after Cancel: “%s”", ef_mri_window_test_progress (w));
  g_assert_null (ef_mri_window_test_error (w));
  g_assert_nonnull (strstr (ef_mri_window_test_progress (w), "cancelled after 2 iterations"));
  g_assert_cmpuint (ef_mri_window_test_ls_iterations (w), ==, 2);
  g_assert_cmpstr (ef_mri_window_test_ls_label (w), ==, "_Least squares");
  img = ef_mri_window_test_image (w, dims);
  g_assert_true (all_finite (img, nv));
  sense2 = sense_direct (ft, fd, area, coils, n, nc, 2);
  err = rel_err (img, sense2, nv);
  g_test_message ("cancelled after 2 iterations: rel. L2 %.2e from the engine's second iterate", err);
  g_assert_cmpfloat (err, <=, ls_tol);
  ef_mri_window_test_hold_iteration (w, G_MAXUINT);

  destroy_and_check (w);
  set_backend ("cpu");
  g_unlink (path);
  g_rmdir (dir);
}

/* Closing the window while least squares runs: the worker hears it after its iteration, and the window
 * is freed. */
static void
test_close_during_least_squares (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("ef-mri-gui-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "coils.h5", NULL);
  g_autoptr (EfMriTraj) t = ef_mri_traj_radial (24, 38, 48, &error);
  g_autoptr (EfMriTraj) ft = NULL;
  g_autofree EfCf64 *fd = NULL, *coils = NULL, *ref = NULL;
  g_autofree double *area = NULL;
  EfMriWindow *w;

  ref = write_coils (path, t, 24, 3, &ft, &fd, &area, &coils);
  w = ef_mri_window_new (NULL);
  ef_mri_window_open (w, path);
  gtk_window_present (GTK_WINDOW (w));
  iterate_until_idle (w, 60000);
  g_assert_null (ef_mri_window_test_error (w));
  ef_mri_window_test_hold_iteration (w, 1);
  ef_mri_window_test_click_least_squares (w);
  for (int i = 0; i < 60000 && ef_mri_window_test_ls_iterations (w) != 1; i++)
    {
      g_main_context_iteration (NULL, FALSE);
      g_usleep (1000);
    }
  g_assert_cmpuint (ef_mri_window_test_ls_iterations (w), ==, 1);
  destroy_and_check (w);
  g_unlink (path);
  g_rmdir (dir);
}

/* The settings ask for CUDA by name on a machine without a device: the window says why, and sums nothing
 * elsewhere. */
static void
test_cuda_asked (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("ef-mri-gui-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "phantom.h5", NULL);
  g_autoptr (EfMriTraj) t = ef_mri_traj_radial (16, 26, 32, &error);
  g_autofree EfCf64 *ref = write_phantom (path, t, 16);
  const EfMriAccel *accel = ef_mri_accel_get ();
  g_autofree char *why = NULL;
  EfMriWindow *w;
  gsize done, total;

  if (accel != NULL && accel->available (&why))
    {
      g_test_skip ("a CUDA device is present");
      return;
    }
  set_backend ("cuda");
  w = ef_mri_window_new (NULL);
  ef_mri_window_open (w, path);
  gtk_window_present (GTK_WINDOW (w));
  iterate_until_idle (w, 60000);
  g_test_message ("cuda asked: “%s”", ef_mri_window_test_error (w));
  g_assert_nonnull (ef_mri_window_test_error (w));
  g_assert_nonnull (strstr (ef_mri_window_test_error (w), "CUDA"));
  ef_mri_window_test_samples (w, &done, &total);
  g_assert_cmpuint (done, ==, 0);
  destroy_and_check (w);
  set_backend ("cpu");
  g_unlink (path);
  g_rmdir (dir);
}

/* File → Open's path on an ISMRMRD file: an MRI window over the main window, which loads nothing. */
static void
test_from_main_window (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("ef-mri-gui-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "phantom.mrd", NULL);
  g_autoptr (EfMriTraj) t = ef_mri_traj_radial (32, 51, 64, &error);
  g_autofree EfCf64 *ref = write_phantom (path, t, 32);
  EfMainWindow *main_window = new_window ();
  EfMriWindow *w = NULL;
  const EfCf64 *img;
  guint dims[3];

  ef_main_window_open_path (main_window, path);
  for (GList *l = gtk_application_get_windows (GTK_APPLICATION (app)); l != NULL; l = l->next)
    if (EF_IS_MRI_WINDOW (l->data))
      w = l->data;
  g_assert_nonnull (w);
  g_assert_true (gtk_window_get_transient_for (GTK_WINDOW (w)) == GTK_WINDOW (main_window));
  iterate_until_idle (w, 60000);
  g_assert_null (ef_mri_window_test_error (w));
  img = ef_mri_window_test_image (w, dims);
  g_assert_cmpuint (dims[0], ==, 32);
  g_assert_cmpfloat (nrmse (img, ref, 32 * 32), <, 1e-9);
  g_assert_true (ef_main_window_is_idle (main_window));
  destroy_and_check (w);
  close_window (main_window);
  g_unlink (path);
  g_rmdir (dir);
}

/* Cancel part way: the image stops at the blocks summed, the window says so, least squares stays off. */
static void
test_cancel (void)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("ef-mri-gui-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "phantom.h5", NULL);
  g_autoptr (EfMriTraj) t = ef_mri_traj_radial (32, 51, 64, &error);
  g_autofree EfCf64 *ref = write_phantom (path, t, 32);
  EfMriWindow *w = ef_mri_window_new (NULL);
  gsize done = 0, total = 0;

  ef_mri_window_test_hold_after (w, 2);
  ef_mri_window_open (w, path);
  gtk_window_present (GTK_WINDOW (w));
  for (int i = 0; i < 20000 && done < 3 * t->m / 16; i++)
    {
      g_main_context_iteration (NULL, FALSE);
      g_usleep (1000);
      ef_mri_window_test_samples (w, &done, &total);
    }
  g_assert_cmpuint (done, ==, 3 * t->m / 16);
  ef_mri_window_test_cancel (w);
  ef_mri_window_test_hold_after (w, G_MAXUINT);
  iterate_until_idle (w, 60000);
  ef_mri_window_test_samples (w, &done, &total);
  g_test_message ("%s", ef_mri_window_test_progress (w));
  g_assert_cmpuint (done, ==, 3 * t->m / 16);
  g_assert_null (ef_mri_window_test_error (w));
  g_assert_nonnull (strstr (ef_mri_window_test_progress (w), "cancelled at"));
  ef_mri_window_test_least_squares (w);
  g_assert_true (ef_mri_window_test_is_idle (w));
  destroy_and_check (w);
  g_unlink (path);
  g_rmdir (dir);
}

/* A file that is not ISMRMRD: the window says so. */
static void
test_bad_file (void)
{
  g_autofree char *dir = g_dir_make_tmp ("ef-mri-gui-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "junk.h5", NULL);
  EfMriWindow *w = ef_mri_window_new (NULL);

  g_assert_true (g_file_set_contents (path, "not an HDF5 file", -1, NULL));
  ef_mri_window_open (w, path);
  gtk_window_present (GTK_WINDOW (w));
  iterate_until_idle (w, 60000);
  g_assert_nonnull (ef_mri_window_test_error (w));
  g_test_message ("%s", ef_mri_window_test_error (w));
  destroy_and_check (w);
  g_unlink (path);
  g_rmdir (dir);
}
#endif

int
main (int argc, char **argv)
{
#if HAVE_ISMRMRD
  int status;

  ef_test_app_setup (&argc, &argv);
  g_test_add_func ("/gui/mri/2d", test_2d);
  g_test_add_func ("/gui/mri/3d", test_3d);
  g_test_add_func ("/gui/mri/main-window", test_from_main_window);
  g_test_add_func ("/gui/mri/cancel", test_cancel);
  g_test_add_func ("/gui/mri/coils", test_coils);
  g_test_add_func ("/gui/mri/cuda-asked", test_cuda_asked);
  g_test_add_func ("/gui/mri/close-during-least-squares", test_close_during_least_squares);
  g_test_add_func ("/gui/mri/bad-file", test_bad_file);
  status = g_test_run ();
  g_object_unref (app);
  return status;
#else
  (void) argc;
  (void) argv;
  (void) app;
  return 77;  /* this build reads no ISMRMRD files */
#endif
}
