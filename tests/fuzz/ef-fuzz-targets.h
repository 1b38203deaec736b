/* ef-fuzz-targets.h: the entry points shared by the libFuzzer harnesses and the corpus regression test. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Each takes arbitrary bytes, runs them through a reader, reads every pulse of whatever opens, and frees
 * everything. A refused input is an expected outcome; only a crash, a leak, a sanitizer report or a
 * refusal without an EF_IO_ERROR is a bug (the last aborts). Returns TRUE when the input opened. */
gboolean ef_fuzz_gotcha (const guint8 *data, gsize size);     /* a MATLAB file -> ef_gotcha_open */
gboolean ef_fuzz_cphd (const guint8 *data, gsize size);       /* a whole CPHD file -> ef_cphd_open */
gboolean ef_fuzz_cphd_xml (const guint8 *data, gsize size);   /* a CPHD XML block, in a valid file */
/* Structure-aware (ef-fuzz-fields.c): the input chooses which numbers of a valid file to replace, and with
 * which boundary values; the rest of the file stays consistent. */
gboolean ef_fuzz_cphd_fields (const guint8 *data, gsize size);   /* -> ef_fuzz_cphd */
gboolean ef_fuzz_gotcha_fields (const guint8 *data, gsize size); /* a MATLAB v5 file -> ef_fuzz_gotcha */
/* An ISMRMRD file whose header fields, XML matrix and FOV, and acquisition count the input sets, read
 * in-process (ef-fuzz-ismrmrd.c; builds with libismrmrd only). */
gboolean ef_fuzz_ismrmrd_fields (const guint8 *data, gsize size);

/* By default the Gotcha targets read each file in a separate process with memory and time limits, as
 * Echoform does. A libFuzzer harness reads in its own process instead, where it sees the coverage and
 * where its own -rss_limit_mb and malloc limits bound what matio allocates. */
void ef_fuzz_gotcha_same_process (gboolean same);

/* Silences the readers' debug output and GLib's default handlers, for long fuzzing runs. */
void ef_fuzz_quiet (void);

G_END_DECLS
