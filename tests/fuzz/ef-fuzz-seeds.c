/* ef-fuzz-seeds.c: writes the seed corpora of the fuzzers: small CPHD files, their XML blocks, and small
 * Gotcha files cut from a real one. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-fuzz-seeds"
#include "config.h"

#include <errno.h>
#include <string.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "cphd-testdata.h"
#include "ef-cphd.h"
#include "ef-dataset.h"
#if HAVE_MATIO
#include <matio.h>
#endif

/*
 *   ef-fuzz-seeds OUTDIR [GOTCHA_FILE]
 *
 * fills OUTDIR/corpus-cphd, OUTDIR/corpus-cphd-xml and, given a Gotcha file, OUTDIR/corpus-gotcha (MATLAB v5
 * only: the fuzz target leaves v7.3, that is HDF5, alone; see ef-fuzz-targets.c). Run it
 * from a build and point OUTDIR at tests/fuzz to refresh the committed seeds:
 *
 *   build/tests/fuzz/ef-fuzz-seeds tests/fuzz ../shared/data/gotcha-pass1-hh/data_3dsar_pass1_az001_HH.mat
 */

static void
die (const char *what, GError *error)
{
  g_printerr ("ef-fuzz-seeds: %s: %s\n", what, error ? error->message : g_strerror (errno));
  exit (1);
}

static guint64
header_value (const char *text, gsize len, const char *key)
{
  g_autofree char *needle = g_strdup_printf ("\n%s := ", key);
  const char *at = g_strstr_len (text, (gssize) MIN (len, (gsize) 4096), needle);

  if (at == NULL)
    die (key, NULL);
  return g_ascii_strtoull (at + strlen (needle), NULL, 10);
}

typedef struct {
  const char  *name;
  EfDomain     domain;
  guint        n_pulses, n_samples;
  gboolean     bistatic, point_targets;
  EfCphdFormat format;
  const char  *version;
} CphdSeed;

/* The first one is the fuzz-cphd-xml template's twin: same spec, so its XML matches the template's PVP
 * and signal blocks. */
static const CphdSeed cphd_seeds[] = {
  { "fx-cf8-101-8x16", EF_DOMAIN_FX, 8, 16, FALSE, TRUE, EF_CPHD_CF8, "1.0.1" },
  { "fx-ci4-110-6x12", EF_DOMAIN_FX, 6, 12, FALSE, TRUE, EF_CPHD_CI4, "1.1.0" },
  { "fx-ci2-101-5x8-random", EF_DOMAIN_FX, 5, 8, FALSE, FALSE, EF_CPHD_CI2, "1.0.1" },
  { "toa-cf8-101-6x16", EF_DOMAIN_TOA, 6, 16, FALSE, TRUE, EF_CPHD_CF8, "1.0.1" },
  { "fx-cf8-110-4x8-bistatic", EF_DOMAIN_FX, 4, 8, TRUE, TRUE, EF_CPHD_CF8, "1.1.0" },
  { "fx-cf8-101-1x2", EF_DOMAIN_FX, 1, 2, FALSE, TRUE, EF_CPHD_CF8, "1.0.1" },
};

static void
write_cphd_seeds (const char *out)
{
  g_autofree char *dir = g_build_filename (out, "corpus-cphd", NULL);
  g_autofree char *xml_dir = g_build_filename (out, "corpus-cphd-xml", NULL);

  if (g_mkdir_with_parents (dir, 0755) != 0 || g_mkdir_with_parents (xml_dir, 0755) != 0)
    die (out, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (cphd_seeds); i++)
    {
      const CphdSeed *s = &cphd_seeds[i];
      g_autofree char *name = g_strdup_printf ("seed-%s.cphd", s->name);
      g_autofree char *xml_name = g_strdup_printf ("seed-%s.xml", s->name);
      g_autofree char *path = g_build_filename (dir, name, NULL);
      g_autofree char *xml_path = g_build_filename (xml_dir, xml_name, NULL);
      g_autoptr (EfDataset) ds = NULL;
      g_autoptr (GError) error = NULL;
      g_autofree char *bytes = NULL;
      EfCphdWriteOptions opts = { s->format, s->version, "ECHOFORM_FUZZ_SEED" };
      CphdTestSpec spec;
      guint64 off, size;
      gsize len;

      cphd_test_spec_init (&spec);
      spec.domain = s->domain;
      spec.n_pulses = s->n_pulses;
      spec.n_samples = s->n_samples;
      spec.bistatic = s->bistatic;
      spec.point_targets = s->point_targets;
      spec.seed = 7 + i;
      ds = cphd_test_dataset (&spec);
      if (!ef_cphd_write (ds, path, &opts, &error))
        die (path, error);
      if (!g_file_get_contents (path, &bytes, &len, &error))
        die (path, error);
      off = header_value (bytes, len, "XML_BLOCK_BYTE_OFFSET");
      size = header_value (bytes, len, "XML_BLOCK_SIZE");
      if (off + size > len || !g_file_set_contents (xml_path, bytes + off, (gssize) size, &error))
        die (xml_path, error);
      g_print ("%s (%zu bytes), %s (%" G_GUINT64_FORMAT " bytes)\n", path, len, xml_path, size);
    }
}

