/* ef-main-window-measure.c: point-target measurements on what is formed so far. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-main-window"
#include "config.h"

#include <glib/gi18n.h>
#include <math.h>

#include "ef-metrics.h"
#include "ef-main-window-private.h"

/* The window of pixels read around a click: enough for the main lobe and several sidelobes at two
 * pixels per resolution cell, and quick to copy on the main thread. */
#define MEASURE_HALF 48
#define MEASURE_SEARCH_PX 8
/* A point target's response measured on pixels no coarser than this fraction of the resolution (two
 * pixels per cell, with a margin for rounding): coarser ones cut its main lobe to a pixel or two. */
#define MEASURE_MAX_SPACING 0.55
/* A point target: its highest sidelobe at least this far below the peak, in both cuts, and its main lobe
 * at most this many resolution cells wide. Clutter has neither. */
#define POINT_MIN_PSLR_DB 6.0
#define POINT_MAX_IRW_CELLS 2.0

void
ef_measurement_clear (gpointer data)
{
  EfMeasurement *m = data;

  g_clear_pointer (&m->file, g_free);
}

/* Forgets the shown measurement: the marker and the figures. */
static void
measure_forget (EfMainWindow *self)
{
  self->has_marker = FALSE;
  self->remeasure = FALSE;
  ef_image_view_set_marker (self->image_view, NULL);
  ef_measure_panel_set_result (self->measure_panel, NULL, 0, NULL);
  ef_main_window_actions_sync (self);
}

void
ef_main_window_measure_region_changed (EfMainWindow *self)
{
  double xy[2];

  if (!self->has_marker || !ef_image_view_get_marker (self->image_view, xy))
    return;
  if (self->has_roi && xy[0] >= self->roi[0] && xy[0] <= self->roi[2] && xy[1] >= self->roi[1]
      && xy[1] <= self->roi[3])
    {
      /* The same point, formed again: the figures are the old image's until it is measured again. */
      self->remeasure = TRUE;
      ef_measure_panel_set_note (self->measure_panel, _("These figures are from the region as it was: it is "
                                                        "forming again, and the point is measured again "
                                                        "when it is done."));
      return;
    }
  /* A region drawn elsewhere: the point is not in view of it. */
  measure_forget (self);
}

void
ef_main_window_measure_region_formed (EfMainWindow *self)
{
  g_autoptr (GError) error = NULL;

  if (!self->remeasure)
    return;
  self->remeasure = FALSE;
  if (!ef_main_window_measure_at (self, self->measure_click[0], self->measure_click[1], &error))
    ef_measure_panel_set_note (self->measure_panel, error->message);
}

/* The ground-range direction at mid-aperture, as a unit vector in the scene frame. */
static void
range_direction (EfDataset *dataset, double dir[3])
{
  const EfPulse *mid = &dataset->pulses[dataset->info.n_pulses / 2];
  double x = 0.5 * (mid->tx[0] + mid->rcv[0]), y = 0.5 * (mid->tx[1] + mid->rcv[1]);
  double n = hypot (x, y);

  dir[0] = n > 0 ? x / n : 1.0;
  dir[1] = n > 0 ? y / n : 0.0;
  dir[2] = 0.0;
}

