/* ef-cli-form.c: `echoform-cli form`: forms an image of a region and writes it to a file. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-cli"
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ef-cli-mpi.h"
#include "ef-cli-focus.h"
#include "ef-cli-private.h"
#if HAVE_CUDA && HAVE_MPI
#include "cuda/ef-cuda.h"
#endif
#if HAVE_MATIO
#include "ef-gotcha.h"
#endif
#include "ef-image-io.h"
#include "ef-job.h"
#include "ef-job-defaults.h"
#include "ef-run-info-json.h"
#include "ef-sicd.h"

typedef enum {
  OUT_NPY,
  OUT_TIFF,
  OUT_PNG,
  OUT_SICD,
} OutputKind;

typedef struct {
  gboolean      tty;
  gint64        last_draw_us;
  EfJobProgress last;         /* the most recent report; pointers inside are not kept */
  gboolean      have_last;
} FormProgress;

static void
on_progress (EfJob *job, const EfJobProgress *progress, gpointer user_data)
{
  FormProgress *fp = user_data;
  gint64 now = g_get_monotonic_time ();
  gboolean final = progress->state != EF_JOB_RUNNING && progress->state != EF_JOB_PAUSED;

  fp->last = *progress;
  fp->last.dirty = NULL;
  fp->last.n_dirty = 0;
  fp->last.error = NULL;
  fp->last.backend_name = NULL;
  fp->have_last = TRUE;

  /* Redraw at most ten times a second: a terminal is slower than a fast backend. */
  if (fp->tty && (final || now - fp->last_draw_us > 100000))
    {
      char extra[128];
      double fraction = progress->pulses_total > 0 ? (double) progress->pulses_done / (double) progress->pulses_total
                        : progress->blocks_total > 0 ? (double) progress->blocks_done / progress->blocks_total : 0;

      g_snprintf (extra, sizeof extra, "%u/%u blocks  %.3g bp/s  %.1f s  eta %.0f s", progress->blocks_done,
                  progress->blocks_total, progress->bp_per_s, progress->elapsed_s,
                  isfinite (progress->eta_s) ? MAX (progress->eta_s, 0.0) : 0.0);
      ef_cli_progress_draw ("Forming", fraction, extra);
      fp->last_draw_us = now;
    }
}

static gboolean
output_kind (const char *path, OutputKind *kind)
{
  g_autofree char *lower = g_ascii_strdown (path, -1);

  if (g_str_has_suffix (lower, ".npy"))
    *kind = OUT_NPY;
  else if (g_str_has_suffix (lower, ".tif") || g_str_has_suffix (lower, ".tiff"))
    *kind = OUT_TIFF;
  else if (g_str_has_suffix (lower, ".png"))
    *kind = OUT_PNG;
  else if (g_str_has_suffix (lower, ".nitf") || g_str_has_suffix (lower, ".ntf"))
    *kind = OUT_SICD;
  else
    return FALSE;
  return TRUE;
}

/* A window option: "rect", "hann", "hamming", "taylor" or "taylor,SLL,NBAR" (a Taylor window's peak
 * sidelobe level in negative dB and its count of nearly constant sidelobes; either may be left out). */
static gboolean
parse_window (const char *what, const char *s, EfWindow *window, double *sll_db, guint *nbar, GError **error)
{
  g_auto (GStrv) parts = g_strsplit (s, ",", 3);

  if (parts[0] == NULL || !ef_window_from_string (parts[0], window))
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "%s: '%s' is not rect, hann, hamming or taylor[,SLL[,NBAR]]", what, s);
      return FALSE;
    }
  if (parts[1] == NULL)
    return TRUE;
  if (*window != EF_WINDOW_TAYLOR)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "%s: only the Taylor window has a shape ('%s')",
                   what, s);
      return FALSE;
    }
  if (parts[1][0] != '\0' && !ef_cli_parse_double (what, parts[1], -120, -13.3, sll_db, error))
    return FALSE;
  if (parts[2] != NULL && !ef_cli_parse_uint (what, parts[2], 1, 63, nbar, error))
    return FALSE;
  return TRUE;
}

/* Every difference from the request and every problem of the image, once each on stderr, and the matched
 * filter's note on its kernel shape. */
static void
say_run (const EfRunInfo *run)
{
  g_auto (GStrv) warnings = ef_run_info_warnings (run);

  for (guint i = 0; warnings[i] != NULL; i++)
    ef_cli_warn_once (warnings[i]);
  /* The matched filter's untuned kernel: said once, as the way to a faster one. */
  if (run->algo == EF_ALGO_MF)
    ef_cli_note (run->kernel_note);
}

