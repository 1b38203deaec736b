/* ef-sicd-xml.c: the SICD 1.3.0 XML of a formed region (libxml2): geometry, grid, timeline, formation. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-sicd"
#include "config.h"

#include <complex.h>
#include <libxml/tree.h>
#include <math.h>
#include <string.h>

#include "ef-aperture.h"
#include "ef-cphd.h"
#include "ef-error.h"
#include "ef-sicd.h"
#include "ef-vec3.h"

#define SICD_NS "urn:SICD:1.3.0"
/* The Taylor shape range compression takes when none is given (ef_window_fill). */
#define TAYLOR_NBAR 4
#define TAYLOR_SLL -35.0
/* sarkit's and SICD's -3 dB width of the uniform window's response, in 1 / bandwidth. */
#define KAPFAC 0.8859
/* The antenna-position polynomial's highest order. */
#define ARP_ORDER 5

typedef double Vec3[3];

/* ---- XML helpers ---- */

static xmlNodePtr
add_text (xmlNodePtr parent, const char *name, const char *text)
{
  return xmlNewTextChild (parent, NULL, (const xmlChar *) name, (const xmlChar *) text);
}

static void
add_double (xmlNodePtr parent, const char *name, double v)
{
  char s[G_ASCII_DTOSTR_BUF_SIZE];

  g_ascii_formatd (s, sizeof s, "%.17g", v);
  add_text (parent, name, s);
}

static void
add_int (xmlNodePtr parent, const char *name, gint64 v)
{
  g_autofree char *s = g_strdup_printf ("%" G_GINT64_FORMAT, v);
  add_text (parent, name, s);
}

static void
add_xyz (xmlNodePtr parent, const char *name, const double v[3])
{
  xmlNodePtr n = xmlNewChild (parent, NULL, (const xmlChar *) name, NULL);

  add_double (n, "X", v[0]);
  add_double (n, "Y", v[1]);
  add_double (n, "Z", v[2]);
}

static void
set_int_prop (xmlNodePtr n, const char *name, gint64 v)
{
  g_autofree char *s = g_strdup_printf ("%" G_GINT64_FORMAT, v);
  xmlNewProp (n, (const xmlChar *) name, (const xmlChar *) s);
}

static void
add_param (xmlNodePtr parent, const char *name, const char *value)
{
  xmlNodePtr n = add_text (parent, "Parameter", value);

  xmlNewProp (n, (const xmlChar *) "name", (const xmlChar *) name);
}

/* A constant two-dimensional polynomial. */
static void
add_poly2d_const (xmlNodePtr parent, const char *name, double v)
{
  xmlNodePtr p = xmlNewChild (parent, NULL, (const xmlChar *) name, NULL);
  xmlNodePtr c;
  char s[G_ASCII_DTOSTR_BUF_SIZE];

  set_int_prop (p, "order1", 0);
  set_int_prop (p, "order2", 0);
  g_ascii_formatd (s, sizeof s, "%.17g", v);
  c = add_text (p, "Coef", s);
  set_int_prop (c, "exponent1", 0);
  set_int_prop (c, "exponent2", 0);
}

static void
add_poly1d (xmlNodePtr parent, const char *name, const double *coef, guint order)
{
  xmlNodePtr p = xmlNewChild (parent, NULL, (const xmlChar *) name, NULL);

  set_int_prop (p, "order1", order);
  for (guint k = 0; k <= order; k++)
    {
      char s[G_ASCII_DTOSTR_BUF_SIZE];
      xmlNodePtr c;

      g_ascii_formatd (s, sizeof s, "%.17g", coef[k]);
      c = add_text (p, "Coef", s);
      set_int_prop (c, "exponent1", k);
    }
}

/* ---- the antenna's path as a polynomial in time ---- */

/* Least squares of order `order` through (t[i], y[i]) as a power series in t: fitted in a scaled time
 * (t - tm) / h for conditioning, then expanded. Returns FALSE when the system is singular. */
