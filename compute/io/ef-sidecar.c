/* ef-sidecar.c: the JSON that travels with a formed image: its grid and what formed it (json-glib). */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-image-io"
#include "config.h"

#include <math.h>
#include <string.h>

#include "ef-error.h"
#include "ef-json.h"
#include "ef-sidecar.h"

/* Image edges a sidecar may describe; the .npy reader enforces its own, smaller limits. */
#define EF_SIDECAR_MAX_EDGE 1e9

gboolean
ef_sidecar_grid_is_finite (const EfGrid *g)
{
  for (int i = 0; i < 3; i++)
    if (!isfinite (g->origin[i]) || !isfinite (g->u[i]) || !isfinite (g->v[i]))
      return FALSE;
  return isfinite (g->spacing);
}

char *
ef_sidecar_to_text (const EfGrid *g, JsonObject *extra)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  g_autoptr (JsonNode) root = NULL;

  g_return_val_if_fail (g != NULL, NULL);

  json_builder_begin_object (b);
  ef_json_set_string (b, "format", "echoform-image");
  ef_json_set_int (b, "version", 1);
  ef_json_set_string (b, "dtype", "complex64");
  ef_json_set_int (b, "width", g->width);
  ef_json_set_int (b, "height", g->height);
  ef_json_set_double (b, "spacing", g->spacing);
  ef_json_set_doubles (b, "origin", g->origin, 3);
  ef_json_set_doubles (b, "u", g->u, 3);
  ef_json_set_doubles (b, "v", g->v, 3);
  if (extra != NULL)
    {
      JsonNode *node = json_node_new (JSON_NODE_OBJECT);

      json_node_set_object (node, extra);
      json_builder_set_member_name (b, "extra");
      json_builder_add_value (b, node);
    }
  json_builder_end_object (b);
  root = json_builder_get_root (b);
  return ef_json_to_text (root, TRUE);
}

gboolean
ef_sidecar_parse (const char *text, gssize len, const char *name, EfGrid *grid, JsonObject **extra,
                  GError **error)
{
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autoptr (GError) local = NULL;
  JsonNode *root;
  JsonObject *o;
  double w, h, uu = 0, vv = 0, uv = 0;

  g_return_val_if_fail (text != NULL && grid != NULL, FALSE);

  if (extra != NULL)
    *extra = NULL;
  memset (grid, 0, sizeof *grid);
  if (!json_parser_load_from_data (parser, text, len, &local))
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FORMAT, "“%s” is not valid JSON: %s", name, local->message);
      return FALSE;
    }
  root = json_parser_get_root (parser);
  if (root == NULL || !JSON_NODE_HOLDS_OBJECT (root))
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FORMAT, "“%s” is not a JSON object", name);
      return FALSE;
    }
  o = json_node_get_object (root);
  if (!ef_json_get_double (o, "width", &w) || !ef_json_get_double (o, "height", &h)
      || !ef_json_get_double (o, "spacing", &grid->spacing) || !ef_json_get_vec3 (o, "origin", grid->origin)
      || !ef_json_get_vec3 (o, "u", grid->u) || !ef_json_get_vec3 (o, "v", grid->v))
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FORMAT,
                   "“%s” lacks the grid (width, height, spacing, origin, u, v) or is malformed", name);
      return FALSE;
    }
  if (!(w >= 1 && w <= EF_SIDECAR_MAX_EDGE && h >= 1 && h <= EF_SIDECAR_MAX_EDGE) || w != floor (w) || h != floor (h))
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA, "“%s” describes a grid of %g x %g pixels", name, w,
                   h);
      return FALSE;
    }
  grid->width = (guint) w;
  grid->height = (guint) h;
  for (int i = 0; i < 3; i++)
    {
      uu += grid->u[i] * grid->u[i];
      vv += grid->v[i] * grid->v[i];
      uv += grid->u[i] * grid->v[i];
    }
  if (!ef_sidecar_grid_is_finite (grid) || !(grid->spacing > 0) || fabs (uu - 1) > 1e-6 || fabs (vv - 1) > 1e-6
      || fabs (uv) > 1e-6)
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA,
                   "“%s” has an invalid grid: the spacing must be positive and u, v orthonormal", name);
      return FALSE;
    }
  if (extra != NULL && json_object_has_member (o, "extra") && JSON_NODE_HOLDS_OBJECT (json_object_get_member (o, "extra")))
    *extra = json_object_ref (json_object_get_object_member (o, "extra"));
  return TRUE;
}

char *
ef_sidecar_path (const char *path)
{
  gsize len = strlen (path);

  if (len > 4 && g_ascii_strcasecmp (path + len - 4, ".npy") == 0)
    return g_strdup_printf ("%.*s.json", (int) (len - 4), path);
  return g_strdup_printf ("%s.json", path);
}