/* What writing the image needs from the command line. */
typedef struct {
  const char *input;       /* borrowed */
  const char *output;      /* borrowed */
  OutputKind  kind;
  gboolean    has_place;
  double      place[3];
  gboolean    has_db_range;
  double      db_range[2];
  gboolean    json;
  double      roi[4];
} FormRequest;

/* Writes the image (atomically: ef-image-io.c and the SICD writer fill a temporary file that is renamed
 * over OUT) and prints the summary; the caller reports an error. mpi_info (borrowed, may be NULL) says
 * how MPI ranks shared the work. */
static gboolean
write_image (const FormRequest *rq, EfDataset *ds, const EfJobParams *jp, EfImage *image, const EfRunInfo *run,
             const char *note, guint64 pulses_used, double elapsed_s, double bp_per_s, JsonObject *mpi_info,
             GError **error)
{
  g_autoptr (JsonObject) extra = NULL;
  g_autofree char *ran = NULL;
  const EfGrid *grid = &image->grid;
  const char *output = rq->output;
  gint64 t_start = g_get_monotonic_time ();
  gboolean ok;

  /* Kept with the image: the parameters that reproduce it, and what ran. */
  extra = ef_run_info_sidecar_extra (run, rq->input, jp, pulses_used, elapsed_s, bp_per_s);
  if (mpi_info != NULL)
    json_object_set_object_member (extra, "mpi", json_object_ref (mpi_info));
  if (rq->kind == OUT_SICD)
    {
      EfSicdSource src = { 0 };

      src.dataset = ds;
      src.image = image;
      src.params = jp;
      src.run = run;
      src.input = rq->input;
      src.has_place = rq->has_place;
      memcpy (src.place_llh, rq->place, sizeof rq->place);
      if (rq->has_place && ds->info.has_geo)
        ef_cli_warning ("the collection says where it is; --place is not used");
      ok = ef_sicd_write (output, &src, error);
      if (!ok && !ds->info.has_geo && !rq->has_place)
        g_prefix_error (error, "give --place LAT,LON,HAE: ");
    }
  else if (rq->kind == OUT_PNG && rq->has_db_range)
    {
      EfPngOptions popts = { rq->db_range[0], rq->db_range[1], 1.0 };
      ok = ef_image_write_full (image, output, extra, &popts, error);
    }
  else
    ok = ef_image_write_full (image, output, extra, NULL, error);
  g_debug ("image written in %.4f s", (g_get_monotonic_time () - t_start) * 1e-6);
  if (!ok)
    {
      if (!strstr ((*error)->message, output))
        g_prefix_error (error, "%s: ", output);
      return FALSE;
    }

  if (rq->json)
    {
      g_autofree char *text = NULL;
      EfCliJson j;

      ef_cli_json_init (&j);
      ef_cli_json_begin_object (&j, NULL);
      ef_cli_json_string (&j, "output", output);
      ef_cli_json_int (&j, "width", grid->width);
      ef_cli_json_int (&j, "height", grid->height);
      ef_cli_json_double (&j, "spacing_m", grid->spacing);
      ef_cli_json_begin_array (&j, "roi_m");
      for (int i = 0; i < 4; i++)
        ef_cli_json_double (&j, NULL, rq->roi[i]);
      ef_cli_json_end_array (&j);
      ef_cli_json_int (&j, "pulses", (gint64) pulses_used);
      ef_cli_json_double (&j, "elapsed_s", elapsed_s);
      ef_cli_json_double (&j, "bp_per_s", bp_per_s);
      ef_cli_json_string (&j, "note", note);
      ef_run_info_add_json (run, j.builder);
      if (mpi_info != NULL)
        {
          json_builder_set_member_name (j.builder, "mpi");
          json_builder_add_value (j.builder, json_node_init_object (json_node_alloc (), mpi_info));
        }
      ef_cli_json_end_object (&j);
      text = ef_cli_json_finish (&j);
      fputs (text, stdout);
    }
  else
    {
      ran = ef_run_info_describe (run);
      printf ("Wrote %s: %u x %u pixels at %.4g m, %" G_GUINT64_FORMAT " pulses, %s, %.3f s, %.3g bp/s%s\n", output,
              grid->width, grid->height, grid->spacing, pulses_used, ran, elapsed_s, bp_per_s,
              mpi_info != NULL ? ", over MPI ranks" : "");
    }
  return TRUE;
}

