/* ef-application.c: application actions, accelerators, command-line handling and batch runs. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-application"
#include "config.h"

#include <glib/gi18n.h>
#include <math.h>
#include <stdlib.h>
#include <epoxy/gl.h>

#include "ef-application.h"
#include "ef-colormap.h"
#include "ef-gl-renderer.h"
#include "ef-job-runner.h"
#include "ef-preferences-window.h"
#include "ef-main-window.h"
#include "ef-stack-window.h"

struct _EfApplication {
  AdwApplication parent_instance;

  int            batch_status;
};

G_DEFINE_FINAL_TYPE (EfApplication, ef_application, ADW_TYPE_APPLICATION)

/* At shutdown the workers are waited for this long at most: a cancel ends within one block. */
#define SHUTDOWN_WAIT_US (3 * G_USEC_PER_SEC)

static const GOptionEntry options[] = {
  { "roi", 0, 0, G_OPTION_ARG_STRING, NULL, N_("Form this region once the collection is open"), N_("X0,Y0,X1,Y1") },
  { "spacing", 0, 0, G_OPTION_ARG_DOUBLE, NULL, N_("Pixel spacing of the region in metres"), N_("METRES") },
  { "measure", 0, 0, G_OPTION_ARG_STRING, NULL, N_("Measure the point target nearest this point"), N_("X,Y") },
  { "panel", 0, 0, G_OPTION_ARG_STRING, NULL, N_("Show this sidebar page"), N_("NAME") },
  { "zoom-roi", 0, 0, G_OPTION_ARG_NONE, NULL, N_("Zoom the view to the region"), NULL },
  { "view", 0, 0, G_OPTION_ARG_STRING, NULL, N_("Show magnitude, phase, real or imaginary"), N_("VIEW") },
  { "colormap", 0, 0, G_OPTION_ARG_STRING, NULL, N_("Colour map: grey, perceptual or cyclic"), N_("MAP") },
  { "screenshot", 0, 0, G_OPTION_ARG_FILENAME, NULL,
    N_("Save a PNG of the window once the region is formed, then quit"), N_("FILE") },
  { "simulate-demo", 0, 0, G_OPTION_ARG_NONE, NULL, N_("Simulate the demo scene instead of reading its file"), NULL },
  { "stack", 0, 0, G_OPTION_ARG_FILENAME, NULL,
    N_("Open a stack of repeat passes (echoform-cli stack) and find its persistent scatterers"), N_("FOLDER") },
  { "version", 0, 0, G_OPTION_ARG_NONE, NULL, N_("Show the version and quit"), NULL },
  /* No description: the usage line's parameter string names the file once. */
  { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, NULL, NULL, NULL },
  { NULL }
};

int
ef_application_get_batch_status (EfApplication *self)
{
  g_return_val_if_fail (EF_IS_APPLICATION (self), 1);
  return self->batch_status;
}

static gboolean
parse_numbers (const char *s, double *out, guint n)
{
  g_auto (GStrv) parts = NULL;

  if (s == NULL)
    return FALSE;
  parts = g_strsplit (s, ",", -1);
  if (g_strv_length (parts) != n)
    return FALSE;
  for (guint i = 0; i < n; i++)
    {
      char *end = NULL;
      out[i] = g_ascii_strtod (g_strstrip (parts[i]), &end);
      if (end == parts[i] || *end != '\0' || !isfinite (out[i]))
        return FALSE;
    }
  return TRUE;
}

/* ---- windows ---------------------------------------------------------------------------------- */

static EfMainWindow *
new_window (EfApplication *self)
{
  EfMainWindow *window = ef_main_window_new (GTK_APPLICATION (self));

  gtk_window_present (GTK_WINDOW (window));
  return window;
}

static void
ef_application_activate (GApplication *app)
{
  EfMainWindow *window = new_window (EF_APPLICATION (app));

  ef_main_window_open_demo (window, FALSE);
}

static void
ef_application_open (GApplication *app, GFile **files, int n_files, const char *hint)
{
  for (int i = 0; i < n_files; i++)
    {
      g_autofree char *path = g_file_get_path (files[i]);
      EfMainWindow *window = new_window (EF_APPLICATION (app));

      if (path != NULL)
        ef_main_window_open_path (window, path);
      else
        ef_main_window_open_demo (window, FALSE);
    }
}

typedef struct {
  EfApplication           *app;      /* owned */
  GApplicationCommandLine *cmdline;  /* owned */
} BatchData;

static void
batch_data_free (gpointer data, GClosure *closure)
{
  BatchData *b = data;

  g_object_unref (b->app);
  g_object_unref (b->cmdline);
  g_free (b);
}

