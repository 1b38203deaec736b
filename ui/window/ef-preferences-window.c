/* ef-preferences-window.c: preferences bound to the application's GSettings keys. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-preferences-window"
#include "config.h"

#include <glib/gi18n.h>

#include "ef-panel-util.h"
#include "ef-preferences-window.h"
#include "ef-settings.h"

struct _EfPreferencesWindow {
  AdwPreferencesWindow parent_instance;

  GSettings *settings;   /* owned */
};

G_DEFINE_FINAL_TYPE (EfPreferencesWindow, ef_preferences_window, ADW_TYPE_PREFERENCES_WINDOW)

/* A combo row shows position i of words[]; the setting holds the word. */
static gboolean
word_to_index (GValue *value, GVariant *variant, gpointer user_data)
{
  const char *const *words = user_data;
  const char *s = g_variant_get_string (variant, NULL);

  for (guint i = 0; words[i] != NULL; i++)
    if (g_str_equal (words[i], s))
      {
        g_value_set_uint (value, i);
        return TRUE;
      }
  return FALSE;
}

static GVariant *
index_to_word (const GValue *value, const GVariantType *type, gpointer user_data)
{
  const char *const *words = user_data;
  guint i = g_value_get_uint (value);

  if (i >= g_strv_length ((char **) words))
    return NULL;
  return g_variant_new_string (words[i]);
}

static void
bind_combo (EfPreferencesWindow *self, AdwComboRow *row, const char *key, const char *const *words)
{
  g_settings_bind_with_mapping (self->settings, key, row, "selected", G_SETTINGS_BIND_DEFAULT, word_to_index,
                                index_to_word, (gpointer) words, NULL);
}

static void
bind_spin (EfPreferencesWindow *self, GtkSpinButton *spin, const char *key)
{
  g_settings_bind (self->settings, key, gtk_spin_button_get_adjustment (spin), "value", G_SETTINGS_BIND_DEFAULT);
}

static void
ef_preferences_window_dispose (GObject *object)
{
  EfPreferencesWindow *self = EF_PREFERENCES_WINDOW (object);

  g_clear_object (&self->settings);
  G_OBJECT_CLASS (ef_preferences_window_parent_class)->dispose (object);
}

static void
ef_preferences_window_class_init (EfPreferencesWindowClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = ef_preferences_window_dispose;
}

