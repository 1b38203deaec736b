/* ef-classroom-bookmarks.c: the classroom's bookmarks, kept per collection between runs in a key file. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-classroom"
#include "config.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <math.h>

#include "ef-classroom-window-private.h"

/* What one bookmark is saved as, in this order. */
enum {
  F_CURRENT, F_FIRST, F_LAST, F_BAND_LO, F_BAND_HI, F_WINDOW, F_INTERP, F_UPSAMPLE, F_SHAPE, F_RMS, F_CYCLES, F_SEED,
  F_SPEED, F_OFFSET, F_AXIS, N_FIELDS
};

#define MAX_BOOKMARKS 64

char *
ef_classroom_bookmarks_file (void)
{
  return g_build_filename (g_get_user_state_dir (), "echoform", "classroom-bookmarks.ini", NULL);
}

/* A group name for any key (a path may hold characters a group name may not). */
static char *
group_of (const char *key)
{
  return g_compute_checksum_for_string (G_CHECKSUM_SHA256, key, -1);
}

static gboolean
whole_in (double v, double lo, double hi)
{
  return isfinite (v) && v >= lo && v <= hi && v == floor (v);
}

guint
ef_classroom_bookmarks_load (const char *key, guint64 n_pulses, guint n_bands, GArray *out)
{
  g_autoptr (GKeyFile) kf = g_key_file_new ();
  g_autofree char *file = ef_classroom_bookmarks_file ();
  g_autofree char *group = group_of (key);
  g_auto (GStrv) names = NULL;
  gsize n_names = 0;
  guint n = 0;

  if (!g_key_file_load_from_file (kf, file, G_KEY_FILE_NONE, NULL))
    return 0;
  names = g_key_file_get_string_list (kf, group, "names", &n_names, NULL);
  for (gsize i = 0; names != NULL && i < n_names && i < MAX_BOOKMARKS; i++)
    {
      g_autofree char *k = g_strdup_printf ("b%" G_GSIZE_FORMAT, i);
      g_autofree double *v = NULL;
      gsize len = 0;
      EfClassroomBookmark b = { 0 };

      v = g_key_file_get_double_list (kf, group, k, &len, NULL);
      /* What does not describe a state of this collection is left out, never guessed at. */
      if (v == NULL || len != N_FIELDS || !whole_in (v[F_LAST], 0, (double) n_pulses - 1)
          || !whole_in (v[F_FIRST], 0, v[F_LAST]) || !whole_in (v[F_CURRENT], v[F_FIRST], v[F_LAST])
          || !whole_in (v[F_BAND_HI], 0, n_bands - 1) || !whole_in (v[F_BAND_LO], 0, v[F_BAND_HI])
          || !whole_in (v[F_WINDOW], 0, EF_WINDOW_TAYLOR) || !whole_in (v[F_INTERP], 0, EF_TEACH_INTERP_NEAREST)
          || !whole_in (v[F_UPSAMPLE], 1, 64) || !whole_in (v[F_SHAPE], 0, EF_TEACH_PHASE_LINEAR)
          || !(isfinite (v[F_RMS]) && v[F_RMS] >= 0 && v[F_RMS] <= 100) || !isfinite (v[F_CYCLES])
          || !whole_in (v[F_SEED], 0, G_MAXUINT32) || !(isfinite (v[F_SPEED]) && fabs (v[F_SPEED]) <= 100)
          || !isfinite (v[F_OFFSET]) || !whole_in (v[F_AXIS], 0, EF_TEACH_OFFSET_LINE_OF_SIGHT))
        continue;
      b.name = g_strdup (names[i]);
      b.current = (guint64) v[F_CURRENT];
      b.first = (guint64) v[F_FIRST];
      b.last = (guint64) v[F_LAST];
      b.band_lo = (guint) v[F_BAND_LO];
      b.band_hi = (guint) v[F_BAND_HI];
      b.form.window = (EfWindow) v[F_WINDOW];
      b.form.interp = (EfTeachInterp) v[F_INTERP];
      b.form.upsample = (guint) v[F_UPSAMPLE];
      b.errors.phase_shape = (EfTeachPhaseShape) v[F_SHAPE];
      b.errors.phase_rms = v[F_RMS];
      b.errors.sine_cycles = v[F_CYCLES];
      b.errors.seed = (guint32) v[F_SEED];
      b.errors.speed_pct = v[F_SPEED];
      b.errors.offset_m = v[F_OFFSET];
      b.errors.offset_axis = (EfTeachOffsetAxis) v[F_AXIS];
      g_array_append_val (out, b);
      n++;
    }
  return n;
}

gboolean
ef_classroom_bookmarks_save (const char *key, const GArray *bookmarks, GError **error)
{
  g_autoptr (GKeyFile) kf = g_key_file_new ();
  g_autofree char *file = ef_classroom_bookmarks_file ();
  g_autofree char *dir = g_path_get_dirname (file);
  g_autofree char *group = group_of (key);
  g_autofree const char **names = g_new0 (const char *, bookmarks->len + 1);

  g_key_file_load_from_file (kf, file, G_KEY_FILE_KEEP_COMMENTS, NULL);
  g_key_file_remove_group (kf, group, NULL);
  g_key_file_set_string (kf, group, "collection", key);
  for (guint i = 0; i < bookmarks->len && i < MAX_BOOKMARKS; i++)
    {
      const EfClassroomBookmark *b = &g_array_index (bookmarks, EfClassroomBookmark, i);
      g_autofree char *k = g_strdup_printf ("b%u", i);
      double v[N_FIELDS];

      names[i] = b->name;
      v[F_CURRENT] = (double) b->current;
      v[F_FIRST] = (double) b->first;
      v[F_LAST] = (double) b->last;
      v[F_BAND_LO] = b->band_lo;
      v[F_BAND_HI] = b->band_hi;
      v[F_WINDOW] = b->form.window;
      v[F_INTERP] = b->form.interp;
      v[F_UPSAMPLE] = b->form.upsample;
      v[F_SHAPE] = b->errors.phase_shape;
      v[F_RMS] = b->errors.phase_rms;
      v[F_CYCLES] = b->errors.sine_cycles;
      v[F_SEED] = b->errors.seed;
      v[F_SPEED] = b->errors.speed_pct;
      v[F_OFFSET] = b->errors.offset_m;
      v[F_AXIS] = b->errors.offset_axis;
      g_key_file_set_double_list (kf, group, k, v, N_FIELDS);
    }
  g_key_file_set_string_list (kf, group, "names", names, MIN (bookmarks->len, MAX_BOOKMARKS));
  if (g_mkdir_with_parents (dir, 0700) != 0)
    {
      int e = errno;

      g_set_error (error, G_FILE_ERROR, g_file_error_from_errno (e), "Could not create %s: %s", dir, g_strerror (e));
      return FALSE;
    }
  return g_key_file_save_to_file (kf, file, error);
}
