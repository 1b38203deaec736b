/* ef-cphd-write-xml.c: the XML that a written CPHD file states, with its reference geometry. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-cphd-write"
#include "config.h"

#include <math.h>
#include <string.h>

#include <libxml/tree.h>

#include "ef-cphd.h"
#include "ef-cphd-write-private.h"

#define DEG (180.0 / G_PI)

/* ---- reference geometry (CPHD 1.0.1 section 6.5) ---- */

typedef struct {
  double srp[3];
  double srp_dec;
  double uec_srp[3];
  double ueast[3], unor[3], uup[3];
} SrpFrame;

typedef struct {
  gboolean left;
  double slant_range, ground_range, doppler_cone, graze, incidence, azimuth, twist, slope, layover;
} ArpGeometry;

static void
srp_frame_init (SrpFrame *f, const double srp[3])
{
  double llh[3], lat, lon;

  memcpy (f->srp, srp, sizeof f->srp);
  ef_geo_ecf_to_llh (srp, llh);
  lat = llh[0] / DEG;
  lon = llh[1] / DEG;
  f->srp_dec = ef_norm3 (srp);
  unit3 (srp, f->uec_srp);
  f->ueast[0] = -sin (lon);
  f->ueast[1] = cos (lon);
  f->ueast[2] = 0;
  f->unor[0] = -sin (lat) * cos (lon);
  f->unor[1] = -sin (lat) * sin (lon);
  f->unor[2] = cos (lat);
  f->uup[0] = cos (lat) * cos (lon);
  f->uup[1] = cos (lat) * sin (lon);
  f->uup[2] = sin (lat);
}

static double
wrap360 (double deg)
{
  double r = fmod (deg, 360.0);
  if (r < 0)
    r += 360.0;
  /* fmod of a tiny negative number can round to exactly 360, which the schema excludes. */
  return r >= 360.0 ? 0.0 : r;
}

static double
clamp1 (double x)
{
  return x > 1 ? 1 : (x < -1 ? -1 : x);
}

/* The angles of one aperture reference point relative to the SRP. */
static void
arp_geometry (const SrpFrame *f, const double arp[3], const double varp[3], ArpGeometry *g)
{
  double d[3], uarp[3], uec_arp[3], uvarp[3], left[3], ugpy[3], ugpx[3], spn[3], uspn[3];
  double r, rdot, ea, vm, look;

  ef_sub3 (arp, f->srp, d);
  r = ef_norm3 (d);
  ef_scale3 (d, 1.0 / r, uarp);
  rdot = ef_dot3 (uarp, varp);
  unit3 (arp, uec_arp);
  ea = acos (clamp1 (ef_dot3 (uec_arp, f->uec_srp)));
  g->slant_range = r;
  g->ground_range = f->srp_dec * ea;

  vm = ef_norm3 (varp);
  if (vm > 0)
    {
      ef_scale3 (varp, 1.0 / vm, uvarp);
      ef_cross3 (uec_arp, uvarp, left);
      look = ef_dot3 (left, uarp) < 0 ? 1.0 : -1.0;
      g->doppler_cone = acos (clamp1 (-rdot / vm)) * DEG;
    }
  else
    {
      /* A platform at rest: the standard's bistatic rule, side "L" and a 90 degree cone. */
      uvarp[0] = uvarp[1] = uvarp[2] = 0;
      look = 1.0;
      g->doppler_cone = 90.0;
    }
  g->left = look > 0;

  ef_cross3 (f->uup, uarp, ugpy);
  unit3 (ugpy, ugpy);
  ef_cross3 (ugpy, f->uup, ugpx);
  g->graze = acos (clamp1 (ef_dot3 (uarp, ugpx))) * DEG;
  g->incidence = 90.0 - g->graze;
  g->azimuth = wrap360 (atan2 (ef_dot3 (ugpx, f->ueast), ef_dot3 (ugpx, f->unor)) * DEG);

  ef_cross3 (uarp, uvarp, spn);
  ef_scale3 (spn, look, spn);
  if (ef_norm3 (spn) > 0)
    {
      unit3 (spn, uspn);
      g->twist = -asin (clamp1 (ef_dot3 (uspn, ugpy))) * DEG;
      g->slope = acos (clamp1 (ef_dot3 (f->uup, uspn))) * DEG;
      g->layover = wrap360 (atan2 (-ef_dot3 (uspn, f->ueast), -ef_dot3 (uspn, f->unor)) * DEG);
    }
  else
    g->twist = g->slope = g->layover = 0;
}

