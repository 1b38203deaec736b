/* ef-demo.c: the demonstration scene: the bundled drawing and a few point targets, simulated. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-demo"
#include "config.h"

#include <glib/gi18n.h>
#include <math.h>

#include "ef-demo.h"
#include "ef-sim.h"

/* The same scene as `echoform-cli simulate --scene demo`: the airborne defaults, the bundled picture
 * at one resolution cell a pixel, and four bright points just outside it. The two must agree, so
 * that the file installed with the program and this fallback show the same thing. */
#define POINT_AMPLITUDE 10.0
#define PICTURE_THRESHOLD 0.02f

static double
demo_scale (const EfSimParams *p)
{
  double res_r = EF_C / (2.0 * p->bandwidth);
  double res_x = EF_C / p->fc / (2.0 * p->aperture_deg * G_PI / 180.0);

  return MAX (res_r, res_x);
}

static void
demo_params (EfSimParams *p)
{
  ef_sim_params_init_airborne (p);
}

#if EF_TEST_HOOKS
guint
ef_demo_get_n_point_targets (void)
{
  return 4;
}

void
ef_demo_get_point_target (guint i, double pos[3])
{
  EfSimParams p;
  g_autofree float *pixels = NULL;
  guint w = 0, h = 0;
  double scale;

  g_return_if_fail (i < 4);
  demo_params (&p);
  scale = demo_scale (&p);
  pixels = ef_sim_demo_bitmap (&w, &h);
  pos[0] = (i & 1 ? 1 : -1) * (0.5 * w * scale + 8 * scale);
  pos[1] = (i & 2 ? 1 : -1) * (0.5 * h * scale + 8 * scale);
  pos[2] = 0.0;
}
#endif

EfDataset *
ef_demo_simulate (GError **error)
{
  g_autofree float *pixels = NULL;
  g_autofree EfSimTarget *picture = NULL;
  g_autoptr (GArray) targets = g_array_new (FALSE, FALSE, sizeof (EfSimTarget));
  EfSimParams p;
  guint w = 0, h = 0, n_picture = 0;
  double scale;
  EfDataset *dataset;

  demo_params (&p);
  scale = demo_scale (&p);
  pixels = ef_sim_demo_bitmap (&w, &h);
  if (pixels != NULL && w > 0 && h > 0)
    {
      picture = ef_sim_targets_from_bitmap (pixels, w, h, scale, 0.0, 0.0, PICTURE_THRESHOLD, p.seed, &n_picture);
      if (picture != NULL)
        g_array_append_vals (targets, picture, n_picture);
    }
  for (int sx = -1; sx <= 1; sx += 2)
    for (int sy = -1; sy <= 1; sy += 2)
      {
        EfSimTarget t = { { sx * (0.5 * w * scale + 8 * scale), sy * (0.5 * h * scale + 8 * scale), 0.0 },
                          POINT_AMPLITUDE };
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

static char *demo_data_dir;   /* owned; NULL: PKGDATADIR */

void
ef_demo_set_data_dir (const char *dir)
{
  g_free (demo_data_dir);
  demo_data_dir = g_strdup (dir);
}

char *
ef_demo_find_file (void)
{
  const char *env = g_getenv ("ECHOFORM_DEMO_FILE");
  g_autofree char *installed = NULL;

  if (env != NULL)
    return *env != '\0' && g_file_test (env, G_FILE_TEST_IS_REGULAR) ? g_strdup (env) : NULL;
  installed = g_build_filename (demo_data_dir != NULL ? demo_data_dir : PKGDATADIR, "demo.cphd", NULL);
  return g_file_test (installed, G_FILE_TEST_IS_REGULAR) ? g_steal_pointer (&installed) : NULL;
}
