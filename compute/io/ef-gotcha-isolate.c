/* ef-gotcha-isolate.c: reads one MATLAB file in a child process, under memory and processor-time limits. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-gotcha"
#include "config.h"

#include <string.h>

#include <glib/gstdio.h>

#include "ef-error.h"
#include "ef-gotcha-private.h"
#include "ef-isolate.h"

/*
 * matio 1.5.23 allocates whatever a damaged file declares while it builds a variable's description,
 * before the reader can look at it: a file of a kilobyte can ask for gigabytes, in one block or in
 * millions of small ones, and HDF5 can loop on a damaged v7.3 file. Nothing short of parsing the file
 * ourselves could check that beforehand, so each file is read by a child process (ef-isolate.c):
 *
 *  - its memory (RLIMIT_DATA, counted from what it had when it started) is a fixed allowance for matio
 *    and HDF5 plus twice what the file holds decompressed while matio describes the variable, then twice
 *    the data the variable declares (once that has been checked against the file) and a few numbers per
 *    pulse while it is read and converted (ef_gotcha_budget); past that an allocation fails, and matio
 *    says so;
 *  - its processor time (RLIMIT_CPU) is a second, and a second more per MiB of file: SIGXCPU ends it;
 *  - the parent waits a generous wall-clock time as well, for a child that blocks instead of working.
 *
 * The child sends back a header (the load's result, its error, the part's sizes), the message, the
 * pulses and the samples; the parent checks the sizes against each other before it keeps them. The
 * matio lock is held across the fork on the child's behalf.
 */

/* matio's and HDF5's own bookkeeping, and the allocator's, whatever the file. */
#define FIXED_ALLOWANCE (G_GUINT64_CONSTANT (16) << 20)
#define CPU_BYTES_PER_SECOND (G_GUINT64_CONSTANT (1) << 20)
#define WALL_SECONDS_MIN 20
#define MAX_MESSAGE 4096
#define REPLY_MAGIC 0x45464741u

typedef struct {
  guint32 magic;
  gint32  result;       /* EfGotchaLoad */
  gint32  code;         /* EfIoError, when result is not OK */
  gint32  version;      /* enum mat_ft */
  guint32 n_samples, n_pulses;
  double  first_az, min_az, max_az;
} Reply;

typedef struct {
  const char             *path;
  const EfGotchaOptions  *opts;
} Job;

gboolean
ef_gotcha_in_reader_process (void)
{
  return ef_isolate_in_child ();
}

void
ef_gotcha_budget (guint64 bytes)
{
  guint64 total;

  ef_isolate_set_budget (__builtin_add_overflow (FIXED_ALLOWANCE, bytes, &total) ? G_MAXUINT64 : total);
}

/* In the child: the load's outcome as four parts (header, message, pulses, samples). A failed load is a
 * reply too, so that "not a Gotcha file" reaches the parent as such. */
static GPtrArray *
read_in_child (gpointer user_data, GError **error)
{
  const Job *job = user_data;
  g_autoptr (GError) local = NULL;
  EfGotchaPart *part = NULL;
  GPtrArray *parts = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  Reply r = { REPLY_MAGIC, 0, 0, 0, 0, 0, 0, 0, 0 };
  const char *message = "";

  (void) error;
  r.result = ef_gotcha_load_part (job->path, job->opts, &part, &local);
  if (r.result == EF_GOTCHA_LOAD_OK)
    {
      r.version = part->version;
      r.n_samples = part->n_samples;
      r.n_pulses = part->n_pulses;
      r.first_az = part->first_az;
      r.min_az = part->min_az;
      r.max_az = part->max_az;
    }
  else
    {
      r.code = local != NULL ? local->code : EF_IO_ERROR_FAILED;
      message = local != NULL ? local->message : "the file could not be read";
    }
  /* The child leaves right after sending: the parts may wrap its memory without a copy. */
  g_ptr_array_add (parts, g_bytes_new (&r, sizeof r));
  g_ptr_array_add (parts, g_bytes_new (message, MIN (strlen (message), (gsize) MAX_MESSAGE)));   /* local goes */
  g_ptr_array_add (parts, g_bytes_new_static (part != NULL ? part->pulses : NULL,
                                              part != NULL ? (gsize) r.n_pulses * sizeof (EfPulse) : 0));
  g_ptr_array_add (parts, g_bytes_new_static (part != NULL ? part->samples : NULL,
                                              part != NULL ? (gsize) r.n_pulses * r.n_samples * sizeof (EfCf32)
                                                           : 0));
  return parts;
}

