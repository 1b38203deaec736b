/* ef-cli-focus.h: `form`'s autofocus options: estimate or read per-pulse phase corrections and apply them. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "ef-dataset.h"
#include "ef-job.h"
#include "ef-run-info.h"

G_BEGIN_DECLS

typedef struct {
  const char *method;     /* --autofocus: "pga", "sharpness" or NULL (borrowed) */
  const char *phase_in;   /* --phase-correction FILE, or NULL */
  const char *phase_out;  /* --phase-out FILE, or NULL */
  guint       max_px;     /* --autofocus-size: the estimation grid's side (0: the engine's default) */
} EfCliFocusArgs;

/* Reads the corrections file and/or runs the autofocus over the region roi, then replaces *ds with the
 * dataset that applies the correction (unchanged when there is none). af receives the autofocus fields
 * of a run record (method, file, measures). Blocks while it estimates. */
gboolean ef_cli_focus_apply (EfDataset **ds, const EfCliFocusArgs *args, const double roi[4], const EfJobParams *jp,
                             EfRunInfo *af, GError **error);
/* Moves af's autofocus fields into run, the job's record of what ran. */
void     ef_cli_focus_record (EfRunInfo *run, EfRunInfo *af);

G_END_DECLS
