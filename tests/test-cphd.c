/* test-cphd.c: CPHD writing and reading: geodesy, round trips, and every kind of bad file. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "test-cphd"
#include "config.h"

#include <math.h>
#include <string.h>

#include <fcntl.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "ef-cphd.h"
#include "ef-dataset.h"
#include "ef-error.h"
#include "ef-job.h"
#include "ef-sim.h"
#include "cphd-testdata.h"

static char *tmp_dir;

static char *
tmp_file (const char *name)
{
  return g_build_filename (tmp_dir, name, NULL);
}

static double
dist3 (const double a[3], const double b[3])
{
  return sqrt ((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) + (a[2] - b[2]) * (a[2] - b[2]));
}

/* ---- geodesy ---- */

static void
test_geo_known (void)
{
  double ecf[3], llh[3];
  const double b = 6356752.314245179;

  ef_geo_llh_to_ecf ((double[3]) { 0, 0, 0 }, ecf);
  g_assert_cmpfloat_with_epsilon (ecf[0], 6378137.0, 1e-9);
  g_assert_cmpfloat_with_epsilon (ecf[1], 0, 1e-9);
  g_assert_cmpfloat_with_epsilon (ecf[2], 0, 1e-9);
  ef_geo_llh_to_ecf ((double[3]) { 90, 0, 0 }, ecf);
  g_assert_cmpfloat_with_epsilon (ecf[2], b, 1e-6);
  g_assert_cmpfloat_with_epsilon (hypot (ecf[0], ecf[1]), 0, 1e-6);
  ef_geo_llh_to_ecf ((double[3]) { 0, 90, 1000 }, ecf);
  g_assert_cmpfloat_with_epsilon (ecf[1], 6379137.0, 1e-9);

  ef_geo_ecf_to_llh ((double[3]) { 0, 0, b + 10 }, llh);
  g_assert_cmpfloat_with_epsilon (llh[0], 90, 1e-12);
  g_assert_cmpfloat_with_epsilon (llh[2], 10, 1e-6);
  ef_geo_ecf_to_llh ((double[3]) { 0, 0, -(b + 10) }, llh);
  g_assert_cmpfloat_with_epsilon (llh[0], -90, 1e-12);
  g_assert_cmpfloat_with_epsilon (llh[2], 10, 1e-6);
}

static void
test_geo_roundtrip (void)
{
  double worst_ecf = 0, worst_h = 0;

  for (int i = 0; i < 20000; i++)
    {
      double llh[3], ecf[3], llh2[3], ecf2[3];

      llh[0] = g_test_rand_double_range (-90, 90);
      llh[1] = g_test_rand_double_range (-180, 180);
      /* From the Dead Sea to beyond geostationary orbit. */
      llh[2] = i % 3 == 0 ? g_test_rand_double_range (-500, 10e3)
                          : (i % 3 == 1 ? g_test_rand_double_range (300e3, 1000e3) : g_test_rand_double_range (0, 40e6));
      if (i < 4)
        llh[0] = i < 2 ? 90 : -90; /* the poles exactly */
      ef_geo_llh_to_ecf (llh, ecf);
      ef_geo_ecf_to_llh (ecf, llh2);
      ef_geo_llh_to_ecf (llh2, ecf2);
      worst_ecf = MAX (worst_ecf, dist3 (ecf, ecf2));
      worst_h = MAX (worst_h, fabs (llh[2] - llh2[2]));
      g_assert_cmpfloat (fabs (llh[0] - llh2[0]) * 111e3, <, 1e-6);
    }
  g_test_message ("llh -> ecf -> llh -> ecf: worst %.3g m, height %.3g m", worst_ecf, worst_h);
  g_assert_cmpfloat (worst_ecf, <, 1e-6);
  g_assert_cmpfloat (worst_h, <, 1e-6);
}

static void
test_geo_enu (void)
{
  double worst = 0;

  for (int i = 0; i < 2000; i++)
    {
      double ref_llh[3] = { g_test_rand_double_range (-89, 89), g_test_rand_double_range (-180, 180),
                            g_test_rand_double_range (-100, 3000) };
      double ref_ecf[3], enu[3], ecf[3], enu2[3], dir[3], dir_ecf[3], dir2[3], llh[3];

      ef_geo_llh_to_ecf (ref_llh, ref_ecf);
      for (int k = 0; k < 3; k++)
        enu[k] = g_test_rand_double_range (-50e3, 50e3);
      ef_geo_enu_to_ecf (ref_ecf, ref_llh, enu, ecf);
      ef_geo_ecf_to_enu (ref_ecf, ref_llh, ecf, enu2);
      worst = MAX (worst, dist3 (enu, enu2));

      /* Directions: a rotation keeps lengths and round-trips. */
      for (int k = 0; k < 3; k++)
        dir[k] = g_test_rand_double_range (-200, 200);
      ef_geo_enu_to_ecf_dir (ref_llh, dir, dir_ecf);
      ef_geo_ecf_to_enu_dir (ref_llh, dir_ecf, dir2);
      g_assert_cmpfloat (dist3 (dir, dir2), <, 1e-9);
      g_assert_cmpfloat_with_epsilon (sqrt (dir[0] * dir[0] + dir[1] * dir[1] + dir[2] * dir[2]),
                                      sqrt (dir_ecf[0] * dir_ecf[0] + dir_ecf[1] * dir_ecf[1] + dir_ecf[2] * dir_ecf[2]),
                                      1e-9);

      /* Up is the ellipsoid normal: 100 m up raises the height by 100 m and keeps lat/lon. */
      ef_geo_enu_to_ecf (ref_ecf, ref_llh, (double[3]) { 0, 0, 100 }, ecf);
      ef_geo_ecf_to_llh (ecf, llh);
      g_assert_cmpfloat_with_epsilon (llh[2], ref_llh[2] + 100, 1e-6);
      g_assert_cmpfloat_with_epsilon (llh[0], ref_llh[0], 1e-10);
      /* North raises the latitude, east the longitude. */
      ef_geo_enu_to_ecf (ref_ecf, ref_llh, (double[3]) { 0, 10, 0 }, ecf);
      ef_geo_ecf_to_llh (ecf, llh);
      g_assert_cmpfloat (llh[0], >, ref_llh[0]);
      ef_geo_enu_to_ecf (ref_ecf, ref_llh, (double[3]) { 10, 0, 0 }, ecf);
      ef_geo_ecf_to_llh (ecf, llh);
      g_assert_cmpfloat (remainder (llh[1] - ref_llh[1], 360.0), >, 0);
    }
  g_test_message ("enu -> ecf -> enu over +-50 km: worst %.3g m", worst);
  g_assert_cmpfloat (worst, <, 1e-6);
}

/* ---- round trips ---- */

static EfDataset *
open_ok (const char *path, guint channel)
{
  g_autoptr (GError) error = NULL;
  EfDataset *ds = ef_cphd_open (path, channel, &error);

  g_assert_no_error (error);
  g_assert_nonnull (ds);
  return ds;
}

static EfCf32 *
read_all (EfDataset *ds)
{
  g_autoptr (GError) error = NULL;
  EfCf32 *out = g_new (EfCf32, ds->info.n_pulses * ds->info.n_samples);

  /* Poison first so that a sample the reader forgets to write shows up. */
  memset (out, 0xA5, ds->info.n_pulses * ds->info.n_samples * sizeof (EfCf32));
  /* Two uneven blocks, to exercise offsets. */
  g_assert_true (ef_dataset_read_block (ds, 0, 3, out, &error));
  g_assert_true (ef_dataset_read_block (ds, 3, (guint) ds->info.n_pulses - 3, out + 3 * ds->info.n_samples, &error));
  g_assert_no_error (error);
  return out;
}

static void
check_pulses (EfDataset *a, EfDataset *b)
{
  double worst = 0;

  g_assert_cmpuint (a->info.n_pulses, ==, b->info.n_pulses);
  for (guint64 p = 0; p < a->info.n_pulses; p++)
    {
      const EfPulse *x = &a->pulses[p], *y = &b->pulses[p];

      worst = MAX (worst, dist3 (x->tx, y->tx));
      worst = MAX (worst, dist3 (x->rcv, y->rcv));
      g_assert_cmpfloat (fabs (x->r0 - y->r0), <, 1e-6);
      /* Frequencies and times are stored as written: exact. */
      g_assert_cmpfloat (x->sc0, ==, y->sc0);
      g_assert_cmpfloat (x->scss, ==, y->scss);
      g_assert_cmpfloat (x->fx1, ==, y->fx1);
      g_assert_cmpfloat (x->fx2, ==, y->fx2);
      g_assert_cmpfloat (x->t, ==, y->t);
    }
  g_test_message ("worst position error after the ECF round trip: %.3g m", worst);
  g_assert_cmpfloat (worst, <, 1e-6);
}