static gboolean
fit_poly (const double *t, const double *y, guint n, guint order, double *coef)
{
  double tmin = t[0], tmax = t[0], tm, h, a[ARP_ORDER + 1][ARP_ORDER + 2] = { { 0 } }, s[ARP_ORDER + 1];
  guint m = order + 1;

  for (guint i = 1; i < n; i++)
    {
      tmin = MIN (tmin, t[i]);
      tmax = MAX (tmax, t[i]);
    }
  tm = 0.5 * (tmin + tmax);
  h = 0.5 * (tmax - tmin);
  if (!(h > 0))
    return FALSE;
  for (guint i = 0; i < n; i++)
    {
      double x = (t[i] - tm) / h, pw[ARP_ORDER + 1];

      pw[0] = 1;
      for (guint k = 1; k < m; k++)
        pw[k] = pw[k - 1] * x;
      for (guint r = 0; r < m; r++)
        {
          for (guint c = 0; c < m; c++)
            a[r][c] += pw[r] * pw[c];
          a[r][m] += pw[r] * y[i];
        }
    }
  /* Gaussian elimination with partial pivoting on the small normal system. */
  for (guint c = 0; c < m; c++)
    {
      guint piv = c;

      for (guint r = c + 1; r < m; r++)
        if (fabs (a[r][c]) > fabs (a[piv][c]))
          piv = r;
      if (!(fabs (a[piv][c]) > 1e-300))
        return FALSE;
      if (piv != c)
        for (guint k = 0; k <= m; k++)
          {
            double tmp = a[c][k];
            a[c][k] = a[piv][k];
            a[piv][k] = tmp;
          }
      for (guint r = c + 1; r < m; r++)
        {
          double f = a[r][c] / a[c][c];

          for (guint k = c; k <= m; k++)
            a[r][k] -= f * a[c][k];
        }
    }
  for (int r = (int) m - 1; r >= 0; r--)
    {
      double v = a[r][m];

      for (guint k = r + 1; k < m; k++)
        v -= a[r][k] * s[k];
      s[r] = v / a[r][r];
    }
  /* sum_k s_k ((t - tm) / h)^k as powers of t. */
  memset (coef, 0, m * sizeof *coef);
  for (guint k = 0; k < m; k++)
    {
      double binom = 1, hk = pow (h, -(double) k);

      for (guint j = 0; j <= k; j++)
        {
          coef[j] += s[k] * hk * binom * pow (-tm, (double) (k - j));
          binom = binom * (double) (k - j) / (double) (j + 1);
        }
    }
  return TRUE;
}

static double
poly_eval (const double *c, guint order, double t, guint deriv)
{
  double v = 0;

  for (int k = (int) order; k >= (int) deriv; k--)
    {
      double f = 1;

      for (guint d = 0; d < deriv; d++)
        f *= (double) (k - d);
      v = v * t + f * c[k];
    }
  return v;
}

/* ---- windows ---- */

static const char *
window_name (EfWindow w)
{
  switch (w)
    {
    case EF_WINDOW_HANN:
      return "HANNING";
    case EF_WINDOW_HAMMING:
      return "HAMMING";
    case EF_WINDOW_TAYLOR:
      return "TAYLOR";
    case EF_WINDOW_RECT:
    default:
      return "UNIFORM";
    }
}

/* The -3 dB width of the window's impulse response in 1 / bandwidth, from its continuous form sampled
 * finely (the uniform window's is SICD's 0.8859 by definition). */
static double
window_irw_factor (EfWindow window, guint nbar, double sll_db)
{
  const guint n = 512;
  double w[512], sum = 0, lo = 0, hi = 2;

  if (window == EF_WINDOW_RECT)
    return KAPFAC;
  for (guint k = 0; k < n; k++)
    {
      w[k] = ef_window_value (window, nbar, sll_db, (k + 0.5) / n);
      sum += w[k];
    }
  for (int it = 0; it < 50; it++)
    {
      double f = 0.5 * (lo + hi), re = 0;

      for (guint k = 0; k < n; k++)
        re += w[k] * cos (2 * G_PI * f * ((k + 0.5) / n - 0.5));
      if (re * re / (sum * sum) > 0.5)
        lo = f;
      else
        hi = f;
    }
  return lo + hi;
}

static void
add_wgt_type (xmlNodePtr dir, EfWindow window, guint nbar, double sll_db)
{
  xmlNodePtr w = xmlNewChild (dir, NULL, (const xmlChar *) "WgtType", NULL);

  add_text (w, "WindowName", window_name (window));
  if (window == EF_WINDOW_TAYLOR)
    {
      g_autofree char *nb = g_strdup_printf ("%u", nbar);
      char sll[G_ASCII_DTOSTR_BUF_SIZE];

      g_ascii_formatd (sll, sizeof sll, "%g", sll_db);
      add_param (w, "NBAR", nb);
      add_param (w, "SLL", sll);
    }
}

/* ---- the product ---- */

typedef struct {
  const EfSicdSource *src;
  const EfDatasetInfo *info;
  const EfGrid *grid;
  double   srp_ecf[3], srp_llh[3];
  gboolean place_given;
  /* the pulses used */
  guint64  first, stride, n_used;
  double   t0, duration, t_start, t_end, t_coa;
  double   arp_poly[3][ARP_ORDER + 1];
  guint    arp_order;
  double   f_min, f_max;
  /* the SICD's axes, in the local frame, and how its pixels map onto the grid's */
  double   row_dir[3], col_dir[3];
  guint    n_rows, n_cols, scp_row, scp_col;
  gboolean row_is_u;         /* the SICD's rows run along the grid's u (its columns) */
  gboolean row_flip, col_flip;
  double   scp_local[3], scp_ecf[3], scp_llh[3];
} Product;