/* ---- XML helpers ---- */

static char *
fmt_double (double v)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  /* 17 significant digits read back to the same double. Negative zero prints as "-0", which is a
   * valid xs:double but confuses some readers: drop the sign. */
  if (v == 0)
    v = 0;
  return g_strdup (g_ascii_formatd (buf, sizeof buf, "%.17g", v));
}

static xmlNodePtr
add_text (xmlNodePtr parent, xmlNsPtr ns, const char *name, const char *text)
{
  return xmlNewTextChild (parent, ns, (const xmlChar *) name, (const xmlChar *) text);
}

static xmlNodePtr
add_node (xmlNodePtr parent, xmlNsPtr ns, const char *name)
{
  return xmlNewChild (parent, ns, (const xmlChar *) name, NULL);
}

static void
add_double (xmlNodePtr parent, xmlNsPtr ns, const char *name, double v)
{
  g_autofree char *s = fmt_double (v);
  add_text (parent, ns, name, s);
}

static void
add_uint (xmlNodePtr parent, xmlNsPtr ns, const char *name, guint64 v)
{
  char s[32];
  g_snprintf (s, sizeof s, "%" G_GUINT64_FORMAT, v);
  add_text (parent, ns, name, s);
}

static void
add_int (xmlNodePtr parent, xmlNsPtr ns, const char *name, gint64 v)
{
  char s[32];
  g_snprintf (s, sizeof s, "%" G_GINT64_FORMAT, v);
  add_text (parent, ns, name, s);
}

static void
add_bool (xmlNodePtr parent, xmlNsPtr ns, const char *name, gboolean v)
{
  add_text (parent, ns, name, v ? "true" : "false");
}

static void
add_xyz (xmlNodePtr parent, xmlNsPtr ns, const char *name, const double v[3])
{
  xmlNodePtr n = add_node (parent, ns, name);
  add_double (n, ns, "X", v[0]);
  add_double (n, ns, "Y", v[1]);
  add_double (n, ns, "Z", v[2]);
}

static void
add_xy (xmlNodePtr parent, xmlNsPtr ns, const char *name, double x, double y)
{
  xmlNodePtr n = add_node (parent, ns, name);
  add_double (n, ns, "X", x);
  add_double (n, ns, "Y", y);
}

static void
add_const_poly2d (xmlNodePtr parent, xmlNsPtr ns, const char *name, double c)
{
  xmlNodePtr poly = add_node (parent, ns, name);
  g_autofree char *s = fmt_double (c);
  xmlNodePtr coef;

  xmlNewProp (poly, (const xmlChar *) "order1", (const xmlChar *) "0");
  xmlNewProp (poly, (const xmlChar *) "order2", (const xmlChar *) "0");
  coef = add_text (poly, ns, "Coef", s);
  xmlNewProp (coef, (const xmlChar *) "exponent1", (const xmlChar *) "0");
  xmlNewProp (coef, (const xmlChar *) "exponent2", (const xmlChar *) "0");
}

static void
add_arp_core (xmlNodePtr parent, xmlNsPtr ns, const ArpGeometry *g)
{
  add_text (parent, ns, "SideOfTrack", g->left ? "L" : "R");
  add_double (parent, ns, "SlantRange", g->slant_range);
  add_double (parent, ns, "GroundRange", g->ground_range);
  add_double (parent, ns, "DopplerConeAngle", g->doppler_cone);
  add_double (parent, ns, "GrazeAngle", g->graze);
  add_double (parent, ns, "IncidenceAngle", g->incidence);
  add_double (parent, ns, "AzimuthAngle", g->azimuth);
}

/* ---- the XML ---- */

static void
iac_to_ecf (const Summary *s, const double uiax[3], const double uiay[3], double x, double y, double ecf[3])
{
  for (int i = 0; i < 3; i++)
    ecf[i] = s->srp_ecf[i] + x * uiax[i] + y * uiay[i];
}

