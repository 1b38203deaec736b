/* ef-cli-focus.c: `form --autofocus` and `--phase-correction`: estimate or read per-pulse phase corrections. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-cli"
#include "config.h"

#include <math.h>
#include <stdio.h>

#include "ef-cli-focus.h"
#include "ef-cli-private.h"
#include "ef-focus.h"

gboolean
ef_cli_focus_apply (EfDataset **ds, const EfCliFocusArgs *args, const double roi[4], const EfJobParams *jp,
                    EfRunInfo *af, GError **error)
{
  g_autofree double *phase = NULL;
  g_autoptr (EfDataset) corrected = NULL;
  guint64 n = (*ds)->info.n_pulses;
  EfFocusMethod method = EF_FOCUS_NONE;

  if (args->method != NULL && !ef_focus_method_from_string (args->method, &method))
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "--autofocus: '%s' is not pga or sharpness",
                   args->method);
      return FALSE;
    }
  if (args->phase_in != NULL)
    {
      g_autofree char *file_method = NULL;

      if (!ef_phase_file_read (args->phase_in, n, &phase, NULL, &file_method, error))
        return FALSE;
      g_free (af->autofocus);
      af->autofocus = g_strdup ("file");
      af->autofocus_file = g_strdup (args->phase_in);
      g_debug ("%s: corrections by %s", args->phase_in, file_method != NULL ? file_method : "an unknown method");
    }
  if (method != EF_FOCUS_NONE)
    {
      g_auto (EfFocusResult) fr = { 0 };
      EfFocusParams fp;
      g_autofree char *note = NULL;
      gint64 t0 = g_get_monotonic_time ();

      ef_focus_params_init (&fp, method);
      fp.centre[0] = 0.5 * (roi[0] + roi[2]);
      fp.centre[1] = 0.5 * (roi[1] + roi[3]);
      fp.extent_m = MAX (fabs (roi[2] - roi[0]), fabs (roi[3] - roi[1]));
      fp.upsample = jp->backend.range.upsample;
      fp.n_threads = jp->backend.n_threads;
      fp.first_pulse = jp->first_pulse;
      fp.n_pulses = jp->n_pulses;
      fp.initial = phase;
      /* The estimate's images are formed where the image is: the same backend and devices. */
      fp.backend = jp->backend_kind;
      fp.device = jp->backend.device;
      fp.n_devices = jp->backend.n_devices;
      if (args->max_px > 0)
        fp.max_px = args->max_px;
      if (ef_cli_stderr_is_tty ())
        fprintf (stderr, "Autofocus (%s)…\n", args->method);
      if (!ef_focus_run (*ds, &fp, &fr, error))
        return FALSE;
      if (fr.backend_note != NULL)
        {
          /* Now rather than after the formation; the record's warning is the same line, said once. */
          g_autofree char *msg = g_strdup_printf ("autofocus estimated on %s: %s", fr.backend, fr.backend_note);

          ef_cli_warn_once (msg);
        }
      fprintf (stderr, "Autofocus %s on %s%s%s%s: %u iterations on %u x %u pixels at %.4g m (%.2f s: %"
               G_GUINT64_FORMAT " formations %.2f s, estimation %.2f s); entropy %.4f -> %.4f, sharpness %.4g -> "
               "%.4g\n", args->method, fr.backend, fr.sums_backend != NULL ? " (sums on " : "",
               fr.sums_backend != NULL ? fr.sums_backend : "", fr.sums_backend != NULL ? ")" : "", fr.iterations,
               fr.grid.width, fr.grid.height, fr.grid.spacing,
               (g_get_monotonic_time () - t0) * 1e-6, fr.n_formations, fr.form_s, fr.estimate_s, fr.entropy_before,
               fr.entropy_after, fr.sharpness_before, fr.sharpness_after);
      if (method == EF_FOCUS_SHARPNESS)
        g_debug ("sharpness blocks: %u pulses each, %" G_GUINT64_FORMAT " bytes, swept on %s", fr.block_pulses,
                 fr.memory_bytes, fr.sums_backend);
      g_free (phase);
      phase = g_steal_pointer (&fr.phase);
      g_free (af->autofocus);
      af->autofocus = g_strdup (args->method);
      af->autofocus_measured = TRUE;
      af->autofocus_entropy_before = fr.entropy_before;
      af->autofocus_entropy_after = fr.entropy_after;
      af->autofocus_sharpness_before = fr.sharpness_before;
      af->autofocus_sharpness_after = fr.sharpness_after;
      g_free (af->autofocus_backend);
      af->autofocus_backend = g_strdup (fr.backend);
      af->autofocus_n_devices = fr.n_devices;
      g_free (af->autofocus_backend_reason);
      af->autofocus_backend_reason = g_strdup (fr.backend_note);
      if (args->phase_out != NULL)
        {
          note = g_strdup_printf ("%s autofocus over %u x %u pixels at %.4g m about (%.3f, %.3f) m, %u iterations; "
                                  "pulse p's samples are multiplied by exp(-j phase_rad[p]) before range compression",
                                  args->method, fr.grid.width, fr.grid.height, fr.grid.spacing, fp.centre[0],
                                  fp.centre[1], fr.iterations);
          if (!ef_phase_file_write (args->phase_out, phase, n, args->method, note, error))
            return FALSE;
        }
    }
  if (phase == NULL)
    return TRUE;
  corrected = ef_dataset_new_phase_corrected (*ds, phase, n, error);
  if (corrected == NULL)
    return FALSE;
  ef_dataset_unref (*ds);
  *ds = g_steal_pointer (&corrected);
  return TRUE;
}

void
ef_cli_focus_record (EfRunInfo *run, EfRunInfo *af)
{
  g_free (run->autofocus);
  g_free (run->autofocus_file);
  run->autofocus = g_steal_pointer (&af->autofocus);
  run->autofocus_file = g_steal_pointer (&af->autofocus_file);
  run->autofocus_measured = af->autofocus_measured;
  run->autofocus_entropy_before = af->autofocus_entropy_before;
  run->autofocus_entropy_after = af->autofocus_entropy_after;
  run->autofocus_sharpness_before = af->autofocus_sharpness_before;
  run->autofocus_sharpness_after = af->autofocus_sharpness_after;
  g_free (run->autofocus_backend);
  g_free (run->autofocus_backend_reason);
  run->autofocus_backend = g_steal_pointer (&af->autofocus_backend);
  run->autofocus_n_devices = af->autofocus_n_devices;
  run->autofocus_backend_reason = g_steal_pointer (&af->autofocus_backend_reason);
}
