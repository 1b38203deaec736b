/* ef-gui-window-test.h: what the main-window GUI tests share: the application, the demo, waiting, windows. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#pragma once

#include <adwaita.h>

#include "ef-application.h"
#include "ef-demo-test.h"
#include "ef-gui-test-util.h"
#include "ef-main-window-test.h"

static EfApplication *app;
static G_GNUC_UNUSED EfDataset *demo;   /* simulated once, shared by the tests that use it */

/* Runs the main loop until cond says yes; fails the test after timeout_s. */
static inline void
spin_until (gboolean (*cond) (gpointer), gpointer data, double timeout_s)
{
  gint64 end = g_get_monotonic_time () + (gint64) (timeout_s * G_USEC_PER_SEC);

  while (!cond (data))
    {
      if (g_get_monotonic_time () > end)
        g_error ("timed out after %.0f s", timeout_s);
      if (!g_main_context_iteration (NULL, FALSE))
        g_usleep (500);
    }
}

static inline void
spin (double seconds)
{
  gint64 end = g_get_monotonic_time () + (gint64) (seconds * G_USEC_PER_SEC);

  while (g_get_monotonic_time () < end)
    if (!g_main_context_iteration (NULL, FALSE))
      g_usleep (500);
}

static inline gboolean
window_idle (gpointer data)
{
  return ef_main_window_is_idle (data);
}

static inline gboolean
no_pending_frees (gpointer data)
{
  return ef_job_runner_get_n_pending_frees () == 0;
}

static inline EfMainWindow *
new_window_sized (int w, int h)
{
  EfMainWindow *window = ef_main_window_new (GTK_APPLICATION (app));

  g_object_ref (window);
  gtk_window_set_default_size (GTK_WINDOW (window), w, h);
  gtk_window_present (GTK_WINDOW (window));
  return window;
}

static inline EfMainWindow *
new_window (void)
{
  return new_window_sized (1280, 800);
}

/* Closes a window and checks that nothing else holds it once its images are freed. */
static inline void
close_window (EfMainWindow *window)
{
  gtk_window_close (GTK_WINDOW (window));
  spin_until (no_pending_frees, NULL, 30);
  spin (0.1);
  g_assert_finalize_object (window);
}

/* An export's end, as "export-finished" tells it: connect export_finished with an ExportResult, then
 * spin_until (export_done, &result, ...). */
typedef struct {
  gboolean done, ok;
} ExportResult;

static inline void
export_finished (EfMainWindow *window, const char *path, gboolean ok, ExportResult *r)
{
  r->done = TRUE;
  r->ok = ok;
}

static inline gboolean
export_done (gpointer data)
{
  return ((ExportResult *) data)->done;
}

/* Before the tests: private user folders, GTK, and the application on the processor path whatever the
 * machine has. */
static inline void
ef_test_app_setup (int *argc, char ***argv)
{
  g_autoptr (GError) error = NULL;

  ef_test_isolate_user_dirs ();
  gtk_test_init (argc, argv, NULL);
  adw_init ();
  app = ef_application_new (G_APPLICATION_NON_UNIQUE);
  if (!g_application_register (G_APPLICATION (app), NULL, &error))
    g_error ("%s", error->message);
  {
    g_autoptr (GSettings) settings = g_settings_new (APP_ID);
    g_settings_set_string (settings, "backend", "cpu");
  }
}

/* The application as above, and the demo scene, simulated once for all the tests (it takes a few
 * seconds). */
static inline void
ef_test_window_setup (int *argc, char ***argv)
{
  g_autoptr (GError) error = NULL;

  ef_test_app_setup (argc, argv);
  demo = ef_demo_simulate (&error);
  g_assert_no_error (error);
}

static inline void
ef_test_window_teardown (void)
{
  ef_dataset_unref (demo);
  g_object_unref (app);
}
