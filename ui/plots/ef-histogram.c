/* ef-histogram.c: the image's magnitudes in dB as a histogram, with the display's black and white levels. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-histogram"
#include "config.h"

#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

#include "ef-histogram.h"

struct _EfHistogram {
  GtkWidget parent_instance;

  guint64  *counts;     /* owned, n_bins, or NULL */
  guint     n_bins;
  double    lo_db, hi_db;
  double    black_db, white_db;
};

G_DEFINE_FINAL_TYPE (EfHistogram, ef_histogram, GTK_TYPE_WIDGET)

void
ef_histogram_count (const EfCf32 *pixels, gsize n, double gain_db, double lo_db, double hi_db, guint64 *counts,
                    guint n_bins)
{
  double k;

  g_return_if_fail (counts != NULL && n_bins > 0 && hi_db > lo_db);
  memset (counts, 0, n_bins * sizeof *counts);
  k = n_bins / (hi_db - lo_db);
  for (gsize i = 0; i < n; i++)
    {
      double p = (double) crealf (pixels[i]) * crealf (pixels[i]) + (double) cimagf (pixels[i]) * cimagf (pixels[i]);
      double db, b;

      if (!(p > 0) || !isfinite (p))
        continue;
      db = 10.0 * log10 (p) + gain_db;
      if (db < lo_db || db > hi_db)
        continue;
      b = floor ((db - lo_db) * k);
      counts[MIN ((guint) b, n_bins - 1)]++;
    }
}

gboolean
ef_histogram_range (const EfCf32 *pixels, gsize n, double gain_db, double span_db, double *lo_db, double *hi_db)
{
  double pmin = G_MAXDOUBLE, pmax = 0;

  for (gsize i = 0; i < n; i++)
    {
      double p = (double) crealf (pixels[i]) * crealf (pixels[i]) + (double) cimagf (pixels[i]) * cimagf (pixels[i]);

      if (!(p > 0) || !isfinite (p))
        continue;
      pmin = MIN (pmin, p);
      pmax = MAX (pmax, p);
    }
  if (!(pmax > 0))
    return FALSE;
  *hi_db = ceil (10.0 * log10 (pmax) + gain_db);
  *lo_db = MAX (floor (10.0 * log10 (pmin) + gain_db), *hi_db - span_db);
  if (!(*hi_db > *lo_db))
    *lo_db = *hi_db - 1;
  return TRUE;
}

