/* ef-cphd-write.c: writes a dataset as a CPHD 1.0.1 / 1.1.0 file (one channel, FX or TOA domain). */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-cphd-write"
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "ef-cphd.h"
#include "ef-error.h"
#include "ef-cphd-write-private.h"

/* Blocks start on this boundary, as common CPHD writers do; the standard only asks for no overlap. */
#define CPHD_ALIGN 64
/* Bytes of samples read from the dataset per block: bounded whatever the dataset's size. */
#define BLOCK_BYTES (8u << 20)
/* Transmitter and receiver further apart than this make the collection bistatic. A monostatic
 * platform moves metres, not kilometres, between transmit and receive. */
#define BISTATIC_SEPARATION 1000.0
/* Fraction of the unambiguous delay span that FX data is declared to hold: 1 / 0.8 = 1.25 times
 * oversampled, above the 1.2 that the standard recommends. */
#define FX_TOA_FILL 0.8

const PvpFieldSpec ef_cphd_pvp_fields[PVP_N_FIELDS] = {
  { "TxTime", 1 }, { "TxPos", 3 }, { "TxVel", 3 }, { "RcvTime", 1 }, { "RcvPos", 3 }, { "RcvVel", 3 },
  { "SRPPos", 3 }, { "AmpSF", 1 }, { "aFDOP", 1 }, { "aFRR1", 1 }, { "aFRR2", 1 }, { "FX1", 1 },
  { "FX2", 1 }, { "TOA1", 1 }, { "TOA2", 1 }, { "TDTropoSRP", 1 }, { "SC0", 1 }, { "SCSS", 1 },
  { "SIGNAL", 1 },
};

static void
pvp_layout_init (PvpLayout *layout, gboolean with_amp_sf)
{
  guint w = 0;

  for (int f = 0; f < PVP_N_FIELDS; f++)
    {
      layout->present[f] = f != PVP_AMP_SF || with_amp_sf;
      if (!layout->present[f])
        continue;
      layout->offset[f] = w;
      w += ef_cphd_pvp_fields[f].size;
    }
  layout->n_words = w;
}

/* ---- velocities of a sampled track ---- */

/* Derivative at times[i] of the parabola through three samples (times may be unevenly spaced). */
static double
lagrange_slope (const double t[3], const double x[3], double at)
{
  double d0 = ((at - t[1]) + (at - t[2])) / ((t[0] - t[1]) * (t[0] - t[2]));
  double d1 = ((at - t[0]) + (at - t[2])) / ((t[1] - t[0]) * (t[1] - t[2]));
  double d2 = ((at - t[0]) + (at - t[1])) / ((t[2] - t[0]) * (t[2] - t[1]));
  return d0 * x[0] + d1 * x[1] + d2 * x[2];
}

/* Velocity of a sampled track pos[n][3] at each sample; times must strictly increase. Three-point
 * differences are exact for constant acceleration, which keeps a circular track's velocities within
 * a small fraction of a mm/s at airborne pulse rates. */
static void
finite_difference_velocity (const double *t, const Vec3 *pos, guint64 n, guint64 i, double vel[3])
{
  if (n < 2)
    {
      vel[0] = vel[1] = vel[2] = 0;
      return;
    }
  if (n == 2)
    {
      double dt = t[1] - t[0];
      for (int k = 0; k < 3; k++)
        vel[k] = (pos[1][k] - pos[0][k]) / dt;
      return;
    }
  {
    guint64 c = i == 0 ? 1 : (i == n - 1 ? n - 2 : i);
    double tt[3] = { t[c - 1], t[c], t[c + 1] };

    for (int k = 0; k < 3; k++)
      {
        double xx[3] = { pos[c - 1][k], pos[c][k], pos[c + 1][k] };
        vel[k] = lagrange_slope (tt, xx, t[i]);
      }
  }
}

/* ---- the collection summary that the XML states (ef-cphd-write-xml.c) ---- */

static void
summary_clear (Summary *s)
{
  g_clear_pointer (&s->core_name, g_free);
  g_clear_pointer (&s->pvp, g_free);
}