char *
ef_cphd_build_xml (const Summary *s, gsize *len_out)
{
  const EfDatasetInfo *info = s->info;
  g_autofree char *href = g_strdup_printf ("http://api.nsgreg.nga.mil/schema/cphd/%s", s->version);
  xmlDocPtr doc = xmlNewDoc ((const xmlChar *) "1.0");
  xmlNodePtr root = xmlNewNode (NULL, (const xmlChar *) "CPHD");
  xmlNsPtr ns = xmlNewNs (root, (const xmlChar *) href, NULL);
  xmlNodePtr n, m, k;
  double uiax[3], uiay[3], e[3] = { 1, 0, 0 }, no[3] = { 0, 1, 0 };
  double half, spacing, fx_c = 0.5 * (s->fx_max + s->fx_min), fx_bw = s->fx_max - s->fx_min;
  guint64 n_grid;
  const char *fmt = s->format == EF_CPHD_CF8 ? "CF8" : (s->format == EF_CPHD_CI4 ? "CI4" : "CI2");
  xmlChar *mem = NULL;
  int mem_len = 0;
  char *out;

  xmlSetNs (root, ns);
  xmlDocSetRootElement (doc, root);

  ef_geo_enu_to_ecf_dir (s->srp_llh, e, uiax);
  ef_geo_enu_to_ecf_dir (s->srp_llh, no, uiay);

  n = add_node (root, ns, "CollectionID");
  add_text (n, ns, "CollectorName", info->source != NULL && info->source[0] ? info->source : "Unknown");
  add_text (n, ns, "CoreName", s->core_name);
  add_text (n, ns, "CollectType", s->bistatic ? "BISTATIC" : "MONOSTATIC");
  m = add_node (n, ns, "RadarMode");
  add_text (m, ns, "ModeType", "SPOTLIGHT");
  add_text (n, ns, "Classification", "UNCLASSIFIED");
  add_text (n, ns, "ReleaseInfo", "UNRESTRICTED");

  n = add_node (root, ns, "Global");
  add_text (n, ns, "DomainType", info->domain == EF_DOMAIN_FX ? "FX" : "TOA");
  /* Echoform's samples follow d = s exp(-j 4 pi f dR / c): phase = -fx * dTOA, SGN = -1. */
  add_text (n, ns, "SGN", "-1");
  m = add_node (n, ns, "Timeline");
  /* The dataset carries times relative to its start only; the absolute start is not known. */
  add_text (m, ns, "CollectionStart", "2000-01-01T00:00:00.000000Z");
  add_double (m, ns, "TxTime1", s->t_min);
  add_double (m, ns, "TxTime2", s->t_max);
  m = add_node (n, ns, "FxBand");
  add_double (m, ns, "FxMin", s->fx_min);
  add_double (m, ns, "FxMax", s->fx_max);
  m = add_node (n, ns, "TOASwath");
  add_double (m, ns, "TOAMin", s->toa_min);
  add_double (m, ns, "TOAMax", s->toa_max);

  /* The image area: a square on the ground plane about the SRP as wide as the saved delay swath. */
  half = MAX (1.0, 0.25 * EF_C * (s->toa_max - s->toa_min));
  spacing = 0.5 * EF_C / (2.0 * fx_bw);
  n_grid = (guint64) CLAMP (ceil (2.0 * half / spacing), 1.0, 1e6);
  spacing = 2.0 * half / (double) n_grid;

  n = add_node (root, ns, "SceneCoordinates");
  add_text (n, ns, "EarthModel", "WGS_84");
  m = add_node (n, ns, "IARP");
  add_xyz (m, ns, "ECF", s->srp_ecf);
  k = add_node (m, ns, "LLH");
  add_double (k, ns, "Lat", s->srp_llh[0]);
  add_double (k, ns, "Lon", s->srp_llh[1]);
  add_double (k, ns, "HAE", s->srp_llh[2]);
  m = add_node (n, ns, "ReferenceSurface");
  k = add_node (m, ns, "Planar");
  add_xyz (k, ns, "uIAX", uiax);
  add_xyz (k, ns, "uIAY", uiay);
  m = add_node (n, ns, "ImageArea");
  add_xy (m, ns, "X1Y1", -half, -half);
  add_xy (m, ns, "X2Y2", half, half);
  m = add_node (n, ns, "ImageAreaCornerPoints");
  {
    /* Clockwise seen from above (east right, north up): SW, NW, NE, SE. */
    const double corners[4][2] = { { -half, -half }, { -half, half }, { half, half }, { half, -half } };
    for (int c = 0; c < 4; c++)
      {
        double ecf[3], llh[3];
        char idx[4];

        iac_to_ecf (s, uiax, uiay, corners[c][0], corners[c][1], ecf);
        ef_geo_ecf_to_llh (ecf, llh);
        k = add_node (m, ns, "IACP");
        g_snprintf (idx, sizeof idx, "%d", c + 1);
        xmlNewProp (k, (const xmlChar *) "index", (const xmlChar *) idx);
        add_double (k, ns, "Lat", llh[0]);
        add_double (k, ns, "Lon", llh[1]);
      }
  }
  m = add_node (n, ns, "ImageGrid");
  k = add_node (m, ns, "IARPLocation");
  add_double (k, ns, "Line", 0.5 * (double) n_grid - 0.5);
  add_double (k, ns, "Sample", 0.5 * (double) n_grid - 0.5);
  k = add_node (m, ns, "IAXExtent");
  add_double (k, ns, "LineSpacing", spacing);
  add_int (k, ns, "FirstLine", 0);
  add_uint (k, ns, "NumLines", n_grid);
  k = add_node (m, ns, "IAYExtent");
  add_double (k, ns, "SampleSpacing", spacing);
  add_int (k, ns, "FirstSample", 0);
  add_uint (k, ns, "NumSamples", n_grid);

  n = add_node (root, ns, "Data");
  add_text (n, ns, "SignalArrayFormat", fmt);
  add_uint (n, ns, "NumBytesPVP", 8 * (guint64) s->layout.n_words);
  add_uint (n, ns, "NumCPHDChannels", 1);
  m = add_node (n, ns, "Channel");
  add_text (m, ns, "Identifier", "1");
  add_uint (m, ns, "NumVectors", s->n_pulses);
  add_uint (m, ns, "NumSamples", s->n_samples);
  add_uint (m, ns, "SignalArrayByteOffset", 0);
  add_uint (m, ns, "PVPArrayByteOffset", 0);
  add_uint (n, ns, "NumSupportArrays", 0);

  n = add_node (root, ns, "Channel");
  add_text (n, ns, "RefChId", "1");
  add_bool (n, ns, "FXFixedCPHD", s->fx_fixed);
  add_bool (n, ns, "TOAFixedCPHD", s->toa_fixed);
  add_bool (n, ns, "SRPFixedCPHD", TRUE);
  m = add_node (n, ns, "Parameters");
  add_text (m, ns, "Identifier", "1");
  add_uint (m, ns, "RefVectorIndex", s->ref_index);
  add_bool (m, ns, "FXFixed", s->fx_fixed);
  add_bool (m, ns, "TOAFixed", s->toa_fixed);
  add_bool (m, ns, "SRPFixed", TRUE);
  add_bool (m, ns, "SignalNormal", TRUE);
  k = add_node (m, ns, "Polarization");
  add_text (k, ns, "TxPol", "UNSPECIFIED");
  add_text (k, ns, "RcvPol", "UNSPECIFIED");
  add_double (m, ns, "FxC", fx_c);
  add_double (m, ns, "FxBW", fx_bw);
  add_double (m, ns, "TOASaved", s->toa_max - s->toa_min);
  k = add_node (m, ns, "DwellTimes");
  add_text (k, ns, "CODId", "1");
  add_text (k, ns, "DwellId", "1");

  n = add_node (root, ns, "PVP");
  for (int f = 0; f < PVP_N_FIELDS; f++)
    {
      if (!s->layout.present[f])
        continue;
      m = add_node (n, ns, ef_cphd_pvp_fields[f].name);
      add_uint (m, ns, "Offset", s->layout.offset[f]);
      add_uint (m, ns, "Size", ef_cphd_pvp_fields[f].size);
      add_text (m, ns, "Format", f == PVP_SIGNAL ? "I8" : (ef_cphd_pvp_fields[f].size == 3 ? "X=F8;Y=F8;Z=F8;" : "F8"));
    }

  n = add_node (root, ns, "Dwell");
  add_uint (n, ns, "NumCODTimes", 1);
  m = add_node (n, ns, "CODTime");
  add_text (m, ns, "Identifier", "1");
  add_const_poly2d (m, ns, "CODTimePoly", s->cod_time);
  add_uint (n, ns, "NumDwellTimes", 1);
  m = add_node (n, ns, "DwellTime");
  add_text (m, ns, "Identifier", "1");
  add_const_poly2d (m, ns, "DwellTimePoly", s->dwell_time);

  /* Reference geometry, computed from the reference vector as section 6.5 of the standard defines. */
  {
    const Pvp *rv = &s->pvp[s->ref_index];
    SrpFrame f;
    double zero[3] = { 0, 0, 0 };

    srp_frame_init (&f, rv->srp);
    n = add_node (root, ns, "ReferenceGeometry");
    m = add_node (n, ns, "SRP");
    add_xyz (m, ns, "ECF", rv->srp);
    /* The SRP is the IARP, so its image area coordinates are the origin. */
    add_xyz (m, ns, "IAC", zero);
    add_double (n, ns, "ReferenceTime", ef_cphd_reference_time (rv));
    add_double (n, ns, "SRPCODTime", s->cod_time);
    add_double (n, ns, "SRPDwellTime", s->dwell_time);

    if (!s->bistatic)
      {
        double arp[3], varp[3];
        ArpGeometry g;

        for (int i = 0; i < 3; i++)
          {
            arp[i] = 0.5 * (rv->tx_pos[i] + rv->rcv_pos[i]);
            varp[i] = 0.5 * (rv->tx_vel[i] + rv->rcv_vel[i]);
          }
        arp_geometry (&f, arp, varp, &g);
        m = add_node (n, ns, "Monostatic");
        add_xyz (m, ns, "ARPPos", arp);
        add_xyz (m, ns, "ARPVel", varp);
        add_arp_core (m, ns, &g);
        add_double (m, ns, "TwistAngle", g.twist);
        add_double (m, ns, "SlopeAngle", g.slope);
        add_double (m, ns, "LayoverAngle", g.layover);
      }
    else
      {
        double uxmt[3], urcv[3], uxmtdot[3], urcvdot[3], bp[3], bpdot[3], d[3];
        double r_xmt, r_rcv, rdot_xmt, rdot_rcv, bp_mag, bistat_ang, bistat_ang_rate;
        double bp_gpz, bp_gp[3], bp_gpx, ubgpx[3], ubgpy[3], graz, azim, bpdot_bgpy, azim_rate;
        double sgn, ubp[3], bpdotn[3], bipn[3], ubipn[3], twst, slope, lo_ang;
        ArpGeometry gt, gr;

        ef_sub3 (rv->tx_pos, rv->srp, d);
        r_xmt = ef_norm3 (d);
        ef_scale3 (d, 1.0 / r_xmt, uxmt);
        rdot_xmt = ef_dot3 (uxmt, rv->tx_vel);
        ef_sub3 (rv->rcv_pos, rv->srp, d);
        r_rcv = ef_norm3 (d);
        ef_scale3 (d, 1.0 / r_rcv, urcv);
        rdot_rcv = ef_dot3 (urcv, rv->rcv_vel);
        for (int i = 0; i < 3; i++)
          {
            uxmtdot[i] = (rv->tx_vel[i] - rdot_xmt * uxmt[i]) / r_xmt;
            urcvdot[i] = (rv->rcv_vel[i] - rdot_rcv * urcv[i]) / r_rcv;
            bp[i] = 0.5 * (uxmt[i] + urcv[i]);
            bpdot[i] = 0.5 * (uxmtdot[i] + urcvdot[i]);
          }
        bp_mag = ef_norm3 (bp);
        bistat_ang = 2.0 * acos (clamp1 (bp_mag));
        bistat_ang_rate = (bp_mag == 0 || bp_mag == 1) ? 0.0 : -(4.0 * ef_dot3 (bp, bpdot) / sin (bistat_ang));
        bp_gpz = ef_dot3 (bp, f.uup);
        for (int i = 0; i < 3; i++)
          bp_gp[i] = bp[i] - bp_gpz * f.uup[i];
        bp_gpx = ef_norm3 (bp_gp);
        unit3 (bp_gp, ubgpx);
        ef_cross3 (f.uup, ubgpx, ubgpy);
        graz = atan (bp_gpz / bp_gpx);
        azim = atan2 (ef_dot3 (ubgpx, f.ueast), ef_dot3 (ubgpx, f.unor));
        bpdot_bgpy = ef_dot3 (bpdot, ubgpy);
        azim_rate = -(bpdot_bgpy / bp_gpx);
        sgn = bpdot_bgpy > 0 ? 1.0 : -1.0;
        unit3 (bp, ubp);
        for (int i = 0; i < 3; i++)
          bpdotn[i] = bpdot[i] - ef_dot3 (bpdot, ubp) * ubp[i];
        ef_cross3 (bp, bpdotn, bipn);
        ef_scale3 (bipn, sgn, bipn);
        unit3 (bipn, ubipn);
        twst = -asin (clamp1 (ef_dot3 (ubipn, ubgpy)));
        slope = acos (clamp1 (ef_dot3 (f.uup, ubipn)));
        lo_ang = atan2 (-ef_dot3 (ubipn, f.ueast), -ef_dot3 (ubipn, f.unor));
        if (bp_gpx == 0)
          azim = azim_rate = graz = twst = slope = lo_ang = 0;
        if (bpdot_bgpy == 0)
          twst = slope = lo_ang = 0;

        m = add_node (n, ns, "Bistatic");
        add_double (m, ns, "AzimuthAngle", wrap360 (azim * DEG));
        add_double (m, ns, "AzimuthAngleRate", azim_rate * DEG);
        add_double (m, ns, "BistaticAngle", bistat_ang * DEG);
        add_double (m, ns, "BistaticAngleRate", bistat_ang_rate * DEG);
        add_double (m, ns, "GrazeAngle", graz * DEG);
        add_double (m, ns, "TwistAngle", twst * DEG);
        add_double (m, ns, "SlopeAngle", slope * DEG);
        add_double (m, ns, "LayoverAngle", wrap360 (lo_ang * DEG));

        arp_geometry (&f, rv->tx_pos, rv->tx_vel, &gt);
        arp_geometry (&f, rv->rcv_pos, rv->rcv_vel, &gr);
        for (int side = 0; side < 2; side++)
          {
            ArpGeometry *g = side == 0 ? &gt : &gr;
            const double *pos = side == 0 ? rv->tx_pos : rv->rcv_pos;
            const double *vel = side == 0 ? rv->tx_vel : rv->rcv_vel;

            if (g->ground_range == 0)
              {
                g->graze = 90;
                g->incidence = 0;
                g->azimuth = 0;
              }
            k = add_node (m, ns, side == 0 ? "TxPlatform" : "RcvPlatform");
            add_double (k, ns, "Time", side == 0 ? rv->tx_time : rv->rcv_time);
            add_xyz (k, ns, "Pos", pos);
            add_xyz (k, ns, "Vel", vel);
            add_arp_core (k, ns, g);
          }
      }
  }

  n = add_node (root, ns, "ProductInfo");
  m = add_node (n, ns, "CreationInfo");
  add_text (m, ns, "Application", "Echoform " PACKAGE_VERSION);
  {
    g_autoptr (GDateTime) now = g_date_time_new_now_utc ();
    g_autofree char *stamp = g_date_time_format (now, "%Y-%m-%dT%H:%M:%SZ");
    add_text (m, ns, "DateTime", stamp);
  }

  xmlDocDumpFormatMemoryEnc (doc, &mem, &mem_len, "UTF-8", 1);
  xmlFreeDoc (doc);
  out = g_strndup ((const char *) mem, mem_len);
  *len_out = (gsize) mem_len;
  xmlFree (mem);
  return out;
}
