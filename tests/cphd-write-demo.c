/* cphd-write-demo.c: writes small CPHD files and dumps what Echoform reads, for checks with other tools. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "cphd-write-demo"
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "ef-cphd.h"
#include "ef-dataset.h"
#include "ef-error.h"
#include "ef-json.h"
#include "ef-sim.h"
#include "cphd-testdata.h"

/* Writes BASE.samples (complex64, native byte order, pulse after pulse), BASE.pulses (13 float64 per
 * pulse: t, tx xyz, rcv xyz, r0, sc0, scss, fx1, fx2, 0) and BASE.json (the dataset's summary). */
static gboolean
dump (EfDataset *ds, const char *base, GError **error)
{
  g_autofree char *sp = g_strconcat (base, ".samples", NULL);
  g_autofree char *pp = g_strconcat (base, ".pulses", NULL);
  g_autofree char *jp = g_strconcat (base, ".json", NULL);
  g_autofree EfCf32 *samples = g_new (EfCf32, ds->info.n_pulses * ds->info.n_samples);
  g_autofree double *pulses = g_new0 (double, ds->info.n_pulses * 13);
  g_autoptr (JsonBuilder) b = json_builder_new ();
  g_autoptr (JsonNode) root = NULL;
  g_autofree char *json = NULL;

  if (!ef_dataset_read_block (ds, 0, (guint) ds->info.n_pulses, samples, error))
    return FALSE;
  for (guint64 p = 0; p < ds->info.n_pulses; p++)
    {
      const EfPulse *pu = &ds->pulses[p];
      double *d = pulses + 13 * p;
      d[0] = pu->t;
      memcpy (d + 1, pu->tx, 3 * sizeof (double));
      memcpy (d + 4, pu->rcv, 3 * sizeof (double));
      d[7] = pu->r0;
      d[8] = pu->sc0;
      d[9] = pu->scss;
      d[10] = pu->fx1;
      d[11] = pu->fx2;
    }
  json_builder_begin_object (b);
  ef_json_set_string (b, "domain", ef_domain_to_string (ds->info.domain));
  ef_json_set_int (b, "n_pulses", (gint64) ds->info.n_pulses);
  ef_json_set_int (b, "n_samples", (gint64) ds->info.n_samples);
  ef_json_set_double (b, "fc", ds->info.fc);
  ef_json_set_double (b, "bandwidth", ds->info.bandwidth);
  ef_json_set_doubles (b, "srp_llh", ds->info.srp_llh, 3);
  ef_json_set_doubles (b, "srp_ecf", ds->info.srp_ecf, 3);
  ef_json_set_int (b, "n_channels", ds->info.n_channels);
  ef_json_set_string (b, "source", ds->info.source != NULL ? ds->info.source : "");
  json_builder_end_object (b);
  root = json_builder_get_root (b);
  json = ef_json_to_text (root, TRUE);
  return g_file_set_contents (sp, (const char *) samples,
                              (gssize) (ds->info.n_pulses * ds->info.n_samples * sizeof (EfCf32)), error)
         && g_file_set_contents (pp, (const char *) pulses, (gssize) (ds->info.n_pulses * 13 * sizeof (double)), error)
         && g_file_set_contents (jp, json, -1, error);
}

typedef struct {
  const char  *name;
  EfDomain     domain;
  EfCphdFormat format;
  gboolean     bistatic;
  const char  *version;
} Demo;

static const Demo demos[] = {
  { "fx-cf8", EF_DOMAIN_FX, EF_CPHD_CF8, FALSE, "1.0.1" },
  { "fx-ci4", EF_DOMAIN_FX, EF_CPHD_CI4, FALSE, "1.0.1" },
  { "fx-ci2", EF_DOMAIN_FX, EF_CPHD_CI2, FALSE, "1.0.1" },
  { "toa-cf8", EF_DOMAIN_TOA, EF_CPHD_CF8, FALSE, "1.0.1" },
  { "bistatic-cf8", EF_DOMAIN_FX, EF_CPHD_CF8, TRUE, "1.0.1" },
  { "v110-ci4", EF_DOMAIN_FX, EF_CPHD_CI4, FALSE, "1.1.0" },
};

static int
do_write (const char *dir, GError **error)
{
  for (guint i = 0; i < G_N_ELEMENTS (demos); i++)
    {
      CphdTestSpec spec;
      g_autoptr (EfDataset) ds = NULL;
      g_autofree char *base = g_build_filename (dir, demos[i].name, NULL);
      g_autofree char *path = g_strconcat (base, ".cphd", NULL);
      g_autofree char *src = g_strconcat (base, ".src", NULL);
      EfCphdWriteOptions opts = { .format = demos[i].format, .version = demos[i].version };

      cphd_test_spec_init (&spec);
      spec.domain = demos[i].domain;
      spec.bistatic = demos[i].bistatic;
      spec.point_targets = TRUE;
      spec.n_pulses = 96;
      spec.n_samples = 160;
      spec.seed = 100 + i;
      ds = cphd_test_dataset (&spec);
      if (!ef_cphd_write (ds, path, &opts, error) || !dump (ds, src, error))
        return 1;
      printf ("%s\n", path);
    }

  /* The simulator's own collections: an airborne and a spaceborne spotlight. */
  for (int space = 0; space < 2; space++)
    {
      const EfSimTarget targets[] = { { { 0, 0, 0 }, 1.0 }, { { 6, -4, 0 }, 0.5 } };
      EfSimParams sp;
      g_autoptr (EfDataset) ds = NULL;
      g_autofree char *base = g_build_filename (dir, space ? "sim-spaceborne-ci4" : "sim-airborne-cf8", NULL);
      g_autofree char *path = g_strconcat (base, ".cphd", NULL);
      g_autofree char *src = g_strconcat (base, ".src", NULL);
      EfCphdWriteOptions opts = { .format = space ? EF_CPHD_CI4 : EF_CPHD_CF8 };

      if (space)
        ef_sim_params_init_spaceborne (&sp);
      else
        ef_sim_params_init_airborne (&sp);
      sp.n_pulses = 96;
      sp.n_samples = 160;
      sp.targets = targets;
      sp.n_targets = G_N_ELEMENTS (targets);
      sp.n_threads = 1;
      ds = ef_sim_run (&sp, error);
      if (ds == NULL || !ef_cphd_write (ds, path, &opts, error) || !dump (ds, src, error))
        return 1;
      printf ("%s\n", path);
    }
  return 0;
}

int
main (int argc, char **argv)
{
  g_autoptr (GError) error = NULL;
  int rc;

  if (argc == 3 && strcmp (argv[1], "write") == 0)
    rc = do_write (argv[2], &error);
  else if ((argc == 4 || argc == 5) && strcmp (argv[1], "read") == 0)
    {
      g_autoptr (EfDataset) ds = ef_cphd_open (argv[2], argc == 5 ? (guint) atoi (argv[4]) : 0, &error);
      rc = ds == NULL || !dump (ds, argv[3], &error);
    }
  else
    {
      fprintf (stderr, "usage: %s write DIR\n       %s read FILE.cphd OUTBASE [CHANNEL]\n", argv[0], argv[0]);
      return 2;
    }
  if (rc != 0)
    fprintf (stderr, "%s: %s\n", argv[0], error != NULL ? error->message : "failed");
  return rc;
}
