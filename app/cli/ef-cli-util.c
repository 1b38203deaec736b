/* ef-cli-util.c: messages, option contexts, argument parsers, progress bar and JSON for echoform-cli. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-cli"
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ef-backend.h"
#include "ef-cli-private.h"
#include "ef-json.h"

static void
print_prefixed (const char *kind, const char *format, va_list args)
{
  g_autofree char *msg = g_strdup_vprintf (format, args);

  fprintf (stderr, "echoform-cli: %s%s\n", kind, msg);
}

void
ef_cli_error (const char *format, ...)
{
  va_list args;

  va_start (args, format);
  print_prefixed ("", format, args);
  va_end (args);
}

void
ef_cli_warning (const char *format, ...)
{
  va_list args;

  va_start (args, format);
  print_prefixed ("warning: ", format, args);
  va_end (args);
}

/* Messages already shown, so that the same news is never printed twice. Main thread and job worker
 * threads may both log, hence the lock. */
static GMutex said_lock;
static GHashTable *said;

static gboolean
remember_said (const char *message)
{
  gboolean fresh;

  g_mutex_lock (&said_lock);
  if (said == NULL)
    said = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  fresh = !g_hash_table_contains (said, message);
  if (fresh)
    g_hash_table_add (said, g_strdup (message));
  g_mutex_unlock (&said_lock);
  return fresh;
}

static void
log_handler (const char *log_domain, GLogLevelFlags level, const char *message, gpointer user_data)
{
  if ((level & G_LOG_LEVEL_MASK) == G_LOG_LEVEL_MESSAGE && message != NULL)
    {
      if (remember_said (message))
        fprintf (stderr, "echoform-cli: %s\n", message);
      return;
    }
  g_log_default_handler (log_domain, level, message, user_data);
}

void
ef_cli_install_log_handler (void)
{
  g_log_set_default_handler (log_handler, NULL);
}

void
ef_cli_note (const char *message)
{
  if (message != NULL && message[0] != '\0' && remember_said (message))
    fprintf (stderr, "echoform-cli: %s\n", message);
}

void
ef_cli_warn_once (const char *message)
{
  if (message != NULL && message[0] != '\0' && remember_said (message))
    fprintf (stderr, "echoform-cli: warning: %s\n", message);
}

int
ef_cli_report (const char *command, const GError *error)
{
  gboolean usage = error != NULL && error->domain == G_OPTION_ERROR;

  if (command != NULL)
    ef_cli_error ("%s: %s", command, error != NULL ? error->message : "failed");
  else
    ef_cli_error ("%s", error != NULL ? error->message : "failed");
  if (usage && command != NULL)
    fprintf (stderr, "Try 'echoform-cli %s --help'.\n", command);
  return usage ? EF_CLI_EXIT_USAGE : EF_CLI_EXIT_FAILURE;
}

int
ef_cli_usage_error (const char *command, const char *format, ...)
{
  g_autofree char *msg = NULL;
  va_list args;

  va_start (args, format);
  msg = g_strdup_vprintf (format, args);
  va_end (args);
  ef_cli_error ("%s: %s", command, msg);
  fprintf (stderr, "Try 'echoform-cli %s --help'.\n", command);
  return EF_CLI_EXIT_USAGE;
}

GOptionContext *
ef_cli_option_context_new (const char *command, const char *parameter_string, const char *summary,
                           const char *description, const GOptionEntry *entries)
{
  GOptionContext *context = g_option_context_new (parameter_string);
  g_autofree char *prgname = g_strdup_printf ("echoform-cli %s", command);

  /* GOption prints the program name in --help's usage line; make it the full command. It is set
   * here, once per process, because each process runs one command. */
  g_set_prgname (prgname);
  if (summary != NULL)
    g_option_context_set_summary (context, summary);
  if (description != NULL)
    g_option_context_set_description (context, description);
  if (entries != NULL)
    g_option_context_add_main_entries (context, entries, NULL);
  return context;
}

gboolean
ef_cli_option_parse (GOptionContext *context, const char *command, int *argc, char ***argv)
{
  g_autoptr(GError) error = NULL;

  if (!g_option_context_parse (context, argc, argv, &error))
    {
      ef_cli_usage_error (command, "%s", error->message);
      return FALSE;
    }
  return TRUE;
}

static gboolean
bad_value (GError **error, const char *what, const char *s, const char *why)
{
  g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "%s: '%s' %s", what, s, why);
  return FALSE;
}