#if HAVE_MPI
/* The CUDA devices this rank may choose among when none is named: this host's. */
static guint
local_cuda_devices (void)
{
#if EF_TEST_HOOKS
  /* Tests: EF_TEST_MPI_CUDA_DEVICES=N makes the choice as if the host had N devices (the backend still
   * finds what there is). */
  const char *s = g_getenv ("EF_TEST_MPI_CUDA_DEVICES");

  if (s != NULL)
    return (guint) CLAMP (atoi (s), 0, 1024);
#endif
#if HAVE_CUDA
  return ef_cuda_device_count ();
#else
  return 0;
#endif
}

/* What the mpi member of the summary says about where the ranks formed: per rank its host, its rank
 * there, the device it asked for (null: the default) and the CUDA devices its image came from ([]: not
 * on CUDA); and whether two ranks of one host shared a device, which the user is told. */
static void
add_places (JsonObject *info, const EfCliRankPlace *places, int n)
{
  JsonArray *hosts = json_array_new (), *local = json_array_new (), *asked = json_array_new ();
  JsonArray *devices = json_array_new ();
  gboolean shared;
  int a, b, device;

  for (int r = 0; r < n; r++)
    {
      JsonArray *mine = json_array_new ();

      json_array_add_int_element (hosts, places[r].host);
      json_array_add_int_element (local, places[r].local_rank);
      if (places[r].device_asked >= 0)
        json_array_add_int_element (asked, places[r].device_asked);
      else
        json_array_add_null_element (asked);
      for (guint i = 0; i < places[r].n_devices; i++)
        json_array_add_int_element (mine, (gint64) places[r].first_device + i);
      json_array_add_array_element (devices, mine);
    }
  json_object_set_array_member (info, "hosts", hosts);
  json_object_set_array_member (info, "local_ranks", local);
  json_object_set_array_member (info, "device_requested", asked);
  json_object_set_array_member (info, "devices", devices);
  shared = ef_cli_mpi_devices_shared (places, n, &a, &b, &device);
  json_object_set_boolean_member (info, "devices_shared", shared);
  if (shared)
    {
      g_autofree char *msg = g_strdup_printf ("ranks %d and %d formed on the same CUDA device (%d) of one host: "
                                              "it has fewer devices than ranks", a, b, device);
      ef_cli_warn_once (msg);
    }
}

/* form under mpirun: the ranks form the region together and rank 0 writes it. Every rank returns the
 * same status, and a failure anywhere is said once. */
static int
form_over_ranks (EfCliMpi *mpi, const FormRequest *rq, EfDataset *ds, const EfJobParams *jp, EfCliDecompose how)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (EfImage) image = NULL;
  g_autoptr (JsonObject) info = NULL;
  g_autofree char *note = NULL;
  g_auto (GStrv) ran = NULL;
  g_autofree EfCliRankPlace *places = NULL;
  g_auto (EfRunInfo) run = { 0 };
  EfCliDecompose chosen;
  guint64 pulses_used = 0;
  double elapsed_s = 0, combine_s = 0, bp_per_s;
  gboolean ok = TRUE;

  /* The same on every rank, so only rank 0's message is seen. */
  if (!ef_cli_mpi_choose (mpi, jp, how, &chosen, &error))
    return ef_cli_report ("form", error);
  if (!ef_cli_mpi_form (mpi, ds, jp, chosen, &image, &run, &note, &pulses_used, &elapsed_s, &combine_s, &ran, &places))
    return EF_CLI_EXIT_FAILURE;
  if (ef_cli_mpi_rank (mpi) == 0)
    {
      say_run (&run);
      bp_per_s = elapsed_s > 0 ? (double) ef_grid_n_pixels (&image->grid) * (double) pulses_used / elapsed_s : 0;
      info = json_object_new ();
      json_object_set_int_member (info, "ranks", ef_cli_mpi_size (mpi));
      json_object_set_string_member (info, "decompose", ef_cli_decompose_to_string (chosen));
      json_object_set_double_member (info, "combine_s", combine_s);
      {
        JsonArray *ranks = json_array_new ();

        /* What each rank ran: they may differ, and a difference is news to the user. */
        for (guint r = 0; ran != NULL && ran[r] != NULL; r++)
          {
            json_array_add_string_element (ranks, ran[r]);
            if (r > 0 && strcmp (ran[r], ran[0]) != 0 && strcmp (ran[r], "nothing to form") != 0)
              {
                g_autofree char *msg = g_strdup_printf ("rank %u ran %s; rank 0 ran %s", r, ran[r], ran[0]);
                ef_cli_warn_once (msg);
              }
          }
        json_object_set_array_member (info, "ran", ranks);
      }
      add_places (info, places, ef_cli_mpi_size (mpi));
      ok = write_image (rq, ds, jp, image, &run, note, pulses_used, elapsed_s, bp_per_s, info, &error);
    }
  return ef_cli_mpi_agree (mpi, ok ? NULL : error) ? EF_CLI_EXIT_OK : EF_CLI_EXIT_FAILURE;
}
#endif

