/* ef-run-info.c: the record of what an image formation actually ran. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-run-info"
#include "config.h"

#include <stdarg.h>
#include <string.h>

#include "ef-run-info.h"

void
ef_run_info_init (EfRunInfo *info, EfBackendKind backend, EfAlgo algo, EfPrecision precision)
{
  g_return_if_fail (info != NULL);

  memset (info, 0, sizeof *info);
  info->backend_requested = backend;
  info->algo_requested = algo;
  info->precision_requested = precision;
  info->algo = algo;
  info->precision = precision;
}

void
ef_run_info_clear (EfRunInfo *info)
{
  if (info == NULL)
    return;
  g_free (info->backend);
  g_free (info->backend_reason);
  g_free (info->algo_reason);
  g_free (info->precision_reason);
  g_free (info->pfa_note);
  g_free (info->az_window_reason);
  g_free (info->autofocus);
  g_free (info->autofocus_file);
  g_free (info->autofocus_backend);
  g_free (info->autofocus_backend_reason);
  g_free (info->kernel_shape_name);
  g_free (info->kernel_note);
  memset (info, 0, sizeof *info);
}

void
ef_run_info_copy (const EfRunInfo *src, EfRunInfo *dst)
{
  g_return_if_fail (src != NULL && dst != NULL);

  if (src == dst)
    return;
  ef_run_info_clear (dst);
  *dst = *src;
  dst->backend = g_strdup (src->backend);
  dst->backend_reason = g_strdup (src->backend_reason);
  dst->algo_reason = g_strdup (src->algo_reason);
  dst->precision_reason = g_strdup (src->precision_reason);
  dst->pfa_note = g_strdup (src->pfa_note);
  dst->az_window_reason = g_strdup (src->az_window_reason);
  dst->autofocus = g_strdup (src->autofocus);
  dst->autofocus_file = g_strdup (src->autofocus_file);
  dst->autofocus_backend = g_strdup (src->autofocus_backend);
  dst->autofocus_backend_reason = g_strdup (src->autofocus_backend_reason);
  dst->kernel_shape_name = g_strdup (src->kernel_shape_name);
  dst->kernel_note = g_strdup (src->kernel_note);
}

void
ef_run_info_set_reason (char **slot, const char *format, ...)
{
  va_list args;

  g_return_if_fail (slot != NULL);
  g_free (*slot);
  *slot = NULL;
  if (format == NULL)
    return;
  va_start (args, format);
  *slot = g_strdup_vprintf (format, args);
  va_end (args);
}

void
ef_run_info_set_backend (EfRunInfo *info, const char *backend, guint n_devices, const char *reason)
{
  g_return_if_fail (info != NULL);

  g_free (info->backend);
  info->backend = g_strdup (backend);
  info->n_devices = n_devices;
  g_free (info->backend_reason);
  info->backend_reason = g_strdup (reason);
}

void
ef_run_info_set_precision (EfRunInfo *info, EfPrecision precision, const char *reason)
{
  g_return_if_fail (info != NULL);

  info->precision = precision;
  g_free (info->precision_reason);
  info->precision_reason = g_strdup (reason);
}

void
ef_run_info_set_kernel (EfRunInfo *info, guint shape, const char *name, gboolean tuned, const char *note)
{
  g_return_if_fail (info != NULL);

  info->kernel_shape = shape;
  g_free (info->kernel_shape_name);
  info->kernel_shape_name = g_strdup (name);
  info->kernel_tuned = tuned;
  g_free (info->kernel_note);
  info->kernel_note = g_strdup (note);
}

void
ef_run_info_set_weighting (EfRunInfo *info, EfWindow window, EfWindow az_requested, EfWindow az_applied,
                           const char *reason)
{
  g_return_if_fail (info != NULL);

  info->window = window;
  info->az_window_requested = az_requested;
  info->az_window = az_applied;
  g_free (info->az_window_reason);
  info->az_window_reason = az_applied != az_requested ? g_strdup (reason) : NULL;
}

/* algo and algo_reason from the block counts. */
static void
settle_algo (EfRunInfo *info)
{
  guint64 total = info->blocks_fast + info->blocks_bp;

  if (info->blocks_bp == 0)
    {
      info->algo = info->algo_requested;
      ef_run_info_set_reason (&info->algo_reason, NULL);
    }
  else if (info->blocks_fast == 0)
    {
      /* Not one block was factorised: the image is exact backprojection's, and says so. */
      info->algo = EF_ALGO_BP;
      if (total == 1)
        ef_run_info_set_reason (&info->algo_reason, "exact backprojection formed the image's one block: %s",
                                info->bp_why ? info->bp_why : "the factorised plan did not apply");
      else
        ef_run_info_set_reason (&info->algo_reason, "exact backprojection formed all %" G_GUINT64_FORMAT " blocks: %s",
                                total, info->bp_why ? info->bp_why : "the factorised plan did not apply");
    }
  else
    {
      info->algo = info->algo_requested;
      ef_run_info_set_reason (&info->algo_reason,
                              "exact backprojection formed %" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT " blocks: %s",
                              info->blocks_bp, total, info->bp_why ? info->bp_why : "the factorised plan did not apply");
    }
}

