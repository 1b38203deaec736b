/* ef-panel-util.c: row builders and number formatting for the sidebar panels. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-panel-util"
#include "config.h"

#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

#include "ef-panel-util.h"

GtkLabel *
ef_panel_add_value_row (AdwPreferencesGroup *group, const char *title, const char *tooltip)
{
  GtkWidget *row = adw_action_row_new ();
  GtkWidget *label = gtk_label_new ("–");

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  if (tooltip != NULL)
    gtk_widget_set_tooltip_text (row, tooltip);
  gtk_label_set_selectable (GTK_LABEL (label), TRUE);
  gtk_label_set_xalign (GTK_LABEL (label), 1.0f);
  /* Values stay on one line; a long one (a file name) is shortened and shown whole in its tooltip. */
  gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_MIDDLE);
  gtk_label_set_width_chars (GTK_LABEL (label), 6);
  gtk_label_set_max_width_chars (GTK_LABEL (label), 28);
  gtk_widget_add_css_class (label, "dim-label");
  gtk_widget_add_css_class (label, "numeric");
  gtk_widget_set_valign (label, GTK_ALIGN_CENTER);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), label);
  adw_preferences_group_add (group, row);
  return GTK_LABEL (label);
}

AdwComboRow *
ef_panel_add_combo_row (AdwPreferencesGroup *group, const char *title, const char *const *items)
{
  GtkWidget *row = adw_combo_row_new ();
  g_autoptr (GtkStringList) model = gtk_string_list_new (items);

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  adw_combo_row_set_model (ADW_COMBO_ROW (row), G_LIST_MODEL (model));
  adw_preferences_group_add (group, row);
  return ADW_COMBO_ROW (row);
}

GtkSpinButton *
ef_panel_add_spin_row (AdwPreferencesGroup *group, const char *title, const char *subtitle, double lower,
                       double upper, double step, guint digits)
{
  GtkWidget *row = adw_action_row_new ();
  GtkWidget *spin = gtk_spin_button_new_with_range (lower, upper, step);

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  if (subtitle != NULL)
    adw_action_row_set_subtitle (ADW_ACTION_ROW (row), subtitle);
  gtk_spin_button_set_digits (GTK_SPIN_BUTTON (spin), digits);
  /* Room for the longest value the range allows ("-300.0"), and a character more for the cursor. */
  {
    g_autofree char *lo = g_strdup_printf ("%.*f", (int) digits, lower);
    g_autofree char *hi = g_strdup_printf ("%.*f", (int) digits, upper);
    gtk_editable_set_width_chars (GTK_EDITABLE (spin), (int) MAX (strlen (lo), strlen (hi)) + 1);
  }
  gtk_widget_set_valign (spin, GTK_ALIGN_CENTER);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), spin);
  adw_action_row_set_activatable_widget (ADW_ACTION_ROW (row), spin);
  adw_preferences_group_add (group, row);
  return GTK_SPIN_BUTTON (spin);
}

char *
ef_format_length (double m)
{
  double a = fabs (m);

  if (!isfinite (m))
    return g_strdup ("–");
  if (a >= 10000)
    return g_strdup_printf (_("%.2f km"), m / 1000);
  if (a >= 100)
    return g_strdup_printf (_("%.1f m"), m);
  if (a >= 1)
    return g_strdup_printf (_("%.2f m"), m);
  if (a >= 0.01 || a == 0)
    return g_strdup_printf (_("%.3f m"), m);
  return g_strdup_printf (_("%.2f mm"), m * 1000);
}

char *
ef_format_frequency (double hz)
{
  if (!isfinite (hz))
    return g_strdup ("–");
  if (fabs (hz) >= 1e9)
    return g_strdup_printf (_("%.4g GHz"), hz / 1e9);
  if (fabs (hz) >= 1e6)
    return g_strdup_printf (_("%.4g MHz"), hz / 1e6);
  if (fabs (hz) >= 1e3)
    return g_strdup_printf (_("%.4g kHz"), hz / 1e3);
  return g_strdup_printf (_("%.4g Hz"), hz);
}

char *
ef_format_rate (double r)
{
  if (!isfinite (r) || r <= 0)
    return g_strdup ("–");
  if (r >= 1e12)
    return g_strdup_printf (_("%.2f T"), r / 1e12);
  if (r >= 1e9)
    return g_strdup_printf (_("%.2f G"), r / 1e9);
  if (r >= 1e6)
    return g_strdup_printf (_("%.1f M"), r / 1e6);
  if (r >= 1e3)
    return g_strdup_printf (_("%.1f k"), r / 1e3);
  return g_strdup_printf ("%.0f", r);
}

char *
ef_format_duration (double s)
{
  if (!isfinite (s) || s < 0)
    return g_strdup ("–");
  if (s < 10)
    return g_strdup_printf (_("%.1f s"), s);
  if (s < 120)
    return g_strdup_printf (_("%.0f s"), s);
  if (s < 7200)
    return g_strdup_printf (_("%.0f min"), s / 60);
  return g_strdup_printf (_("%.1f h"), s / 3600);
}