/* An ISMRMRD (MRI) file: reconstructed as `mri --ismrmrd FILE --size N -o OUT --backend B` would,
 * by least squares (cg), the size from the file. SAR options have no meaning for it and are refused. */
static int
form_ismrmrd (const char *input, const char *output, const char *backend_s, gboolean sar_options)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *size_s = NULL;
  const char *args[12];
  gboolean normalised;
  guint edge, n = 0;

  if (sar_options)
    return ef_cli_usage_error ("form", "“%s” is an ISMRMRD (MRI) file: SAR options do not apply to it; "
                               "see echoform-cli mri", input);
  if (!g_str_has_suffix (output, ".npy"))
    return ef_cli_usage_error ("form", "an MRI image is written as .npy (complex128), not “%s”", output);
  if (!ef_cli_ismrmrd_image (input, &edge, &normalised, &error))
    return ef_cli_report ("form", error);
  if (edge == 0)
    return ef_cli_usage_error ("form", "“%s” does not say its image size: use echoform-cli mri --ismrmrd FILE "
                               "--size N", input);
  size_s = g_strdup_printf ("%u", edge);
  args[n++] = "mri";
  args[n++] = "--ismrmrd";
  args[n++] = input;
  args[n++] = "--size";
  args[n++] = size_s;
  if (!normalised)
    {
      args[n++] = "--traj-scale";
      args[n++] = "1";
    }
  args[n++] = "-o";
  args[n++] = output;
  if (backend_s != NULL)
    {
      args[n++] = "--backend";
      args[n++] = backend_s;
    }
  args[n] = NULL;
  fprintf (stderr, "form: “%s” is an ISMRMRD (MRI) file: reconstructing it as echoform-cli mri --ismrmrd "
           "FILE --size %u%s does (least squares)\n", input, edge, normalised ? "" : " --traj-scale 1");
  return ef_cli_mri ((int) n, (char **) args);
}

