/* ef-fuzz-fields.c: structure-aware fuzz targets: valid CPHD and MATLAB files whose numbers the input sets. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-fuzz"
#include "config.h"

#include <math.h>
#include <string.h>

#include <glib/gstdio.h>
#include <zlib.h>

#include "cphd-testdata.h"
#include "ef-cphd.h"
#include "ef-fuzz-targets.h"

/*
 * Byte-level mutation of a whole file seldom turns "16" in the XML into "18446744073709551615" while
 * leaving everything else intact, so the harnesses above never made a size product overflow. These two
 * build a valid file and let the input choose, field by field, which numbers to replace and with which
 * boundary value, keeping the rest consistent: the CPHD header's block sizes and offsets follow the
 * edited XML (unless the input edits them too), and the MATLAB elements' lengths follow their contents.
 * The files then go through ef_fuzz_cphd and ef_fuzz_gotcha.
 */

/* With EF_FUZZ_SAVE=FILE, the file built from an input is also written there, to look at or to open
 * with echoform-cli. */
static void
save_built (const GByteArray *file)
{
  const char *to = g_getenv ("EF_FUZZ_SAVE");

  if (to != NULL && !g_file_set_contents (to, (const char *) file->data, file->len, NULL))
    g_error ("Cannot write %s", to);
}

/* The values a field can be given, besides ones relative to its own and eight raw bytes of input. */
static const char *const boundary_values[] = {
  "0", "1", "2", "4", "7", "8", "16", "2147483647", "2147483648", "2147483649", "4294967295", "4294967296",
  "4294967297", "9007199254740993", "274877906944", "4611686018427387904", "9223372036854775807",
  "9223372036854775808", "18446744073709551615", "18446744073709551616", "-1", "-9223372036854775808",
  "1234567890123456789012345678901234567890", "", " 8 ", "+8", "0x10", "1e3", "NaN", "inf", "-0", "0008",
  "67108864", "16777216",
};
enum { N_BOUNDARY = G_N_ELEMENTS (boundary_values), REL_PLUS1 = N_BOUNDARY, REL_MINUS1, REL_TWICE, REL_HALF,
       REL_PLUS8, REL_TIMES_2_32, REL_PLUS_2_63, RAW_U64, N_VALUE_KINDS };

/* Reads the input a byte at a time; past its end every byte is 0. */
typedef struct {
  const guint8 *data;
  gsize         size, pos;
} Input;

static guint8
next_byte (Input *in)
{
  return in->pos < in->size ? in->data[in->pos++] : 0;
}

static gboolean
at_end (const Input *in)
{
  return in->pos >= in->size;
}

static guint64
next_u64 (Input *in)
{
  guint64 v = 0;
  for (int i = 0; i < 8; i++)
    v = v << 8 | next_byte (in);
  return v;
}

/* The replacement for a field whose current value is o, as chosen by kind. */
static char *
pick_value_u64 (Input *in, guint kind, guint64 o)
{
  kind %= N_VALUE_KINDS;
  if (kind < N_BOUNDARY)
    return g_strdup (boundary_values[kind]);
  switch (kind)
    {
    case REL_PLUS1: return g_strdup_printf ("%" G_GUINT64_FORMAT, o + 1);
    case REL_MINUS1: return g_strdup_printf ("%" G_GUINT64_FORMAT, o - 1);
    case REL_TWICE: return g_strdup_printf ("%" G_GUINT64_FORMAT, o * 2);
    case REL_HALF: return g_strdup_printf ("%" G_GUINT64_FORMAT, o / 2);
    case REL_PLUS8: return g_strdup_printf ("%" G_GUINT64_FORMAT, o + 8);
    case REL_TIMES_2_32: return g_strdup_printf ("%" G_GUINT64_FORMAT, o << 32);
    case REL_PLUS_2_63: return g_strdup_printf ("%" G_GUINT64_FORMAT, o + (G_GUINT64_CONSTANT (1) << 63));
    default: return g_strdup_printf ("%" G_GUINT64_FORMAT, next_u64 (in));
    }
}

static char *
pick_value (Input *in, guint kind, const char *orig)
{
  return pick_value_u64 (in, kind, g_ascii_strtoull (orig, NULL, 10));
}

/* ---- CPHD -------------------------------------------------------------------------------------- */

typedef struct {
  char       *version;  /* owned */
  char       *xml;      /* owned */
  GByteArray *pvp;      /* owned */
  GByteArray *sig;      /* owned */
  guint       bps;      /* bytes per sample */
} CphdTemplate;

