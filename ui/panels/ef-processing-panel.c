/* ef-processing-panel.c: algorithm, precision, backend, windows, upsampling, blocks, order, spacing. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-processing-panel"
#include "config.h"

#include <adwaita.h>
#include <glib/gi18n.h>
#include <math.h>

#include "ef-panel-util.h"
#include "ef-processing-panel.h"
#if EF_TEST_HOOKS
#include "ef-processing-panel-test.h"
#endif

struct _EfProcessingPanel {
  GtkWidget      parent_instance;

  GtkWidget     *page;          /* owned child */
  AdwComboRow   *algo, *precision, *backend, *window, *az_window, *order;
  GtkSpinButton *upsample, *block_size, *spacing, *samples_per_cell;
  GtkSwitch     *spacing_auto;
  GtkLabel      *in_use, *roi_info;
  GtkWidget     *spacing_row, *cells_row;
  AdwActionRow  *verify_row;
  AdwEntryRow   *roi_entry;
  GtkButton     *verify_button;
  guint          updating;      /* > 0 while the widgets are set from code */
};

G_DEFINE_FINAL_TYPE (EfProcessingPanel, ef_processing_panel, GTK_TYPE_WIDGET)

enum {
  SIGNAL_CHANGED,
  SIGNAL_REGION_TYPED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void
sync_sensitivity (EfProcessingPanel *self)
{
  gboolean automatic = gtk_switch_get_active (self->spacing_auto);

  gtk_widget_set_sensitive (GTK_WIDGET (self->spacing), !automatic);
  gtk_widget_set_sensitive (self->cells_row, automatic);
}

static void
changed (EfProcessingPanel *self)
{
  sync_sensitivity (self);
  if (self->updating == 0)
    g_signal_emit (self, signals[SIGNAL_CHANGED], 0);
}

void
ef_processing_panel_set (EfProcessingPanel *self, const EfProcessing *p, double auto_spacing)
{
  g_return_if_fail (EF_IS_PROCESSING_PANEL (self) && p != NULL);

  self->updating++;
  adw_combo_row_set_selected (self->algo, (guint) p->algo);
  adw_combo_row_set_selected (self->precision, (guint) p->precision);
  adw_combo_row_set_selected (self->backend, (guint) p->backend);
  adw_combo_row_set_selected (self->window, (guint) p->window);
  adw_combo_row_set_selected (self->az_window, (guint) p->az_window);
  adw_combo_row_set_selected (self->order, (guint) p->order);
  gtk_spin_button_set_value (self->upsample, p->upsample);
  gtk_spin_button_set_value (self->block_size, p->block_size);
  gtk_switch_set_active (self->spacing_auto, p->spacing_auto);
  gtk_spin_button_set_value (self->samples_per_cell, p->samples_per_cell);
  gtk_spin_button_set_value (self->spacing, p->spacing_auto ? auto_spacing : p->spacing);
  sync_sensitivity (self);
  self->updating--;
}

void
ef_processing_panel_get (EfProcessingPanel *self, EfProcessing *p)
{
  g_return_if_fail (EF_IS_PROCESSING_PANEL (self) && p != NULL);

  p->algo = (EfAlgo) adw_combo_row_get_selected (self->algo);
  p->precision = (EfPrecision) adw_combo_row_get_selected (self->precision);
  p->backend = (EfBackendKind) adw_combo_row_get_selected (self->backend);
  p->window = (EfWindow) adw_combo_row_get_selected (self->window);
  p->az_window = (EfWindow) adw_combo_row_get_selected (self->az_window);
  p->order = (EfOrder) adw_combo_row_get_selected (self->order);
  p->upsample = (guint) gtk_spin_button_get_value_as_int (self->upsample);
  p->block_size = (guint) gtk_spin_button_get_value_as_int (self->block_size);
  p->spacing_auto = gtk_switch_get_active (self->spacing_auto);
  p->samples_per_cell = gtk_spin_button_get_value (self->samples_per_cell);
  if (!p->spacing_auto)
    p->spacing = gtk_spin_button_get_value (self->spacing);
}

void
ef_processing_panel_set_run (EfProcessingPanel *self, const EfRunInfo *run)
{
  g_autofree char *ran = NULL;
  g_autofree char *why = NULL;
  g_auto (GStrv) warnings = NULL;
  GtkWidget *row;

  g_return_if_fail (EF_IS_PROCESSING_PANEL (self));
  row = gtk_widget_get_ancestor (GTK_WIDGET (self->in_use), ADW_TYPE_ACTION_ROW);
  if (run == NULL || run->backend == NULL)
    {
      gtk_label_set_text (self->in_use, "–");
      adw_action_row_set_subtitle (ADW_ACTION_ROW (row), "");
      return;
    }
  /* What ran, as the engine recorded it, and, in full, every way it differs from what was asked and
   * anything wrong with the input or the image. */
  ran = ef_run_info_describe (run);
  warnings = ef_run_info_warnings (run);
  why = g_strjoinv ("\n", warnings);
  gtk_label_set_text (self->in_use, ran);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->in_use), why[0] != '\0' ? why : NULL);
  adw_action_row_set_subtitle (ADW_ACTION_ROW (row), why);
}

