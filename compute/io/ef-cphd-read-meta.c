/* ef-cphd-read-meta.c: what a CPHD file says about itself, parsed strictly: the header, the XML, the PVP layout. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-cphd-read"
#include "config.h"

#include <limits.h>
#include <math.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

#include "ef-cphd.h"
#include "ef-error.h"
#include "ef-cphd-read-private.h"

/* ---- the file header ---- */

static const char *const header_keys[] = {
  "XML_BLOCK_SIZE", "XML_BLOCK_BYTE_OFFSET", "PVP_BLOCK_SIZE", "PVP_BLOCK_BYTE_OFFSET",
  "SIGNAL_BLOCK_SIZE", "SIGNAL_BLOCK_BYTE_OFFSET", "SUPPORT_BLOCK_SIZE", "SUPPORT_BLOCK_BYTE_OFFSET",
};
#define N_REQUIRED_KEYS 6

static guint64 *
header_slot (Header *h, guint i)
{
  guint64 *slots[] = { &h->xml_size, &h->xml_off, &h->pvp_size, &h->pvp_off,
                       &h->sig_size, &h->sig_off, &h->sup_size, &h->sup_off };
  return slots[i];
}

static gboolean
valid_version (const char *v)
{
  /* digits and dots, starting with a digit */
  if (!g_ascii_isdigit (v[0]))
    return FALSE;
  for (const char *c = v; *c; c++)
    if (!g_ascii_isdigit (*c) && *c != '.')
      return FALSE;
  return TRUE;
}

gboolean
ef_cphd_parse_header (const guint8 *data, gsize size, Header *h, GError **error)
{
  gsize limit = MIN (size, (gsize) MAX_HEADER_BYTES);
  const guint8 *nl;
  gsize pos, line_no = 1;

  nl = limit > 0 ? memchr (data, '\n', MIN (limit, (gsize) 32)) : NULL;
  if (size < 5 || memcmp (data, "CPHD/", 5) != 0 || nl == NULL)
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FORMAT,
                   "Not a CPHD file: it does not begin with a \"CPHD/<version>\" line");
      return FALSE;
    }
  h->version = g_strndup ((const char *) data + 5, (gsize) (nl - data) - 5);
  if (!valid_version (h->version))
    {
      g_autofree char *esc = g_strescape (h->version, NULL);
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FORMAT, "Not a CPHD file: bad version \"%.20s\"", esc);
      return FALSE;
    }
  if (!g_str_has_prefix (h->version, "1."))
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_UNSUPPORTED,
                   "CPHD version %s is not supported; Echoform reads CPHD 1.x", h->version);
      return FALSE;
    }

  pos = (gsize) (nl - data) + 1;
  for (;;)
    {
      const char *line = (const char *) data + pos;
      const char *sep, *key_end;
      gsize len;
      g_autofree char *key = NULL;
      g_autofree char *value = NULL;
      gboolean known = FALSE;

      line_no++;
      if (pos + 2 > size)
        {
          g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_TRUNCATED,
                       "The file ends inside its CPHD header (line %" G_GSIZE_FORMAT ")", line_no);
          return FALSE;
        }
      if (data[pos] == '\f' && data[pos + 1] == '\n')
        {
          h->end = pos + 2;
          break;
        }
      if (pos >= limit)
        {
          g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FORMAT,
                       "The CPHD header has no section terminator (\"\\f\\n\") in its first %u bytes",
                       MAX_HEADER_BYTES);
          return FALSE;
        }
      nl = memchr (line, '\n', MIN (limit - pos, (gsize) MAX_HEADER_LINE));
      if (nl == NULL)
        {
          if (limit - pos >= MAX_HEADER_LINE)
            g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FORMAT,
                         "CPHD header line %" G_GSIZE_FORMAT " is longer than %u bytes", line_no, MAX_HEADER_LINE);
          else if (limit < size)
            g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FORMAT,
                         "The CPHD header has no section terminator (\"\\f\\n\") in its first %u bytes",
                         MAX_HEADER_BYTES);
          else
            g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_TRUNCATED,
                         "The file ends inside its CPHD header (line %" G_GSIZE_FORMAT ")", line_no);
          return FALSE;
        }
      len = (gsize) ((const guint8 *) nl - (const guint8 *) line);
      sep = g_strstr_len (line, (gssize) len, " := ");
      if (sep == NULL)
        {
          g_autofree char *shown = g_strndup (line, MIN (len, (gsize) 60));
          g_autofree char *esc = g_strescape (shown, NULL);
          g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FORMAT,
                       "CPHD header line %" G_GSIZE_FORMAT " is not of the form \"KEY := value\": \"%s\"",
                       line_no, esc);
          return FALSE;
        }
      key_end = sep;
      key = g_strndup (line, (gsize) (key_end - line));
      value = g_strndup (sep + 4, len - (gsize) (sep + 4 - line));
      if (key[0] == '\0' || strspn (key, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") != strlen (key))
        {
          g_autofree char *esc = g_strescape (key, NULL);
          g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FORMAT,
                       "CPHD header line %" G_GSIZE_FORMAT " has a malformed key \"%s\"", line_no, esc);
          return FALSE;
        }
      for (guint i = 0; i < G_N_ELEMENTS (header_keys); i++)
        {
          guint64 v;
          g_autoptr (GError) perr = NULL;

          if (strcmp (key, header_keys[i]) != 0)
            continue;
          known = TRUE;
          if (h->seen & (1u << i))
            {
              g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FORMAT, "The CPHD header gives %s twice", key);
              return FALSE;
            }
          if (!g_ascii_string_to_unsigned (value, 10, 0, G_MAXUINT64, &v, &perr))
            {
              g_autofree char *esc = g_strescape (value, NULL);
              g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FORMAT,
                           "The CPHD header's %s is not a byte count: \"%s\"", key, esc);
              return FALSE;
            }
          *header_slot (h, i) = v;
          h->seen |= 1u << i;
        }
      if (!known && line_no < 16)
        {
          /* A damaged header can hold any bytes: log them escaped, never as raw text. */
          g_autofree char *shown = g_strescape (value, NULL);
          g_debug ("CPHD header: %s := %.60s", key, shown);
        }
      pos += len + 1;
    }

  for (guint i = 0; i < N_REQUIRED_KEYS; i++)
    if (!(h->seen & (1u << i)))
      {
        g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FORMAT, "The CPHD header lacks %s", header_keys[i]);
        return FALSE;
      }
  if (((h->seen >> 6) & 3) == 1 || ((h->seen >> 6) & 3) == 2)
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FORMAT,
                   "The CPHD header gives only one of SUPPORT_BLOCK_SIZE and SUPPORT_BLOCK_BYTE_OFFSET");
      return FALSE;
    }
  return TRUE;
}