static void
roundtrip (const CphdTestSpec *spec, EfCphdFormat format, const char *version)
{
  g_autoptr (EfDataset) src = cphd_test_dataset (spec);
  g_autoptr (EfDataset) back = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *path = tmp_file ("roundtrip.cphd");
  g_autofree EfCf32 *got = NULL;
  g_autofree char *want_source = g_strdup_printf ("CPHD %s", version != NULL ? version : "1.0.1");
  const EfCf32 *want = ef_dataset_memory_samples (src);
  EfCphdWriteOptions opts = { .format = format, .version = version };
  guint64 ns = spec->n_samples;

  g_assert_true (ef_cphd_write (src, path, &opts, &error));
  g_assert_no_error (error);
  back = open_ok (path, 0);

  g_assert_cmpint (back->info.domain, ==, spec->domain);
  g_assert_cmpuint (back->info.n_pulses, ==, spec->n_pulses);
  g_assert_cmpuint (back->info.n_samples, ==, spec->n_samples);
  g_assert_true (back->info.has_geo);
  g_assert_cmpfloat (dist3 (back->info.srp_ecf, src->info.srp_ecf), <, 1e-9);
  g_assert_cmpfloat_with_epsilon (back->info.srp_llh[0], spec->lat, 1e-10);
  g_assert_cmpfloat_with_epsilon (back->info.srp_llh[1], spec->lon, 1e-10);
  g_assert_cmpfloat_with_epsilon (back->info.srp_llh[2], spec->height, 1e-6);
  g_assert_cmpstr (back->info.source, ==, want_source);
  g_assert_cmpstr (back->info.path, ==, path);
  g_assert_cmpuint (back->info.n_channels, ==, 1);
  g_assert_nonnull (back->info.channel_names);
  g_assert_cmpstr (back->info.channel_names[0], ==, "1");
  g_assert_null (back->info.channel_names[1]);
  {
    double fx1 = src->pulses[0].fx1, fx2 = src->pulses[0].fx2;
    g_assert_cmpfloat_with_epsilon (back->info.fc, 0.5 * (fx1 + fx2), 1e-3);
    g_assert_cmpfloat_with_epsilon (back->info.bandwidth, fx2 - fx1, 1e-3);
  }
  check_pulses (src, back);

  got = read_all (back);
  if (format == EF_CPHD_CF8)
    g_assert_cmpmem (got, ns * spec->n_pulses * sizeof (EfCf32), want, ns * spec->n_pulses * sizeof (EfCf32));
  else
    {
      double full = format == EF_CPHD_CI4 ? 32767.0 : 127.0, worst = 0;

      for (guint64 p = 0; p < spec->n_pulses; p++)
        {
          double peak = 0, step;
          for (guint64 k = 0; k < ns; k++)
            peak = MAX (peak, MAX (fabs (crealf (want[p * ns + k])), fabs (cimagf (want[p * ns + k]))));
          step = peak / full;
          for (guint64 k = 0; k < ns; k++)
            {
              double er = fabs (crealf (got[p * ns + k]) - crealf (want[p * ns + k]));
              double ei = fabs (cimagf (got[p * ns + k]) - cimagf (want[p * ns + k]));
              /* Half a quantisation step, plus float rounding of the scaled value. */
              g_assert_cmpfloat (er, <=, 0.5 * step * (1 + 1e-5) + 1e-6 * peak);
              g_assert_cmpfloat (ei, <=, 0.5 * step * (1 + 1e-5) + 1e-6 * peak);
              worst = MAX (worst, MAX (er, ei) / step);
            }
        }
      g_test_message ("worst quantisation error: %.3f steps", worst);
    }
}

static void
test_roundtrip_cf8 (void)
{
  CphdTestSpec s;
  cphd_test_spec_init (&s);
  s.seed = g_test_rand_int ();
  roundtrip (&s, EF_CPHD_CF8, NULL);
}

static void
test_roundtrip_ci4 (void)
{
  CphdTestSpec s;
  cphd_test_spec_init (&s);
  s.seed = g_test_rand_int ();
  roundtrip (&s, EF_CPHD_CI4, NULL);
}

static void
test_roundtrip_ci2 (void)
{
  CphdTestSpec s;
  cphd_test_spec_init (&s);
  s.seed = g_test_rand_int ();
  roundtrip (&s, EF_CPHD_CI2, NULL);
}

static void
test_roundtrip_toa (void)
{
  CphdTestSpec s;
  cphd_test_spec_init (&s);
  s.domain = EF_DOMAIN_TOA;
  s.seed = g_test_rand_int ();
  roundtrip (&s, EF_CPHD_CF8, NULL);
}

static void
test_roundtrip_bistatic (void)
{
  CphdTestSpec s;
  cphd_test_spec_init (&s);
  s.bistatic = TRUE;
  s.seed = g_test_rand_int ();
  roundtrip (&s, EF_CPHD_CF8, NULL);
}

static void
test_roundtrip_v110 (void)
{
  CphdTestSpec s;
  cphd_test_spec_init (&s);
  s.seed = g_test_rand_int ();
  roundtrip (&s, EF_CPHD_CI4, "1.1.0");
}

static void
test_roundtrip_places (void)
{
  /* Near a pole, across the antimeridian, below sea level, high up. */
  const double places[][3] = { { 89.9, 10, 0 }, { -89.5, -170, 2800 }, { 0.1, 179.99, -400 }, { -33.9, 151.2, 4000 } };

  for (guint i = 0; i < G_N_ELEMENTS (places); i++)
    {
      CphdTestSpec s;
      cphd_test_spec_init (&s);
      s.lat = places[i][0];
      s.lon = places[i][1];
      s.height = places[i][2];
      s.n_pulses = 8;
      s.n_samples = 16;
      s.seed = g_test_rand_int ();
      roundtrip (&s, EF_CPHD_CF8, NULL);
    }
}

static void
test_roundtrip_sim (void)
{
  /* The simulator's collections, airborne at 10 km and spaceborne at 700 km, through CF8. */
  for (int space = 0; space < 2; space++)
    {
      const EfSimTarget targets[] = { { { 0, 0, 0 }, 1.0 }, { { 3, -2, 0 }, 0.7 } };
      EfSimParams sp;
      g_autoptr (EfDataset) src = NULL;
      g_autoptr (EfDataset) back = NULL;
      g_autoptr (GError) error = NULL;
      g_autofree char *path = tmp_file ("sim.cphd");
      g_autofree EfCf32 *got = NULL;

      if (space)
        ef_sim_params_init_spaceborne (&sp);
      else
        ef_sim_params_init_airborne (&sp);
      sp.n_pulses = 48;
      sp.n_samples = 64;
      sp.targets = targets;
      sp.n_targets = G_N_ELEMENTS (targets);
      sp.seed = g_test_rand_int ();
      src = ef_sim_run (&sp, &error);
      g_assert_no_error (error);
      g_assert_true (ef_cphd_write (src, path, NULL, &error));
      g_assert_no_error (error);
      back = open_ok (path, 0);
      check_pulses (src, back);
      got = read_all (back);
      g_assert_cmpmem (got, 48 * 64 * sizeof (EfCf32), ef_dataset_memory_samples (src), 48 * 64 * sizeof (EfCf32));
    }
}

/* ---- taking a file apart and putting it back together, for the corruption tests ---- */

typedef struct {
  GString    *xml;
  GByteArray *pvp, *sig, *sup;  /* sup may be NULL */
} Parts;

static guint64
header_value (const char *header, const char *key)
{
  g_autofree char *pat = g_strdup_printf ("\n%s := ", key);
  const char *at = strstr (header, pat);

  g_assert_nonnull (at);
  return g_ascii_strtoull (at + strlen (pat), NULL, 10);
}

static Parts *
parts_load (const char *path)
{
  g_autofree char *data = NULL;
  gsize len = 0;
  g_autofree char *header = NULL;
  Parts *p = g_new0 (Parts, 1);
  const char *end;
  guint64 xo, xs, po, ps, so, ss;

  g_assert_true (g_file_get_contents (path, &data, &len, NULL));
  end = strstr (data, "\f\n");
  g_assert_nonnull (end);
  header = g_strndup (data, (gsize) (end - data));
  xo = header_value (header, "XML_BLOCK_BYTE_OFFSET");
  xs = header_value (header, "XML_BLOCK_SIZE");
  po = header_value (header, "PVP_BLOCK_BYTE_OFFSET");
  ps = header_value (header, "PVP_BLOCK_SIZE");
  so = header_value (header, "SIGNAL_BLOCK_BYTE_OFFSET");
  ss = header_value (header, "SIGNAL_BLOCK_SIZE");
  g_assert_cmpuint (so + ss, ==, len);
  p->xml = g_string_new_len (data + xo, (gssize) xs);
  p->pvp = g_byte_array_new ();
  g_byte_array_append (p->pvp, (const guint8 *) data + po, (guint) ps);
  p->sig = g_byte_array_new ();
  g_byte_array_append (p->sig, (const guint8 *) data + so, (guint) ss);
  return p;
}

static void
parts_free (Parts *p)
{
  g_string_free (p->xml, TRUE);
  g_byte_array_unref (p->pvp);
  g_byte_array_unref (p->sig);
  if (p->sup != NULL)
    g_byte_array_unref (p->sup);
  g_free (p);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Parts, parts_free)

/* overrides: "KEY=VALUE" replaces a key's value, "KEY=" drops the key, "+LINE" adds a raw line. The
 * header gets a generous 4 KiB so that a lying value never overlaps the XML. */
static void
parts_save_full (const Parts *p, const char *path, const char *first_line, const char *const *overrides)
{
  const guint64 xo = 4096;
  guint64 so_sup = 0, po, so;
  GString *h = g_string_new (first_line != NULL ? first_line : "CPHD/1.0.1\n");
  GByteArray *f = g_byte_array_new ();
  char kv[8][2][64];
  guint nkv = 0;

  po = xo + p->xml->len + 2;
  if (p->sup != NULL)
    {
      so_sup = (po + 63) / 64 * 64;
      po = so_sup + p->sup->len;
    }
  po = (po + 63) / 64 * 64;
  so = (po + p->pvp->len + 63) / 64 * 64;

#define KV(k, v) (g_strlcpy (kv[nkv][0], k, 64), g_snprintf (kv[nkv][1], 64, "%" G_GUINT64_FORMAT, (guint64) (v)), nkv++)
  KV ("XML_BLOCK_SIZE", p->xml->len);
  KV ("XML_BLOCK_BYTE_OFFSET", xo);
  if (p->sup != NULL)
    {
      KV ("SUPPORT_BLOCK_SIZE", p->sup->len);
      KV ("SUPPORT_BLOCK_BYTE_OFFSET", so_sup);
    }
  KV ("PVP_BLOCK_SIZE", p->pvp->len);
  KV ("PVP_BLOCK_BYTE_OFFSET", po);
  KV ("SIGNAL_BLOCK_SIZE", p->sig->len);
  KV ("SIGNAL_BLOCK_BYTE_OFFSET", so);
#undef KV
  for (guint i = 0; i < nkv; i++)
    {
      const char *value = kv[i][1];
      gboolean drop = FALSE;

      for (guint j = 0; overrides != NULL && overrides[j] != NULL; j++)
        {
          gsize kl = strlen (kv[i][0]);
          if (strncmp (overrides[j], kv[i][0], kl) == 0 && overrides[j][kl] == '=')
            {
              value = overrides[j] + kl + 1;
              drop = value[0] == '\0';
            }
        }
      if (!drop)
        g_string_append_printf (h, "%s := %s\n", kv[i][0], value);
    }
  g_string_append (h, "CLASSIFICATION := UNCLASSIFIED\nRELEASE_INFO := UNRESTRICTED\n");
  for (guint j = 0; overrides != NULL && overrides[j] != NULL; j++)
    if (overrides[j][0] == '+')
      g_string_append_printf (h, "%s\n", overrides[j] + 1);
  g_string_append (h, "\f\n");
  g_assert_cmpuint (h->len, <=, xo);

  g_byte_array_set_size (f, (guint) (so + p->sig->len));
  memset (f->data, 0, f->len);
  memcpy (f->data, h->str, h->len);
  memcpy (f->data + xo, p->xml->str, p->xml->len);
  memcpy (f->data + xo + p->xml->len, "\f\n", 2);
  if (p->sup != NULL)
    memcpy (f->data + so_sup, p->sup->data, p->sup->len);
  memcpy (f->data + po, p->pvp->data, p->pvp->len);
  memcpy (f->data + so, p->sig->data, p->sig->len);
  g_assert_true (g_file_set_contents (path, (const char *) f->data, f->len, NULL));
  g_byte_array_unref (f);
  g_string_free (h, TRUE);
}