static void
local_to_ecf (const Product *p, const double l[3], double ecf[3])
{
  ef_geo_enu_to_ecf (p->srp_ecf, p->srp_llh, l, ecf);
}

/* The Echoform pixel (col, row) under SICD pixel (r, c). */
static void
sicd_to_grid (const Product *p, guint r, guint c, guint *gcol, guint *grow)
{
  guint a = p->row_flip ? p->n_rows - 1 - r : r;
  guint b = p->col_flip ? p->n_cols - 1 - c : c;

  if (p->row_is_u)
    {
      *gcol = a;
      *grow = b;
    }
  else
    {
      *grow = a;
      *gcol = b;
    }
}

static void
sicd_pixel_local (const Product *p, guint r, guint c, double out[3])
{
  guint gc, gr;

  sicd_to_grid (p, r, c, &gc, &gr);
  ef_grid_pixel_position (p->grid, gc, gr, out);
}

static gboolean
product_init (Product *p, const EfSicdSource *src, GError **error)
{
  const EfDatasetInfo *info = &src->dataset->info;
  const EfJobParams *jp = src->params;
  const EfPulse *pulses = src->dataset->pulses;
  guint64 avail;
  g_autofree double *t = NULL;
  g_autofree double *y = NULL;
  double arp_l[3], los[3], up[3] = { 0, 0, 1 }, n[3];
  const double *axes[2];

  memset (p, 0, sizeof *p);
  p->src = src;
  p->info = info;
  p->grid = &src->image->grid;

  /* Where the scene is. */
  if (info->has_geo)
    {
      memcpy (p->srp_ecf, info->srp_ecf, sizeof p->srp_ecf);
      ef_geo_ecf_to_llh (p->srp_ecf, p->srp_llh);
    }
  else if (src->has_place)
    {
      memcpy (p->srp_llh, src->place_llh, sizeof p->srp_llh);
      ef_geo_llh_to_ecf (p->srp_llh, p->srp_ecf);
      p->place_given = TRUE;
    }
  else
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA,
                   "The collection does not say where on the Earth it is, and SICD needs Earth-fixed "
                   "coordinates; give the scene reference point's latitude, longitude and height");
      return FALSE;
    }
  if (!(fabs (p->srp_llh[0]) <= 90) || !isfinite (p->srp_llh[1]) || !isfinite (p->srp_llh[2])
      || fabs (p->srp_llh[2]) > 1e5)
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA,
                   "The scene reference point (%g, %g, %g m) is not a place on the Earth", p->srp_llh[0],
                   p->srp_llh[1], p->srp_llh[2]);
      return FALSE;
    }

  /* The pulses the image was formed from. */
  p->stride = MAX (jp->pulse_stride, 1u);
  p->first = jp->first_pulse;
  avail = p->first < info->n_pulses ? info->n_pulses - p->first : 0;
  if (jp->n_pulses > 0)
    avail = MIN (avail, jp->n_pulses);
  p->n_used = (avail + p->stride - 1) / p->stride;
  if (p->n_used < 2 || pulses == NULL)
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA,
                   "The region was formed from %" G_GUINT64_FORMAT " pulse%s; a SICD describes an aperture "
                   "of two pulses at the least", p->n_used, p->n_used == 1 ? "" : "s");
      return FALSE;
    }
  p->t0 = pulses[0].t;
  p->duration = pulses[info->n_pulses - 1].t - p->t0;
  p->t_start = pulses[p->first].t - p->t0;
  p->t_end = pulses[p->first + (p->n_used - 1) * p->stride].t - p->t0;
  if (!(p->duration > 0) || !(p->t_end > p->t_start) || p->t_start < 0 || p->t_end > p->duration)
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA,
                   "The pulses' times do not increase (%g to %g s); SICD's timeline needs them", p->t_start,
                   p->t_end);
      return FALSE;
    }
  p->t_coa = 0.5 * (p->t_start + p->t_end);

  /* The antenna's path in Earth-fixed coordinates, fitted over the pulses used. */
  t = g_new (double, p->n_used);
  y = g_new (double, 3 * p->n_used);
  p->f_min = INFINITY;
  p->f_max = -INFINITY;
  for (guint64 i = 0; i < p->n_used; i++)
    {
      const EfPulse *pu = &pulses[p->first + i * p->stride];
      double ecf[3];

      if (memcmp (pu->tx, pu->rcv, sizeof pu->tx) != 0)
        {
          g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_UNSUPPORTED,
                       "The collection is bistatic; Echoform writes monostatic SICDs only");
          return FALSE;
        }
      local_to_ecf (p, pu->tx, ecf);
      t[i] = pu->t - p->t0;
      for (int k = 0; k < 3; k++)
        y[k * p->n_used + i] = ecf[k];
      p->f_min = MIN (p->f_min, MIN (pu->fx1, pu->fx2));
      p->f_max = MAX (p->f_max, MAX (pu->fx1, pu->fx2));
    }
  if (!(p->f_min > 0) || !(p->f_max > p->f_min))
    {
      p->f_min = info->fc - 0.5 * info->bandwidth;
      p->f_max = info->fc + 0.5 * info->bandwidth;
    }
  p->arp_order = (guint) MIN ((guint64) ARP_ORDER, p->n_used - 1);
  for (int k = 0; k < 3; k++)
    if (!fit_poly (t, y + k * p->n_used, (guint) MIN (p->n_used, (guint64) G_MAXUINT), p->arp_order, p->arp_poly[k]))
      {
        g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA,
                     "The antenna's path cannot be fitted by a polynomial in time");
        return FALSE;
      }

  /* The SICD's axes: rows along the ground line of sight away from the antenna at the centre of the
   * aperture, columns the grid's other axis, oriented so that rows x columns points up. */
  ef_cross3 (p->grid->u, p->grid->v, n);
  if (fabs (p->grid->u[2]) > 1e-9 || fabs (p->grid->v[2]) > 1e-9 || fabs (p->grid->origin[2]) > 1e-6)
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_UNSUPPORTED,
                   "The region's grid is not on the ground plane; Echoform writes ground-plane SICDs only");
      return FALSE;
    }
  {
    double coa_ecf[3], coa_l[3];

    for (int k = 0; k < 3; k++)
      coa_ecf[k] = poly_eval (p->arp_poly[k], p->arp_order, p->t_coa, 0);
    ef_geo_ecf_to_enu (p->srp_ecf, p->srp_llh, coa_ecf, coa_l);
    memcpy (arp_l, coa_l, sizeof arp_l);
  }
  {
    double centre[3];

    ef_grid_pixel_position (p->grid, 0.5 * (p->grid->width - 1), 0.5 * (p->grid->height - 1), centre);
    ef_sub3 (centre, arp_l, los);
    los[2] = 0;
  }
  axes[0] = p->grid->u;
  axes[1] = p->grid->v;
  {
    double du = ef_dot3 (axes[0], los), dv = ef_dot3 (axes[1], los);

    p->row_is_u = fabs (du) >= fabs (dv);
    p->row_flip = (p->row_is_u ? du : dv) < 0;
    ef_scale3 (p->row_is_u ? axes[0] : axes[1], p->row_flip ? -1.0 : 1.0, p->row_dir);
    memcpy (p->col_dir, p->row_is_u ? axes[1] : axes[0], sizeof p->col_dir);
    {
      double rc[3];

      ef_cross3 (p->row_dir, p->col_dir, rc);
      p->col_flip = ef_dot3 (rc, up) < 0;
      if (p->col_flip)
        ef_scale3 (p->col_dir, -1.0, p->col_dir);
    }
  }
  p->n_rows = p->row_is_u ? p->grid->width : p->grid->height;
  p->n_cols = p->row_is_u ? p->grid->height : p->grid->width;
  p->scp_row = p->n_rows / 2;
  p->scp_col = p->n_cols / 2;
  sicd_pixel_local (p, p->scp_row, p->scp_col, p->scp_local);
  local_to_ecf (p, p->scp_local, p->scp_ecf);
  ef_geo_ecf_to_llh (p->scp_ecf, p->scp_llh);
  return TRUE;
}

