/* ef-cli-tune.c: `echoform-cli tune`: times the CUDA kernel shapes and keeps the fastest per device. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-cli"
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "ef-cli-private.h"
#if HAVE_CUDA
#include "cuda/ef-cuda.h"
#include "cuda/ef-cuda-mri.h"
#include "cuda/ef-cuda-mf.h"
#endif

/* The class that the benchmarks and RESULTS.md use: a 4096-pixel image, 1024 pulses of 8192 bins. */
#define DEFAULT_EDGE 4096
#define DEFAULT_PULSES 1024
#define DEFAULT_BINS 8192
/* The MRI class that the benchmark uses: 64^3 voxels (F^H d; Q runs on the doubled grid). */
#define DEFAULT_MRI_VOXELS 262144
/* The matched filter's class that its benchmark (bench-cuda-mf) uses: 1024^2 px, 1024 samples a pulse. */
#define DEFAULT_MF_EDGE 1024
#define DEFAULT_MF_SAMPLES 1024

#if HAVE_CUDA
/* One device's tuned shape as an element of the "results" array; class_key may be NULL. */
static void
json_tuned (EfCliJson *j, int device, const char *class_key, guint shape, const char *shape_name)
{
  g_autofree char *name = ef_cuda_device_name (device);

  ef_cli_json_begin_object (j, NULL);
  ef_cli_json_int (j, "device", device);
  ef_cli_json_string (j, "name", name);
  if (class_key != NULL)
    ef_cli_json_string (j, "class", class_key);
  ef_cli_json_int (j, "shape", shape);
  ef_cli_json_string (j, "shape_name", shape_name);
  ef_cli_json_end_object (j);
}

/* Closes the "results" array and the document, and prints it. */
static void
json_close_results (EfCliJson *j)
{
  g_autofree char *text = NULL;

  ef_cli_json_end_array (j);
  ef_cli_json_end_object (j);
  text = ef_cli_json_finish (j);
  fputs (text, stdout);
}
#endif

#if HAVE_CUDA
typedef struct {
  int         device;
  EfPrecision precision;
  guint       variant;
} TuneRow;

/* Tunes every (device, precision) pair; prints each timing table unless json. */
static int
tune_devices (GArray *devices, GArray *precisions, guint edge, guint pulses, guint bins, gboolean json)
{
  g_autoptr (GArray) rows = g_array_new (FALSE, FALSE, sizeof (TuneRow));
  g_autofree char *path = ef_cuda_tune_cache_path ();

  for (guint d = 0; d < devices->len; d++)
    for (guint p = 0; p < precisions->len; p++)
      {
        TuneRow row = { g_array_index (devices, int, d), g_array_index (precisions, EfPrecision, p), 0 };
        g_autoptr (GError) error = NULL;
        g_autofree char *report = NULL;

        if (!json && ef_cli_stderr_is_tty ())
          fprintf (stderr, "Timing %u kernel shapes in %s on CUDA device %d…\n", ef_cuda_n_shapes (),
                   ef_precision_to_string (row.precision), row.device);
        if (!ef_cuda_tune (row.device, edge, pulses, bins, row.precision, &row.variant, &report, &error))
          {
            g_prefix_error (&error, "CUDA device %d, %s: ", row.device, ef_precision_to_string (row.precision));
            return ef_cli_report ("tune", error);
          }
        if (!json)
          printf ("%s%s", d + p > 0 ? "\n" : "", report);
        g_array_append_val (rows, row);
      }

  if (json)
    {
      g_autofree char *text = NULL;
      EfCliJson j;

      ef_cli_json_init (&j);
      ef_cli_json_begin_object (&j, NULL);
      ef_cli_json_int (&j, "edge", edge);
      ef_cli_json_int (&j, "pulses", pulses);
      ef_cli_json_int (&j, "bins", bins);
      ef_cli_json_string (&j, "cache", path);
      ef_cli_json_begin_array (&j, "results");
      for (guint i = 0; i < rows->len; i++)
        {
          const TuneRow *r = &g_array_index (rows, TuneRow, i);
          g_autofree char *name = ef_cuda_device_name (r->device);

          ef_cli_json_begin_object (&j, NULL);
          ef_cli_json_int (&j, "device", r->device);
          ef_cli_json_string (&j, "name", name);
          ef_cli_json_string (&j, "precision", ef_precision_to_string (r->precision));
          ef_cli_json_int (&j, "variant", r->variant);
          ef_cli_json_end_object (&j);
        }
      ef_cli_json_end_array (&j);
      ef_cli_json_end_object (&j);
      text = ef_cli_json_finish (&j);
      fputs (text, stdout);
    }
  else
    printf ("\nStored in %s; CUDA backends on the same device model and problem class use it.\n", path);
  return EF_CLI_EXIT_OK;
}
#endif