static void
parts_save (const Parts *p, const char *path)
{
  parts_save_full (p, path, NULL, NULL);
}

static void
xml_replace (Parts *p, const char *pattern, const char *replacement)
{
  g_autoptr (GRegex) re = g_regex_new (pattern, G_REGEX_DOTALL, 0, NULL);
  g_autofree char *out = NULL;

  g_assert_nonnull (re);
  g_assert_true (g_regex_match (re, p->xml->str, 0, NULL));
  out = g_regex_replace (re, p->xml->str, -1, 0, replacement, G_REGEX_MATCH_NOTEMPTY, NULL);
  g_string_assign (p->xml, out);
}

static guint
pvp_word (const Parts *p, const char *name)
{
  g_autofree char *pat = g_strdup_printf ("<%s>\\s*<Offset>(\\d+)</Offset>", name);
  g_autoptr (GRegex) re = g_regex_new (pat, 0, 0, NULL);
  g_autoptr (GMatchInfo) mi = NULL;
  g_autofree char *num = NULL;

  g_assert_true (g_regex_match (re, p->xml->str, 0, &mi));
  num = g_match_info_fetch (mi, 1);
  return (guint) atoi (num);
}

static guint
pvp_record_bytes (const Parts *p)
{
  g_autoptr (GRegex) re = g_regex_new ("<NumBytesPVP>(\\d+)</NumBytesPVP>", 0, 0, NULL);
  g_autoptr (GMatchInfo) mi = NULL;
  g_autofree char *num = NULL;

  g_assert_true (g_regex_match (re, p->xml->str, 0, &mi));
  num = g_match_info_fetch (mi, 1);
  return (guint) atoi (num);
}

static void
pvp_set (Parts *p, guint vector, const char *name, guint component, double value)
{
  guint64 bits;
  guint off = vector * pvp_record_bytes (p) + 8 * (pvp_word (p, name) + component);

  memcpy (&bits, &value, 8);
  bits = GUINT64_TO_BE (bits);
  g_assert_cmpuint (off + 8, <=, p->pvp->len);
  memcpy (p->pvp->data + off, &bits, 8);
}

static char *
write_valid (const char *name, EfCphdFormat format, guint32 seed)
{
  CphdTestSpec s;
  g_autoptr (EfDataset) ds = NULL;
  g_autoptr (GError) error = NULL;
  EfCphdWriteOptions opts = { .format = format };
  char *path = tmp_file (name);

  cphd_test_spec_init (&s);
  s.n_pulses = 16;
  s.n_samples = 32;
  s.seed = seed;
  ds = cphd_test_dataset (&s);
  g_assert_true (ef_cphd_write (ds, path, &opts, &error));
  g_assert_no_error (error);
  return path;
}

static Parts *
valid_parts (void)
{
  g_autofree char *path = write_valid ("valid.cphd", EF_CPHD_CF8, 7);
  return parts_load (path);
}

/* Opens path and checks the error: its code and a phrase that names the problem. */
static void
expect_error_ch (const char *path, guint channel, gint code, const char *phrase)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (EfDataset) ds = ef_cphd_open (path, channel, &error);

  g_assert_null (ds);
  g_assert_nonnull (error);
  g_test_message ("error: %s", error->message);
  g_assert_error (error, EF_IO_ERROR, code);
  /* phrase may list alternatives: "one|other". */
  {
    g_auto (GStrv) alts = g_strsplit (phrase, "|", -1);
    gboolean found = FALSE;
    for (guint i = 0; alts[i] != NULL; i++)
      found |= strstr (error->message, alts[i]) != NULL;
    if (!found)
      g_error ("expected \"%s\" in \"%s\"", phrase, error->message);
  }
}

static void
expect_error (const char *path, gint code, const char *phrase)
{
  expect_error_ch (path, 0, code, phrase);
}

static void
save_and_expect (Parts *p, gint code, const char *phrase)
{
  g_autofree char *path = tmp_file ("bad.cphd");
  parts_save (p, path);
  expect_error (path, code, phrase);
}

static void
header_and_expect (const char *first_line, const char *const *overrides, gint code, const char *phrase)
{
  g_autoptr (Parts) p = valid_parts ();
  g_autofree char *path = tmp_file ("bad.cphd");

  parts_save_full (p, path, first_line, overrides);
  expect_error (path, code, phrase);
}

/* ---- the reader on files made valid in other ways ---- */

static void
test_parts_identity (void)
{
  /* The harness itself: a file taken apart and reassembled with other offsets still reads the same. */
  g_autoptr (Parts) p = valid_parts ();
  g_autofree char *orig = tmp_file ("valid.cphd");
  g_autofree char *path = tmp_file ("reassembled.cphd");
  g_autoptr (EfDataset) a = NULL;
  g_autoptr (EfDataset) b = NULL;
  g_autofree EfCf32 *sa = NULL;
  g_autofree EfCf32 *sb = NULL;

  parts_save (p, path);
  a = open_ok (orig, 0);
  b = open_ok (path, 0);
  check_pulses (a, b);
  sa = read_all (a);
  sb = read_all (b);
  g_assert_cmpmem (sa, a->info.n_pulses * a->info.n_samples * 8, sb, b->info.n_pulses * b->info.n_samples * 8);
}

static void
test_sgn_plus (void)
{
  g_autoptr (Parts) p = valid_parts ();
  g_autofree char *orig = tmp_file ("valid.cphd");
  g_autofree char *path = tmp_file ("sgn.cphd");
  g_autoptr (EfDataset) a = open_ok (orig, 0);
  g_autoptr (EfDataset) b = NULL;
  g_autofree EfCf32 *sa = read_all (a);
  g_autofree EfCf32 *sb = NULL;

  /* SGN = +1 means phase = +fx dTOA: the conjugate of Echoform's convention. */
  xml_replace (p, "<SGN>-1</SGN>", "<SGN>+1</SGN>");
  parts_save (p, path);
  b = open_ok (path, 0);
  sb = read_all (b);
  for (guint64 i = 0; i < a->info.n_pulses * a->info.n_samples; i++)
    {
      g_assert_cmpfloat (crealf (sb[i]), ==, crealf (sa[i]));
      g_assert_cmpfloat (cimagf (sb[i]), ==, -cimagf (sa[i]));
    }
}

static void
test_channels (void)
{
  g_autofree char *pa = write_valid ("chan-a.cphd", EF_CPHD_CF8, 11);
  g_autofree char *pb = write_valid ("chan-b.cphd", EF_CPHD_CF8, 12);
  g_autofree char *path = tmp_file ("two-channels.cphd");
  g_autoptr (Parts) a = parts_load (pa);
  g_autoptr (Parts) b = parts_load (pb);
  g_autoptr (GRegex) re = g_regex_new ("<Parameters>.*</Parameters>", G_REGEX_DOTALL, 0, NULL);
  g_autoptr (GMatchInfo) mi = NULL;
  g_autofree char *params = NULL;
  g_autofree char *params2 = NULL;
  g_autofree char *data_ch = NULL;
  g_autoptr (EfDataset) d0 = NULL;
  g_autoptr (EfDataset) d1 = NULL;
  g_autoptr (EfDataset) db = NULL;
  g_autofree EfCf32 *s1 = NULL;
  g_autofree EfCf32 *sb = NULL;

  /* Channel "HV" is b's data after a's, in both blocks. */
  g_assert_true (g_regex_match (re, a->xml->str, 0, &mi));
  params = g_match_info_fetch (mi, 0);
  {
    g_autoptr (GRegex) id = g_regex_new ("<Identifier>1</Identifier>", 0, 0, NULL);
    params2 = g_regex_replace_literal (id, params, -1, 0, "<Identifier>HV</Identifier>", 0, NULL);
  }
  data_ch = g_strdup_printf ("<Channel><Identifier>HV</Identifier><NumVectors>16</NumVectors>"
                             "<NumSamples>32</NumSamples><SignalArrayByteOffset>%u</SignalArrayByteOffset>"
                             "<PVPArrayByteOffset>%u</PVPArrayByteOffset></Channel><NumSupportArrays>",
                             a->sig->len, a->pvp->len);
  xml_replace (a, "<NumCPHDChannels>1</NumCPHDChannels>", "<NumCPHDChannels>2</NumCPHDChannels>");
  xml_replace (a, "<NumSupportArrays>", data_ch);
  {
    g_autofree char *both = g_strconcat (params, params2, NULL);
    g_autoptr (GRegex) r2 = g_regex_new ("<Parameters>.*</Parameters>", G_REGEX_DOTALL, 0, NULL);
    g_autofree char *out = g_regex_replace_literal (r2, a->xml->str, -1, 0, both, 0, NULL);
    g_string_assign (a->xml, out);
  }
  g_byte_array_append (a->pvp, b->pvp->data, b->pvp->len);
  g_byte_array_append (a->sig, b->sig->data, b->sig->len);
  parts_save (a, path);

  d0 = open_ok (path, 0);
  d1 = open_ok (path, 1);
  db = open_ok (pb, 0);
  g_assert_cmpuint (d1->info.n_channels, ==, 2);
  g_assert_cmpuint (d1->info.channel, ==, 1);
  g_assert_cmpstr (d1->info.channel_names[0], ==, "1");
  g_assert_cmpstr (d1->info.channel_names[1], ==, "HV");
  g_assert_null (d1->info.channel_names[2]);
  s1 = read_all (d1);
  sb = read_all (db);
  g_assert_cmpmem (s1, 16 * 32 * 8, sb, 16 * 32 * 8);
  check_pulses (d1, db);
  expect_error_ch (path, 2, EF_IO_ERROR_INVALID_DATA, "no channel 2");
}