#if HAVE_MATIO
/* A copy of `data` keeping pulses [0, np) and samples [0, ns) of every per-pulse field. */
static matvar_t *
cut_field (matvar_t *f, gsize np, gsize ns, gboolean is_fp)
{
  gsize esize = f->class_type == MAT_C_DOUBLE ? 8 : 4;
  size_t dims[2];
  gsize rows = f->dims[0];

  if (f->class_type == MAT_C_STRUCT)
    {
      unsigned nf = Mat_VarGetNumberOfFields (f);
      char *const *names = Mat_VarGetStructFieldnames (f);
      size_t one[2] = { 1, 1 };
      g_autofree const char **fields = g_new0 (const char *, nf + 1);
      matvar_t *s;

      for (unsigned i = 0; i < nf; i++)
        fields[i] = names[i];
      s = Mat_VarCreateStruct2 (f->name, 2, one, fields);
      for (unsigned i = 0; i < nf; i++)
        Mat_VarSetStructFieldByName (s, names[i], 0,
                                     cut_field (Mat_VarGetStructFieldByName (f, names[i], 0), np, ns, FALSE));
      return s;
    }
  if (is_fp)
    {
      mat_complex_split_t *cs = f->data;
      g_autofree guint8 *re = g_malloc (np * ns * esize), *im = g_malloc (np * ns * esize);
      mat_complex_split_t out = { re, im };

      for (gsize p = 0; p < np; p++)
        {
          memcpy (re + p * ns * esize, (guint8 *) cs->Re + p * rows * esize, ns * esize);
          memcpy (im + p * ns * esize, (guint8 *) cs->Im + p * rows * esize, ns * esize);
        }
      dims[0] = ns;
      dims[1] = np;
      return Mat_VarCreate ("fp", f->class_type, f->data_type, 2, dims, &out, MAT_F_COMPLEX);
    }
  /* A column of frequencies, or a row of per-pulse values. */
  if (f->dims[1] == 1)
    {
      dims[0] = MIN (ns, f->dims[0]);
      dims[1] = 1;
    }
  else
    {
      dims[0] = 1;
      dims[1] = MIN (np, f->dims[1]);
    }
  return Mat_VarCreate (f->name, f->class_type, f->data_type, 2, dims, f->data, 0);
}

static void
write_gotcha_seed (matvar_t *data, const char *path, gsize np, gsize ns, enum mat_ft version,
                   enum matio_compression compress)
{
  unsigned nf = Mat_VarGetNumberOfFields (data);
  char *const *names = Mat_VarGetStructFieldnames (data);
  g_autofree const char **fields = g_new0 (const char *, nf + 1);
  size_t one[2] = { 1, 1 };
  matvar_t *out;
  mat_t *mat;
  GStatBuf st;

  for (unsigned i = 0; i < nf; i++)
    fields[i] = names[i];
  out = Mat_VarCreateStruct2 ("data", 2, one, fields);
  for (unsigned i = 0; i < nf; i++)
    Mat_VarSetStructFieldByName (out, names[i], 0,
                                 cut_field (Mat_VarGetStructFieldByName (data, names[i], 0), np, ns,
                                            strcmp (names[i], "fp") == 0));
  g_unlink (path);
  mat = Mat_CreateVer (path, NULL, version);
  if (mat == NULL || Mat_VarWrite (mat, out, compress) != 0)
    die (path, NULL);
  Mat_Close (mat);
  Mat_VarFree (out);
  g_stat (path, &st);
  g_print ("%s (%" G_GINT64_FORMAT " bytes)\n", path, (gint64) st.st_size);
}

static void
write_gotcha_seeds (const char *out, const char *real)
{
  g_autofree char *dir = g_build_filename (out, "corpus-gotcha", NULL);
  g_autofree char *base = g_path_get_basename (real);
  g_autofree char *copy = g_build_filename (dir, base, NULL);
  g_autofree char *bytes = NULL;
  g_autoptr (GError) error = NULL;
  mat_t *mat;
  matvar_t *data;
  gsize len;
  struct {
    const char *name;
    gsize np, ns;
    enum mat_ft version;
    enum matio_compression compress;
  } cuts[] = {
    { "seed-6x16-v5_HH.mat", 6, 16, MAT_FT_MAT5, MAT_COMPRESSION_NONE },
    { "seed-6x16-v5z_HH.mat", 6, 16, MAT_FT_MAT5, MAT_COMPRESSION_ZLIB },
    { "seed-2x4-v5.mat", 2, 4, MAT_FT_MAT5, MAT_COMPRESSION_NONE },
  };

  if (g_mkdir_with_parents (dir, 0755) != 0)
    die (dir, NULL);
  /* One real file whole. */
  if (!g_file_get_contents (real, &bytes, &len, &error) || !g_file_set_contents (copy, bytes, (gssize) len, &error))
    die (real, error);
  g_print ("%s (%zu bytes)\n", copy, len);

  mat = Mat_Open (real, MAT_ACC_RDONLY);
  if (mat == NULL || (data = Mat_VarRead (mat, "data")) == NULL)
    die (real, NULL);
  for (guint i = 0; i < G_N_ELEMENTS (cuts); i++)
    {
      g_autofree char *path = g_build_filename (dir, cuts[i].name, NULL);
      write_gotcha_seed (data, path, cuts[i].np, cuts[i].ns, cuts[i].version, cuts[i].compress);
    }
  Mat_VarFree (data);
  Mat_Close (mat);
}
#endif

int
main (int argc, char **argv)
{
  if (argc < 2 || argc > 3)
    {
      g_printerr ("usage: %s OUTDIR [GOTCHA_FILE]\n", argv[0]);
      return 2;
    }
  write_cphd_seeds (argv[1]);
  if (argc == 3)
    {
#if HAVE_MATIO
      write_gotcha_seeds (argv[1], argv[2]);
#else
      g_printerr ("ef-fuzz-seeds: built without matio; no Gotcha seeds\n");
      return 1;
#endif
    }
  return 0;
}
