/* ef-json.h: the few helpers every JSON writer of Echoform shares, over json-glib. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* The text of a JSON tree: pretty (two-space indents, a final newline) or on one line. Owned.
 *
 * json-glib before 1.7 appends ".0" to every double whose shortest form has no decimal point, exponent
 * forms included, and so writes 1e-05 as the invalid number "1e-05.0"; the text is repaired here (nothing
 * else is changed), so that every double reads back exactly in any JSON reader. */
char *ef_json_to_text (JsonNode *root, gboolean pretty);

/* Adds a number to the builder (after a member name, or in an array): null when it is not finite, which
 * JSON cannot hold. */
void  ef_json_add_double (JsonBuilder *builder, double value);
/* Sets member name to a number, a string (NULL: null), an integer, a boolean. */
void  ef_json_set_double (JsonBuilder *builder, const char *name, double value);
void  ef_json_set_string (JsonBuilder *builder, const char *name, const char *value);
void  ef_json_set_int (JsonBuilder *builder, const char *name, gint64 value);
void  ef_json_set_bool (JsonBuilder *builder, const char *name, gboolean value);
/* An array of n numbers under name. */
void  ef_json_set_doubles (JsonBuilder *builder, const char *name, const double *values, guint n);

/* A member that is a number (integer or not): FALSE when absent or of another type. */
gboolean ef_json_get_double (JsonObject *object, const char *name, double *out);
/* A member that is an array of three finite numbers: FALSE when absent or anything else. */
gboolean ef_json_get_vec3 (JsonObject *object, const char *name, double out[3]);

G_END_DECLS
