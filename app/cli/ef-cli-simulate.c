/* ef-cli-simulate.c: `echoform-cli simulate` and the scene descriptions it shares with form and info. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-cli"
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ef-cli-private.h"
#include "ef-cphd.h"
#include "ef-error.h"

#define SCENE_GROUP "simulate"

/* Bitmaps beyond this are not pictures of a scene but mistakes. */
#define PGM_MAX_EDGE 16384
#define PGM_MAX_BYTES ((gsize) 512 << 20)

typedef struct {
  const char *key;          /* key file key and long flag name */
  const char *description;
  const char *arg;
} SceneKeyInfo;

static const SceneKeyInfo scene_keys[EF_CLI_SCENE_N_KEYS] = {
  [EF_CLI_SCENE_SCENE] = { "scene", "What the scene holds: points (five point targets; the default), demo (a "
                           "picture and four bright points) or bitmap:FILE.pgm (a greyscale picture)", "KIND" },
  [EF_CLI_SCENE_GEOMETRY] = { "geometry", "airborne (circular spotlight at 10 km; the default), spaceborne "
                              "(700 km) or stripmap (airborne, straight track)", "GEOMETRY" },
  [EF_CLI_SCENE_DOMAIN] = { "domain", "fx (dechirped samples; the default) or raw (chirp echoes, which CPHD "
                            "cannot hold: see below)", "DOMAIN" },
  [EF_CLI_SCENE_PULSES] = { "pulses", "Number of pulses", "N" },
  [EF_CLI_SCENE_SAMPLES] = { "samples", "Samples per pulse", "N" },
  [EF_CLI_SCENE_FC] = { "fc", "Centre frequency, Hz", "HZ" },
  [EF_CLI_SCENE_BANDWIDTH] = { "bandwidth", "Bandwidth, Hz", "HZ" },
  [EF_CLI_SCENE_STANDOFF] = { "standoff", "Slant range from the aperture centre to the scene centre, m", "M" },
  [EF_CLI_SCENE_GRAZING] = { "grazing", "Grazing angle at the scene centre, degrees", "DEG" },
  [EF_CLI_SCENE_APERTURE] = { "aperture", "Azimuth angle the aperture sweeps, degrees", "DEG" },
  [EF_CLI_SCENE_SNR] = { "snr", "Signal-to-noise ratio of a unit target per sample, dB (inf: no noise; the "
                         "default)", "DB" },
  [EF_CLI_SCENE_PHASE_ERROR] = { "phase-error", "RMS of a smooth per-pulse phase error to inject, radians",
                                 "RAD" },
  [EF_CLI_SCENE_SEED] = { "seed", "Seed for noise, target phases and errors", "N" },
  [EF_CLI_SCENE_TARGETS] = { "targets", "Point targets \"x,y,z[,amplitude];...\" in metres, scene frame (x "
                             "east, y north, z up, origin at the scene centre). Alone they replace the "
                             "default points; with --scene they are added", "LIST" },
  [EF_CLI_SCENE_SPEED] = { "speed", "Platform speed, m/s", "M/S" },
  [EF_CLI_SCENE_PRF] = { "prf", "Pulse repetition frequency, Hz: with the speed it spaces the pulses, so that "
                         "the aperture follows from the pulses (or the pulses from --aperture)", "HZ" },
  [EF_CLI_SCENE_PULSE_LENGTH] = { "pulse-length", "Chirp duration, s (raw domain)", "S" },
  [EF_CLI_SCENE_SAMPLE_RATE] = { "sample-rate", "Fast-time sampling rate, Hz (raw domain; at least the "
                                 "bandwidth)", "HZ" },
  [EF_CLI_SCENE_SQUINT] = { "squint", "Stripmap squint: at mid-aperture the line of sight makes 90 - DEG "
                            "degrees with the track, looking ahead when positive", "DEG" },
};

const char ef_cli_scene_file_help[] =
  "Scene key files:\n"
  "  A scene can be described in a key file (FILE.ini) instead of flags. Its [simulate] group takes\n"
  "  the same names as the flags: scene, geometry, domain, pulses, samples, fc, bandwidth, standoff,\n"
  "  grazing, aperture, snr, phase-error, seed, targets, speed, prf, pulse-length, sample-rate,\n"
  "  squint. data/presets/ holds examples. For example:\n"
  "\n"
  "    [simulate]\n"
  "    geometry=airborne\n"
  "    domain=raw\n"
  "    pulses=256\n"
  "    samples=1024\n"
  "    targets=0,0,0;5,2,0\n"
  "\n"
  "  A bitmap:FILE.pgm path is read relative to the key file's folder.\n"
  "  CPHD holds FX (and TOA) data only, so RAW chirp echoes are never written to a file: write the\n"
  "  scene with 'simulate --domain raw -o scene.ini', then 'echoform-cli form scene.ini ...' simulates\n"
  "  it in memory and forms it. 'info scene.ini' works the same way.\n";

