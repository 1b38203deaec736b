/* ef-cli-info.c: `echoform-cli info`: what a collection holds and what it can resolve. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-cli"
#include "config.h"

#include <math.h>
#include <stdio.h>

#include "ef-cli-private.h"
#include "ef-job-defaults.h"

typedef struct {
  double fx1, fx2;       /* processed band over all pulses, Hz */
  double t0, t1;         /* first and last transmit time, s */
  double range_res, crossrange_res, standoff, grazing_deg, aperture_deg;
  double ground_range_res;   /* range_res on the ground plane */
  EfJobDefaults bp, ffbp;    /* what form does without options, by exact BP and by FFBP/FBP */
} InfoSummary;

static void
summarise (EfDataset *ds, InfoSummary *s)
{
  s->fx1 = INFINITY;
  s->fx2 = -INFINITY;
  s->t0 = INFINITY;
  s->t1 = -INFINITY;
  for (guint64 p = 0; p < ds->info.n_pulses; p++)
    {
      const EfPulse *pu = &ds->pulses[p];

      s->fx1 = MIN (s->fx1, pu->fx1);
      s->fx2 = MAX (s->fx2, pu->fx2);
      s->t0 = MIN (s->t0, pu->t);
      s->t1 = MAX (s->t1, pu->t);
    }
  s->range_res = ef_dataset_range_resolution (ds);
  s->crossrange_res = ef_dataset_crossrange_resolution (ds);
  s->standoff = ef_dataset_mean_standoff (ds);
  s->grazing_deg = ef_dataset_mean_grazing (ds) * 180.0 / G_PI;
  s->aperture_deg = ef_dataset_aperture_angle (ds) * 180.0 / G_PI;
  ef_dataset_ground_resolution (ds, &s->ground_range_res, NULL);
  ef_job_defaults (ds, EF_ALGO_BP, &s->bp);
  ef_job_defaults (ds, EF_ALGO_FFBP, &s->ffbp);
}

static const char *
channel_name (const EfDatasetInfo *info, guint i, char *buf, gsize len)
{
  if (info->channel_names != NULL && i < g_strv_length (info->channel_names))
    return info->channel_names[i];
  g_snprintf (buf, len, "channel %u", i);
  return buf;
}