/* Parses one number filling the whole of s (after trimming blanks). */
static gboolean
parse_finite (const char *what, const char *s, double *out, GError **error)
{
  g_autofree char *copy = g_strstrip (g_strdup (s != NULL ? s : ""));
  char *end = NULL;
  double v;

  if (copy[0] == '\0')
    return bad_value (error, what, s != NULL ? s : "", "is empty; a number is needed");
  errno = 0;
  v = g_ascii_strtod (copy, &end);
  if (end == copy || *end != '\0')
    return bad_value (error, what, s, "is not a number");
  if (!isfinite (v) || errno == ERANGE)
    return bad_value (error, what, s, "is not a finite number");
  *out = v;
  return TRUE;
}

gboolean
ef_cli_parse_double (const char *what, const char *s, double min, double max, double *out, GError **error)
{
  double v;

  if (!parse_finite (what, s, &v, error))
    return FALSE;
  if (v < min || v > max)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "%s: %s is outside [%g, %g]", what, s,
                   min, max);
      return FALSE;
    }
  *out = v;
  return TRUE;
}

gboolean
ef_cli_parse_uint (const char *what, const char *s, guint min, guint max, guint *out, GError **error)
{
  g_autofree char *copy = g_strstrip (g_strdup (s != NULL ? s : ""));
  guint64 v;

  if (!g_ascii_string_to_unsigned (copy, 10, 0, G_MAXUINT64, &v, NULL))
    return bad_value (error, what, s != NULL ? s : "", "is not a whole number");
  if (v < min || v > max)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "%s: %s is outside [%u, %u]", what, s, min,
                   max);
      return FALSE;
    }
  *out = (guint) v;
  return TRUE;
}

gboolean
ef_cli_parse_uint64 (const char *what, const char *s, guint64 *out, GError **error)
{
  g_autofree char *copy = g_strstrip (g_strdup (s != NULL ? s : ""));

  if (!g_ascii_string_to_unsigned (copy, 10, 0, G_MAXUINT64, out, NULL))
    return bad_value (error, what, s != NULL ? s : "", "is not a whole number");
  return TRUE;
}

gboolean
ef_cli_parse_doubles (const char *what, const char *s, guint min_count, guint max_count, double *out,
                      guint *count, GError **error)
{
  g_auto(GStrv) parts = NULL;
  guint n;

  if (s == NULL)
    return bad_value (error, what, "", "is empty");
  parts = g_strsplit (s, ",", -1);
  n = g_strv_length (parts);
  if (n < min_count || n > max_count)
    {
      if (min_count == max_count)
        g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                     "%s: '%s' has %u values; %u comma-separated numbers are needed", what, s, n, min_count);
      else
        g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                     "%s: '%s' has %u values; %u to %u comma-separated numbers are needed", what, s, n,
                     min_count, max_count);
      return FALSE;
    }
  for (guint i = 0; i < n; i++)
    if (!parse_finite (what, parts[i], &out[i], error))
      return FALSE;
  if (count != NULL)
    *count = n;
  return TRUE;
}

GArray *
ef_cli_parse_uints (const char *what, const char *s, guint min, guint max, GError **error)
{
  g_autoptr(GArray) values = g_array_new (FALSE, FALSE, sizeof (guint));
  g_auto(GStrv) parts = NULL;

  if (s == NULL)
    {
      bad_value (error, what, "", "is empty");
      return NULL;
    }
  parts = g_strsplit (s, ",", -1);
  for (guint i = 0; parts[i] != NULL; i++)
    {
      guint v;

      if (!ef_cli_parse_uint (what, parts[i], min, max, &v, error))
        return NULL;
      g_array_append_val (values, v);
    }
  if (values->len == 0)
    {
      bad_value (error, what, s, "is empty");
      return NULL;
    }
  return g_steal_pointer (&values);
}

gboolean
ef_cli_parse_roi (const char *what, const char *s, double roi[4], GError **error)
{
  double v[4];

  if (!ef_cli_parse_doubles (what, s, 4, 4, v, NULL, error))
    return FALSE;
  if (v[0] == v[2] || v[1] == v[3])
    return bad_value (error, what, s, "is an empty box; X0,Y0,X1,Y1 in metres is needed");
  roi[0] = MIN (v[0], v[2]);
  roi[1] = MIN (v[1], v[3]);
  roi[2] = MAX (v[0], v[2]);
  roi[3] = MAX (v[1], v[3]);
  return TRUE;
}

