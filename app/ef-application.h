/* ef-application.h: the GtkApplication: windows, application actions, command line, settings. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

#define EF_TYPE_APPLICATION (ef_application_get_type ())
G_DECLARE_FINAL_TYPE (EfApplication, ef_application, EF, APPLICATION, AdwApplication)

/* flags are added to G_APPLICATION_HANDLES_COMMAND_LINE | G_APPLICATION_HANDLES_OPEN. */
EfApplication *ef_application_new (GApplicationFlags flags);
/* The process's exit status: non-zero when a batch run (--screenshot) failed. */
int            ef_application_get_batch_status (EfApplication *self);

G_END_DECLS
