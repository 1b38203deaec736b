/* ef-stack-truth.c: a repeat-pass simulation's ground truth written as JSON and read back. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-stack-truth"
#include "config.h"

#include <math.h>
#include <glib/gstdio.h>

#include "ef-stack-truth.h"
#include "ef-error.h"
#include "ef-json.h"

#define EF_TRUTH_MAX_BYTES (256u << 20)

/* Each parameter once, by name: the writer and the reader walk the same table. */
typedef enum { F_UINT, F_DOUBLE, F_U64 } FieldKind;
typedef struct {
  const char *name;
  FieldKind   kind;
  gsize       offset;
} Field;

#define FD(n) { #n, F_DOUBLE, G_STRUCT_OFFSET (EfRepeatParams, n) }
#define FU(n) { #n, F_UINT, G_STRUCT_OFFSET (EfRepeatParams, n) }
static const Field fields[] = {
  FU (width), FU (height), FD (spacing), FU (n_passes), FD (span_years), FD (bperp_std), FD (wavelength),
  FD (range), FD (incidence_deg), FU (n_ps), FU (ps_gap), FD (scr_db_min), FD (scr_db_max), FD (bowl_depth),
  FD (velocity_jitter), FD (seasonal_amp), FD (height_max), FD (clutter_coherence), FD (aps_rms),
  FD (aps_length), FD (noise_db), { "seed", F_U64, G_STRUCT_OFFSET (EfRepeatParams, seed) },
};

gboolean
ef_repeat_truth_write_json (const EfRepeatTruth *truth, const char *path, GError **error)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  g_autoptr (JsonNode) root = NULL;
  g_autofree char *text = NULL;
  const EfRepeatParams *p;

  g_return_val_if_fail (truth != NULL && path != NULL, FALSE);
  p = &truth->params;
  json_builder_begin_object (b);
  ef_json_set_string (b, "format", "echoform-repeat-truth");
  ef_json_set_int (b, "version", 1);
  json_builder_set_member_name (b, "params");
  json_builder_begin_object (b);
  for (guint i = 0; i < G_N_ELEMENTS (fields); i++)
    {
      const guint8 *at = (const guint8 *) p + fields[i].offset;

      if (fields[i].kind == F_DOUBLE)
        ef_json_set_double (b, fields[i].name, *(const double *) at);
      else if (fields[i].kind == F_UINT)
        ef_json_set_int (b, fields[i].name, *(const guint *) at);
      else
        {
          /* A 64-bit seed does not fit a JSON number exactly: it goes as a decimal string. */
          g_autofree char *s = g_strdup_printf ("%" G_GUINT64_FORMAT, *(const guint64 *) at);
          ef_json_set_string (b, fields[i].name, s);
        }
    }
  json_builder_end_object (b);
  ef_json_set_doubles (b, "t_years", truth->t_years, p->n_passes);
  ef_json_set_doubles (b, "bperp", truth->bperp, p->n_passes);
  json_builder_set_member_name (b, "ps");
  json_builder_begin_array (b);
  for (guint i = 0; i < truth->n_ps; i++)
    {
      const EfRepeatPs *s = &truth->ps[i];

      json_builder_begin_object (b);
      ef_json_set_int (b, "col", s->col);
      ef_json_set_int (b, "row", s->row);
      ef_json_set_double (b, "velocity", s->velocity);
      ef_json_set_double (b, "height", s->height);
      ef_json_set_double (b, "seasonal_amp", s->seasonal_amp);
      ef_json_set_double (b, "scr_db", s->scr_db);
      ef_json_set_double (b, "amplitude", s->amplitude);
      ef_json_set_double (b, "phase0", s->phase0);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  json_builder_end_object (b);
  root = json_builder_get_root (b);
  text = ef_json_to_text (root, TRUE);
  return g_file_set_contents (path, text, -1, error);
}