static int
form_main (int argc, char **argv, EfCliMpi *mpi)
{
  g_autofree char *output = NULL;
  g_autofree char *roi_s = NULL, *spacing_s = NULL, *algo_s = NULL, *precision_s = NULL, *backend_s = NULL;
  g_autofree char *window_s = NULL, *az_window_s = NULL, *upsample_s = NULL, *block_s = NULL, *order_s = NULL, *channel_s = NULL;
  g_autofree char *threads_s = NULL, *stride_s = NULL, *db_range_s = NULL, *devices_s = NULL, *place_s = NULL;
  g_autofree char *description = NULL, *decompose_s = NULL;
  g_autofree char *autofocus_s = NULL, *phase_in = NULL, *phase_out = NULL, *af_size_s = NULL;
  gboolean gotcha_af = FALSE;
  g_auto (EfRunInfo) af = { 0 };
  EfCliFocusArgs afa = { 0 };
  g_autofree char *ran = NULL;
  g_autoptr (JsonObject) extra = NULL;
  g_auto (EfRunInfo) run = { 0 };
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(EfDataset) ds = NULL;
  g_autoptr(EfJob) job = NULL;
  g_autoptr(EfImage) image = NULL;
  g_autoptr(GError) error = NULL;
  FormProgress fp = { 0 };
  gboolean json = FALSE, ok;
  guint channel = 0, n_threads = 0, upsample = 0, block = 0, stride = 0, n_devices = 1;
  double roi[4], spacing = 0, db_range[2] = { 0, 0 }, place[3] = { 0, 0, 0 };
  EfAlgo algo = EF_ALGO_BP;
  EfPrecision precision = EF_PRECISION_FP32;
  EfBackendKind backend_kind = EF_BACKEND_AUTO;
  EfWindow window = EF_WINDOW_RECT;         /* read only when --window is given, as are the next */
  EfWindow az_window = EF_WINDOW_RECT;
  EfRangeParams shape = EF_RANGE_PARAMS_DEFAULT;
  EfOrder order = EF_ORDER_SEQUENTIAL;
  OutputKind kind;
  EfCliDecompose decompose = EF_CLI_DECOMPOSE_AUTO;
  FormRequest rq = { 0 };
  EfJobDefaults defaults;
  EfJobParams jp;
  EfGrid grid;
  EfRect all;
  const char *input, *note;
  double elapsed_s, bp_per_s;
  gint64 t_start;
  guint64 pulses_used;
  const GOptionEntry entries[] = {
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, "Image file: OUT.npy (complex64 with a .json sidecar), "
      "OUT.tiff (complex float), OUT.png (dB magnitude) or OUT.nitf (a SICD 1.3 product)", "OUT" },
    { "place", 0, 0, G_OPTION_ARG_STRING, &place_s, "SICD: where the scene centre is, when the collection does "
      "not say (Gotcha): latitude and longitude in degrees, height in metres", "LAT,LON,HAE" },
    { "roi", 'r', 0, G_OPTION_ARG_STRING, &roi_s, "Region to form, scene frame in metres (x east, y north); "
      "default: 256 pixels square about the scene centre", "X0,Y0,X1,Y1" },
    { "spacing", 's', 0, G_OPTION_ARG_STRING, &spacing_s, "Pixel spacing in metres; default: half the finer of "
      "the ground-plane range and cross-range resolutions", "M" },
    { "algo", 'a', 0, G_OPTION_ARG_STRING, &algo_s, "Algorithm: bp (the default), ffbp, fbp, pfa or mf (the exact matched filter, FX data)", "ALGO" },
    { "precision", 'p', 0, G_OPTION_ARG_STRING, &precision_s, "fp64, fp32 (the default) or fp16", "PREC" },
    { "backend", 'b', 0, G_OPTION_ARG_STRING, &backend_s, "auto (CUDA when a device is present; the default), "
      "cpu or cuda", "KIND" },
    { "window", 'w', 0, G_OPTION_ARG_STRING, &window_s, "Range window: rect, hann, hamming or taylor (the "
      "default: -35 dB, n = 4); taylor,SLL,NBAR sets its shape", "WIN" },
    { "azimuth-window", 0, 0, G_OPTION_ARG_STRING, &az_window_s, "Cross-range (aperture) window over the pulses' "
      "look angles, the same choices (default: taylor, -35 dB, n = 4)", "WIN" },
    { "upsample", 'u', 0, G_OPTION_ARG_STRING, &upsample_s, "Range profile zero-padding factor (default 16)", "N" },
    { "block", 0, 0, G_OPTION_ARG_STRING, &block_s, "Pulses per block (default 64; ffbp and fbp 1024)", "N" },
    { "order", 0, 0, G_OPTION_ARG_STRING, &order_s, "Pulse block order: sequential or interleaved (the "
      "default)", "ORDER" },
    { "stride", 0, 0, G_OPTION_ARG_STRING, &stride_s, "Use every N-th pulse (a quick look)", "N" },
    { "channel", 0, 0, G_OPTION_ARG_STRING, &channel_s, "Channel to read (0: the first)", "N" },
    { "threads", 't', 0, G_OPTION_ARG_STRING, &threads_s, "CPU threads (0: all cores)", "N" },
    { "devices", 0, 0, G_OPTION_ARG_STRING, &devices_s, "CUDA devices to spread the pulses over: N or all "
      "(default 1)", "N|all" },
    { "db-range", 0, 0, G_OPTION_ARG_STRING, &db_range_s, "PNG: the dB range shown, as MIN,MAX (default: from "
      "the image's percentiles)", "MIN,MAX" },
    { "decompose", 0, 0, G_OPTION_ARG_STRING, &decompose_s, "Under mpirun (builds with MPI): how the ranks "
      "share the work: pulses, tiles or auto (the default)", "HOW" },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, "Print a JSON summary on stdout", NULL },
    { "autofocus", 0, 0, G_OPTION_ARG_STRING, &autofocus_s, "Estimate per-pulse phase errors over the region "
      "and form with them corrected, on the same backend: pga (phase gradient, each pulse read from "
      "prominent scatterers; on clutter sharpness does better) or sharpness (maximum sum |I|^4)", "METHOD" },
    { "autofocus-size", 0, 0, G_OPTION_ARG_STRING, &af_size_s, "The autofocus grid's side in pixels at most "
      "(default 256)", "N" },
    { "phase-out", 0, 0, G_OPTION_ARG_FILENAME, &phase_out, "Write the autofocus's per-pulse corrections "
      "(JSON) to FILE", "FILE" },
    { "phase-correction", 0, 0, G_OPTION_ARG_FILENAME, &phase_in, "Multiply each pulse by exp(-j phase) "
      "from FILE (JSON, as --phase-out writes) before range compression", "FILE" },
    { "gotcha-af", 0, 0, G_OPTION_ARG_NONE, &gotcha_af, "Gotcha input: apply the files' own autofocus "
      "corrections (af.r_correct, af.ph_correct; off by default: the delivered phase history focuses best)", NULL },
    { NULL }
  };

  description = g_strconcat ("FILE is a CPHD file, a Gotcha .mat file or folder, or a scene key file (.ini) "
                             "that is simulated in memory first. An ISMRMRD (MRI) file (.h5, .mrd) is "
                             "reconstructed as `mri --ismrmrd FILE` does, at the size the file gives, into "
                             "OUT.npy.\n"
                             "A progress bar is drawn on stderr when stderr is a terminal.\n\n",
                             ef_cli_scene_file_help, NULL);
  context = ef_cli_option_context_new ("form", "FILE -o OUT", "Form an image of a region by backprojection.",
                                       description, entries);
  if (!ef_cli_option_parse (context, "form", &argc, &argv))
    return EF_CLI_EXIT_USAGE;

  /* Every argument is checked before the (possibly long) work starts. */
  if (argc < 2)
    return ef_cli_usage_error ("form", "no input file given");
  if (argc > 2)
    return ef_cli_usage_error ("form", "unexpected argument '%s'", argv[2]);
  input = argv[1];
  if (output == NULL)
    return ef_cli_usage_error ("form", "no output file; give -o OUT.npy, OUT.tiff, OUT.png or OUT.nitf");
  if (ef_cli_info_is_ismrmrd (input))
    return form_ismrmrd (input, output, backend_s,
                         roi_s != NULL || spacing_s != NULL || algo_s != NULL || precision_s != NULL
                           || window_s != NULL || az_window_s != NULL || autofocus_s != NULL || phase_in != NULL
                           || gotcha_af || mpi != NULL);
  if (!output_kind (output, &kind))
    return ef_cli_usage_error ("form", "cannot tell the image type of '%s'; use .npy, .tiff, .png or .nitf",
                               output);
  if (kind == OUT_SICD && !ef_sicd_available ())
    return ef_cli_usage_error ("form", "this build has no GDAL, which writes SICD's NITF files");
  if (algo_s != NULL && !ef_algo_from_string (algo_s, &algo))
    return ef_cli_usage_error ("form", "--algo: '%s' is not bp, ffbp, fbp, pfa or mf", algo_s);
  if (precision_s != NULL && !ef_precision_from_string (precision_s, &precision))
    return ef_cli_usage_error ("form", "--precision: '%s' is not fp64, fp32 or fp16", precision_s);
  if (backend_s != NULL && !ef_backend_kind_from_string (backend_s, &backend_kind))
    return ef_cli_usage_error ("form", "--backend: '%s' is not auto, cpu or cuda", backend_s);
  if (order_s != NULL && !ef_order_from_string (order_s, &order))
    return ef_cli_usage_error ("form", "--order: '%s' is not sequential or interleaved", order_s);
  if ((window_s != NULL
       && !parse_window ("--window", window_s, &window, &shape.taylor_sll_db, &shape.taylor_nbar, &error))
      || (az_window_s != NULL
          && !parse_window ("--azimuth-window", az_window_s, &az_window, &shape.az_taylor_sll_db,
                            &shape.az_taylor_nbar, &error)))
    return ef_cli_usage_error ("form", "%s", error->message);
  if ((roi_s != NULL && !ef_cli_parse_roi ("--roi", roi_s, roi, &error))
      || (spacing_s != NULL && !ef_cli_parse_double ("--spacing", spacing_s, 1e-6, 1e6, &spacing, &error))
      || (upsample_s != NULL && !ef_cli_parse_uint ("--upsample", upsample_s, 1, 64, &upsample, &error))
      || (block_s != NULL && !ef_cli_parse_uint ("--block", block_s, 1, 1u << 20, &block, &error))
      || (stride_s != NULL && !ef_cli_parse_uint ("--stride", stride_s, 1, 1u << 20, &stride, &error))
      || (channel_s != NULL && !ef_cli_parse_uint ("--channel", channel_s, 0, 65535, &channel, &error))
      || (threads_s != NULL && !ef_cli_parse_uint ("--threads", threads_s, 0, 4096, &n_threads, &error))
      || (devices_s != NULL && !ef_cli_parse_devices ("--devices", devices_s, &n_devices, &error))
      || (db_range_s != NULL && !ef_cli_parse_doubles ("--db-range", db_range_s, 2, 2, db_range, NULL, &error))
      || (place_s != NULL && !ef_cli_parse_doubles ("--place", place_s, 3, 3, place, NULL, &error)))
    return ef_cli_report ("form", error);
  if (af_size_s != NULL && !ef_cli_parse_uint ("--autofocus-size", af_size_s, 16, 4096, &afa.max_px, &error))
    return ef_cli_report ("form", error);
  if (autofocus_s != NULL && g_strcmp0 (autofocus_s, "pga") != 0 && g_strcmp0 (autofocus_s, "sharpness") != 0)
    return ef_cli_usage_error ("form", "--autofocus: '%s' is not pga or sharpness", autofocus_s);
  if (phase_out != NULL && autofocus_s == NULL)
    return ef_cli_usage_error ("form", "--phase-out needs --autofocus");
  if (db_range_s != NULL && !(db_range[0] < db_range[1]))
    return ef_cli_usage_error ("form", "--db-range: MIN must be below MAX (got %s)", db_range_s);
  if (db_range_s != NULL && kind != OUT_PNG)
    ef_cli_warning ("--db-range only applies to PNG output");
  if (place_s != NULL && (!(fabs (place[0]) <= 90) || !(fabs (place[1]) <= 360) || !(fabs (place[2]) <= 1e5)))
    return ef_cli_usage_error ("form", "--place: %s is not a latitude, longitude and height on the Earth", place_s);
  if (place_s != NULL && kind != OUT_SICD)
    ef_cli_warning ("--place only applies to SICD output");
  if (decompose_s != NULL)
    {
      if (g_strcmp0 (decompose_s, "pulses") == 0)
        decompose = EF_CLI_DECOMPOSE_PULSES;
      else if (g_strcmp0 (decompose_s, "tiles") == 0)
        decompose = EF_CLI_DECOMPOSE_TILES;
      else if (g_strcmp0 (decompose_s, "auto") != 0)
        return ef_cli_usage_error ("form", "--decompose: '%s' is not pulses, tiles or auto", decompose_s);
      if (!HAVE_MPI)
        return ef_cli_usage_error ("form", "--decompose: this build has no MPI (configure with -Dmpi=enabled)");
      if (mpi == NULL)
        ef_cli_warning ("--decompose only applies under mpirun; this is a single process");
    }