GArray *
ef_cli_parse_targets (const char *what, const char *s, GError **error)
{
  g_autoptr(GArray) targets = g_array_new (FALSE, TRUE, sizeof (EfSimTarget));
  g_auto(GStrv) parts = NULL;

  if (s == NULL)
    {
      bad_value (error, what, "", "is empty");
      return NULL;
    }
  parts = g_strsplit (s, ";", -1);
  for (guint i = 0; parts[i] != NULL; i++)
    {
      g_autofree char *piece = g_strstrip (g_strdup (parts[i]));
      EfSimTarget t = { { 0, 0, 0 }, 1.0 };
      double v[4];
      guint n;

      /* A trailing ';' is harmless. */
      if (piece[0] == '\0')
        continue;
      if (!ef_cli_parse_doubles (what, piece, 2, 4, v, &n, error))
        return NULL;
      t.pos[0] = v[0];
      t.pos[1] = v[1];
      t.pos[2] = n > 2 ? v[2] : 0.0;
      t.amp = n > 3 ? v[3] : 1.0;
      g_array_append_val (targets, t);
    }
  if (targets->len == 0)
    {
      bad_value (error, what, s, "lists no target; \"x,y,z;x,y,z;...\" in metres is needed");
      return NULL;
    }
  return g_steal_pointer (&targets);
}

gboolean
ef_cli_stderr_is_tty (void)
{
  return isatty (STDERR_FILENO) == 1;
}

void
ef_cli_progress_draw (const char *label, double fraction, const char *extra)
{
  enum { BAR = 30 };
  char bar[BAR + 1];
  guint filled;

  if (!isfinite (fraction))
    fraction = 0;
  fraction = CLAMP (fraction, 0.0, 1.0);
  filled = (guint) (fraction * BAR + 0.5);
  for (guint i = 0; i < BAR; i++)
    bar[i] = i < filled ? '#' : '.';
  bar[BAR] = '\0';
  /* \033[K clears whatever a longer previous line left behind. */
  fprintf (stderr, "\r%s [%s] %3.0f%%  %s\033[K", label, bar, 100.0 * fraction, extra != NULL ? extra : "");
  fflush (stderr);
}

void
ef_cli_progress_end (void)
{
  fputc ('\n', stderr);
  fflush (stderr);
}

/* JSON summaries: json-glib builds and writes them (ef-json.h). */

void
ef_cli_json_init (EfCliJson *json)
{
  memset (json, 0, sizeof *json);
  json->builder = json_builder_new ();
}

void
ef_cli_json_clear (EfCliJson *json)
{
  g_clear_object (&json->builder);
  memset (json, 0, sizeof *json);
}

char *
ef_cli_json_finish (EfCliJson *json)
{
  g_autoptr (JsonNode) root = json_builder_get_root (json->builder);
  char *text = root != NULL ? ef_json_to_text (root, TRUE) : g_strdup ("null\n");

  ef_cli_json_clear (json);
  return text;
}

static void
json_key (EfCliJson *json, const char *key)
{
  if (key != NULL)
    json_builder_set_member_name (json->builder, key);
}

void
ef_cli_json_begin_object (EfCliJson *json, const char *key)
{
  json_key (json, key);
  json_builder_begin_object (json->builder);
}

void
ef_cli_json_end_object (EfCliJson *json)
{
  json_builder_end_object (json->builder);
}

void
ef_cli_json_begin_array (EfCliJson *json, const char *key)
{
  json_key (json, key);
  json_builder_begin_array (json->builder);
}

void
ef_cli_json_end_array (EfCliJson *json)
{
  json_builder_end_array (json->builder);
}

void
ef_cli_json_string (EfCliJson *json, const char *key, const char *value)
{
  json_key (json, key);
  if (value == NULL)
    json_builder_add_null_value (json->builder);
  else
    json_builder_add_string_value (json->builder, value);
}

void
ef_cli_json_double (EfCliJson *json, const char *key, double value)
{
  json_key (json, key);
  ef_json_add_double (json->builder, value);
}

void
ef_cli_json_int (EfCliJson *json, const char *key, gint64 value)
{
  json_key (json, key);
  json_builder_add_int_value (json->builder, value);
}

void
ef_cli_json_bool (EfCliJson *json, const char *key, gboolean value)
{
  json_key (json, key);
  json_builder_add_boolean_value (json->builder, value);
}

void
ef_cli_json_null (EfCliJson *json, const char *key)
{
  json_key (json, key);
  json_builder_add_null_value (json->builder);
}

gboolean
ef_cli_parse_devices (const char *what, const char *s, guint *out, GError **error)
{
  g_autofree char *copy = g_strstrip (g_strdup (s != NULL ? s : ""));

  if (g_ascii_strcasecmp (copy, "all") == 0)
    {
      *out = EF_BACKEND_ALL_DEVICES;
      return TRUE;
    }
  return ef_cli_parse_uint (what, copy, 1, 1024, out, error);
}