double
ef_cphd_reference_time (const Pvp *v)
{
  double d[3], r_xmt, r_rcv;

  ef_sub3 (v->tx_pos, v->srp, d);
  r_xmt = ef_norm3 (d);
  ef_sub3 (v->rcv_pos, v->srp, d);
  r_rcv = ef_norm3 (d);
  return v->tx_time + r_xmt / (r_xmt + r_rcv) * (v->rcv_time - v->tx_time);
}

static gboolean
vec_finite (const double v[3])
{
  return isfinite (v[0]) && isfinite (v[1]) && isfinite (v[2]);
}

/* Builds every vector's parameters in Earth-fixed coordinates from the dataset's local frame. */
static gboolean
summary_build (Summary *s, EfDataset *ds, GError **error)
{
  const EfDatasetInfo *info = &ds->info;
  guint64 n = info->n_pulses, ns = info->n_samples;
  g_autofree double *t = NULL;
  g_autofree double *t_rcv = NULL;
  g_autofree Vec3 *tx = NULL;
  g_autofree Vec3 *rcv = NULL;
  gboolean times_ok = TRUE, rcv_times_ok = TRUE;
  double t_shift = 0, sep_max = 0;

  s->n_pulses = n;
  s->n_samples = ns;

  if (ef_norm3 (info->srp_ecf) > 1.0)
    {
      /* The Earth-fixed point is the origin; the frame's orientation comes from its own geodetic
       * coordinates so that a reader deriving them again lands on exactly the same axes. */
      memcpy (s->srp_ecf, info->srp_ecf, sizeof s->srp_ecf);
      ef_geo_ecf_to_llh (s->srp_ecf, s->srp_llh);
    }
  else
    {
      memcpy (s->srp_llh, info->srp_llh, sizeof s->srp_llh);
      ef_geo_llh_to_ecf (s->srp_llh, s->srp_ecf);
    }
  if (!vec_finite (s->srp_ecf) || !vec_finite (s->srp_llh) || fabs (s->srp_llh[0]) > 90)
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA,
                   "The scene reference point (%g, %g, %g m) is not a place on the Earth",
                   s->srp_llh[0], s->srp_llh[1], s->srp_llh[2]);
      return FALSE;
    }

  t = g_new (double, n);
  t_rcv = g_new (double, n);
  tx = g_new (Vec3, n);
  rcv = g_new (Vec3, n);

  for (guint64 p = 0; p < n; p++)
    {
      const EfPulse *pu = &ds->pulses[p];

      if (!vec_finite (pu->tx) || !vec_finite (pu->rcv) || !isfinite (pu->sc0) || !isfinite (pu->scss)
          || !(pu->scss > 0))
        {
          g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA,
                       "Pulse %" G_GUINT64_FORMAT " has a non-finite position or a bad sample spacing; "
                       "it cannot be written to CPHD", p);
          return FALSE;
        }
      if (info->domain == EF_DOMAIN_FX && !(pu->sc0 > 0))
        {
          g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA,
                       "Pulse %" G_GUINT64_FORMAT " starts at %g Hz; CPHD needs positive frequencies", p,
                       pu->sc0);
          return FALSE;
        }
      memcpy (tx[p], pu->tx, sizeof tx[p]);
      memcpy (rcv[p], pu->rcv, sizeof rcv[p]);
      t[p] = pu->t;
      if (!isfinite (t[p]) || (p > 0 && !(t[p] > t[p - 1])))
        times_ok = FALSE;
      {
        double d[3];
        ef_sub3 (pu->tx, pu->rcv, d);
        sep_max = MAX (sep_max, ef_norm3 (d));
      }
    }

  if (!times_ok)
    {
      /* CPHD needs strictly increasing transmit times, and velocities need a time base. A dataset
       * without one gets a nominal 1 kHz pulse rate; say so, since the velocities follow from it. */
      g_message ("Pulse times do not increase; writing a nominal 1 ms pulse interval");
      for (guint64 p = 0; p < n; p++)
        t[p] = (double) p * 1e-3;
    }
  if (t[0] < 0)
    t_shift = -t[0];

  s->bistatic = sep_max > BISTATIC_SEPARATION;
  s->pvp = g_new0 (Pvp, n);
  for (guint64 p = 0; p < n; p++)
    {
      Pvp *v = &s->pvp[p];

      v->tx_time = t[p] + t_shift;
      ef_geo_enu_to_ecf (s->srp_ecf, s->srp_llh, tx[p], v->tx_pos);
      ef_geo_enu_to_ecf (s->srp_ecf, s->srp_llh, rcv[p], v->rcv_pos);
      memcpy (v->srp, s->srp_ecf, sizeof v->srp);
      v->rcv_time = v->tx_time + (ef_norm3 (tx[p]) + ef_norm3 (rcv[p])) / EF_C;
      t_rcv[p] = v->rcv_time;
      if (p > 0 && !(t_rcv[p] > t_rcv[p - 1]))
        rcv_times_ok = FALSE;
    }

  for (guint64 p = 0; p < n; p++)
    {
      Pvp *v = &s->pvp[p];
      const EfPulse *pu = &ds->pulses[p];
      double vel[3], u[3], rdot_tx, rdot_rcv;

      /* Velocities by differences in the local frame, then turned into Earth-fixed axes: the local
       * frame is a rigid rotation of ECF, so no Coriolis terms arise. */
      finite_difference_velocity (t, (const Vec3 *) tx, n, p, vel);
      ef_geo_enu_to_ecf_dir (s->srp_llh, vel, v->tx_vel);
      finite_difference_velocity (rcv_times_ok ? t_rcv : t, (const Vec3 *) rcv, n, p, vel);
      ef_geo_enu_to_ecf_dir (s->srp_llh, vel, v->rcv_vel);

      ef_sub3 (v->tx_pos, v->srp, u);
      unit3 (u, u);
      rdot_tx = ef_dot3 (v->tx_vel, u);
      ef_sub3 (v->rcv_pos, v->srp, u);
      unit3 (u, u);
      rdot_rcv = ef_dot3 (v->rcv_vel, u);
      v->afdop = 0.5 * (rdot_tx + rdot_rcv) * (-2.0 / EF_C);

      v->sc0 = pu->sc0;
      v->scss = pu->scss;
      if (info->domain == EF_DOMAIN_FX)
        {
          if (pu->fx1 > 0 && pu->fx2 > pu->fx1 && isfinite (pu->fx2))
            {
              v->fx1 = pu->fx1;
              v->fx2 = pu->fx2;
            }
          else
            {
              v->fx1 = pu->sc0;
              v->fx2 = pu->sc0 + (double) (ns - 1) * pu->scss;
              if (!(v->fx2 > v->fx1))
                v->fx2 = v->fx1 + pu->scss;
            }
          v->toa1 = -0.5 * FX_TOA_FILL / pu->scss;
          v->toa2 = 0.5 * FX_TOA_FILL / pu->scss;
        }
      else
        {
          if (pu->fx1 > 0 && pu->fx2 > pu->fx1 && isfinite (pu->fx2))
            {
              v->fx1 = pu->fx1;
              v->fx2 = pu->fx2;
            }
          else if (info->fc > 0 && info->bandwidth > 0 && info->bandwidth < 2 * info->fc)
            {
              v->fx1 = info->fc - 0.5 * info->bandwidth;
              v->fx2 = info->fc + 0.5 * info->bandwidth;
            }
          else
            {
              g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA,
                           "Pulse %" G_GUINT64_FORMAT " of the TOA data has no transmitted band "
                           "(fx1, fx2 or fc and bandwidth)", p);
              return FALSE;
            }
          v->toa1 = pu->sc0;
          v->toa2 = pu->sc0 + (double) (ns - 1) * pu->scss;
          if (!(v->toa2 > v->toa1))
            v->toa2 = v->toa1 + pu->scss;
        }
      if (info->chirp_rate != 0 && isfinite (info->chirp_rate))
        {
          /* The residual-video-phase terms of a dechirped linear FM: 2 / (c gamma) and fx_C times it. */
          v->afrr2 = 2.0 / (EF_C * info->chirp_rate);
          v->afrr1 = 0.5 * (v->fx1 + v->fx2) * v->afrr2;
        }
      v->amp_sf = 1.0;
    }

  s->fx_fixed = s->toa_fixed = TRUE;
  s->fx_min = s->toa_min = s->t_min = G_MAXDOUBLE;
  s->fx_max = s->toa_max = s->t_max = -G_MAXDOUBLE;
  for (guint64 p = 0; p < n; p++)
    {
      const Pvp *v = &s->pvp[p];

      if (v->fx1 != s->pvp[0].fx1 || v->fx2 != s->pvp[0].fx2)
        s->fx_fixed = FALSE;
      if (v->toa1 != s->pvp[0].toa1 || v->toa2 != s->pvp[0].toa2)
        s->toa_fixed = FALSE;
      s->fx_min = MIN (s->fx_min, v->fx1);
      s->fx_max = MAX (s->fx_max, v->fx2);
      s->toa_min = MIN (s->toa_min, v->toa1);
      s->toa_max = MAX (s->toa_max, v->toa2);
      s->t_min = MIN (s->t_min, v->tx_time);
      s->t_max = MAX (s->t_max, v->tx_time);
    }

  /* One centre-of-dwell time and one dwell for the whole scene: the span of the reference times, so
   * that every vector is inside the dwell. */
  {
    double tr1 = ef_cphd_reference_time (&s->pvp[0]), tr2 = ef_cphd_reference_time (&s->pvp[n - 1]);
    s->cod_time = 0.5 * (tr1 + tr2);
    s->dwell_time = MAX (0.0, tr2 - tr1);
  }
  s->ref_index = n / 2;
  return TRUE;
}