#define N_TEMPLATES 5

static gboolean
header_value (const char *text, gsize len, const char *key, guint64 *out)
{
  g_autofree char *needle = g_strdup_printf ("\n%s := ", key);
  const char *at = g_strstr_len (text, (gssize) len, needle);

  if (at == NULL)
    return FALSE;
  *out = g_ascii_strtoull (at + strlen (needle), NULL, 10);
  return TRUE;
}

static const CphdTemplate *
cphd_templates (void)
{
  static gsize done = 0;
  static CphdTemplate t[N_TEMPLATES];

  if (g_once_init_enter (&done))
    {
      /* Formats, domains, versions and geometry that take the reader down its different paths. */
      const struct {
        EfDomain     domain;
        EfCphdFormat format;
        const char  *version;
        guint        n_pulses, n_samples;
        gboolean     bistatic, points;
      } kinds[N_TEMPLATES] = {
        { EF_DOMAIN_FX, EF_CPHD_CF8, "1.0.1", 8, 16, FALSE, TRUE },
        { EF_DOMAIN_FX, EF_CPHD_CI4, "1.0.1", 6, 12, FALSE, FALSE },
        { EF_DOMAIN_FX, EF_CPHD_CI2, "1.1.0", 5, 8, FALSE, FALSE },
        { EF_DOMAIN_TOA, EF_CPHD_CF8, "1.0.1", 6, 16, FALSE, TRUE },
        { EF_DOMAIN_FX, EF_CPHD_CF8, "1.1.0", 4, 8, TRUE, TRUE },
      };
      g_autofree char *dir = g_dir_make_tmp ("ef-fuzz-XXXXXX", NULL);

      if (dir == NULL)
        g_error ("Cannot make a temporary folder for the CPHD templates");
      for (guint i = 0; i < N_TEMPLATES; i++)
        {
          g_autofree char *path = g_build_filename (dir, "template.cphd", NULL);
          g_autofree char *bytes = NULL;
          g_autoptr (EfDataset) ds = NULL;
          g_autoptr (GError) error = NULL;
          EfCphdWriteOptions wo = { .format = kinds[i].format, .version = kinds[i].version };
          CphdTestSpec spec;
          guint64 xo, xs, po, ps, so, ss;
          gsize len;
          const char *nl;

          cphd_test_spec_init (&spec);
          spec.domain = kinds[i].domain;
          spec.n_pulses = kinds[i].n_pulses;
          spec.n_samples = kinds[i].n_samples;
          spec.bistatic = kinds[i].bistatic;
          spec.point_targets = kinds[i].points;
          spec.seed = 17 + i;
          ds = cphd_test_dataset (&spec);
          if (!ef_cphd_write (ds, path, &wo, &error) || !g_file_get_contents (path, &bytes, &len, &error))
            g_error ("Cannot make a CPHD template: %s", error->message);
          g_unlink (path);
          if (!header_value (bytes, len, "XML_BLOCK_BYTE_OFFSET", &xo) || !header_value (bytes, len, "XML_BLOCK_SIZE", &xs)
              || !header_value (bytes, len, "PVP_BLOCK_BYTE_OFFSET", &po)
              || !header_value (bytes, len, "PVP_BLOCK_SIZE", &ps)
              || !header_value (bytes, len, "SIGNAL_BLOCK_BYTE_OFFSET", &so)
              || !header_value (bytes, len, "SIGNAL_BLOCK_SIZE", &ss) || xo + xs > len || po + ps > len
              || so + ss > len || (nl = memchr (bytes, '\n', MIN (len, (gsize) 32))) == NULL)
            g_error ("The writer's CPHD header is not what the fuzzer expects");
          t[i].version = g_strndup (bytes + 5, (gsize) (nl - bytes) - 5);
          t[i].xml = g_strndup (bytes + xo, xs);
          t[i].pvp = g_byte_array_new ();
          g_byte_array_append (t[i].pvp, (const guint8 *) bytes + po, (guint) ps);
          t[i].sig = g_byte_array_new ();
          g_byte_array_append (t[i].sig, (const guint8 *) bytes + so, (guint) ss);
          t[i].bps = kinds[i].format == EF_CPHD_CF8 ? 8 : kinds[i].format == EF_CPHD_CI4 ? 4 : 2;
        }
      g_rmdir (dir);
      g_once_init_leave (&done, 1);
    }
  return t;
}