/* The image's spectral centre along a SICD axis, cycles per metre: the phase of its lag-one
 * autocorrelation (with SICD's Sgn -1, a tone exp(+j 2 pi k x) sits at +k). */
static double
spectral_centre (const Product *p, const EfCf32 *data, gboolean along_rows)
{
  EfCf64 acc = 0;
  guint w = p->grid->width;

  for (guint r = 0; r + (along_rows ? 1 : 0) < p->n_rows; r++)
    for (guint c = 0; c + (along_rows ? 0 : 1) < p->n_cols; c++)
      {
        guint gc0, gr0, gc1, gr1;

        sicd_to_grid (p, r, c, &gc0, &gr0);
        sicd_to_grid (p, along_rows ? r + 1 : r, along_rows ? c : c + 1, &gc1, &gr1);
        acc += (EfCf64) data[(gsize) gr1 * w + gc1] * conj ((EfCf64) data[(gsize) gr0 * w + gc0]);
      }
  if (acc == 0)
    return 0;
  return carg (acc) / (2 * G_PI * p->grid->spacing);
}

static void
add_dir_params (xmlNodePtr grid, const char *name, const Product *p, const double dir_local[3], double bw, double kctr,
                double k0, EfWindow window, guint nbar, double sll)
{
  xmlNodePtr d = xmlNewChild (grid, NULL, (const xmlChar *) name, NULL);
  double u[3], ss = p->grid->spacing, dk1, dk2;

  ef_geo_enu_to_ecf_dir (p->srp_llh, dir_local, u);
  ef_scale3 (u, 1.0 / ef_norm3 (u), u);
  add_xyz (d, "UVectECF", u);
  add_double (d, "SS", ss);
  add_double (d, "ImpRespWid", window_irw_factor (window, nbar, sll) / bw);
  add_text (d, "Sgn", "-1");
  add_double (d, "ImpRespBW", bw);
  add_double (d, "KCtr", kctr);
  dk1 = k0 - 0.5 * bw;
  dk2 = k0 + 0.5 * bw;
  if (dk1 < -0.5 / ss || dk2 > 0.5 / ss)
    {
      /* The support wraps around the sampled band: SICD then states the whole of it. */
      dk1 = -0.5 / ss;
      dk2 = 0.5 / ss;
    }
  add_double (d, "DeltaK1", dk1);
  add_double (d, "DeltaK2", dk2);
  add_poly2d_const (d, "DeltaKCOAPoly", k0);
  add_wgt_type (d, window, nbar, sll);
}

