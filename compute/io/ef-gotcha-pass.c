/* ef-gotcha-pass.c: a Gotcha pass as one dataset: the files of a folder (or one file), in azimuth order. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-gotcha"
#include "config.h"

#include <math.h>
#include <string.h>

#include <glib/gstdio.h>

#include "ef-error.h"
#include "ef-gotcha.h"
#include "ef-gotcha-private.h"

/* Timing.  The files carry no pulse times and no PRF.  Backprojection does not need them, so t is a nominal
 * 1 ms per pulse, counted over the pulses kept, only so that it increases monotonically. */
#define GOTCHA_NOMINAL_PRI 1e-3

static const char *const polarisations[] = { "HH", "VV", "HV", "VH", NULL };

typedef struct {
  GPtrArray *parts;   /* owned, of EfGotchaPart, in azimuth order */
  guint64   *first;   /* owned, parts->len + 1 prefix sums of kept pulses */
} GotchaPriv;

/* ---- names ------------------------------------------------------------------------------------- */

static gboolean
has_mat_suffix (const char *name)
{
  gsize n = strlen (name);
  return n > 4 && g_ascii_strcasecmp (name + n - 4, ".mat") == 0;
}

/* The polarisation named in a file name, as in data_3dsar_pass1_az001_HH.mat, or NULL. */
static char *
polarisation_from_name (const char *path)
{
  g_autofree char *base = g_path_get_basename (path);
  g_auto (GStrv) tokens = NULL;
  const char *found = NULL;

  if (has_mat_suffix (base))
    base[strlen (base) - 4] = '\0';
  tokens = g_strsplit_set (base, "_-. ", -1);
  for (guint i = 0; tokens[i] != NULL; i++)
    for (guint k = 0; polarisations[k] != NULL; k++)
      if (g_ascii_strcasecmp (tokens[i], polarisations[k]) == 0)
        found = polarisations[k];  /* the last one wins: it is usually the suffix */
  return g_strdup (found);
}

EfGotchaPart *
ef_gotcha_part_new (const char *path)
{
  EfGotchaPart *part = g_new0 (EfGotchaPart, 1);

  part->path = g_strdup (path);
  part->pol = polarisation_from_name (path);
  return part;
}

void
ef_gotcha_part_free (EfGotchaPart *part)
{
  if (part == NULL)
    return;
  g_free (part->path);
  g_free (part->pol);
  g_free (part->pulses);
  g_free (part->samples);
  g_free (part);
}

static const char *
canonical_polarisation (const char *pol)
{
  for (guint k = 0; polarisations[k] != NULL; k++)
    if (g_ascii_strcasecmp (pol, polarisations[k]) == 0)
      return polarisations[k];
  return NULL;
}

/* ---- the dataset ------------------------------------------------------------------------------- */

static gboolean
gotcha_read_block (EfDataset *self, guint64 first, guint count, EfCf32 *out, GError **error)
{
  GotchaPriv *priv = self->priv;
  gsize ns = self->info.n_samples;
  guint lo = 0, hi = priv->parts->len;

  /* Binary search for the part holding pulse `first`: first[lo] <= first < first[lo + 1]. */
  while (hi - lo > 1)
    {
      guint mid = lo + (hi - lo) / 2;
      if (priv->first[mid] <= first)
        lo = mid;
      else
        hi = mid;
    }
  while (count > 0)
    {
      const EfGotchaPart *part = g_ptr_array_index (priv->parts, lo);
      guint64 local = first - priv->first[lo];
      guint n = (guint) MIN ((guint64) count, part->n_pulses - local);

      memcpy (out, part->samples + local * ns, (gsize) n * ns * sizeof (EfCf32));
      out += (gsize) n * ns;
      first += n;
      count -= n;
      lo++;
    }
  return TRUE;
}

static void
gotcha_finalize (EfDataset *self)
{
  GotchaPriv *priv = self->priv;

  if (priv == NULL)
    return;
  g_clear_pointer (&priv->parts, g_ptr_array_unref);
  g_free (priv->first);
  g_free (priv);
}

static const EfDatasetOps gotcha_ops = {
  .read_block = gotcha_read_block,
  .finalize = gotcha_finalize,
};

static int
compare_parts (gconstpointer a, gconstpointer b)
{
  const EfGotchaPart *pa = *(EfGotchaPart *const *) a, *pb = *(EfGotchaPart *const *) b;

  if (pa->first_az < pb->first_az)
    return -1;
  if (pa->first_az > pb->first_az)
    return 1;
  return strcmp (pa->path, pb->path);
}