void
ef_cli_scene_spec_clear (EfCliSceneSpec *spec)
{
  for (guint i = 0; i < EF_CLI_SCENE_N_KEYS; i++)
    {
      g_clear_pointer (&spec->value[i], g_free);
      g_clear_pointer (&spec->origin[i], g_free);
    }
}

GOptionEntry *
ef_cli_scene_option_entries (EfCliSceneSpec *spec)
{
  GOptionEntry *entries = g_new0 (GOptionEntry, EF_CLI_SCENE_N_KEYS + 1);

  for (guint i = 0; i < EF_CLI_SCENE_N_KEYS; i++)
    {
      entries[i].long_name = scene_keys[i].key;
      entries[i].arg = G_OPTION_ARG_STRING;
      entries[i].arg_data = &spec->value[i];
      entries[i].description = scene_keys[i].description;
      entries[i].arg_description = scene_keys[i].arg;
    }
  return entries;
}

gboolean
ef_cli_scene_spec_load (EfCliSceneSpec *spec, const char *path, GError **error)
{
  g_autoptr(GKeyFile) kf = g_key_file_new ();
  g_auto(GStrv) keys = NULL;
  GError *local = NULL;

  if (!g_key_file_load_from_file (kf, path, G_KEY_FILE_NONE, &local))
    {
      /* A bad key file is a file problem (exit 1), never a usage problem. */
      g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_PARSE, "%s: %s", path, local->message);
      g_error_free (local);
      return FALSE;
    }
  if (!g_key_file_has_group (kf, SCENE_GROUP))
    {
      g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_GROUP_NOT_FOUND,
                   "%s: no [" SCENE_GROUP "] group; a scene key file describes the scene there", path);
      return FALSE;
    }
  keys = g_key_file_get_keys (kf, SCENE_GROUP, NULL, NULL);
  for (guint k = 0; keys != NULL && keys[k] != NULL; k++)
    {
      guint i;

      for (i = 0; i < EF_CLI_SCENE_N_KEYS; i++)
        if (strcmp (keys[k], scene_keys[i].key) == 0)
          break;
      if (i == EF_CLI_SCENE_N_KEYS)
        {
          g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_KEY_NOT_FOUND,
                       "%s: [" SCENE_GROUP "] has an unknown key '%s'", path, keys[k]);
          return FALSE;
        }
      /* A flag given on the command line wins over the file. */
      if (spec->value[i] != NULL)
        continue;
      spec->value[i] = g_key_file_get_string (kf, SCENE_GROUP, keys[k], &local);
      if (spec->value[i] == NULL)
        {
          g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE, "%s: %s: %s", path, keys[k],
                       local->message);
          g_error_free (local);
          return FALSE;
        }
      spec->origin[i] = g_strdup (path);
    }
  return TRUE;
}

gboolean
ef_cli_scene_spec_save (const EfCliSceneSpec *spec, const char *path, GError **error)
{
  g_autoptr(GKeyFile) kf = g_key_file_new ();

  for (guint i = 0; i < EF_CLI_SCENE_N_KEYS; i++)
    {
      if (spec->value[i] == NULL)
        continue;
      /* A bitmap named in another key file must still be found from this one's folder. */
      if (i == EF_CLI_SCENE_SCENE && g_str_has_prefix (spec->value[i], "bitmap:")
          && !g_path_is_absolute (spec->value[i] + 7))
        {
          g_autofree char *base = spec->origin[i] != NULL ? g_path_get_dirname (spec->origin[i])
                                                          : g_get_current_dir ();
          g_autofree char *file = g_canonicalize_filename (spec->value[i] + 7, base);
          g_autofree char *value = g_strconcat ("bitmap:", file, NULL);

          g_key_file_set_string (kf, SCENE_GROUP, scene_keys[i].key, value);
          continue;
        }
      g_key_file_set_string (kf, SCENE_GROUP, scene_keys[i].key, spec->value[i]);
    }
  if (!g_key_file_set_comment (kf, NULL, NULL,
                               " An Echoform scene. 'echoform-cli form THIS.ini' simulates it and forms it.", error))
    return FALSE;
  if (!g_key_file_save_to_file (kf, path, error))
    {
      g_prefix_error (error, "%s: ", path);
      return FALSE;
    }
  return TRUE;
}

/* An error about one scene value, naming the flag or the key file it came from. */
static void
spec_error (const EfCliSceneSpec *spec, EfCliSceneKey key, GError **error, const char *format, ...)
  G_GNUC_PRINTF (4, 5);