/* SCPCOA, as SICD Volume 1 defines it from the antenna's path and the SCP. */
static void
add_scpcoa (xmlNodePtr root, const Product *p)
{
  xmlNodePtr s = xmlNewChild (root, NULL, (const xmlChar *) "SCPCOA", NULL);
  double arp[3], varp[3], aarp[3], los[3], u_arp[3], u_scp[3], u_varp[3], u_los[3], left[3], u_gpz[3];
  double r, rg, dca, look, arp_gpz, aetp[3], d[3], arp_gpx, u_gpx[3], u_gpy[3], graz, spz[3], slope;
  double u_east[3], u_north[3], azim, lodir[3], layover, twist;
  double lat = p->scp_llh[0] * G_PI / 180, lon = p->scp_llh[1] * G_PI / 180;

  for (int k = 0; k < 3; k++)
    {
      arp[k] = poly_eval (p->arp_poly[k], p->arp_order, p->t_coa, 0);
      varp[k] = poly_eval (p->arp_poly[k], p->arp_order, p->t_coa, 1);
      aarp[k] = poly_eval (p->arp_poly[k], p->arp_order, p->t_coa, 2);
    }
  ef_sub3 (p->scp_ecf, arp, los);
  r = ef_norm3 (los);
  ef_scale3 (arp, 1.0 / ef_norm3 (arp), u_arp);
  ef_scale3 (p->scp_ecf, 1.0 / ef_norm3 (p->scp_ecf), u_scp);
  rg = ef_norm3 (p->scp_ecf) * acos (CLAMP (ef_dot3 (u_arp, u_scp), -1.0, 1.0));
  ef_scale3 (varp, 1.0 / ef_norm3 (varp), u_varp);
  ef_scale3 (los, 1.0 / r, u_los);
  ef_cross3 (u_arp, u_varp, left);
  dca = acos (CLAMP (ef_dot3 (u_varp, u_los), -1.0, 1.0));
  look = ef_dot3 (left, u_los) > 0 ? 1 : -1;
  u_gpz[0] = cos (lon) * cos (lat);
  u_gpz[1] = sin (lon) * cos (lat);
  u_gpz[2] = sin (lat);
  ef_sub3 (arp, p->scp_ecf, d);
  arp_gpz = ef_dot3 (d, u_gpz);
  for (int k = 0; k < 3; k++)
    aetp[k] = arp[k] - u_gpz[k] * arp_gpz;
  ef_sub3 (aetp, p->scp_ecf, d);
  arp_gpx = ef_norm3 (d);
  ef_scale3 (d, 1.0 / arp_gpx, u_gpx);
  ef_cross3 (u_gpz, u_gpx, u_gpy);
  graz = acos (CLAMP (arp_gpx / r, -1.0, 1.0));
  ef_cross3 (u_varp, u_los, spz);
  ef_scale3 (spz, look / ef_norm3 (spz), spz);
  slope = acos (CLAMP (ef_dot3 (u_gpz, spz), -1.0, 1.0));
  u_east[0] = -sin (lon);
  u_east[1] = cos (lon);
  u_east[2] = 0;
  ef_cross3 (u_gpz, u_east, u_north);
  azim = fmod (atan2 (ef_dot3 (u_east, u_gpx), ef_dot3 (u_north, u_gpx)) * 180 / G_PI + 360, 360);
  for (int k = 0; k < 3; k++)
    lodir[k] = u_gpz[k] - spz[k] / cos (slope);
  layover = fmod (atan2 (ef_dot3 (u_east, lodir), ef_dot3 (u_north, lodir)) * 180 / G_PI + 360, 360);
  twist = -asin (CLAMP (ef_dot3 (u_gpy, spz), -1.0, 1.0));

  add_double (s, "SCPTime", p->t_coa);
  add_xyz (s, "ARPPos", arp);
  add_xyz (s, "ARPVel", varp);
  add_xyz (s, "ARPAcc", aarp);
  add_text (s, "SideOfTrack", look > 0 ? "L" : "R");
  add_double (s, "SlantRange", r);
  add_double (s, "GroundRange", rg);
  add_double (s, "DopplerConeAng", dca * 180 / G_PI);
  add_double (s, "GrazeAng", graz * 180 / G_PI);
  add_double (s, "IncidenceAng", 90 - graz * 180 / G_PI);
  add_double (s, "TwistAng", twist * 180 / G_PI);
  add_double (s, "SlopeAng", slope * 180 / G_PI);
  add_double (s, "AzimAng", azim);
  add_double (s, "LayoverAng", layover);
}