void
ef_run_info_add_block (EfRunInfo *info, gboolean exact, const char *why)
{
  g_return_if_fail (info != NULL);

  if (exact)
    {
      info->blocks_bp++;
      if (info->bp_why == NULL)
        info->bp_why = why;
    }
  else
    info->blocks_fast++;
  settle_algo (info);
}

void
ef_run_info_merge (EfRunInfo *info, const EfRunInfo *part)
{
  g_return_if_fail (info != NULL && part != NULL);

  info->blocks_fast += part->blocks_fast;
  info->blocks_bp += part->blocks_bp;
  if (info->bp_why == NULL)
    info->bp_why = part->bp_why;
  if (info->blocks_fast + info->blocks_bp > 0)
    settle_algo (info);
  info->nonfinite_samples += part->nonfinite_samples;
  if (part->pfa_checked && (!info->pfa_checked || part->pfa_qpe_rad > info->pfa_qpe_rad))
    ef_run_info_set_pfa (info, part->pfa_outside_dof, part->pfa_qpe_rad, part->pfa_qpe_limit_rad, part->pfa_note);
}

void
ef_run_info_reset_image (EfRunInfo *info)
{
  g_return_if_fail (info != NULL);

  info->blocks_fast = info->blocks_bp = 0;
  info->bp_why = NULL;
  if (info->algo_requested == EF_ALGO_FFBP || info->algo_requested == EF_ALGO_FBP)
    {
      info->algo = info->algo_requested;
      ef_run_info_set_reason (&info->algo_reason, NULL);
    }
  info->pixels_counted = FALSE;
  info->nonfinite_pixels = 0;
  info->pfa_checked = info->pfa_outside_dof = FALSE;
  info->pfa_qpe_rad = info->pfa_qpe_limit_rad = 0;
  g_clear_pointer (&info->pfa_note, g_free);
}

void
ef_run_info_set_pfa (EfRunInfo *info, gboolean outside, double qpe_rad, double limit_rad, const char *note)
{
  g_return_if_fail (info != NULL);

  info->pfa_checked = TRUE;
  info->pfa_outside_dof = outside;
  info->pfa_qpe_rad = qpe_rad;
  info->pfa_qpe_limit_rad = limit_rad;
  g_free (info->pfa_note);
  info->pfa_note = outside && note != NULL && note[0] != '\0' ? g_strdup (note) : NULL;
}

