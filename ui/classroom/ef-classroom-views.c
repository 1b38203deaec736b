/* ef-classroom-views.c: the classroom's drawings: the image with its arcs, geometry, profile, phase history, k-space. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-classroom"
#include "config.h"

#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

#include "ef-classroom-window-private.h"
#include "ef-teach-raster.h"

#define RANGE_DB 40.0
#define HIGH_CONTRAST_DB 30.0
#define ARC_POINTS 512

/* ---- state the views draw ---- */

/* The last pulse of block b. */
static guint64
block_end (EfClassroomWindow *self, guint64 b)
{
  return MIN ((b + 1) * self->block, self->n_pulses) - 1;
}

/* The image of pulses [p0, p1]: the whole blocks among them from the sums, the pulses either side of
 * them (less than a block each) formed directly, so that the image follows the timeline pulse by pulse. */
gboolean
ef_classroom_views_compose (EfClassroomWindow *self, EfTeachStack *stack, guint64 p0, guint64 p1, EfCf32 *out,
                            GError **error)
{
  gsize n = ef_grid_n_pixels (ef_teach_stack_grid (stack));
  guint64 bs, be, head_end, tail_start;
  guint k0, n0, k1, n1;

  bs = (p0 + self->block - 1) / self->block;
  /* The last block that ends within [p0, p1], or none (G_MAXUINT64). */
  be = p1 == self->n_pulses - 1 ? ef_teach_stack_n_blocks (stack) - 1
                                : (p1 + 1) / self->block > 0 ? (p1 + 1) / self->block - 1 : G_MAXUINT64;
  ef_teach_stack_band_range (stack, self->band_lo, &k0, &n0);
  ef_teach_stack_band_range (stack, self->band_hi, &k1, &n1);
  if (be != G_MAXUINT64 && bs <= be)
    {
      if (!ef_teach_stack_window (stack, (guint) bs, (guint) be, self->band_lo, self->band_hi, out, error))
        return FALSE;
      head_end = bs * self->block;       /* [p0, head_end) */
      tail_start = block_end (self, be) + 1;  /* [tail_start, p1] */
    }
  else
    {
      memset (out, 0, n * sizeof *out);
      head_end = p1 + 1;
      tail_start = p1 + 1;
    }
  if (p0 < head_end && !ef_teach_stack_form (stack, p0, head_end - p0, k0, k1 + n1 - k0, out, error))
    return FALSE;
  if (tail_start <= p1 && !ef_teach_stack_form (stack, tail_start, p1 + 1 - tail_start, k0, k1 + n1 - k0, out, error))
    return FALSE;
  return TRUE;
}

/* The image of pulses [first, min(last, current)]. */
void
ef_classroom_views_update_image (EfClassroomWindow *self)
{
  const EfGrid *g;
  g_autoptr (GError) error = NULL;
  guint64 p0, p1;

  if (self->stack_data == NULL)
    return;
  g = ef_teach_stack_grid (self->stack_data);
  p0 = self->first;
  p1 = MAX (p0, MIN (self->last, self->current));
  if (self->surface == NULL)
    self->surface = cairo_image_surface_create (CAIRO_FORMAT_RGB24, g->width, g->height);
  if (!ef_classroom_views_compose (self, self->stack_data, p0, p1, self->image, &error))
    {
      g_warning ("%s", error->message);
      return;
    }
  cairo_surface_flush (self->surface);
  /* High contrast: a colour map of monotonic lightness over a shorter range, for a washed-out projector. */
  ef_teach_raster (self->image, g->width, g->height, 0, self->high_contrast ? HIGH_CONTRAST_DB : RANGE_DB,
                   self->high_contrast ? EF_COLORMAP_PERCEPTUAL : EF_COLORMAP_GREY,
                   cairo_image_surface_get_data (self->surface), cairo_image_surface_get_stride (self->surface));
  cairo_surface_mark_dirty (self->surface);
  self->shown_p0 = p0;
  self->shown_p1 = p1;
}