static void
test_support_and_added_pvp (void)
{
  g_autoptr (Parts) p = valid_parts ();
  g_autofree char *orig = tmp_file ("valid.cphd");
  g_autofree char *path = tmp_file ("extras.cphd");
  guint rec = pvp_record_bytes (p), n = p->pvp->len / rec;
  GByteArray *wide = g_byte_array_new ();
  g_autofree char *nb = g_strdup_printf ("<NumBytesPVP>%u</NumBytesPVP>", rec + 8);
  g_autofree char *added = g_strdup_printf ("<AddedPVP><Name>Extra</Name><Offset>%u</Offset><Size>1</Size>"
                                            "<Format>F8</Format></AddedPVP></PVP>"
                                            "<SupportArray><IAZArray><Identifier>iaz</Identifier>"
                                            "<ElementFormat>IAZ=F4;</ElementFormat><X0>0</X0><Y0>0</Y0>"
                                            "<XSS>1</XSS><YSS>1</YSS></IAZArray></SupportArray>", rec / 8);
  g_autoptr (EfDataset) a = open_ok (orig, 0);
  g_autoptr (EfDataset) b = NULL;
  g_autofree EfCf32 *sa = read_all (a);
  g_autofree EfCf32 *sb = NULL;

  /* Each record gets an extra word of its own; a 2 x 2 support array of floats sits before the PVPs. */
  for (guint v = 0; v < n; v++)
    {
      const guint8 extra[8] = { 0x40, 0x09, 0x21, 0xfb, 0x54, 0x44, 0x2d, 0x18 };
      g_byte_array_append (wide, p->pvp->data + v * rec, rec);
      g_byte_array_append (wide, extra, 8);
    }
  g_byte_array_unref (p->pvp);
  p->pvp = wide;
  xml_replace (p, "<NumBytesPVP>\\d+</NumBytesPVP>", nb);
  xml_replace (p, "</PVP>", added);
  xml_replace (p, "<NumSupportArrays>0</NumSupportArrays>",
               "<NumSupportArrays>1</NumSupportArrays><SupportArray><Identifier>iaz</Identifier><NumRows>2</NumRows>"
               "<NumCols>2</NumCols><BytesPerElement>4</BytesPerElement><ArrayByteOffset>0</ArrayByteOffset>"
               "</SupportArray>");
  p->sup = g_byte_array_new ();
  g_byte_array_set_size (p->sup, 16);
  memset (p->sup->data, 0, 16);
  parts_save (p, path);

  b = open_ok (path, 0);
  check_pulses (a, b);
  sb = read_all (b);
  g_assert_cmpmem (sa, 16 * 32 * 8, sb, 16 * 32 * 8);
}

static void
test_nan_samples (void)
{
  g_autoptr (Parts) p = valid_parts ();
  g_autofree char *path = tmp_file ("nan-samples.cphd");
  g_autoptr (EfDataset) ds = NULL;
  g_autofree EfCf32 *s = NULL;
  const guint8 qnan[4] = { 0x7f, 0xc0, 0x00, 0x00 };

  /* Vector 2, sample 5, real part; vector 9, sample 0, imaginary part. */
  memcpy (p->sig->data + (2 * 32 + 5) * 8, qnan, 4);
  memcpy (p->sig->data + (9 * 32 + 0) * 8 + 4, qnan, 4);
  parts_save (p, path);
  ds = open_ok (path, 0);
  s = read_all (ds);
  g_assert_true (isnan (crealf (s[2 * 32 + 5])));
  g_assert_false (isnan (cimagf (s[2 * 32 + 5])));
  g_assert_true (isnan (cimagf (s[9 * 32])));
  g_assert_false (isnan (crealf (s[9 * 32])));
  g_assert_false (isnan (crealf (s[9 * 32 + 1])));
}

static void
test_sniff (void)
{
  g_assert_true (ef_cphd_sniff ((const guint8 *) "CPHD/1.0.1\nXML", 14));
  g_assert_true (ef_cphd_sniff ((const guint8 *) "CPHD/1.1.0\n", 11));
  g_assert_false (ef_cphd_sniff ((const guint8 *) "CPHD/", 5));
  g_assert_false (ef_cphd_sniff ((const guint8 *) "SICD/1.0", 8));
  g_assert_false (ef_cphd_sniff ((const guint8 *) "\x89HDF\r\n", 6));
  g_assert_false (ef_cphd_sniff ((const guint8 *) "", 0));
}

/* ---- the bad-input table ---- */

static void
test_bad_missing_file (void)
{
  g_autofree char *path = tmp_file ("does-not-exist.cphd");
  expect_error (path, EF_IO_ERROR_FAILED, "Could not open");
}

static void
test_bad_empty (void)
{
  g_autofree char *path = tmp_file ("empty.cphd");
  g_assert_true (g_file_set_contents (path, "", 0, NULL));
  expect_error (path, EF_IO_ERROR_FORMAT, "empty");
}

static void
test_bad_not_cphd (void)
{
  g_autofree char *path = tmp_file ("not.cphd");
  g_assert_true (g_file_set_contents (path, "SICD/1.3.0\nhello\n", -1, NULL));
  expect_error (path, EF_IO_ERROR_FORMAT, "Not a CPHD file");
}

static void
test_bad_version (void)
{
  header_and_expect ("CPHD/0.3\n", NULL, EF_IO_ERROR_UNSUPPORTED, "version 0.3");
}

static void
test_bad_truncated (void)
{
  g_autofree char *path = write_valid ("trunc.cphd", EF_CPHD_CF8, 3);
  g_autofree char *data = NULL;
  gsize len;

  g_assert_true (g_file_get_contents (path, &data, &len, NULL));
  g_assert_true (g_file_set_contents (path, data, (gssize) (len - len / 5), NULL));
  expect_error (path, EF_IO_ERROR_TRUNCATED, "signal block");
  expect_error (path, EF_IO_ERROR_TRUNCATED, "truncated");
  /* Cut inside the header. */
  g_assert_true (g_file_set_contents (path, data, 100, NULL));
  expect_error (path, EF_IO_ERROR_TRUNCATED, "inside its CPHD header");
}

static void
test_bad_header_offset (void)
{
  const char *o[] = { "SIGNAL_BLOCK_BYTE_OFFSET=1000000000000000", NULL };
  header_and_expect (NULL, o, EF_IO_ERROR_TRUNCATED, "signal block");
}

static void
test_bad_header_size (void)
{
  const char *o[] = { "PVP_BLOCK_SIZE=9223372036854775808", NULL };
  header_and_expect (NULL, o, EF_IO_ERROR_TRUNCATED, "PVP block");
}

static void
test_bad_header_overflow (void)
{
  /* offset + size wraps around 2^64; a naive check would pass it. */
  const char *o[] = { "XML_BLOCK_BYTE_OFFSET=18446744073709551615", "XML_BLOCK_SIZE=2", NULL };
  header_and_expect (NULL, o, EF_IO_ERROR_TRUNCATED, "XML block");
}

static void
test_bad_header_value (void)
{
  const char *o1[] = { "XML_BLOCK_SIZE=12abc", NULL };
  const char *o2[] = { "PVP_BLOCK_SIZE=-5", NULL };
  const char *o3[] = { "SIGNAL_BLOCK_SIZE=99999999999999999999999", NULL };
  header_and_expect (NULL, o1, EF_IO_ERROR_FORMAT, "XML_BLOCK_SIZE is not a byte count");
  header_and_expect (NULL, o2, EF_IO_ERROR_FORMAT, "PVP_BLOCK_SIZE is not a byte count");
  header_and_expect (NULL, o3, EF_IO_ERROR_FORMAT, "SIGNAL_BLOCK_SIZE is not a byte count");
}

static void
test_bad_header_missing_key (void)
{
  const char *o[] = { "PVP_BLOCK_SIZE=", NULL };
  header_and_expect (NULL, o, EF_IO_ERROR_FORMAT, "lacks PVP_BLOCK_SIZE");
}

static void
test_bad_header_duplicate_key (void)
{
  const char *o[] = { "+XML_BLOCK_SIZE := 10", NULL };
  header_and_expect (NULL, o, EF_IO_ERROR_FORMAT, "XML_BLOCK_SIZE twice");
}

static void
test_bad_header_line (void)
{
  const char *o[] = { "+THIS IS NOT A KEY VALUE LINE", NULL };
  const char *o2[] = { "+bad key := 1", NULL };
  header_and_expect (NULL, o, EF_IO_ERROR_FORMAT, "KEY := value");
  header_and_expect (NULL, o2, EF_IO_ERROR_FORMAT, "malformed key");
}

static void
test_bad_header_no_terminator (void)
{
  g_autofree char *path = tmp_file ("noterm.cphd");
  GString *s = g_string_new ("CPHD/1.0.1\n");

  while (s->len < 100 * 1024)
    g_string_append (s, "PADDING := 0\n");
  g_assert_true (g_file_set_contents (path, s->str, (gssize) s->len, NULL));
  g_string_free (s, TRUE);
  expect_error (path, EF_IO_ERROR_FORMAT, "no section terminator");
}

static void
test_bad_xml_malformed (void)
{
  g_autoptr (Parts) p = valid_parts ();
  xml_replace (p, "</CPHD>", "</CPHDX>");
  save_and_expect (p, EF_IO_ERROR_FORMAT, "XML is malformed");
}

static void
test_bad_xml_truncated (void)
{
  g_autoptr (Parts) p = valid_parts ();
  g_string_truncate (p->xml, p->xml->len / 2);
  save_and_expect (p, EF_IO_ERROR_FORMAT, "XML is malformed");
}