/* ---- the file ---- */

static guint64
align_up (guint64 v)
{
  return (v + CPHD_ALIGN - 1) / CPHD_ALIGN * CPHD_ALIGN;
}

typedef struct {
  guint64 xml_off, xml_size, pvp_off, pvp_size, sig_off, sig_size;
} Layout;

static char *
build_header (const char *version, const Layout *l)
{
  return g_strdup_printf ("CPHD/%s\n"
                          "XML_BLOCK_SIZE := %" G_GUINT64_FORMAT "\n"
                          "XML_BLOCK_BYTE_OFFSET := %" G_GUINT64_FORMAT "\n"
                          "PVP_BLOCK_SIZE := %" G_GUINT64_FORMAT "\n"
                          "PVP_BLOCK_BYTE_OFFSET := %" G_GUINT64_FORMAT "\n"
                          "SIGNAL_BLOCK_SIZE := %" G_GUINT64_FORMAT "\n"
                          "SIGNAL_BLOCK_BYTE_OFFSET := %" G_GUINT64_FORMAT "\n"
                          "CLASSIFICATION := UNCLASSIFIED\n"
                          "RELEASE_INFO := UNRESTRICTED\n"
                          "\f\n",
                          version, l->xml_size, l->xml_off, l->pvp_size, l->pvp_off, l->sig_size, l->sig_off);
}

