/* ef-gotcha-isolate.c: reads one MATLAB file in a child process, under memory and processor-time limits. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-gotcha"
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include <glib/gstdio.h>
#include <glib-unix.h>

#include "ef-error.h"
#include "ef-gotcha-private.h"

/*
 * matio 1.5.23 allocates whatever a damaged file declares while it builds a variable's description,
 * before the reader can look at it: a file of a kilobyte can ask for gigabytes, in one block or in
 * millions of small ones, and HDF5 can loop on a damaged v7.3 file. Nothing short of parsing the file
 * ourselves could check that beforehand, so each file is read by a child process:
 *
 *  - its memory (RLIMIT_DATA, counted from what it had when it started) is a fixed allowance for matio
 *    and HDF5 plus twice what the file holds decompressed while matio describes the variable, then twice
 *    the data the variable declares (once that has been checked against the file) and a few numbers per
 *    pulse while it is read and converted; past that an allocation fails, and matio says so;
 *  - its processor time (RLIMIT_CPU) is a second, and a second more per MiB of file: SIGXCPU ends it;
 *  - the parent waits a generous wall-clock time as well, for a child that blocks instead of working.
 *
 * The child sends back the pulses and samples it kept, or the error, through a pipe, and leaves with
 * _exit. It was forked from a program that may have other threads, so it runs only the reader, takes
 * none of the locks those threads use that it can avoid (the matio lock is held across the fork on its
 * behalf, and it logs nothing). GLib 2.74's slice allocator, which GError uses, can still take a lock in
 * its slow path; a child stuck on one is ended by the wall-clock limit like any other that blocks.
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
  guint32 message_len;  /* bytes of message that follow */
  gint32  version;      /* enum mat_ft */
  guint32 n_samples, n_pulses;
  guint32 reserved;
  double  first_az, min_az, max_az;
} Reply;

static gboolean in_child;
static guint64 data_at_start;  /* the child's VmData when it started, bytes */

gboolean
ef_gotcha_in_reader_process (void)
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
  if (at == NULL)
    return 0;
  return g_ascii_strtoull (at + 8, NULL, 10) * 1024;
}

void
ef_gotcha_budget (guint64 bytes)
{
  struct rlimit rl;
  guint64 limit;

  if (!in_child || getrlimit (RLIMIT_DATA, &rl) != 0)
    return;
  if (__builtin_add_overflow (data_at_start, FIXED_ALLOWANCE, &limit) || __builtin_add_overflow (limit, bytes, &limit))
    limit = G_MAXUINT64;
  if (rl.rlim_max != RLIM_INFINITY && limit > rl.rlim_max)
    limit = rl.rlim_max;
  rl.rlim_cur = limit >= RLIM_INFINITY ? RLIM_INFINITY : (rlim_t) limit;
  setrlimit (RLIMIT_DATA, &rl);
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

static G_NORETURN void
child_main (int fd, const char *path, const EfGotchaOptions *opts, guint cpu_seconds)
{
  struct rlimit cpu;
  EfGotchaPart *part = NULL;
  GError *error = NULL;
  Reply r = { 0 };
  const char *message = "";
  gboolean ok;

#ifdef __linux__
  /* Not to outlive a parent that dies. */
  prctl (PR_SET_PDEATHSIG, SIGKILL);
#endif
  signal (SIGXCPU, SIG_DFL);
  in_child = TRUE;
  data_at_start = vm_data ();
  if (getrlimit (RLIMIT_CPU, &cpu) == 0)
    {
      cpu.rlim_cur = cpu.rlim_max == RLIM_INFINITY ? cpu_seconds : MIN ((rlim_t) cpu_seconds, cpu.rlim_max);
      setrlimit (RLIMIT_CPU, &cpu);
    }
  ef_gotcha_budget (0);

  r.magic = REPLY_MAGIC;
  r.result = ef_gotcha_load_part (path, opts, &part, &error);
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
      r.code = error != NULL ? error->code : EF_IO_ERROR_FAILED;
      message = error != NULL ? error->message : "the file could not be read";
      r.message_len = (guint32) MIN (strlen (message), (gsize) MAX_MESSAGE);
    }
  ok = write_all (fd, &r, sizeof r) && write_all (fd, message, r.message_len);
  if (ok && r.result == EF_GOTCHA_LOAD_OK && r.n_pulses > 0)
    ok = write_all (fd, part->pulses, (gsize) r.n_pulses * sizeof (EfPulse))
         && write_all (fd, part->samples, (gsize) r.n_pulses * r.n_samples * sizeof (EfCf32));
  _exit (ok ? 0 : 3);
}

typedef enum { GOT_ALL, GOT_EOF, GOT_TIMEOUT, GOT_ERROR } ReadStatus;

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
    case SIGXCPU: return "SIGXCPU";
    default: return "a signal";
    }
}

