/* ef-cphd-read.c: opens CPHD 1.x files: a strict header, the XML, the PVPs, and a signal read on demand. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-cphd-read"
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <limits.h>
#include <math.h>
#include <string.h>

#include <glib/gstdio.h>

#include <libxml/tree.h>

/* glibc defines CMPLXF only for GCC. */
#ifndef CMPLXF
#define CMPLXF(x, y) __builtin_complex ((float) (x), (float) (y))
#endif

#include "ef-cphd.h"
#include "ef-error.h"
#include "ef-cphd-read-private.h"

/* Past these a header is lying, whatever the file's size: they match ef_dataset_validate's limits. */
#define MAX_VECTORS (G_GUINT64_CONSTANT (1) << 26)
#define MAX_SAMPLES (G_GUINT64_CONSTANT (1) << 24)
/* Samples and PVPs are read through a buffer of about this size, whatever the block asked for. */
#define READ_CHUNK_BYTES (4u * 1024u * 1024u)

/*
 * The file is read with pread(), never memory-mapped: a mapped file that another program truncates
 * while it is open kills the reader with SIGBUS on the next page it touches, whereas a short read is
 * an error that can be reported. Every buffer is sized from a count that was first checked against
 * the bytes the file holds.
 */

typedef struct {
  int           fd;             /* owned */
  char         *path;           /* owned, for messages */
  guint64       signal_offset;  /* byte offset in the file of the chosen channel's first sample */
  guint64       vector_bytes;
  EfCphdFormat  format;
  gboolean      conjugate;      /* SGN = +1 */
  double       *amp_sf;         /* owned, one per vector, or NULL when the file has none */
  guint8       *scratch;        /* owned: raw samples being converted */
  gsize         scratch_size;
} CphdPriv;

/* ---- byte helpers ---- */

static double
be_double (const guint8 *p)
{
  guint64 v;
  double d;

  memcpy (&v, p, 8);
  v = GUINT64_FROM_BE (v);
  memcpy (&d, &v, 8);
  return d;
}

static gint64
be_int64 (const guint8 *p)
{
  guint64 v;

  memcpy (&v, p, 8);
  return (gint64) GUINT64_FROM_BE (v);
}

static float
be_float (const guint8 *p)
{
  guint32 v;
  float f;

  memcpy (&v, p, 4);
  v = GUINT32_FROM_BE (v);
  memcpy (&f, &v, 4);
  return f;
}

static gint16
be_int16 (const guint8 *p)
{
  guint16 v;

  memcpy (&v, p, 2);
  return (gint16) GUINT16_FROM_BE (v);
}

/* a * b, FALSE when it does not fit in 64 bits. */
static gboolean
mul_u64 (guint64 a, guint64 b, guint64 *out)
{
  return !__builtin_mul_overflow (a, b, out);
}

/* Reads len bytes at offset, or says why not: a file that ends early (cut short, perhaps while it was
 * open) is TRUNCATED, any other failure is the system's. */
static gboolean
read_at (int fd, const char *path, void *buf, gsize len, guint64 offset, const char *what, GError **error)
{
  guint8 *p = buf;
  gsize done = 0;

  while (done < len)
    {
      gssize n = pread (fd, p + done, MIN (len - done, (gsize) G_MAXSSIZE), (off_t) (offset + done));

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          int saved = errno;
          g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FAILED, "Could not read %s from %s: %s", what, path,
                       g_strerror (saved));
          return FALSE;
        }
      if (n == 0)
        {
          GStatBuf st;
          guint64 now = fstat (fd, &st) == 0 ? (guint64) st.st_size : offset + done;

          g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_TRUNCATED,
                       "%s now ends at byte %" G_GUINT64_FORMAT ", inside %s (bytes %" G_GUINT64_FORMAT " to %"
                       G_GUINT64_FORMAT "): the file was cut short while it was open", path, now, what,
                       offset, offset + len);
          return FALSE;
        }
      done += (gsize) n;
    }
  return TRUE;
}

/* ---- channels ---- */

typedef struct {
  char   *id;        /* owned */
  guint64 n_vectors, n_samples, signal_offset, pvp_offset;
} Channel;

static void
channels_free (Channel *ch, guint n)
{
  for (guint i = 0; i < n; i++)
    g_free (ch[i].id);
  g_free (ch);
}

/* ---- the dataset ---- */