#if HAVE_MPI
  /* An estimate and its record belong to one process: estimate with --phase-out first, alone. */
  if (mpi != NULL && (autofocus_s != NULL || phase_in != NULL || phase_out != NULL))
    {
      if (ef_cli_mpi_rank (mpi) != 0)
        return EF_CLI_EXIT_USAGE;
      return ef_cli_usage_error ("form", "--autofocus, --phase-correction and --phase-out run in a single "
                                         "process, not under mpirun");
    }
#endif

  if (ef_cli_stderr_is_tty () && ef_cli_is_scene_file (input))
    fprintf (stderr, "Simulating the scene in %s…\n", input);
  t_start = g_get_monotonic_time ();
  if (gotcha_af)
    {
#if HAVE_MATIO
      const char *paths[] = { input, NULL };
      EfGotchaOptions go;

      if (!ef_gotcha_sniff (input))
        return ef_cli_usage_error ("form", "--gotcha-af: “%s” is not a Gotcha .mat file or folder", input);
      ef_gotcha_options_init (&go);
      go.apply_autofocus = TRUE;
      ds = ef_gotcha_open (paths, &go, &error);
      if (ds != NULL)
        fprintf (stderr, "form: the files' autofocus corrections (af.r_correct, af.ph_correct) applied\n");
#else
      return ef_cli_usage_error ("form", "--gotcha-af: this build reads no Gotcha files (libmatio-dev)");
#endif
    }
  else
    ds = ef_cli_open_input (input, channel, n_threads, &error);