void
ef_classroom_views_update_history (EfClassroomWindow *self)
{
  const guint e = EF_CLASSROOM_HISTORY_EDGE;
  guint8 *px;
  int stride;

  g_clear_pointer (&self->history_surface, cairo_surface_destroy);
  if (self->history == NULL)
    return;
  self->history_surface = cairo_image_surface_create (CAIRO_FORMAT_RGB24, e, e);
  cairo_surface_flush (self->history_surface);
  px = cairo_image_surface_get_data (self->history_surface);
  stride = cairo_image_surface_get_stride (self->history_surface);
  for (guint r = 0; r < e; r++)
    for (guint c = 0; c < e; c++)
      {
        guint8 v = (guint8) CLAMP (255.0 * self->history[r * e + c], 0, 255);

        ((guint32 *) (px + r * stride))[c] = 0xff000000u | (guint32) v << 16 | (guint32) v << 8 | v;
      }
  cairo_surface_mark_dirty (self->history_surface);
}

/* Strongest first. */
static gint
compare_level (gconstpointer a, gconstpointer b, gpointer user_data)
{
  const float *level = user_data;
  float x = level[*(const guint *) a], y = level[*(const guint *) b];

  return (x < y) - (x > y);
}

void
ef_classroom_views_update_pulse (EfClassroomWindow *self)
{
  const EfGrid *g;
  const EfPulse *pu;
  g_autoptr (GError) error = NULL;
  guint k0, n0, k1, n1, lo, hi;
  double a[3];
  float top = 0;

  if (self->stack_data == NULL)
    return;
  g = ef_teach_stack_grid (self->stack_data);
  pu = &self->ds->pulses[self->current];
  ef_teach_stack_band_range (self->stack_data, self->band_lo, &k0, &n0);
  ef_teach_stack_band_range (self->stack_data, self->band_hi, &k1, &n1);
  g_free (self->profile);
  self->profile = ef_teach_pulse_profile (self->ds, self->current, k0, k1 + n1 - k0, &self->n_bins, &self->r_start,
                                          &self->dr, &error);
  self->n_arcs = 0;
  if (self->profile == NULL)
    {
      g_warning ("%s", error->message);
      return;
    }
  /* The differential ranges the region spans for this pulse: its corners and its centre. */
  for (int c = 0; c < 3; c++)
    a[c] = 0.5 * (pu->tx[c] + pu->rcv[c]);
  self->region_dr[0] = INFINITY;
  self->region_dr[1] = -INFINITY;
  for (int k = 0; k < 5; k++)
    {
      double col = k == 4 ? 0.5 * g->width : (k & 1) * g->width, row = k == 4 ? 0.5 * g->height : (k >> 1) * g->height;
      double x[3], d = 0;

      ef_grid_pixel_position (g, col - 0.5, row - 0.5, x);
      for (int c = 0; c < 3; c++)
        d += (a[c] - x[c]) * (a[c] - x[c]);
      d = sqrt (d) - pu->r0;
      self->region_dr[0] = MIN (self->region_dr[0], d);
      self->region_dr[1] = MAX (self->region_dr[1], d);
    }
  /* The arcs: the profile's peaks within the region down to 12 dB below the highest (a sinc's
   * sidelobes are 13 dB down), strongest first, each at least a resolution cell from the others. */
  lo = (guint) CLAMP (floor ((self->region_dr[0] - self->r_start) / self->dr), 1, self->n_bins - 2);
  hi = (guint) CLAMP (ceil ((self->region_dr[1] - self->r_start) / self->dr), 1, self->n_bins - 2);
  for (guint i = lo; i <= hi; i++)
    top = MAX (top, self->profile[i]);
  {
    g_autoptr (GArray) peaks = g_array_new (FALSE, FALSE, sizeof (guint));
    double cell = self->theory.range_res > 0 ? self->theory.range_res / self->dr : 4;

    for (guint i = lo; i <= hi; i++)
      if (self->profile[i] > 0.25f * top && self->profile[i] >= self->profile[i - 1]
          && self->profile[i] > self->profile[i + 1])
        g_array_append_val (peaks, i);
    g_array_sort_with_data (peaks, compare_level, self->profile);
    for (guint j = 0; j < peaks->len && self->n_arcs < EF_CLASSROOM_MAX_ARCS; j++)
      {
        guint i = g_array_index (peaks, guint, j);
        gboolean near = FALSE;

        for (guint k = 0; k < self->n_arcs && !near; k++)
          near = fabs (self->arc_range[k] - (pu->r0 + self->r_start + i * self->dr)) < cell * self->dr;
        if (!near)
          self->arc_range[self->n_arcs++] = pu->r0 + self->r_start + i * self->dr;
      }
  }
}