static gboolean
cphd_read_block (EfDataset *self, guint64 first, guint count, EfCf32 *out, GError **error)
{
  CphdPriv *priv = self->priv;
  guint64 ns = self->info.n_samples;
  guint64 bad = 0;
  float sgn = priv->conjugate ? -1.0f : 1.0f;
  /* Whole vectors per read; a single vector may exceed the chunk, and is then read alone. */
  guint per_read = (guint) MAX ((guint64) 1, MIN ((guint64) count, READ_CHUNK_BYTES / priv->vector_bytes));

  /* ef_cphd_open checked that every vector lies inside the file, so none of this overflows. */
  if (priv->scratch_size < per_read * priv->vector_bytes)
    {
      g_free (priv->scratch);
      priv->scratch_size = per_read * priv->vector_bytes;
      priv->scratch = g_malloc (priv->scratch_size);
    }
  for (guint done = 0; done < count;)
    {
      guint n = MIN (per_read, count - done);

      if (!read_at (priv->fd, priv->path, priv->scratch, (gsize) n * priv->vector_bytes,
                    priv->signal_offset + (first + done) * priv->vector_bytes, "the signal array", error))
        {
          g_prefix_error (error, "Cannot read pulses %" G_GUINT64_FORMAT "..%" G_GUINT64_FORMAT ": ", first + done,
                          first + done + n - 1);
          return FALSE;
        }
      for (guint i = 0; i < n; i++)
        {
          guint64 v = first + done + i;
          const guint8 *src = priv->scratch + (gsize) i * priv->vector_bytes;
          EfCf32 *dst = out + (gsize) (done + i) * ns;
          float scale = priv->amp_sf != NULL ? (float) priv->amp_sf[v] : 1.0f;

          switch (priv->format)
            {
            case EF_CPHD_CF8:
              for (guint64 k = 0; k < ns; k++)
                {
                  float re = be_float (src + 8 * k), im = be_float (src + 8 * k + 4);
                  if (priv->amp_sf != NULL)
                    {
                      re *= scale;
                      im *= scale;
                    }
                  if (isnan (re) || isnan (im))
                    bad++;
                  dst[k] = CMPLXF (re, sgn * im);
                }
              break;
            case EF_CPHD_CI4:
              for (guint64 k = 0; k < ns; k++)
                dst[k] = CMPLXF (scale * (float) be_int16 (src + 4 * k),
                                 sgn * scale * (float) be_int16 (src + 4 * k + 2));
              break;
            case EF_CPHD_CI2:
              for (guint64 k = 0; k < ns; k++)
                dst[k] = CMPLXF (scale * (float) (gint8) src[2 * k], sgn * scale * (float) (gint8) src[2 * k + 1]);
              break;
            default:
              g_assert_not_reached ();
            }
        }
      done += n;
    }
  /* NaN samples are left for range compression, which treats them as missing. */
  if (bad > 0)
    g_debug ("%" G_GUINT64_FORMAT " NaN samples in pulses %" G_GUINT64_FORMAT "..%" G_GUINT64_FORMAT, bad, first,
             first + count - 1);
  return TRUE;
}

static void
cphd_finalize (EfDataset *self)
{
  CphdPriv *priv = self->priv;

  if (priv == NULL)
    return;
  if (priv->fd >= 0)
    close (priv->fd);
  g_free (priv->path);
  g_free (priv->amp_sf);
  g_free (priv->scratch);
  g_free (priv);
}

static const EfDatasetOps cphd_ops = {
  .read_block = cphd_read_block,
  .finalize = cphd_finalize,
};

gboolean
ef_cphd_sniff (const guint8 *head, gsize len)
{
  g_return_val_if_fail (head != NULL || len == 0, FALSE);
  return len >= 6 && memcmp (head, "CPHD/", 5) == 0 && g_ascii_isdigit (head[5]);
}

