/* ef-job-defaults.c: what a dataset is formed with when nobody says otherwise, for the CLI and the GUI. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-job"
#include "config.h"

#include <math.h>
#include <string.h>

#include "ef-job-defaults.h"

/* Why these values: README.md, "Defaults". In short: Taylor in range (EF_RANGE_PARAMS_DEFAULT's shape,
 * -35 dB and n = 4) as delivered SAR products are weighted, so that a bright scatterer's sidelobes stay
 * below its neighbours; interleaved blocks, so that a display shows full resolution from the first
 * block (a batch run forms the same image); and EF_RANGE_PARAMS_DEFAULT's 16 times range upsampling,
 * which puts linear interpolation's spectral images 60 dB down at the band edge (48 dB at 8). The
 * aperture is weighted as the range is, so that a point's impulse response has the same sidelobes
 * and the same broadening in both directions: a bright scatterer's -13 dB cross-range sidelobes
 * otherwise streak across its neighbours. */
#define DEFAULT_WINDOW   EF_WINDOW_TAYLOR
#define DEFAULT_AZ_WINDOW EF_WINDOW_TAYLOR
#define DEFAULT_ORDER    EF_ORDER_INTERLEAVED

guint
ef_job_default_block_size (EfAlgo algo)
{
  /* BP and PFA: a display updates after every block, and 64 pulses keep the updates frequent while
   * the per-block work (a range-compression batch, a thread launch) stays small beside the formation.
   * FFBP and FBP: a block is a sub-aperture; 1024 pulses take a quarter of 256's passes over the image
   * and of the stages at which threads wait, 15% of the time on a busy machine, at 55 dB from exact
   * backprojection (tests/bench/RESULTS.md). */
  return algo == EF_ALGO_FFBP || algo == EF_ALGO_FBP ? 1024 : 64;
}

double
ef_job_default_spacing (EfDataset *dataset, double pixels_per_cell)
{
  double rr = 0, cr = 0, res;

  g_return_val_if_fail (dataset != NULL, 0);
  ef_dataset_ground_resolution (dataset, &rr, &cr);
  if (!(rr > 0) || !isfinite (rr))
    rr = 0;
  if (!(cr > 0) || !isfinite (cr))
    cr = 0;
  res = rr > 0 && cr > 0 ? MIN (rr, cr) : MAX (rr, cr);
  if (!(res > 0) || !(pixels_per_cell > 0))
    return 0;
  return res / pixels_per_cell;
}

void
ef_job_default_roi (double spacing, double roi[4])
{
  double half = 0.5 * EF_DEFAULT_ROI_PIXELS * spacing;

  g_return_if_fail (roi != NULL);
  roi[0] = -half;
  roi[1] = -half;
  roi[2] = half;
  roi[3] = half;
}

void
ef_job_defaults (EfDataset *dataset, EfAlgo algo, EfJobDefaults *out)
{
  g_return_if_fail (out != NULL);

  memset (out, 0, sizeof *out);
  if (dataset != NULL)
    {
      out->spacing = ef_job_default_spacing (dataset, EF_DEFAULT_PIXELS_PER_CELL);
      ef_job_default_roi (out->spacing, out->roi);
    }
  out->window = DEFAULT_WINDOW;
  out->az_window = DEFAULT_AZ_WINDOW;
  out->order = DEFAULT_ORDER;
  out->upsample = (EF_RANGE_PARAMS_DEFAULT).upsample;
  out->block_size = ef_job_default_block_size (algo);
}

void
ef_job_defaults_apply (const EfJobDefaults *defaults, EfJobParams *params)
{
  EfRangeParams shape = EF_RANGE_PARAMS_DEFAULT;

  g_return_if_fail (defaults != NULL && params != NULL);
  params->backend.range.window = defaults->window;
  params->backend.range.taylor_nbar = shape.taylor_nbar;
  params->backend.range.taylor_sll_db = shape.taylor_sll_db;
  params->backend.range.az_window = defaults->az_window;
  params->backend.range.az_taylor_nbar = shape.az_taylor_nbar;
  params->backend.range.az_taylor_sll_db = shape.az_taylor_sll_db;
  params->backend.range.upsample = defaults->upsample;
  params->backend.block_size = defaults->block_size;
  params->order = defaults->order;
}
