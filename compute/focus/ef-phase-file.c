/* ef-phase-file.c: per-pulse phase corrections: the dataset that applies them and the file that holds them. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-focus"
#include "config.h"

#include <complex.h>
#include <math.h>
#include <string.h>
#include <json-glib/json-glib.h>

#include "ef-error.h"
#include "ef-focus.h"

#define PHASE_FORMAT "echoform-phase-correction"

typedef struct {
  EfDataset *inner;  /* owned reference */
  double    *phase;  /* owned, inner's pulse count */
} PhasePriv;

static gboolean
phase_read_block (EfDataset *self, guint64 first, guint count, EfCf32 *out, GError **error)
{
  PhasePriv *priv = self->priv;
  gsize ns = self->info.n_samples;

  if (!ef_dataset_read_block (priv->inner, first, count, out, error))
    return FALSE;
  for (guint i = 0; i < count; i++)
    {
      double ph = priv->phase[first + i];
      EfCf32 rot = (float) cos (ph) - I * (float) sin (ph);
      EfCf32 *s = out + (gsize) i * ns;

      if (ph == 0)
        continue;
      for (gsize k = 0; k < ns; k++)
        s[k] *= rot;
    }
  return TRUE;
}

static void
phase_finalize (EfDataset *self)
{
  PhasePriv *priv = self->priv;

  ef_dataset_unref (priv->inner);
  g_free (priv->phase);
  g_free (priv);
}

static const EfDatasetOps phase_ops = {
  .read_block = phase_read_block,
  .finalize = phase_finalize,
};

EfDataset *
ef_dataset_new_phase_corrected (EfDataset *inner, const double *phase, guint64 n_phase, GError **error)
{
  EfDataset *self;
  PhasePriv *priv;

  g_return_val_if_fail (inner != NULL, NULL);
  g_return_val_if_fail (phase != NULL || n_phase == 0, NULL);

  if (n_phase != inner->info.n_pulses)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "The phase correction has %" G_GUINT64_FORMAT " pulses, the collection %" G_GUINT64_FORMAT,
                   n_phase, inner->info.n_pulses);
      return NULL;
    }
  for (guint64 p = 0; p < n_phase; p++)
    if (!isfinite (phase[p]))
      {
        g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                     "The phase correction of pulse %" G_GUINT64_FORMAT " is not finite", p);
        return NULL;
      }

  self = ef_dataset_alloc (&phase_ops);
  priv = g_new0 (PhasePriv, 1);
  priv->inner = ef_dataset_ref (inner);
  priv->phase = g_memdup2 (phase, n_phase * sizeof (double));
  ef_dataset_info_clear (&self->info);
  ef_dataset_info_copy (&inner->info, &self->info);
  self->pulses = g_memdup2 (inner->pulses, inner->info.n_pulses * sizeof (EfPulse));
  self->priv = priv;
  return self;
}

gboolean
ef_phase_file_write (const char *path, const double *phase, guint64 n_pulses, const char *method,
                     const char *note, GError **error)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  g_autoptr (JsonGenerator) gen = json_generator_new ();
  g_autoptr (JsonNode) root = NULL;

  g_return_val_if_fail (path != NULL && (phase != NULL || n_pulses == 0), FALSE);

  for (guint64 p = 0; p < n_pulses; p++)
    if (!isfinite (phase[p]))
      {
        g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                     "The phase correction of pulse %" G_GUINT64_FORMAT " is not finite", p);
        return FALSE;
      }
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "format");
  json_builder_add_string_value (b, PHASE_FORMAT);
  json_builder_set_member_name (b, "version");
  json_builder_add_int_value (b, 1);
  json_builder_set_member_name (b, "n_pulses");
  json_builder_add_int_value (b, (gint64) n_pulses);
  json_builder_set_member_name (b, "method");
  json_builder_add_string_value (b, method != NULL ? method : "unknown");
  json_builder_set_member_name (b, "note");
  json_builder_add_string_value (b, note != NULL ? note
                                 : "pulse p's samples are multiplied by exp(-j phase_rad[p]) before range compression");
  json_builder_set_member_name (b, "phase_rad");
  json_builder_begin_array (b);
  for (guint64 p = 0; p < n_pulses; p++)
    json_builder_add_double_value (b, phase[p]);
  json_builder_end_array (b);
  json_builder_end_object (b);
  root = json_builder_get_root (b);
  json_generator_set_root (gen, root);
  json_generator_set_pretty (gen, FALSE);
  if (!json_generator_to_file (gen, path, error))
    {
      g_prefix_error (error, "%s: ", path);
      return FALSE;
    }
  return TRUE;
}

