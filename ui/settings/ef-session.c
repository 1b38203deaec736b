/* ef-session.c: session memory in a GKeyFile under the user's state folder. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-session"
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gio/gio.h>
#include <glib/gstdio.h>

#include "ef-session.h"

/* Older sessions than the most recent this many are forgotten, so the file stays small. */
#define MAX_SESSIONS 64
/* 64 sessions take about 40 KiB; a file far larger than that was not written by Echoform, and is not
 * read (the next save replaces it). */
#define MAX_FILE_BYTES (1024 * 1024)
/* The ranges the settings schema and the processing panel allow; a saved value outside them is ignored
 * like an unknown word. */
#define UPSAMPLE_MAX 32
#define BLOCK_SIZE_MAX 4096
#define SPACING_MIN 0.001
#define SPACING_MAX 100.0
#define SAMPLES_PER_CELL_MIN 0.5
#define SAMPLES_PER_CELL_MAX 8.0
#define GAMMA_MIN 0.1
#define GAMMA_MAX 5.0
/* dB levels and region corners beyond these are not a display or a scene. */
#define DB_ABS_MAX 1000.0
#define ROI_ABS_MAX 1e7

char *
ef_session_key_for_path (const char *path)
{
  g_autoptr (GFile) file = NULL;

  if (path == NULL)
    return g_strdup ("demo");
  file = g_file_new_for_path (path);
  return g_file_get_path (file);
}

char *
ef_session_get_file (void)
{
  return g_build_filename (g_get_user_state_dir (), "echoform", "sessions.ini", NULL);
}

static char *
group_for_key (const char *key)
{
  /* Paths hold characters a group name cannot; a digest is stable and safe. */
  return g_compute_checksum_for_string (G_CHECKSUM_SHA1, key, -1);
}

/* The sessions, or none when the file is missing, unreadable, malformed or far too large. The size is
 * checked on the open file before anything is read, and what is read is no more than that. */
static GKeyFile *
load_file (void)
{
  g_autofree char *path = ef_session_get_file ();
  g_autofree char *text = NULL;
  g_autoptr (GError) error = NULL;
  GKeyFile *kf = g_key_file_new ();
  GStatBuf st;
  gsize len = 0;
  int fd;

  fd = g_open (path, O_RDONLY | O_CLOEXEC | O_NONBLOCK, 0);
  if (fd < 0)
    return kf;
  if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode) || st.st_size > MAX_FILE_BYTES)
    {
      g_message ("The session file %s is not a regular file of at most %d bytes; it is ignored", path,
                 MAX_FILE_BYTES);
      close (fd);
      return kf;
    }
  text = g_malloc ((gsize) st.st_size + 1);
  while (len < (gsize) st.st_size)
    {
      gssize n = read (fd, text + len, (gsize) st.st_size - len);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        break;
      len += (gsize) n;
    }
  close (fd);
  text[len] = '\0';
  if (!g_key_file_load_from_data (kf, text, len, G_KEY_FILE_NONE, &error))
    g_message ("The session file %s is ignored: %s", path, error->message);
  else
    {
      /* Forgetting the oldest takes time quadratic in the sessions held; a file with far more than
       * Echoform keeps was not written by it. */
      gsize n_groups = 0;
      g_auto (GStrv) groups = g_key_file_get_groups (kf, &n_groups);

      if (n_groups > 4 * MAX_SESSIONS)
        {
          g_message ("The session file %s holds %" G_GSIZE_FORMAT " sessions, more than the %d Echoform keeps; it "
                     "is ignored", path, n_groups, MAX_SESSIONS);
          g_key_file_unref (kf);
          kf = g_key_file_new ();
        }
    }
  return kf;
}

/* The parsers leave the field alone when the saved word is unknown (an older or newer version). */
#define GET_ENUM(name, parse, field)                                   \
  do {                                                                 \
    g_autofree char *s_ = g_key_file_get_string (kf, group, name, NULL); \
    if (s_ != NULL)                                                    \
      parse (s_, &(field));                                            \
  } while (0)

/* The kept regions: "regions" counts them, and region N's keys start "regionN-". A region whose box is
 * missing or absurd is dropped; its processing fields that are missing or unknown keep the view's. */