void
ef_histogram_set_counts (EfHistogram *self, const guint64 *counts, guint n_bins, double lo_db, double hi_db)
{
  g_return_if_fail (EF_IS_HISTOGRAM (self));
  g_clear_pointer (&self->counts, g_free);
  self->n_bins = 0;
  if (counts != NULL && n_bins > 0)
    {
      self->counts = g_memdup2 (counts, n_bins * sizeof *counts);
      self->n_bins = n_bins;
      self->lo_db = lo_db;
      self->hi_db = hi_db;
    }
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

const guint64 *
ef_histogram_get_counts (EfHistogram *self, guint *n_bins, double *lo_db, double *hi_db)
{
  g_return_val_if_fail (EF_IS_HISTOGRAM (self), NULL);
  if (n_bins != NULL)
    *n_bins = self->n_bins;
  if (lo_db != NULL)
    *lo_db = self->lo_db;
  if (hi_db != NULL)
    *hi_db = self->hi_db;
  return self->counts;
}

void
ef_histogram_set_levels (EfHistogram *self, double black_db, double white_db)
{
  g_return_if_fail (EF_IS_HISTOGRAM (self));
  self->black_db = black_db;
  self->white_db = white_db;
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
draw (EfHistogram *self, cairo_t *cr, double w, double h)
{
  GtkWidget *widget = GTK_WIDGET (self);
  GdkRGBA fg, accent = { 0.21, 0.52, 0.89, 1 };
  double plot_h = h - 18, top = 0, x;

  G_GNUC_BEGIN_IGNORE_DEPRECATIONS
  gtk_style_context_get_color (gtk_widget_get_style_context (widget), &fg);
  G_GNUC_END_IGNORE_DEPRECATIONS
  if (self->counts == NULL)
    {
      g_autoptr (PangoLayout) layout = gtk_widget_create_pango_layout (widget, _("No image yet"));
      fg.alpha = 0.5f;
      gdk_cairo_set_source_rgba (cr, &fg);
      cairo_move_to (cr, 4, 4);
      pango_cairo_show_layout (cr, layout);
      return;
    }
  /* Bars on a logarithmic count scale: the bright tail of a few hundred pixels shows beside millions. */
  for (guint i = 0; i < self->n_bins; i++)
    top = MAX (top, log1p ((double) self->counts[i]));
  fg.alpha = 0.55f;
  gdk_cairo_set_source_rgba (cr, &fg);
  for (guint i = 0; i < self->n_bins && top > 0; i++)
    {
      double bh = plot_h * log1p ((double) self->counts[i]) / top;
      cairo_rectangle (cr, w * i / self->n_bins, plot_h - bh, w / self->n_bins + 0.5, bh);
    }
  cairo_fill (cr);

  /* The levels, and the span between them. */
  cairo_set_line_width (cr, 2);
  for (int k = 0; k < 2; k++)
    {
      double v = k == 0 ? self->black_db : self->white_db;
      x = w * (v - self->lo_db) / (self->hi_db - self->lo_db);
      if (x < 0 || x > w)
        continue;
      gdk_cairo_set_source_rgba (cr, &accent);
      cairo_move_to (cr, x, 0);
      cairo_line_to (cr, x, plot_h);
      cairo_stroke (cr);
    }
  fg.alpha = 1;
  gdk_cairo_set_source_rgba (cr, &fg);
  for (int k = 0; k < 2; k++)
    {
      g_autofree char *text = g_strdup_printf (_("%.0f dB"), k == 0 ? self->lo_db : self->hi_db);
      g_autoptr (PangoLayout) layout = gtk_widget_create_pango_layout (widget, text);
      int tw, th;

      pango_layout_get_pixel_size (layout, &tw, &th);
      cairo_move_to (cr, k == 0 ? 0 : w - tw, plot_h + 1);
      pango_cairo_show_layout (cr, layout);
    }
}

static void
ef_histogram_snapshot (GtkWidget *widget, GtkSnapshot *snapshot)
{
  double w = gtk_widget_get_width (widget), h = gtk_widget_get_height (widget);
  cairo_t *cr;

  if (w < 2 || h < 20)
    return;
  cr = gtk_snapshot_append_cairo (snapshot, &GRAPHENE_RECT_INIT (0, 0, (float) w, (float) h));
  draw (EF_HISTOGRAM (widget), cr, w, h);
  cairo_destroy (cr);
}

static void
ef_histogram_measure (GtkWidget *widget, GtkOrientation orientation, int for_size, int *minimum, int *natural,
                      int *minimum_baseline, int *natural_baseline)
{
  *minimum = orientation == GTK_ORIENTATION_HORIZONTAL ? 120 : 80;
  *natural = orientation == GTK_ORIENTATION_HORIZONTAL ? 300 : 90;
}

static void
ef_histogram_finalize (GObject *object)
{
  g_free (EF_HISTOGRAM (object)->counts);
  G_OBJECT_CLASS (ef_histogram_parent_class)->finalize (object);
}

static void
ef_histogram_class_init (EfHistogramClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  G_OBJECT_CLASS (klass)->finalize = ef_histogram_finalize;
  widget_class->snapshot = ef_histogram_snapshot;
  widget_class->measure = ef_histogram_measure;
  gtk_widget_class_set_css_name (widget_class, "histogram");
}

static void
ef_histogram_init (EfHistogram *self)
{
}

GtkWidget *
ef_histogram_new (void)
{
  return g_object_new (EF_TYPE_HISTOGRAM, NULL);
}