/* The text of element name inside [from, to) of s: *start and *end bound it. FALSE if absent. */
static gboolean
find_element (const char *s, gsize from, gsize to, const char *name, gsize *start, gsize *end)
{
  g_autofree char *open = g_strdup_printf ("<%s>", name);
  g_autofree char *close = g_strdup_printf ("</%s>", name);
  const char *a, *b;

  if (from >= to)
    return FALSE;
  a = g_strstr_len (s + from, (gssize) (to - from), open);
  if (a == NULL)
    return FALSE;
  a += strlen (open);
  b = g_strstr_len (a, (gssize) (s + to - a), close);
  if (b == NULL)
    return FALSE;
  *start = (gsize) (a - s);
  *end = (gsize) (b - s);
  return TRUE;
}

/* Follows "A/B/C" from the whole document. */
static gboolean
find_path (const GString *xml, const char *path, gsize *start, gsize *end)
{
  g_auto (GStrv) parts = g_strsplit (path, "/", -1);
  gsize a = 0, b = xml->len;

  for (guint i = 0; parts[i] != NULL; i++)
    if (!find_element (xml->str, a, b, parts[i], &a, &b))
      return FALSE;
  *start = a;
  *end = b;
  return TRUE;
}

static const char *const cphd_xml_fields[] = {
  "Data/NumBytesPVP", "Data/NumCPHDChannels", "Data/Channel/NumVectors", "Data/Channel/NumSamples",
  "Data/Channel/SignalArrayByteOffset", "Data/Channel/PVPArrayByteOffset", "Data/NumSupportArrays",
  "Channel/Parameters/FxC", "Channel/Parameters/FxBW", "Global/SGN",
  "PVP/TxTime/Offset", "PVP/TxTime/Size", "PVP/TxPos/Offset", "PVP/TxPos/Size", "PVP/RcvTime/Offset",
  "PVP/RcvTime/Size", "PVP/RcvPos/Offset", "PVP/RcvPos/Size", "PVP/SRPPos/Offset", "PVP/SRPPos/Size",
  "PVP/FX1/Offset", "PVP/FX1/Size", "PVP/FX2/Offset", "PVP/FX2/Size", "PVP/SC0/Offset", "PVP/SC0/Size",
  "PVP/SCSS/Offset", "PVP/SCSS/Size", "PVP/AmpSF/Offset", "PVP/AmpSF/Size", "PVP/SIGNAL/Offset",
  "PVP/SIGNAL/Size",
};
static const char *const cphd_header_keys[] = {
  "XML_BLOCK_SIZE", "XML_BLOCK_BYTE_OFFSET", "PVP_BLOCK_SIZE", "PVP_BLOCK_BYTE_OFFSET", "SIGNAL_BLOCK_SIZE",
  "SIGNAL_BLOCK_BYTE_OFFSET", "SUPPORT_BLOCK_SIZE", "SUPPORT_BLOCK_BYTE_OFFSET",
};
#define N_XML_FIELDS G_N_ELEMENTS (cphd_xml_fields)
#define N_HEADER_KEYS G_N_ELEMENTS (cphd_header_keys)
/* One more operation: a second Data/Channel, a copy of the first, with NumCPHDChannels raised to match. */
#define OP_SECOND_CHANNEL (N_XML_FIELDS + N_HEADER_KEYS)
#define N_CPHD_OPS (OP_SECOND_CHANNEL + 1)
#define MAX_OPS 24
#define MAX_FITTED_BYTES (1u << 20)

/* A number from the edited XML, if it is one. */
static gboolean
xml_u64 (const GString *xml, const char *path, guint64 *out)
{
  gsize a, b;
  g_autofree char *text = NULL;

  if (!find_path (xml, path, &a, &b))
    return FALSE;
  text = g_strndup (xml->str + a, b - a);
  return g_ascii_string_to_unsigned (text, 10, 0, G_MAXUINT64, out, NULL);
}

/* Repeats src to fill dst, so that records and samples look like the template's. */
static void
fill_cyclic (GByteArray *dst, gsize len, const GByteArray *src)
{
  g_byte_array_set_size (dst, (guint) len);
  for (gsize i = 0; i < len; i++)
    dst->data[i] = src->len > 0 ? src->data[i % src->len] : 0;
}