#if HAVE_CUDA
/* Tunes the MRI sums' classes for n_vox voxels on every device: F^H d and Q (on the doubled grid), 2-D
 * and 3-D; prints each timing table unless json. */
static int
tune_mri_devices (GArray *devices, gsize n_vox, gboolean json)
{
  g_autofree char *path = ef_cuda_tune_cache_path ();
  EfCliJson j;

  if (json)
    {
      ef_cli_json_init (&j);
      ef_cli_json_begin_object (&j, NULL);
      ef_cli_json_int (&j, "voxels", (gint64) n_vox);
      ef_cli_json_string (&j, "cache", path);
      ef_cli_json_begin_array (&j, "results");
    }
  for (guint i = 0; i < devices->len; i++)
    for (guint dim = 2; dim <= 3; dim++)
      for (int q = 0; q <= 1; q++)
        {
          int device = g_array_index (devices, int, i);
          gsize nv = q ? n_vox << dim : n_vox;
          g_autoptr (GError) error = NULL;
          g_autofree char *report = NULL, *key = ef_cuda_mri_tune_key (dim, nv, q);
          guint shape = 0;

          if (!json && ef_cli_stderr_is_tty ())
            fprintf (stderr, "Timing the MRI sum shapes for %s on CUDA device %d…\n", key, device);
          if (!ef_cuda_mri_tune (device, dim, nv, q, &shape, &report, &error))
            {
              g_prefix_error (&error, "CUDA device %d, MRI %s: ", device, key);
              return ef_cli_report ("tune", error);
            }
          if (json)
            json_tuned (&j, device, key, shape, ef_cuda_mri_shape_name (shape));
          else
            printf ("%s%s", i + dim + q > 2 ? "\n" : "", report);
        }
  if (json)
    json_close_results (&j);
  else
    printf ("\nStored in %s; the MRI sums on the same device model and class use it.\n", path);
  return EF_CLI_EXIT_OK;
}
#endif

#if HAVE_CUDA
/* Tunes the matched filter's class of edge and samples on every device; prints each timing table unless
 * json. */
static int
tune_mf_devices (GArray *devices, guint edge, guint samples, gboolean json)
{
  g_autofree char *path = ef_cuda_tune_cache_path ();
  g_autofree char *key = ef_cuda_mf_tune_key (edge, samples);
  EfCliJson j;

  if (json)
    {
      ef_cli_json_init (&j);
      ef_cli_json_begin_object (&j, NULL);
      ef_cli_json_int (&j, "edge", edge);
      ef_cli_json_int (&j, "samples", samples);
      ef_cli_json_string (&j, "class", key);
      ef_cli_json_string (&j, "cache", path);
      ef_cli_json_begin_array (&j, "results");
    }
  for (guint i = 0; i < devices->len; i++)
    {
      int device = g_array_index (devices, int, i);
      g_autoptr (GError) error = NULL;
      g_autofree char *report = NULL;
      guint shape = 0;

      if (!json && ef_cli_stderr_is_tty ())
        fprintf (stderr, "Timing %u matched-filter shapes for %s on CUDA device %d…\n", EF_CUDA_MF_N_SHAPES, key,
                 device);
      if (!ef_cuda_mf_tune (device, edge, samples, &shape, &report, &error))
        {
          g_prefix_error (&error, "CUDA device %d, matched filter %s: ", device, key);
          return ef_cli_report ("tune", error);
        }
      if (json)
        json_tuned (&j, device, NULL, shape, ef_cuda_mf_shape_name (shape));
      else
        printf ("%s%s", i > 0 ? "\n" : "", report);
    }
  if (json)
    json_close_results (&j);
  else
    printf ("\nStored in %s; the CUDA matched filter (--algo mf) on the same device model and class uses it.\n",
            path);
  return EF_CLI_EXIT_OK;
}
#endif

