/* ef-demo.c: the demonstration scene: the bundled drawing and a few point targets, simulated. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-demo"
#include "config.h"

#include <glib/gi18n.h>
#include <math.h>

#include "ef-demo.h"
#include "ef-sim.h"

/* The drawing spans this many metres; the points sit well outside it. */
#define DRAWING_EDGE_M 64.0
/* A coarser drawing simulates faster and still reads well at the demo's resolution. */
#define DRAWING_MAX_PIXELS 96

static const double point_targets[][2] = {
  { 48.0, -48.0 },
  { -48.0, 48.0 },
  { 48.0, 48.0 },
  { -48.0, -48.0 },
};

guint
ef_demo_get_n_point_targets (void)
{
  return G_N_ELEMENTS (point_targets);
}

void
ef_demo_get_point_target (guint i, double pos[3])
{
  g_return_if_fail (i < G_N_ELEMENTS (point_targets));
  pos[0] = point_targets[i][0];
  pos[1] = point_targets[i][1];
  pos[2] = 0.0;
}

/* Box-averages the picture down so that its longer edge has at most max pixels. */
static float *
shrink (const float *src, guint w, guint h, guint max, guint *out_w, guint *out_h)
{
  guint f = MAX (1, (MAX (w, h) + max - 1) / max);
  guint nw = MAX (1, w / f), nh = MAX (1, h / f);
  float *dst = g_new0 (float, (gsize) nw * nh);

  for (guint y = 0; y < nh; y++)
    for (guint x = 0; x < nw; x++)
      {
        double s = 0;
        for (guint j = 0; j < f; j++)
          for (guint i = 0; i < f; i++)
            s += src[(gsize) (y * f + j) * w + (x * f + i)];
        dst[(gsize) y * nw + x] = (float) (s / (f * f));
      }
  *out_w = nw;
  *out_h = nh;
  return dst;
}

EfDataset *
ef_demo_simulate (GError **error)
{
  g_autofree float *bitmap = NULL;
  g_autofree float *small = NULL;
  g_autofree EfSimTarget *drawing = NULL;
  g_autoptr (GArray) targets = NULL;
  EfSimParams p;
  guint w = 0, h = 0, sw, sh, n_drawing = 0;
  EfDataset *dataset;

  ef_sim_params_init_airborne (&p);
  p.geometry = EF_SIM_CIRCULAR;
  p.domain = EF_DOMAIN_FX;
  p.n_samples = 512;
  p.n_pulses = 640;
  p.aperture_deg = 4.0;
  p.azimuth_deg = -90.0;
  p.snr_db = 5.0;
  p.seed = 20261121;

  targets = g_array_new (FALSE, FALSE, sizeof (EfSimTarget));
  bitmap = ef_sim_demo_bitmap (&w, &h);
  if (bitmap != NULL && w > 0 && h > 0)
    {
      small = shrink (bitmap, w, h, DRAWING_MAX_PIXELS, &sw, &sh);
      drawing = ef_sim_targets_from_bitmap (small, sw, sh, DRAWING_EDGE_M / MAX (sw, sh), 0.0, 0.0, 0.25f,
                                            p.seed, &n_drawing);
      if (drawing != NULL)
        g_array_append_vals (targets, drawing, n_drawing);
    }
  for (guint i = 0; i < G_N_ELEMENTS (point_targets); i++)
    {
      EfSimTarget t = { { point_targets[i][0], point_targets[i][1], 0.0 }, 3.0 };
      g_array_append_val (targets, t);
    }
  p.targets = (const EfSimTarget *) targets->data;
  p.n_targets = targets->len;

  dataset = ef_sim_run (&p, error);
  if (dataset != NULL)
    {
      g_free (dataset->info.source);
      dataset->info.source = g_strdup (_("Simulated demo"));
    }
  return dataset;
}

char *
ef_demo_find_file (void)
{
  const char *candidates[] = {
    g_getenv ("ECHOFORM_DEMO_FILE"),
    PKGDATADIR "/demo.cphd",
  };

  for (guint i = 0; i < G_N_ELEMENTS (candidates); i++)
    if (candidates[i] != NULL && *candidates[i] != '\0' && g_file_test (candidates[i], G_FILE_TEST_IS_REGULAR))
      return g_strdup (candidates[i]);
  return NULL;
}
