/* ef-measure-panel.c: position, IRW, PSLR and ISLR of a measured point, with both cuts plotted. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-measure-panel"
#include "config.h"

#include <adwaita.h>
#include <glib/gi18n.h>

#include "ef-cut-plot.h"
#include "ef-measure-panel.h"
#include "ef-panel-util.h"
#if EF_TEST_HOOKS
#include "ef-measure-panel-test.h"
#endif

struct _EfMeasurePanel {
  GtkWidget  parent_instance;

  GtkWidget *stack;    /* owned child */
  GtkLabel  *position, *peak, *where, *count;
  GtkLabel  *r_irw, *r_pslr, *r_islr, *c_irw, *c_pslr, *c_islr;
  GtkLabel  *note;
  GtkWidget *note_group;    /* shown only with a note */
  EfCutPlot *range_plot, *cross_plot;
};

G_DEFINE_FINAL_TYPE (EfMeasurePanel, ef_measure_panel, GTK_TYPE_WIDGET)

static void
set (GtkLabel *label, char *text)
{
  gtk_label_set_text (label, text);
  g_free (text);
}

void
ef_measure_panel_set_result (EfMeasurePanel *self, const EfPointResult *r, guint n_total, const char *where)
{
  g_return_if_fail (EF_IS_MEASURE_PANEL (self));

  if (r == NULL)
    {
      gtk_stack_set_visible_child_name (GTK_STACK (self->stack), "empty");
      ef_cut_plot_set_cut (self->range_plot, NULL);
      ef_cut_plot_set_cut (self->cross_plot, NULL);
      return;
    }
  gtk_stack_set_visible_child_name (GTK_STACK (self->stack), "result");
  ef_measure_panel_set_note (self, NULL);
  set (self->position, g_strdup_printf (_("x %.2f m, y %.2f m"), r->position[0], r->position[1]));
  set (self->peak, g_strdup_printf (_("%.1f dB"), r->peak_db));
  gtk_label_set_text (self->where, where != NULL ? where : "–");
  set (self->count, g_strdup_printf ("%u", n_total));
  set (self->r_irw, ef_format_length (r->range.irw_m));
  set (self->r_pslr, g_strdup_printf (_("%.2f dB"), r->range.pslr_db));
  set (self->r_islr, g_strdup_printf (_("%.2f dB"), r->range.islr_db));
  set (self->c_irw, ef_format_length (r->cross.irw_m));
  set (self->c_pslr, g_strdup_printf (_("%.2f dB"), r->cross.pslr_db));
  set (self->c_islr, g_strdup_printf (_("%.2f dB"), r->cross.islr_db));
  ef_cut_plot_set_cut (self->range_plot, &r->range);
  ef_cut_plot_set_cut (self->cross_plot, &r->cross);
}

void
ef_measure_panel_set_note (EfMeasurePanel *self, const char *note)
{
  g_return_if_fail (EF_IS_MEASURE_PANEL (self));
  gtk_label_set_text (self->note, note != NULL ? note : "");
  gtk_widget_set_visible (self->note_group, note != NULL);
}

gboolean
ef_measure_panel_shows_result (EfMeasurePanel *self)
{
  g_return_val_if_fail (EF_IS_MEASURE_PANEL (self), FALSE);
  return g_strcmp0 (gtk_stack_get_visible_child_name (GTK_STACK (self->stack)), "result") == 0
         && ef_cut_plot_has_cut (self->range_plot) && ef_cut_plot_has_cut (self->cross_plot);
}

#if EF_TEST_HOOKS
const char *
ef_measure_panel_get_text (EfMeasurePanel *self, const char *name)
{
  const struct { const char *name; GtkLabel *label; } all[] = {
    { "position", self->position }, { "peak", self->peak }, { "where", self->where },
    { "range-irw", self->r_irw }, { "range-pslr", self->r_pslr }, { "range-islr", self->r_islr },
    { "cross-irw", self->c_irw }, { "cross-pslr", self->c_pslr }, { "cross-islr", self->c_islr },
  };

  g_return_val_if_fail (EF_IS_MEASURE_PANEL (self), NULL);
  if (g_str_equal (name, "note"))
    return gtk_label_get_text (self->note);
  for (guint i = 0; i < G_N_ELEMENTS (all); i++)
    if (g_str_equal (name, all[i].name))
      return gtk_label_get_text (all[i].label);
  return NULL;
}
#endif