static void
test_bad_xml_entities (void)
{
  g_autoptr (Parts) p = valid_parts ();
  GString *bomb = g_string_new ("<?xml version=\"1.0\"?>\n<!DOCTYPE CPHD [\n<!ENTITY a \"aaaaaaaaaa\">\n");

  /* The classic exponential entity expansion. */
  for (int i = 1; i < 10; i++)
    g_string_append_printf (bomb, "<!ENTITY %c \"&%c;&%c;&%c;&%c;&%c;&%c;&%c;&%c;&%c;&%c;\">\n", 'a' + i,
                            'a' + i - 1, 'a' + i - 1, 'a' + i - 1, 'a' + i - 1, 'a' + i - 1, 'a' + i - 1,
                            'a' + i - 1, 'a' + i - 1, 'a' + i - 1, 'a' + i - 1);
  g_string_append (bomb, "]>\n");
  xml_replace (p, "<\\?xml[^>]*>\\s*", bomb->str);
  xml_replace (p, "<CoreName>[^<]*</CoreName>", "<CoreName>&j;</CoreName>");
  g_string_free (bomb, TRUE);
  /* libxml2 may stop the expansion itself; either way the file is refused. */
  save_and_expect (p, EF_IO_ERROR_FORMAT, "DTD|entity");
}

static void
test_bad_xml_external_entity (void)
{
  g_autoptr (Parts) p = valid_parts ();
  xml_replace (p, "<\\?xml[^>]*>\\s*",
               "<?xml version=\"1.0\"?>\n<!DOCTYPE CPHD [<!ENTITY x SYSTEM \"file:///etc/passwd\">]>\n");
  xml_replace (p, "<CoreName>[^<]*</CoreName>", "<CoreName>&x;</CoreName>");
  save_and_expect (p, EF_IO_ERROR_FORMAT, "DTD");
}

static void
test_bad_xml_root (void)
{
  g_autoptr (Parts) p = valid_parts ();
  xml_replace (p, "<CPHD ", "<SICD ");
  xml_replace (p, "</CPHD>", "</SICD>");
  save_and_expect (p, EF_IO_ERROR_FORMAT, "not <CPHD>");
}

static void
test_bad_xml_number (void)
{
  g_autoptr (Parts) p = valid_parts ();
  xml_replace (p, "<NumBytesPVP>\\d+</NumBytesPVP>", "<NumBytesPVP>lots</NumBytesPVP>");
  save_and_expect (p, EF_IO_ERROR_FORMAT, "NumBytesPVP is not a non-negative integer");
}

static void
test_bad_pvp_missing (void)
{
  g_autoptr (Parts) p = valid_parts ();
  xml_replace (p, "<SRPPos>.*?</SRPPos>\\s*", "");
  save_and_expect (p, EF_IO_ERROR_FORMAT, "required per-vector parameter SRPPos");
}

static void
test_bad_pvp_outside (void)
{
  g_autoptr (Parts) p = valid_parts ();
  xml_replace (p, "<SCSS>\\s*<Offset>\\d+</Offset>", "<SCSS><Offset>1000</Offset>");
  save_and_expect (p, EF_IO_ERROR_FORMAT, "PVP SCSS (words 1000..1001) lies outside");
}

static void
test_bad_pvp_size (void)
{
  g_autoptr (Parts) p = valid_parts ();
  xml_replace (p, "(<TxPos>\\s*<Offset>\\d+</Offset>\\s*)<Size>3</Size>", "\\1<Size>2</Size>");
  save_and_expect (p, EF_IO_ERROR_FORMAT, "PVP TxPos has Size 2");
}

static void
test_bad_pvp_format (void)
{
  g_autoptr (Parts) p = valid_parts ();
  xml_replace (p, "(<SC0>.*?)<Format>F8</Format>", "\\1<Format>F4</Format>");
  save_and_expect (p, EF_IO_ERROR_UNSUPPORTED, "PVP SC0 has format \"F4\"");
}

static void
test_bad_nan_position (void)
{
  g_autoptr (Parts) p = valid_parts ();
  pvp_set (p, 3, "TxPos", 1, NAN);
  save_and_expect (p, EF_IO_ERROR_INVALID_DATA, "NaN");
}

static void
test_bad_inf_position (void)
{
  g_autoptr (Parts) p = valid_parts ();
  pvp_set (p, 0, "RcvPos", 2, INFINITY);
  save_and_expect (p, EF_IO_ERROR_INVALID_DATA, "NaN or infinite");
}

static void
test_bad_zero_range (void)
{
  g_autoptr (Parts) p = valid_parts ();
  g_autofree char *path = tmp_file ("valid.cphd");
  g_autoptr (EfDataset) ds = open_ok (path, 0);

  /* The antenna sits on the SRP: no range to reference to. */
  for (int i = 0; i < 3; i++)
    {
      pvp_set (p, 5, "TxPos", i, ds->info.srp_ecf[i]);
      pvp_set (p, 5, "RcvPos", i, ds->info.srp_ecf[i]);
    }
  save_and_expect (p, EF_IO_ERROR_INVALID_DATA, "zero antenna position or reference range");
}

static void
test_bad_scss (void)
{
  g_autoptr (Parts) p = valid_parts ();
  pvp_set (p, 4, "SCSS", 0, 0.0);
  save_and_expect (p, EF_IO_ERROR_INVALID_DATA, "increase monotonically");
  pvp_set (p, 4, "SCSS", 0, -1e6);
  save_and_expect (p, EF_IO_ERROR_INVALID_DATA, "increase monotonically");
}

static void
test_bad_fx_negative (void)
{
  g_autoptr (Parts) p = valid_parts ();
  pvp_set (p, 1, "SC0", 0, -5e9);
  save_and_expect (p, EF_IO_ERROR_INVALID_DATA, "FX frequencies must be positive");
}

static void
test_bad_amp_sf (void)
{
  g_autofree char *path = write_valid ("ampsf.cphd", EF_CPHD_CI4, 5);
  g_autoptr (Parts) p = parts_load (path);
  pvp_set (p, 2, "AmpSF", 0, NAN);
  save_and_expect (p, EF_IO_ERROR_INVALID_DATA, "non-finite AmpSF");
}

static void
test_bad_zero_vectors (void)
{
  g_autoptr (Parts) p = valid_parts ();
  xml_replace (p, "<NumVectors>\\d+</NumVectors>", "<NumVectors>0</NumVectors>");
  save_and_expect (p, EF_IO_ERROR_INVALID_DATA, "is empty: 0 vectors");
}

static void
test_bad_channel_sizes (void)
{
  g_autoptr (Parts) p = valid_parts ();
  g_autoptr (Parts) q = valid_parts ();
  xml_replace (p, "<NumSamples>32</NumSamples>", "<NumSamples>33</NumSamples>");
  save_and_expect (p, EF_IO_ERROR_FORMAT, "signal array (16 x 33 CF8 samples at offset 0) does not fit");
  xml_replace (q, "<NumVectors>16</NumVectors>", "<NumVectors>17</NumVectors>");
  save_and_expect (q, EF_IO_ERROR_FORMAT, "PVP array (17 vectors");
}

static void
test_bad_absurd_sizes (void)
{
  g_autoptr (Parts) p = valid_parts ();
  g_autoptr (Parts) q = valid_parts ();
  xml_replace (p, "<NumSamples>32</NumSamples>", "<NumSamples>1099511627776</NumSamples>");
  save_and_expect (p, EF_IO_ERROR_INVALID_DATA, "NumSamples 1099511627776");
  /* Large enough that vectors x bytes overflows 64 bits. */
  xml_replace (q, "<NumVectors>16</NumVectors>", "<NumVectors>18446744073709551615</NumVectors>");
  save_and_expect (q, EF_IO_ERROR_INVALID_DATA, "NumVectors 18446744073709551615");
}

/* NumVectors x NumBytesPVP wraps round 2^64 to 0, so a naive "does the array fit" test passes and the
 * reader walks records 2^62 bytes apart (it crashed here); or it is 2^64 exactly with NumVectors at the
 * largest accepted, and the per-vector arrays would have been 6.4 GB. */
static void
test_bad_pvp_product (void)
{
  g_autoptr (Parts) p = valid_parts ();
  g_autoptr (Parts) q = valid_parts ();
  g_autoptr (Parts) r = valid_parts ();

  xml_replace (p, "<NumBytesPVP>\\d+</NumBytesPVP>", "<NumBytesPVP>4611686018427387904</NumBytesPVP>");
  save_and_expect (p, EF_IO_ERROR_FORMAT, "PVP array (16 vectors of 4611686018427387904 bytes at offset 0) does "
                                          "not fit in the 3584-byte PVP block");
  xml_replace (q, "<NumVectors>16</NumVectors>", "<NumVectors>4</NumVectors>");
  xml_replace (q, "<NumBytesPVP>\\d+</NumBytesPVP>", "<NumBytesPVP>4611686018427387904</NumBytesPVP>");
  save_and_expect (q, EF_IO_ERROR_FORMAT, "PVP array (4 vectors of 4611686018427387904 bytes");
  xml_replace (r, "<NumVectors>16</NumVectors>", "<NumVectors>67108864</NumVectors>");
  xml_replace (r, "<NumBytesPVP>\\d+</NumBytesPVP>", "<NumBytesPVP>274877906944</NumBytesPVP>");
  save_and_expect (r, EF_IO_ERROR_FORMAT, "PVP array (67108864 vectors of 274877906944 bytes");
}

/* The largest NumVectors x NumSamples accepted, with a PVP block (sparse, 15 GB) that really holds the
 * records: the signal array's size is 2^53 bytes, compared without wrapping, and refused before the
 * reader allocates anything for 2^26 vectors. */