/* ---- drawing ---- */

static void
set_rgb (cairo_t *cr, guint32 rgb, double alpha)
{
  cairo_set_source_rgba (cr, (rgb >> 16 & 255) / 255.0, (rgb >> 8 & 255) / 255.0, (rgb & 255) / 255.0, alpha);
}

static void
draw_text (cairo_t *cr, double x, double y, const char *text)
{
  cairo_move_to (cr, x, y);
  cairo_show_text (cr, text);
}

/* The image, fitted and centred, with the current pulse's arcs over it. */
static void
draw_image (EfClassroomWindow *self, cairo_t *cr, int width, int height)
{
  const EfGrid *g = ef_teach_stack_grid (self->stack_data);
  double s = MIN ((double) width / g->width, (double) height / g->height);
  double ox = 0.5 * (width - s * g->width), oy = 0.5 * (height - s * g->height);
  g_autofree double *xy = g_new (double, 2 * ARC_POINTS);

  cairo_save (cr);
  cairo_translate (cr, ox, oy);
  cairo_scale (cr, s, s);
  cairo_set_source_surface (cr, self->surface, 0, 0);
  cairo_pattern_set_filter (cairo_get_source (cr), s >= 2 ? CAIRO_FILTER_NEAREST : CAIRO_FILTER_GOOD);
  cairo_paint (cr);
  cairo_restore (cr);

  /* The single-pulse arcs: where each echo of this pulse is spread back to. */
  set_rgb (cr, 0xff9933, 0.85);
  cairo_set_line_width (cr, 1.5);
  for (guint k = 0; k < self->n_arcs; k++)
    {
      guint n = ef_teach_pulse_arc (g, &self->ds->pulses[self->current], self->arc_range[k], 0, xy, ARC_POINTS);
      gboolean pen = FALSE;

      for (guint i = 0; i < n; i++)
        {
          double x = ox + s * (xy[2 * i] + 0.5), y = oy + s * (xy[2 * i + 1] + 0.5);

          if (isnan (xy[2 * i]))
            pen = FALSE;
          else if (!pen)
            cairo_move_to (cr, x, y), pen = TRUE;
          else
            cairo_line_to (cr, x, y);
        }
      cairo_stroke (cr);
    }
  /* The target measured: a ring about it. */
  if (self->has_target)
    {
      double x = ox + s * (self->target_col + 0.5), y = oy + s * (self->target_row + 0.5);

      set_rgb (cr, 0x33ddff, 0.95);
      cairo_set_line_width (cr, 2);
      cairo_new_path (cr);
      cairo_arc (cr, x, y, MAX (10, 6 * s), 0, 2 * G_PI);
      cairo_stroke (cr);
    }
  set_rgb (cr, 0xffffff, 0.9);
  cairo_set_font_size (cr, 13 * self->text_scale);
  {
    g_autofree char *t = g_strdup_printf (_("Pulses %" G_GUINT64_FORMAT "–%" G_GUINT64_FORMAT),
                                          self->shown_p0, self->shown_p1);
    draw_text (cr, ox + 8, oy + 18 * self->text_scale, t);
  }
}

/* The flight path seen from above (north up, as the image), the aperture in use, the antenna at the
 * current pulse and its line of sight to the scene centre. */