static void
spec_error (const EfCliSceneSpec *spec, EfCliSceneKey key, GError **error, const char *format, ...)
{
  g_autofree char *msg = NULL;
  va_list args;

  va_start (args, format);
  msg = g_strdup_vprintf (format, args);
  va_end (args);
  if (spec->origin[key] != NULL)
    g_set_error (error, G_KEY_FILE_ERROR, G_KEY_FILE_ERROR_INVALID_VALUE, "%s: %s: %s", spec->origin[key],
                 scene_keys[key].key, msg);
  else
    g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "--%s: %s", scene_keys[key].key, msg);
}

/* Parser failures come back as G_OPTION_ERROR naming `what`; re-home those from a key file. */
static gboolean
spec_fail (const EfCliSceneSpec *spec, EfCliSceneKey key, GError **error)
{
  if (error != NULL && *error != NULL && spec->origin[key] != NULL)
    {
      (*error)->domain = G_KEY_FILE_ERROR;
      (*error)->code = G_KEY_FILE_ERROR_INVALID_VALUE;
    }
  return FALSE;
}

static char *
spec_what (const EfCliSceneSpec *spec, EfCliSceneKey key)
{
  if (spec->origin[key] != NULL)
    return g_strdup_printf ("%s: %s", spec->origin[key], scene_keys[key].key);
  return g_strdup_printf ("--%s", scene_keys[key].key);
}

static gboolean
spec_double (const EfCliSceneSpec *spec, EfCliSceneKey key, double min, double max, double *out, GError **error)
{
  g_autofree char *what = NULL;

  if (spec->value[key] == NULL)
    return TRUE;
  what = spec_what (spec, key);
  if (!ef_cli_parse_double (what, spec->value[key], min, max, out, error))
    return spec_fail (spec, key, error);
  return TRUE;
}

static gboolean
spec_uint (const EfCliSceneSpec *spec, EfCliSceneKey key, guint min, guint max, guint *out, GError **error)
{
  g_autofree char *what = NULL;

  if (spec->value[key] == NULL)
    return TRUE;
  what = spec_what (spec, key);
  if (!ef_cli_parse_uint (what, spec->value[key], min, max, out, error))
    return spec_fail (spec, key, error);
  return TRUE;
}

/* Reads a binary (P5) or text (P2) greyscale PGM into pixels in 0..1, row 0 at the top. */
static float *
read_pgm (const char *path, guint *width, guint *height, GError **error)
{
  g_autofree char *contents = NULL;
  g_autofree float *pixels = NULL;
  gsize len, pos = 2;
  guint64 header[3];
  gboolean binary;
  gsize n;

  if (!g_file_get_contents (path, &contents, &len, error))
    return NULL;
  if (len < 2 || contents[0] != 'P' || (contents[1] != '5' && contents[1] != '2'))
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FORMAT, "%s is not a greyscale PGM picture (P2 or P5)", path);
      return NULL;
    }
  if (len > PGM_MAX_BYTES)
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA, "%s is too large for a scene picture", path);
      return NULL;
    }
  binary = contents[1] == '5';

  /* Width, height and maximum value, separated by blanks, with # comments to the end of a line. */
  for (guint h = 0; h < 3; h++)
    {
      guint64 v = 0;
      gboolean any = FALSE;

      for (;;)
        {
          while (pos < len && g_ascii_isspace (contents[pos]))
            pos++;
          if (pos < len && contents[pos] == '#')
            {
              while (pos < len && contents[pos] != '\n')
                pos++;
              continue;
            }
          break;
        }
      while (pos < len && g_ascii_isdigit (contents[pos]) && v < G_MAXUINT32)
        {
          v = v * 10 + (guint64) (contents[pos++] - '0');
          any = TRUE;
        }
      if (!any || (pos < len && !g_ascii_isspace (contents[pos])))
        {
          g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_FORMAT, "%s has a malformed PGM header", path);
          return NULL;
        }
      header[h] = v;
    }
  if (header[0] == 0 || header[1] == 0 || header[0] > PGM_MAX_EDGE || header[1] > PGM_MAX_EDGE
      || header[2] == 0 || header[2] > 65535)
    {
      g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_INVALID_DATA,
                   "%s claims %" G_GUINT64_FORMAT " x %" G_GUINT64_FORMAT " pixels with maximum %" G_GUINT64_FORMAT
                   "; Echoform takes up to %d x %d pixels and a maximum of 1..65535",
                   path, header[0], header[1], header[2], PGM_MAX_EDGE, PGM_MAX_EDGE);
      return NULL;
    }
  n = (gsize) header[0] * header[1];
  pixels = g_new (float, n);
  if (binary)
    {
      gsize bpp = header[2] > 255 ? 2 : 1;

      pos++;  /* exactly one blank after the maximum value */
      if (pos > len || len - pos < n * bpp)
        {
          g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_TRUNCATED, "%s is shorter than its PGM header says", path);
          return NULL;
        }
      for (gsize i = 0; i < n; i++)
        {
          const guchar *p = (const guchar *) contents + pos + i * bpp;
          guint v = bpp == 2 ? ((guint) p[0] << 8 | p[1]) : p[0];

          pixels[i] = (float) MIN (1.0, (double) v / (double) header[2]);
        }
    }
  else
    {
      for (gsize i = 0; i < n; i++)
        {
          guint64 v = 0;
          gboolean any = FALSE;

          while (pos < len && g_ascii_isspace (contents[pos]))
            pos++;
          while (pos < len && g_ascii_isdigit (contents[pos]) && v < G_MAXUINT32)
            {
              v = v * 10 + (guint64) (contents[pos++] - '0');
              any = TRUE;
            }
          if (!any)
            {
              g_set_error (error, EF_IO_ERROR, EF_IO_ERROR_TRUNCATED, "%s has fewer pixels than its PGM header says",
                           path);
              return NULL;
            }
          pixels[i] = (float) MIN (1.0, (double) v / (double) header[2]);
        }
    }
  *width = (guint) header[0];
  *height = (guint) header[1];
  return g_steal_pointer (&pixels);
}