/* Lists the .mat files of a folder; the caller sorts them. */
static GPtrArray *
list_folder (const char *folder, GError **error)
{
  g_autoptr (GDir) dir = NULL;
  g_autoptr (GPtrArray) paths = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GError) local = NULL;
  const char *name;

  dir = g_dir_open (folder, 0, &local);
  if (dir == NULL)
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FAILED, "Cannot read the folder “%s”: %s", folder,
                   local->message);
      return NULL;
    }
  while ((name = g_dir_read_name (dir)) != NULL)
    if (has_mat_suffix (name))
      g_ptr_array_add (paths, g_build_filename (folder, name, NULL));
  return g_steal_pointer (&paths);
}

static int
compare_strings (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const char *const *) a, *(const char *const *) b);
}

EfDataset *
ef_gotcha_open (const char *const *paths, const EfGotchaOptions *opts, GError **error)
{
  EfGotchaOptions defaults;
  g_autoptr (GPtrArray) parts = g_ptr_array_new_with_free_func ((GDestroyNotify) ef_gotcha_part_free);
  const char *want_pol = NULL;
  const char *pol = NULL;
  gboolean any_v5 = FALSE, any_v73 = FALSE;
  guint n_files = 0;
  double span_min = INFINITY, span_max = -INFINITY;
  guint64 total = 0;
  EfDataset *self;
  GotchaPriv *priv;
  guint ns = 0;
  double fc_sum = 0, bw_sum = 0;

  g_return_val_if_fail (paths != NULL && paths[0] != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (opts == NULL)
    {
      ef_gotcha_options_init (&defaults);
      opts = &defaults;
    }
  if (opts->polarisation != NULL)
    {
      want_pol = canonical_polarisation (opts->polarisation);
      if (want_pol == NULL)
        {
          g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA,
                       "Unknown polarisation “%s”: use HH, VV, HV or VH", opts->polarisation);
          return NULL;
        }
    }

  for (guint i = 0; paths[i] != NULL; i++)
    {
      gboolean is_dir = g_file_test (paths[i], G_FILE_TEST_IS_DIR);
      g_autoptr (GPtrArray) files = NULL;
      guint found = 0;

      if (is_dir)
        {
          files = list_folder (paths[i], error);
          if (files == NULL)
            return NULL;
        }
      else
        {
          files = g_ptr_array_new_with_free_func (g_free);
          g_ptr_array_add (files, g_strdup (paths[i]));
        }
      g_ptr_array_sort (files, compare_strings);

      for (guint f = 0; f < files->len; f++)
        {
          const char *file = g_ptr_array_index (files, f);
          g_autofree char *file_pol = polarisation_from_name (file);
          g_autoptr (GError) local = NULL;
          EfGotchaPart *part = NULL;
          EfGotchaLoad res;

          if (want_pol != NULL && file_pol != NULL && strcmp (file_pol, want_pol) != 0)
            {
              if (is_dir)
                continue;  /* a folder may hold every polarisation of a pass */
              g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA,
                           "“%s” holds %s data, but %s was asked for", file, file_pol, want_pol);
              return NULL;
            }
          res = opts->same_process ? ef_gotcha_load_part (file, opts, &part, &local)
                                    : ef_gotcha_load_part_isolated (file, opts, &part, &local);
          if (res == EF_GOTCHA_LOAD_NOT_GOTCHA && is_dir)
            {
              g_debug ("Skipping %s: %s", file, local->message);
              continue;
            }
          if (res != EF_GOTCHA_LOAD_OK)
            {
              g_propagate_error (error, g_steal_pointer (&local));
              return NULL;
            }
          found++;
          n_files++;
          span_min = MIN (span_min, part->min_az);
          span_max = MAX (span_max, part->max_az);
          any_v5 |= part->version == MAT_FT_MAT5;
          any_v73 |= part->version == MAT_FT_MAT73;
          if (ns != 0 && part->n_samples != ns)
            {
              const EfGotchaPart *prev = g_ptr_array_index (parts, 0);
              g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA,
                           "“%s” has %u samples per pulse, but “%s” has %u: they cannot form one aperture",
                           part->path, part->n_samples, prev->path, ns);
              ef_gotcha_part_free (part);
              return NULL;
            }
          ns = part->n_samples;
          if (part->pol != NULL)
            {
              if (pol != NULL && strcmp (pol, part->pol) != 0)
                {
                  g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA,
                               "The files mix polarisations (%s and %s): choose one", pol, part->pol);
                  ef_gotcha_part_free (part);
                  return NULL;
                }
              pol = canonical_polarisation (part->pol);
            }
          g_ptr_array_add (parts, part);
        }
      if (is_dir && found == 0)
        {
          if (want_pol != NULL)
            g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FORMAT,
                         "The folder “%s” holds no Gotcha .mat files of polarisation %s", paths[i], want_pol);
          else
            g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FORMAT, "The folder “%s” holds no Gotcha .mat files",
                         paths[i]);
          return NULL;
        }
    }

  /* Files in azimuth order; pulses keep their order within a file. */
  g_ptr_array_sort (parts, compare_parts);
  for (guint i = 0; i < parts->len;)
    {
      EfGotchaPart *part = g_ptr_array_index (parts, i);
      if (part->n_pulses == 0)
        g_ptr_array_remove_index (parts, i);
      else
        {
          total += part->n_pulses;
          i++;
        }
    }
  if (total == 0)
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA,
                   "No pulse lies in the azimuth range %g° to %g°; the files span %.3f° to %.3f°", opts->az_min_deg,
                   opts->az_max_deg, span_min, span_max);
      return NULL;
    }

  if (total > GOTCHA_MAX_PULSES)
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA,
                   "The files hold %" G_GUINT64_FORMAT " pulses together; Echoform reads at most %u", total,
                   GOTCHA_MAX_PULSES);
      return NULL;
    }
  self = ef_dataset_alloc (&gotcha_ops);
  priv = g_new0 (GotchaPriv, 1);
  self->priv = priv;
  priv->first = g_new0 (guint64, parts->len + 1);
  self->pulses = g_new0 (EfPulse, total);
  {
    guint64 p = 0;
    for (guint i = 0; i < parts->len; i++)
      {
        EfGotchaPart *part = g_ptr_array_index (parts, i);
        priv->first[i] = p;
        for (guint k = 0; k < part->n_pulses; k++, p++)
          {
            self->pulses[p] = part->pulses[k];
            self->pulses[p].t = (double) p * GOTCHA_NOMINAL_PRI;
            fc_sum += 0.5 * (part->pulses[k].fx1 + part->pulses[k].fx2);
            bw_sum += part->pulses[k].fx2 - part->pulses[k].fx1 + part->pulses[k].scss;
          }
        /* The pulse parameters now live in the dataset; the part keeps only its samples. */
        g_clear_pointer (&part->pulses, g_free);
      }
    priv->first[parts->len] = p;
  }
  priv->parts = g_steal_pointer (&parts);

  self->info.domain = EF_DOMAIN_FX;
  self->info.n_pulses = total;
  self->info.n_samples = ns;
  self->info.fc = fc_sum / (double) total;
  self->info.bandwidth = bw_sum / (double) total;
  self->info.has_geo = FALSE;
  self->info.times_nominal = TRUE;
  self->info.n_channels = 1;
  self->info.channel = 0;
  if (pol != NULL)
    {
      self->info.channel_names = g_new0 (char *, 2);
      self->info.channel_names[0] = g_strdup (pol);
    }
  self->info.source = g_strdup_printf ("AFRL Gotcha, MATLAB %s, %u file%s",
                                       any_v5 && any_v73 ? "v5 and v7.3" : any_v73 ? "v7.3" : "v5", n_files,
                                       n_files == 1 ? "" : "s");
  if (paths[1] == NULL)
    self->info.path = g_strdup (paths[0]);
  else
    self->info.path = g_path_get_dirname (paths[0]);

  if (!ef_dataset_validate (self, error))
    {
      ef_dataset_unref (self);
      return NULL;
    }
  return self;
}

gboolean
ef_gotcha_sniff (const char *path)
{
  g_return_val_if_fail (path != NULL, FALSE);

  if (g_file_test (path, G_FILE_TEST_IS_DIR))
    {
      g_autoptr (GDir) dir = g_dir_open (path, 0, NULL);
      const char *name;

      if (dir == NULL)
        return FALSE;
      while ((name = g_dir_read_name (dir)) != NULL)
        if (has_mat_suffix (name))
          return TRUE;
      return FALSE;
    }
  if (!g_file_test (path, G_FILE_TEST_IS_REGULAR))
    return FALSE;
  if (has_mat_suffix (path))
    return TRUE;
  {
    /* A MATLAB v5 or v7.3 file under another name: its text header says so. */
    char head[8] = { 0 };
    FILE *f = g_fopen (path, "rb");
    gsize n;

    if (f == NULL)
      return FALSE;
    n = fread (head, 1, sizeof head, f);
    fclose (f);
    return n == sizeof head && memcmp (head, "MATLAB ", 7) == 0;
  }
}