#if EF_TEST_HOOKS
const char *
ef_processing_panel_get_run_text (EfProcessingPanel *self)
{
  g_return_val_if_fail (EF_IS_PROCESSING_PANEL (self), NULL);
  return gtk_label_get_text (self->in_use);
}

GtkWidget *
ef_processing_panel_get_widget (EfProcessingPanel *self, const char *name)
{
  const struct { const char *name; gpointer widget; } all[] = {
    { "algorithm", self->algo }, { "precision", self->precision }, { "backend", self->backend },
    { "window", self->window }, { "order", self->order }, { "block-size", self->block_size },
    { "spacing-auto", self->spacing_auto }, { "spacing", self->spacing }, { "roi-info", self->roi_info },
    { "roi-entry", self->roi_entry },
  };

  g_return_val_if_fail (EF_IS_PROCESSING_PANEL (self), NULL);
  for (guint i = 0; i < G_N_ELEMENTS (all); i++)
    if (g_str_equal (name, all[i].name))
      return GTK_WIDGET (all[i].widget);
  return NULL;
}
#endif

void
ef_processing_panel_set_verify (EfProcessingPanel *self, const char *text, gboolean running)
{
  g_return_if_fail (EF_IS_PROCESSING_PANEL (self));
  if (text == NULL)
    text = _("How far the formed region is from exact backprojection, at 256 pixels: for the fast algorithms "
             "and half precision");
  adw_action_row_set_subtitle (self->verify_row, text);
  gtk_button_set_label (self->verify_button, running ? _("Stop") : _("Check"));
}

gboolean
ef_processing_parse_roi (const char *text, double roi[4])
{
  g_autoptr (GString) s = NULL;
  g_auto (GStrv) parts = NULL;
  guint n = 0;

  if (text == NULL)
    return FALSE;
  s = g_string_new (text);
  g_string_replace (s, "−", "-", 0);
  parts = g_regex_split_simple ("[,;\\s]+", g_strstrip (s->str), 0, 0);
  for (guint i = 0; parts[i] != NULL; i++)
    {
      char *end = NULL;
      double v;

      if (parts[i][0] == '\0')
        continue;
      /* The user's locale may write decimals with a comma; commas separate here, so a point is the mark. */
      v = g_ascii_strtod (parts[i], &end);
      if (end == parts[i] || *end != '\0' || !isfinite (v) || n == 4)
        return FALSE;
      roi[n++] = v;
    }
  return n == 4 && roi[0] != roi[2] && roi[1] != roi[3];
}

void
ef_processing_panel_set_roi (EfProcessingPanel *self, const double roi[4])
{
  g_autofree char *text = NULL;

  g_return_if_fail (EF_IS_PROCESSING_PANEL (self));
  if (roi != NULL)
    {
      char b[4][G_ASCII_DTOSTR_BUF_SIZE];

      for (int i = 0; i < 4; i++)
        g_ascii_formatd (b[i], sizeof b[i], "%.2f", roi[i]);
      text = g_strdup_printf ("%s, %s, %s, %s", b[0], b[1], b[2], b[3]);
    }
  self->updating++;
  gtk_editable_set_text (GTK_EDITABLE (self->roi_entry), text != NULL ? text : "");
  gtk_widget_remove_css_class (GTK_WIDGET (self->roi_entry), "error");
  self->updating--;
}

static void
roi_applied (EfProcessingPanel *self)
{
  double roi[4];

  if (!ef_processing_parse_roi (gtk_editable_get_text (GTK_EDITABLE (self->roi_entry)), roi))
    {
      gtk_widget_add_css_class (GTK_WIDGET (self->roi_entry), "error");
      return;
    }
  gtk_widget_remove_css_class (GTK_WIDGET (self->roi_entry), "error");
  g_signal_emit (self, signals[SIGNAL_REGION_TYPED], 0, roi[0], roi[1], roi[2], roi[3]);
}

