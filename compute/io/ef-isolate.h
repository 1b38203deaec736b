/* ef-isolate.h: runs a reader in a child process under memory and processor-time limits, and gets its result back. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Runs in the child. It returns its result as parts (GBytes; they may wrap the child's own memory
 * without a copy, as the child leaves right after sending them), or NULL with error. */
typedef GPtrArray *(*EfIsolateFunc) (gpointer user_data, GError **error);

/* AddressSanitizer keeps freed blocks in a quarantine (256 MiB by default) in the data segment that
 * RLIMIT_DATA counts: a reader whose library frees and allocates much while it reads (HDF5 through
 * libismrmrd) adds this to its allowance in a sanitizer build. One that relies on a tight allowance to stop
 * a damaged file quickly (the Gotcha reader) does not. */
#if defined(__SANITIZE_ADDRESS__)
#define EF_ISOLATE_SANITIZER_ALLOWANCE (G_GUINT64_CONSTANT (512) << 20)
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define EF_ISOLATE_SANITIZER_ALLOWANCE (G_GUINT64_CONSTANT (512) << 20)
#endif
#endif
#ifndef EF_ISOLATE_SANITIZER_ALLOWANCE
#define EF_ISOLATE_SANITIZER_ALLOWANCE 0
#endif

typedef struct {
  const char *what;          /* named in messages: usually the file's path */
  guint64     memory_bytes;  /* the child's data segment may grow by this much from where it started */
  guint       cpu_seconds;   /* processor time; SIGXCPU past it */
  guint       wall_seconds;  /* the parent waits this long for the whole reply */
  guint64     max_reply;     /* bytes of all the parts together that the parent accepts */
  guint       max_parts;
} EfIsolateLimits;

/* Forks, runs func (user_data) in the child, and returns its parts as a new array of GBytes (owned), or
 * NULL with an EF_IO_ERROR: func's own error as it reported it (code and message), or EF_IO_ERROR_FORMAT
 * saying how the child ended (a signal, the processor-time limit, the wall-clock limit, a reply larger
 * than allowed). lock, if not NULL, is held across the fork, so that no other thread is inside the
 * library the child uses at that moment. Blocks until the child is done. */
GPtrArray *ef_isolate_run (const EfIsolateLimits *limits, GMutex *lock, EfIsolateFunc func, gpointer user_data,
                           GError **error);

/* TRUE inside a child of ef_isolate_run. */
gboolean   ef_isolate_in_child (void);
/* Inside a child: its data segment may grow from here on to bytes beyond what it had when it started
 * (replacing limits->memory_bytes), as a reader learns what a file holds. Elsewhere nothing. */
void       ef_isolate_set_budget (guint64 bytes);

G_END_DECLS