EfRepeatTruth *
ef_repeat_truth_read_json (const char *path, GError **error)
{
  g_autofree char *text = NULL;
  g_autoptr (JsonParser) parser = NULL;
  g_autoptr (GError) local = NULL;
  g_autoptr (EfRepeatTruth) t = NULL;
  EfRepeatParams p = { 0 };
  JsonNode *root;
  JsonObject *o, *po;
  JsonArray *ps, *dates;
  GStatBuf st;
  gsize len;

  g_return_val_if_fail (path != NULL, NULL);
  if (g_stat (path, &st) != 0 || st.st_size > EF_TRUTH_MAX_BYTES)
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FAILED, "Cannot read “%s” as a truth file", path);
      return NULL;
    }
  if (!g_file_get_contents (path, &text, &len, error))
    return NULL;
  parser = json_parser_new ();
  if (!json_parser_load_from_data (parser, text, len, NULL) || (root = json_parser_get_root (parser)) == NULL
      || !JSON_NODE_HOLDS_OBJECT (root))
    goto bad;
  o = json_node_get_object (root);
  if (g_strcmp0 (json_object_get_string_member_with_default (o, "format", ""), "echoform-repeat-truth") != 0
      || !json_object_has_member (o, "params") || !JSON_NODE_HOLDS_OBJECT (json_object_get_member (o, "params")))
    goto bad;
  po = json_object_get_object_member (o, "params");
  for (guint i = 0; i < G_N_ELEMENTS (fields); i++)
    {
      guint8 *at = (guint8 *) &p + fields[i].offset;
      double v;

      if (fields[i].kind == F_U64)
        {
          const char *s = json_object_get_string_member_with_default (po, fields[i].name, NULL);
          if (s == NULL || !g_ascii_string_to_unsigned (s, 10, 0, G_MAXUINT64, (guint64 *) at, NULL))
            goto bad;
          continue;
        }
      if (!ef_json_get_double (po, fields[i].name, &v))
        goto bad;
      if (fields[i].kind == F_DOUBLE)
        *(double *) at = v;
      else if (v >= 0 && v <= G_MAXUINT && v == floor (v))
        *(guint *) at = (guint) v;
      else
        goto bad;
    }
  t = ef_repeat_truth_new (&p, &local);
  if (t == NULL)
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA, "“%s”: %s", path, local->message);
      return NULL;
    }
  /* The file's dates and scatterers must be those the parameters draw: anything else is another truth. */
  if (!json_object_has_member (o, "t_years") || !JSON_NODE_HOLDS_ARRAY (json_object_get_member (o, "t_years"))
      || !json_object_has_member (o, "ps") || !JSON_NODE_HOLDS_ARRAY (json_object_get_member (o, "ps")))
    goto bad;
  dates = json_object_get_array_member (o, "t_years");
  ps = json_object_get_array_member (o, "ps");
  if (json_array_get_length (dates) != p.n_passes || json_array_get_length (ps) != t->n_ps)
    goto mismatch;
  for (guint k = 0; k < p.n_passes; k++)
    if (fabs (json_array_get_double_element (dates, k) - t->t_years[k]) > 1e-9)
      goto mismatch;
  for (guint i = 0; i < t->n_ps; i++)
    {
      JsonNode *n = json_array_get_element (ps, i);
      JsonObject *so;

      if (!JSON_NODE_HOLDS_OBJECT (n))
        goto bad;
      so = json_node_get_object (n);
      if (json_object_get_int_member_with_default (so, "col", -1) != t->ps[i].col
          || json_object_get_int_member_with_default (so, "row", -1) != t->ps[i].row)
        goto mismatch;
    }
  return g_steal_pointer (&t);

mismatch:
  g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA,
               "“%s”: the dates or scatterers listed are not those its parameters draw", path);
  return NULL;
bad:
  g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FORMAT, "“%s” is not a well-formed truth file", path);
  return NULL;
}
