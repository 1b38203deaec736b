/* ef-isolate.c: runs a reader in a child process under memory and processor-time limits, and gets its result back. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-isolate"
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include <glib-unix.h>

#include "ef-error.h"
#include "ef-isolate.h"

/*
 * For any reader (the Gotcha and ISMRMRD readers use it): a library that allocates
 * what a damaged file declares, or crashes or loops on it, does so in a child whose data segment
 * (RLIMIT_DATA) and processor time (RLIMIT_CPU) are bounded, and the parent turns however the child ended
 * into an error. The reply is a header, the error message or the parts' lengths, then the parts; the
 * parent checks the lengths against its own bound before it allocates for them. The child leaves with
 * _exit and logs nothing.
 */

#define REPLY_MAGIC 0x45464953u
#define MAX_MESSAGE 4096

typedef struct {
  guint32 magic;
  guint32 ok;
  gint32  code;
  guint32 message_len;
  guint32 n_parts;
  guint32 reserved;
} Header;

static gboolean in_child;
static guint64 data_at_start;  /* the child's VmData when it started, bytes */

gboolean
ef_isolate_in_child (void)
{
  return in_child;
}

/* VmData of this process in bytes (what RLIMIT_DATA counts), or 0. */
static guint64
vm_data (void)
{
  char buf[8192];
  gssize n, got = 0;
  const char *at;
  int fd = open ("/proc/self/status", O_RDONLY | O_CLOEXEC);

  if (fd < 0)
    return 0;
  while (got < (gssize) sizeof buf - 1 && (n = read (fd, buf + got, sizeof buf - 1 - (gsize) got)) > 0)
    got += n;
  close (fd);
  buf[MAX (got, 0)] = '\0';
  at = strstr (buf, "\nVmData:");
  return at != NULL ? g_ascii_strtoull (at + 8, NULL, 10) * 1024 : 0;
}

static void
set_limit (int resource, guint64 value)
{
  struct rlimit rl;

  if (getrlimit (resource, &rl) != 0)
    return;
  if (rl.rlim_max != RLIM_INFINITY && value > rl.rlim_max)
    value = rl.rlim_max;
  rl.rlim_cur = value >= RLIM_INFINITY ? RLIM_INFINITY : (rlim_t) value;
  setrlimit (resource, &rl);
}

static gboolean
write_all (int fd, const void *data, gsize len)
{
  const guint8 *p = data;

  while (len > 0)
    {
      gssize n = write (fd, p, len);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return FALSE;
      p += n;
      len -= (gsize) n;
    }
  return TRUE;
}


void
ef_isolate_set_budget (guint64 bytes)
{
  guint64 limit;

  if (!in_child)
    return;
  if (__builtin_add_overflow (data_at_start, bytes, &limit))
    limit = G_MAXUINT64;
  set_limit (RLIMIT_DATA, limit);
}

static G_NORETURN void
child_main (int fd, const EfIsolateLimits *limits, EfIsolateFunc func, gpointer user_data)
{
  GError *error = NULL;
  GPtrArray *parts;
  Header h = { REPLY_MAGIC, 0, 0, 0, 0, 0 };
  const char *message = "";
  gboolean ok;

#ifdef __linux__
  prctl (PR_SET_PDEATHSIG, SIGKILL);
#endif
  signal (SIGXCPU, SIG_DFL);
  in_child = TRUE;
  data_at_start = vm_data ();
  set_limit (RLIMIT_CPU, limits->cpu_seconds);
  ef_isolate_set_budget (limits->memory_bytes);

  parts = func (user_data, &error);
  if (parts != NULL)
    {
      h.ok = 1;
      h.n_parts = parts->len;
    }
  else
    {
      h.code = error != NULL ? error->code : EF_IO_ERROR_FAILED;
      message = error != NULL ? error->message : "the file could not be read";
      h.message_len = (guint32) MIN (strlen (message), (gsize) MAX_MESSAGE);
    }
  ok = write_all (fd, &h, sizeof h) && write_all (fd, message, h.message_len);
  for (guint i = 0; ok && parts != NULL && i < parts->len; i++)
    {
      guint64 len = g_bytes_get_size (g_ptr_array_index (parts, i));
      ok = write_all (fd, &len, sizeof len);
    }
  for (guint i = 0; ok && parts != NULL && i < parts->len; i++)
    {
      gsize len;
      gconstpointer p = g_bytes_get_data (g_ptr_array_index (parts, i), &len);
      ok = write_all (fd, p, len);
    }
  _exit (ok ? 0 : 3);
}

typedef enum { GOT_ALL, GOT_EOF, GOT_TIMEOUT, GOT_ERROR, GOT_TOO_LARGE } ReadStatus;

/* Reads len bytes from the child, giving up at deadline (monotonic, microseconds). */
static ReadStatus
read_child (int fd, void *buf, gsize len, gint64 deadline)
{
  guint8 *p = buf;

  while (len > 0)
    {
      struct pollfd pfd = { fd, POLLIN, 0 };
      gint64 left = deadline - g_get_monotonic_time ();
      gssize n;
      int ready;

      if (left <= 0)
        return GOT_TIMEOUT;
      ready = poll (&pfd, 1, (int) MIN (left / 1000 + 1, (gint64) G_MAXINT));
      if (ready < 0 && errno == EINTR)
        continue;
      if (ready < 0)
        return GOT_ERROR;
      if (ready == 0)
        continue;
      n = read (fd, p, MIN (len, (gsize) G_MAXSSIZE));
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        return GOT_ERROR;
      if (n == 0)
        return GOT_EOF;
      p += n;
      len -= (gsize) n;
    }
  return GOT_ALL;
}