static void
ef_measure_panel_dispose (GObject *object)
{
  EfMeasurePanel *self = EF_MEASURE_PANEL (object);

  g_clear_pointer (&self->stack, gtk_widget_unparent);
  G_OBJECT_CLASS (ef_measure_panel_parent_class)->dispose (object);
}

static void
ef_measure_panel_class_init (EfMeasurePanelClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = ef_measure_panel_dispose;
  gtk_widget_class_set_layout_manager_type (GTK_WIDGET_CLASS (klass), GTK_TYPE_BIN_LAYOUT);
}

static GtkWidget *
button_row (void)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  GtkWidget *b;

  gtk_widget_set_halign (box, GTK_ALIGN_END);
  b = gtk_button_new_with_mnemonic (_("_Clear"));
  gtk_actionable_set_action_name (GTK_ACTIONABLE (b), "win.clear-measurements");
  gtk_box_append (GTK_BOX (box), b);
  b = gtk_button_new_with_mnemonic (_("_Export CSV…"));
  gtk_actionable_set_action_name (GTK_ACTIONABLE (b), "win.export-measurements");
  gtk_box_append (GTK_BOX (box), b);
  return box;
}

static GtkLabel *
table_cell (GtkGrid *grid, const char *text, int col, int row, gboolean header)
{
  GtkWidget *label = gtk_label_new (text);

  gtk_label_set_xalign (GTK_LABEL (label), col == 0 ? 0.0f : 1.0f);
  gtk_widget_set_hexpand (label, col > 0);
  gtk_widget_add_css_class (label, header ? "heading" : "numeric");
  if (!header && col > 0)
    gtk_label_set_selectable (GTK_LABEL (label), TRUE);
  gtk_grid_attach (grid, label, col, row, 1, 1);
  return GTK_LABEL (label);
}

/* The point's facts as a compact two-column table, so that the figures and both cuts fit below it in a
 * window 800 pixels tall. */
static GtkWidget *
point_table (EfMeasurePanel *self)
{
  GtkWidget *frame = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  GtkGrid *grid = GTK_GRID (gtk_grid_new ());
  const char *names[] = { _("Position"), _("Peak, per pulse"), _("Measured in"), _("Points measured") };
  GtkLabel **values[] = { &self->position, &self->peak, &self->where, &self->count };

  gtk_widget_add_css_class (frame, "card");
  gtk_grid_set_row_spacing (grid, 8);
  gtk_grid_set_column_spacing (grid, 12);
  gtk_widget_set_margin_start (GTK_WIDGET (grid), 12);
  gtk_widget_set_margin_end (GTK_WIDGET (grid), 12);
  gtk_widget_set_margin_top (GTK_WIDGET (grid), 10);
  gtk_widget_set_margin_bottom (GTK_WIDGET (grid), 10);
  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    {
      table_cell (grid, names[i], 0, (int) i, FALSE);
      *values[i] = table_cell (grid, "–", 1, (int) i, FALSE);
      gtk_label_set_ellipsize (*values[i], PANGO_ELLIPSIZE_MIDDLE);
    }
  gtk_box_append (GTK_BOX (frame), GTK_WIDGET (grid));
  return frame;
}