static void
print_json (EfDataset *ds, const InfoSummary *s)
{
  const EfDatasetInfo *info = &ds->info;
  g_autofree char *text = NULL;
  EfCliJson j;

  ef_cli_json_init (&j);
  ef_cli_json_begin_object (&j, NULL);
  ef_cli_json_string (&j, "path", info->path);
  ef_cli_json_string (&j, "source", info->source);
  ef_cli_json_string (&j, "domain", ef_domain_to_string (info->domain));
  ef_cli_json_int (&j, "pulses", (gint64) info->n_pulses);
  ef_cli_json_int (&j, "samples", (gint64) info->n_samples);
  ef_cli_json_double (&j, "fc_hz", info->fc);
  ef_cli_json_begin_array (&j, "band_hz");
  ef_cli_json_double (&j, NULL, s->fx1);
  ef_cli_json_double (&j, NULL, s->fx2);
  ef_cli_json_end_array (&j);
  ef_cli_json_double (&j, "bandwidth_hz", info->bandwidth);
  ef_cli_json_double (&j, "range_resolution_m", s->range_res);
  ef_cli_json_double (&j, "crossrange_resolution_m", s->crossrange_res);
  ef_cli_json_double (&j, "ground_range_resolution_m", s->ground_range_res);
  ef_cli_json_double (&j, "mean_standoff_m", s->standoff);
  ef_cli_json_double (&j, "mean_grazing_deg", s->grazing_deg);
  ef_cli_json_double (&j, "aperture_deg", s->aperture_deg);
  ef_cli_json_double (&j, "duration_s", s->t1 - s->t0);
  if (info->domain == EF_DOMAIN_RAW)
    {
      ef_cli_json_double (&j, "chirp_rate_hz_per_s", info->chirp_rate);
      ef_cli_json_double (&j, "chirp_duration_s", info->chirp_duration);
      ef_cli_json_double (&j, "sample_rate_hz", info->sample_rate);
    }
  ef_cli_json_begin_array (&j, "channels");
  for (guint i = 0; i < MAX (info->n_channels, 1u); i++)
    {
      char buf[32];

      ef_cli_json_begin_object (&j, NULL);
      ef_cli_json_int (&j, "index", i);
      ef_cli_json_string (&j, "name", channel_name (info, i, buf, sizeof buf));
      ef_cli_json_bool (&j, "selected", i == info->channel);
      ef_cli_json_end_object (&j);
    }
  ef_cli_json_end_array (&j);
  if (info->has_geo)
    {
      ef_cli_json_begin_object (&j, "geo");
      ef_cli_json_double (&j, "latitude_deg", info->srp_llh[0]);
      ef_cli_json_double (&j, "longitude_deg", info->srp_llh[1]);
      ef_cli_json_double (&j, "height_m", info->srp_llh[2]);
      ef_cli_json_begin_array (&j, "ecf_m");
      for (int i = 0; i < 3; i++)
        ef_cli_json_double (&j, NULL, info->srp_ecf[i]);
      ef_cli_json_end_array (&j);
      ef_cli_json_end_object (&j);
    }
  else
    ef_cli_json_null (&j, "geo");
  /* What form (and the desktop program) forms with when nothing is said. */
  ef_cli_json_begin_object (&j, "defaults");
  ef_cli_json_double (&j, "spacing_m", s->bp.spacing > 0 ? s->bp.spacing : NAN);
  ef_cli_json_begin_array (&j, "roi_m");
  for (int i = 0; i < 4; i++)
    ef_cli_json_double (&j, NULL, s->bp.spacing > 0 ? s->bp.roi[i] : NAN);
  ef_cli_json_end_array (&j);
  ef_cli_json_string (&j, "window", ef_window_to_string (s->bp.window));
  ef_cli_json_string (&j, "azimuth_window", ef_window_to_string (s->bp.az_window));
  ef_cli_json_string (&j, "order", ef_order_to_string (s->bp.order));
  ef_cli_json_int (&j, "upsample", s->bp.upsample);
  ef_cli_json_begin_object (&j, "block");
  for (EfAlgo a = EF_ALGO_BP; a <= EF_ALGO_PFA; a++)
    ef_cli_json_int (&j, ef_algo_to_string (a), ef_job_default_block_size (a));
  ef_cli_json_end_object (&j);
  ef_cli_json_end_object (&j);
  ef_cli_json_end_object (&j);
  text = ef_cli_json_finish (&j);
  fputs (text, stdout);
}

