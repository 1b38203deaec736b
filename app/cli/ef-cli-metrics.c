/* ef-cli-metrics.c: `echoform-cli metrics`: impulse-response and comparison measurements of an image. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-cli"
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ef-cli-private.h"
#include "ef-error.h"
#include "ef-image-io.h"
#include "ef-metrics.h"

#define DEFAULT_SEARCH_PX 8
#define DEFAULT_SSIM_RANGE_DB 50.0

typedef struct {
  double ser_db, psnr_db, ssim, correlation;
} Comparison;

/* The image and its grid. A plain array has no sidecar to give its pixel spacing: --spacing must, and
 * where a sidecar gives it, --spacing must agree. */
static EfImage *
read_image (const char *path, double spacing, GError **error)
{
  gboolean had_sidecar = FALSE;
  g_autoptr (JsonObject) extra = NULL;
  EfImage *image = ef_image_read_npy_full (path, spacing, &had_sidecar, &extra, error);

  if (image == NULL && error != NULL && *error != NULL && (*error)->domain == EF_IO_ERROR
      && (*error)->code == EF_IO_ERROR_NO_GRID)
    {
      g_autofree char *msg = g_strdup_printf ("%s; give --spacing M (metres per pixel) to measure it",
                                              (*error)->message);

      g_clear_error (error);
      g_set_error_literal (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, msg);
      return NULL;
    }
  if (image == NULL && error != NULL && *error != NULL && !strstr ((*error)->message, path))
    g_prefix_error (error, "%s: ", path);
  if (image != NULL && had_sidecar && spacing > 0 && fabs (image->grid.spacing - spacing) > 1e-9 * spacing)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                   "--spacing %g disagrees with %s's sidecar, which gives %.6g m", spacing, path, image->grid.spacing);
      ef_image_free (image);
      return NULL;
    }
  /* What the sidecar records of the run that formed it (a fallback, samples that were not finite, a
   * defocused PFA) bears on what is measured here. */
  if (image != NULL && extra != NULL && json_object_has_member (extra, "warnings")
      && JSON_NODE_HOLDS_ARRAY (json_object_get_member (extra, "warnings")))
    {
      JsonArray *w = json_object_get_array_member (extra, "warnings");

      for (guint i = 0; i < json_array_get_length (w); i++)
        {
          JsonNode *node = json_array_get_element (w, i);

          if (JSON_NODE_HOLDS_VALUE (node) && json_node_get_value_type (node) == G_TYPE_STRING)
            ef_cli_warning ("%s, as formed: %s", path, json_node_get_string (node));
        }
    }
  return image;
}

static guint64
count_nonfinite (const EfImage *image)
{
  gsize n = ef_grid_n_pixels (&image->grid);
  guint64 bad = 0;

  for (gsize i = 0; i < n; i++)
    bad += !(isfinite (crealf (image->data[i])) && isfinite (cimagf (image->data[i])));
  return bad;
}

/* The brightest finite pixel (the first when none is). */
static void
brightest_pixel (const EfImage *image, double *col, double *row)
{
  gsize n = ef_grid_n_pixels (&image->grid), best = 0;
  double best_p = -1.0;

  for (gsize i = 0; i < n; i++)
    {
      double re = crealf (image->data[i]), im = cimagf (image->data[i]);
      double pw = re * re + im * im;

      if (isfinite (pw) && pw > best_p)
        {
          best_p = pw;
          best = i;
        }
    }
  *col = (double) (best % image->grid.width);
  *row = (double) (best / image->grid.width);
}

static gboolean
write_cuts_csv (const EfPointResult *r, const char *path, GError **error)
{
  g_autoptr(GString) csv = g_string_new ("cut,offset_m,level_db\n");
  const EfCut *cuts[2] = { &r->range, &r->cross };
  const char *names[2] = { "range", "cross-range" };

  for (int c = 0; c < 2; c++)
    for (guint i = 0; i < cuts[c]->n; i++)
      {
        char a[G_ASCII_DTOSTR_BUF_SIZE], b[G_ASCII_DTOSTR_BUF_SIZE];

        g_string_append_printf (csv, "%s,%s,%s\n", names[c],
                                g_ascii_formatd (a, sizeof a, "%.9g", cuts[c]->offset_m[i]),
                                g_ascii_formatd (b, sizeof b, "%.6g", cuts[c]->level_db[i]));
      }
  if (!g_file_set_contents (path, csv->str, (gssize) csv->len, error))
    {
      if (!strstr ((*error)->message, path))
        g_prefix_error (error, "%s: ", path);
      return FALSE;
    }
  return TRUE;
}

