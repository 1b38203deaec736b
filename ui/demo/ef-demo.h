/* ef-demo.h: the demonstration scene the window shows when it is opened with no file. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "ef-dataset.h"

G_BEGIN_DECLS

/* Simulates the demo collection in memory: an X-band spotlight over the bundled drawing plus the
 * point targets. Blocks for a few seconds; call it from a worker thread. */
EfDataset *ef_demo_simulate (GError **error);

/* Where the program keeps its data (the build tree's data/ when it runs from there, the installed
 * package data folder otherwise); NULL: the configured PKGDATADIR. Copies dir. Call it at start-up. */
void  ef_demo_set_data_dir (const char *dir);

/* The demo file installed with the program (or made in the build tree), or NULL if there is none.
 * ECHOFORM_DEMO_FILE, when set, names it instead (set but empty: there is none). */
char *ef_demo_find_file (void);

G_END_DECLS