static void
print_text (EfDataset *ds, const InfoSummary *s)
{
  const EfDatasetInfo *info = &ds->info;

  printf ("File:                   %s\n", info->path != NULL ? info->path : "(memory)");
  printf ("Source:                 %s\n", info->source != NULL ? info->source : "unknown");
  printf ("Domain:                 %s\n", ef_domain_to_string (info->domain));
  printf ("Pulses:                 %" G_GUINT64_FORMAT "\n", info->n_pulses);
  printf ("Samples per pulse:      %" G_GUINT64_FORMAT "\n", info->n_samples);
  printf ("Centre frequency:       %.6g GHz\n", info->fc * 1e-9);
  printf ("Band:                   %.6g .. %.6g GHz\n", s->fx1 * 1e-9, s->fx2 * 1e-9);
  printf ("Bandwidth:              %.6g MHz\n", info->bandwidth * 1e-6);
  if (info->domain == EF_DOMAIN_RAW)
    {
      printf ("Chirp rate:             %.6g Hz/s\n", info->chirp_rate);
      printf ("Chirp duration:         %.6g us\n", info->chirp_duration * 1e6);
      printf ("Sample rate:            %.6g MHz\n", info->sample_rate * 1e-6);
    }
  printf ("Range resolution:       %.4g m\n", s->range_res);
  printf ("  on the ground plane:  %.4g m\n", s->ground_range_res);
  printf ("Cross-range resolution: %.4g m\n", s->crossrange_res);
  printf ("Mean standoff:          %.6g km\n", s->standoff * 1e-3);
  printf ("Mean grazing angle:     %.4g deg\n", s->grazing_deg);
  printf ("Aperture angle:         %.4g deg\n", s->aperture_deg);
  printf ("Duration:               %.4g s\n", s->t1 - s->t0);
  printf ("Channels:               %u\n", MAX (info->n_channels, 1u));
  for (guint i = 0; i < MAX (info->n_channels, 1u); i++)
    {
      char buf[32];

      printf ("  %c %u: %s\n", i == info->channel ? '*' : ' ', i, channel_name (info, i, buf, sizeof buf));
    }
  if (info->has_geo)
    printf ("Scene centre:           %.6f %c, %.6f %c, %.1f m above the WGS-84 ellipsoid\n",
            fabs (info->srp_llh[0]), info->srp_llh[0] < 0 ? 'S' : 'N', fabs (info->srp_llh[1]),
            info->srp_llh[1] < 0 ? 'W' : 'E', info->srp_llh[2]);
  else
    printf ("Scene centre:           not on the Earth (local frame only)\n");
  if (s->bp.spacing > 0)
    printf ("Default image:          %u x %u pixels at %.4g m about the scene centre, %s window (cross-range: "
            "%s), %s blocks of %u pulses (ffbp, fbp: %u), upsampling %u\n", EF_DEFAULT_ROI_PIXELS,
            EF_DEFAULT_ROI_PIXELS, s->bp.spacing, ef_window_to_string (s->bp.window),
            ef_window_to_string (s->bp.az_window), ef_order_to_string (s->bp.order), s->bp.block_size,
            s->ffbp.block_size, s->bp.upsample);
  else
    printf ("Default image:          none: the collection does not say its resolution\n");
}

int
ef_cli_info (int argc, char **argv)
{
  g_autofree char *channel_s = NULL;
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(EfDataset) ds = NULL;
  g_autoptr(GError) error = NULL;
  gboolean json = FALSE;
  guint channel = 0;
  InfoSummary s;
  const GOptionEntry entries[] = {
    { "channel", 0, 0, G_OPTION_ARG_STRING, &channel_s, "Channel to describe (0: the first)", "N" },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, "Print JSON instead of text", NULL },
    { NULL }
  };

  context = ef_cli_option_context_new ("info", "FILE",
                                       "Describe a phase-history collection (CPHD, Gotcha .mat file or folder, "
                                       "or a scene key file), or an ISMRMRD file of k-space samples (.h5, .mrd).",
                                       "The channel marked * is the one that form would read.", entries);
  if (!ef_cli_option_parse (context, "info", &argc, &argv))
    return EF_CLI_EXIT_USAGE;
  if (argc < 2)
    return ef_cli_usage_error ("info", "no file given");
  if (argc > 2)
    return ef_cli_usage_error ("info", "unexpected argument '%s'", argv[2]);
  if (channel_s != NULL && !ef_cli_parse_uint ("--channel", channel_s, 0, 65535, &channel, &error))
    return ef_cli_report ("info", error);

  if (ef_cli_info_is_ismrmrd (argv[1]))
    return ef_cli_info_ismrmrd (argv[1], json);
  ds = ef_cli_open_input (argv[1], channel, 0, &error);
  if (ds == NULL)
    return ef_cli_report ("info", error);

  summarise (ds, &s);
  if (json)
    print_json (ds, &s);
  else
    print_text (ds, &s);
  return EF_CLI_EXIT_OK;
}
