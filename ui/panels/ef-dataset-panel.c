/* ef-dataset-panel.c: domain, sizes, band, resolution and geometry of the open collection. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-dataset-panel"
#include "config.h"

#include <adwaita.h>
#include <glib/gi18n.h>
#include <math.h>

#include "ef-dataset-panel.h"
#include "ef-panel-util.h"
#include "ef-scene.h"
#if EF_TEST_HOOKS
#include "ef-dataset-panel-test.h"
#endif

struct _EfDatasetPanel {
  GtkWidget  parent_instance;

  GtkWidget *page;          /* owned child */
  GtkLabel  *source, *file, *domain, *pulses, *samples, *channel;
  GtkLabel  *fc, *band, *df;
  GtkLabel  *res_range, *res_slant, *res_cross, *aperture;
  GtkLabel  *standoff, *grazing, *location, *extent, *duration;
  GtkLabel  *prf, *speed;
};

G_DEFINE_FINAL_TYPE (EfDatasetPanel, ef_dataset_panel, GTK_TYPE_WIDGET)

static void
set (GtkLabel *label, char *text)
{
  gtk_label_set_text (label, text != NULL ? text : "–");
  g_free (text);
}

void
ef_dataset_panel_set_dataset (EfDatasetPanel *self, EfDataset *dataset, const double box[4])
{
  const EfDatasetInfo *info;
  double rr, cr;

  g_return_if_fail (EF_IS_DATASET_PANEL (self));

  if (dataset == NULL)
    {
      GtkLabel *all[] = { self->source, self->file, self->domain, self->pulses, self->samples, self->channel,
                          self->fc, self->band, self->df, self->res_range, self->res_slant, self->res_cross,
                          self->aperture, self->standoff, self->grazing, self->location, self->extent,
                          self->duration, self->prf, self->speed };
      for (guint i = 0; i < G_N_ELEMENTS (all); i++)
        gtk_label_set_text (all[i], "–");
      return;
    }

  info = &dataset->info;
  set (self->source, g_strdup (info->source));
  set (self->file, info->path ? g_path_get_basename (info->path) : g_strdup (_("In memory")));
  if (info->path != NULL)
    gtk_widget_set_tooltip_text (GTK_WIDGET (self->file), info->path);
  set (self->domain, g_strdup (info->domain == EF_DOMAIN_FX    ? _("Frequency samples (FX)")
                               : info->domain == EF_DOMAIN_TOA ? _("Range compressed (TOA)")
                                                               : _("Raw chirp echoes")));
  set (self->pulses, g_strdup_printf ("%" G_GUINT64_FORMAT, info->n_pulses));
  set (self->samples, g_strdup_printf ("%" G_GUINT64_FORMAT, info->n_samples));
  if (info->channel_names != NULL && info->channel < g_strv_length (info->channel_names))
    set (self->channel, g_strdup_printf (_("%s (%u of %u)"), info->channel_names[info->channel], info->channel + 1,
                                         info->n_channels));
  else
    set (self->channel, g_strdup_printf (_("%u of %u"), info->channel + 1, MAX (info->n_channels, 1)));
  set (self->fc, ef_format_frequency (info->fc));
  set (self->band, ef_format_frequency (info->bandwidth));
  set (self->df, ef_format_frequency (dataset->pulses[info->n_pulses / 2].scss));
  if (info->domain != EF_DOMAIN_FX)
    set (self->df, g_strdup_printf (_("%.4g ns"), dataset->pulses[info->n_pulses / 2].scss * 1e9));

  ef_scene_resolution (dataset, &rr, &cr);
  set (self->res_range, ef_format_length (rr));
  set (self->res_slant, ef_format_length (ef_dataset_range_resolution (dataset)));
  set (self->res_cross, ef_format_length (cr));
  set (self->aperture, g_strdup_printf (_("%.2f°"), ef_dataset_aperture_angle (dataset) * 180 / G_PI));
  set (self->standoff, ef_format_length (ef_dataset_mean_standoff (dataset)));
  set (self->grazing, g_strdup_printf (_("%.1f°"), ef_dataset_mean_grazing (dataset) * 180 / G_PI));
  if (info->has_geo)
    set (self->location, g_strdup_printf (_("%.5f° %s, %.5f° %s, %.0f m"), fabs (info->srp_llh[0]),
                                          info->srp_llh[0] >= 0 ? _("N") : _("S"), fabs (info->srp_llh[1]),
                                          info->srp_llh[1] >= 0 ? _("E") : _("W"), info->srp_llh[2]));
  else
    set (self->location, g_strdup (_("Unknown")));
  if (box != NULL)
    set (self->extent, g_strdup_printf (_("%.0f × %.0f m"), box[2] - box[0], box[3] - box[1]));
  set (self->duration, info->times_nominal
                         ? g_strdup (_("Not in the file"))
                         : ef_format_duration (dataset->pulses[info->n_pulses - 1].t - dataset->pulses[0].t));
  {
    /* The mean pulse rate and the speed along the transmitter's path, over the whole collection. */
    double dt = dataset->pulses[info->n_pulses - 1].t - dataset->pulses[0].t, path = 0;

    for (guint64 i = 1; i < info->n_pulses; i++)
      {
        const double *a = dataset->pulses[i - 1].tx, *b = dataset->pulses[i].tx;
        path += sqrt ((b[0] - a[0]) * (b[0] - a[0]) + (b[1] - a[1]) * (b[1] - a[1]) + (b[2] - a[2]) * (b[2] - a[2]));
      }
    if (info->times_nominal)
      {
        /* Translators: the pulse rate or speed of a collection whose file gives no pulse times */
        set (self->prf, g_strdup (_("Not in the file")));
        set (self->speed, g_strdup (_("Not in the file")));
      }
    else if (info->n_pulses > 1 && dt > 0)
      {
        set (self->prf, ef_format_frequency ((info->n_pulses - 1) / dt));
        set (self->speed, g_strdup_printf (_("%.1f m/s"), path / dt));
      }
    else
      {
        set (self->prf, NULL);
        set (self->speed, NULL);
      }
  }
}

