/* ef-display-panel.c: view, colour map, dynamic range and gamma, with a colour bar. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-display-panel"
#include "config.h"

#if EF_TEST_HOOKS
#include "ef-display-panel-test.h"
#endif

#include <adwaita.h>
#include <glib/gi18n.h>

#include "ef-display-panel.h"
#include "ef-histogram.h"
#include "ef-panel-util.h"

struct _EfDisplayPanel {
  GtkWidget       parent_instance;

  GtkWidget      *page;       /* owned child */
  AdwComboRow    *mode, *colormap;
  GtkSpinButton  *db_min, *db_max, *gamma;
  GtkWidget      *bar;
  EfHistogram    *histogram;
  EfDisplayParams params;
  guint           updating;
};

G_DEFINE_FINAL_TYPE (EfDisplayPanel, ef_display_panel, GTK_TYPE_WIDGET)

enum {
  SIGNAL_CHANGED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void
draw_bar (GtkDrawingArea *area, cairo_t *cr, int w, int h, gpointer user_data)
{
  EfDisplayPanel *self = user_data;
  cairo_surface_t *surface;
  guint8 *row;
  int stride, bar_h = MAX (h - 18, 4);

  surface = cairo_image_surface_create (CAIRO_FORMAT_RGB24, MAX (w, 1), 1);
  row = cairo_image_surface_get_data (surface);
  stride = cairo_image_surface_get_stride (surface);
  (void) stride;
  cairo_surface_flush (surface);
  for (int x = 0; x < w; x++)
    {
      guint8 rgb[3];
      double t = w > 1 ? (double) x / (w - 1) : 0;

      if (self->params.mode == EF_VIEW_MAGNITUDE)
        t = pow (t, 1.0 / MAX (self->params.gamma, 1e-3));
      ef_colormap_lookup (self->params.colormap, t, rgb);
      ((guint32 *) row)[x] = (guint32) rgb[0] << 16 | (guint32) rgb[1] << 8 | rgb[2];
    }
  cairo_surface_mark_dirty (surface);
  cairo_save (cr);
  cairo_scale (cr, 1, bar_h);
  cairo_set_source_surface (cr, surface, 0, 0);
  cairo_pattern_set_filter (cairo_get_source (cr), CAIRO_FILTER_NEAREST);
  cairo_paint (cr);
  cairo_restore (cr);
  cairo_surface_destroy (surface);

  {
    GdkRGBA fg;
    g_autofree char *lo = NULL, *hi = NULL;
    g_autoptr (PangoLayout) l1 = NULL;
    g_autoptr (PangoLayout) l2 = NULL;
    int tw, th;

    switch (self->params.mode)
      {
      case EF_VIEW_PHASE:
        lo = g_strdup ("−180°");
        hi = g_strdup ("180°");
        break;
      case EF_VIEW_REAL:
      case EF_VIEW_IMAGINARY:
        lo = g_strdup_printf ("−%.3g", pow (10, self->params.db_max / 20));
        hi = g_strdup_printf ("%.3g", pow (10, self->params.db_max / 20));
        break;
      case EF_VIEW_MAGNITUDE:
      case EF_VIEW_N:
      default:
        lo = g_strdup_printf (_("%.0f dB"), self->params.db_min);
        hi = g_strdup_printf (_("%.0f dB"), self->params.db_max);
        break;
      }
    G_GNUC_BEGIN_IGNORE_DEPRECATIONS
    gtk_style_context_get_color (gtk_widget_get_style_context (GTK_WIDGET (area)), &fg);
    G_GNUC_END_IGNORE_DEPRECATIONS
    gdk_cairo_set_source_rgba (cr, &fg);
    l1 = gtk_widget_create_pango_layout (GTK_WIDGET (area), lo);
    l2 = gtk_widget_create_pango_layout (GTK_WIDGET (area), hi);
    cairo_move_to (cr, 0, bar_h + 1);
    pango_cairo_show_layout (cr, l1);
    pango_layout_get_pixel_size (l2, &tw, &th);
    cairo_move_to (cr, w - tw, bar_h + 1);
    pango_cairo_show_layout (cr, l2);
  }
}

void
ef_display_panel_set_histogram (EfDisplayPanel *self, const guint64 *counts, guint n_bins, double lo_db,
                                double hi_db)
{
  g_return_if_fail (EF_IS_DISPLAY_PANEL (self));
  ef_histogram_set_counts (self->histogram, counts, n_bins, lo_db, hi_db);
}

static void
changed (EfDisplayPanel *self)
{
  ef_display_panel_get (self, &self->params);
  ef_histogram_set_levels (self->histogram, self->params.db_min, self->params.db_max);
  gtk_widget_queue_draw (self->bar);
  if (self->updating == 0)
    g_signal_emit (self, signals[SIGNAL_CHANGED], 0);
}

void
ef_display_panel_set (EfDisplayPanel *self, const EfDisplayParams *p)
{
  g_return_if_fail (EF_IS_DISPLAY_PANEL (self) && p != NULL);

  self->updating++;
  self->params = *p;
  adw_combo_row_set_selected (self->mode, (guint) p->mode);
  adw_combo_row_set_selected (self->colormap, (guint) p->colormap);
  gtk_spin_button_set_value (self->db_min, p->db_min);
  gtk_spin_button_set_value (self->db_max, p->db_max);
  gtk_spin_button_set_value (self->gamma, p->gamma);
  ef_histogram_set_levels (self->histogram, p->db_min, p->db_max);
  gtk_widget_queue_draw (self->bar);
  self->updating--;
}

void
ef_display_panel_get (EfDisplayPanel *self, EfDisplayParams *p)
{
  g_return_if_fail (EF_IS_DISPLAY_PANEL (self) && p != NULL);

  p->mode = (EfViewMode) adw_combo_row_get_selected (self->mode);
  p->colormap = (EfColormap) adw_combo_row_get_selected (self->colormap);
  p->db_min = gtk_spin_button_get_value (self->db_min);
  p->db_max = gtk_spin_button_get_value (self->db_max);
  p->gamma = gtk_spin_button_get_value (self->gamma);
}

static void
ef_display_panel_dispose (GObject *object)
{
  EfDisplayPanel *self = EF_DISPLAY_PANEL (object);

  g_clear_pointer (&self->page, gtk_widget_unparent);
  G_OBJECT_CLASS (ef_display_panel_parent_class)->dispose (object);
}

static void
ef_display_panel_class_init (EfDisplayPanelClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = ef_display_panel_dispose;
  gtk_widget_class_set_layout_manager_type (GTK_WIDGET_CLASS (klass), GTK_TYPE_BIN_LAYOUT);

  /**
   * EfDisplayPanel::changed:
   * The user changed a display choice; read them with ef_display_panel_get().
   */
  signals[SIGNAL_CHANGED] = g_signal_new ("changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                                          NULL, G_TYPE_NONE, 0);
}

static void
ef_display_panel_init (EfDisplayPanel *self)
{
  const char *modes[] = { _("Magnitude"), _("Phase"), _("Real part"), _("Imaginary part"), NULL };
  const char *maps[] = { _("Grey"), _("Perceptual"), _("Cyclic"), NULL };
  AdwPreferencesGroup *g;
  GtkWidget *button, *box;

  ef_display_params_init (&self->params);
  self->page = adw_preferences_page_new ();
  gtk_widget_set_parent (self->page, GTK_WIDGET (self));

  g = ADW_PREFERENCES_GROUP (adw_preferences_group_new ());
  adw_preferences_group_set_title (g, _("View"));
  self->mode = ef_panel_add_combo_row (g, _("Show"), modes);
  self->colormap = ef_panel_add_combo_row (g, _("Colour map"), maps);
  adw_preferences_page_add (ADW_PREFERENCES_PAGE (self->page), g);

  g = ADW_PREFERENCES_GROUP (adw_preferences_group_new ());
  adw_preferences_group_set_title (g, _("Dynamic Range"));
  adw_preferences_group_set_description (g, _("Magnitudes are in dB per pulse, so that the overview and the "
                                               "region agree while it forms."));
  button = gtk_button_new_with_mnemonic (_("_From Image"));
  gtk_widget_set_tooltip_text (button, _("Set the range from the percentiles of the image"));
  gtk_actionable_set_action_name (GTK_ACTIONABLE (button), "win.auto-range");
  gtk_widget_add_css_class (button, "flat");
  adw_preferences_group_set_header_suffix (g, button);
  self->db_min = ef_panel_add_spin_row (g, _("Black level (dB)"), NULL, -300, 300, 1, 1);
  self->db_max = ef_panel_add_spin_row (g, _("White level (dB)"), NULL, -300, 300, 1, 1);
  self->gamma = ef_panel_add_spin_row (g, _("Gamma"), _("Above 1 brightens the mid-tones"), 0.1, 5, 0.1, 2);

  box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  gtk_widget_set_margin_top (box, 12);
  self->bar = gtk_drawing_area_new ();
  gtk_drawing_area_set_content_height (GTK_DRAWING_AREA (self->bar), 40);
  gtk_drawing_area_set_draw_func (GTK_DRAWING_AREA (self->bar), draw_bar, self, NULL);
  gtk_box_append (GTK_BOX (box), self->bar);
  adw_preferences_group_add (g, box);
  /* Where the image's values lie, against the levels: for choosing them. */
  self->histogram = EF_HISTOGRAM (ef_histogram_new ());
  gtk_widget_set_margin_top (GTK_WIDGET (self->histogram), 12);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->histogram),
                               _("How many pixels have each magnitude (dB per pulse, counts on a logarithmic "
                                 "scale); the lines are the black and white levels"));
  adw_preferences_group_add (g, GTK_WIDGET (self->histogram));
  adw_preferences_page_add (ADW_PREFERENCES_PAGE (self->page), g);