/*
 * Input: a byte choosing the template (bit 7: make the PVP and signal blocks as large as the edited XML
 * says, up to 1 MiB each, so that a consistent file with other sizes is reached), then operations of
 * two bytes, [what, value], until a 0xFF or the end; value picks a boundary value, one relative to the
 * field's own, or the next eight input bytes. What is left after a 0xFF is written over the PVP block at
 * the offset its first two bytes give.
 */
gboolean
ef_fuzz_cphd_fields (const guint8 *data, gsize size)
{
  const CphdTemplate *templates = cphd_templates ();
  Input in = { data, size, 0 };
  guint8 first = next_byte (&in);
  const CphdTemplate *t = &templates[(first & 0x7f) % N_TEMPLATES];
  g_autoptr (GString) xml = g_string_new (t->xml);
  g_autoptr (GByteArray) pvp = g_byte_array_new ();
  g_autoptr (GByteArray) sig = g_byte_array_new ();
  g_autoptr (GByteArray) out = g_byte_array_new ();
  gint header_kind[N_HEADER_KEYS];
  guint64 header_raw[N_HEADER_KEYS] = { 0 };
  guint64 offsets[N_HEADER_KEYS] = { 0 };
  g_autofree char *header = NULL;
  gboolean opened;

  g_byte_array_append (pvp, t->pvp->data, t->pvp->len);
  g_byte_array_append (sig, t->sig->data, t->sig->len);
  for (guint k = 0; k < N_HEADER_KEYS; k++)
    header_kind[k] = -1;

  for (guint op = 0; op < MAX_OPS && !at_end (&in); op++)
    {
      guint8 what = next_byte (&in), kind;
      guint field;

      if (what == 0xFF)
        {
          /* The rest patches the PVP block. */
          gsize at = (gsize) next_byte (&in) << 8 | next_byte (&in);
          for (gsize i = 0; !at_end (&in) && pvp->len > 0; i++)
            pvp->data[(at + i) % pvp->len] = next_byte (&in);
          break;
        }
      kind = next_byte (&in);
      field = what % N_CPHD_OPS;
      if (field < N_XML_FIELDS)
        {
          gsize a, b;
          g_autofree char *orig = NULL;
          g_autofree char *value = NULL;

          if (!find_path (xml, cphd_xml_fields[field], &a, &b))
            continue;
          orig = g_strndup (xml->str + a, b - a);
          value = pick_value (&in, kind, orig);
          g_string_erase (xml, (gssize) a, (gssize) (b - a));
          g_string_insert (xml, (gssize) a, value);
        }
      else if (field < N_XML_FIELDS + N_HEADER_KEYS)
        {
          /* Relative values are taken from what the header would otherwise say, once that is known. */
          guint k = field - N_XML_FIELDS;
          header_kind[k] = kind % N_VALUE_KINDS;
          if (header_kind[k] == RAW_U64)
            header_raw[k] = next_u64 (&in);
        }
      else
        {
          gsize a, b, ca, cb;
          guint64 n;

          if (find_path (xml, "Data", &a, &b) && find_element (xml->str, a, b, "Channel", &ca, &cb)
              && xml_u64 (xml, "Data/NumCPHDChannels", &n))
            {
              g_autofree char *copy = g_strndup (xml->str + ca - strlen ("<Channel>"),
                                                 cb + strlen ("</Channel>") - (ca - strlen ("<Channel>")));
              g_autofree char *count = g_strdup_printf ("%" G_GUINT64_FORMAT, n + 1);
              gsize na, nb;

              GString *c2 = g_string_new (copy);
              const char *id = strstr (c2->str, "<Identifier>");

              /* Another identifier, so that the channels can be told apart in what the reader lists. */
              if (id != NULL)
                g_string_insert_c (c2, (id - c2->str) + (gssize) strlen ("<Identifier>"), 'b');
              g_string_insert (xml, (gssize) (cb + strlen ("</Channel>")), c2->str);
              g_string_free (c2, TRUE);
              if (find_path (xml, "Data/NumCPHDChannels", &na, &nb))
                {
                  g_string_erase (xml, (gssize) na, (gssize) (nb - na));
                  g_string_insert (xml, (gssize) na, count);
                }
            }
        }
    }

  if (first & 0x80)
    {
      guint64 nv, ns, nb, so, po, need;

      if (xml_u64 (xml, "Data/Channel/NumVectors", &nv) && xml_u64 (xml, "Data/NumBytesPVP", &nb)
          && xml_u64 (xml, "Data/Channel/PVPArrayByteOffset", &po) && !__builtin_mul_overflow (nv, nb, &need)
          && !__builtin_add_overflow (need, po, &need) && need <= MAX_FITTED_BYTES)
        {
          g_autoptr (GByteArray) src = g_byte_array_new ();
          g_byte_array_append (src, pvp->data, pvp->len);
          fill_cyclic (pvp, (gsize) need, src);
        }
      if (xml_u64 (xml, "Data/Channel/NumVectors", &nv) && xml_u64 (xml, "Data/Channel/NumSamples", &ns)
          && xml_u64 (xml, "Data/Channel/SignalArrayByteOffset", &so) && !__builtin_mul_overflow (nv, ns, &need)
          && !__builtin_mul_overflow (need, (guint64) t->bps, &need) && !__builtin_add_overflow (need, so, &need)
          && need <= MAX_FITTED_BYTES)
        {
          g_autoptr (GByteArray) src = g_byte_array_new ();
          g_byte_array_append (src, sig->data, sig->len);
          fill_cyclic (sig, (gsize) need, src);
        }
    }

  /* The header follows the edited XML, except where the input set a value itself. The offsets depend on
   * the header's length, which depends on the offsets: settle it by iterating. */
  for (int pass = 0; pass < 4; pass++)
    {
      GString *h = g_string_new (NULL);
      guint64 values[N_HEADER_KEYS] = { xml->len, offsets[1], pvp->len, offsets[3], sig->len, offsets[5], 0, 0 };

      g_string_printf (h, "CPHD/%s\n", t->version);
      for (guint k = 0; k < N_HEADER_KEYS; k++)
        {
          if (header_kind[k] == RAW_U64)
            g_string_append_printf (h, "%s := %" G_GUINT64_FORMAT "\n", cphd_header_keys[k], header_raw[k]);
          else if (header_kind[k] >= 0)
            {
              g_autofree char *v = pick_value_u64 (&in, (guint) header_kind[k], values[k]);
              g_string_append_printf (h, "%s := %s\n", cphd_header_keys[k], v);
            }
          else if (k < 6)
            g_string_append_printf (h, "%s := %" G_GUINT64_FORMAT "\n", cphd_header_keys[k], values[k]);
        }
      g_string_append (h, "CLASSIFICATION := UNCLASSIFIED\nRELEASE_INFO := UNRESTRICTED\n\f\n");
      offsets[1] = h->len;
      offsets[3] = offsets[1] + xml->len + 2;
      offsets[5] = offsets[3] + pvp->len;
      g_free (header);
      header = g_string_free (h, FALSE);
    }
  g_byte_array_append (out, (const guint8 *) header, (guint) strlen (header));
  g_byte_array_append (out, (const guint8 *) xml->str, (guint) xml->len);
  g_byte_array_append (out, (const guint8 *) "\f\n", 2);
  g_byte_array_append (out, pvp->data, pvp->len);
  g_byte_array_append (out, sig->data, sig->len);
  save_built (out);
  opened = ef_fuzz_cphd (out->data, out->len);
  return opened;
}

