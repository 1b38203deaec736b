/* ef-json.c: the few helpers every JSON writer of Echoform shares, over json-glib. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-json"
#include "config.h"

#include <math.h>
#include <string.h>

#include "ef-json.h"

/* Drops the ".0" that old json-glib puts after an exponent ("1e-05.0"). Strings are skipped whole,
 * escapes included, so text inside them is never touched. */
static void
repair_exponents (char *text)
{
  char *out = text;
  gboolean in_string = FALSE;

  for (const char *p = text; *p != '\0'; p++)
    {
      if (in_string)
        {
          *out++ = *p;
          if (*p == '\\' && p[1] != '\0')
            *out++ = *++p;
          else if (*p == '"')
            in_string = FALSE;
          continue;
        }
      if (*p == '"')
        in_string = TRUE;
      else if ((*p == 'e' || *p == 'E') && p > text && g_ascii_isdigit (p[-1]))
        {
          /* An exponent: copy it, then skip a ".0" that follows its digits. */
          *out++ = *p++;
          if (*p == '+' || *p == '-')
            *out++ = *p++;
          while (g_ascii_isdigit (*p))
            *out++ = *p++;
          if (p[0] == '.' && p[1] == '0' && !g_ascii_isdigit (p[2]))
            p += 2;
          p--;
          continue;
        }
      *out++ = *p;
    }
  *out = '\0';
}

char *
ef_json_to_text (JsonNode *root, gboolean pretty)
{
  g_autoptr (JsonGenerator) gen = json_generator_new ();
  char *text;

  g_return_val_if_fail (root != NULL, NULL);

  json_generator_set_root (gen, root);
  json_generator_set_pretty (gen, pretty);
  json_generator_set_indent (gen, 2);
  text = json_generator_to_data (gen, NULL);
  repair_exponents (text);
  if (pretty)
    {
      char *with_newline = g_strconcat (text, "\n", NULL);

      g_free (text);
      text = with_newline;
    }
  return text;
}

void
ef_json_add_double (JsonBuilder *builder, double value)
{
  if (isfinite (value))
    json_builder_add_double_value (builder, value);
  else
    json_builder_add_null_value (builder);
}

void
ef_json_set_double (JsonBuilder *builder, const char *name, double value)
{
  json_builder_set_member_name (builder, name);
  ef_json_add_double (builder, value);
}

void
ef_json_set_string (JsonBuilder *builder, const char *name, const char *value)
{
  json_builder_set_member_name (builder, name);
  if (value != NULL)
    json_builder_add_string_value (builder, value);
  else
    json_builder_add_null_value (builder);
}

void
ef_json_set_int (JsonBuilder *builder, const char *name, gint64 value)
{
  json_builder_set_member_name (builder, name);
  json_builder_add_int_value (builder, value);
}

void
ef_json_set_bool (JsonBuilder *builder, const char *name, gboolean value)
{
  json_builder_set_member_name (builder, name);
  json_builder_add_boolean_value (builder, value);
}

void
ef_json_set_doubles (JsonBuilder *builder, const char *name, const double *values, guint n)
{
  json_builder_set_member_name (builder, name);
  json_builder_begin_array (builder);
  for (guint i = 0; i < n; i++)
    ef_json_add_double (builder, values[i]);
  json_builder_end_array (builder);
}

gboolean
ef_json_get_double (JsonObject *object, const char *name, double *out)
{
  JsonNode *node = object != NULL ? json_object_get_member (object, name) : NULL;
  GType type;

  if (node == NULL || !JSON_NODE_HOLDS_VALUE (node))
    return FALSE;
  type = json_node_get_value_type (node);
  if (type == G_TYPE_INT64)
    *out = (double) json_node_get_int (node);
  else if (type == G_TYPE_DOUBLE)
    *out = json_node_get_double (node);
  else
    return FALSE;
  return TRUE;
}

gboolean
ef_json_get_vec3 (JsonObject *object, const char *name, double out[3])
{
  JsonNode *node = object != NULL ? json_object_get_member (object, name) : NULL;
  JsonArray *a;

  if (node == NULL || !JSON_NODE_HOLDS_ARRAY (node))
    return FALSE;
  a = json_node_get_array (node);
  if (json_array_get_length (a) != 3)
    return FALSE;
  for (guint i = 0; i < 3; i++)
    {
      JsonNode *n = json_array_get_element (a, i);
      GType t = JSON_NODE_HOLDS_VALUE (n) ? json_node_get_value_type (n) : G_TYPE_INVALID;

      if (t == G_TYPE_INT64)
        out[i] = (double) json_node_get_int (n);
      else if (t == G_TYPE_DOUBLE)
        out[i] = json_node_get_double (n);
      else
        return FALSE;
      if (!isfinite (out[i]))
        return FALSE;
    }
  return TRUE;
}