static void
load_regions (GKeyFile *kf, const char *group, EfSessionState *state)
{
  int n = g_key_file_get_integer (kf, group, "regions", NULL);

  state->n_regions = 0;
  for (int i = 0; i < CLAMP (n, 0, EF_SESSION_MAX_REGIONS); i++)
    {
      EfSessionRegion *r = &state->regions[state->n_regions];
      g_autofree char *k_roi = g_strdup_printf ("region%d-roi", i);
      g_autofree char *k_label = g_strdup_printf ("region%d-label", i);
      g_autofree char *k_algo = g_strdup_printf ("region%d-algorithm", i);
      g_autofree char *k_prec = g_strdup_printf ("region%d-precision", i);
      g_autofree char *k_win = g_strdup_printf ("region%d-window-function", i);
      g_autofree char *k_az = g_strdup_printf ("region%d-azimuth-window-function", i);
      g_autofree char *k_ups = g_strdup_printf ("region%d-upsample", i);
      g_autofree double *roi = NULL;
      g_autofree char *label = NULL;
      gsize len = 0;
      gboolean ok;
      int ups;

      roi = g_key_file_get_double_list (kf, group, k_roi, &len, NULL);
      ok = roi != NULL && len == 4 && roi[0] != roi[2] && roi[1] != roi[3];
      for (gsize j = 0; ok && j < 4; j++)
        ok = isfinite (roi[j]) && fabs (roi[j]) <= ROI_ABS_MAX;
      if (!ok)
        continue;
      memset (r, 0, sizeof *r);
      memcpy (r->roi, roi, sizeof r->roi);
      r->proc = state->proc;
      label = g_key_file_get_string (kf, group, k_label, NULL);
      g_strlcpy (r->label, label != NULL ? label : "", sizeof r->label);
      GET_ENUM (k_algo, ef_algo_from_string, r->proc.algo);
      GET_ENUM (k_prec, ef_precision_from_string, r->proc.precision);
      GET_ENUM (k_win, ef_window_from_string, r->proc.window);
      GET_ENUM (k_az, ef_window_from_string, r->proc.az_window);
      ups = g_key_file_get_integer (kf, group, k_ups, NULL);
      if (ups > 0 && ups <= UPSAMPLE_MAX)
        r->proc.upsample = (guint) ups;
      state->n_regions++;
    }
}

static void
save_regions (GKeyFile *kf, const char *group, const EfSessionState *state)
{
  guint n = MIN (state->n_regions, (guint) EF_SESSION_MAX_REGIONS);

  g_key_file_set_integer (kf, group, "regions", (int) n);
  for (guint i = 0; i < n; i++)
    {
      const EfSessionRegion *r = &state->regions[i];
      g_autofree char *k_roi = g_strdup_printf ("region%u-roi", i);
      g_autofree char *k_label = g_strdup_printf ("region%u-label", i);
      g_autofree char *k_algo = g_strdup_printf ("region%u-algorithm", i);
      g_autofree char *k_prec = g_strdup_printf ("region%u-precision", i);
      g_autofree char *k_win = g_strdup_printf ("region%u-window-function", i);
      g_autofree char *k_az = g_strdup_printf ("region%u-azimuth-window-function", i);
      g_autofree char *k_ups = g_strdup_printf ("region%u-upsample", i);

      g_key_file_set_double_list (kf, group, k_roi, (double *) r->roi, 4);
      g_key_file_set_string (kf, group, k_label, r->label);
      g_key_file_set_string (kf, group, k_algo, ef_algo_to_string (r->proc.algo));
      g_key_file_set_string (kf, group, k_prec, ef_precision_to_string (r->proc.precision));
      g_key_file_set_string (kf, group, k_win, ef_window_to_string (r->proc.window));
      g_key_file_set_string (kf, group, k_az, ef_window_to_string (r->proc.az_window));
      g_key_file_set_integer (kf, group, k_ups, (int) r->proc.upsample);
    }
}

gboolean
ef_session_load (const char *key, EfSessionState *state)
{
  g_autoptr (GKeyFile) kf = NULL;
  g_autofree char *group = NULL;
  g_autofree double *roi = NULL;
  gsize n = 0;
  EfProcessing *p;
  GError *error = NULL;
  double d;

  g_return_val_if_fail (key != NULL && state != NULL, FALSE);

  kf = load_file ();
  group = group_for_key (key);
  if (!g_key_file_has_group (kf, group))
    return FALSE;

  roi = g_key_file_get_double_list (kf, group, "roi", &n, NULL);
  state->has_roi = roi != NULL && n == 4 && roi[0] != roi[2] && roi[1] != roi[3];
  for (gsize i = 0; state->has_roi && i < 4; i++)
    state->has_roi = isfinite (roi[i]) && fabs (roi[i]) <= ROI_ABS_MAX;
  if (state->has_roi)
    for (int i = 0; i < 4; i++)
      state->roi[i] = roi[i];

  p = &state->proc;
  GET_ENUM ("algorithm", ef_algo_from_string, p->algo);
  GET_ENUM ("precision", ef_precision_from_string, p->precision);
  GET_ENUM ("backend", ef_backend_kind_from_string, p->backend);
  GET_ENUM ("order", ef_order_from_string, p->order);
  GET_ENUM ("window-function", ef_window_from_string, p->window);
  GET_ENUM ("azimuth-window-function", ef_window_from_string, p->az_window);
#define GET_UINT(name, field, max)                               \
  do {                                                           \
    int v = g_key_file_get_integer (kf, group, name, &error);    \
    if (error == NULL && v > 0 && v <= (max))                    \
      field = (guint) v;                                         \
    g_clear_error (&error);                                      \
  } while (0)
#define GET_DOUBLE(name, field, ok)                              \
  do {                                                           \
    d = g_key_file_get_double (kf, group, name, &error);         \
    if (error == NULL && isfinite (d) && (ok))                   \
      field = d;                                                 \
    g_clear_error (&error);                                      \
  } while (0)
  /* The range FFT's length and the pulses held in memory grow with these: a value from a damaged file
   * must not ask for gigabytes. */
  GET_UINT ("upsample", p->upsample, UPSAMPLE_MAX);
  GET_UINT ("block-size", p->block_size, BLOCK_SIZE_MAX);
  GET_DOUBLE ("spacing", p->spacing, d >= SPACING_MIN && d <= SPACING_MAX);
  GET_DOUBLE ("samples-per-cell", p->samples_per_cell, d >= SAMPLES_PER_CELL_MIN && d <= SAMPLES_PER_CELL_MAX);
  if (g_key_file_has_key (kf, group, "spacing-auto", NULL))
    p->spacing_auto = g_key_file_get_boolean (kf, group, "spacing-auto", NULL);

  if (g_key_file_has_key (kf, group, "db-min", NULL))
    {
      EfDisplayParams *dp = &state->display;

      state->has_display = TRUE;
      GET_ENUM ("view", ef_view_mode_from_string, dp->mode);
      GET_ENUM ("colormap", ef_colormap_from_string, dp->colormap);
      GET_DOUBLE ("db-min", dp->db_min, fabs (d) <= DB_ABS_MAX);
      GET_DOUBLE ("db-max", dp->db_max, fabs (d) <= DB_ABS_MAX);
      GET_DOUBLE ("gamma", dp->gamma, d >= GAMMA_MIN && d <= GAMMA_MAX);
      state->db_auto = g_key_file_get_boolean (kf, group, "db-auto", NULL);
    }
#undef GET_UINT
#undef GET_DOUBLE
  load_regions (kf, group, state);
  return TRUE;
}