static void
append_bitmap_targets (GArray *targets, const float *pixels, guint width, guint height, double spacing,
                       guint64 seed)
{
  g_autofree EfSimTarget *t = NULL;
  guint n = 0;

  t = ef_sim_targets_from_bitmap (pixels, width, height, spacing, 0.0, 0.0, 0.02f, seed, &n);
  if (t != NULL && n > 0)
    g_array_append_vals (targets, t, n);
}

/* Speed, PRF, chirp, sampling and squint. The PRF and the speed space the pulses, so that of the pulse
 * count, the aperture and the PRF two give the third. */
static gboolean
scene_timing (const EfCliSceneSpec *spec, EfSimParams *p, GError **error)
{
  double prf = 0, ground = p->standoff * cos (p->grazing_deg * G_PI / 180.0);

  if (!spec_double (spec, EF_CLI_SCENE_SPEED, 1e-3, 1e5, &p->speed, error)
      || !spec_double (spec, EF_CLI_SCENE_PRF, 1e-3, 1e7, &prf, error)
      || !spec_double (spec, EF_CLI_SCENE_PULSE_LENGTH, 1e-9, 1e-2, &p->chirp_duration, error)
      || !spec_double (spec, EF_CLI_SCENE_SAMPLE_RATE, 1e3, 1e12, &p->sample_rate, error)
      || !spec_double (spec, EF_CLI_SCENE_SQUINT, -79.9, 79.9, &p->squint_deg, error))
    return FALSE;
  if (p->squint_deg != 0 && p->geometry != EF_SIM_STRIPMAP)
    {
      spec_error (spec, EF_CLI_SCENE_SQUINT, error, "a circular spotlight always looks at the scene centre; "
                  "squint applies to the stripmap and spaceborne tracks");
      return FALSE;
    }
  if (spec->value[EF_CLI_SCENE_SAMPLE_RATE] != NULL && p->sample_rate < p->bandwidth)
    {
      spec_error (spec, EF_CLI_SCENE_SAMPLE_RATE, error, "a sampling rate of %g Hz cannot carry a %g Hz band",
                  p->sample_rate, p->bandwidth);
      return FALSE;
    }
  if (p->domain != EF_DOMAIN_RAW
      && (spec->value[EF_CLI_SCENE_PULSE_LENGTH] != NULL || spec->value[EF_CLI_SCENE_SAMPLE_RATE] != NULL))
    ef_cli_warning ("pulse-length and sample-rate describe chirp echoes (domain raw); dechirped FX samples "
                    "do not use them");
  if (prf > 0)
    {
      double step = p->speed / prf;  /* metres flown between pulses */
      double len;

      if (spec->value[EF_CLI_SCENE_PULSES] != NULL && spec->value[EF_CLI_SCENE_APERTURE] != NULL)
        {
          spec_error (spec, EF_CLI_SCENE_PRF, error, "with a PRF and a speed, give the pulses or the aperture, "
                      "not both: each follows from the other");
          return FALSE;
        }
      if (spec->value[EF_CLI_SCENE_APERTURE] != NULL)
        {
          double ap = p->aperture_deg * G_PI / 180.0;
          double n;

          len = p->geometry == EF_SIM_STRIPMAP ? 2.0 * p->standoff * tan (0.5 * ap) : ground * ap;
          n = floor (len / step + 0.5) + 1;
          if (!(n >= 2 && n <= (double) (1u << 24)))
            {
              spec_error (spec, EF_CLI_SCENE_PRF, error, "%.0f pulses would span the aperture at this PRF and "
                          "speed; a simulation takes 2 to %u", n, 1u << 24);
              return FALSE;
            }
          p->n_pulses = (guint) n;
        }
      len = (p->n_pulses > 1 ? p->n_pulses - 1 : 1) * step;
      if (p->geometry == EF_SIM_STRIPMAP)
        {
          p->aperture_len = len;
          p->aperture_deg = 2.0 * atan (0.5 * len / p->standoff) * 180.0 / G_PI;
        }
      else
        {
          p->aperture_deg = len / ground * 180.0 / G_PI;
          if (p->aperture_deg > 360)
            {
              spec_error (spec, EF_CLI_SCENE_PRF, error, "%u pulses at this PRF and speed fly %.0f m, more than "
                          "the whole circle", p->n_pulses, len);
              return FALSE;
            }
        }
    }
  return TRUE;
}