static void
ef_preferences_window_init (EfPreferencesWindow *self)
{
  static const char *const backend_words[] = { "auto", "cpu", "cuda", NULL };
  static const char *const algo_words[] = { "bp", "ffbp", "fbp", "pfa", NULL };
  static const char *const precision_words[] = { "fp64", "fp32", "fp16", NULL };
  static const char *const window_words[] = { "rect", "hann", "hamming", "taylor", NULL };
  static const char *const order_words[] = { "sequential", "interleaved", NULL };
  static const char *const map_words[] = { "grey", "perceptual", "cyclic", NULL };
  const char *backends[] = { _("Automatic"), _("Processor (CPU)"), _("Graphics card (CUDA)"), NULL };
  const char *algos[] = { _("Backprojection"), _("Fast factorised backprojection"), _("Fast backprojection"),
                          _("Polar format"), NULL };
  const char *precisions[] = { _("Double (fp64)"), _("Single (fp32)"), _("Half (fp16)"), NULL };
  const char *windows[] = { _("Rectangular"), _("Hann"), _("Hamming"), _("Taylor"), NULL };
  const char *orders[] = { _("Sequential"), _("Interleaved"), NULL };
  const char *maps[] = { _("Grey"), _("Perceptual"), _("Cyclic"), NULL };
  AdwPreferencesPage *page;
  AdwPreferencesGroup *g;
  GtkWidget *row, *sw;

  self->settings = ef_settings_new ();
  gtk_window_set_title (GTK_WINDOW (self), _("Preferences"));
  gtk_window_set_default_size (GTK_WINDOW (self), 560, 640);
  adw_preferences_window_set_search_enabled (ADW_PREFERENCES_WINDOW (self), FALSE);

  page = ADW_PREFERENCES_PAGE (adw_preferences_page_new ());
  adw_preferences_page_set_title (page, _("Processing"));
  adw_preferences_page_set_icon_name (page, "emblem-system-symbolic");

  g = ADW_PREFERENCES_GROUP (adw_preferences_group_new ());
  adw_preferences_group_set_title (g, _("Engine"));
  adw_preferences_group_set_description (g, _("Defaults for collections opened for the first time."));
  bind_combo (self, ef_panel_add_combo_row (g, _("Backend"), backends), "backend", backend_words);
  bind_combo (self, ef_panel_add_combo_row (g, _("Algorithm"), algos), "algorithm", algo_words);
  bind_combo (self, ef_panel_add_combo_row (g, _("Precision"), precisions), "precision", precision_words);
  bind_spin (self, ef_panel_add_spin_row (g, _("Processor threads"), _("0 uses every core"), 0, 256, 1, 0),
             "threads");
  adw_preferences_page_add (page, g);

  g = ADW_PREFERENCES_GROUP (adw_preferences_group_new ());
  adw_preferences_group_set_title (g, _("Pulses and Range"));
  bind_spin (self, ef_panel_add_spin_row (g, _("Block size"), _("Pulses per update of the image"), 1, 4096, 8, 0),
             "block-size");
  bind_combo (self, ef_panel_add_combo_row (g, _("Order"), orders), "order", order_words);
  bind_combo (self, ef_panel_add_combo_row (g, _("Window"), windows), "window-function", window_words);
  bind_combo (self, ef_panel_add_combo_row (g, _("Cross-range window"), windows), "azimuth-window-function",
              window_words);
  bind_spin (self, ef_panel_add_spin_row (g, _("Upsampling"), _("Zero-padding factor of the range FFT"), 1, 32, 1, 0),
             "upsample");
  adw_preferences_page_add (page, g);

  g = ADW_PREFERENCES_GROUP (adw_preferences_group_new ());
  adw_preferences_group_set_title (g, _("Region of Interest"));
  bind_spin (self, ef_panel_add_spin_row (g, _("Default spacing (m)"), _("0 chooses it from the resolution"), 0, 100,
                                          0.01, 3),
             "default-spacing");
  bind_spin (self, ef_panel_add_spin_row (g, _("Pixels per resolution cell"), NULL, 0.5, 8, 0.5, 1),
             "samples-per-cell");
  adw_preferences_page_add (page, g);
  adw_preferences_window_add (ADW_PREFERENCES_WINDOW (self), page);

  page = ADW_PREFERENCES_PAGE (adw_preferences_page_new ());
  adw_preferences_page_set_title (page, _("Display"));
  adw_preferences_page_set_icon_name (page, "image-x-generic-symbolic");
  g = ADW_PREFERENCES_GROUP (adw_preferences_group_new ());
  adw_preferences_group_set_title (g, _("Image"));
  bind_combo (self, ef_panel_add_combo_row (g, _("Colour map"), maps), "colormap", map_words);
  bind_spin (self, ef_panel_add_spin_row (g, _("Gamma"), NULL, 0.1, 5, 0.1, 2), "gamma");
  row = adw_action_row_new ();
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), _("Upload through host memory"));
  adw_action_row_set_subtitle (ADW_ACTION_ROW (row),
                               _("Even when the graphics card that forms the image also draws it"));
  sw = gtk_switch_new ();
  gtk_widget_set_valign (sw, GTK_ALIGN_CENTER);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), sw);
  adw_action_row_set_activatable_widget (ADW_ACTION_ROW (row), sw);
  adw_preferences_group_add (g, row);
  g_settings_bind (self->settings, "force-host-upload", sw, "active", G_SETTINGS_BIND_DEFAULT);
  adw_preferences_page_add (page, g);

  g = ADW_PREFERENCES_GROUP (adw_preferences_group_new ());
  adw_preferences_group_set_title (g, _("Dynamic Range"));
  row = adw_action_row_new ();
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), _("From the image's percentiles"));
  sw = gtk_switch_new ();
  gtk_widget_set_valign (sw, GTK_ALIGN_CENTER);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), sw);
  adw_action_row_set_activatable_widget (ADW_ACTION_ROW (row), sw);
  adw_preferences_group_add (g, row);
  g_settings_bind (self->settings, "db-range-auto", sw, "active", G_SETTINGS_BIND_DEFAULT);
  {
    GtkSpinButton *lo = ef_panel_add_spin_row (g, _("Black level (dB per pulse)"), NULL, -300, 300, 1, 1);
    GtkSpinButton *hi = ef_panel_add_spin_row (g, _("White level (dB per pulse)"), NULL, -300, 300, 1, 1);

    bind_spin (self, lo, "db-min");
    bind_spin (self, hi, "db-max");
    g_object_bind_property (sw, "active", lo, "sensitive", G_BINDING_SYNC_CREATE | G_BINDING_INVERT_BOOLEAN);
    g_object_bind_property (sw, "active", hi, "sensitive", G_BINDING_SYNC_CREATE | G_BINDING_INVERT_BOOLEAN);
  }
  adw_preferences_page_add (page, g);
  adw_preferences_window_add (ADW_PREFERENCES_WINDOW (self), page);
}

GtkWidget *
ef_preferences_window_new (GtkWindow *parent)
{
  return g_object_new (EF_TYPE_PREFERENCES_WINDOW, "transient-for", parent, "modal", TRUE, NULL);
}