gboolean
ef_cphd_check_block (const char *name, guint64 off, guint64 len, guint64 file_size, gsize header_end, GError **error)
{
  if (!fits (off, len, file_size))
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_TRUNCATED,
                   "The %s block (%" G_GUINT64_FORMAT " bytes at offset %" G_GUINT64_FORMAT
                   ") runs past the end of the file (%" G_GUINT64_FORMAT " bytes): the file is truncated "
                   "or its header is wrong", name, len, off, file_size);
      return FALSE;
    }
  if (off < header_end)
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FORMAT,
                   "The %s block starts at byte %" G_GUINT64_FORMAT ", inside the CPHD header", name, off);
      return FALSE;
    }
  return TRUE;
}

void
ef_cphd_header_clear (Header *h)
{
  g_clear_pointer (&h->version, g_free);
}

/* ---- XML helpers; element names are matched without their namespace ---- */

xmlNodePtr
ef_cphd_child (xmlNodePtr parent, const char *name)
{
  if (parent == NULL)
    return NULL;
  for (xmlNodePtr c = parent->children; c != NULL; c = c->next)
    if (c->type == XML_ELEMENT_NODE && strcmp ((const char *) c->name, name) == 0)
      return c;
  return NULL;
}

/* Follows "A/B/C" from node. */
xmlNodePtr
ef_cphd_find (xmlNodePtr node, const char *path)
{
  g_auto (GStrv) parts = g_strsplit (path, "/", -1);

  for (guint i = 0; parts[i] != NULL && node != NULL; i++)
    node = ef_cphd_child (node, parts[i]);
  return node;
}

