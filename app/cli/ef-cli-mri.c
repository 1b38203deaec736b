/* ef-cli-mri.c: echoform-cli mri: non-Cartesian Fourier reconstruction of a phantom or an ISMRMRD file. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-cli-mri"
#include "config.h"

#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ef-cli-private.h"
#include "ef-error.h"
#include "ef-mri.h"
#include "ef-mri-cg.h"
#include "ef-mri-coils.h"
#include "ef-mri-gridding.h"
#include "ef-mri-phantom.h"
#include "ef-npy.h"
#if HAVE_ISMRMRD
#include "ef-ismrmrd.h"
#endif

static const char mri_description[] =
  "Reconstructs an image of N voxels a side (2-D or 3-D) from k-space samples: the Shepp-Logan phantom's\n"
  "exact transform on a radial, spiral or stack-of-spirals trajectory (seed: the 64^3-voxel, 3.2-million-\n"
  "sample stack of spirals of the reference GPU study), or one channel of an ISMRMRD file\n"
  "(--ismrmrd; --traj-scale turns its trajectory into cycles per field of view). Density weights are the\n"
  "exact radial areas, or Pipe and Menon's iteration. Methods: gridding (Kaiser-Bessel, width 4, 2x),\n"
  "adjoint (the exact density-weighted F^H d), cg (least squares by conjugate gradients through Q, with\n"
  "--iters, --reg and --lambda). For a phantom the NRMSE against it is printed. -o writes the complex image\n"
  "as .npy (complex128, x fastest). The exact sums (F^H d, and Q for cg) cost voxels x samples operations\n"
  "and run on a CUDA device when one is present (--backend; a single coil), the rest on the CPU; each\n"
  "stage's time is printed.\n"
  "With --coils the samples of several receive coils are used (every channel of the file, or --n-coils\n"
  "synthetic smooth coils on the phantom's discrete model): rss reconstructs each coil and combines them by\n"
  "root sum of squares (a magnitude image); estimate takes the sensitivities from the centre of k-space\n"
  "(|k| < --coil-radius) and given the phantom's true ones, then forms the coil-combined sum_c S_c^H F^H d_c\n"
  "(adjoint, gridding) or solves SENSE least squares by conjugate gradients (cg), on the CPU.";

static int
mri_fail (const GError *error)
{
  return ef_cli_report ("mri", error);
}

typedef enum { COILS_NONE, COILS_RSS, COILS_ESTIMATE, COILS_GIVEN } CoilMode;

/* One image per coil by method (gridding, adjoint, or least squares by CG through T), into img (n_coils
 * maps). d: the coils' density-weighted samples. */
static gboolean
coil_images (const EfMriTraj *t, const EfCf64 *d, guint nc, const EfMriGrid *g, gsize nv, const char *method,
             EfMriToeplitz *T, const EfMriCgParams *prm, EfCf64 *img, GError **error)
{
  for (guint c = 0; c < nc; c++)
    {
      EfCf64 *out = img + (gsize) c * nv;

      if (strcmp (method, "gridding") == 0)
        {
          if (!ef_mri_gridding (t, d + (gsize) c * t->m, g, 4, out, error))
            return FALSE;
        }
      else if (!ef_mri_adjoint (t, d + (gsize) c * t->m, g, out, 0, error))
        return FALSE;
      if (T != NULL)
        {
          g_autofree EfCf64 *x = g_new0 (EfCf64, nv);
          EfMriCgReport rep;

          if (!ef_mri_cg (T, out, prm, x, &rep, error))
            return FALSE;
          ef_mri_cg_report_clear (&rep);
          memcpy (out, x, nv * sizeof (EfCf64));
        }
    }
  return TRUE;
}

static EfMriToeplitz *
toeplitz_for (const EfMriTraj *t, const double *area, const EfMriGrid *g, GError **error)
{
  EfMriGrid big = ef_mri_grid_doubled (g);
  gsize nb = ef_mri_grid_voxels (&big, error);
  g_autofree EfCf64 *q = NULL;

  if (nb == 0)
    return NULL;
  q = g_new (EfCf64, nb);
  if (!ef_mri_q (t, area, &big, q, 0, error))
    return NULL;
  return ef_mri_toeplitz_new (g, q, error);
}