int
ef_cli_tune (int argc, char **argv)
{
  g_autofree char *voxels_s = NULL, *samples_s = NULL;
  g_autofree char *edge_s = NULL, *pulses_s = NULL, *bins_s = NULL, *precision_s = NULL, *device_s = NULL;
  g_autoptr (GOptionContext) context = NULL;
  g_autoptr (GArray) precisions = g_array_new (FALSE, FALSE, sizeof (EfPrecision));
  g_autoptr (GError) error = NULL;
  g_auto (GStrv) prec_names = NULL;
  guint edge = DEFAULT_EDGE, pulses = DEFAULT_PULSES, bins = DEFAULT_BINS, device = 0;
  guint voxels = DEFAULT_MRI_VOXELS, samples = DEFAULT_MF_SAMPLES;
  gboolean json = FALSE, all_devices = FALSE, mri = FALSE, mf = FALSE;
  const GOptionEntry entries[] = {
    { "edge", 0, 0, G_OPTION_ARG_STRING, &edge_s, "Image edge in pixels (default 4096)", "N" },
    { "pulses", 0, 0, G_OPTION_ARG_STRING, &pulses_s, "Pulses per timed launch (default 1024)", "N" },
    { "bins", 0, 0, G_OPTION_ARG_STRING, &bins_s, "Range bins per pulse, after upsampling (default 8192)", "N" },
    { "precision", 'p', 0, G_OPTION_ARG_STRING, &precision_s, "fp32, fp16 or both (the default: fp32,fp16)",
      "P,P" },
    { "device", 'd', 0, G_OPTION_ARG_STRING, &device_s, "CUDA device to tune, or all (default 0)", "N|all" },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, "Print the choices as JSON instead of the timing tables", NULL },
    { "mri", 0, 0, G_OPTION_ARG_NONE, &mri, "Tune the MRI sums (F^H d and Q, 2-D and 3-D) instead of backprojection",
      NULL },
    { "voxels", 0, 0, G_OPTION_ARG_STRING, &voxels_s, "With --mri: the image's voxel count (default 262144)", "N" },
    { "mf", 0, 0, G_OPTION_ARG_NONE, &mf, "Tune the exact matched filter (--algo mf) instead of backprojection", NULL },
    { "samples", 0, 0, G_OPTION_ARG_STRING, &samples_s, "With --mf: samples per pulse (default 1024; --edge's "
      "default is then 1024)", "N" },
    { NULL }
  };

  context = ef_cli_option_context_new ("tune", NULL, "Choose the fastest CUDA backprojection kernel shape.",
                                       "Times every kernel shape on a synthetic problem of the given class (the "
                                       "edge and the bins are rounded up to powers of two) and stores the fastest "
                                       "under the device's name in the user cache folder "
                                       "(echoform/cuda-tune.ini), where every later CUDA backend on the same "
                                       "device model looks it up. Takes a few seconds per device and precision. "
                                       "With --mri, the same for the MRI sums' launch shapes, which "
                                       "echoform-cli mri --backend cuda then runs and names. "
                                       "With --mf, the same for the matched filter's launch shapes, per image "
                                       "edge and samples per pulse (each rounded up to a power of two), which "
                                       "echoform-cli form --algo mf on CUDA then runs and records. "
                                       "Needs a build with CUDA and a CUDA device.", entries);
  if (!ef_cli_option_parse (context, "tune", &argc, &argv))
    return EF_CLI_EXIT_USAGE;
  if (argc > 1)
    return ef_cli_usage_error ("tune", "unexpected argument '%s'", argv[1]);

  /* Every argument is checked before anything asks for a device. */
  if ((edge_s != NULL && !ef_cli_parse_uint ("--edge", edge_s, 32, 65536, &edge, &error))
      || (pulses_s != NULL && !ef_cli_parse_uint ("--pulses", pulses_s, 1, 65536, &pulses, &error))
      || (bins_s != NULL && !ef_cli_parse_uint ("--bins", bins_s, 16, 1u << 22, &bins, &error))
      || (voxels_s != NULL && !ef_cli_parse_uint ("--voxels", voxels_s, 64, 1u << 26, &voxels, &error))
      || (samples_s != NULL && !ef_cli_parse_uint ("--samples", samples_s, 2, 1u << 22, &samples, &error)))
    return ef_cli_report ("tune", error);
  if (mf && mri)
    return ef_cli_usage_error ("tune", "--mf and --mri tune different kernels: give one");
  if (mf && edge_s == NULL)
    edge = DEFAULT_MF_EDGE;
  if (device_s != NULL)
    {
      if (g_ascii_strcasecmp (g_strstrip (device_s), "all") == 0)
        all_devices = TRUE;
      else if (!ef_cli_parse_uint ("--device", device_s, 0, 1023, &device, &error))
        return ef_cli_report ("tune", error);
    }
  prec_names = g_strsplit (precision_s != NULL ? precision_s : "fp32,fp16", ",", -1);
  for (guint i = 0; prec_names[i] != NULL; i++)
    {
      EfPrecision p;

      if (!ef_precision_from_string (g_strstrip (prec_names[i]), &p))
        return ef_cli_usage_error ("tune", "--precision: '%s' is not fp32 or fp16", prec_names[i]);
      if (p != EF_PRECISION_FP32 && p != EF_PRECISION_FP16)
        return ef_cli_usage_error ("tune", "--precision: the CUDA kernels run in fp32 or fp16, not %s",
                                   prec_names[i]);
      g_array_append_val (precisions, p);
    }
  if (precisions->len == 0)
    return ef_cli_usage_error ("tune", "--precision: no precision given");