static void
test_bad_signal_product (void)
{
  g_autoptr (Parts) p = valid_parts ();
  g_autofree char *path = tmp_file ("sparse.cphd");
  guint rec = pvp_record_bytes (p);
  guint64 xo = 4096, po = (xo + p->xml->len + 2 + 63) / 64 * 64, ps = ((guint64) 1 << 26) * rec;
  guint64 so = po + ps, ss = p->sig->len;
  g_autofree char *header = NULL;
  int fd;

  xml_replace (p, "<NumVectors>16</NumVectors>", "<NumVectors>67108864</NumVectors>");
  xml_replace (p, "<NumSamples>32</NumSamples>", "<NumSamples>16777216</NumSamples>");
  po = (xo + p->xml->len + 2 + 63) / 64 * 64;
  so = po + ps;
  header = g_strdup_printf ("CPHD/1.0.1\nXML_BLOCK_SIZE := %u\nXML_BLOCK_BYTE_OFFSET := %" G_GUINT64_FORMAT
                            "\nPVP_BLOCK_SIZE := %" G_GUINT64_FORMAT "\nPVP_BLOCK_BYTE_OFFSET := %" G_GUINT64_FORMAT
                            "\nSIGNAL_BLOCK_SIZE := %" G_GUINT64_FORMAT "\nSIGNAL_BLOCK_BYTE_OFFSET := %"
                            G_GUINT64_FORMAT "\nCLASSIFICATION := UNCLASSIFIED\nRELEASE_INFO := UNRESTRICTED\n\f\n",
                            (guint) p->xml->len, xo, ps, po, ss, so);
  fd = g_open (path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (pwrite (fd, header, strlen (header), 0), ==, (gssize) strlen (header));
  g_assert_cmpint (pwrite (fd, p->xml->str, p->xml->len, (off_t) xo), ==, (gssize) p->xml->len);
  g_assert_cmpint (pwrite (fd, "\f\n", 2, (off_t) (xo + p->xml->len)), ==, 2);
  g_assert_cmpint (pwrite (fd, p->pvp->data, p->pvp->len, (off_t) po), ==, (gssize) p->pvp->len);
  g_assert_cmpint (ftruncate (fd, (off_t) (so + ss)), ==, 0);
  g_assert_cmpint (pwrite (fd, p->sig->data, ss, (off_t) so), ==, (gssize) ss);
  close (fd);
  expect_error (path, EF_IO_ERROR_FORMAT, "signal array (67108864 x 16777216 CF8 samples at offset 0) does not fit");
  g_unlink (path);
}

static void
test_bad_pvp_overlap (void)
{
  g_autoptr (Parts) p = valid_parts ();
  g_autofree char *sc0 = g_strdup_printf ("<SCSS><Offset>%u</Offset>", pvp_word (p, "SC0"));

  /* Two parameters in one word would let a record shorter than the fifteen words CPHD requires pass. */
  xml_replace (p, "<SCSS>\\s*<Offset>\\d+</Offset>", sc0);
  save_and_expect (p, EF_IO_ERROR_FORMAT, "overlaps PVP SCSS");
}

static void
test_bad_pvp_offset_huge (void)
{
  g_autoptr (Parts) p = valid_parts ();

  /* Offset + Size wraps round 2^64; the message must not. */
  xml_replace (p, "<SCSS>\\s*<Offset>\\d+</Offset>", "<SCSS><Offset>18446744073709551615</Offset>");
  save_and_expect (p, EF_IO_ERROR_FORMAT, "PVP SCSS (words 18446744073709551615..18446744073709551615) lies outside");
}

/* Every number in the XML and the header set to each boundary value in turn: each file opens or is
 * refused with an EF_IO_ERROR, and what opens reads in full. */
static void
test_bad_boundary_values (void)
{
  static const char *const values[] = {
    "0", "1", "7", "2147483647", "2147483648", "2147483649", "4294967296", "4611686018427387904",
    "9223372036854775807", "9223372036854775808", "18446744073709551615", "18446744073709551616", "-1",
    "1234567890123456789012345678901234567890",
  };
  static const char *const elements[] = { "NumBytesPVP", "NumCPHDChannels", "NumVectors", "NumSamples",
                                          "SignalArrayByteOffset", "PVPArrayByteOffset" };
  static const char *const pvps[] = { "TxTime", "TxPos", "RcvTime", "RcvPos", "SRPPos", "FX1", "FX2", "SC0", "SCSS",
                                      "SIGNAL" };
  static const char *const keys[] = { "XML_BLOCK_SIZE", "XML_BLOCK_BYTE_OFFSET", "PVP_BLOCK_SIZE",
                                      "PVP_BLOCK_BYTE_OFFSET", "SIGNAL_BLOCK_SIZE", "SIGNAL_BLOCK_BYTE_OFFSET" };
  g_autofree char *path = tmp_file ("boundary.cphd");
  guint opened = 0, refused = 0;

  for (guint v = 0; v < G_N_ELEMENTS (values); v++)
    {
      guint n_cases = G_N_ELEMENTS (elements) + 2 * G_N_ELEMENTS (pvps) + G_N_ELEMENTS (keys);

      for (guint c = 0; c < n_cases; c++)
        {
          g_autoptr (Parts) p = valid_parts ();
          g_autoptr (GError) error = NULL;
          g_autoptr (EfDataset) ds = NULL;
          g_autofree char *override = NULL;
          const char *o[] = { NULL, NULL };
          guint e = c, k;

          if (e < G_N_ELEMENTS (elements))
            {
              g_autofree char *pat = g_strdup_printf ("<%s>\\d+</%s>", elements[e], elements[e]);
              g_autofree char *rep = g_strdup_printf ("<%s>%s</%s>", elements[e], values[v], elements[e]);
              xml_replace (p, pat, rep);
            }
          else if ((e -= G_N_ELEMENTS (elements)) < 2 * G_N_ELEMENTS (pvps))
            {
              const char *field = e % 2 ? "Size" : "Offset";
              g_autofree char *pat = g_strdup_printf ("(<%s>.*?<%s>)\\d+(</%s>)", pvps[e / 2], field, field);
              g_autofree char *rep = g_strdup_printf ("\\g<1>%s\\g<2>", values[v]);
              xml_replace (p, pat, rep);
            }
          else
            {
              k = e - 2 * G_N_ELEMENTS (pvps);
              override = g_strdup_printf ("%s=%s", keys[k], values[v]);
              o[0] = override;
            }
          parts_save_full (p, path, NULL, o);
          ds = ef_cphd_open (path, 0, &error);
          if (ds == NULL)
            {
              g_assert_nonnull (error);
              g_assert_true (error->domain == EF_IO_ERROR);
              refused++;
            }
          else
            {
              g_autofree EfCf32 *all = g_new (EfCf32, ds->info.n_pulses * ds->info.n_samples);
              g_assert_cmpuint (ds->info.n_pulses * ds->info.n_samples, <=, 16 * 32);
              g_assert_true (ef_dataset_read_block (ds, 0, (guint) ds->info.n_pulses, all, &error));
              g_assert_no_error (error);
              opened++;
            }
        }
    }
  g_test_message ("boundary values: %u opened, %u refused", opened, refused);
  /* Only the values that change nothing (the SIGNAL PVP's offset set to where it already is, say)
   * leave a valid file. */
  g_assert_cmpuint (refused, >, 10 * opened);
}

/* The file is cut short after it was opened, as when another program rewrites it: reading the
 * samples that are gone is an error, not SIGBUS, both directly and through a job. */
static void
test_bad_truncated_while_open (void)
{
  CphdTestSpec s;
  g_autoptr (EfDataset) src = NULL;
  g_autoptr (EfDataset) ds = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GError) job_error = NULL;
  g_autofree char *path = tmp_file ("shrinks.cphd");
  g_autofree EfCf32 *buf = NULL;
  g_autoptr (EfJob) job = NULL;
  EfJobParams jp;
  EfGrid grid;
  GStatBuf st;
  guint64 ns;

  cphd_test_spec_init (&s);
  s.n_pulses = 256;
  s.n_samples = 512;
  s.seed = g_test_rand_int ();
  src = cphd_test_dataset (&s);
  g_assert_true (ef_cphd_write (src, path, NULL, &error));
  g_assert_no_error (error);
  ds = open_ok (path, 0);
  ns = ds->info.n_samples;
  buf = g_new (EfCf32, ds->info.n_pulses * ns);
  g_assert_true (ef_dataset_read_block (ds, 0, 16, buf, &error));
  g_assert_no_error (error);

  /* Keep the first half of the signal (1 MB of CF8), then some. */
  g_assert_cmpint (g_stat (path, &st), ==, 0);
  g_assert_cmpint (truncate (path, st.st_size - 100 * (off_t) ns * 8 - 5), ==, 0);
  g_assert_true (ef_dataset_read_block (ds, 0, 100, buf, &error));
  g_assert_no_error (error);
  g_assert_cmpmem (buf, 100 * ns * 8, ef_dataset_memory_samples (src), 100 * ns * 8);
  g_assert_false (ef_dataset_read_block (ds, 100, 100, buf, &error));
  g_assert_error (error, EF_IO_ERROR, EF_IO_ERROR_TRUNCATED);
  g_test_message ("%s", error->message);
  g_assert_nonnull (strstr (error->message, "Cannot read pulses 100..199"));
  g_assert_nonnull (strstr (error->message, "cut short while it was open"));
  g_clear_error (&error);
  g_assert_false (ef_dataset_read_block (ds, 255, 1, buf, &error));
  g_assert_error (error, EF_IO_ERROR, EF_IO_ERROR_TRUNCATED);

  /* The path the CLI and the window use. */
  g_assert_true (ef_grid_init_roi (&grid, -2, -2, 2, 2, 0.25, NULL));
  ef_job_params_init (&jp, &grid);
  jp.backend.block_size = 32;
  job = ef_job_new (ds, &jp, &job_error);
  g_assert_no_error (job_error);
  g_assert_false (ef_job_run (job, NULL, NULL, &job_error));
  g_assert_error (job_error, EF_IO_ERROR, EF_IO_ERROR_TRUNCATED);
  g_assert_nonnull (strstr (job_error->message, "cut short while it was open"));
}

static void
test_bad_channel_count (void)
{
  g_autoptr (Parts) p = valid_parts ();
  xml_replace (p, "<NumCPHDChannels>1</NumCPHDChannels>", "<NumCPHDChannels>2</NumCPHDChannels>");
  save_and_expect (p, EF_IO_ERROR_FORMAT, "NumCPHDChannels says 2 but Data lists 1");
}

