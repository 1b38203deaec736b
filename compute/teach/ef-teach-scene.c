/* ef-teach-scene.c: the classroom's own scene: a few points, small enough to form in a moment. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-teach"
#include "config.h"

#include <math.h>

#include "ef-sim.h"
#include "ef-teach.h"

/* The same scene as data/presets/classroom.ini: five points in an L and a lone one. */
static const double classroom_points[][4] = {
  { 0, 0, 0, 1 }, { -6, -4, 0, 1 }, { -6, 0, 0, 1 }, { -6, 4, 0, 1 }, { -2, -4, 0, 1 }, { 5, 5, 0, 1 },
};

guint
ef_teach_classroom_targets (double (*xyza)[4], guint max)
{
  guint n = MIN (max, G_N_ELEMENTS (classroom_points));

  for (guint i = 0; i < n; i++)
    for (guint c = 0; c < 4; c++)
      xyza[i][c] = classroom_points[i][c];
  return G_N_ELEMENTS (classroom_points);
}

EfDataset *
ef_teach_classroom_new (guint n_threads, GError **error)
{
  EfSimTarget tg[G_N_ELEMENTS (classroom_points)];
  EfSimParams sp;

  for (guint i = 0; i < G_N_ELEMENTS (classroom_points); i++)
    {
      tg[i].pos[0] = classroom_points[i][0];
      tg[i].pos[1] = classroom_points[i][1];
      tg[i].pos[2] = classroom_points[i][2];
      tg[i].amp = classroom_points[i][3];
    }
  /* The airborne X-band spotlight: 9.6 GHz, 600 MHz, 10 km, 30 degrees, 4.135 degrees of aperture. */
  ef_sim_params_init_airborne (&sp);
  sp.n_pulses = 512;
  sp.n_samples = 256;
  sp.aperture_deg = 4.1351;
  sp.targets = tg;
  sp.n_targets = G_N_ELEMENTS (classroom_points);
  sp.n_threads = n_threads;
  return ef_sim_run (&sp, error);
}

void
ef_teach_classroom_grid (EfGrid *grid, guint edge)
{
  double half;

  g_return_if_fail (grid != NULL && edge > 0);
  /* 20.48 m across whatever the edge: the points with room for their sidelobes. */
  half = 10.24;
  ef_grid_init_roi (grid, -half, -half, half, half, 2 * half / edge, NULL);
}