EfGotchaLoad
ef_gotcha_load_part_isolated (const char *path, const EfGotchaOptions *opts, EfGotchaPart **out, GError **error)
{
  g_autoptr (EfGotchaPart) part = NULL;
  g_autoptr (GError) local = NULL;
  g_autofree char *message = NULL;
  struct rusage ru = { 0 };
  GStatBuf st;
  Reply r = { 0 };
  ReadStatus got;
  guint64 size = 0, n_samples_total = 0;
  guint cpu_seconds;
  gint64 deadline;
  int fds[2], status = 0, saved;
  gboolean complete = FALSE, timed_out = FALSE;
  pid_t pid;

  g_return_val_if_fail (path != NULL && opts != NULL && out != NULL, EF_GOTCHA_LOAD_ERROR);

  /* The child reports a missing or unreadable file itself; the size only sets its time. */
  if (g_stat (path, &st) == 0)
    size = (guint64) st.st_size;
  cpu_seconds = 1 + (guint) MIN (size / CPU_BYTES_PER_SECOND, (guint64) 100000);
  if (!g_unix_open_pipe (fds, FD_CLOEXEC, &local))
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FAILED, "Cannot start reading “%s”: %s", path, local->message);
      return EF_GOTCHA_LOAD_ERROR;
    }
  ef_gotcha_matio_setup ();
  ef_gotcha_matio_lock ();
  pid = fork ();
  if (pid == 0)
    {
      close (fds[0]);
      child_main (fds[1], path, opts, cpu_seconds);
    }
  saved = errno;
  ef_gotcha_matio_unlock ();
  close (fds[1]);
  if (pid < 0)
    {
      close (fds[0]);
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FAILED, "Cannot start a process to read “%s”: %s", path,
                   g_strerror (saved));
      return EF_GOTCHA_LOAD_ERROR;
    }

  /* Wall-clock time is only a backstop: a busy machine must not fail a good file. */
  deadline = g_get_monotonic_time () + (gint64) (WALL_SECONDS_MIN + 4 * (gint64) cpu_seconds) * G_USEC_PER_SEC;
  got = read_child (fds[0], &r, sizeof r, deadline);
  if (got == GOT_ALL && (r.magic != REPLY_MAGIC || r.message_len > MAX_MESSAGE || r.n_samples > (1u << 24)
                         || !g_uint64_checked_mul (&n_samples_total, r.n_pulses, r.n_samples)))
    got = GOT_ERROR;
  if (got == GOT_ALL)
    {
      message = g_malloc0 (r.message_len + 1);
      got = read_child (fds[0], message, r.message_len, deadline);
    }
  if (got == GOT_ALL && r.result == EF_GOTCHA_LOAD_OK)
    {
      part = ef_gotcha_part_new (path);
      part->version = r.version;
      part->n_samples = r.n_samples;
      part->n_pulses = r.n_pulses;
      part->first_az = r.first_az;
      part->min_az = r.min_az;
      part->max_az = r.max_az;
      if (r.n_pulses > 0)
        {
          part->pulses = g_try_new (EfPulse, r.n_pulses);
          part->samples = g_try_new (EfCf32, n_samples_total);
          if (part->pulses == NULL || part->samples == NULL)
            {
              g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FAILED, "Not enough memory for the samples of “%s”",
                           path);
              got = GOT_ERROR;
            }
          else
            {
              got = read_child (fds[0], part->pulses, (gsize) r.n_pulses * sizeof (EfPulse), deadline);
              if (got == GOT_ALL)
                got = read_child (fds[0], part->samples, (gsize) n_samples_total * sizeof (EfCf32), deadline);
            }
        }
    }
  complete = got == GOT_ALL;
  timed_out = got == GOT_TIMEOUT;
  if (!complete)
    kill (pid, SIGKILL);
  close (fds[0]);
  /* If SIGCHLD is ignored the child is reaped by the kernel and wait4 fails: status stays 0, and
   * whether the reply was complete decides. */
  while (wait4 (pid, &status, 0, &ru) < 0 && errno == EINTR)
    ;
  g_debug ("Read %s in process %d: %.3f s of processor time, %ld KiB at most", path, (int) pid,
           ru.ru_utime.tv_sec + ru.ru_stime.tv_sec + 1e-6 * (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec), ru.ru_maxrss);

  if (error != NULL && *error != NULL)
    return EF_GOTCHA_LOAD_ERROR;
  if (complete && WIFEXITED (status) && WEXITSTATUS (status) == 0)
    {
      if (r.result == EF_GOTCHA_LOAD_OK)
        {
          *out = g_steal_pointer (&part);
          return EF_GOTCHA_LOAD_OK;
        }
      g_set_error_literal (error, EF_IO_ERROR, r.code, message);
      return r.result == EF_GOTCHA_LOAD_NOT_GOTCHA ? EF_GOTCHA_LOAD_NOT_GOTCHA : EF_GOTCHA_LOAD_ERROR;
    }
  if (timed_out)
    g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FORMAT,
                 "“%s” could not be read: the reading process did not finish within %u s; the file is damaged, or "
                 "the file system did not answer", path, (guint) (WALL_SECONDS_MIN + 4 * cpu_seconds));
  else if (WIFSIGNALED (status) && WTERMSIG (status) == SIGXCPU)
    g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FORMAT,
                 "“%s” could not be read within the %u s of processor time allowed for a file of its size: it is "
                 "damaged, or matio cannot read it", path, cpu_seconds);
  else if (WIFSIGNALED (status))
    g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FORMAT,
                 "“%s” could not be read: the reading process stopped by signal %d (%s); the file is damaged", path,
                 WTERMSIG (status), signal_name (WTERMSIG (status)));
  else
    g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FORMAT,
                 "“%s” could not be read: the reading process ended with status %d before it finished; the file "
                 "is damaged", path, WIFEXITED (status) ? WEXITSTATUS (status) : -1);
  return EF_GOTCHA_LOAD_ERROR;
}