gboolean
ef_cli_scene_build (const EfCliSceneSpec *spec, EfSimParams *p, GArray **targets_out, GError **error)
{
  g_autoptr(GArray) targets = g_array_new (FALSE, TRUE, sizeof (EfSimTarget));
  const char *geometry = spec->value[EF_CLI_SCENE_GEOMETRY] != NULL ? spec->value[EF_CLI_SCENE_GEOMETRY]
                                                                    : "airborne";
  const char *domain = spec->value[EF_CLI_SCENE_DOMAIN];
  const char *scene = spec->value[EF_CLI_SCENE_SCENE];
  double res_r, res_x, scale, radius = 0;

  if (g_ascii_strcasecmp (geometry, "airborne") == 0)
    ef_sim_params_init_airborne (p);
  else if (g_ascii_strcasecmp (geometry, "spaceborne") == 0)
    ef_sim_params_init_spaceborne (p);
  else if (g_ascii_strcasecmp (geometry, "stripmap") == 0)
    {
      ef_sim_params_init_airborne (p);
      p->geometry = EF_SIM_STRIPMAP;
      p->aperture_len = 0;  /* follow the aperture angle */
    }
  else
    {
      spec_error (spec, EF_CLI_SCENE_GEOMETRY, error, "'%s' is not airborne, spaceborne or stripmap", geometry);
      return FALSE;
    }

  if (domain != NULL)
    {
      if (g_ascii_strcasecmp (domain, "fx") == 0)
        p->domain = EF_DOMAIN_FX;
      else if (g_ascii_strcasecmp (domain, "raw") == 0)
        p->domain = EF_DOMAIN_RAW;
      else
        {
          spec_error (spec, EF_CLI_SCENE_DOMAIN, error, "'%s' is not fx or raw", domain);
          return FALSE;
        }
    }

  if (!spec_uint (spec, EF_CLI_SCENE_PULSES, 1, 1u << 24, &p->n_pulses, error)
      || !spec_uint (spec, EF_CLI_SCENE_SAMPLES, 2, 1u << 24, &p->n_samples, error)
      || !spec_double (spec, EF_CLI_SCENE_FC, 1e6, 1e12, &p->fc, error)
      || !spec_double (spec, EF_CLI_SCENE_BANDWIDTH, 1e3, 1e12, &p->bandwidth, error)
      || !spec_double (spec, EF_CLI_SCENE_STANDOFF, 1.0, 1e9, &p->standoff, error)
      || !spec_double (spec, EF_CLI_SCENE_GRAZING, 0.01, 89.99, &p->grazing_deg, error)
      || !spec_double (spec, EF_CLI_SCENE_APERTURE, 1e-4, 180.0, &p->aperture_deg, error)
      || !spec_double (spec, EF_CLI_SCENE_PHASE_ERROR, 0.0, 1e3, &p->phase_error_rad, error))
    return FALSE;
  if (!scene_timing (spec, p, error))
    return FALSE;

  if (p->bandwidth >= 2.0 * p->fc)
    {
      spec_error (spec, spec->value[EF_CLI_SCENE_BANDWIDTH] != NULL ? EF_CLI_SCENE_BANDWIDTH : EF_CLI_SCENE_FC,
                  error, "a bandwidth of %g Hz does not fit below a centre frequency of %g Hz", p->bandwidth, p->fc);
      return FALSE;
    }
  if (p->domain == EF_DOMAIN_RAW)
    {
      /* The simulator's own choices when these are 0: a 5 us chirp sampled at 1.25 B. */
      double T = p->chirp_duration > 0 ? p->chirp_duration : 5e-6;
      double fs = p->sample_rate > 0 ? p->sample_rate : 1.25 * p->bandwidth;

      if (p->sample_rate > 0 && p->sample_rate < p->bandwidth)
        p->sample_rate = fs = 1.25 * p->bandwidth;
      /* Echoes last as long as the chirp: the FX sample count would not even hold one. Unless told
       * otherwise, take the whole chirp plus the same range swath that the FX default covers. */
      if (spec->value[EF_CLI_SCENE_SAMPLES] == NULL)
        {
          double n = ceil (T * fs) + p->n_samples;
          p->n_samples = (guint) MIN (ceil (n / 64.0) * 64.0, (double) (1u << 24));
        }
    }

  if (spec->value[EF_CLI_SCENE_SNR] != NULL)
    {
      const char *s = spec->value[EF_CLI_SCENE_SNR];

      if (g_ascii_strcasecmp (s, "inf") == 0 || g_ascii_strcasecmp (s, "none") == 0)
        p->snr_db = INFINITY;
      else if (!spec_double (spec, EF_CLI_SCENE_SNR, -200.0, 400.0, &p->snr_db, error))
        return FALSE;
    }
  if (spec->value[EF_CLI_SCENE_SEED] != NULL)
    {
      g_autofree char *what = spec_what (spec, EF_CLI_SCENE_SEED);

      if (!ef_cli_parse_uint64 (what, spec->value[EF_CLI_SCENE_SEED], &p->seed, error))
        return spec_fail (spec, EF_CLI_SCENE_SEED, error);
    }

  /* Scene sizes follow the resolution so that the defaults look right in any geometry. */
  res_r = EF_C / (2.0 * p->bandwidth);
  res_x = EF_C / p->fc / (2.0 * p->aperture_deg * G_PI / 180.0);
  scale = MAX (res_r, res_x);

  if (scene == NULL)
    scene = spec->value[EF_CLI_SCENE_TARGETS] != NULL ? "none" : "points";
  if (g_ascii_strcasecmp (scene, "points") == 0)
    {
      /* An asymmetric constellation, so that a flipped or mirrored image is obvious. */
      static const double layout[5][2] = { { 0, 0 }, { 1.0, 0.4 }, { -0.8, -0.6 }, { -0.3, 1.0 }, { 0.6, -1.0 } };
      double d = 12.0 * scale;

      for (guint i = 0; i < G_N_ELEMENTS (layout); i++)
        {
          EfSimTarget t = { { d * layout[i][0], d * layout[i][1], 0.0 }, 1.0 };
          g_array_append_val (targets, t);
        }
    }
  else if (g_ascii_strcasecmp (scene, "demo") == 0)
    {
      g_autofree float *pixels = NULL;
      guint w = 0, h = 0;

      pixels = ef_sim_demo_bitmap (&w, &h);
      if (pixels == NULL || w == 0 || h == 0)
        {
          spec_error (spec, EF_CLI_SCENE_SCENE, error, "the demo picture is not available");
          return FALSE;
        }
      append_bitmap_targets (targets, pixels, w, h, scale, p->seed);
      /* Four isolated bright points outside the picture, for impulse-response measurements. */
      for (int sx = -1; sx <= 1; sx += 2)
        for (int sy = -1; sy <= 1; sy += 2)
          {
            EfSimTarget t = { { sx * (0.5 * w * scale + 8 * scale), sy * (0.5 * h * scale + 8 * scale), 0.0 },
                              10.0 };
            g_array_append_val (targets, t);
          }
    }
  else if (g_ascii_strncasecmp (scene, "bitmap:", 7) == 0)
    {
      g_autofree float *pixels = NULL;
      g_autofree char *file = NULL;
      GError *local = NULL;
      guint w = 0, h = 0;

      if (scene[7] == '\0')
        {
          spec_error (spec, EF_CLI_SCENE_SCENE, error, "bitmap: needs a file name, as in bitmap:picture.pgm");
          return FALSE;
        }
      if (spec->origin[EF_CLI_SCENE_SCENE] != NULL && !g_path_is_absolute (scene + 7))
        {
          g_autofree char *dir = g_path_get_dirname (spec->origin[EF_CLI_SCENE_SCENE]);
          file = g_build_filename (dir, scene + 7, NULL);
        }
      else
        file = g_strdup (scene + 7);
      pixels = read_pgm (file, &w, &h, &local);
      if (pixels == NULL)
        {
          /* A picture that cannot be read is a file problem, whichever way it was named. */
          g_propagate_error (error, local);
          if (!strstr ((*error)->message, file))
            g_prefix_error (error, "%s: ", file);
          return FALSE;
        }
      append_bitmap_targets (targets, pixels, w, h, scale, p->seed);
    }
  else if (g_ascii_strcasecmp (scene, "none") != 0)
    {
      spec_error (spec, EF_CLI_SCENE_SCENE, error, "'%s' is not points, demo, bitmap:FILE.pgm or none", scene);
      return FALSE;
    }

  if (spec->value[EF_CLI_SCENE_TARGETS] != NULL)
    {
      g_autofree char *what = spec_what (spec, EF_CLI_SCENE_TARGETS);
      g_autoptr(GArray) extra = ef_cli_parse_targets (what, spec->value[EF_CLI_SCENE_TARGETS], error);

      if (extra == NULL)
        return spec_fail (spec, EF_CLI_SCENE_TARGETS, error);
      g_array_append_vals (targets, extra->data, extra->len);
    }
  if (targets->len == 0)
    {
      spec_error (spec, EF_CLI_SCENE_SCENE, error, "the scene has no targets");
      return FALSE;
    }

  /* Targets past the range window alias back into it; say so rather than let it puzzle anyone. */
  for (guint i = 0; i < targets->len; i++)
    {
      const EfSimTarget *t = &g_array_index (targets, EfSimTarget, i);
      radius = MAX (radius, sqrt (t->pos[0] * t->pos[0] + t->pos[1] * t->pos[1] + t->pos[2] * t->pos[2]));
    }
  if (p->domain == EF_DOMAIN_FX && radius * cos (p->grazing_deg * G_PI / 180.0) > 0.5 * p->n_samples * res_r)
    ef_cli_warning ("targets reach %.1f m from the scene centre, but %u samples of %.3g m span only ±%.1f m "
                    "of range: the outer ones will wrap around", radius, p->n_samples, res_r,
                    0.5 * p->n_samples * res_r);

  p->targets = (const EfSimTarget *) targets->data;
  p->n_targets = targets->len;
  *targets_out = g_steal_pointer (&targets);
  return TRUE;
}