/* The several-coil reconstruction of the --coils modes into img; s: the sensitivities (NULL for rss). */
static gboolean
reconstruct_coils (const EfMriTraj *t, const EfCf64 *d, const double *area, guint nc, const EfMriGrid *g, gsize nv,
                   const char *method, const EfMriCgParams *prm, const EfCf64 *s, EfCf64 *img, GError **error)
{
  g_autofree EfCf64 *ci = g_try_new (EfCf64, (gsize) nc * nv);
  g_autoptr (EfMriToeplitz) T = NULL;
  gboolean cg = strcmp (method, "cg") == 0;

  if (ci == NULL)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_MEMORY, "No memory for %u coil images", nc);
      return FALSE;
    }
  if (cg && (T = toeplitz_for (t, area, g, error)) == NULL)
    return FALSE;
  if (s == NULL)
    {
      if (!coil_images (t, d, nc, g, nv, method, T, prm, ci, error))
        return FALSE;
      ef_mri_coils_combine (NULL, ci, nc, nv, img);
      return TRUE;
    }
  if (!coil_images (t, d, nc, g, nv, cg ? "adjoint" : method, NULL, prm, ci, error))
    return FALSE;
  ef_mri_coils_combine (s, ci, nc, nv, img);
  if (cg)
    {
      g_autofree EfCf64 *x = g_new0 (EfCf64, nv);
      EfMriCgReport rep;

      if (!ef_mri_sense_cg (T, s, nc, img, prm->lambda, prm->max_iter, prm->tol, x, &rep, error))
        return FALSE;
      for (guint k = 0; k <= rep.iterations; k++)
        printf ("sense cg %3u: |b - Ax| / |b| = %.3e\n", k, rep.residual[k]);
      printf ("sense cg: %u iterations, %s\n", rep.iterations, rep.converged ? "converged (1e-6)" : "not converged");
      ef_mri_cg_report_clear (&rep);
      memcpy (img, x, nv * sizeof (EfCf64));
    }
  return TRUE;
}