static void
json_cut (EfCliJson *j, const char *key, const EfCut *cut)
{
  ef_cli_json_begin_object (j, key);
  ef_cli_json_double (j, "irw_m", cut->irw_m);
  ef_cli_json_double (j, "pslr_db", cut->pslr_db);
  ef_cli_json_double (j, "islr_db", cut->islr_db);
  ef_cli_json_end_object (j);
}

static void
print_json (const char *path, const EfImage *image, guint64 nonfinite, const double *asked, const EfPointResult *r,
            const char *ref_path, const Comparison *cmp)
{
  g_autofree char *text = NULL;
  EfCliJson j;

  ef_cli_json_init (&j);
  ef_cli_json_begin_object (&j, NULL);
  ef_cli_json_string (&j, "image", path);
  ef_cli_json_int (&j, "width", image->grid.width);
  ef_cli_json_int (&j, "height", image->grid.height);
  ef_cli_json_double (&j, "spacing_m", image->grid.spacing);
  ef_cli_json_int (&j, "nonfinite_pixels", (gint64) nonfinite);
  if (r != NULL)
    {
      ef_cli_json_begin_object (&j, "point");
      if (asked != NULL)
        {
          ef_cli_json_begin_array (&j, "requested_m");
          for (int i = 0; i < 3; i++)
            ef_cli_json_double (&j, NULL, asked[i]);
          ef_cli_json_end_array (&j);
        }
      ef_cli_json_begin_array (&j, "position_m");
      for (int i = 0; i < 3; i++)
        ef_cli_json_double (&j, NULL, r->position[i]);
      ef_cli_json_end_array (&j);
      ef_cli_json_begin_array (&j, "pixel");
      ef_cli_json_double (&j, NULL, r->col);
      ef_cli_json_double (&j, NULL, r->row);
      ef_cli_json_end_array (&j);
      if (asked != NULL)
        ef_cli_json_double (&j, "offset_m", hypot (hypot (r->position[0] - asked[0], r->position[1] - asked[1]),
                                                   r->position[2] - asked[2]));
      ef_cli_json_double (&j, "peak_db", r->peak_db);
      json_cut (&j, "range", &r->range);
      json_cut (&j, "cross_range", &r->cross);
      ef_cli_json_end_object (&j);
    }
  if (ref_path != NULL)
    {
      ef_cli_json_begin_object (&j, "reference");
      ef_cli_json_string (&j, "image", ref_path);
      ef_cli_json_double (&j, "ser_db", cmp->ser_db);
      ef_cli_json_double (&j, "psnr_db", cmp->psnr_db);
      ef_cli_json_double (&j, "ssim", cmp->ssim);
      ef_cli_json_double (&j, "correlation", cmp->correlation);
      ef_cli_json_end_object (&j);
    }
  ef_cli_json_end_object (&j);
  text = ef_cli_json_finish (&j);
  fputs (text, stdout);
}