/* The polarisation a channel's name states ("HH", "VV", "HV"...), or UNKNOWN. */
static void
polarization (const EfDatasetInfo *info, char tx[8], char txrcv[16])
{
  const char *name = info->channel_names != NULL && info->channel < g_strv_length (info->channel_names)
                     ? info->channel_names[info->channel] : NULL;

  g_strlcpy (tx, "UNKNOWN", 8);
  g_strlcpy (txrcv, "UNKNOWN", 16);
  if (name == NULL)
    return;
  for (const char *s = name; s[0] != '\0' && s[1] != '\0'; s++)
    if ((s[0] == 'H' || s[0] == 'V') && (s[1] == 'H' || s[1] == 'V') && (s == name || !g_ascii_isalpha (s[-1]))
        && !g_ascii_isalpha (s[2]))
      {
        g_snprintf (tx, 8, "%c", s[0]);
        g_snprintf (txrcv, 16, "%c:%c", s[0], s[1]);
        return;
      }
}

char *
ef_sicd_build_xml (const EfSicdSource *src, gsize *len, guint64 **reorder, GError **error)
{
  g_autoptr (GDateTime) now = g_date_time_new_now_utc ();
  g_autofree char *now_s = NULL;
  g_autofree char *core = NULL;
  const EfRangeParams *range;
  Product p;
  xmlDocPtr doc;
  xmlNodePtr root, n, m, k;
  xmlChar *buf = NULL;
  int size = 0;
  char *out;
  char tx_pol[8], txrcv_pol[16];
  double rr = 0, cr = 0, graze, k_row, k_col;
  guint nbar_r, nbar_c;
  double sll_r, sll_c;

  g_return_val_if_fail (src != NULL && src->dataset != NULL && src->image != NULL && src->params != NULL, NULL);
  g_return_val_if_fail (src->run != NULL, NULL);

  if (ef_grid_n_pixels (&src->image->grid) == 0)
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA, "The region is empty");
      return NULL;
    }
  if (!product_init (&p, src, error))
    return NULL;
  range = &src->params->backend.range;
  ef_dataset_ground_resolution (src->dataset, &rr, &cr);
  if (!(rr > 0) || !(cr > 0))
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA,
                   "The collection does not say its resolution; SICD's grid needs it");
      return NULL;
    }
  /* The collection's cross-range resolution is that of all its pulses; a region formed from part of the
   * aperture resolves less, by the ratio of the look angles each spans. */
  {
    EfAperture all, used;

    ef_aperture_init (&all, src->dataset->pulses, 0, p.info->n_pulses, 1);
    ef_aperture_init (&used, src->dataset->pulses, p.first, p.n_used, p.stride);
    if (all.n_pulses >= 2 && used.n_pulses >= 2)
      cr *= (all.hi - all.lo) / (used.hi - used.lo);
  }
  graze = ef_dataset_mean_grazing (src->dataset);
  k_row = spectral_centre (&p, src->image->data, TRUE);
  k_col = spectral_centre (&p, src->image->data, FALSE);
  nbar_r = range->taylor_nbar ? MIN (range->taylor_nbar, 63u) : TAYLOR_NBAR;
  sll_r = range->taylor_sll_db < 0 ? range->taylor_sll_db : TAYLOR_SLL;
  nbar_c = range->az_taylor_nbar ? MIN (range->az_taylor_nbar, 63u) : TAYLOR_NBAR;
  sll_c = range->az_taylor_sll_db < 0 ? range->az_taylor_sll_db : TAYLOR_SLL;

  doc = xmlNewDoc ((const xmlChar *) "1.0");
  root = xmlNewNode (NULL, (const xmlChar *) "SICD");
  xmlDocSetRootElement (doc, root);
  xmlSetNs (root, xmlNewNs (root, (const xmlChar *) SICD_NS, NULL));

  /* CollectionInfo */
  n = xmlNewChild (root, NULL, (const xmlChar *) "CollectionInfo", NULL);
  add_text (n, "CollectorName", p.info->source != NULL && p.info->source[0] ? p.info->source : "Unknown");
  core = src->input != NULL ? g_path_get_basename (src->input) : g_strdup ("echoform");
  add_text (n, "CoreName", core);
  add_text (n, "CollectType", "MONOSTATIC");
  m = xmlNewChild (n, NULL, (const xmlChar *) "RadarMode", NULL);
  add_text (m, "ModeType", "SPOTLIGHT");
  add_text (n, "Classification", "UNCLASSIFIED");
  if (p.place_given)
    add_param (n, "SceneReferencePoint", "given by the user: the collection does not say where it is");

  /* ImageCreation */
  n = xmlNewChild (root, NULL, (const xmlChar *) "ImageCreation", NULL);
  add_text (n, "Application", "Echoform " PACKAGE_VERSION);
  now_s = g_date_time_format (now, "%Y-%m-%dT%H:%M:%SZ");
  add_text (n, "DateTime", now_s);

  /* ImageData */
  n = xmlNewChild (root, NULL, (const xmlChar *) "ImageData", NULL);
  add_text (n, "PixelType", "RE32F_IM32F");
  add_int (n, "NumRows", p.n_rows);
  add_int (n, "NumCols", p.n_cols);
  add_int (n, "FirstRow", 0);
  add_int (n, "FirstCol", 0);
  m = xmlNewChild (n, NULL, (const xmlChar *) "FullImage", NULL);
  add_int (m, "NumRows", p.n_rows);
  add_int (m, "NumCols", p.n_cols);
  m = xmlNewChild (n, NULL, (const xmlChar *) "SCPPixel", NULL);
  add_int (m, "Row", p.scp_row);
  add_int (m, "Col", p.scp_col);

  /* GeoData */
  n = xmlNewChild (root, NULL, (const xmlChar *) "GeoData", NULL);
  add_text (n, "EarthModel", "WGS_84");
  m = xmlNewChild (n, NULL, (const xmlChar *) "SCP", NULL);
  add_xyz (m, "ECF", p.scp_ecf);
  k = xmlNewChild (m, NULL, (const xmlChar *) "LLH", NULL);
  add_double (k, "Lat", p.scp_llh[0]);
  add_double (k, "Lon", p.scp_llh[1]);
  add_double (k, "HAE", p.scp_llh[2]);
  m = xmlNewChild (n, NULL, (const xmlChar *) "ImageCorners", NULL);
  {
    static const char *const labels[4] = { "1:FRFC", "2:FRLC", "3:LRLC", "4:LRFC" };
    const guint rc[4][2] = { { 0, 0 }, { 0, p.n_cols - 1 }, { p.n_rows - 1, p.n_cols - 1 }, { p.n_rows - 1, 0 } };

    for (int i = 0; i < 4; i++)
      {
        double l[3], ecf[3], llh[3];

        sicd_pixel_local (&p, rc[i][0], rc[i][1], l);
        local_to_ecf (&p, l, ecf);
        ef_geo_ecf_to_llh (ecf, llh);
        k = xmlNewChild (m, NULL, (const xmlChar *) "ICP", NULL);
        xmlNewProp (k, (const xmlChar *) "index", (const xmlChar *) labels[i]);
        add_double (k, "Lat", llh[0]);
        add_double (k, "Lon", llh[1]);
      }
  }

  /* Grid: a ground plane through the SCP; rows along the line of sight (range), columns across. */
  n = xmlNewChild (root, NULL, (const xmlChar *) "Grid", NULL);
  add_text (n, "ImagePlane", "GROUND");
  add_text (n, "Type", "PLANE");
  add_poly2d_const (n, "TimeCOAPoly", p.t_coa);
  add_dir_params (n, "Row", &p, p.row_dir, 1.0 / rr, 2.0 * p.info->fc * cos (graze) / EF_C, k_row, range->window,
                  nbar_r, sll_r);
  add_dir_params (n, "Col", &p, p.col_dir, 1.0 / cr, 0.0, k_col, src->run->az_window, nbar_c, sll_c);

  /* Timeline: the collection from its first pulse. */
  n = xmlNewChild (root, NULL, (const xmlChar *) "Timeline", NULL);
  add_text (n, "CollectStart", "2000-01-01T00:00:00.000000Z");
  add_double (n, "CollectDuration", p.duration);

  /* Position */
  n = xmlNewChild (root, NULL, (const xmlChar *) "Position", NULL);
  m = xmlNewChild (n, NULL, (const xmlChar *) "ARPPoly", NULL);
  add_poly1d (m, "X", p.arp_poly[0], p.arp_order);
  add_poly1d (m, "Y", p.arp_poly[1], p.arp_order);
  add_poly1d (m, "Z", p.arp_poly[2], p.arp_order);

  /* RadarCollection */
  polarization (p.info, tx_pol, txrcv_pol);
  n = xmlNewChild (root, NULL, (const xmlChar *) "RadarCollection", NULL);
  m = xmlNewChild (n, NULL, (const xmlChar *) "TxFrequency", NULL);
  add_double (m, "Min", p.f_min);
  add_double (m, "Max", p.f_max);
  add_text (n, "TxPolarization", tx_pol);
  m = xmlNewChild (n, NULL, (const xmlChar *) "RcvChannels", NULL);
  set_int_prop (m, "size", 1);
  k = xmlNewChild (m, NULL, (const xmlChar *) "ChanParameters", NULL);
  set_int_prop (k, "index", 1);
  add_text (k, "TxRcvPolarization", txrcv_pol);

  /* ImageFormation: what ran, as the run record says. */
  n = xmlNewChild (root, NULL, (const xmlChar *) "ImageFormation", NULL);
  m = xmlNewChild (n, NULL, (const xmlChar *) "RcvChanProc", NULL);
  add_int (m, "NumChanProc", 1);
  add_int (m, "ChanIndex", 1);
  add_text (n, "TxRcvPolarizationProc", txrcv_pol);
  add_double (n, "TStartProc", p.t_start);
  add_double (n, "TEndProc", p.t_end);
  m = xmlNewChild (n, NULL, (const xmlChar *) "TxFrequencyProc", NULL);
  add_double (m, "MinProc", p.f_min);
  add_double (m, "MaxProc", p.f_max);
  /* Backprojection and its factorised forms are not among SICD's named algorithms; Echoform's polar
   * format grids onto the image's own ground plane rather than SICD's PFA planes. Both are OTHER, and
   * the Processing element says which ran. */
  add_text (n, "ImageFormAlgo", "OTHER");
  add_text (n, "STBeamComp", "NO");
  add_text (n, "ImageBeamComp", "NO");
  /* A per-pulse phase correction is one correction for the whole image: GLOBAL. */
  add_text (n, "AzAutofocus", src->run->autofocus != NULL ? "GLOBAL" : "NO");
  add_text (n, "RgAutofocus", "NO");
  m = xmlNewChild (n, NULL, (const xmlChar *) "Processing", NULL);
  add_text (m, "Type", "Echoform image formation");
  add_text (m, "Applied", "true");
  {
    g_autofree char *ran = ef_run_info_describe (src->run);
    g_autofree char *pulses = g_strdup_printf ("%" G_GUINT64_FORMAT, p.n_used);
    g_autofree char *first = g_strdup_printf ("%" G_GUINT64_FORMAT, p.first);
    g_autofree char *stride = g_strdup_printf ("%" G_GUINT64_FORMAT, p.stride);
    g_autofree char *ups = g_strdup_printf ("%u", range->upsample);

    add_param (m, "Algorithm", ef_algo_to_string (src->run->algo));
    add_param (m, "AlgorithmRequested", ef_algo_to_string (src->run->algo_requested));
    add_param (m, "Precision", ef_precision_to_string (src->run->precision));
    add_param (m, "Backend", src->run->backend != NULL ? src->run->backend : "unknown");
    add_param (m, "Ran", ran);
    add_param (m, "RangeWindow", ef_window_to_string (range->window));
    add_param (m, "CrossRangeWindow", ef_window_to_string (src->run->az_window));
    add_param (m, "RangeUpsampling", ups);
    add_param (m, "Autofocus", src->run->autofocus != NULL ? src->run->autofocus : "none");
    add_param (m, "FirstPulse", first);
    add_param (m, "PulseStride", stride);
    add_param (m, "Pulses", pulses);
  }

  add_scpcoa (root, &p);

  xmlDocDumpFormatMemoryEnc (doc, &buf, &size, "UTF-8", 1);
  xmlFreeDoc (doc);
  if (buf == NULL || size <= 0)
    {
      xmlFree (buf);
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FAILED, "libxml2 could not write the SICD XML");
      return NULL;
    }
  out = g_strndup ((const char *) buf, (gsize) size);
  xmlFree (buf);
  if (len != NULL)
    *len = (gsize) size;
  if (reorder != NULL)
    {
      guint64 *map = g_new (guint64, (gsize) p.n_rows * p.n_cols);

      for (guint r = 0; r < p.n_rows; r++)
        for (guint c = 0; c < p.n_cols; c++)
          {
            guint gc, gr;

            sicd_to_grid (&p, r, c, &gc, &gr);
            map[(gsize) r * p.n_cols + c] = (guint64) gr * p.grid->width + gc;
          }
      *reorder = map;
    }
  return out;
}