/* ---- MATLAB v5 --------------------------------------------------------------------------------- */

/* MAT v5 element types and array classes (MATLAB's "MAT-File Format", level 5). */
enum { MI_INT8 = 1, MI_INT32 = 5, MI_UINT32 = 6, MI_SINGLE = 7, MI_DOUBLE = 9, MI_MATRIX = 14, MI_COMPRESSED = 15 };
enum { MX_STRUCT = 2, MX_DOUBLE = 6, MX_SINGLE = 7 };

/* What the input may change in one array: what the file declares, while what it holds stays put. */
enum { KNOB_CLASS, KNOB_COMPLEX, KNOB_DIM0, KNOB_DIM1, KNOB_RANK, KNOB_TYPE, KNOB_BYTES, KNOB_MATRIX_BYTES,
       KNOB_NAME_LEN, KNOB_NAMES_BYTES, KNOB_VALUE, N_KNOBS };

typedef struct MatArray MatArray;
struct MatArray {
  const char *name;       /* field name; the top-level variable's own name is "data" */
  guint32     cls;
  gboolean    is_complex;
  guint32     rows, cols;
  double     *re, *im;    /* owned, rows * cols */
  MatArray   *fields[12]; /* owned, for a struct */
  guint       n_fields;
  gboolean    set[N_KNOBS];
  guint64     knob[N_KNOBS];
};

