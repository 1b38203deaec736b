/* ef-panel-util.h: small builders shared by the sidebar panels. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

/* Adds a row titled title to group with a value label at its end; returns the label (borrowed). */
GtkLabel *ef_panel_add_value_row (AdwPreferencesGroup *group, const char *title, const char *tooltip);
/* Adds a combo row of the given item labels (NULL-terminated); returns it (borrowed). */
AdwComboRow *ef_panel_add_combo_row (AdwPreferencesGroup *group, const char *title, const char *const *items);
/* Adds a row with a spin button at its end; returns the spin button (borrowed). */
GtkSpinButton *ef_panel_add_spin_row (AdwPreferencesGroup *group, const char *title, const char *subtitle,
                                      double lower, double upper, double step, guint digits);

/* Formats lengths and other quantities for display, with units; owned. ef_format_rate gives a
 * number with an SI prefix ("1.2 G"), for the caller to follow with its unit. */
char *ef_format_length (double metres);
char *ef_format_frequency (double hz);
char *ef_format_rate (double per_second);
char *ef_format_duration (double seconds);

G_END_DECLS
