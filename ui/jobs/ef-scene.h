/* ef-scene.h: what the window derives from a dataset: the scene's extent, overview and ROI grids. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include "ef-dataset.h"
#include "ef-grid.h"
#include "ef-job.h"
#include "ef-job-defaults.h"

G_BEGIN_DECLS

/* The ground patch the collection can image without aliasing, centred on the scene reference point:
 * the unambiguous range swath (projected to the ground) by the unambiguous cross-range extent of
 * the pulse spacing, or the track length for stripmap data. box = x0, y0, x1, y1 in metres. */
void ef_scene_estimate_box (EfDataset *dataset, double box[4]);

/* Ground-plane resolution in metres: range (the slant c/2B projected to the ground) and cross-range
 * (ef_dataset_ground_resolution). */
void ef_scene_resolution (EfDataset *dataset, double *range_m, double *cross_m);

/* The ROI pixel spacing for samples_per_cell pixels per resolution cell of the finer axis
 * (ef_job_default_spacing). */
double ef_scene_default_spacing (EfDataset *dataset, double samples_per_cell);

/* The quick overview: a grid of about max_edge pixels over box, and the pulse stride that keeps its
 * cost near budget backprojections. */
void ef_scene_overview (EfDataset *dataset, const double box[4], guint max_edge, double budget, EfGrid *grid,
                        guint *pulse_stride);

/* Which dataset pulses a job has processed, for the geometry plot: fills done[n_pulses] with TRUE for
 * those covered by the first blocks_done blocks of a job with params. */
void ef_scene_pulses_done (EfDataset *dataset, const EfJobParams *params, guint blocks_done,
                           gboolean *done);

G_END_DECLS