gboolean
ef_main_window_measure_at (EfMainWindow *self, double x, double y, GError **error)
{
  EfJobRunner *runner = NULL;
  const EfGrid *grid;
  g_autoptr (EfImage) image = NULL;
  EfPointResult result = { 0 };
  EfGrid sub;
  EfRect rect;
  double pos[3] = { x, y, 0 }, col, row, dir[3];
  int c0, r0, c1, r1;
  g_autofree char *where = NULL;
  EfMeasurement m;
  gboolean in_roi = FALSE;
  double res_range, res_cross;

  g_return_val_if_fail (EF_IS_MAIN_WINDOW (self), FALSE);

  if (self->dataset == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_INITIALIZED, _("Open a collection first"));
      return FALSE;
    }

  /* The region if the point is in it; the overview otherwise. */
  if (self->roi_runner != NULL)
    {
      grid = ef_job_runner_get_grid (self->roi_runner);
      ef_grid_position_to_pixel (grid, pos, &col, &row);
      if (col >= 0 && row >= 0 && col <= grid->width - 1 && row <= grid->height - 1
          && ef_job_runner_get_progress (self->roi_runner)->pulses_done > 0)
        {
          runner = self->roi_runner;
          in_roi = TRUE;
        }
    }
  if (runner == NULL && self->overview != NULL)
    {
      grid = ef_job_runner_get_grid (self->overview);
      ef_grid_position_to_pixel (grid, pos, &col, &row);
      if (col >= 0 && row >= 0 && col <= grid->width - 1 && row <= grid->height - 1)
        runner = self->overview;
    }
  if (runner == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, _("There is no image at that point"));
      return FALSE;
    }
  grid = ef_job_runner_get_grid (runner);
  ef_grid_position_to_pixel (grid, pos, &col, &row);
  ef_dataset_ground_resolution (self->dataset, &res_range, &res_cross);
  if (grid->spacing > MEASURE_MAX_SPACING * MIN (res_range, res_cross))
    {
      if (in_roi)
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                     _("The region’s %.3f m pixels are too coarse to measure a resolution of %.3f m: form it "
                       "at %.3f m or finer"), grid->spacing, MIN (res_range, res_cross),
                     0.5 * MIN (res_range, res_cross));
      else
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                     _("The overview’s %.3f m pixels are too coarse to measure a resolution of %.3f m: draw a "
                       "region around the point first"), grid->spacing, MIN (res_range, res_cross));
      return FALSE;
    }

  c0 = MAX (0, (int) floor (col) - MEASURE_HALF);
  r0 = MAX (0, (int) floor (row) - MEASURE_HALF);
  c1 = MIN ((int) grid->width, (int) floor (col) + MEASURE_HALF + 1);
  r1 = MIN ((int) grid->height, (int) floor (row) + MEASURE_HALF + 1);
  if (c1 - c0 < 8 || r1 - r0 < 8)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, _("The point is too close to the edge"));
      return FALSE;
    }
  sub = *grid;
  ef_grid_pixel_position (grid, c0, r0, sub.origin);
  sub.width = (guint) (c1 - c0);
  sub.height = (guint) (r1 - r0);
  image = ef_image_new (&sub, error);
  if (image == NULL)
    return FALSE;
  rect = (EfRect) { (guint) c0, (guint) r0, sub.width, sub.height };
  if (!ef_job_runner_read (runner, &rect, image->data, error))
    return FALSE;

  range_direction (self->dataset, dir);
  if (!ef_point_analyse (image, col - c0, row - r0, MEASURE_SEARCH_PX, dir, &result, error))
    return FALSE;
  if (!(result.range.pslr_db <= -POINT_MIN_PSLR_DB && result.cross.pslr_db <= -POINT_MIN_PSLR_DB
        && result.range.irw_m <= POINT_MAX_IRW_CELLS * res_range
        && result.cross.irw_m <= POINT_MAX_IRW_CELLS * res_cross))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   _("No point target here: no main lobe within %.2f × %.2f m with sidelobes %.0f dB below it "
                     "(here %.2f × %.2f m, the highest sidelobe at %+.1f dB)"),
                   POINT_MAX_IRW_CELLS * res_range, POINT_MAX_IRW_CELLS * res_cross, POINT_MIN_PSLR_DB,
                   result.range.irw_m, result.cross.irw_m, MAX (result.range.pslr_db, result.cross.pslr_db));
      ef_point_result_clear (&result);
      return FALSE;
    }

  /* Report the level per pulse, as the display does. */
  {
    guint64 n = ef_job_runner_get_progress (runner)->pulses_done;
    if (n > 0)
      result.peak_db -= 20.0 * log10 ((double) n);
  }

  m = (EfMeasurement) { result.position[0], result.position[1], result.peak_db,
                        result.range.irw_m, result.range.pslr_db, result.range.islr_db,
                        result.cross.irw_m, result.cross.pslr_db, result.cross.islr_db, grid->spacing };
  {
    const EfJobParams *params = ef_job_runner_get_params (runner);
    const EfRunInfo *run = ef_job_runner_get_run_info (runner);

    /* What ran, which is what the image is: the run record once a backend exists, the request before. */
    m.file = g_strdup (self->dataset->info.path != NULL ? self->dataset->info.path : "demo");
    m.algo = run->backend != NULL ? run->algo : params->backend.algo;
    m.precision = run->backend != NULL ? run->precision : params->backend.precision;
    m.window = params->backend.range.window;
    m.in_roi = in_roi;
  }
  g_array_append_val (self->measurements, m);

  where = in_roi ? g_strdup_printf (_("Region, %.3f m pixels"), grid->spacing)
                 : g_strdup_printf (_("Overview, %.3f m pixels"), grid->spacing);
  ef_measure_panel_set_result (self->measure_panel, &result, self->measurements->len, where);
  ef_image_view_set_marker (self->image_view, result.position);
  self->has_marker = TRUE;
  self->remeasure = FALSE;
  self->measure_click[0] = x;
  self->measure_click[1] = y;
  ef_main_window_actions_sync (self);
  ef_point_result_clear (&result);
  return TRUE;
}