EfDataset *
ef_cphd_open (const char *path, guint channel, GError **error)
{
  g_autoptr (EfDataset) ds = NULL;
  g_autofree guint8 *head = NULL;
  g_autofree guint8 *xml = NULL;
  g_autofree guint8 *pvp = NULL;
  GStatBuf st;
  int fd;
  gsize head_len;
  guint64 size, pvp_bytes, sig_bytes;
  Header h = { 0 };
  xmlDocPtr doc = NULL;
  xmlNodePtr root, data_node;
  Channel *channels = NULL;
  guint n_channels = 0;
  g_autofree char *domain = NULL;
  g_autofree char *sgn = NULL;
  g_autofree char *format = NULL;
  guint64 num_bytes_pvp, num_channels_decl, bps;
  EfCphdFormat fmt;
  PvLayout pl = { 0 };
  double origin[3], origin_llh[3];
  const Channel *ch;
  CphdPriv *priv;
  gboolean ok = FALSE;

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  /* O_NONBLOCK: a FIFO named as the file must not hang the open; it is refused below. Reads from a
   * regular file ignore the flag. */
  fd = g_open (path, O_RDONLY | O_CLOEXEC | O_NONBLOCK, 0);
  if (fd < 0)
    {
      int saved = errno;
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FAILED, "Could not open %s: %s", path, g_strerror (saved));
      return NULL;
    }
  if (fstat (fd, &st) != 0)
    {
      int saved = errno;
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FAILED, "Could not open %s: %s", path, g_strerror (saved));
      close (fd);
      return NULL;
    }
  if (!S_ISREG (st.st_mode))
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FAILED, "Could not open %s: %s", path,
                   S_ISDIR (st.st_mode) ? g_strerror (EISDIR) : "not a regular file");
      close (fd);
      return NULL;
    }
  size = (guint64) st.st_size;
  if (size == 0)
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FORMAT, "%s is empty", path);
      close (fd);
      return NULL;
    }

  /* The header parser looks at most two bytes past its limit. */
  head_len = (gsize) MIN (size, (guint64) MAX_HEADER_BYTES + 2);
  head = g_malloc (head_len);
  if (!read_at (fd, path, head, head_len, 0, "the file header", error)
      || !ef_cphd_parse_header (head, head_len, &h, error)
      || !ef_cphd_check_block ("XML", h.xml_off, h.xml_size, size, h.end, error)
      || !ef_cphd_check_block ("PVP", h.pvp_off, h.pvp_size, size, h.end, error)
      || !ef_cphd_check_block ("signal", h.sig_off, h.sig_size, size, h.end, error)
      || ((h.seen & (1u << 6)) && !ef_cphd_check_block ("support", h.sup_off, h.sup_size, size, h.end, error)))
    goto out;
  g_clear_pointer (&head, g_free);

  if (h.xml_size == 0 || h.xml_size > INT_MAX)
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FORMAT,
                   "The CPHD XML block has an implausible size (%" G_GUINT64_FORMAT " bytes)", h.xml_size);
      goto out;
    }
  /* check_block put the XML inside the file: this allocation is no larger than the file. */
  xml = g_malloc ((gsize) h.xml_size);
  if (!read_at (fd, path, xml, (gsize) h.xml_size, h.xml_off, "the XML block", error))
    goto out;
  doc = ef_cphd_parse_xml (xml, h.xml_size, error);
  g_clear_pointer (&xml, g_free);
  if (doc == NULL)
    goto out;
  root = xmlDocGetRootElement (doc);
  if (root == NULL || strcmp ((const char *) root->name, "CPHD") != 0)
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FORMAT, "The XML block's root element is <%s>, not <CPHD>",
                   root != NULL ? (const char *) root->name : "");
      goto out;
    }
  if (root->ns != NULL && root->ns->href != NULL
      && !g_str_has_suffix ((const char *) root->ns->href, h.version))
    g_debug ("CPHD header says %s but the XML namespace is %s", h.version, (const char *) root->ns->href);

  domain = ef_cphd_text_at (root, "Global/DomainType");
  sgn = ef_cphd_text_at (root, "Global/SGN");
  format = ef_cphd_text_at (root, "Data/SignalArrayFormat");
  if (domain == NULL || (strcmp (domain, "FX") != 0 && strcmp (domain, "TOA") != 0))
    {
      g_set_error (error, EF_IO_ERROR, domain == NULL ? EF_IO_ERROR_FORMAT : EF_IO_ERROR_UNSUPPORTED,
                   "Global/DomainType is \"%.20s\"; Echoform reads FX and TOA", domain != NULL ? domain : "");
      goto out;
    }
  if (sgn == NULL || (strcmp (sgn, "-1") != 0 && strcmp (sgn, "+1") != 0 && strcmp (sgn, "1") != 0))
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FORMAT, "Global/SGN is \"%.20s\"; it must be +1 or -1",
                   sgn != NULL ? sgn : "");
      goto out;
    }
  if (g_strcmp0 (format, "CF8") == 0)
    fmt = EF_CPHD_CF8, bps = 8;
  else if (g_strcmp0 (format, "CI4") == 0)
    fmt = EF_CPHD_CI4, bps = 4;
  else if (g_strcmp0 (format, "CI2") == 0)
    fmt = EF_CPHD_CI2, bps = 2;
  else
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_UNSUPPORTED,
                   "Data/SignalArrayFormat is \"%.20s\"; Echoform reads CF8, CI4 and CI2", format ? format : "");
      goto out;
    }
  if (ef_cphd_find (root, "Data/SignalCompressionID") != NULL)
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_UNSUPPORTED, "Compressed CPHD signal arrays are not supported");
      goto out;
    }

  if (!ef_cphd_uint_at (root, "Data/NumBytesPVP", "CPHD", &num_bytes_pvp, error)
      || !ef_cphd_uint_at (root, "Data/NumCPHDChannels", "CPHD", &num_channels_decl, error))
    goto out;
  if (num_bytes_pvp == 0 || num_bytes_pvp % 8 != 0)
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FORMAT,
                   "Data/NumBytesPVP is %" G_GUINT64_FORMAT "; it must be a positive multiple of 8", num_bytes_pvp);
      goto out;
    }
  if (!ef_cphd_parse_pvp_layout (root, num_bytes_pvp, &pl, error))
    goto out;

  /* The channels, in the order Data lists them. */
  data_node = ef_cphd_child (root, "Data");
  {
    GArray *arr = g_array_new (FALSE, TRUE, sizeof (Channel));

    for (xmlNodePtr c = data_node->children; c != NULL; c = c->next)
      {
        Channel cc = { 0 };
        gboolean good;

        if (c->type != XML_ELEMENT_NODE || strcmp ((const char *) c->name, "Channel") != 0)
          continue;
        cc.id = ef_cphd_text_at (c, "Identifier");
        /* Appended first so that the cleanup frees its identifier whatever happens next. */
        g_array_append_val (arr, cc);
        if (cc.id == NULL)
          {
            g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FORMAT, "A Data/Channel has no Identifier");
            good = FALSE;
          }
        else
          good = ef_cphd_uint_at (c, "NumVectors", "Data/Channel", &cc.n_vectors, error)
                 && ef_cphd_uint_at (c, "NumSamples", "Data/Channel", &cc.n_samples, error)
                 && ef_cphd_uint_at (c, "SignalArrayByteOffset", "Data/Channel", &cc.signal_offset, error)
                 && ef_cphd_uint_at (c, "PVPArrayByteOffset", "Data/Channel", &cc.pvp_offset, error);
        if (!good)
          {
            n_channels = arr->len;
            channels = (Channel *) g_array_free (arr, FALSE);
            goto out;
          }
        g_array_index (arr, Channel, arr->len - 1) = cc;
      }
    n_channels = arr->len;
    channels = (Channel *) g_array_free (arr, FALSE);
  }
  if (n_channels == 0 || n_channels != num_channels_decl)
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FORMAT,
                   "Data/NumCPHDChannels says %" G_GUINT64_FORMAT " but Data lists %u channel(s)",
                   num_channels_decl, n_channels);
      goto out;
    }
  if (channel >= n_channels)
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA,
                   "There is no channel %u: the file has %u channel%s (first: \"%s\")", channel, n_channels,
                   n_channels == 1 ? "" : "s", channels[0].id);
      goto out;
    }
  ch = &channels[channel];

  /* Sizes: absurd ones are rejected before anything is allocated, and every array must lie inside
   * its block (which lies inside the file). The per-vector arrays below are sized from NumVectors only
   * once NumVectors x NumBytesPVP is known to fit in the PVP block: a record holds at least the 15 words
   * of the required PVPs, more than an EfPulse, so none of them outgrows the bytes the file holds. */
  if (ch->n_vectors == 0 || ch->n_samples == 0)
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA,
                   "Channel \"%s\" is empty: %" G_GUINT64_FORMAT " vectors of %" G_GUINT64_FORMAT " samples",
                   ch->id, ch->n_vectors, ch->n_samples);
      goto out;
    }
  if (ch->n_vectors > MAX_VECTORS || ch->n_samples > MAX_SAMPLES)
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA,
                   "Channel \"%s\" claims NumVectors %" G_GUINT64_FORMAT " and NumSamples %" G_GUINT64_FORMAT
                   ", beyond what Echoform accepts (%" G_GUINT64_FORMAT " x %" G_GUINT64_FORMAT ")",
                   ch->id, ch->n_vectors, ch->n_samples, MAX_VECTORS, MAX_SAMPLES);
      goto out;
    }
  if (!mul_u64 (ch->n_vectors, num_bytes_pvp, &pvp_bytes) || !fits (ch->pvp_offset, pvp_bytes, h.pvp_size))
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FORMAT,
                   "Channel \"%s\"'s PVP array (%" G_GUINT64_FORMAT " vectors of %" G_GUINT64_FORMAT
                   " bytes at offset %" G_GUINT64_FORMAT ") does not fit in the %" G_GUINT64_FORMAT
                   "-byte PVP block", ch->id, ch->n_vectors, num_bytes_pvp, ch->pvp_offset, h.pvp_size);
      goto out;
    }
  if (!mul_u64 (ch->n_samples, bps, &sig_bytes) || !mul_u64 (sig_bytes, ch->n_vectors, &sig_bytes)
      || !fits (ch->signal_offset, sig_bytes, h.sig_size))
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FORMAT,
                   "Channel \"%s\"'s signal array (%" G_GUINT64_FORMAT " x %" G_GUINT64_FORMAT " %s samples at "
                   "offset %" G_GUINT64_FORMAT ") does not fit in the %" G_GUINT64_FORMAT "-byte signal block",
                   ch->id, ch->n_vectors, ch->n_samples, format, ch->signal_offset, h.sig_size);
      goto out;
    }

  /* The local frame's origin: the reference geometry's SRP, else the image area reference point. */
  if (!ef_cphd_xyz_at (root, "ReferenceGeometry/SRP/ECF", origin)
      && !ef_cphd_xyz_at (root, "SceneCoordinates/IARP/ECF", origin))
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FORMAT,
                   "The CPHD XML has neither ReferenceGeometry/SRP/ECF nor SceneCoordinates/IARP/ECF");
      goto out;
    }
  if (!(sqrt (origin[0] * origin[0] + origin[1] * origin[1] + origin[2] * origin[2]) > 1.0))
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA,
                   "The scene reference point is at the centre of the Earth");
      goto out;
    }
  ef_geo_ecf_to_llh (origin, origin_llh);

  ds = ef_dataset_alloc (&cphd_ops);
  priv = g_new0 (CphdPriv, 1);
  ds->priv = priv;
  ds->info.domain = strcmp (domain, "FX") == 0 ? EF_DOMAIN_FX : EF_DOMAIN_TOA;
  ds->info.n_pulses = ch->n_vectors;
  ds->info.n_samples = ch->n_samples;
  ds->info.has_geo = TRUE;
  memcpy (ds->info.srp_ecf, origin, sizeof origin);
  memcpy (ds->info.srp_llh, origin_llh, sizeof origin_llh);
  ds->info.n_channels = n_channels;
  ds->info.channel = channel;
  ds->info.channel_names = g_new0 (char *, n_channels + 1);
  for (guint i = 0; i < n_channels; i++)
    ds->info.channel_names[i] = g_strdup (channels[i].id);
  ds->info.source = g_strdup_printf ("CPHD %s", h.version);
  ds->info.path = g_strdup (path);

  priv->fd = -1;
  priv->format = fmt;
  priv->vector_bytes = ch->n_samples * bps;
  priv->signal_offset = h.sig_off + ch->signal_offset;
  priv->path = g_strdup (path);
  priv->conjugate = strcmp (sgn, "-1") != 0;
  if (pl.present[PV_AMP_SF])
    priv->amp_sf = g_new (double, ch->n_vectors);

  G_STATIC_ASSERT (sizeof (EfPulse) <= 15 * 8);
  ds->pulses = g_new0 (EfPulse, ch->n_vectors);
  {
    /* The records are read a few megabytes at a time; pvp_bytes, checked above, bounds it all. */
    guint64 per_read = MAX ((guint64) 1, MIN (ch->n_vectors, READ_CHUNK_BYTES / num_bytes_pvp));
    double fx_min = G_MAXDOUBLE, fx_max = -G_MAXDOUBLE;
    guint64 no_signal = 0;

    pvp = g_malloc ((gsize) (per_read * num_bytes_pvp));
    for (guint64 v0 = 0; v0 < ch->n_vectors; v0 += per_read)
      {
        guint64 n = MIN (per_read, ch->n_vectors - v0);

        if (!read_at (fd, path, pvp, (gsize) (n * num_bytes_pvp), h.pvp_off + ch->pvp_offset + v0 * num_bytes_pvp,
                      "the PVP block", error))
          goto out;
        for (guint64 r = 0; r < n; r++)
          {
            guint64 v = v0 + r;
            const guint8 *rec = pvp + (gsize) (r * num_bytes_pvp);
            EfPulse *p = &ds->pulses[v];
            double tx[3], rcv[3], srp[3], dt[3], dr[3];

            for (int i = 0; i < 3; i++)
              {
                tx[i] = be_double (rec + pl.offset[PV_TX_POS] + 8 * i);
                rcv[i] = be_double (rec + pl.offset[PV_RCV_POS] + 8 * i);
                srp[i] = be_double (rec + pl.offset[PV_SRP_POS] + 8 * i);
                dt[i] = tx[i] - srp[i];
                dr[i] = rcv[i] - srp[i];
              }
            ef_geo_ecf_to_enu (origin, origin_llh, tx, p->tx);
            ef_geo_ecf_to_enu (origin, origin_llh, rcv, p->rcv);
            /* The vector's own SRP is its phase reference: half the two-way range to it, in double and in
             * Earth-fixed coordinates where the numbers are exact. */
            p->r0 = 0.5 * (sqrt (dt[0] * dt[0] + dt[1] * dt[1] + dt[2] * dt[2])
                           + sqrt (dr[0] * dr[0] + dr[1] * dr[1] + dr[2] * dr[2]));
            p->sc0 = be_double (rec + pl.offset[PV_SC0]);
            p->scss = be_double (rec + pl.offset[PV_SCSS]);
            p->t = be_double (rec + pl.offset[PV_TX_TIME]);
            p->fx1 = be_double (rec + pl.offset[PV_FX1]);
            p->fx2 = be_double (rec + pl.offset[PV_FX2]);
            if (isfinite (p->fx1) && isfinite (p->fx2))
              {
                fx_min = MIN (fx_min, p->fx1);
                fx_max = MAX (fx_max, p->fx2);
              }
            if (priv->amp_sf != NULL)
              {
                priv->amp_sf[v] = be_double (rec + pl.offset[PV_AMP_SF]);
                if (!isfinite (priv->amp_sf[v]))
                  {
                    g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA,
                                 "Vector %" G_GUINT64_FORMAT " has a non-finite AmpSF", v);
                    goto out;
                  }
              }
            if (pl.present[PV_SIGNAL] && be_int64 (rec + pl.offset[PV_SIGNAL]) == 0)
              no_signal++;
          }
      }
    if (no_signal > 0)
      g_debug ("%" G_GUINT64_FORMAT " vectors of channel \"%s\" are marked as holding no signal", no_signal, ch->id);

    /* The band: the channel's FxC and FxBW, or the PVPs' span when they are absent. */
    {
      xmlNodePtr cp = NULL;
      xmlNodePtr chan = ef_cphd_child (root, "Channel");
      double fxc = 0, fxbw = 0;

      for (xmlNodePtr c = chan != NULL ? chan->children : NULL; c != NULL; c = c->next)
        {
          g_autofree char *id = NULL;
          if (c->type != XML_ELEMENT_NODE || strcmp ((const char *) c->name, "Parameters") != 0)
            continue;
          id = ef_cphd_text_at (c, "Identifier");
          if (g_strcmp0 (id, ch->id) == 0)
            {
              cp = c;
              break;
            }
        }
      if (cp != NULL)
        {
          g_autofree char *s1 = ef_cphd_text_at (cp, "FxC");
          g_autofree char *s2 = ef_cphd_text_at (cp, "FxBW");
          if (!ef_cphd_parse_double (s1, &fxc) || !isfinite (fxc))
            fxc = 0;
          if (!ef_cphd_parse_double (s2, &fxbw) || !isfinite (fxbw))
            fxbw = 0;
        }
      else
        g_debug ("No Channel/Parameters for channel \"%s\"", ch->id);
      if (fxc > 0 && fxbw > 0)
        {
          ds->info.fc = fxc;
          ds->info.bandwidth = fxbw;
        }
      else if (fx_max > fx_min)
        {
          ds->info.fc = 0.5 * (fx_min + fx_max);
          ds->info.bandwidth = fx_max - fx_min;
        }
    }
  }

  if (!ef_dataset_validate (ds, error))
    goto out;
  priv->fd = fd;
  ok = TRUE;

out:
  if (!ok)
    close (fd);
  if (doc != NULL)
    xmlFreeDoc (doc);
  channels_free (channels, n_channels);
  ef_cphd_header_clear (&h);
  if (!ok)
    return NULL;
  return g_steal_pointer (&ds);
}