#if HAVE_MPI
  /* Every rank opens the file; one that cannot ends them all, with its message. */
  if (mpi != NULL && !ef_cli_mpi_agree (mpi, ds == NULL ? error : NULL))
    return EF_CLI_EXIT_FAILURE;
#endif
  if (ds == NULL)
    return ef_cli_report ("form", error);
  g_debug ("%s opened in %.4f s", input, (g_get_monotonic_time () - t_start) * 1e-6);

  /* What is not given is the engine's default, as in the desktop program. */
  ef_job_defaults (ds, algo, &defaults);
  if (spacing_s == NULL)
    {
      spacing = defaults.spacing;
      if (!(spacing > 0) || !isfinite (spacing))
        return ef_cli_usage_error ("form", "the collection does not say its resolution; give --spacing");
    }
  if (roi_s == NULL)
    ef_job_default_roi (spacing, roi);
  if (!ef_grid_init_roi (&grid, roi[0], roi[1], roi[2], roi[3], spacing, &error))
    {
      /* The ROI and spacing came from the command line: a bad grid is a usage problem. */
      return ef_cli_usage_error ("form", "%s", error->message);
    }

  ef_job_params_init (&jp, &grid);
  ef_job_defaults_apply (&defaults, &jp);
  jp.backend_kind = backend_kind;
  jp.backend.algo = algo;
  if (order_s != NULL)
    jp.order = order;
  if (window_s != NULL)
    {
      jp.backend.range.window = window;
      jp.backend.range.taylor_sll_db = shape.taylor_sll_db;
      jp.backend.range.taylor_nbar = shape.taylor_nbar;
    }
  if (az_window_s != NULL)
    {
      jp.backend.range.az_window = az_window;
      jp.backend.range.az_taylor_sll_db = shape.az_taylor_sll_db;
      jp.backend.range.az_taylor_nbar = shape.az_taylor_nbar;
    }
  if (precision_s != NULL)
    jp.backend.precision = precision;
  if (upsample_s != NULL)
    jp.backend.range.upsample = upsample;
  if (block_s != NULL)
    jp.backend.block_size = block;
  if (threads_s != NULL)
    jp.backend.n_threads = n_threads;
  if (stride_s != NULL)
    jp.pulse_stride = stride;
  jp.backend.n_devices = n_devices;