static MatArray *
mat_array (const char *name, guint32 cls, gboolean is_complex, guint32 rows, guint32 cols)
{
  MatArray *a = g_new0 (MatArray, 1);

  a->name = name;
  a->cls = cls;
  a->is_complex = is_complex;
  a->rows = rows;
  a->cols = cols;
  if (cls != MX_STRUCT)
    {
      a->re = g_new0 (double, (gsize) rows * cols);
      if (is_complex)
        a->im = g_new0 (double, (gsize) rows * cols);
    }
  return a;
}

static void
mat_array_free (MatArray *a)
{
  for (guint i = 0; i < a->n_fields; i++)
    mat_array_free (a->fields[i]);
  g_free (a->re);
  g_free (a->im);
  g_free (a);
}

/* Makes a a field of parent, and lists it in all. */
static MatArray *
add_field (MatArray *parent, MatArray *a, MatArray **all, guint *n_all)
{
  parent->fields[parent->n_fields++] = a;
  all[(*n_all)++] = a;
  return a;
}

static guint64
knob_or (const MatArray *a, int k, guint64 dflt)
{
  return a->set[k] ? a->knob[k] : dflt;
}

static void
put_u32 (GByteArray *out, guint32 v)
{
  guint32 le = GUINT32_TO_LE (v);
  g_byte_array_append (out, (const guint8 *) &le, 4);
}

static void
pad8 (GByteArray *out, gsize start)
{
  static const guint8 zero[8] = { 0 };
  gsize len = out->len - start;
  g_byte_array_append (out, zero, (guint) ((8 - len % 8) % 8));
}

/* A part (real or imaginary) of a numeric array, in the class's own element type. */
static void
put_part (GByteArray *out, const MatArray *a, const double *v)
{
  gsize n = (gsize) a->rows * a->cols, start;
  guint32 type = a->cls == MX_DOUBLE ? MI_DOUBLE : MI_SINGLE;
  gsize esize = type == MI_DOUBLE ? 8 : 4;

  put_u32 (out, (guint32) knob_or (a, KNOB_TYPE, type));
  put_u32 (out, (guint32) knob_or (a, KNOB_BYTES, n * esize));
  start = out->len;
  for (gsize i = 0; i < n; i++)
    {
      if (type == MI_DOUBLE)
        {
          guint64 bits;
          memcpy (&bits, &v[i], 8);
          bits = GUINT64_TO_LE (bits);
          g_byte_array_append (out, (const guint8 *) &bits, 8);
        }
      else
        {
          float f = (float) v[i];
          guint32 bits;
          memcpy (&bits, &f, 4);
          put_u32 (out, bits);
        }
    }
  pad8 (out, start);
}

static void
put_matrix (GByteArray *out, const MatArray *a, const char *own_name)
{
  gsize tag = out->len, start, name_len = strlen (own_name);
  guint rank = (guint) MIN (knob_or (a, KNOB_RANK, 2), (guint64) 8);
  guint32 flags = (guint32) knob_or (a, KNOB_CLASS, a->cls) & 0xff;

  if (knob_or (a, KNOB_COMPLEX, a->is_complex))
    flags |= 0x800;
  put_u32 (out, MI_MATRIX);
  put_u32 (out, 0);  /* the length, once known */
  start = out->len;

  put_u32 (out, MI_UINT32);
  put_u32 (out, 8);
  put_u32 (out, flags);
  put_u32 (out, 0);

  put_u32 (out, MI_INT32);
  put_u32 (out, 4 * rank);
  for (guint d = 0; d < rank; d++)
    put_u32 (out, (guint32) (d == 0 ? knob_or (a, KNOB_DIM0, a->rows) : d == 1 ? knob_or (a, KNOB_DIM1, a->cols) : 1));
  pad8 (out, start);

  put_u32 (out, MI_INT8);
  put_u32 (out, (guint32) name_len);
  {
    gsize s = out->len;
    g_byte_array_append (out, (const guint8 *) own_name, (guint) name_len);
    pad8 (out, s);
  }

  if (a->cls == MX_STRUCT)
    {
      const guint32 field_len = 32;
      gsize s;

      /* The field-name length, as a small element, then the names, each padded to that length. */
      put_u32 (out, MI_INT32 | 4u << 16);
      put_u32 (out, (guint32) knob_or (a, KNOB_NAME_LEN, field_len));
      put_u32 (out, MI_INT8);
      put_u32 (out, (guint32) knob_or (a, KNOB_NAMES_BYTES, (guint64) a->n_fields * field_len));
      s = out->len;
      for (guint i = 0; i < a->n_fields; i++)
        {
          char name[32] = { 0 };
          g_strlcpy (name, a->fields[i]->name, sizeof name);
          g_byte_array_append (out, (const guint8 *) name, field_len);
        }
      pad8 (out, s);
      for (guint i = 0; i < a->n_fields; i++)
        put_matrix (out, a->fields[i], "");
    }
  else
    {
      put_part (out, a, a->re);
      if (a->is_complex)
        put_part (out, a, a->im);
    }
  {
    guint32 len = (guint32) knob_or (a, KNOB_MATRIX_BYTES, out->len - start);
    len = GUINT32_TO_LE (len);
    memcpy (out->data + tag + 4, &len, 4);
  }
}

