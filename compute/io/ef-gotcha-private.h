/* ef-gotcha-private.h: what the Gotcha reader shares with the process that reads each file for it. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <matio.h>

#include "ef-gotcha.h"

G_BEGIN_DECLS

/* One file's worth of kept pulses. */
typedef struct {
  char        *path;       /* owned */
  char        *pol;        /* owned, from the file name, or NULL */
  enum mat_ft  version;
  guint        n_samples;
  guint        n_pulses;   /* kept */
  double       first_az;   /* azimuth of the file's first pulse, kept or not, degrees */
  double       min_az, max_az;  /* over all the file's pulses, for messages */
  EfPulse     *pulses;     /* owned, n_pulses */
  EfCf32      *samples;    /* owned, n_pulses * n_samples */
} EfGotchaPart;

/* What ef_dataset_validate accepts; the count is also kept in 32 bits. */
#define GOTCHA_MAX_PULSES (1u << 26)

typedef enum {
  EF_GOTCHA_LOAD_OK,
  EF_GOTCHA_LOAD_NOT_GOTCHA,  /* not a MAT file, or no data struct with the required fields */
  EF_GOTCHA_LOAD_ERROR,       /* a Gotcha file that is broken, or an I/O failure */
} EfGotchaLoad;

/* A part with its path and the polarisation its name gives, and nothing read yet. */
EfGotchaPart *ef_gotcha_part_new (const char *path);
void          ef_gotcha_part_free (EfGotchaPart *part);
G_DEFINE_AUTOPTR_CLEANUP_FUNC (EfGotchaPart, ef_gotcha_part_free)

/* Reads one file in the calling process; *out is set on EF_GOTCHA_LOAD_OK. Takes the matio lock unless
 * it runs in a reading process (which has no other thread). Blocks. */
EfGotchaLoad ef_gotcha_load_part (const char *path, const EfGotchaOptions *opts, EfGotchaPart **out,
                                  GError **error);

/* The same, in a child process that may use no more memory than twice what the file holds decompressed
 * (plus a fixed allowance for matio and HDF5) and about a second of processor time per MiB of file. Blocks
 * until the child is done. */
EfGotchaLoad ef_gotcha_load_part_isolated (const char *path, const EfGotchaOptions *opts, EfGotchaPart **out,
                                           GError **error);

/* Inside a reading process: TRUE, and ef_gotcha_budget sets how much more memory the child may use from
 * here on (bytes, beyond the fixed allowance) and the processor time that goes with it. Elsewhere FALSE,
 * and ef_gotcha_budget does nothing. */
gboolean ef_gotcha_in_reader_process (void);
void     ef_gotcha_budget (guint64 bytes);

/* Makes matio's logging and the error domain ready before a child is started, so that the child takes no
 * lock another thread might have held at the fork. */
void ef_gotcha_matio_setup (void);
/* The lock around matio and HDF5, which ef_isolate_run holds across the fork, so that no other thread is
 * inside them when the child is copied. */
GMutex *ef_gotcha_matio_mutex (void);

G_END_DECLS