char **
ef_run_info_warnings (const EfRunInfo *info)
{
  g_autoptr (GPtrArray) w = g_ptr_array_new_with_free_func (g_free);

  g_return_val_if_fail (info != NULL, NULL);

  if (info->backend_reason != NULL)
    g_ptr_array_add (w, g_strdup_printf ("backend %s (asked: %s): %s", info->backend ? info->backend : "none",
                                         ef_backend_kind_to_string (info->backend_requested), info->backend_reason));
  if (info->precision_reason != NULL)
    g_ptr_array_add (w, g_strdup_printf ("precision %s (asked: %s): %s", ef_precision_to_string (info->precision),
                                         ef_precision_to_string (info->precision_requested), info->precision_reason));
  if (info->algo_reason != NULL)
    g_ptr_array_add (w, g_strdup_printf ("algorithm %s (asked: %s): %s", ef_algo_to_string (info->algo),
                                         ef_algo_to_string (info->algo_requested), info->algo_reason));
  if (info->az_window != info->az_window_requested)
    g_ptr_array_add (w, g_strdup_printf ("cross-range window %s (asked: %s): %s", ef_window_to_string (info->az_window),
                                         ef_window_to_string (info->az_window_requested),
                                         info->az_window_reason ? info->az_window_reason : "not applied"));
  if (info->nonfinite_samples > 0)
    g_ptr_array_add (w, g_strdup_printf ("%" G_GUINT64_FORMAT " input sample%s %s not finite (NaN or infinite) and "
                                         "%s taken as zero", info->nonfinite_samples,
                                         info->nonfinite_samples == 1 ? "" : "s",
                                         info->nonfinite_samples == 1 ? "was" : "were",
                                         info->nonfinite_samples == 1 ? "was" : "were"));
  if (info->pixels_counted && info->nonfinite_pixels > 0)
    g_ptr_array_add (w, g_strdup_printf ("%" G_GUINT64_FORMAT " pixel%s of the image %s not finite: a value overflowed "
                                         "%s precision (inputs near its largest value?)", info->nonfinite_pixels,
                                         info->nonfinite_pixels == 1 ? "" : "s",
                                         info->nonfinite_pixels == 1 ? "is" : "are",
                                         info->precision == EF_PRECISION_FP64 ? "the image's single" : "the working"));
  if (info->autofocus_backend_reason != NULL)
    g_ptr_array_add (w, g_strdup_printf ("autofocus estimated on %s: %s",
                                         info->autofocus_backend ? info->autofocus_backend : "none",
                                         info->autofocus_backend_reason));
  if (info->pfa_outside_dof)
    g_ptr_array_add (w, g_strdup (info->pfa_note != NULL ? info->pfa_note
                                                         : "the region reaches past the polar format depth of focus"));
  g_ptr_array_add (w, NULL);
  return (char **) g_ptr_array_free (g_steal_pointer (&w), FALSE);
}

gboolean
ef_run_info_has_news (const EfRunInfo *info)
{
  g_auto (GStrv) w = ef_run_info_warnings (info);

  return w != NULL && w[0] != NULL;
}

char *
ef_run_info_describe (const EfRunInfo *info)
{
  GString *s;

  g_return_val_if_fail (info != NULL, NULL);

  s = g_string_new (info->backend != NULL ? info->backend : ef_backend_kind_to_string (info->backend_requested));
  if (info->n_devices > 1)
    g_string_append_printf (s, " ×%u", info->n_devices);
  g_string_append_printf (s, " %s %s", ef_precision_to_string (info->precision), ef_algo_to_string (info->algo));
  if (info->blocks_fast > 0 && info->blocks_bp > 0)
    g_string_append_printf (s, " (%" G_GUINT64_FORMAT " of %" G_GUINT64_FORMAT " blocks by exact bp)", info->blocks_bp,
                            info->blocks_fast + info->blocks_bp);
  if (info->autofocus != NULL && info->autofocus_backend != NULL)
    g_string_append_printf (s, ", phase-corrected (%s, estimated on %s)", info->autofocus, info->autofocus_backend);
  else if (info->autofocus != NULL)
    g_string_append_printf (s, ", phase-corrected (%s)", info->autofocus);
  return g_string_free (s, FALSE);
}