static char *
node_text (xmlNodePtr node)
{
  xmlChar *c = xmlNodeGetContent (node);
  char *s = g_strstrip (g_strdup (c != NULL ? (const char *) c : ""));

  xmlFree (c);
  return s;
}

char *
ef_cphd_text_at (xmlNodePtr node, const char *path)
{
  xmlNodePtr n = ef_cphd_find (node, path);
  return n != NULL ? node_text (n) : NULL;
}

gboolean
ef_cphd_parse_double (const char *s, double *out)
{
  char *end = NULL;

  if (s == NULL || *s == '\0')
    return FALSE;
  *out = g_ascii_strtod (s, &end);
  return end != s && *end == '\0';
}

gboolean
ef_cphd_uint_at (xmlNodePtr node, const char *path, const char *where, guint64 *out, GError **error)
{
  g_autofree char *s = ef_cphd_text_at (node, path);

  if (s == NULL)
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FORMAT, "The CPHD XML lacks %s/%s", where, path);
      return FALSE;
    }
  if (!g_ascii_string_to_unsigned (s, 10, 0, G_MAXUINT64, out, NULL))
    {
      g_autofree char *esc = g_strescape (s, NULL);
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FORMAT,
                   "The CPHD XML's %s/%s is not a non-negative integer: \"%.60s\"", where, path, esc);
      return FALSE;
    }
  return TRUE;
}

gboolean
ef_cphd_xyz_at (xmlNodePtr node, const char *path, double out[3])
{
  xmlNodePtr n = ef_cphd_find (node, path);
  const char *names[3] = { "X", "Y", "Z" };

  if (n == NULL)
    return FALSE;
  for (int i = 0; i < 3; i++)
    {
      g_autofree char *s = ef_cphd_text_at (n, names[i]);
      if (!ef_cphd_parse_double (s, &out[i]) || !isfinite (out[i]))
        return FALSE;
    }
  return TRUE;
}

xmlDocPtr
ef_cphd_parse_xml (const guint8 *xml, guint64 size, GError **error)
{
  xmlParserCtxtPtr ctxt;
  xmlDocPtr doc;

  if (size == 0 || size > INT_MAX)
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FORMAT,
                   "The CPHD XML block has an implausible size (%" G_GUINT64_FORMAT " bytes)", size);
      return NULL;
    }
  ctxt = xmlNewParserCtxt ();
  if (ctxt == NULL)
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FAILED, "Could not create an XML parser");
      return NULL;
    }
  /* No network, no DTD loading, no entity substitution; errors come back to us, not to stderr. */
  doc = xmlCtxtReadMemory (ctxt, (const char *) xml, (int) size, "cphd.xml", NULL,
                           XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
  if (doc == NULL || !ctxt->wellFormed)
    {
      xmlErrorPtr e = xmlCtxtGetLastError (ctxt);
      g_autofree char *msg = g_strstrip (g_strdup (e != NULL && e->message != NULL ? e->message : "unknown error"));

      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FORMAT, "The CPHD XML is malformed (line %d): %s",
                   e != NULL ? e->line : 0, msg);
      if (doc != NULL)
        xmlFreeDoc (doc);
      xmlFreeParserCtxt (ctxt);
      return NULL;
    }
  xmlFreeParserCtxt (ctxt);
  if (doc->intSubset != NULL || doc->extSubset != NULL)
    {
      /* CPHD XML never has a DTD; one here can only be there to declare entities. */
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FORMAT,
                   "The CPHD XML declares a DTD, which CPHD does not use; refusing to read it");
      xmlFreeDoc (doc);
      return NULL;
    }
  return doc;
}

/* ---- PVP layout ---- */

static const struct {
  const char *name;
  guint       size;
  gboolean    required;
} pv_spec[PV_N] = {
  { "TxTime", 1, TRUE }, { "TxPos", 3, TRUE }, { "RcvTime", 1, TRUE }, { "RcvPos", 3, TRUE },
  { "SRPPos", 3, TRUE }, { "FX1", 1, TRUE }, { "FX2", 1, TRUE }, { "SC0", 1, TRUE }, { "SCSS", 1, TRUE },
  { "AmpSF", 1, FALSE }, { "SIGNAL", 1, FALSE },
};

