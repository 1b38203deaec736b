/* ef-fuzz-targets.h: the entry points shared by the libFuzzer harnesses and the corpus regression test. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Each takes arbitrary bytes, runs them through a reader and frees everything. They never fail: a
 * refused input is the expected outcome; only a crash, a leak or a sanitizer report is a bug. */
void ef_fuzz_gotcha (const guint8 *data, gsize size);     /* a MATLAB file -> ef_gotcha_open */
void ef_fuzz_cphd (const guint8 *data, gsize size);       /* a whole CPHD file -> ef_cphd_open */
void ef_fuzz_cphd_xml (const guint8 *data, gsize size);   /* a CPHD XML block, wrapped in a valid file */

/* Silences the readers' debug output and GLib's default handlers, for long fuzzing runs. */
void ef_fuzz_quiet (void);

G_END_DECLS