static void
draw_geometry (EfClassroomWindow *self, cairo_t *cr, int width, int height)
{
  const EfPulse *pu = self->ds->pulses;
  double x0 = 0, x1 = 0, y0 = 0, y1 = 0, s, cx, cy;
  guint64 step = MAX (self->n_pulses / 256, 1);
  guint64 p_end = self->shown_p1 + 1;

  for (guint64 p = 0; p < self->n_pulses; p++)
    {
      x0 = MIN (x0, pu[p].tx[0]);
      x1 = MAX (x1, pu[p].tx[0]);
      y0 = MIN (y0, pu[p].tx[1]);
      y1 = MAX (y1, pu[p].tx[1]);
    }
  s = 0.85 * MIN (width / MAX (x1 - x0, 1e-9), height / MAX (y1 - y0, 1e-9));
  cx = 0.5 * (x0 + x1);
  cy = 0.5 * (y0 + y1);
#define GX(x) (0.5 * width + s * ((x) - cx))
#define GY(y) (0.5 * height - s * ((y) - cy))
  cairo_set_line_width (cr, 2);
  set_rgb (cr, 0x888888, 1);
  for (guint64 p = 0; p < self->n_pulses; p += step)
    (p == 0 ? cairo_move_to : cairo_line_to) (cr, GX (pu[p].tx[0]), GY (pu[p].tx[1]));
  cairo_stroke (cr);
  set_rgb (cr, 0x3584e4, 1);
  cairo_set_line_width (cr, 4);
  for (guint64 p = self->shown_p0; p < p_end; p += step)
    (p == self->shown_p0 ? cairo_move_to : cairo_line_to) (cr, GX (pu[p].tx[0]), GY (pu[p].tx[1]));
  cairo_line_to (cr, GX (pu[p_end - 1].tx[0]), GY (pu[p_end - 1].tx[1]));
  cairo_stroke (cr);
  /* Line of sight from the antenna to the scene centre. */
  set_rgb (cr, 0xff9933, 1);
  cairo_set_line_width (cr, 1.5);
  cairo_move_to (cr, GX (pu[self->current].tx[0]), GY (pu[self->current].tx[1]));
  cairo_line_to (cr, GX (0), GY (0));
  cairo_stroke (cr);
  cairo_arc (cr, GX (pu[self->current].tx[0]), GY (pu[self->current].tx[1]), 5, 0, 2 * G_PI);
  cairo_fill (cr);
  set_rgb (cr, 0xffffff, 1);
  cairo_rectangle (cr, GX (0) - 4, GY (0) - 4, 8, 8);
  cairo_fill (cr);
  cairo_set_font_size (cr, 11 * self->text_scale);
  draw_text (cr, GX (0) + 7, GY (0) + 4, _("scene"));
  draw_text (cr, 6, 14, _("N ↑"));
  /* Far from the scene the path is a few pixels long: an inset shows it enlarged, the antenna moving
   * along it and the direction it looks in. */
  double px0 = INFINITY, px1 = -INFINITY, py0 = INFINITY, py1 = -INFINITY;

  for (guint64 p = 0; p < self->n_pulses; p++)
    {
      px0 = MIN (px0, pu[p].tx[0]);
      px1 = MAX (px1, pu[p].tx[0]);
      py0 = MIN (py0, pu[p].tx[1]);
      py1 = MAX (py1, pu[p].tx[1]);
    }
  if (s * MAX (px1 - px0, py1 - py0) < 0.3 * MIN (width, height) && self->n_pulses > 1)
    {
      double bw = 0.4 * width, bh = 0.55 * height, bx = width - bw - 4, by = 4, is, icx, icy;
      const double *a = pu[self->current].tx;
      double d = hypot (a[0], a[1]);

      is = 0.75 * MIN (bw / MAX (px1 - px0, 1e-9), bh / MAX (py1 - py0, 1e-9));
      icx = 0.5 * (px0 + px1);
      icy = 0.5 * (py0 + py1);
#define IX(x) (bx + 0.5 * bw + is * ((x) - icx))
#define IY(y) (by + 0.5 * bh - is * ((y) - icy))
      set_rgb (cr, 0x1a1a1f, 1);
      cairo_rectangle (cr, bx, by, bw, bh);
      cairo_fill_preserve (cr);
      set_rgb (cr, 0x888888, 1);
      cairo_set_line_width (cr, 1);
      cairo_stroke (cr);
      cairo_save (cr);
      cairo_rectangle (cr, bx, by, bw, bh);
      cairo_clip (cr);
      cairo_set_line_width (cr, 2);
      for (guint64 p = 0; p < self->n_pulses; p += step)
        (p == 0 ? cairo_move_to : cairo_line_to) (cr, IX (pu[p].tx[0]), IY (pu[p].tx[1]));
      cairo_stroke (cr);
      set_rgb (cr, 0x3584e4, 1);
      cairo_set_line_width (cr, 4);
      for (guint64 p = self->shown_p0; p < p_end; p += step)
        (p == self->shown_p0 ? cairo_move_to : cairo_line_to) (cr, IX (pu[p].tx[0]), IY (pu[p].tx[1]));
      cairo_line_to (cr, IX (pu[p_end - 1].tx[0]), IY (pu[p_end - 1].tx[1]));
      cairo_stroke (cr);
      set_rgb (cr, 0xff9933, 1);
      cairo_set_line_width (cr, 1.5);
      cairo_move_to (cr, IX (a[0]), IY (a[1]));
      if (d > 0)
        cairo_line_to (cr, IX (a[0]) - 0.3 * bw * a[0] / d, IY (a[1]) + 0.3 * bw * a[1] / d);
      cairo_stroke (cr);
      cairo_arc (cr, IX (a[0]), IY (a[1]), 4, 0, 2 * G_PI);
      cairo_fill (cr);
      cairo_restore (cr);
      set_rgb (cr, 0xffffff, 0.8);
      {
        g_autofree char *t = g_strdup_printf (_("path ×%.0f"), is / s);

        draw_text (cr, bx + 4, by + bh - 5, t);
      }
#undef IX
#undef IY
    }
#undef GX
#undef GY
}