static const guint64 knob_values[] = {
  0, 1, 2, 3, 4, 7, 8, 15, 16, 0x7fffffff, 0x80000000, 0xffffffff, 0xfffffffe, 0xffff, 0x10000, 1u << 24,
  1u << 26, 1u << 28, 0x7ffffff8,
};
static const double special_doubles[] = { NAN, INFINITY, -INFINITY, 0.0, -1.0, 1e308, 1e-308, 1e39, -0.0 };

/* A value for knob k of array a, relative to what it would be (cur) or from the table or the input. */
static guint64
pick_knob (Input *in, guint8 v, guint64 cur)
{
  guint n = G_N_ELEMENTS (knob_values);

  v %= n + 5;
  if (v < n)
    return knob_values[v];
  switch (v - n)
    {
    case 0: return cur + 1;
    case 1: return cur - 1;
    case 2: return cur * 2;
    case 3: return cur * 1024;
    default: return (guint64) next_byte (in) << 24 | (guint64) next_byte (in) << 16 | (guint64) next_byte (in) << 8
                    | next_byte (in);
    }
}

/*
 * Input: a flags byte (bit 0: compress the variable; 1: doubles, not singles; 2: write af; 3: leave th
 * out; 4: write phi too; 5: put another variable first), a byte for the samples per pulse and one for the
 * pulses, then operations of three bytes, [array, knob, value], each changing what one array declares
 * (its class, complex flag, dimensions, rank, element type, byte counts, the struct's field-name length
 * and names) or one of its values (NaN, infinities, zero...). The arrays hold Gotcha data that reads.
 */