#if EF_TEST_HOOKS
GtkLabel *
ef_dataset_panel_get_value (EfDatasetPanel *self, const char *name)
{
  const struct { const char *name; GtkLabel *label; } all[] = {
    { "source", self->source }, { "file", self->file }, { "pulses", self->pulses },
    { "res-range", self->res_range }, { "res-slant", self->res_slant }, { "res-cross", self->res_cross },
    { "aperture", self->aperture }, { "grazing", self->grazing }, { "duration", self->duration },
    { "prf", self->prf }, { "speed", self->speed },
  };

  g_return_val_if_fail (EF_IS_DATASET_PANEL (self), NULL);
  for (guint i = 0; i < G_N_ELEMENTS (all); i++)
    if (g_str_equal (name, all[i].name))
      return all[i].label;
  return NULL;
}
#endif

static void
ef_dataset_panel_dispose (GObject *object)
{
  EfDatasetPanel *self = EF_DATASET_PANEL (object);

  g_clear_pointer (&self->page, gtk_widget_unparent);
  G_OBJECT_CLASS (ef_dataset_panel_parent_class)->dispose (object);
}

static void
ef_dataset_panel_class_init (EfDatasetPanelClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = ef_dataset_panel_dispose;
  gtk_widget_class_set_layout_manager_type (GTK_WIDGET_CLASS (klass), GTK_TYPE_BIN_LAYOUT);
}

static void
formula (GtkLabel *value, const char *text)
{
  adw_action_row_set_subtitle (ADW_ACTION_ROW (gtk_widget_get_ancestor (GTK_WIDGET (value), ADW_TYPE_ACTION_ROW)),
                               text);
}

static void
ef_dataset_panel_init (EfDatasetPanel *self)
{
  AdwPreferencesGroup *g;

  self->page = adw_preferences_page_new ();
  gtk_widget_set_parent (self->page, GTK_WIDGET (self));

  g = ADW_PREFERENCES_GROUP (adw_preferences_group_new ());
  adw_preferences_group_set_title (g, _("Collection"));
  self->source = ef_panel_add_value_row (g, _("Format"), NULL);
  self->file = ef_panel_add_value_row (g, _("File"), NULL);
  self->domain = ef_panel_add_value_row (g, _("Domain"), NULL);
  self->pulses = ef_panel_add_value_row (g, _("Pulses"), NULL);
  self->samples = ef_panel_add_value_row (g, _("Samples per pulse"), NULL);
  self->channel = ef_panel_add_value_row (g, _("Channel"), NULL);
  self->duration = ef_panel_add_value_row (g, _("Duration"), NULL);
  self->prf = ef_panel_add_value_row (g, _("Pulse rate"), _("Pulses per second, over the whole collection"));
  self->speed = ef_panel_add_value_row (g, _("Platform speed"), _("Along the transmitter’s path"));
  adw_preferences_page_add (ADW_PREFERENCES_PAGE (self->page), g);

  g = ADW_PREFERENCES_GROUP (adw_preferences_group_new ());
  adw_preferences_group_set_title (g, _("Band"));
  self->fc = ef_panel_add_value_row (g, _("Centre frequency"), NULL);
  self->band = ef_panel_add_value_row (g, _("Bandwidth"), NULL);
  self->df = ef_panel_add_value_row (g, _("Sample spacing"), NULL);
  adw_preferences_page_add (ADW_PREFERENCES_PAGE (self->page), g);

  g = ADW_PREFERENCES_GROUP (adw_preferences_group_new ());
  adw_preferences_group_set_title (g, _("Theoretical resolution"));
  self->res_range = ef_panel_add_value_row (g, _("Ground range"), NULL);
  self->res_slant = ef_panel_add_value_row (g, _("Slant range"), NULL);
  self->res_cross = ef_panel_add_value_row (g, _("Cross-range"), NULL);
  /* What each value is computed as, in full, under its title. */
  formula (self->res_range, _("c / (2 B cos ψ), ψ the grazing angle"));
  formula (self->res_slant, _("c / (2 B)"));
  formula (self->res_cross, _("λ / (2 Δθ cos ψ), Δθ the aperture angle on the ground"));
  self->aperture = ef_panel_add_value_row (g, _("Aperture angle"), NULL);
  adw_preferences_page_add (ADW_PREFERENCES_PAGE (self->page), g);

  g = ADW_PREFERENCES_GROUP (adw_preferences_group_new ());
  adw_preferences_group_set_title (g, _("Geometry"));
  self->standoff = ef_panel_add_value_row (g, _("Stand-off range"), NULL);
  self->grazing = ef_panel_add_value_row (g, _("Grazing angle"), NULL);
  self->location = ef_panel_add_value_row (g, _("Scene centre"), NULL);
  self->extent = ef_panel_add_value_row (g, _("Unaliased scene"), NULL);
  adw_preferences_page_add (ADW_PREFERENCES_PAGE (self->page), g);
}

GtkWidget *
ef_dataset_panel_new (void)
{
  return g_object_new (EF_TYPE_DATASET_PANEL, NULL);
}