#if HAVE_MPI
  /* Ranks on one host take a device each, unless --devices says which (from device 0, as in a single
   * process). On the CPU, or on a host without CUDA devices, nothing changes. */
  if (mpi != NULL && devices_s == NULL && backend_kind != EF_BACKEND_CPU)
    jp.backend.device = ef_cli_mpi_pick_device (mpi, local_cuda_devices ());
#endif
  /* Nothing shows the image while it forms: read it back once, at the end, and keep the device busy. */
  jp.publish_interval_s = -1;

  afa.method = autofocus_s;
  afa.phase_in = phase_in;
  afa.phase_out = phase_out;
  if ((autofocus_s != NULL || phase_in != NULL) && !ef_cli_focus_apply (&ds, &afa, roi, &jp, &af, &error))
    return ef_cli_report ("form", error);
  rq.input = input;
  rq.output = output;
  rq.kind = kind;
  rq.has_place = place_s != NULL;
  memcpy (rq.place, place, sizeof place);
  rq.has_db_range = db_range_s != NULL;
  memcpy (rq.db_range, db_range, sizeof db_range);
  rq.json = json;
  memcpy (rq.roi, roi, sizeof roi);
#if HAVE_MPI
  if (mpi != NULL)
    return form_over_ranks (mpi, &rq, ds, &jp, decompose);
#else
  (void) decompose;  /* refused above: this build has no MPI */
#endif

  job = ef_job_new (ds, &jp, &error);
  if (job == NULL)
    return ef_cli_report ("form", error);

  fp.tty = ef_cli_stderr_is_tty ();
  t_start = g_get_monotonic_time ();
  ok = ef_job_run (job, on_progress, &fp, &error);
  elapsed_s = (double) (g_get_monotonic_time () - t_start) * 1e-6;
  if (fp.tty && fp.have_last)
    ef_cli_progress_end ();

  /* What ran, as the job recorded it: a fallback (no CUDA device, fp16 on the processor, exact
   * backprojection for FFBP) is news to the user, not a failure; so is an input or an image that is not
   * finite, which the summary and the sidecar state too. */
  ef_job_get_run_info (job, &run);
  ef_cli_focus_record (&run, &af);
  note = ef_job_get_note (job);
  say_run (&run);
  if (!ok)
    return ef_cli_report ("form", error);

  pulses_used = fp.have_last ? fp.last.pulses_total : ds->info.n_pulses;
  if (fp.have_last && fp.last.elapsed_s > 0)
    elapsed_s = fp.last.elapsed_s;
  bp_per_s = elapsed_s > 0 ? (double) ef_grid_n_pixels (&grid) * (double) pulses_used / elapsed_s : 0;
  if (fp.have_last && fp.last.bp_per_s > 0)
    bp_per_s = fp.last.bp_per_s;

  image = ef_image_new (&grid, &error);
  all = (EfRect) { 0, 0, grid.width, grid.height };
  if (image == NULL || !ef_job_read_image (job, &all, image->data, &error))
    return ef_cli_report ("form", error);

  if (!write_image (&rq, ds, &jp, image, &run, note, pulses_used, elapsed_s, bp_per_s, NULL, &error))
    return ef_cli_report ("form", error);
  return EF_CLI_EXIT_OK;
}

int
ef_cli_form (int argc, char **argv)
{
  EfCliMpi *mpi = NULL;
  int status;

#if HAVE_MPI
  mpi = ef_cli_mpi_begin ();
#endif
  status = form_main (argc, argv, mpi);
#if HAVE_MPI
  ef_cli_mpi_end (mpi);
#endif
  return status;
}
