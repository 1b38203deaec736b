/* ef-compare-window.c: a window comparing two formed images: side by side, swipe, dB difference. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-compare-window"
#include "config.h"

#include <glib/gi18n.h>

#include "ef-compare-window.h"

struct _EfCompareWindow {
  AdwWindow      parent_instance;

  EfCompareView *view;    /* borrowed: a child */
  GtkDropDown   *mode;    /* borrowed */
  GtkScale      *swipe;   /* borrowed */
};

G_DEFINE_FINAL_TYPE (EfCompareWindow, ef_compare_window, ADW_TYPE_WINDOW)

static void
mode_changed (GtkDropDown *dd, GParamSpec *pspec, EfCompareWindow *self)
{
  EfCompareMode mode = (EfCompareMode) gtk_drop_down_get_selected (dd);

  ef_compare_view_set_mode (self->view, mode);
  gtk_widget_set_visible (GTK_WIDGET (self->swipe), mode == EF_COMPARE_SWIPE);
}

static void
swipe_changed (GtkRange *range, EfCompareWindow *self)
{
  ef_compare_view_set_swipe (self->view, gtk_range_get_value (range));
}

static void
ef_compare_window_class_init (EfCompareWindowClass *klass)
{
}

static void
ef_compare_window_init (EfCompareWindow *self)
{
  /* The orders match EfCompareMode. */
  const char *modes[] = { _("Side by side"), _("Swipe"), _("Difference (dB)"), NULL };
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  GtkWidget *header = adw_header_bar_new ();

  self->view = EF_COMPARE_VIEW (ef_compare_view_new ());
  gtk_widget_set_vexpand (GTK_WIDGET (self->view), TRUE);
  gtk_widget_set_hexpand (GTK_WIDGET (self->view), TRUE);
  self->mode = GTK_DROP_DOWN (gtk_drop_down_new_from_strings (modes));
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->mode), _("How the two images are shown"));
  self->swipe = GTK_SCALE (gtk_scale_new_with_range (GTK_ORIENTATION_HORIZONTAL, 0, 1, 0.01));
  gtk_range_set_value (GTK_RANGE (self->swipe), 0.5);
  gtk_widget_set_size_request (GTK_WIDGET (self->swipe), 200, -1);
  gtk_widget_set_visible (GTK_WIDGET (self->swipe), FALSE);
  adw_header_bar_pack_start (ADW_HEADER_BAR (header), GTK_WIDGET (self->mode));
  adw_header_bar_pack_start (ADW_HEADER_BAR (header), GTK_WIDGET (self->swipe));
  gtk_box_append (GTK_BOX (box), header);
  gtk_box_append (GTK_BOX (box), GTK_WIDGET (self->view));
  adw_window_set_content (ADW_WINDOW (self), box);
  gtk_window_set_title (GTK_WINDOW (self), _("Compare"));
  gtk_window_set_default_size (GTK_WINDOW (self), 1100, 650);
  g_signal_connect (self->mode, "notify::selected", G_CALLBACK (mode_changed), self);
  g_signal_connect (self->swipe, "value-changed", G_CALLBACK (swipe_changed), self);
}

EfCompareWindow *
ef_compare_window_new (GtkWindow *parent, const EfImage *a, const char *label_a, const EfImage *b,
                       const char *label_b)
{
  EfCompareWindow *self = g_object_new (EF_TYPE_COMPARE_WINDOW, NULL);

  if (parent != NULL)
    {
      gtk_window_set_transient_for (GTK_WINDOW (self), parent);
      gtk_window_set_destroy_with_parent (GTK_WINDOW (self), TRUE);
    }
  ef_compare_view_set_images (self->view, a, label_a, b, label_b);
  return self;
}

EfCompareView *
ef_compare_window_get_view (EfCompareWindow *self)
{
  g_return_val_if_fail (EF_IS_COMPARE_WINDOW (self), NULL);
  return self->view;
}