static void
print_text (const char *path, const EfImage *image, guint64 nonfinite, const double *asked, const EfPointResult *r,
            const char *ref_path, const Comparison *cmp)
{
  printf ("Image:        %s (%u x %u pixels, %.4g m)\n", path, image->grid.width, image->grid.height,
          image->grid.spacing);
  if (nonfinite > 0)
    printf ("Non-finite:   %" G_GUINT64_FORMAT " pixels (NaN or infinite)\n", nonfinite);
  if (r != NULL)
    {
      if (asked != NULL)
        printf ("Requested:    %.4f, %.4f, %.4f m\n", asked[0], asked[1], asked[2]);
      else
        printf ("Requested:    the brightest pixel\n");
      printf ("Peak at:      %.4f, %.4f, %.4f m (pixel %.2f, %.2f)", r->position[0], r->position[1],
              r->position[2], r->col, r->row);
      if (asked != NULL)
        printf (", %.4f m from the request",
                hypot (hypot (r->position[0] - asked[0], r->position[1] - asked[1]), r->position[2] - asked[2]));
      printf ("\n");
      printf ("Peak level:   %.2f dB\n", r->peak_db);
      printf ("              %10s %10s %10s\n", "IRW (m)", "PSLR (dB)", "ISLR (dB)");
      printf ("Range:        %10.4f %10.2f %10.2f\n", r->range.irw_m, r->range.pslr_db, r->range.islr_db);
      printf ("Cross-range:  %10.4f %10.2f %10.2f\n", r->cross.irw_m, r->cross.pslr_db, r->cross.islr_db);
    }
  if (ref_path != NULL)
    {
      printf ("Reference:    %s\n", ref_path);
      printf ("SER:          %.2f dB\n", cmp->ser_db);
      printf ("PSNR:         %.2f dB\n", cmp->psnr_db);
      printf ("SSIM:         %.5f\n", cmp->ssim);
      printf ("Correlation:  %.6f\n", cmp->correlation);
    }
}