EfDataset *
ef_cli_scene_simulate (const EfCliSceneSpec *spec, guint n_threads, GError **error)
{
  g_autoptr(GArray) targets = NULL;
  EfSimParams params;

  if (!ef_cli_scene_build (spec, &params, &targets, error))
    return NULL;
  params.n_threads = n_threads;
  return ef_sim_run (&params, error);
}

gboolean
ef_cli_is_scene_file (const char *path)
{
  g_autofree char *lower = g_ascii_strdown (path, -1);

  return g_str_has_suffix (lower, ".ini");
}

EfDataset *
ef_cli_open_input (const char *path, guint channel, guint n_threads, GError **error)
{
  EfDataset *ds;

  if (ef_cli_is_scene_file (path))
    {
      EfCliSceneSpec spec = { { NULL }, { NULL } };

      if (channel != 0)
        {
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                       "--channel: a simulated scene has one channel (0), not %u", channel);
          return NULL;
        }
      if (!ef_cli_scene_spec_load (&spec, path, error))
        {
          ef_cli_scene_spec_clear (&spec);
          return NULL;
        }
      ds = ef_cli_scene_simulate (&spec, n_threads, error);
      ef_cli_scene_spec_clear (&spec);
      if (ds == NULL)
        {
          if (!strstr ((*error)->message, path))
            g_prefix_error (error, "%s: ", path);
          return NULL;
        }
      if (ds->info.path == NULL)
        ds->info.path = g_strdup (path);
      return ds;
    }

  ds = ef_dataset_open (path, channel, error);
  /* Every message about a file names the file, whatever reader produced it. */
  if (ds == NULL && error != NULL && *error != NULL && !strstr ((*error)->message, path))
    g_prefix_error (error, "%s: ", path);
  return ds;
}