int
ef_cli_mri (int argc, char **argv)
{
  g_autofree char *traj_s = NULL, *method_s = NULL, *reg_s = NULL, *out_s = NULL, *ismrmrd_s = NULL;
  g_autofree char *size_s = NULL, *iters_s = NULL, *lambda_s = NULL, *scale_s = NULL, *save_s = NULL;
  g_autofree char *backend_s = NULL, *ran = NULL;
  g_autofree char *coils_s = NULL, *ncoils_s = NULL, *radius_s = NULL;
  GOptionEntry entries[] = {
    { "trajectory", 't', 0, G_OPTION_ARG_STRING, &traj_s,
      "Phantom sampling: radial, spiral, stack, seed (default radial)", "NAME" },
    { "size", 'n', 0, G_OPTION_ARG_STRING, &size_s, "Voxels a side (default 64)", "N" },
    { "ismrmrd", 0, 0, G_OPTION_ARG_FILENAME, &ismrmrd_s, "Read channel 0 of an ISMRMRD file instead", "FILE" },
    { "traj-scale", 0, 0, G_OPTION_ARG_STRING, &scale_s, "ISMRMRD trajectory to cycles per FOV (default N)", "S" },
    { "method", 'm', 0, G_OPTION_ARG_STRING, &method_s, "gridding, adjoint or cg (default cg)", "NAME" },
    { "iters", 0, 0, G_OPTION_ARG_STRING, &iters_s, "CG iterations (default 10)", "K" },
    { "reg", 0, 0, G_OPTION_ARG_STRING, &reg_s, "CG regulariser: none, tikhonov, gradient (default none)", "NAME" },
    { "lambda", 0, 0, G_OPTION_ARG_STRING, &lambda_s, "Regulariser weight (default 0)", "L" },
    { "backend", 'b', 0, G_OPTION_ARG_STRING, &backend_s,
      "Exact sums on: auto (CUDA when a device is present; the default), cpu or cuda", "NAME" },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &out_s, "Write the image as .npy", "FILE" },
    { "save-ismrmrd", 0, 0, G_OPTION_ARG_FILENAME, &save_s,
      "Also write the phantom's samples as an ISMRMRD file (trajectory divided by --traj-scale)", "FILE" },
    { "coils", 0, 0, G_OPTION_ARG_STRING, &coils_s, "Several coils: rss, estimate or given (default: one channel)",
      "MODE" },
    { "n-coils", 0, 0, G_OPTION_ARG_STRING, &ncoils_s, "Synthetic coils on the phantom with --coils (default 8)",
      "C" },
    { "coil-radius", 0, 0, G_OPTION_ARG_STRING, &radius_s,
      "k-space radius (cycles per FOV) of the sensitivity estimate (default N / 5)", "R" },
    { NULL },
  };
  g_autoptr (GOptionContext) ctx = ef_cli_option_context_new ("mri", NULL, "Non-Cartesian Fourier reconstruction",
                                                              mri_description, entries);
  g_autoptr (GError) error = NULL;
  g_autoptr (EfMriTraj) t = NULL;
  g_autofree EfCf64 *d = NULL, *img = NULL;
  g_autofree double *area = NULL, *truth = NULL;
  g_autofree EfCf64 *sens = NULL;
  guint n = 64, iters = 10, dim = 2, nc = 1, n_coils_opt = 8;
  double coil_radius = 0;
  CoilMode coils = COILS_NONE;
  double lambda = 0, scale = 0;
  EfMriReg reg = EF_MRI_REG_NONE;
  EfBackendKind backend = EF_BACKEND_AUTO;
  const char *method;
  gboolean phantom = TRUE;
  EfMriGrid g;
  gsize nv;
  gint64 t0, t1;

  if (!ef_cli_option_parse (ctx, "mri", &argc, &argv))
    return EF_CLI_EXIT_USAGE;
  method = method_s != NULL ? method_s : "cg";
  if (argc != 1)
    return ef_cli_usage_error ("mri", "takes no positional argument");
  if ((size_s != NULL && !ef_cli_parse_uint ("--size", size_s, 4, 1024, &n, &error))
      || (iters_s != NULL && !ef_cli_parse_uint ("--iters", iters_s, 0, 10000, &iters, &error))
      || (lambda_s != NULL && !ef_cli_parse_double ("--lambda", lambda_s, 0, 1e12, &lambda, &error))
      || (scale_s != NULL && !ef_cli_parse_double ("--traj-scale", scale_s, 1e-12, 1e12, &scale, &error))
      || (ncoils_s != NULL && !ef_cli_parse_uint ("--n-coils", ncoils_s, 1, 64, &n_coils_opt, &error))
      || (radius_s != NULL && !ef_cli_parse_double ("--coil-radius", radius_s, 0.5, 1e6, &coil_radius, &error)))
    return ef_cli_report ("mri", error);
  if (backend_s != NULL && !ef_backend_kind_from_string (backend_s, &backend))
    return ef_cli_usage_error ("mri", "--backend: '%s' is not auto, cpu or cuda", backend_s);
  if (coils_s != NULL)
    {
      if (strcmp (coils_s, "rss") == 0)
        coils = COILS_RSS;
      else if (strcmp (coils_s, "estimate") == 0)
        coils = COILS_ESTIMATE;
      else if (strcmp (coils_s, "given") == 0)
        coils = COILS_GIVEN;
      else
        return ef_cli_usage_error ("mri", "--coils: expected rss, estimate or given, got “%s”", coils_s);
    }
  if ((ncoils_s != NULL || radius_s != NULL) && coils == COILS_NONE)
    return ef_cli_usage_error ("mri", "--n-coils and --coil-radius go with --coils");
  if (coils != COILS_NONE && reg_s != NULL && strcmp (reg_s, "gradient") == 0)
    return ef_cli_usage_error ("mri", "--reg gradient is not available with --coils; use tikhonov");
  if (coils != COILS_NONE && backend_s != NULL && strcmp (backend_s, "cuda") == 0)
    return ef_cli_usage_error ("mri", "--backend cuda takes one coil; the coil-combined reconstruction runs on the CPU");
  if (coil_radius == 0)
    coil_radius = MAX (n / 5.0, 2.0);
  if (strcmp (method, "gridding") != 0 && strcmp (method, "adjoint") != 0 && strcmp (method, "cg") != 0)
    return ef_cli_usage_error ("mri", "--method: expected gridding, adjoint or cg, got “%s”", method);
  if (reg_s != NULL)
    {
      if (strcmp (reg_s, "none") == 0)
        reg = EF_MRI_REG_NONE;
      else if (strcmp (reg_s, "tikhonov") == 0)
        reg = EF_MRI_REG_TIKHONOV;
      else if (strcmp (reg_s, "gradient") == 0)
        reg = EF_MRI_REG_GRADIENT;
      else
        return ef_cli_usage_error ("mri", "--reg: expected none, tikhonov or gradient, got “%s”", reg_s);
    }

  if (ismrmrd_s != NULL)
    {
#if HAVE_ISMRMRD
      if (coils == COILS_GIVEN)
        return ef_cli_usage_error ("mri", "--coils given: Echoform reads no sensitivities from ISMRMRD files; use "
                                   "estimate or rss");
      if (coils != COILS_NONE)
        {
          EfIsmrmrdInfo info;

          if (!ef_ismrmrd_read_coils (ismrmrd_s, scale > 0 ? scale : n, &info, &t, &d, &error))
            return mri_fail (error);
          nc = info.n_coils;
          if (info.matrix[0] > 0)
            printf ("mri: the file's encoded matrix %u x %u x %u, field of view %g x %g x %g mm\n", info.matrix[0],
                    info.matrix[1], info.matrix[2], info.fov_mm[0], info.fov_mm[1], info.fov_mm[2]);
        }
      else if (!ef_ismrmrd_read (ismrmrd_s, 0, scale > 0 ? scale : n, &t, &d, &error))
        return mri_fail (error);
      dim = t->dim;
      phantom = FALSE;
#else
      return ef_cli_usage_error ("mri", "--ismrmrd: this build has no ISMRMRD support (libismrmrd-dev)");
#endif
    }
  else
    {
      const char *tn = traj_s != NULL ? traj_s : "radial";

      if (strcmp (tn, "radial") == 0)
        t = ef_mri_traj_radial (n, (guint) ceil (G_PI / 2 * n), 2 * n, &error);
      else if (strcmp (tn, "spiral") == 0)
        t = ef_mri_traj_spiral (n, 16, n * n / 4, &error);
      else if (strcmp (tn, "stack") == 0)
        {
          dim = 3;
          t = ef_mri_traj_stack_of_spirals (n, n, 8, n * n / 8, &error);
        }
      else if (strcmp (tn, "seed") == 0)
        {
          if (size_s != NULL && n != 64)
            return ef_cli_usage_error ("mri", "--trajectory seed is 64 voxels a side, not %u", n);
          dim = 3;
          n = 64;
          t = ef_mri_traj_stack_of_spirals (64, 64, 16, 3125, &error);
        }
      else
        return ef_cli_usage_error ("mri", "--trajectory: expected radial, spiral, stack or seed, got “%s”", tn);
      if (t == NULL)
        return mri_fail (error);
    }
  g = ef_mri_grid_image (dim, n);
  nv = ef_mri_grid_voxels (&g, &error);
  if (nv == 0)
    return mri_fail (error);
  if (phantom)
    {
      EfMriPhantom ph = ef_mri_phantom_shepp_logan (dim);

      truth = g_new (double, nv);
      ef_mri_phantom_raster (&ph, &g, dim == 2 ? 4 : 2, truth);
      if (coils == COILS_NONE)
        {
          d = g_new (EfCf64, t->m);
          ef_mri_phantom_sample (&ph, t, (double) nv, d, 0);
        }
      else
        {
          /* the discrete model d_c = F (S_c rho) of the rasterised phantom */
          g_autofree EfCf64 *sr = g_new (EfCf64, nv);

          nc = n_coils_opt;
          sens = g_new (EfCf64, (gsize) nc * nv);
          ef_mri_coils_synthetic (&g, nc, sens);
          d = g_new (EfCf64, (gsize) nc * t->m);
          for (guint c = 0; c < nc; c++)
            {
              for (gsize v = 0; v < nv; v++)
                sr[v] = sens[(gsize) c * nv + v] * truth[v];
              if (!ef_mri_forward (t, sr, &g, d + (gsize) c * t->m, 0, &error))
                return mri_fail (error);
            }
        }
    }
  if (save_s != NULL)
    {
#if HAVE_ISMRMRD
      if (!phantom)
        return ef_cli_usage_error ("mri", "--save-ismrmrd writes a phantom's samples; the input is a file");
      if (!ef_ismrmrd_write_coils (save_s, t, d, nc, 2 * n, scale > 0 ? scale : n, &error))
        return mri_fail (error);
#else
      return ef_cli_usage_error ("mri", "--save-ismrmrd: this build has no ISMRMRD support (libismrmrd-dev)");
#endif
    }

  /* density weights (k-space area / voxels): exact for the radial phantom, Pipe-Menon otherwise */
  t0 = g_get_monotonic_time ();
  area = g_new (double, t->m);
  if (phantom && dim == 2 && (traj_s == NULL || strcmp (traj_s, "radial") == 0))
    ef_mri_density_radial (n, (guint) ceil (G_PI / 2 * n), 2 * n, area);
  else if (!ef_mri_density_pipe (t, &g, 4, 20, area, &error))
    return mri_fail (error);
  for (gsize i = 0; i < t->m; i++)
    {
      area[i] /= (double) nv;
      for (guint c = 0; c < nc; c++)
        d[(gsize) c * t->m + i] *= area[i];
    }
  printf ("mri: %u-D, %u^%u voxels, %" G_GSIZE_FORMAT " samples (%s), method %s\n", dim, n, dim, t->m,
          phantom ? "Shepp-Logan phantom" : ismrmrd_s, method);
  printf ("mri: density weights %.3f s (CPU)\n", (g_get_monotonic_time () - t0) / 1e6);
  if (coils != COILS_NONE)
    printf ("mri: %u coils%s, %s\n", nc, phantom ? " (synthetic)" : "",
            coils == COILS_RSS ? "combined by root sum of squares (magnitude image)"
            : coils == COILS_GIVEN ? "the true sensitivities"
            : "sensitivities estimated from the centre of k-space");
  if (coils == COILS_ESTIMATE)
    {
      EfMriCoilEstimate ce = { .centre_radius = coil_radius, .threshold = 0.05 };

      g_clear_pointer (&sens, g_free);
      sens = g_new (EfCf64, (gsize) nc * nv);
      /* the samples already carry the density weights */
      if (!ef_mri_coils_estimate (t, d, NULL, nc, &g, &ce, sens, &error))
        return mri_fail (error);
      printf ("mri: sensitivities from |k| < %g cycles per FOV, zero where the low-resolution root sum of squares is "
              "below 5%% of its peak\n", coil_radius);
    }

  img = g_new (EfCf64, nv);
  t0 = t1 = g_get_monotonic_time ();
  if (coils != COILS_NONE)
    {
      EfMriCgParams prm = { .reg = reg, .lambda = lambda, .max_iter = iters, .tol = 1e-6 };

      if (reg == EF_MRI_REG_NONE)
        prm.lambda = 0;
      if (!reconstruct_coils (t, d, area, nc, &g, nv, method, &prm, coils == COILS_RSS ? NULL : sens, img, &error))
        return mri_fail (error);
    }
  else if (strcmp (method, "gridding") == 0)
    {
      if (!ef_mri_gridding (t, d, &g, 4, img, &error))
        return mri_fail (error);
    }
  else
    {
      if (!ef_cli_mri_sum (backend, t, d, NULL, &g, img, &ran, &error))
        return mri_fail (error);
      printf ("mri: F^H d %.3f s (%s)\n", (g_get_monotonic_time () - t1) / 1e6, ran);
    }
  if (coils == COILS_NONE && strcmp (method, "cg") == 0)
    {
      EfMriGrid big = ef_mri_grid_doubled (&g);
      gsize nb = ef_mri_grid_voxels (&big, &error);
      g_autofree EfCf64 *q = NULL, *x = NULL;
      g_autoptr (EfMriToeplitz) T = NULL;
      EfMriCgParams prm = { .reg = reg, .lambda = lambda, .max_iter = iters, .tol = 1e-6 };
      EfMriCgReport rep;

      if (nb == 0)
        return mri_fail (error);
      q = g_new (EfCf64, nb);
      g_clear_pointer (&ran, g_free);
      t1 = g_get_monotonic_time ();
      if (!ef_cli_mri_sum (backend, t, NULL, area, &big, q, &ran, &error))
        return mri_fail (error);
      printf ("mri: Q on the %u^%u doubled grid %.3f s (%s)\n", big.n[0], dim, (g_get_monotonic_time () - t1) / 1e6,
              ran);
      t1 = g_get_monotonic_time ();
      if ((T = ef_mri_toeplitz_new (&g, q, &error)) == NULL)
        return mri_fail (error);
      x = g_new0 (EfCf64, nv);
      if (!ef_mri_cg (T, img, &prm, x, &rep, &error))
        return mri_fail (error);
      for (guint k = 0; k <= rep.iterations; k++)
        printf ("cg %3u: |b - Ax| / |b| = %.3e\n", k, rep.residual[k]);
      printf ("cg: %u iterations, %s, %.3f s (CPU, FFTW)\n", rep.iterations,
              rep.converged ? "converged (1e-6)" : "not converged", (g_get_monotonic_time () - t1) / 1e6);
      ef_mri_cg_report_clear (&rep);
      memcpy (img, x, nv * sizeof (EfCf64));
    }
  printf ("mri: %.3f s (the reconstruction, density weights aside)\n", (g_get_monotonic_time () - t0) / 1e6);
  if (truth != NULL)
    {
      double num = 0, den = 0;

      for (gsize i = 0; i < nv; i++)
        {
          num += creal ((img[i] - truth[i]) * conj (img[i] - truth[i]));
          den += truth[i] * truth[i];
        }
      printf ("mri: NRMSE against the phantom %.4f\n", sqrt (num / den));
    }
  if (out_s != NULL)
    {
      guint64 shape[3] = { n, n, n };

      if (!ef_npy_write_array (out_s, "<c16", dim, shape, sizeof (EfCf64), img, &error))
        return mri_fail (error);
    }
  return EF_CLI_EXIT_OK;
}