static void
test_bad_channel_index (void)
{
  g_autofree char *path = write_valid ("chidx.cphd", EF_CPHD_CF8, 9);
  expect_error_ch (path, 5, EF_IO_ERROR_INVALID_DATA, "There is no channel 5");
}

static void
test_bad_signal_format (void)
{
  g_autoptr (Parts) p = valid_parts ();
  g_autoptr (Parts) q = valid_parts ();
  xml_replace (p, "<SignalArrayFormat>CF8</SignalArrayFormat>", "<SignalArrayFormat>CF16</SignalArrayFormat>");
  save_and_expect (p, EF_IO_ERROR_UNSUPPORTED, "SignalArrayFormat is \"CF16\"");
  xml_replace (q, "<NumCPHDChannels>", "<SignalCompressionID>zip</SignalCompressionID><NumCPHDChannels>");
  save_and_expect (q, EF_IO_ERROR_UNSUPPORTED, "Compressed");
}

static void
test_bad_sgn (void)
{
  g_autoptr (Parts) p = valid_parts ();
  xml_replace (p, "<SGN>-1</SGN>", "<SGN>0</SGN>");
  save_and_expect (p, EF_IO_ERROR_FORMAT, "Global/SGN is \"0\"");
}

static void
test_bad_domain (void)
{
  g_autoptr (Parts) p = valid_parts ();
  xml_replace (p, "<DomainType>FX</DomainType>", "<DomainType>RANGE</DomainType>");
  save_and_expect (p, EF_IO_ERROR_UNSUPPORTED, "DomainType is \"RANGE\"");
}

static void
test_bad_no_srp (void)
{
  g_autoptr (Parts) p = valid_parts ();
  xml_replace (p, "<IARP>.*?</IARP>", "");
  xml_replace (p, "<SRP>.*?</SRP>", "");
  save_and_expect (p, EF_IO_ERROR_FORMAT, "neither ReferenceGeometry/SRP/ECF nor SceneCoordinates/IARP/ECF");
}

/* Random damage anywhere must give an answer, never a crash or a hang. */
static void
test_bad_fuzz (void)
{
  g_autofree char *path = write_valid ("fuzz-src.cphd", EF_CPHD_CI2, 21);
  g_autofree char *bad = tmp_file ("fuzz.cphd");
  g_autofree char *data = NULL;
  gsize len;
  guint opened = 0, refused = 0;

  g_assert_true (g_file_get_contents (path, &data, &len, NULL));
  for (int round = 0; round < 300; round++)
    {
      g_autofree char *copy = g_memdup2 (data, len);
      g_autoptr (GError) error = NULL;
      g_autoptr (EfDataset) ds = NULL;
      gsize cut = len;
      int n = 1 + g_test_rand_int_range (0, 8);

      /* Flip bytes mostly in the header and the XML, where parsing happens. */
      for (int i = 0; i < n; i++)
        {
          gsize at = (gsize) g_test_rand_int_range (0, (gint32) MIN (len, (gsize) 8192));
          copy[at] = (char) g_test_rand_int_range (0, 256);
        }
      if (round % 10 == 0)
        cut = (gsize) g_test_rand_int_range (0, (gint32) len);
      g_assert_true (g_file_set_contents (bad, copy, (gssize) cut, NULL));
      ds = ef_cphd_open (bad, 0, &error);
      if (ds != NULL)
        {
          g_autofree EfCf32 *all = g_new (EfCf32, ds->info.n_pulses * ds->info.n_samples);
          g_assert_true (ef_dataset_read_block (ds, 0, (guint) ds->info.n_pulses, all, NULL));
          opened++;
        }
      else
        {
          g_assert_true (error->domain == EF_IO_ERROR);
          g_assert_cmpuint (strlen (error->message), >, 10);
          refused++;
        }
    }
  g_test_message ("fuzz: %u opened, %u refused", opened, refused);
}

/* ---- the writer ---- */

static gboolean
dir_has_temporaries (const char *dir)
{
  g_autoptr (GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

  while ((name = g_dir_read_name (d)) != NULL)
    if (name[0] == '.')
      return TRUE;
  return FALSE;
}

static void
test_write_layout (void)
{
  g_autofree char *path = write_valid ("layout.cphd", EF_CPHD_CF8, 2);
  g_autofree char *data = NULL;
  g_autofree char *header = NULL;
  gsize len;
  guint64 xo, xs, po, ps, so, ss;

  g_assert_true (g_file_get_contents (path, &data, &len, NULL));
  g_assert_true (g_str_has_prefix (data, "CPHD/1.0.1\nXML_BLOCK_SIZE := "));
  header = g_strndup (data, (gsize) (strstr (data, "\f\n") - data));
  g_assert_nonnull (strstr (header, "\nCLASSIFICATION := UNCLASSIFIED"));
  g_assert_nonnull (strstr (header, "\nRELEASE_INFO := UNRESTRICTED"));
  xo = header_value (header, "XML_BLOCK_BYTE_OFFSET");
  xs = header_value (header, "XML_BLOCK_SIZE");
  po = header_value (header, "PVP_BLOCK_BYTE_OFFSET");
  ps = header_value (header, "PVP_BLOCK_SIZE");
  so = header_value (header, "SIGNAL_BLOCK_BYTE_OFFSET");
  ss = header_value (header, "SIGNAL_BLOCK_SIZE");
  g_assert_cmpuint (xo % 64, ==, 0);
  g_assert_cmpuint (po % 64, ==, 0);
  g_assert_cmpuint (so % 64, ==, 0);
  g_assert_cmpmem (data + xo + xs, 2, "\f\n", 2);
  g_assert_true (g_str_has_prefix (data + xo, "<?xml"));
  g_assert_cmpuint (ps, ==, 16 * 28 * 8);  /* CF8: 28 words per vector, no AmpSF */
  g_assert_cmpuint (ss, ==, 16 * 32 * 8);
  g_assert_cmpuint (so + ss, ==, len);
  g_assert_cmpuint (po, >=, xo + xs + 2);
  g_assert_cmpuint (so, >=, po + ps);
  /* Pads are zero. */
  for (guint64 i = xo + xs + 2; i < po; i++)
    g_assert_cmpint (data[i], ==, 0);
  for (guint64 i = po + ps; i < so; i++)
    g_assert_cmpint (data[i], ==, 0);
  g_assert_false (dir_has_temporaries (tmp_dir));
}

static void
test_write_replace (void)
{
  g_autofree char *path = tmp_file ("replace.cphd");
  g_autofree char *again = NULL;
  g_autoptr (EfDataset) ds = NULL;

  g_assert_true (g_file_set_contents (path, "old contents", -1, NULL));
  again = write_valid ("replace.cphd", EF_CPHD_CF8, 4);
  ds = open_ok (path, 0);
  g_assert_cmpuint (ds->info.n_pulses, ==, 16);
  g_assert_false (dir_has_temporaries (tmp_dir));
}

static void
test_write_bad_dir (void)
{
  CphdTestSpec s;
  g_autoptr (EfDataset) ds = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *path = g_build_filename (tmp_dir, "no-such-dir", "x.cphd", NULL);

  cphd_test_spec_init (&s);
  ds = cphd_test_dataset (&s);
  g_assert_false (ef_cphd_write (ds, path, NULL, &error));
  g_assert_error (error, EF_IO_ERROR, EF_IO_ERROR_FAILED);
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
}

static void
test_write_refuses (void)
{
  CphdTestSpec s;
  g_autoptr (EfDataset) ds = NULL;
  g_autoptr (GError) e1 = NULL;
  g_autoptr (GError) e2 = NULL;
  g_autoptr (GError) e3 = NULL;
  g_autofree char *path = tmp_file ("refused.cphd");
  EfCphdWriteOptions opts = { .version = "2.0" };

  cphd_test_spec_init (&s);
  ds = cphd_test_dataset (&s);
  ds->info.has_geo = FALSE;
  ds->info.srp_ecf[0] = ds->info.srp_ecf[1] = ds->info.srp_ecf[2] = 0;
  g_assert_false (ef_cphd_write (ds, path, NULL, &e1));
  g_assert_error (e1, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA);
  g_assert_nonnull (strstr (e1->message, "no position on the Earth"));
  ds->info.has_geo = TRUE;
  ds->info.domain = EF_DOMAIN_RAW;
  g_assert_false (ef_cphd_write (ds, path, NULL, &e2));
  g_assert_error (e2, EF_IO_ERROR, EF_IO_ERROR_UNSUPPORTED);
  ds->info.domain = EF_DOMAIN_FX;
  g_assert_false (ef_cphd_write (ds, path, &opts, &e3));
  g_assert_error (e3, EF_IO_ERROR, EF_IO_ERROR_UNSUPPORTED);
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
  g_assert_false (dir_has_temporaries (tmp_dir));
}

/* A dataset that makes its samples up on demand and remembers how it was read. */
typedef struct {
  guint calls, max_count;
  gint  fail_at;  /* fail the call with this index; -1 = never */
} StreamPriv;

static EfCf32
stream_sample (guint64 p, guint64 k)
{
  return CMPLXF ((float) ((p * 7 + k * 13) % 101) - 50.0f, (float) ((p * 3 + k * 5) % 37) - 18.0f);
}

static gboolean
stream_read (EfDataset *self, guint64 first, guint count, EfCf32 *out, GError **error)
{
  StreamPriv *sp = self->priv;

  if ((gint) sp->calls == sp->fail_at)
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FAILED, "simulated read failure");
      return FALSE;
    }
  sp->calls++;
  sp->max_count = MAX (sp->max_count, count);
  for (guint i = 0; i < count; i++)
    for (guint64 k = 0; k < self->info.n_samples; k++)
      out[(gsize) i * self->info.n_samples + k] = stream_sample (first + i, k);
  return TRUE;
}

static void
stream_finalize (EfDataset *self)
{
  g_free (self->priv);
}

static const EfDatasetOps stream_ops = { .read_block = stream_read, .finalize = stream_finalize };