/* The current pulse's range profile in dB, the region's span shaded and the arcs' peaks marked. */
static void
draw_profile (EfClassroomWindow *self, cairo_t *cr, int width, int height)
{
  double lo, hi, top = 0, m = 4;

  if (self->profile == NULL || self->n_bins < 2)
    return;
  /* The region and as much again either side. */
  lo = self->region_dr[0] - 0.5 * (self->region_dr[1] - self->region_dr[0]);
  hi = self->region_dr[1] + 0.5 * (self->region_dr[1] - self->region_dr[0]);
  for (guint i = 0; i < self->n_bins; i++)
    top = MAX (top, self->profile[i]);
  if (!(top > 0) || !(hi > lo))
    return;
#define PX(r) (m + (width - 2 * m) * ((r) - lo) / (hi - lo))
#define PY(db) (m + (height - 2 * m) * (-(db) / RANGE_DB))
  set_rgb (cr, 0x3584e4, 0.25);
  cairo_rectangle (cr, PX (self->region_dr[0]), 0, PX (self->region_dr[1]) - PX (self->region_dr[0]), height);
  cairo_fill (cr);
  set_rgb (cr, 0xe0e0e0, 1);
  cairo_set_line_width (cr, 1.2);
  {
    gboolean pen = FALSE;

    for (guint i = 0; i < self->n_bins; i++)
      {
        double r = self->r_start + i * self->dr, db;

        if (r < lo || r > hi)
          continue;
        db = MAX (20 * log10 (MAX (self->profile[i], 1e-30f) / top), -RANGE_DB);
        (pen ? cairo_line_to : cairo_move_to) (cr, PX (r), PY (db));
        pen = TRUE;
      }
  }
  cairo_stroke (cr);
  set_rgb (cr, 0xff9933, 1);
  for (guint k = 0; k < self->n_arcs; k++)
    {
      double r = self->arc_range[k] - self->ds->pulses[self->current].r0;

      cairo_arc (cr, PX (r), PY (0) + 4, 3, 0, 2 * G_PI);
      cairo_fill (cr);
    }
  set_rgb (cr, 0xffffff, 0.8);
  cairo_set_font_size (cr, 11 * self->text_scale);
  draw_text (cr, 6, height - 6, _("range →"));
#undef PX
#undef PY
}