static gboolean
bad (GError **error, const char *path, const char *what)
{
  g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FORMAT, "%s: not a phase correction file: %s", path, what);
  return FALSE;
}

gboolean
ef_phase_file_read (const char *path, guint64 expect_n, double **phase, guint64 *n_pulses, char **method,
                    GError **error)
{
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autoptr (GError) local = NULL;
  g_autofree double *values = NULL;
  JsonObject *obj;
  JsonArray *arr;
  JsonNode *node;
  gint64 n;
  guint len;

  g_return_val_if_fail (path != NULL && phase != NULL, FALSE);

  if (!json_parser_load_from_file (parser, path, &local))
    {
      if (local->domain == G_FILE_ERROR)
        g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FAILED, "%s: %s", path, local->message);
      else
        g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FORMAT, "%s: not JSON: %s", path, local->message);
      return FALSE;
    }
  node = json_parser_get_root (parser);
  if (node == NULL || !JSON_NODE_HOLDS_OBJECT (node))
    return bad (error, path, "the top level is not an object");
  obj = json_node_get_object (node);
  node = json_object_get_member (obj, "format");
  if (node == NULL || json_node_get_value_type (node) != G_TYPE_STRING
      || g_strcmp0 (json_node_get_string (node), PHASE_FORMAT) != 0)
    return bad (error, path, "no \"format\": \"" PHASE_FORMAT "\"");
  node = json_object_get_member (obj, "n_pulses");
  if (node == NULL || json_node_get_value_type (node) != G_TYPE_INT64 || (n = json_node_get_int (node)) < 0)
    return bad (error, path, "no pulse count (\"n_pulses\")");
  node = json_object_get_member (obj, "phase_rad");
  if (node == NULL || !JSON_NODE_HOLDS_ARRAY (node))
    return bad (error, path, "no \"phase_rad\" array");
  arr = json_node_get_array (node);
  len = json_array_get_length (arr);
  if ((guint64) len != (guint64) n)
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA,
                   "%s: \"phase_rad\" holds %u values but \"n_pulses\" says %" G_GINT64_FORMAT, path, len, n);
      return FALSE;
    }
  if (expect_n != 0 && (guint64) n != expect_n)
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA,
                   "%s: corrections for %" G_GINT64_FORMAT " pulses, but the collection has %" G_GUINT64_FORMAT,
                   path, n, expect_n);
      return FALSE;
    }
  values = g_new (double, MAX (len, 1u));
  for (guint i = 0; i < len; i++)
    {
      JsonNode *e = json_array_get_element (arr, i);
      GType t = JSON_NODE_HOLDS_VALUE (e) ? json_node_get_value_type (e) : G_TYPE_INVALID;

      if (t != G_TYPE_DOUBLE && t != G_TYPE_INT64)
        {
          g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA, "%s: the phase of pulse %u is not a number",
                       path, i);
          return FALSE;
        }
      values[i] = t == G_TYPE_DOUBLE ? json_node_get_double (e) : (double) json_node_get_int (e);
      if (!isfinite (values[i]))
        {
          g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA, "%s: the phase of pulse %u is not finite",
                       path, i);
          return FALSE;
        }
    }
  if (method != NULL)
    {
      node = json_object_get_member (obj, "method");
      *method = node != NULL && json_node_get_value_type (node) == G_TYPE_STRING
                ? g_strdup (json_node_get_string (node)) : NULL;
    }
  if (n_pulses != NULL)
    *n_pulses = (guint64) n;
  *phase = g_steal_pointer (&values);
  return TRUE;
}