static EfDataset *
stream_dataset (guint n_pulses, guint n_samples, gint fail_at)
{
  CphdTestSpec s;
  g_autoptr (EfDataset) shape = NULL;
  EfDataset *ds = ef_dataset_alloc (&stream_ops);
  StreamPriv *sp = g_new0 (StreamPriv, 1);

  cphd_test_spec_init (&s);
  s.n_pulses = n_pulses;
  s.n_samples = 4;
  shape = cphd_test_dataset (&s);
  ef_dataset_info_copy (&shape->info, &ds->info);
  ds->info.n_samples = n_samples;
  ds->pulses = g_memdup2 (shape->pulses, n_pulses * sizeof (EfPulse));
  for (guint p = 0; p < n_pulses; p++)
    ds->pulses[p].scss = 600e6 / n_samples, ds->pulses[p].fx2 = ds->pulses[p].sc0 + (n_samples - 1) * ds->pulses[p].scss;
  sp->fail_at = fail_at;
  ds->priv = sp;
  return ds;
}

static void
test_write_streaming (void)
{
  /* 2500 pulses of 1024 CF8 samples: 20 MB, more than one block. */
  g_autoptr (EfDataset) ds = stream_dataset (2500, 1024, -1);
  g_autoptr (EfDataset) back = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *path = tmp_file ("stream.cphd");
  g_autofree EfCf32 *blk = g_new (EfCf32, 7 * 1024);
  StreamPriv *sp = ds->priv;

  g_assert_true (ef_cphd_write (ds, path, NULL, &error));
  g_assert_no_error (error);
  g_test_message ("%u reads of at most %u pulses", sp->calls, sp->max_count);
  g_assert_cmpuint (sp->calls, >=, 2);
  g_assert_cmpuint (sp->max_count, <, 2500);
  back = open_ok (path, 0);
  check_pulses (ds, back);
  for (guint64 first = 0; first < 2500; first += 613)
    {
      guint count = (guint) MIN (7, 2500 - first);
      g_assert_true (ef_dataset_read_block (back, first, count, blk, &error));
      for (guint i = 0; i < count; i++)
        for (guint k = 0; k < 1024; k++)
          g_assert_true (blk[i * 1024 + k] == stream_sample (first + i, k));
    }
}

static void
test_write_read_failure (void)
{
  g_autoptr (EfDataset) ds = stream_dataset (2500, 1024, 1);
  g_autoptr (GError) error = NULL;
  g_autofree char *path = tmp_file ("fails.cphd");

  g_assert_false (ef_cphd_write (ds, path, NULL, &error));
  g_assert_error (error, EF_IO_ERROR, EF_IO_ERROR_FAILED);
  g_assert_nonnull (strstr (error->message, "simulated"));
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
  g_assert_false (dir_has_temporaries (tmp_dir));
}

static void
test_write_no_times (void)
{
  CphdTestSpec s;
  g_autoptr (EfDataset) ds = NULL;
  g_autoptr (EfDataset) back = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *path = tmp_file ("no-times.cphd");

  cphd_test_spec_init (&s);
  ds = cphd_test_dataset (&s);
  for (guint p = 0; p < s.n_pulses; p++)
    ds->pulses[p].t = 0;
  g_assert_true (ef_cphd_write (ds, path, NULL, &error));
  back = open_ok (path, 0);
  for (guint p = 0; p < s.n_pulses; p++)
    g_assert_cmpfloat_with_epsilon (back->pulses[p].t, p * 1e-3, 1e-12);
}

int
main (int argc, char **argv)
{
  int ret;

  g_test_init (&argc, &argv, NULL);
  tmp_dir = g_dir_make_tmp ("test-cphd-XXXXXX", NULL);
  g_assert_nonnull (tmp_dir);

  g_test_add_func ("/io/cphd/geo/known", test_geo_known);
  g_test_add_func ("/io/cphd/geo/roundtrip", test_geo_roundtrip);
  g_test_add_func ("/io/cphd/geo/enu", test_geo_enu);
  g_test_add_func ("/io/cphd/sniff", test_sniff);
  g_test_add_func ("/io/cphd/roundtrip/cf8", test_roundtrip_cf8);
  g_test_add_func ("/io/cphd/roundtrip/ci4", test_roundtrip_ci4);
  g_test_add_func ("/io/cphd/roundtrip/ci2", test_roundtrip_ci2);
  g_test_add_func ("/io/cphd/roundtrip/toa", test_roundtrip_toa);
  g_test_add_func ("/io/cphd/roundtrip/bistatic", test_roundtrip_bistatic);
  g_test_add_func ("/io/cphd/roundtrip/version-1.1.0", test_roundtrip_v110);
  g_test_add_func ("/io/cphd/roundtrip/places", test_roundtrip_places);
  g_test_add_func ("/io/cphd/roundtrip/sim", test_roundtrip_sim);
  g_test_add_func ("/io/cphd/read/reassembled", test_parts_identity);
  g_test_add_func ("/io/cphd/read/sgn-plus", test_sgn_plus);
  g_test_add_func ("/io/cphd/read/channels", test_channels);
  g_test_add_func ("/io/cphd/read/support-and-added-pvp", test_support_and_added_pvp);
  g_test_add_func ("/io/cphd/read/nan-samples", test_nan_samples);
  g_test_add_func ("/io/cphd/bad/missing-file", test_bad_missing_file);
  g_test_add_func ("/io/cphd/bad/empty", test_bad_empty);
  g_test_add_func ("/io/cphd/bad/not-cphd", test_bad_not_cphd);
  g_test_add_func ("/io/cphd/bad/version", test_bad_version);
  g_test_add_func ("/io/cphd/bad/truncated", test_bad_truncated);
  g_test_add_func ("/io/cphd/bad/header-offset", test_bad_header_offset);
  g_test_add_func ("/io/cphd/bad/header-size", test_bad_header_size);
  g_test_add_func ("/io/cphd/bad/header-overflow", test_bad_header_overflow);
  g_test_add_func ("/io/cphd/bad/header-value", test_bad_header_value);
  g_test_add_func ("/io/cphd/bad/header-missing-key", test_bad_header_missing_key);
  g_test_add_func ("/io/cphd/bad/header-duplicate-key", test_bad_header_duplicate_key);
  g_test_add_func ("/io/cphd/bad/header-line", test_bad_header_line);
  g_test_add_func ("/io/cphd/bad/header-no-terminator", test_bad_header_no_terminator);
  g_test_add_func ("/io/cphd/bad/xml-malformed", test_bad_xml_malformed);
  g_test_add_func ("/io/cphd/bad/xml-truncated", test_bad_xml_truncated);
  g_test_add_func ("/io/cphd/bad/xml-entities", test_bad_xml_entities);
  g_test_add_func ("/io/cphd/bad/xml-external-entity", test_bad_xml_external_entity);
  g_test_add_func ("/io/cphd/bad/xml-root", test_bad_xml_root);
  g_test_add_func ("/io/cphd/bad/xml-number", test_bad_xml_number);
  g_test_add_func ("/io/cphd/bad/pvp-missing", test_bad_pvp_missing);
  g_test_add_func ("/io/cphd/bad/pvp-outside", test_bad_pvp_outside);
  g_test_add_func ("/io/cphd/bad/pvp-size", test_bad_pvp_size);
  g_test_add_func ("/io/cphd/bad/pvp-format", test_bad_pvp_format);
  g_test_add_func ("/io/cphd/bad/nan-position", test_bad_nan_position);
  g_test_add_func ("/io/cphd/bad/inf-position", test_bad_inf_position);
  g_test_add_func ("/io/cphd/bad/zero-range", test_bad_zero_range);
  g_test_add_func ("/io/cphd/bad/scss", test_bad_scss);
  g_test_add_func ("/io/cphd/bad/fx-negative", test_bad_fx_negative);
  g_test_add_func ("/io/cphd/bad/amp-sf", test_bad_amp_sf);
  g_test_add_func ("/io/cphd/bad/zero-vectors", test_bad_zero_vectors);
  g_test_add_func ("/io/cphd/bad/channel-sizes", test_bad_channel_sizes);
  g_test_add_func ("/io/cphd/bad/absurd-sizes", test_bad_absurd_sizes);
  g_test_add_func ("/io/cphd/bad/pvp-product", test_bad_pvp_product);
  g_test_add_func ("/io/cphd/bad/signal-product", test_bad_signal_product);
  g_test_add_func ("/io/cphd/bad/pvp-overlap", test_bad_pvp_overlap);
  g_test_add_func ("/io/cphd/bad/pvp-offset-huge", test_bad_pvp_offset_huge);
  g_test_add_func ("/io/cphd/bad/boundary-values", test_bad_boundary_values);
  g_test_add_func ("/io/cphd/bad/truncated-while-open", test_bad_truncated_while_open);
  g_test_add_func ("/io/cphd/bad/channel-count", test_bad_channel_count);
  g_test_add_func ("/io/cphd/bad/channel-index", test_bad_channel_index);
  g_test_add_func ("/io/cphd/bad/signal-format", test_bad_signal_format);
  g_test_add_func ("/io/cphd/bad/sgn", test_bad_sgn);
  g_test_add_func ("/io/cphd/bad/domain", test_bad_domain);
  g_test_add_func ("/io/cphd/bad/no-srp", test_bad_no_srp);
  g_test_add_func ("/io/cphd/bad/fuzz", test_bad_fuzz);
  g_test_add_func ("/io/cphd/write/layout", test_write_layout);
  g_test_add_func ("/io/cphd/write/replace", test_write_replace);
  g_test_add_func ("/io/cphd/write/bad-dir", test_write_bad_dir);
  g_test_add_func ("/io/cphd/write/refuses", test_write_refuses);
  g_test_add_func ("/io/cphd/write/streaming", test_write_streaming);
  g_test_add_func ("/io/cphd/write/read-failure", test_write_read_failure);
  g_test_add_func ("/io/cphd/write/no-times", test_write_no_times);

  ret = g_test_run ();

  {
    g_autoptr (GDir) d = g_dir_open (tmp_dir, 0, NULL);
    const char *name;
    while (d != NULL && (name = g_dir_read_name (d)) != NULL)
      {
        g_autofree char *p = g_build_filename (tmp_dir, name, NULL);
        g_unlink (p);
      }
    g_rmdir (tmp_dir);
  }
  g_free (tmp_dir);
  return ret;
}