  g_signal_connect_swapped (self->mode, "notify::selected", G_CALLBACK (changed), self);
  g_signal_connect_swapped (self->colormap, "notify::selected", G_CALLBACK (changed), self);
  g_signal_connect_swapped (self->db_min, "value-changed", G_CALLBACK (changed), self);
  g_signal_connect_swapped (self->db_max, "value-changed", G_CALLBACK (changed), self);
  g_signal_connect_swapped (self->gamma, "value-changed", G_CALLBACK (changed), self);
}

#if EF_TEST_HOOKS
GtkWidget *
ef_display_panel_get_widget (EfDisplayPanel *self, const char *name)
{
  g_return_val_if_fail (EF_IS_DISPLAY_PANEL (self), NULL);
  if (g_str_equal (name, "db-min"))
    return GTK_WIDGET (self->db_min);
  if (g_str_equal (name, "db-max"))
    return GTK_WIDGET (self->db_max);
  if (g_str_equal (name, "gamma"))
    return GTK_WIDGET (self->gamma);
  if (g_str_equal (name, "histogram"))
    return GTK_WIDGET (self->histogram);
  return NULL;
}
#endif

GtkWidget *
ef_display_panel_new (void)
{
  return g_object_new (EF_TYPE_DISPLAY_PANEL, NULL);
}
