/* ef-job-defaults.h: what a dataset is formed with when nobody says otherwise, for the CLI and the GUI. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "ef-dataset.h"
#include "ef-job.h"

G_BEGIN_DECLS

/* The one place the default grid, window, order, upsampling and block size are decided: echoform-cli
 * form and the desktop program both take them from here, so that the same file and region give the
 * same image in both. README.md ("Defaults") says why each is what it is. */

/* Pixels across the finer ground-plane resolution cell. */
#define EF_DEFAULT_PIXELS_PER_CELL 2.0
/* The region formed when none is given: this many pixels square about the scene centre. */
#define EF_DEFAULT_ROI_PIXELS 256

typedef struct {
  double   spacing;      /* m: the finer ground-plane resolution over EF_DEFAULT_PIXELS_PER_CELL; 0 when the
                          * collection states no resolution */
  double   roi[4];       /* x0, y0, x1, y1 in m: EF_DEFAULT_ROI_PIXELS square about the scene centre at
                          * spacing (zeros when spacing is 0) */
  EfWindow window;       /* in range, with EF_RANGE_PARAMS_DEFAULT's Taylor shape */
  EfWindow az_window;    /* in cross-range (over the aperture), with the same shape */
  EfOrder  order;
  guint    upsample;     /* range profile zero-padding */
  guint    block_size;   /* pulses a block, for the algorithm asked */
} EfJobDefaults;

/* The defaults for dataset (NULL: those that do not depend on it; spacing and roi are then 0) formed
 * by algo. Never blocks. */
void   ef_job_defaults (EfDataset *dataset, EfAlgo algo, EfJobDefaults *out);

/* Sets params' windows (and their Taylor shapes), order, upsampling and block size to the defaults'. */
void   ef_job_defaults_apply (const EfJobDefaults *defaults, EfJobParams *params);

/* The ground-plane pixel spacing for pixels_per_cell pixels across the finer resolution cell of
 * dataset (ef_dataset_ground_resolution); 0 when the collection states no resolution. */
double ef_job_default_spacing (EfDataset *dataset, double pixels_per_cell);

/* The default region at a given spacing: EF_DEFAULT_ROI_PIXELS square about the scene centre. */
void   ef_job_default_roi (double spacing, double roi[4]);

/* The default pulses a block for algo: 64 for BP and PFA, 1024 for FFBP and FBP. */
guint  ef_job_default_block_size (EfAlgo algo);

G_END_DECLS