/* A small table: IRW, PSLR and ISLR down, range and cross-range across. */
static GtkWidget *
figures_table (EfMeasurePanel *self)
{
  GtkWidget *frame = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  GtkGrid *grid = GTK_GRID (gtk_grid_new ());

  gtk_widget_add_css_class (frame, "card");
  gtk_grid_set_row_spacing (grid, 8);
  gtk_grid_set_column_spacing (grid, 12);
  gtk_widget_set_margin_start (GTK_WIDGET (grid), 12);
  gtk_widget_set_margin_end (GTK_WIDGET (grid), 12);
  gtk_widget_set_margin_top (GTK_WIDGET (grid), 10);
  gtk_widget_set_margin_bottom (GTK_WIDGET (grid), 10);
  table_cell (grid, "", 0, 0, TRUE);
  table_cell (grid, _("Range"), 1, 0, TRUE);
  table_cell (grid, _("Cross-range"), 2, 0, TRUE);
  gtk_widget_set_tooltip_text (GTK_WIDGET (table_cell (grid, _("IRW"), 0, 1, FALSE)),
                               _("Impulse response width: the width of the main lobe at −3 dB"));
  gtk_widget_set_tooltip_text (GTK_WIDGET (table_cell (grid, _("PSLR"), 0, 2, FALSE)),
                               _("Peak sidelobe ratio: the highest sidelobe relative to the peak"));
  gtk_widget_set_tooltip_text (GTK_WIDGET (table_cell (grid, _("ISLR"), 0, 3, FALSE)),
                               _("Integrated sidelobe ratio: the sidelobes' energy relative to the main lobe's"));
  self->r_irw = table_cell (grid, "–", 1, 1, FALSE);
  self->r_pslr = table_cell (grid, "–", 1, 2, FALSE);
  self->r_islr = table_cell (grid, "–", 1, 3, FALSE);
  self->c_irw = table_cell (grid, "–", 2, 1, FALSE);
  self->c_pslr = table_cell (grid, "–", 2, 2, FALSE);
  self->c_islr = table_cell (grid, "–", 2, 3, FALSE);
  gtk_box_append (GTK_BOX (frame), GTK_WIDGET (grid));
  return frame;
}

static void
ef_measure_panel_init (EfMeasurePanel *self)
{
  GtkWidget *page, *status;
  AdwPreferencesGroup *g;

  self->stack = gtk_stack_new ();
  gtk_widget_set_parent (self->stack, GTK_WIDGET (self));

  status = adw_status_page_new ();
  adw_status_page_set_icon_name (ADW_STATUS_PAGE (status), "ef-tool-measure-symbolic");
  adw_status_page_set_title (ADW_STATUS_PAGE (status), _("No Measurement"));
  adw_status_page_set_description (ADW_STATUS_PAGE (status),
                                   _("Choose the measure tool and click a bright point to measure its "
                                     "resolution and sidelobes."));
  gtk_widget_add_css_class (status, "compact");
  gtk_stack_add_named (GTK_STACK (self->stack), status, "empty");

  page = adw_preferences_page_new ();
  g = ADW_PREFERENCES_GROUP (adw_preferences_group_new ());
  self->note = GTK_LABEL (gtk_label_new (""));
  gtk_label_set_wrap (self->note, TRUE);
  gtk_label_set_xalign (self->note, 0);
  gtk_widget_add_css_class (GTK_WIDGET (self->note), "warning");
  adw_preferences_group_add (g, GTK_WIDGET (self->note));
  self->note_group = GTK_WIDGET (g);
  gtk_widget_set_visible (self->note_group, FALSE);
  adw_preferences_page_add (ADW_PREFERENCES_PAGE (page), g);

  g = ADW_PREFERENCES_GROUP (adw_preferences_group_new ());
  adw_preferences_group_set_title (g, _("Point"));
  adw_preferences_group_set_header_suffix (g, button_row ());
  adw_preferences_group_add (g, point_table (self));
  adw_preferences_page_add (ADW_PREFERENCES_PAGE (page), g);

  /* The figures side by side for both cuts, then the cuts themselves. */
  g = ADW_PREFERENCES_GROUP (adw_preferences_group_new ());
  adw_preferences_group_set_title (g, _("Impulse Response"));
  adw_preferences_group_add (g, figures_table (self));
  self->range_plot = EF_CUT_PLOT (ef_cut_plot_new (_("Range cut (dB)")));
  gtk_widget_set_margin_top (GTK_WIDGET (self->range_plot), 12);
  adw_preferences_group_add (g, GTK_WIDGET (self->range_plot));
  self->cross_plot = EF_CUT_PLOT (ef_cut_plot_new (_("Cross-range cut (dB)")));
  gtk_widget_set_margin_top (GTK_WIDGET (self->cross_plot), 12);
  adw_preferences_group_add (g, GTK_WIDGET (self->cross_plot));
  adw_preferences_page_add (ADW_PREFERENCES_PAGE (page), g);

  gtk_stack_add_named (GTK_STACK (self->stack), page, "result");
  gtk_stack_set_visible_child_name (GTK_STACK (self->stack), "empty");
}

GtkWidget *
ef_measure_panel_new (void)
{
  return g_object_new (EF_TYPE_MEASURE_PANEL, NULL);
}