static const char *
signal_name (int sig)
{
  switch (sig)
    {
    case SIGSEGV: return "SIGSEGV";
    case SIGBUS: return "SIGBUS";
    case SIGABRT: return "SIGABRT";
    case SIGKILL: return "SIGKILL";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
    default: return "a signal";
    }
}

/* Reads the parts after a successful header. */
static ReadStatus
read_parts (int fd, const EfIsolateLimits *limits, guint n_parts, gint64 deadline, GPtrArray **out)
{
  g_autofree guint64 *len = NULL;
  g_autoptr (GPtrArray) parts = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  guint64 total = 0;
  ReadStatus got;

  if (n_parts > limits->max_parts)
    return GOT_TOO_LARGE;
  len = g_new0 (guint64, MAX (n_parts, 1));
  got = read_child (fd, len, n_parts * sizeof (guint64), deadline);
  for (guint i = 0; got == GOT_ALL && i < n_parts; i++)
    if (__builtin_add_overflow (total, len[i], &total) || total > limits->max_reply || len[i] > G_MAXSIZE)
      got = GOT_TOO_LARGE;
  for (guint i = 0; got == GOT_ALL && i < n_parts; i++)
    {
      gpointer buf = g_try_malloc (MAX ((gsize) len[i], 1));

      if (buf == NULL)
        return GOT_TOO_LARGE;
      got = read_child (fd, buf, (gsize) len[i], deadline);
      g_ptr_array_add (parts, g_bytes_new_take (buf, (gsize) len[i]));
    }
  if (got == GOT_ALL)
    *out = g_steal_pointer (&parts);
  return got;
}

GPtrArray *
ef_isolate_run (const EfIsolateLimits *limits, GMutex *lock, EfIsolateFunc func, gpointer user_data, GError **error)
{
  g_autoptr (GPtrArray) parts = NULL;
  g_autoptr (GError) local = NULL;
  g_autofree char *message = NULL;
  Header h = { 0 };
  ReadStatus got;
  gint64 deadline;
  int fds[2], status = 0, saved;
  pid_t pid;

  g_return_val_if_fail (limits != NULL && limits->what != NULL && func != NULL, NULL);

  if (!g_unix_open_pipe (fds, FD_CLOEXEC, &local))
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FAILED, "Cannot start reading “%s”: %s", limits->what,
                   local->message);
      return NULL;
    }
  if (lock != NULL)
    g_mutex_lock (lock);
  pid = fork ();
  if (pid == 0)
    {
      close (fds[0]);
      child_main (fds[1], limits, func, user_data);
    }
  saved = errno;
  if (lock != NULL)
    g_mutex_unlock (lock);
  close (fds[1]);
  if (pid < 0)
    {
      close (fds[0]);
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FAILED, "Cannot start a process to read “%s”: %s", limits->what,
                   g_strerror (saved));
      return NULL;
    }

  deadline = g_get_monotonic_time () + (gint64) limits->wall_seconds * G_USEC_PER_SEC;
  got = read_child (fds[0], &h, sizeof h, deadline);
  if (got == GOT_ALL && (h.magic != REPLY_MAGIC || h.message_len > MAX_MESSAGE))
    got = GOT_ERROR;
  if (got == GOT_ALL && !h.ok)
    {
      message = g_malloc0 (h.message_len + 1);
      got = read_child (fds[0], message, h.message_len, deadline);
    }
  else if (got == GOT_ALL)
    got = read_parts (fds[0], limits, h.n_parts, deadline, &parts);
  if (got != GOT_ALL)
    kill (pid, SIGKILL);
  close (fds[0]);
  while (waitpid (pid, &status, 0) < 0 && errno == EINTR)
    ;

  if (got == GOT_ALL && WIFEXITED (status) && WEXITSTATUS (status) == 0)
    {
      if (h.ok)
        return g_steal_pointer (&parts);
      g_set_error_literal (error, EF_IO_ERROR, h.code, message);
      return NULL;
    }
  if (got == GOT_TOO_LARGE)
    g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FORMAT, "“%s” could not be read: its contents are larger than the "
                 "%" G_GUINT64_FORMAT " bytes allowed", limits->what, limits->max_reply);
  else if (got == GOT_TIMEOUT)
    g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FORMAT, "“%s” could not be read: the reading process did not "
                 "finish within %u s; the file is damaged, or the file system did not answer", limits->what,
                 limits->wall_seconds);
  else if (WIFSIGNALED (status) && WTERMSIG (status) == SIGXCPU)
    g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FORMAT, "“%s” could not be read within the %u s of processor time "
                 "allowed for a file of its size: it is damaged", limits->what, limits->cpu_seconds);
  else if (WIFSIGNALED (status))
    g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FORMAT, "“%s” could not be read: the reading process stopped by "
                 "signal %d (%s); the file is damaged", limits->what, WTERMSIG (status),
                 signal_name (WTERMSIG (status)));
  else
    g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FORMAT, "“%s” could not be read: the reading process ended with "
                 "status %d before it finished (out of the memory allowed for it?); the file is damaged",
                 limits->what, WIFEXITED (status) ? WEXITSTATUS (status) : -1);
  return NULL;
}