static gboolean
write_all (int fd, const void *buf, gsize len, guint64 offset, const char *what, GError **error)
{
  const guint8 *p = buf;

  while (len > 0)
    {
      gssize w = pwrite (fd, p, MIN (len, (gsize) G_MAXSSIZE), (off_t) offset);
      if (w < 0)
        {
          int saved = errno;
          if (saved == EINTR)
            continue;
          g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FAILED, "Could not write the %s: %s", what,
                       g_strerror (saved));
          return FALSE;
        }
      p += w;
      len -= (gsize) w;
      offset += (guint64) w;
    }
  return TRUE;
}

static void
put_be64 (guint8 *dst, guint64 v)
{
  v = GUINT64_TO_BE (v);
  memcpy (dst, &v, 8);
}

static void
put_be_double (guint8 *dst, double d)
{
  guint64 v;
  memcpy (&v, &d, 8);
  put_be64 (dst, v);
}

static void
pack_pvp (const Summary *s, const Pvp *v, guint8 *dst)
{
  const PvpLayout *l = &s->layout;
  const double *vals[PVP_N_FIELDS] = {
    [PVP_TX_TIME] = &v->tx_time, [PVP_TX_POS] = v->tx_pos, [PVP_TX_VEL] = v->tx_vel,
    [PVP_RCV_TIME] = &v->rcv_time, [PVP_RCV_POS] = v->rcv_pos, [PVP_RCV_VEL] = v->rcv_vel,
    [PVP_SRP_POS] = v->srp, [PVP_AMP_SF] = &v->amp_sf, [PVP_AFDOP] = &v->afdop, [PVP_AFRR1] = &v->afrr1,
    [PVP_AFRR2] = &v->afrr2, [PVP_FX1] = &v->fx1, [PVP_FX2] = &v->fx2, [PVP_TOA1] = &v->toa1,
    [PVP_TOA2] = &v->toa2, [PVP_SC0] = &v->sc0, [PVP_SCSS] = &v->scss,
  };
  static const double zero = 0;

  for (int f = 0; f < PVP_N_FIELDS; f++)
    {
      if (!l->present[f])
        continue;
      if (f == PVP_SIGNAL)
        {
          put_be64 (dst + 8 * l->offset[f], 1);
          continue;
        }
      for (guint i = 0; i < ef_cphd_pvp_fields[f].size; i++)
        put_be_double (dst + 8 * (l->offset[f] + i), vals[f] != NULL ? vals[f][i] : zero);
    }
}