static void
batch_done (EfMainWindow *window, gboolean ok, const char *message, BatchData *b)
{
  if (!ok)
    {
      g_application_command_line_printerr (b->cmdline, "echoform: %s\n", message ? message : _("failed"));
      b->app->batch_status = 1;
    }
  g_application_command_line_set_exit_status (b->cmdline, ok ? 0 : 1);
  gtk_window_destroy (GTK_WINDOW (window));
}

static int
ef_application_command_line (GApplication *app, GApplicationCommandLine *cmdline)
{
  EfApplication *self = EF_APPLICATION (app);
  GVariantDict *dict = g_application_command_line_get_options_dict (cmdline);
  g_autofree const char **files = NULL;
  const char *roi = NULL, *measure = NULL, *panel = NULL, *screenshot = NULL, *view = NULL, *colormap = NULL;
  const char *stack_dir = NULL;
  double spacing = 0;
  gboolean simulate = FALSE, zoom_roi = FALSE;
  EfBatch batch = { 0 };
  gboolean want_batch;
  EfMainWindow *window;

  g_variant_dict_lookup (dict, G_OPTION_REMAINING, "^a&ay", &files);
  g_variant_dict_lookup (dict, "roi", "&s", &roi);
  g_variant_dict_lookup (dict, "measure", "&s", &measure);
  g_variant_dict_lookup (dict, "panel", "&s", &panel);
  g_variant_dict_lookup (dict, "view", "&s", &view);
  g_variant_dict_lookup (dict, "colormap", "&s", &colormap);
  g_variant_dict_lookup (dict, "screenshot", "^&ay", &screenshot);
  g_variant_dict_lookup (dict, "spacing", "d", &spacing);
  g_variant_dict_lookup (dict, "simulate-demo", "b", &simulate);
  g_variant_dict_lookup (dict, "zoom-roi", "b", &zoom_roi);
  if (g_variant_dict_lookup (dict, "stack", "^&ay", &stack_dir) && stack_dir != NULL && *stack_dir)
    {
      EfStackWindow *sw = ef_stack_window_new (GTK_APPLICATION (self));

      ef_stack_window_open (sw, stack_dir);
      gtk_window_present (GTK_WINDOW (sw));
      return 0;
    }

  if (roi != NULL && !parse_numbers (roi, batch.roi, 4))
    {
      g_application_command_line_printerr (cmdline, _("echoform: --roi wants X0,Y0,X1,Y1 in metres, not “%s”\n"),
                                           roi);
      return 1;
    }
  if (measure != NULL && !parse_numbers (measure, batch.measure, 2))
    {
      g_application_command_line_printerr (cmdline, _("echoform: --measure wants X,Y in metres, not “%s”\n"),
                                           measure);
      return 1;
    }
  {
    EfViewMode m;
    EfColormap c;

    if (view != NULL && !ef_view_mode_from_string (view, &m))
      {
        g_application_command_line_printerr (cmdline, _("echoform: --view is magnitude, phase, real or imaginary\n"));
        return 1;
      }
    if (colormap != NULL && !ef_colormap_from_string (colormap, &c))
      {
        g_application_command_line_printerr (cmdline, _("echoform: --colormap is grey, perceptual or cyclic\n"));
        return 1;
      }
  }
  if (spacing < 0 || !isfinite (spacing))
    {
      g_application_command_line_printerr (cmdline, _("echoform: --spacing must be positive\n"));
      return 1;
    }
  batch.has_roi = roi != NULL;
  batch.has_measure = measure != NULL;
  batch.spacing = spacing;
  batch.zoom_roi = zoom_roi;
  batch.screenshot = screenshot != NULL && *screenshot ? (char *) screenshot : NULL;
  batch.panel = (char *) panel;
  batch.view = (char *) view;
  batch.colormap = (char *) colormap;
  want_batch = batch.has_roi || batch.has_measure || batch.screenshot != NULL || spacing > 0 || panel != NULL
               || zoom_roi || view != NULL || colormap != NULL;

  window = new_window (self);
  if (want_batch)
    {
      ef_main_window_set_batch (window, &batch);
      if (batch.screenshot != NULL)
        {
          BatchData *b = g_new0 (BatchData, 1);

          b->app = g_object_ref (self);
          b->cmdline = g_object_ref (cmdline);
          g_signal_connect_data (window, "batch-done", G_CALLBACK (batch_done), b, batch_data_free, 0);
        }
    }

  if (files != NULL && files[0] != NULL)
    {
      g_autoptr (GFile) file = g_application_command_line_create_file_for_arg (cmdline, files[0]);
      g_autofree char *path = g_file_get_path (file);

      if (path == NULL)
        {
          g_application_command_line_printerr (cmdline, _("echoform: only local files can be opened\n"));
          gtk_window_destroy (GTK_WINDOW (window));
          return 1;
        }
      ef_main_window_open_path (window, path);
      for (guint i = 1; files[i] != NULL; i++)
        {
          g_autoptr (GFile) more = g_application_command_line_create_file_for_arg (cmdline, files[i]);
          g_autofree char *more_path = g_file_get_path (more);
          if (more_path != NULL)
            ef_main_window_open_path (new_window (self), more_path);
        }
    }
  else
    ef_main_window_open_demo (window, simulate);
  return 0;
}