#if HAVE_CUDA
  {
    g_autofree char *why = NULL;
    g_autoptr (GArray) devices = g_array_new (FALSE, FALSE, sizeof (int));
    guint n_dev;

    if (!ef_cuda_available (&why))
      {
        ef_cli_error ("tune: %s; there are no CUDA kernels to tune here", why);
        return EF_CLI_EXIT_FAILURE;
      }
    n_dev = ef_cuda_device_count ();
    if (!all_devices && device >= n_dev)
      {
        ef_cli_error ("tune: there is no CUDA device %u (%u found)", device, n_dev);
        return EF_CLI_EXIT_FAILURE;
      }
    for (guint d = all_devices ? 0 : device; d < (all_devices ? n_dev : device + 1); d++)
      {
        int v = (int) d;

        g_array_append_val (devices, v);
      }
    if (mri)
      return tune_mri_devices (devices, voxels, json);
    if (mf)
      return tune_mf_devices (devices, edge, samples, json);
    return tune_devices (devices, precisions, edge, pulses, bins, json);
  }
#else
  (void) json;
  (void) all_devices;
  (void) mri;
  (void) mf;
  ef_cli_error ("tune: this build has no CUDA support (built without nvcc); the CPU kernels need no tuning");
  return EF_CLI_EXIT_FAILURE;
#endif
}
