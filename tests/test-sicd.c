/* test-sicd.c: the SICD XML and writer through the engine's interface: grid, sub-apertures, bad inputs. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include <glib/gstdio.h>
#include <libxml/parser.h>
#include <libxml/xpath.h>
#include <libxml/xpathInternals.h>
#include <math.h>
#include <string.h>

#include "ef-error.h"
#include "ef-sicd.h"
#include "ef-test-scene.h"

static EfDataset *
scene (void)
{
  EfSimParams sp;
  EfSimTarget tg = { { 1.0, -0.5, 0 }, 1.0 };
  g_autoptr (GError) error = NULL;
  EfDataset *ds;

  ef_sim_params_init_airborne (&sp);
  sp.n_pulses = 128;
  sp.n_samples = 128;
  sp.targets = &tg;
  sp.n_targets = 1;
  ds = ef_sim_run (&sp, &error);
  g_assert_no_error (error);
  g_assert_true (ds->info.has_geo);
  return ds;
}

typedef struct {
  EfDataset  *ds;
  EfImage    *image;
  EfJobParams jp;
  EfRunInfo   run;
} Fixture;

static void
fixture_init (Fixture *f)
{
  EfGrid grid;

  f->ds = scene ();
  /* Not square, so that the SICD's turn of the axes shows. */
  g_assert_true (ef_grid_init_roi (&grid, -4, -3, 4, 3, 0.2, NULL));
  f->image = ef_image_new (&grid, NULL);
  for (gsize i = 0; i < ef_grid_n_pixels (&grid); i++)
    f->image->data[i] = (float) i + I * (float) (-(double) i);
  ef_job_params_init (&f->jp, &grid);
  ef_run_info_init (&f->run, EF_BACKEND_CPU, EF_ALGO_BP, EF_PRECISION_FP32);
}

static void
fixture_clear (Fixture *f)
{
  ef_dataset_unref (f->ds);
  ef_image_free (f->image);
  ef_run_info_clear (&f->run);
}

static double
xml_number (const char *xml, gsize len, const char *path)
{
  xmlDocPtr doc = xmlReadMemory (xml, (int) len, "sicd.xml", NULL, XML_PARSE_NONET);
  xmlXPathContextPtr ctx = xmlXPathNewContext (doc);
  g_autofree char *expr = g_strdup_printf ("number(%s)", path);
  xmlXPathObjectPtr o;
  double v;

  xmlXPathRegisterNs (ctx, (const xmlChar *) "s", (const xmlChar *) "urn:SICD:1.3.0");
  o = xmlXPathEvalExpression ((const xmlChar *) expr, ctx);
  v = o != NULL ? o->floatval : NAN;
  xmlXPathFreeObject (o);
  xmlXPathFreeContext (ctx);
  xmlFreeDoc (doc);
  return v;
}

/* The pixel order is a permutation of the region's, the sizes are the region's turned, and a region
 * formed from half the aperture states half the cross-range bandwidth. */
static void
test_xml (void)
{
  Fixture f;
  EfSicdSource src = { 0 };
  g_autoptr (GError) error = NULL;
  g_autofree char *xml = NULL;
  g_autofree char *half_xml = NULL;
  g_autofree guint64 *map = NULL;
  g_autofree guint8 *seen = NULL;
  gsize len = 0, half_len = 0, n;
  double rows, cols, bw, half_bw;

  fixture_init (&f);
  src.dataset = f.ds;
  src.image = f.image;
  src.params = &f.jp;
  src.run = &f.run;
  xml = ef_sicd_build_xml (&src, &len, &map, &error);
  g_assert_no_error (error);
  g_assert_nonnull (xml);
  rows = xml_number (xml, len, "/s:SICD/s:ImageData/s:NumRows");
  cols = xml_number (xml, len, "/s:SICD/s:ImageData/s:NumCols");
  g_assert_cmpfloat (rows * cols, ==, (double) ef_grid_n_pixels (&f.image->grid));
  /* The antenna is on +x: SICD's rows (away from it, along -x) run across the region's columns. */
  g_assert_cmpfloat (rows, ==, f.image->grid.width);
  n = ef_grid_n_pixels (&f.image->grid);
  seen = g_new0 (guint8, n);
  for (gsize k = 0; k < n; k++)
    {
      g_assert_cmpuint (map[k], <, n);
      g_assert_cmpuint (seen[map[k]], ==, 0);
      seen[map[k]] = 1;
    }
  bw = xml_number (xml, len, "/s:SICD/s:Grid/s:Col/s:ImpRespBW");

  f.jp.first_pulse = 32;
  f.jp.n_pulses = 64;
  half_xml = ef_sicd_build_xml (&src, &half_len, NULL, &error);
  g_assert_no_error (error);
  half_bw = xml_number (half_xml, half_len, "/s:SICD/s:Grid/s:Col/s:ImpRespBW");
  g_test_message ("cross-range bandwidth %.4f cycles/m, over the middle half of the pulses %.4f", bw, half_bw);
  /* 63 of 127 pulse intervals. */
  g_assert_cmpfloat (fabs (half_bw / bw - 63.0 / 127.0), <, 1e-3);
  g_assert_cmpfloat (xml_number (half_xml, half_len, "/s:SICD/s:ImageFormation/s:TStartProc"), >, 0);
  fixture_clear (&f);
}

static void
expect_failure (const EfSicdSource *src, const char *mention)
{
  g_autofree char *dir = g_dir_make_tmp ("echoform-sicd-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "x.nitf", NULL);
  g_autoptr (GError) error = NULL;
  g_autoptr (GDir) d = NULL;

  /* Without GDAL the writer refuses before anything else; the description fails the same way. */
  if (ef_sicd_available ())
    g_assert_false (ef_sicd_write (path, src, &error));
  else
    g_assert_null (ef_sicd_build_xml (src, NULL, NULL, &error));
  g_assert_nonnull (error);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, mention));
  d = g_dir_open (dir, 0, NULL);
  g_assert_null (g_dir_read_name (d));   /* nothing left behind */
  g_rmdir (dir);
}

/* No pulses, one pulse, no place on the Earth, a folder that is not there: clear errors, no file. */
static void
test_bad_inputs (void)
{
  Fixture f;
  EfSicdSource src = { 0 };

  fixture_init (&f);
  src.dataset = f.ds;
  src.image = f.image;
  src.params = &f.jp;
  src.run = &f.run;
  f.jp.first_pulse = 1000;
  expect_failure (&src, "0 pulses");
  f.jp.first_pulse = 5;
  f.jp.n_pulses = 1;
  expect_failure (&src, "1 pulse");
  f.jp.first_pulse = 0;
  f.jp.n_pulses = 0;
  f.ds->info.has_geo = FALSE;
  expect_failure (&src, "where on the Earth");
  f.ds->info.has_geo = TRUE;
  if (ef_sicd_available ())
    {
      g_autoptr (GError) error = NULL;

      g_assert_false (ef_sicd_write ("/nonexistent-echoform-folder/x.nitf", &src, &error));
      g_assert_error (error, EF_IO_ERROR, EF_IO_ERROR_FAILED);
      g_assert_false (g_file_test ("/nonexistent-echoform-folder", G_FILE_TEST_EXISTS));
    }
  fixture_clear (&f);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/compute/sicd/xml", test_xml);
  g_test_add_func ("/compute/sicd/bad-inputs", test_bad_inputs);
  return g_test_run ();
}