/* The simulate command. */

static const char simulate_description_head[] =
  "Output:\n"
  "  OUT.cphd  simulate and write CPHD 1.0.1 (FX domain only)\n"
  "  OUT.ini   write the scene description only, without simulating; 'form OUT.ini' simulates it\n"
  "\n";

int
ef_cli_simulate (int argc, char **argv)
{
  EfCliSceneSpec spec = { { NULL }, { NULL } };
  g_autofree GOptionEntry *scene_entries = ef_cli_scene_option_entries (&spec);
  g_autofree char *config = NULL;
  g_autofree char *output = NULL;
  g_autofree char *format = NULL;
  g_autofree char *threads_s = NULL;
  g_autofree char *description = NULL;
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GArray) targets = NULL;
  g_autoptr(EfDataset) ds = NULL;
  g_autoptr(GError) error = NULL;
  EfCphdWriteOptions wopts = { EF_CPHD_CF8, NULL, NULL };
  EfSimParams params;
  guint n_threads = 0;
  int status = EF_CLI_EXIT_OK;
  const GOptionEntry entries[] = {
    { "config", 'c', 0, G_OPTION_ARG_FILENAME, &config, "Read the scene from a key file; flags override it",
      "FILE.ini" },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, "Where to write: OUT.cphd, or OUT.ini for the scene only",
      "OUT" },
    { "format", 0, 0, G_OPTION_ARG_STRING, &format, "CPHD sample format: cf8 (the default), ci4 or ci2", "FMT" },
    { "threads", 't', 0, G_OPTION_ARG_STRING, &threads_s, "Simulation threads (0: all cores)", "N" },
    { NULL }
  };

  description = g_strconcat (simulate_description_head, ef_cli_scene_file_help, NULL);
  context = ef_cli_option_context_new ("simulate", "-o OUT.cphd",
                                       "Simulate a phase-history collection of a scene of point targets.",
                                       description, entries);
  g_option_context_add_main_entries (context, scene_entries, NULL);
  if (!ef_cli_option_parse (context, "simulate", &argc, &argv))
    {
      ef_cli_scene_spec_clear (&spec);
      return EF_CLI_EXIT_USAGE;
    }

  if (argc > 1)
    status = ef_cli_usage_error ("simulate", "unexpected argument '%s'", argv[1]);
  else if (output == NULL)
    status = ef_cli_usage_error ("simulate", "no output file; give -o OUT.cphd");
  else if (format != NULL && g_ascii_strcasecmp (format, "cf8") != 0 && g_ascii_strcasecmp (format, "ci4") != 0
           && g_ascii_strcasecmp (format, "ci2") != 0)
    status = ef_cli_usage_error ("simulate", "--format: '%s' is not cf8, ci4 or ci2", format);
  else if (threads_s != NULL && !ef_cli_parse_uint ("--threads", threads_s, 0, 4096, &n_threads, &error))
    status = ef_cli_report ("simulate", error);
  if (status != EF_CLI_EXIT_OK)
    goto out;
  if (format != NULL)
    wopts.format = g_ascii_strcasecmp (format, "ci4") == 0 ? EF_CPHD_CI4
                 : g_ascii_strcasecmp (format, "ci2") == 0 ? EF_CPHD_CI2 : EF_CPHD_CF8;

  if (config != NULL && !ef_cli_scene_spec_load (&spec, config, &error))
    {
      status = ef_cli_report ("simulate", error);
      goto out;
    }

  /* Check the whole description before writing anything, whatever the output. */
  if (!ef_cli_scene_build (&spec, &params, &targets, &error))
    {
      status = ef_cli_report ("simulate", error);
      goto out;
    }

  if (ef_cli_is_scene_file (output))
    {
      if (!ef_cli_scene_spec_save (&spec, output, &error))
        status = ef_cli_report ("simulate", error);
      else
        printf ("Wrote the scene description %s (%u target%s, %s, %s)\n", output, targets->len,
                targets->len == 1 ? "" : "s",
                ef_domain_to_string (params.domain),
                spec.value[EF_CLI_SCENE_GEOMETRY] != NULL ? spec.value[EF_CLI_SCENE_GEOMETRY] : "airborne");
      goto out;
    }

  if (params.domain == EF_DOMAIN_RAW)
    {
      status = ef_cli_usage_error ("simulate",
                                   "CPHD cannot hold RAW chirp echoes. Write the scene to a key file instead "
                                   "(-o scene.ini) and form it with 'echoform-cli form scene.ini'");
      goto out;
    }
  if (!g_str_has_suffix (output, ".cphd") && !g_str_has_suffix (output, ".CPHD"))
    ef_cli_warning ("%s does not end in .cphd; writing CPHD anyway", output);

  params.n_threads = n_threads;
  if (ef_cli_stderr_is_tty ())
    fprintf (stderr, "Simulating %u pulses x %u samples, %u targets…\n", params.n_pulses, params.n_samples,
             targets->len);
  ds = ef_sim_run (&params, &error);
  if (ds == NULL)
    {
      status = ef_cli_report ("simulate", error);
      goto out;
    }
  if (!ef_cphd_write (ds, output, &wopts, &error))
    {
      if (!strstr (error->message, output))
        g_prefix_error (&error, "%s: ", output);
      status = ef_cli_report ("simulate", error);
      goto out;
    }
  printf ("Wrote %s: %s, %" G_GUINT64_FORMAT " pulses x %" G_GUINT64_FORMAT " samples, %u target%s, "
          "range resolution %.4g m, cross-range resolution %.4g m\n",
          output, ef_domain_to_string (ds->info.domain), ds->info.n_pulses, ds->info.n_samples, targets->len,
          targets->len == 1 ? "" : "s",
          ef_dataset_range_resolution (ds), ef_dataset_crossrange_resolution (ds));

out:
  ef_cli_scene_spec_clear (&spec);
  return status;
}