void
ef_processing_panel_set_roi_info (EfProcessingPanel *self, const char *text)
{
  g_return_if_fail (EF_IS_PROCESSING_PANEL (self));
  gtk_label_set_text (self->roi_info, text != NULL ? text : "–");
}

static void
ef_processing_panel_dispose (GObject *object)
{
  EfProcessingPanel *self = EF_PROCESSING_PANEL (object);

  g_clear_pointer (&self->page, gtk_widget_unparent);
  G_OBJECT_CLASS (ef_processing_panel_parent_class)->dispose (object);
}

static void
ef_processing_panel_class_init (EfProcessingPanelClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = ef_processing_panel_dispose;
  gtk_widget_class_set_layout_manager_type (GTK_WIDGET_CLASS (klass), GTK_TYPE_BIN_LAYOUT);

  /**
   * EfProcessingPanel::changed:
   * The user changed a choice; read them with ef_processing_panel_get().
   */
  signals[SIGNAL_CHANGED] = g_signal_new ("changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                                          NULL, G_TYPE_NONE, 0);
  /**
   * EfProcessingPanel::region-typed:
   * The user typed a region's corners (x0, y0, x1, y1, metres) and applied them.
   */
  signals[SIGNAL_REGION_TYPED] = g_signal_new ("region-typed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                               NULL, NULL, NULL, G_TYPE_NONE, 4, G_TYPE_DOUBLE, G_TYPE_DOUBLE,
                                               G_TYPE_DOUBLE, G_TYPE_DOUBLE);
}

static void
ef_processing_panel_init (EfProcessingPanel *self)
{
  /* The orders match the enumerations in ef-types.h and ef-job.h. */
  const char *algos[] = { _("Backprojection"), _("Fast factorised backprojection"), _("Fast backprojection"),
                          _("Polar format"), NULL };
  const char *precisions[] = { _("Double (fp64)"), _("Single (fp32)"), _("Half (fp16)"), NULL };
  const char *backends[] = { _("Automatic"), _("Processor (CPU)"), _("Graphics card (CUDA)"), NULL };
  const char *windows[] = { _("Rectangular"), _("Hann"), _("Hamming"), _("Taylor"), NULL };
  const char *orders[] = { _("Sequential"), _("Interleaved"), NULL };
  AdwPreferencesGroup *g;
  GtkWidget *row;

  self->page = adw_preferences_page_new ();
  gtk_widget_set_parent (self->page, GTK_WIDGET (self));

  g = ADW_PREFERENCES_GROUP (adw_preferences_group_new ());
  adw_preferences_group_set_title (g, _("Image Formation"));
  self->algo = ef_panel_add_combo_row (g, _("Algorithm"), algos);
  /* The algorithms' names are long: the choice goes under the title, where it has the row's width. */
  adw_combo_row_set_use_subtitle (self->algo, TRUE);
  self->precision = ef_panel_add_combo_row (g, _("Precision"), precisions);
  self->backend = ef_panel_add_combo_row (g, _("Backend"), backends);
  self->in_use = ef_panel_add_value_row (g, _("In use"), NULL);
  self->verify_row = ADW_ACTION_ROW (adw_action_row_new ());
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self->verify_row), _("Against exact backprojection"));
  self->verify_button = GTK_BUTTON (gtk_button_new ());
  gtk_widget_set_valign (GTK_WIDGET (self->verify_button), GTK_ALIGN_CENTER);
  gtk_actionable_set_action_name (GTK_ACTIONABLE (self->verify_button), "win.verify-region");
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->verify_button),
                               _("Backproject a sample of the region's pixels exactly and compare"));
  adw_action_row_add_suffix (self->verify_row, GTK_WIDGET (self->verify_button));
  adw_preferences_group_add (g, GTK_WIDGET (self->verify_row));
  ef_processing_panel_set_verify (self, NULL, FALSE);
  adw_preferences_page_add (ADW_PREFERENCES_PAGE (self->page), g);

  g = ADW_PREFERENCES_GROUP (adw_preferences_group_new ());
  adw_preferences_group_set_title (g, _("Range Compression"));
  self->window = ef_panel_add_combo_row (g, _("Window"), windows);
  self->upsample = ef_panel_add_spin_row (g, _("Upsampling"), _("Zero-padding factor of the range FFT"), 1, 32,
                                          1, 0);
  adw_preferences_page_add (ADW_PREFERENCES_PAGE (self->page), g);

  g = ADW_PREFERENCES_GROUP (adw_preferences_group_new ());
  adw_preferences_group_set_title (g, _("Pulses"));
  self->block_size = ef_panel_add_spin_row (g, _("Block size"), _("Pulses per update of the image"), 1, 4096, 8,
                                            0);
  self->order = ef_panel_add_combo_row (g, _("Order"), orders);
  /* Said in the group, not in a tooltip, which would open over the list of choices, nor in the row's
   * subtitle, which would leave its choice too little room. */
  adw_preferences_group_set_description (g, _("Sequential order grows the aperture; interleaved shows full "
                                              "resolution at once"));
  self->az_window = ef_panel_add_combo_row (g, _("Cross-range window"), windows);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->az_window),
                               _("Weighting over the aperture, which sets the cross-range sidelobes"));
  adw_preferences_page_add (ADW_PREFERENCES_PAGE (self->page), g);

  g = ADW_PREFERENCES_GROUP (adw_preferences_group_new ());
  adw_preferences_group_set_title (g, _("Region of Interest"));
  self->roi_entry = ADW_ENTRY_ROW (adw_entry_row_new ());
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (self->roi_entry), _("Corners x0, y0, x1, y1 (m)"));
  adw_entry_row_set_show_apply_button (self->roi_entry, TRUE);
  gtk_editable_set_width_chars (GTK_EDITABLE (self->roi_entry), 24);
  g_signal_connect_swapped (self->roi_entry, "apply", G_CALLBACK (roi_applied), self);
  g_signal_connect_swapped (self->roi_entry, "entry-activated", G_CALLBACK (roi_applied), self);
  adw_preferences_group_add (g, GTK_WIDGET (self->roi_entry));
  row = adw_action_row_new ();
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), _("Spacing from resolution"));
  self->spacing_auto = GTK_SWITCH (gtk_switch_new ());
  gtk_widget_set_valign (GTK_WIDGET (self->spacing_auto), GTK_ALIGN_CENTER);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), GTK_WIDGET (self->spacing_auto));
  adw_action_row_set_activatable_widget (ADW_ACTION_ROW (row), GTK_WIDGET (self->spacing_auto));
  adw_preferences_group_add (g, row);
  self->samples_per_cell = ef_panel_add_spin_row (g, _("Pixels per resolution cell"), NULL, 0.5, 8, 0.5, 1);
  self->cells_row = gtk_widget_get_ancestor (GTK_WIDGET (self->samples_per_cell), ADW_TYPE_ACTION_ROW);
  self->spacing = ef_panel_add_spin_row (g, _("Pixel spacing (m)"), NULL, 0.001, 100, 0.01, 3);
  self->spacing_row = gtk_widget_get_ancestor (GTK_WIDGET (self->spacing), ADW_TYPE_ACTION_ROW);
  self->roi_info = ef_panel_add_value_row (g, _("Size"), NULL);
  /* Pixels, spacing and metres all matter: the value wraps rather than losing any of them. */
  gtk_label_set_ellipsize (self->roi_info, PANGO_ELLIPSIZE_NONE);
  gtk_label_set_wrap (self->roi_info, TRUE);
  gtk_label_set_justify (self->roi_info, GTK_JUSTIFY_RIGHT);
  gtk_label_set_max_width_chars (self->roi_info, 20);
  adw_preferences_page_add (ADW_PREFERENCES_PAGE (self->page), g);

  g_signal_connect_swapped (self->algo, "notify::selected", G_CALLBACK (changed), self);
  g_signal_connect_swapped (self->precision, "notify::selected", G_CALLBACK (changed), self);
  g_signal_connect_swapped (self->backend, "notify::selected", G_CALLBACK (changed), self);
  g_signal_connect_swapped (self->window, "notify::selected", G_CALLBACK (changed), self);
  g_signal_connect_swapped (self->az_window, "notify::selected", G_CALLBACK (changed), self);
  g_signal_connect_swapped (self->order, "notify::selected", G_CALLBACK (changed), self);
  g_signal_connect_swapped (self->upsample, "value-changed", G_CALLBACK (changed), self);
  g_signal_connect_swapped (self->block_size, "value-changed", G_CALLBACK (changed), self);
  g_signal_connect_swapped (self->samples_per_cell, "value-changed", G_CALLBACK (changed), self);
  g_signal_connect_swapped (self->spacing, "value-changed", G_CALLBACK (changed), self);
  g_signal_connect_swapped (self->spacing_auto, "notify::active", G_CALLBACK (changed), self);
}

GtkWidget *
ef_processing_panel_new (void)
{
  return g_object_new (EF_TYPE_PROCESSING_PANEL, NULL);
}