static int
ef_application_handle_local_options (GApplication *app, GVariantDict *options)
{
  if (g_variant_dict_contains (options, "version"))
    {
      g_print ("echoform %s\n", PACKAGE_VERSION);
      return 0;
    }
  return -1;
}

/* ---- application actions ---------------------------------------------------------------------- */

static void
quit_activated (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  GtkApplication *app = GTK_APPLICATION (user_data);
  GList *windows = g_list_copy (gtk_application_get_windows (app));

  /* Closing each window saves its session first. */
  for (GList *l = windows; l != NULL; l = l->next)
    gtk_window_close (GTK_WINDOW (l->data));
  g_list_free (windows);
}

static void
new_window_activated (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  EfMainWindow *window = new_window (EF_APPLICATION (user_data));

  ef_main_window_open_demo (window, FALSE);
}

static void
preferences_activated (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  GtkWindow *parent = gtk_application_get_active_window (GTK_APPLICATION (user_data));

  gtk_window_present (GTK_WINDOW (ef_preferences_window_new (parent)));
}

static void
about_activated (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  GtkWindow *parent = gtk_application_get_active_window (GTK_APPLICATION (user_data));
  const char *developers[] = { "The Echoform developers", NULL };
  g_autofree char *debug = NULL;
  const char *gl = NULL;
  GtkWidget *about;

  if (EF_IS_MAIN_WINDOW (parent))
    gl = ef_image_view_get_gl_description (ef_main_window_get_image_view (EF_MAIN_WINDOW (parent)));
  debug = g_strdup_printf ("Echoform %s\nGTK %u.%u.%u\nlibadwaita %u.%u.%u\nOpenGL: %s\nCUDA: %s\n", PACKAGE_VERSION,
                           gtk_get_major_version (), gtk_get_minor_version (), gtk_get_micro_version (),
                           adw_get_major_version (), adw_get_minor_version (), adw_get_micro_version (),
                           gl ? gl : "not realized", HAVE_CUDA ? "built in" : "not built");
  about = g_object_new (ADW_TYPE_ABOUT_WINDOW,
                        "transient-for", parent,
                        "application-name", _("Echoform"),
                        "application-icon", APP_ID,
                        "developer-name", _("The Echoform developers"),
                        "version", PACKAGE_VERSION,
                        "comments", _("Forms synthetic aperture radar images by backprojection, and lets you "
                                      "watch them come into focus."),
                        "website", "https://github.com/echoform/echoform",
                        "issue-url", "https://github.com/echoform/echoform/issues",
                        "license-type", GTK_LICENSE_GPL_3_0,
                        "developers", developers,
                        "copyright", "© 2026 The Echoform developers",
                        "debug-info", debug,
                        /* Translators: your names, one per line */
                        "translator-credits", _("translator-credits"),
                        NULL);
  gtk_window_present (GTK_WINDOW (about));
}

static const GActionEntry app_entries[] = {
  { "quit", quit_activated },
  { "new-window", new_window_activated },
  { "preferences", preferences_activated },
  { "about", about_activated },
};

static void
set_accels (GtkApplication *app, const char *action, const char *first, ...)
{
  const char *accels[6] = { NULL };
  va_list args;
  guint n = 0;

  va_start (args, first);
  for (const char *a = first; a != NULL && n < G_N_ELEMENTS (accels) - 1; a = va_arg (args, const char *))
    accels[n++] = a;
  va_end (args);
  gtk_application_set_accels_for_action (app, action, accels);
}

/* GTK's GL renderer composes the whole window through OpenGL every frame. On a rasteriser that runs on
 * the processor that costs 40-60 ms a frame for this window (Mesa's llvmpipe on two cores), where GTK's
 * cairo renderer takes 2-3 ms and the image view then draws on the processor too; and the processor is
 * what the job needs. So, unless the user chose a renderer (GSK_RENDERER), a software GL gets cairo.
 * Windows made after this take it. */
static void
choose_renderer (void)
{
  GdkDisplay *display = gdk_display_get_default ();
  g_autoptr (GdkGLContext) context = NULL;
  g_autoptr (GError) error = NULL;
  const char *name;

  if (display == NULL || g_getenv ("GSK_RENDERER") != NULL)
    return;
  context = gdk_display_create_gl_context (display, &error);
  if (context == NULL || !gdk_gl_context_realize (context, &error))
    return;   /* no GL at all: GTK chooses without it */
  gdk_gl_context_make_current (context);
  name = (const char *) glGetString (GL_RENDERER);
  if (ef_gl_renderer_name_is_software (name))
    {
      g_message ("OpenGL is %s, which draws on the processor: using GTK's cairo renderer (set GSK_RENDERER "
                 "to choose)", name);
      g_setenv ("GSK_RENDERER", "cairo", TRUE);
    }
  gdk_gl_context_clear_current ();
}

