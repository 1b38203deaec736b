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

/* Silences the readers' debug output and GLib's default handlers, for long fuzzing runs. */
void ef_fuzz_quiet (void);

G_END_DECLS