/* The phase history: pulses down, frequency across; the windows in use outlined, the pulse marked. */
static void
draw_history (EfClassroomWindow *self, cairo_t *cr, int width, int height)
{
  const double e = EF_CLASSROOM_HISTORY_EDGE;
  guint k0, n0, k1, n1;
  double ns = (double) self->ds->info.n_samples, np = (double) self->n_pulses;
  double y0, y1, xa, xb, yc;

  if (self->history_surface == NULL)
    return;
  cairo_save (cr);
  cairo_scale (cr, width / e, height / e);
  cairo_set_source_surface (cr, self->history_surface, 0, 0);
  cairo_paint (cr);
  cairo_restore (cr);
  ef_teach_stack_band_range (self->stack_data, self->band_lo, &k0, &n0);
  ef_teach_stack_band_range (self->stack_data, self->band_hi, &k1, &n1);
  y0 = height * (double) self->shown_p0 / np;
  y1 = height * (double) (self->shown_p1 + 1) / np;
  xa = width * k0 / ns;
  xb = width * (k1 + n1) / ns;
  yc = height * (self->current + 0.5) / np;
  set_rgb (cr, 0x3584e4, 1);
  cairo_set_line_width (cr, 2);
  cairo_rectangle (cr, xa + 1, y0 + 1, xb - xa - 2, y1 - y0 - 2);
  cairo_stroke (cr);
  set_rgb (cr, 0xff9933, 1);
  cairo_move_to (cr, 0, yc);
  cairo_line_to (cr, width, yc);
  cairo_stroke (cr);
  set_rgb (cr, 0xffffff, 0.9);
  cairo_set_font_size (cr, 11 * self->text_scale);
  draw_text (cr, 6, height - 6, _("frequency →"));
}

static void
sector_path (cairo_t *cr, const EfTeachKspace *k, double cx, double cy, double s, double ref)
{
  const int n = 48;

  /* Rotated so that the collection's middle look angle points up. */
  for (int i = 0; i <= n; i++)
    {
      double a = k->angle_lo + (k->angle_hi - k->angle_lo) * i / n - ref;
      double x = cx + s * k->k_max * sin (a), y = cy - s * k->k_max * cos (a);

      (i == 0 ? cairo_move_to : cairo_line_to) (cr, x, y);
    }
  for (int i = n; i >= 0; i--)
    {
      double a = k->angle_lo + (k->angle_hi - k->angle_lo) * i / n - ref;

      cairo_line_to (cr, cx + s * k->k_min * sin (a), cy - s * k->k_min * cos (a));
    }
  cairo_close_path (cr);
}

/* The k-space annulus sector of the collection, and the part the windows select. */
static void
draw_kspace (EfClassroomWindow *self, cairo_t *cr, int width, int height)
{
  const EfTeachKspace *all = &self->ks_all;
  double ref = 0.5 * (all->angle_lo + all->angle_hi), half = 0.5 * (all->angle_hi - all->angle_lo);
  double w = 2 * all->k_max * sin (MAX (half, 1e-6)), h = all->k_max - all->k_min * cos (half);
  double s = 0.8 * MIN (width / MAX (w, 1e-9), height / MAX (h, 1e-9));
  /* Place the sector's box in the middle; the origin of k-space lies far below. */
  double cx = 0.5 * width, cy = 0.5 * height + s * (0.5 * (all->k_max + all->k_min * cos (half)));

  set_rgb (cr, 0x888888, 0.5);
  sector_path (cr, all, cx, cy, s, ref);
  cairo_fill (cr);
  /* Outlined too, so that one pulse's sector, a line, still shows. */
  set_rgb (cr, 0x3584e4, 0.9);
  sector_path (cr, &self->ks_sel, cx, cy, s, ref);
  cairo_fill_preserve (cr);
  cairo_set_line_width (cr, 2);
  cairo_stroke (cr);
  set_rgb (cr, 0xffffff, 0.8);
  cairo_set_font_size (cr, 11 * self->text_scale);
  draw_text (cr, 6, height - 6, _("↓ to k = 0"));
}