/* Converts one vector to big-endian bytes; integer formats get their scale so that the largest
 * component uses the whole range. Returns the number of NaN or infinite components met. */
static guint64
pack_vector (EfCphdFormat format, const EfCf32 *x, guint64 ns, guint8 *dst, double *amp_sf)
{
  guint64 bad = 0;

  if (format == EF_CPHD_CF8)
    {
      for (guint64 k = 0; k < ns; k++)
        {
          float re = crealf (x[k]), im = cimagf (x[k]);
          guint32 a, b;

          if (!isfinite (re) || !isfinite (im))
            bad++;
          memcpy (&a, &re, 4);
          memcpy (&b, &im, 4);
          a = GUINT32_TO_BE (a);
          b = GUINT32_TO_BE (b);
          memcpy (dst + 8 * k, &a, 4);
          memcpy (dst + 8 * k + 4, &b, 4);
        }
      *amp_sf = 1.0;
      return bad;
    }

  {
    double peak = 0, full = format == EF_CPHD_CI4 ? 32767.0 : 127.0, inv;

    for (guint64 k = 0; k < ns; k++)
      {
        double re = crealf (x[k]), im = cimagf (x[k]);
        if (isfinite (re))
          peak = MAX (peak, fabs (re));
        if (isfinite (im))
          peak = MAX (peak, fabs (im));
      }
    *amp_sf = peak > 0 ? peak / full : 1.0;
    inv = 1.0 / *amp_sf;
    for (guint64 k = 0; k < ns; k++)
      {
        double c[2] = { crealf (x[k]), cimagf (x[k]) };
        long q[2];

        for (int j = 0; j < 2; j++)
          {
            if (!isfinite (c[j]))
              {
                /* Integers have no NaN: the sample becomes zero, which range compression treats as
                 * missing data anyway. */
                bad++;
                q[j] = 0;
              }
            else
              q[j] = CLAMP (lrint (c[j] * inv), -(long) full, (long) full);
          }
        if (format == EF_CPHD_CI4)
          {
            guint16 a = GUINT16_TO_BE ((guint16) (gint16) q[0]), b = GUINT16_TO_BE ((guint16) (gint16) q[1]);
            memcpy (dst + 4 * k, &a, 2);
            memcpy (dst + 4 * k + 2, &b, 2);
          }
        else
          {
            dst[2 * k] = (guint8) (gint8) q[0];
            dst[2 * k + 1] = (guint8) (gint8) q[1];
          }
      }
  }
  return bad;
}

