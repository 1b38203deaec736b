/* ef-scene.c: the scene extent, resolutions and the overview grid, derived from a dataset. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-scene"
#include "config.h"

#include <math.h>
#include <string.h>

#include "ef-scene.h"

/* Past these the patch is clipped: the window is for looking, not for forming a whole strip. */
#define MAX_SCENE_EDGE_M 5000.0
#define MIN_SCENE_EDGE_M 10.0

void
ef_scene_resolution (EfDataset *dataset, double *range_m, double *cross_m)
{
  g_return_if_fail (dataset != NULL);
  ef_dataset_ground_resolution (dataset, range_m, cross_m);
}

void
ef_scene_estimate_box (EfDataset *dataset, double box[4])
{
  const EfDatasetInfo *info;
  const EfPulse *mid, *first, *last;
  double grazing, range_extent, cross_extent, track, edge, half;
  guint64 n;

  g_return_if_fail (dataset != NULL && box != NULL);
  info = &dataset->info;
  n = info->n_pulses;
  first = &dataset->pulses[0];
  last = &dataset->pulses[n - 1];
  mid = &dataset->pulses[n / 2];
  grazing = ef_dataset_mean_grazing (dataset);

  switch (info->domain)
    {
    case EF_DOMAIN_FX:
      /* Frequency samples df apart alias in range every c / (2 df). */
      range_extent = EF_C / (2.0 * mid->scss);
      break;
    case EF_DOMAIN_TOA:
      range_extent = EF_C / 2.0 * mid->scss * (double) info->n_samples;
      break;
    case EF_DOMAIN_RAW:
    default:
      range_extent = EF_C / 2.0 * MAX (mid->scss * (double) info->n_samples - info->chirp_duration,
                                        mid->scss * (double) info->n_samples * 0.5);
      break;
    }
  range_extent /= MAX (cos (grazing), 0.1);

  {
    double d[3] = { last->tx[0] - first->tx[0], last->tx[1] - first->tx[1], last->tx[2] - first->tx[2] };
    track = sqrt (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
  }
  if (info->domain == EF_DOMAIN_RAW)
    cross_extent = track;
  else
    {
      double dtheta = n > 1 ? ef_dataset_aperture_angle (dataset) / (double) (n - 1) : 0;
      double lambda = info->fc > 0 ? EF_C / info->fc : 0.03;
      /* Pulses dtheta apart alias in cross-range every lambda / (2 dtheta). */
      cross_extent = dtheta > 0 ? lambda / (2.0 * dtheta * MAX (cos (grazing), 0.1)) : range_extent;
    }

  edge = MIN (range_extent, cross_extent);
  if (!isfinite (edge) || edge <= 0)
    edge = 100.0;
  edge = CLAMP (edge, MIN_SCENE_EDGE_M, MAX_SCENE_EDGE_M);
  half = 0.5 * edge;
  box[0] = -half;
  box[1] = -half;
  box[2] = half;
  box[3] = half;
}

double
ef_scene_default_spacing (EfDataset *dataset, double samples_per_cell)
{
  double spacing;

  g_return_val_if_fail (dataset != NULL, 1.0);
  if (!(samples_per_cell > 0))
    samples_per_cell = EF_DEFAULT_PIXELS_PER_CELL;
  /* The engine's rule (echoform-cli's too); a collection that states no resolution gets 1 m cells. */
  spacing = ef_job_default_spacing (dataset, samples_per_cell);
  return spacing > 0 ? spacing : 1.0 / samples_per_cell;
}

void
ef_scene_overview (EfDataset *dataset, const double box[4], guint max_edge, double budget, EfGrid *grid,
                   guint *pulse_stride)
{
  double edge = MAX (box[2] - box[0], box[3] - box[1]);
  double spacing = edge / MAX (max_edge, 16);
  double res = ef_scene_default_spacing (dataset, 2.0);
  double cost;
  guint stride;

  g_return_if_fail (grid != NULL && pulse_stride != NULL);

  /* Finer than half a resolution cell shows nothing more. */
  spacing = MAX (spacing, res);
  if (!ef_grid_init_roi (grid, box[0], box[1], box[2], box[3], spacing, NULL))
    ef_grid_init_roi (grid, -50, -50, 50, 50, 1.0, NULL);
  cost = (double) ef_grid_n_pixels (grid) * (double) dataset->info.n_pulses;
  stride = budget > 0 ? (guint) ceil (cost / budget) : 1;
  *pulse_stride = CLAMP (stride, 1, (guint) MAX (dataset->info.n_pulses / 16, 1));
}

void
ef_scene_pulses_done (EfDataset *dataset, const EfJobParams *params, guint blocks_done, gboolean *done)
{
  guint64 first, count, used;
  guint stride, block, n_blocks;
  g_autofree guint *order = NULL;

  g_return_if_fail (dataset != NULL && params != NULL && done != NULL);

  memset (done, 0, sizeof (gboolean) * dataset->info.n_pulses);
  first = MIN (params->first_pulse, dataset->info.n_pulses);
  count = params->n_pulses ? MIN (params->n_pulses, dataset->info.n_pulses - first)
                           : dataset->info.n_pulses - first;
  stride = MAX (params->pulse_stride, 1);
  used = (count + stride - 1) / stride;
  block = MAX (params->backend.block_size, 1);
  n_blocks = (guint) ((used + block - 1) / block);
  if (n_blocks == 0)
    return;
  order = g_new (guint, n_blocks);
  if (params->order == EF_ORDER_INTERLEAVED)
    ef_job_interleaved_order (n_blocks, order);
  else
    for (guint b = 0; b < n_blocks; b++)
      order[b] = b;

  for (guint k = 0; k < MIN (blocks_done, n_blocks); k++)
    for (guint64 i = (guint64) order[k] * block; i < MIN ((guint64) (order[k] + 1) * block, used); i++)
      done[first + i * stride] = TRUE;
}