int
ef_cli_metrics (int argc, char **argv)
{
  g_autofree char *point_s = NULL, *search_s = NULL, *ref_path = NULL, *cuts_path = NULL, *range_s = NULL;
  g_autofree char *spacing_s = NULL;
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(EfImage) image = NULL;
  g_autoptr(EfImage) ref = NULL;
  g_autoptr(GError) error = NULL;
  gboolean json = FALSE, analyse;
  guint search = DEFAULT_SEARCH_PX, n_point = 0;
  double asked[3] = { 0, 0, 0 }, ssim_range = DEFAULT_SSIM_RANGE_DB, spacing = 0;
  guint64 nonfinite;
  EfPointResult result;
  Comparison cmp = { NAN, NAN, NAN, NAN };
  const char *path;
  int status = EF_CLI_EXIT_OK;
  const GOptionEntry entries[] = {
    { "point", 'p', 0, G_OPTION_ARG_STRING, &point_s, "Scene position of the point target to measure, metres; "
      "default: the brightest pixel", "X,Y[,Z]" },
    { "search", 0, 0, G_OPTION_ARG_STRING, &search_s, "Look for the peak this many pixels around the point "
      "(default 8)", "PX" },
    { "ref", 0, 0, G_OPTION_ARG_FILENAME, &ref_path, "Compare with a reference image of the same grid: SER, PSNR, "
      "SSIM, correlation", "REF.npy" },
    { "ssim-range", 0, 0, G_OPTION_ARG_STRING, &range_s, "Dynamic range for SSIM, dB (default 50)", "DB" },
    { "cuts", 0, 0, G_OPTION_ARG_FILENAME, &cuts_path, "Write both impulse-response cuts as CSV", "FILE.csv" },
    { "spacing", 0, 0, G_OPTION_ARG_STRING, &spacing_s, "Pixel spacing in metres of an image without its .json "
      "sidecar (one written by 'form' has it)", "M" },
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, "Print JSON instead of text", NULL },
    { NULL }
  };

  context = ef_cli_option_context_new ("metrics", "IMAGE.npy",
                                       "Measure an image formed by 'echoform-cli form ... -o IMAGE.npy'.",
                                       "With --point (or neither --point nor --ref), the point target's impulse "
                                       "response: -3 dB width (IRW), peak sidelobe ratio (PSLR) and integrated "
                                       "sidelobe ratio (ISLR) along range (the image's x axis) and cross-range.\n"
                                       "With --ref, the image is compared with the reference.", entries);
  if (!ef_cli_option_parse (context, "metrics", &argc, &argv))
    return EF_CLI_EXIT_USAGE;
  if (argc < 2)
    return ef_cli_usage_error ("metrics", "no image given");
  if (argc > 2)
    return ef_cli_usage_error ("metrics", "unexpected argument '%s'", argv[2]);
  path = argv[1];
  if ((point_s != NULL && !ef_cli_parse_doubles ("--point", point_s, 2, 3, asked, &n_point, &error))
      || (search_s != NULL && !ef_cli_parse_uint ("--search", search_s, 1, 4096, &search, &error))
      || (range_s != NULL && !ef_cli_parse_double ("--ssim-range", range_s, 1, 400, &ssim_range, &error))
      || (spacing_s != NULL && !ef_cli_parse_double ("--spacing", spacing_s, 1e-9, 1e6, &spacing, &error)))
    return ef_cli_report ("metrics", error);
  analyse = point_s != NULL || ref_path == NULL;
  if (cuts_path != NULL && !analyse)
    return ef_cli_usage_error ("metrics", "--cuts needs a point to measure; add --point X,Y");

  image = read_image (path, spacing, &error);
  if (image == NULL)
    return ef_cli_report ("metrics", error);
  /* An image that overflowed is not an empty one: say which it is before measuring anything. */
  nonfinite = count_nonfinite (image);
  if (nonfinite > 0)
    ef_cli_warning ("%s: %" G_GUINT64_FORMAT " of %zu pixels are not finite (NaN or infinite): the image "
                    "overflowed or its input was not finite", path, nonfinite, ef_grid_n_pixels (&image->grid));

  memset (&result, 0, sizeof result);
  if (analyse)
    {
      double col, row;

      if (point_s != NULL)
        {
          const EfGrid *g = &image->grid;

          ef_grid_position_to_pixel (g, asked, &col, &row);
          if (col < -(double) search || row < -(double) search || col > g->width - 1.0 + search
              || row > g->height - 1.0 + search)
            {
              double a[3], b[3];

              ef_grid_pixel_position (g, 0, 0, a);
              ef_grid_pixel_position (g, g->width - 1.0, g->height - 1.0, b);
              return ef_cli_usage_error ("metrics", "--point %s is outside the image, which covers x %.3f..%.3f, "
                                         "y %.3f..%.3f m", point_s, MIN (a[0], b[0]), MAX (a[0], b[0]),
                                         MIN (a[1], b[1]), MAX (a[1], b[1]));
            }
          col = CLAMP (col, 0.0, g->width - 1.0);
          row = CLAMP (row, 0.0, g->height - 1.0);
        }
      else
        brightest_pixel (image, &col, &row);

      if (!ef_point_analyse (image, col, row, search, NULL, &result, &error))
        {
          g_prefix_error (&error, "%s: ", path);
          return ef_cli_report ("metrics", error);
        }
    }

  if (ref_path != NULL)
    {
      gsize n;

      ref = read_image (ref_path, spacing, &error);
      if (ref == NULL)
        {
          status = ef_cli_report ("metrics", error);
          goto out;
        }
      if (ref->grid.width != image->grid.width || ref->grid.height != image->grid.height)
        {
          ef_cli_error ("metrics: %s is %u x %u pixels but %s is %u x %u; they must match", path,
                        image->grid.width, image->grid.height, ref_path, ref->grid.width, ref->grid.height);
          status = EF_CLI_EXIT_FAILURE;
          goto out;
        }
      if (fabs (ref->grid.spacing - image->grid.spacing) > 1e-9 * MAX (1.0, ref->grid.spacing)
          || fabs (ref->grid.origin[0] - image->grid.origin[0]) > 1e-6
          || fabs (ref->grid.origin[1] - image->grid.origin[1]) > 1e-6)
        ef_cli_warning ("%s and %s do not cover the same ground; comparing them pixel by pixel anyway", path,
                        ref_path);
      n = ef_grid_n_pixels (&image->grid);
      cmp.ser_db = ef_ser_db_f32 (image->data, ref->data, n);
      cmp.psnr_db = ef_psnr_db (image->data, ref->data, n);
      cmp.ssim = ef_ssim (image->data, ref->data, image->grid.width, image->grid.height, ssim_range);
      cmp.correlation = ef_magnitude_correlation (image->data, ref->data, n);
    }

  if (cuts_path != NULL && !write_cuts_csv (&result, cuts_path, &error))
    {
      status = ef_cli_report ("metrics", error);
      goto out;
    }

  if (json)
    print_json (path, image, nonfinite, point_s != NULL ? asked : NULL, analyse ? &result : NULL, ref_path, &cmp);
  else
    print_text (path, image, nonfinite, point_s != NULL ? asked : NULL, analyse ? &result : NULL, ref_path, &cmp);

out:
  ef_point_result_clear (&result);
  return status;
}
