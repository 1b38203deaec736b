/* ef-cli-info-mri.c: `echoform-cli info` on an ISMRMRD file: its k-space samples, channels and encoding. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-cli"
#include "config.h"

#include <math.h>
#include <stdio.h>

#include "ef-cli-private.h"
#include "ef-mri-blocks.h"
#if HAVE_ISMRMRD
#include "ef-ismrmrd.h"
#endif

gboolean
ef_cli_info_is_ismrmrd (const char *path)
{
  g_autofree char *lower = g_ascii_strdown (path, -1);

  return g_str_has_suffix (lower, ".h5") || g_str_has_suffix (lower, ".mrd") || g_str_has_suffix (lower, ".ismrmrd");
}

gboolean
ef_cli_ismrmrd_image (const char *path, guint *edge, gboolean *normalised, GError **error)
{
#if HAVE_ISMRMRD
  g_autoptr (EfMriTraj) t = NULL;
  g_autofree EfCf64 *d = NULL;
  EfIsmrmrdInfo info;
  double kmax = 0;

  if (!ef_ismrmrd_read_coils (path, 1.0, &info, &t, &d, error))
    return FALSE;
  for (gsize i = 0; i < t->m * t->dim; i++)
    kmax = MAX (kmax, fabs (t->k[i]));
  *normalised = kmax <= 0.5 + 1e-9;
  *edge = info.matrix[0] > 0 ? info.matrix[0] : *normalised ? 0 : ef_mri_traj_edge (t);
  return TRUE;
#else
  g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "%s: this build has no ISMRMRD support", path);
  return FALSE;
#endif
}

int
ef_cli_info_ismrmrd (const char *path, gboolean json)
{
#if HAVE_ISMRMRD
  g_autoptr (GError) error = NULL;
  g_autoptr (EfMriTraj) t = NULL;
  g_autofree EfCf64 *d = NULL;
  g_autofree char *text = NULL;
  EfIsmrmrdInfo info;
  double lo[3] = { 0, 0, 0 }, hi[3] = { 0, 0, 0 }, kmax = 0;
  gboolean normalised;
  guint edge;

  if (!ef_ismrmrd_read_coils (path, 1.0, &info, &t, &d, &error))
    return ef_cli_report ("info", error);
  for (guint a = 0; a < t->dim; a++)
    {
      lo[a] = INFINITY;
      hi[a] = -INFINITY;
      for (gsize i = 0; i < t->m; i++)
        {
          double k = t->k[i * t->dim + a];

          lo[a] = MIN (lo[a], k);
          hi[a] = MAX (hi[a], k);
          kmax = MAX (kmax, fabs (k));
        }
    }
  /* the reconstruction's image edge: the header's matrix, else the Nyquist band that holds k */
  normalised = kmax <= 0.5 + 1e-9;
  edge = info.matrix[0] > 0 ? info.matrix[0] : normalised ? 0 : ef_mri_traj_edge (t);
  if (json)
    {
      EfCliJson j;

      ef_cli_json_init (&j);
      ef_cli_json_begin_object (&j, NULL);
      ef_cli_json_string (&j, "path", path);
      ef_cli_json_string (&j, "source", "ISMRMRD");
      ef_cli_json_string (&j, "domain", "kspace");
      ef_cli_json_int (&j, "dimensions", t->dim);
      ef_cli_json_int (&j, "samples", (gint64) t->m);
      ef_cli_json_int (&j, "channels", info.n_coils);
      ef_cli_json_begin_array (&j, "k_min");
      for (guint a = 0; a < t->dim; a++)
        ef_cli_json_double (&j, NULL, lo[a]);
      ef_cli_json_end_array (&j);
      ef_cli_json_begin_array (&j, "k_max");
      for (guint a = 0; a < t->dim; a++)
        ef_cli_json_double (&j, NULL, hi[a]);
      ef_cli_json_end_array (&j);
      ef_cli_json_bool (&j, "k_normalised", normalised);
      ef_cli_json_begin_array (&j, "matrix");
      for (guint a = 0; a < 3; a++)
        ef_cli_json_int (&j, NULL, info.matrix[a]);
      ef_cli_json_end_array (&j);
      ef_cli_json_begin_array (&j, "fov_mm");
      for (guint a = 0; a < 3; a++)
        ef_cli_json_double (&j, NULL, info.fov_mm[a]);
      ef_cli_json_end_array (&j);
      ef_cli_json_int (&j, "image_edge", edge);
      ef_cli_json_end_object (&j);
      text = ef_cli_json_finish (&j);
      fputs (text, stdout);
      return EF_CLI_EXIT_OK;
    }
  printf ("File:                   %s\n", path);
  printf ("Source:                 ISMRMRD (non-Cartesian k-space samples)\n");
  printf ("Dimensions:             %u-D trajectory\n", t->dim);
  printf ("Samples:                %" G_GSIZE_FORMAT " per channel\n", t->m);
  printf ("Channels:               %u\n", info.n_coils);
  for (guint a = 0; a < t->dim; a++)
    printf ("k%c range:               %.6g .. %.6g%s\n", "xyz"[a], lo[a], hi[a],
            normalised ? " (normalised: times the matrix gives cycles per FOV)" : " cycles per FOV");
  if (info.matrix[0] > 0)
    printf ("Encoded matrix:         %u x %u x %u, field of view %g x %g x %g mm\n", info.matrix[0], info.matrix[1],
            info.matrix[2], info.fov_mm[0], info.fov_mm[1], info.fov_mm[2]);
  else
    printf ("Encoded matrix:         none (the file has no XML header)\n");
  if (edge > 0)
    printf ("Image:                  %u voxels a side (mri --ismrmrd FILE --size %u%s)\n", edge, edge,
            normalised ? "" : " --traj-scale 1");
  else
    printf ("Image:                  the size is not in the file: give mri --size N\n");
  return EF_CLI_EXIT_OK;
#else
  (void) json;
  return ef_cli_usage_error ("info", "“%s”: this build has no ISMRMRD support (libismrmrd-dev)", path);
#endif
}