static void
ef_application_startup (GApplication *app)
{
  GtkApplication *gtk_app = GTK_APPLICATION (app);

  G_APPLICATION_CLASS (ef_application_parent_class)->startup (app);
  choose_renderer ();

  g_set_application_name (_("Echoform"));
  gtk_window_set_default_icon_name (APP_ID);
  g_action_map_add_action_entries (G_ACTION_MAP (app), app_entries, G_N_ELEMENTS (app_entries), app);

  set_accels (gtk_app, "app.quit", "<Primary>q", NULL);
  set_accels (gtk_app, "app.new-window", "<Primary>n", NULL);
  set_accels (gtk_app, "app.preferences", "<Primary>comma", NULL);
  set_accels (gtk_app, "window.close", "<Primary>w", NULL);
  set_accels (gtk_app, "win.open", "<Primary>o", NULL);
  set_accels (gtk_app, "win.open-folder", "<Primary><Shift>o", NULL);
  set_accels (gtk_app, "win.export-image", "<Primary>e", NULL);
  set_accels (gtk_app, "win.keep-region", "<Primary>k", NULL);
  set_accels (gtk_app, "win.export-png", "<Primary><Shift>e", NULL);
  set_accels (gtk_app, "win.show-sidebar", "F9", NULL);
  set_accels (gtk_app, "win.classroom", "F6", NULL);
  set_accels (gtk_app, "win.start", "F5", NULL);
  set_accels (gtk_app, "win.pause", "F6", NULL);
  set_accels (gtk_app, "win.cancel", "<Shift>F5", NULL);
  set_accels (gtk_app, "win.tool::pan", "<Alt>1", NULL);
  set_accels (gtk_app, "win.tool::region", "<Alt>2", NULL);
  set_accels (gtk_app, "win.tool::measure", "<Alt>3", NULL);
  set_accels (gtk_app, "win.zoom-in", "<Primary>plus", "<Primary>equal", "<Primary>KP_Add", NULL);
  set_accels (gtk_app, "win.zoom-out", "<Primary>minus", "<Primary>KP_Subtract", NULL);
  set_accels (gtk_app, "win.zoom-fit", "<Primary>0", NULL);
  set_accels (gtk_app, "win.zoom-1-1", "<Primary>1", NULL);
  set_accels (gtk_app, "win.zoom-roi", "<Primary>r", NULL);
  set_accels (gtk_app, "win.undo-region", "<Primary>z", NULL);
  set_accels (gtk_app, "win.redo-region", "<Primary><Shift>z", NULL);
}

static void
ef_application_shutdown (GApplication *app)
{
  gint64 deadline = g_get_monotonic_time () + SHUTDOWN_WAIT_US;

  /* Let the helper threads finish freeing jobs, so no worker outlives the program's teardown. The
   * windows are gone, so nothing waits on screen. */
  while (ef_job_runner_get_n_pending_frees () > 0 && g_get_monotonic_time () < deadline)
    {
      if (!g_main_context_iteration (NULL, FALSE))
        g_usleep (1000);
    }

  G_APPLICATION_CLASS (ef_application_parent_class)->shutdown (app);
}

static void
ef_application_class_init (EfApplicationClass *klass)
{
  GApplicationClass *app_class = G_APPLICATION_CLASS (klass);

  app_class->activate = ef_application_activate;
  app_class->open = ef_application_open;
  app_class->command_line = ef_application_command_line;
  app_class->handle_local_options = ef_application_handle_local_options;
  app_class->startup = ef_application_startup;
  app_class->shutdown = ef_application_shutdown;
}

static void
ef_application_init (EfApplication *self)
{
  g_application_add_main_option_entries (G_APPLICATION (self), options);
  g_application_set_option_context_parameter_string (G_APPLICATION (self), _("[FILE]"));
  g_application_set_option_context_summary (G_APPLICATION (self),
                                            _("Form synthetic aperture radar images from phase histories "
                                              "(CPHD, Gotcha). With no file, opens the demo scene."));
}

EfApplication *
ef_application_new (GApplicationFlags flags)
{
  return g_object_new (EF_TYPE_APPLICATION,
                       "application-id", APP_ID,
                       "flags", flags | G_APPLICATION_HANDLES_COMMAND_LINE | G_APPLICATION_HANDLES_OPEN,
                       "resource-base-path", "/io/github/echoform/Echoform",
                       NULL);
}