static void
forget_oldest (GKeyFile *kf)
{
  g_auto (GStrv) groups = g_key_file_get_groups (kf, NULL);
  guint n = g_strv_length (groups);

  while (n > MAX_SESSIONS)
    {
      gint64 oldest = G_MAXINT64;
      const char *victim = NULL;

      for (guint i = 0; groups[i] != NULL; i++)
        {
          gint64 t;
          if (!g_key_file_has_group (kf, groups[i]))
            continue;
          t = g_key_file_get_int64 (kf, groups[i], "saved", NULL);
          if (t < oldest)
            {
              oldest = t;
              victim = groups[i];
            }
        }
      if (victim == NULL)
        break;
      g_key_file_remove_group (kf, victim, NULL);
      n--;
    }
}

gboolean
ef_session_save (const char *key, const EfSessionState *state, GError **error)
{
  g_autoptr (GKeyFile) kf = NULL;
  g_autofree char *group = NULL;
  g_autofree char *path = ef_session_get_file ();
  g_autofree char *dir = g_path_get_dirname (path);
  const EfProcessing *p;

  g_return_val_if_fail (key != NULL && state != NULL, FALSE);

  if (g_mkdir_with_parents (dir, 0700) != 0)
    {
      int saved = errno;
      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (saved), "%s: %s", dir, g_strerror (saved));
      return FALSE;
    }
  kf = load_file ();
  group = group_for_key (key);
  g_key_file_remove_group (kf, group, NULL);
  g_key_file_set_string (kf, group, "path", key);
  g_key_file_set_int64 (kf, group, "saved", g_get_real_time () / G_USEC_PER_SEC);
  if (state->has_roi)
    g_key_file_set_double_list (kf, group, "roi", (double *) state->roi, 4);

  p = &state->proc;
  g_key_file_set_string (kf, group, "algorithm", ef_algo_to_string (p->algo));
  g_key_file_set_string (kf, group, "precision", ef_precision_to_string (p->precision));
  g_key_file_set_string (kf, group, "backend", ef_backend_kind_to_string (p->backend));
  g_key_file_set_string (kf, group, "order", ef_order_to_string (p->order));
  g_key_file_set_string (kf, group, "window-function", ef_window_to_string (p->window));
  g_key_file_set_string (kf, group, "azimuth-window-function", ef_window_to_string (p->az_window));
  g_key_file_set_integer (kf, group, "upsample", (int) p->upsample);
  g_key_file_set_integer (kf, group, "block-size", (int) p->block_size);
  g_key_file_set_boolean (kf, group, "spacing-auto", p->spacing_auto);
  g_key_file_set_double (kf, group, "spacing", p->spacing);
  g_key_file_set_double (kf, group, "samples-per-cell", p->samples_per_cell);

  if (state->has_display)
    {
      g_key_file_set_string (kf, group, "view", ef_view_mode_to_string (state->display.mode));
      g_key_file_set_string (kf, group, "colormap", ef_colormap_to_string (state->display.colormap));
      g_key_file_set_double (kf, group, "db-min", state->display.db_min);
      g_key_file_set_double (kf, group, "db-max", state->display.db_max);
      g_key_file_set_double (kf, group, "gamma", state->display.gamma);
      g_key_file_set_boolean (kf, group, "db-auto", state->db_auto);
    }
  save_regions (kf, group, state);
  forget_oldest (kf);
  /* g_key_file_save_to_file writes a temporary file and renames it: a crash never leaves half a file. */
  return g_key_file_save_to_file (kf, path, error);
}