EfGotchaLoad
ef_gotcha_load_part_isolated (const char *path, const EfGotchaOptions *opts, EfGotchaPart **out, GError **error)
{
  g_autoptr (EfGotchaPart) part = NULL;
  g_autoptr (GPtrArray) parts = NULL;
  Job job = { path, opts };
  EfIsolateLimits lim = { 0 };
  const Reply *r;
  g_autofree char *message = NULL;
  GStatBuf st;
  guint64 size = 0, n_samples_total = 0;
  gsize len;

  g_return_val_if_fail (path != NULL && opts != NULL && out != NULL, EF_GOTCHA_LOAD_ERROR);

  /* The child reports a missing or unreadable file itself; the size only sets its time. */
  if (g_stat (path, &st) == 0)
    size = (guint64) st.st_size;
  lim.what = path;
  lim.memory_bytes = FIXED_ALLOWANCE;
  lim.cpu_seconds = 1 + (guint) MIN (size / CPU_BYTES_PER_SECOND, (guint64) 100000);
  /* Wall-clock time is only a backstop: a busy machine must not fail a good file. */
  lim.wall_seconds = WALL_SECONDS_MIN + 4 * lim.cpu_seconds;
  /* What the child sends it has checked against the file; the parent checks the parts' sizes below. */
  lim.max_reply = G_MAXUINT64;
  lim.max_parts = 4;
  ef_gotcha_matio_setup ();
  parts = ef_isolate_run (&lim, ef_gotcha_matio_mutex (), read_in_child, &job, error);
  if (parts == NULL)
    return EF_GOTCHA_LOAD_ERROR;

  r = parts->len == 4 ? g_bytes_get_data (g_ptr_array_index (parts, 0), &len) : NULL;
  if (r == NULL || len != sizeof *r || r->magic != REPLY_MAGIC || r->n_samples > (1u << 24)
      || !g_uint64_checked_mul (&n_samples_total, r->n_pulses, r->n_samples)
      || (r->result == EF_GOTCHA_LOAD_OK
          && (g_bytes_get_size (g_ptr_array_index (parts, 2)) != (guint64) r->n_pulses * sizeof (EfPulse)
              || g_bytes_get_size (g_ptr_array_index (parts, 3)) / sizeof (EfCf32) != n_samples_total
              || g_bytes_get_size (g_ptr_array_index (parts, 3)) % sizeof (EfCf32) != 0)))
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FORMAT, "“%s” could not be read: the reading process sent a "
                   "malformed reply", path);
      return EF_GOTCHA_LOAD_ERROR;
    }
  if (r->result != EF_GOTCHA_LOAD_OK)
    {
      gsize n;
      const char *m = g_bytes_get_data (g_ptr_array_index (parts, 1), &n);

      message = g_strndup (m != NULL ? m : "", n);
      g_set_error_literal (error, EF_IO_ERROR, r->code, message);
      return r->result == EF_GOTCHA_LOAD_NOT_GOTCHA ? EF_GOTCHA_LOAD_NOT_GOTCHA : EF_GOTCHA_LOAD_ERROR;
    }
  part = ef_gotcha_part_new (path);
  part->version = r->version;
  part->n_samples = r->n_samples;
  part->n_pulses = r->n_pulses;
  part->first_az = r->first_az;
  part->min_az = r->min_az;
  part->max_az = r->max_az;
  if (r->n_pulses > 0)
    {
      /* Taken from the array (the last first), so that each buffer is handed over without a copy. */
      part->samples = g_bytes_unref_to_data (g_ptr_array_steal_index (parts, 3), &len);
      part->pulses = g_bytes_unref_to_data (g_ptr_array_steal_index (parts, 2), &len);
    }
  *out = g_steal_pointer (&part);
  return EF_GOTCHA_LOAD_OK;
}