gboolean
ef_cphd_parse_pvp_layout (xmlNodePtr root, guint64 num_bytes_pvp, PvLayout *l, GError **error)
{
  xmlNodePtr pvp = ef_cphd_child (root, "PVP");

  if (pvp == NULL)
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FORMAT, "The CPHD XML has no PVP branch");
      return FALSE;
    }
  for (int i = 0; i < PV_N; i++)
    {
      xmlNodePtr n = ef_cphd_child (pvp, pv_spec[i].name);
      g_autofree char *where = g_strdup_printf ("PVP/%s", pv_spec[i].name);
      g_autofree char *format = NULL;
      guint64 offset, size;

      if (n == NULL)
        {
          if (pv_spec[i].required)
            {
              g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FORMAT,
                           "The CPHD file lacks the required per-vector parameter %s", pv_spec[i].name);
              return FALSE;
            }
          continue;
        }
      if (!ef_cphd_uint_at (n, "Offset", where, &offset, error) || !ef_cphd_uint_at (n, "Size", where, &size, error))
        return FALSE;
      format = ef_cphd_text_at (n, "Format");
      if (size != pv_spec[i].size)
        {
          g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FORMAT,
                       "PVP %s has Size %" G_GUINT64_FORMAT "; CPHD defines it as %u", pv_spec[i].name, size,
                       pv_spec[i].size);
          return FALSE;
        }
      if (format != NULL)
        {
          /* Whitespace between the fields is harmless; drop it before comparing. */
          GString *f = g_string_new (NULL);
          gboolean ok;

          for (const char *c = format; *c; c++)
            if (!g_ascii_isspace (*c))
              g_string_append_c (f, *c);
          ok = i == PV_SIGNAL ? strcmp (f->str, "I8") == 0
                              : (size == 3 ? strcmp (f->str, "X=F8;Y=F8;Z=F8;") == 0 : strcmp (f->str, "F8") == 0);
          g_string_free (f, TRUE);
          if (!ok)
            {
              g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_UNSUPPORTED,
                           "PVP %s has format \"%.40s\"; Echoform reads the standard %s", pv_spec[i].name, format,
                           i == PV_SIGNAL ? "I8" : (size == 3 ? "X=F8;Y=F8;Z=F8;" : "F8"));
              return FALSE;
            }
        }
      if (offset > num_bytes_pvp / 8 || size > num_bytes_pvp / 8 - offset)
        {
          /* The end is shown saturated: an Offset near 2^64 must not wrap round in the message. */
          g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FORMAT,
                       "PVP %s (words %" G_GUINT64_FORMAT "..%" G_GUINT64_FORMAT ") lies outside the %"
                       G_GUINT64_FORMAT "-byte vector record (Data/NumBytesPVP)",
                       pv_spec[i].name, offset, offset > G_MAXUINT64 - size ? G_MAXUINT64 : offset + size,
                       num_bytes_pvp);
          return FALSE;
        }
      l->present[i] = TRUE;
      l->offset[i] = offset * 8;
    }
  /* CPHD places the parameters side by side. Overlapping ones would let a record of a few words pass for
   * a full one, and a small PVP block claim more vectors than it can describe. */
  for (int i = 0; i < PV_N; i++)
    for (int j = i + 1; j < PV_N; j++)
      if (l->present[i] && l->present[j] && l->offset[i] < l->offset[j] + 8 * pv_spec[j].size
          && l->offset[j] < l->offset[i] + 8 * pv_spec[i].size)
        {
          g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FORMAT,
                       "PVP %s (words %" G_GUINT64_FORMAT "..%" G_GUINT64_FORMAT ") overlaps PVP %s (words %"
                       G_GUINT64_FORMAT "..%" G_GUINT64_FORMAT ")", pv_spec[i].name, l->offset[i] / 8,
                       l->offset[i] / 8 + pv_spec[i].size, pv_spec[j].name, l->offset[j] / 8,
                       l->offset[j] / 8 + pv_spec[j].size);
          return FALSE;
        }
  return TRUE;
}