void
ef_classroom_views_draw (GtkDrawingArea *area, cairo_t *cr, int width, int height, gpointer user_data)
{
  EfClassroomWindow *self = EF_CLASSROOM_WINDOW (user_data);
  EfClassroomView v = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (area), "ef-view"));

  cairo_set_source_rgb (cr, 0.1, 0.1, 0.12);
  cairo_paint (cr);
  if (!self->ready || self->stack_data == NULL)
    return;
  cairo_select_font_face (cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
  switch (v)
    {
    case EF_CLASSROOM_IMAGE:
      draw_image (self, cr, width, height);
      if (self->change_us > 0)
        {
          self->frame_ms = (g_get_monotonic_time () - self->change_us) / 1000.0;
          self->change_us = 0;
        }
      break;
    case EF_CLASSROOM_GEOMETRY:
      draw_geometry (self, cr, width, height);
      break;
    case EF_CLASSROOM_PROFILE:
      draw_profile (self, cr, width, height);
      break;
    case EF_CLASSROOM_HISTORY:
      draw_history (self, cr, width, height);
      break;
    case EF_CLASSROOM_KSPACE:
      draw_kspace (self, cr, width, height);
      break;
    case EF_CLASSROOM_N_VIEWS:
    default:
      return;
    }
  self->draws[v]++;
}

GtkWidget *
ef_classroom_views_frame (GtkWidget *child, const char *title, const char *help, const char *formula)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 2);
  GtkWidget *head = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 4);
  GtkWidget *label = gtk_label_new (title);
  GtkWidget *button = gtk_menu_button_new ();
  GtkWidget *pop = gtk_popover_new ();
  GtkWidget *pbox = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  GtkWidget *text = gtk_label_new (help);
  GtkWidget *eq = gtk_label_new (formula);

  gtk_widget_add_css_class (label, "heading");
  gtk_widget_set_hexpand (label, TRUE);
  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_menu_button_set_label (GTK_MENU_BUTTON (button), "?");
  gtk_widget_set_tooltip_text (button, _("What this shows"));
  gtk_widget_add_css_class (button, "flat");
  gtk_label_set_wrap (GTK_LABEL (text), TRUE);
  gtk_label_set_max_width_chars (GTK_LABEL (text), 40);
  gtk_label_set_xalign (GTK_LABEL (text), 0);
  gtk_widget_add_css_class (eq, "monospace");
  gtk_box_append (GTK_BOX (pbox), text);
  gtk_box_append (GTK_BOX (pbox), eq);
  gtk_widget_set_margin_start (pbox, 6);
  gtk_widget_set_margin_end (pbox, 6);
  gtk_widget_set_margin_top (pbox, 6);
  gtk_widget_set_margin_bottom (pbox, 6);
  gtk_popover_set_child (GTK_POPOVER (pop), pbox);
  gtk_menu_button_set_popover (GTK_MENU_BUTTON (button), pop);
  gtk_box_append (GTK_BOX (head), label);
  gtk_box_append (GTK_BOX (head), button);
  gtk_box_append (GTK_BOX (box), head);
  gtk_box_append (GTK_BOX (box), child);
  gtk_widget_set_vexpand (child, TRUE);
  g_object_set_data (G_OBJECT (box), "ef-help-button", button);
  return box;
}
