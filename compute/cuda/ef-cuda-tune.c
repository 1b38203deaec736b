/* ef-cuda-tune.c: picks the fastest backprojection kernel shape per device and problem class. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-cuda"
#include "config.h"

#include <math.h>
#include <string.h>

#include "ef-cuda-tune-private.h"

/* Results live in one key file: a group per device name, a key per problem class. Classes round the
 * image edge and the profile length to powers of two, which is what decides occupancy and cache reuse. */

static char *
cache_path (void)
{
  return g_build_filename (g_get_user_cache_dir (), "echoform", "cuda-tune.ini", NULL);
}

char *
ef_cuda_tune_cache_path (void)
{
  return cache_path ();
}

guint
ef_cuda_tune_pow2 (guint64 x)
{
  guint r = 0;

  while (((guint64) 1 << r) < x && r < 31)
    r++;
  return 1u << r;
}

static char *
class_key (guint edge, guint n_bins, EfPrecision precision)
{
  return g_strdup_printf ("%s-edge%u-bins%u", ef_precision_to_string (precision), ef_cuda_tune_pow2 (edge),
                          ef_cuda_tune_pow2 (n_bins));
}

gint
ef_cuda_tune_cache_get (const char *group, const char *key)
{
  g_autoptr (GKeyFile) kf = g_key_file_new ();
  g_autofree char *path = cache_path ();
  g_autoptr (GError) error = NULL;
  gint v;

  if (!g_key_file_load_from_file (kf, path, G_KEY_FILE_NONE, NULL))
    return -1;
  v = g_key_file_get_integer (kf, group, key, &error);
  return error != NULL || v < 0 ? -1 : v;
}

gboolean
ef_cuda_tune_cache_set (const char *group, const char *key, gint value, GError **error)
{
  g_autoptr (GKeyFile) kf = g_key_file_new ();
  g_autofree char *path = cache_path ();
  g_autofree char *dir = g_path_get_dirname (path);

  (void) g_key_file_load_from_file (kf, path, G_KEY_FILE_KEEP_COMMENTS, NULL);
  g_key_file_set_integer (kf, group, key, value);
  if (g_mkdir_with_parents (dir, 0755) != 0)
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FAILED, "Cannot create %s", dir);
      return FALSE;
    }
  return g_key_file_save_to_file (kf, path, error);
}

static char *
kernel_group (const char *kernel, const char *device_name)
{
  return kernel != NULL ? g_strdup_printf ("%s %s", kernel, device_name) : g_strdup (device_name);
}

gint
ef_cuda_tune_kernel_get (const char *kernel, const char *device_name, const char *key, gint lo, gint hi)
{
  g_autofree char *group = NULL;
  gint v;

  if (device_name == NULL || key == NULL)
    return -1;
  group = kernel_group (kernel, device_name);
  v = ef_cuda_tune_cache_get (group, key);
  return v >= lo && v <= hi ? v : -1;
}

gboolean
ef_cuda_tune_kernel_set (const char *kernel, const char *device_name, const char *key, gint value, GError **error)
{
  g_autofree char *group = NULL;

  g_return_val_if_fail (device_name != NULL && key != NULL, FALSE);
  group = kernel_group (kernel, device_name);
  return ef_cuda_tune_cache_set (group, key, value, error);
}

static guint
lookup (const char *device_name, guint edge, guint n_bins, EfPrecision precision)
{
  g_autofree char *key = class_key (edge, n_bins, precision);
  gint v = ef_cuda_tune_kernel_get (NULL, device_name, key, 1, EF_CUDA_N_SHAPES);

  return v < 0 ? 0 : (guint) v;
}

guint
ef_cuda_tune_lookup (int device, guint edge, guint n_bins, EfPrecision precision)
{
  g_autofree char *name = ef_cuda_device_name (device);

  return name ? lookup (name, edge, n_bins, precision) : 0;
}