gboolean
ef_fuzz_gotcha_fields (const guint8 *data, gsize size)
{
  Input in = { data, size, 0 };
  guint8 flags = next_byte (&in);
  guint ns = 2 + next_byte (&in) % 15, np = 1 + next_byte (&in) % 12;
  guint32 cls = flags & 2 ? MX_DOUBLE : MX_SINGLE;
  MatArray *all[16];
  guint n_all = 0;
  MatArray *top, *af = NULL;
  g_autoptr (GByteArray) var = g_byte_array_new ();
  g_autoptr (GByteArray) out = g_byte_array_new ();
  gboolean opened;

#define ADD(parent, a) add_field (parent, a, all, &n_all)
  top = mat_array ("data", MX_STRUCT, FALSE, 1, 1);
  all[n_all++] = top;
  {
    MatArray *fp = ADD (top, mat_array ("fp", cls, TRUE, ns, np));
    MatArray *freq = ADD (top, mat_array ("freq", cls, FALSE, ns, 1));
    MatArray *x = ADD (top, mat_array ("x", cls, FALSE, 1, np));
    MatArray *y = ADD (top, mat_array ("y", cls, FALSE, 1, np));
    MatArray *z = ADD (top, mat_array ("z", cls, FALSE, 1, np));
    MatArray *r0 = ADD (top, mat_array ("r0", cls, FALSE, 1, np));
    MatArray *th = flags & 8 ? NULL : ADD (top, mat_array ("th", cls, FALSE, 1, np));
    MatArray *phi = flags & 16 ? ADD (top, mat_array ("phi", cls, FALSE, 1, np)) : NULL;
    MatArray *rc = NULL, *pc = NULL;
    guint32 seed = 1;

    if (flags & 4)
      {
        af = ADD (top, mat_array ("af", MX_STRUCT, FALSE, 1, 1));
        rc = ADD (af, mat_array ("r_correct", cls, FALSE, 1, np));
        pc = ADD (af, mat_array ("ph_correct", cls, FALSE, 1, np));
      }
    for (guint k = 0; k < ns; k++)
      freq->re[k] = 9.6e9 + 1.5e6 * k;
    for (guint p = 0; p < np; p++)
      {
        double az = (0.3 + 0.2 * p) * G_PI / 180.0;
        x->re[p] = 7000.0 * cos (az);
        y->re[p] = 7000.0 * sin (az);
        z->re[p] = 8000.0;
        r0->re[p] = sqrt (7000.0 * 7000.0 + 8000.0 * 8000.0);
        if (th != NULL)
          th->re[p] = az * 180.0 / G_PI;
        if (phi != NULL)
          phi->re[p] = 48.8;
        if (rc != NULL)
          {
            rc->re[p] = 0.01 * p;
            pc->re[p] = 0.1 * p;
          }
        for (guint k = 0; k < ns; k++)
          {
            seed = seed * 1103515245u + 12345u;
            fp->re[p * ns + k] = (double) (seed >> 16 & 0xff) / 128.0 - 1.0;
            fp->im[p * ns + k] = (double) (seed >> 8 & 0xff) / 128.0 - 1.0;
          }
      }
  }
#undef ADD

  for (guint op = 0; op < MAX_OPS && !at_end (&in); op++)
    {
      MatArray *a = all[next_byte (&in) % n_all];
      guint k = next_byte (&in) % N_KNOBS;
      guint8 v = next_byte (&in);

      if (k == KNOB_VALUE)
        {
          gsize n = (gsize) a->rows * a->cols;
          if (a->re != NULL && n > 0)
            {
              double *dst = (v & 0x80) && a->im != NULL ? a->im : a->re;
              dst[next_byte (&in) % n] = special_doubles[v % G_N_ELEMENTS (special_doubles)];
            }
          continue;
        }
      {
        guint64 cur = k == KNOB_DIM0 ? a->rows : k == KNOB_DIM1 ? a->cols : k == KNOB_RANK ? 2 : k == KNOB_CLASS ? a->cls
                      : k == KNOB_COMPLEX ? (guint64) a->is_complex : k == KNOB_NAME_LEN ? 32
                      : k == KNOB_NAMES_BYTES ? 32u * a->n_fields : k == KNOB_TYPE ? MI_SINGLE
                      : (guint64) a->rows * a->cols * 4;
        a->set[k] = TRUE;
        a->knob[k] = pick_knob (&in, v, cur);
      }
    }

  put_matrix (var, top, "data");
  {
    /* The 128-byte header: text, no subsystem data, version 0x0100, and "IM" for little-endian. */
    char head[128];
    memset (head, ' ', 116);
    memcpy (head, "MATLAB 5.0 MAT-file, Platform: GLNXA64, Created on: Thu Jan  1 00:00:00 2015",
            strlen ("MATLAB 5.0 MAT-file, Platform: GLNXA64, Created on: Thu Jan  1 00:00:00 2015"));
    memset (head + 116, 0, 8);
    head[124] = 0x00;
    head[125] = 0x01;
    head[126] = 'I';
    head[127] = 'M';
    g_byte_array_append (out, (const guint8 *) head, 128);
  }
  if (flags & 32)
    {
      /* Another variable before it: matio must step over it to find "data". */
      MatArray *other = mat_array ("", MX_DOUBLE, FALSE, 2, 2);
      memcpy (other->set, top->set, sizeof other->set);
      memcpy (other->knob, top->knob, sizeof other->knob);
      other->set[KNOB_CLASS] = other->set[KNOB_NAME_LEN] = other->set[KNOB_NAMES_BYTES] = FALSE;
      put_matrix (out, other, "pre");
      mat_array_free (other);
    }
  if (flags & 1)
    {
      uLongf clen = compressBound (var->len);
      g_autofree guint8 *z = g_malloc (clen);

      if (compress2 (z, &clen, var->data, var->len, 6) != Z_OK)
        g_error ("zlib could not compress a fuzz input");
      put_u32 (out, MI_COMPRESSED);
      put_u32 (out, (guint32) clen);
      g_byte_array_append (out, z, (guint) clen);
    }
  else
    g_byte_array_append (out, var->data, var->len);
  mat_array_free (top);

  save_built (out);
  opened = ef_fuzz_gotcha (out->data, out->len);
  return opened;
}