static guint
format_bytes (EfCphdFormat format)
{
  return format == EF_CPHD_CF8 ? 8 : (format == EF_CPHD_CI4 ? 4 : 2);
}

static char *
default_core_name (const char *path)
{
  g_autofree char *base = g_path_get_basename (path);
  char *dot = strrchr (base, '.');

  if (dot != NULL && dot != base)
    *dot = '\0';
  return g_strdup (base[0] ? base : "echoform");
}

gboolean
ef_cphd_write (EfDataset *dataset, const char *path, const EfCphdWriteOptions *options, GError **error)
{
  const EfDatasetInfo *info;
  Summary s = { 0 };
  EfCphdFormat format = options != NULL ? options->format : EF_CPHD_CF8;
  const char *version = options != NULL && options->version != NULL ? options->version : "1.0.1";
  g_autofree char *xml = NULL;
  g_autofree char *header = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *base = NULL;
  g_autofree char *tmp_path = NULL;
  g_autofree EfCf32 *block = NULL;
  g_autofree guint8 *bytes = NULL;
  Layout l = { 0 };
  gsize xml_len = 0;
  guint bps;
  guint64 bytes_per_vector, pulses_per_block, bad = 0;
  int fd = -1;
  gboolean ok = FALSE;

  g_return_val_if_fail (dataset != NULL, FALSE);
  g_return_val_if_fail (path != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  info = &dataset->info;
  if (info->domain != EF_DOMAIN_FX && info->domain != EF_DOMAIN_TOA)
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_UNSUPPORTED,
                   "CPHD holds FX or TOA data; this dataset is %s", ef_domain_to_string (info->domain));
      return FALSE;
    }
  if (!info->has_geo)
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA,
                   "The dataset has no position on the Earth; CPHD needs one to place the pulses in "
                   "Earth-fixed coordinates");
      return FALSE;
    }
  if (info->n_pulses == 0 || info->n_samples == 0 || dataset->pulses == NULL)
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA, "The dataset is empty");
      return FALSE;
    }
  if (format != EF_CPHD_CF8 && format != EF_CPHD_CI4 && format != EF_CPHD_CI2)
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_UNSUPPORTED, "Unknown CPHD sample format %d", format);
      return FALSE;
    }
  if (g_strcmp0 (version, "1.0.1") != 0 && g_strcmp0 (version, "1.1.0") != 0)
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_UNSUPPORTED,
                   "Echoform writes CPHD 1.0.1 or 1.1.0, not \"%s\"", version);
      return FALSE;
    }

  bps = format_bytes (format);
  bytes_per_vector = info->n_samples * bps;
  if (info->n_samples > G_MAXUINT64 / 8 / info->n_pulses)
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA, "The dataset is too large to write");
      return FALSE;
    }

  s.info = info;
  s.format = format;
  s.version = version;
  s.core_name = options != NULL && options->core_name != NULL ? g_strdup (options->core_name)
                                                            : default_core_name (path);
  pvp_layout_init (&s.layout, format != EF_CPHD_CF8);
  if (!summary_build (&s, dataset, error))
    goto out;

  xml = ef_cphd_build_xml (&s, &xml_len);

  l.xml_size = xml_len;
  l.pvp_size = info->n_pulses * 8 * s.layout.n_words;
  l.sig_size = info->n_pulses * bytes_per_vector;
  /* The header holds the offsets and the offsets follow the header: settle the fixed point (the
   * header only grows with longer numbers, so this ends within a few rounds). */
  for (int round = 0; round < 8; round++)
    {
      g_autofree char *h = build_header (version, &l);
      Layout next = l;

      next.xml_off = align_up (strlen (h));
      next.pvp_off = align_up (next.xml_off + l.xml_size + 2);
      next.sig_off = align_up (next.pvp_off + l.pvp_size);
      if (memcmp (&next, &l, sizeof l) == 0)
        {
          header = g_steal_pointer (&h);
          break;
        }
      l = next;
    }
  g_assert (header != NULL);

  dir = g_path_get_dirname (path);
  base = g_path_get_basename (path);
  tmp_path = g_strdup_printf ("%s%c.%s.XXXXXX", dir, G_DIR_SEPARATOR, base);
  fd = g_mkstemp_full (tmp_path, O_RDWR | O_CLOEXEC, 0644);
  if (fd < 0)
    {
      int saved = errno;
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FAILED, "Could not create a file in %s: %s", dir,
                   g_strerror (saved));
      g_clear_pointer (&tmp_path, g_free);
      goto out;
    }
  /* mkstemp makes the file private; a written dataset is an ordinary document. */
  if (fchmod (fd, 0644) != 0)
    g_debug ("fchmod %s: %s", tmp_path, g_strerror (errno));

  {
    g_autofree guint8 *front = g_malloc0 (l.pvp_off);

    memcpy (front, header, strlen (header));
    memcpy (front + l.xml_off, xml, xml_len);
    memcpy (front + l.xml_off + xml_len, "\f\n", 2);
    if (!write_all (fd, front, l.pvp_off, 0, "CPHD header and XML", error))
      goto out;
  }

  pulses_per_block = MAX ((guint64) 1, MIN (info->n_pulses, BLOCK_BYTES / (info->n_samples * sizeof (EfCf32))));
  block = g_new (EfCf32, pulses_per_block * info->n_samples);
  bytes = g_malloc (pulses_per_block * bytes_per_vector);
  for (guint64 first = 0; first < info->n_pulses; first += pulses_per_block)
    {
      guint count = (guint) MIN (pulses_per_block, info->n_pulses - first);

      if (!ef_dataset_read_block (dataset, first, count, block, error))
        goto out;
      for (guint i = 0; i < count; i++)
        bad += pack_vector (format, block + (gsize) i * info->n_samples, info->n_samples,
                            bytes + (gsize) i * bytes_per_vector, &s.pvp[first + i].amp_sf);
      if (!write_all (fd, bytes, count * bytes_per_vector, l.sig_off + first * bytes_per_vector,
                      "CPHD signal block", error))
        goto out;
    }
  if (bad > 0)
    g_debug ("%" G_GUINT64_FORMAT " sample components were NaN or infinite%s", bad,
             format == EF_CPHD_CF8 ? "" : " and were written as zero");

  /* The PVPs go last because the integer formats' scale factors are known only now. */
  {
    gsize rec = 8 * s.layout.n_words;
    guint64 per = MAX ((guint64) 1, (guint64) (1u << 20) / rec);
    g_autofree guint8 *buf = g_malloc (per * rec);

    for (guint64 first = 0; first < info->n_pulses; first += per)
      {
        guint64 count = MIN (per, info->n_pulses - first);

        memset (buf, 0, count * rec);
        for (guint64 i = 0; i < count; i++)
          pack_pvp (&s, &s.pvp[first + i], buf + i * rec);
        if (!write_all (fd, buf, count * rec, l.pvp_off + first * rec, "CPHD PVP block", error))
          goto out;
      }
  }

  /* The gap between the PVPs and the signal was skipped, not written; make sure the file has its
   * full length even if the last write fell short of it (it cannot, but the check is cheap). */
  if (ftruncate (fd, (off_t) (l.sig_off + l.sig_size)) != 0 || fsync (fd) != 0)
    {
      int saved = errno;
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FAILED, "Could not finish %s: %s", tmp_path,
                   g_strerror (saved));
      goto out;
    }
  if (close (fd) != 0)
    {
      int saved = errno;
      fd = -1;
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FAILED, "Could not close %s: %s", tmp_path,
                   g_strerror (saved));
      goto out;
    }
  fd = -1;
  if (g_rename (tmp_path, path) != 0)
    {
      int saved = errno;
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FAILED, "Could not rename %s to %s: %s", tmp_path, path,
                   g_strerror (saved));
      goto out;
    }
  g_clear_pointer (&tmp_path, g_free);
  ok = TRUE;

out:
  if (fd >= 0)
    close (fd);
  if (tmp_path != NULL)
    g_unlink (tmp_path);
  summary_clear (&s);
  return ok;
}