/* A synthetic spotlight problem: 10 km, 30 degrees grazing, one range bin per pixel, random profiles. */
static EfProfiles *
synthetic_profiles (guint n_pulses, guint n_bins, double spacing, GError **error)
{
  EfProfiles *p = ef_profiles_new (n_pulses, n_bins, FALSE, error);
  GRand *rand;
  const double R = 10e3, graze = 30.0 * G_PI / 180.0, span = 4.0 * G_PI / 180.0;

  if (p == NULL)
    return NULL;
  rand = g_rand_new_with_seed (12345);
  for (guint i = 0; i < n_pulses; i++)
    {
      EfProfileMeta *m = &p->meta[i];
      double az = -0.5 * span + span * i / MAX (n_pulses - 1.0, 1.0);

      m->tx[0] = R * cos (graze) * cos (az);
      m->tx[1] = R * cos (graze) * sin (az);
      m->tx[2] = R * sin (graze);
      memcpy (m->rcv, m->tx, sizeof m->tx);
      m->r0 = R;
      m->dr = spacing;
      m->r_start = -(double) (n_bins / 2) * m->dr;
      m->kr = 4.0 * G_PI * 9.6e9 / EF_C;
    }
  for (gsize i = 0; i < (gsize) n_pulses * n_bins; i++)
    p->data32[i] = (float) g_rand_double_range (rand, -1, 1) + (float) g_rand_double_range (rand, -1, 1) * I;
  g_rand_free (rand);
  p->n_pulses = n_pulses;
  p->monostatic = TRUE;
  return p;
}

gboolean
ef_cuda_tune (int device, guint edge, guint n_pulses, guint n_bins, EfPrecision precision, guint *best,
              char **report, GError **error)
{
  g_autofree char *name = NULL;
  g_autofree char *key = NULL;
  g_autoptr (EfProfiles) prof = NULL;
  g_autoptr (GString) table = g_string_new (NULL);
  g_autofree EfCf32 *img = NULL;
  EfGrid grid;
  guint winner = 0;
  double best_ms = G_MAXDOUBLE;

  g_return_val_if_fail (edge > 0 && n_pulses > 0 && n_bins > 1, FALSE);
  g_return_val_if_fail (precision == EF_PRECISION_FP32 || precision == EF_PRECISION_FP16, FALSE);

  if (!ef_cuda_available (NULL))
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_DEVICE, "No CUDA device");
      return FALSE;
    }
  if (device >= 0 && !ef_cuda_check_ (cudaSetDevice (device), "cudaSetDevice", __FILE__, __LINE__, error))
    return FALSE;
  name = ef_cuda_device_name (device);
  if (!ef_grid_init_roi (&grid, -0.0625 * edge, -0.0625 * edge, 0.0625 * edge, 0.0625 * edge, 0.125, error))
    return FALSE;
  prof = synthetic_profiles (n_pulses, n_bins, 0.125, error);
  if (prof == NULL)
    return FALSE;
  img = g_try_new (EfCf32, ef_grid_n_pixels (&grid));
  if (img == NULL)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_MEMORY, "No memory for a %u-pixel image", edge);
      return FALSE;
    }

  g_string_append_printf (table, "%s, %s, %u x %u px, %u pulses, %u bins\n", name,
                          ef_precision_to_string (precision), edge, edge, n_pulses, n_bins);
  g_string_append (table, "variant  seg  warps  chunk  kernel ms  backprojections/s\n");
  for (guint v = 1; v <= EF_CUDA_N_SHAPES; v++)
    {
      const EfCudaShape *sh = &ef_cuda_shapes[v - 1];
      double ms = G_MAXDOUBLE;

      /* Three runs, the fastest counts: the first also pays for module loading. */
      for (int rep = 0; rep < 3; rep++)
        {
          double t = 0;

          if (!ef_cuda_bp_profiles (&grid, prof, precision, v, img, &t, error))
            return FALSE;
          ms = MIN (ms, t);
        }
      g_string_append_printf (table, "%7u  %3u  %5u  %5u  %9.3f  %.3e\n", v, sh->seg, sh->warps, sh->chunk, ms,
                              (double) n_pulses * edge * edge / (ms * 1e-3));
      if (ms < best_ms)
        {
          best_ms = ms;
          winner = v;
        }
    }
  g_string_append_printf (table, "fastest: variant %u\n", winner);

  key = class_key (edge, n_bins, precision);
  if (!ef_cuda_tune_kernel_set (NULL, name, key, (gint) winner, error))
    return FALSE;
  if (best)
    *best = winner;
  if (report)
    *report = g_string_free (g_steal_pointer (&table), FALSE);
  return TRUE;
}
