/* ef-cli-mri.c: echoform-cli mri: non-Cartesian Fourier reconstruction of a phantom or an ISMRMRD file. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-cli-mri"
#include "config.h"

#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ef-cli-private.h"
#include "ef-mri.h"
#include "ef-mri-cg.h"
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
  "and run on a CUDA device when one is present (--backend), the rest on the CPU; each stage's time is\n"
  "printed.";

static int
mri_fail (const GError *error)
{
  return ef_cli_report ("mri", error);
}

int
ef_cli_mri (int argc, char **argv)
{
  g_autofree char *traj_s = NULL, *method_s = NULL, *reg_s = NULL, *out_s = NULL, *ismrmrd_s = NULL;
  g_autofree char *size_s = NULL, *iters_s = NULL, *lambda_s = NULL, *scale_s = NULL, *save_s = NULL;
  g_autofree char *backend_s = NULL, *ran = NULL;
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
    { NULL },
  };
  g_autoptr (GOptionContext) ctx = ef_cli_option_context_new ("mri", NULL, "Non-Cartesian Fourier reconstruction",
                                                              mri_description, entries);
  g_autoptr (GError) error = NULL;
  g_autoptr (EfMriTraj) t = NULL;
  g_autofree EfCf64 *d = NULL, *img = NULL;
  g_autofree double *area = NULL, *truth = NULL;
  guint n = 64, iters = 10, dim = 2;
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
      || (scale_s != NULL && !ef_cli_parse_double ("--traj-scale", scale_s, 1e-12, 1e12, &scale, &error)))
    return ef_cli_report ("mri", error);
  if (backend_s != NULL && !ef_backend_kind_from_string (backend_s, &backend))
    return ef_cli_usage_error ("mri", "--backend: '%s' is not auto, cpu or cuda", backend_s);
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
      if (!ef_ismrmrd_read (ismrmrd_s, 0, scale > 0 ? scale : n, &t, &d, &error))
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

      d = g_new (EfCf64, t->m);
      ef_mri_phantom_sample (&ph, t, (double) nv, d, 0);
      truth = g_new (double, nv);
      ef_mri_phantom_raster (&ph, &g, dim == 2 ? 4 : 2, truth);
    }
  if (save_s != NULL)
    {
#if HAVE_ISMRMRD
      if (!phantom)
        return ef_cli_usage_error ("mri", "--save-ismrmrd writes a phantom's samples; the input is a file");
      if (!ef_ismrmrd_write (save_s, t, d, 2 * n, scale > 0 ? scale : n, &error))
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
      d[i] *= area[i];
    }
  printf ("mri: %u-D, %u^%u voxels, %" G_GSIZE_FORMAT " samples (%s), method %s\n", dim, n, dim, t->m,
          phantom ? "Shepp-Logan phantom" : ismrmrd_s, method);
  printf ("mri: density weights %.3f s (CPU)\n", (g_get_monotonic_time () - t0) / 1e6);

  img = g_new (EfCf64, nv);
  t0 = t1 = g_get_monotonic_time ();
  if (strcmp (method, "gridding") == 0)
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
  if (strcmp (method, "cg") == 0)
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
