/* ef-run-info-json.c: the run record (ef-run-info.h) as JSON, for the sidecar and `form --json`. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-run-info"
#include "config.h"

#include "ef-json.h"
#include "ef-run-info-json.h"

void
ef_run_info_add_json (const EfRunInfo *info, JsonBuilder *b)
{
  g_auto (GStrv) warnings = NULL;

  g_return_if_fail (info != NULL && b != NULL);

  ef_json_set_string (b, "backend", info->backend);
  ef_json_set_string (b, "algo", ef_algo_to_string (info->algo));
  ef_json_set_string (b, "precision", ef_precision_to_string (info->precision));
  ef_json_set_string (b, "backend_requested", ef_backend_kind_to_string (info->backend_requested));
  ef_json_set_string (b, "algo_requested", ef_algo_to_string (info->algo_requested));
  ef_json_set_string (b, "precision_requested", ef_precision_to_string (info->precision_requested));
  ef_json_set_string (b, "backend_reason", info->backend_reason);
  ef_json_set_string (b, "algo_reason", info->algo_reason);
  ef_json_set_string (b, "precision_reason", info->precision_reason);
  ef_json_set_int (b, "devices", info->n_devices);
  ef_json_set_string (b, "azimuth_window", ef_window_to_string (info->az_window));
  ef_json_set_string (b, "azimuth_window_requested", ef_window_to_string (info->az_window_requested));
  ef_json_set_string (b, "azimuth_window_reason", info->az_window_reason);
  if (info->algo_requested == EF_ALGO_FFBP || info->algo_requested == EF_ALGO_FBP)
    {
      json_builder_set_member_name (b, "blocks");
      json_builder_begin_object (b);
      ef_json_set_int (b, ef_algo_to_string (info->algo_requested), (gint64) info->blocks_fast);
      ef_json_set_int (b, "bp", (gint64) info->blocks_bp);
      json_builder_end_object (b);
    }
  ef_json_set_int (b, "nonfinite_samples", (gint64) info->nonfinite_samples);
  json_builder_set_member_name (b, "nonfinite_pixels");
  if (info->pixels_counted)
    json_builder_add_int_value (b, (gint64) info->nonfinite_pixels);
  else
    json_builder_add_null_value (b);
  if (info->algo_requested == EF_ALGO_PFA)
    {
      json_builder_set_member_name (b, "pfa_depth_of_focus");
      if (info->pfa_checked)
        {
          json_builder_begin_object (b);
          ef_json_set_double (b, "qpe_rad", info->pfa_qpe_rad);
          ef_json_set_double (b, "limit_rad", info->pfa_qpe_limit_rad);
          ef_json_set_bool (b, "outside", info->pfa_outside_dof);
          ef_json_set_string (b, "note", info->pfa_note);
          json_builder_end_object (b);
        }
      else
        json_builder_add_null_value (b);
    }
  /* Only when a correction was applied: records of runs without one stay as they were. */
  if (info->autofocus != NULL)
    {
      json_builder_set_member_name (b, "autofocus");
      json_builder_begin_object (b);
      ef_json_set_string (b, "method", info->autofocus);
      ef_json_set_string (b, "file", info->autofocus_file);
      if (info->autofocus_measured)
        {
          ef_json_set_double (b, "entropy_before", info->autofocus_entropy_before);
          ef_json_set_double (b, "entropy_after", info->autofocus_entropy_after);
          ef_json_set_double (b, "sharpness_before", info->autofocus_sharpness_before);
          ef_json_set_double (b, "sharpness_after", info->autofocus_sharpness_after);
        }
      if (info->autofocus_backend != NULL)
        {
          ef_json_set_string (b, "backend", info->autofocus_backend);
          json_builder_set_member_name (b, "n_devices");
          json_builder_add_int_value (b, info->autofocus_n_devices);
          ef_json_set_string (b, "backend_reason", info->autofocus_backend_reason);
        }
      json_builder_end_object (b);
    }
  /* Only where a kernel shape was chosen: other records stay as they were. */
  if (info->kernel_shape > 0)
    {
      json_builder_set_member_name (b, "kernel");
      json_builder_begin_object (b);
      ef_json_set_int (b, "shape", info->kernel_shape);
      ef_json_set_string (b, "name", info->kernel_shape_name);
      ef_json_set_bool (b, "tuned", info->kernel_tuned);
      ef_json_set_string (b, "note", info->kernel_note);
      json_builder_end_object (b);
    }
  warnings = ef_run_info_warnings (info);
  json_builder_set_member_name (b, "warnings");
  json_builder_begin_array (b);
  for (guint i = 0; warnings[i] != NULL; i++)
    json_builder_add_string_value (b, warnings[i]);
  json_builder_end_array (b);
}

/* A Taylor window's shape as range compression takes it (ef_window_fill's defaults where none is given):
 * "<prefix>taylor_sll_db" and "<prefix>taylor_nbar"; nothing for the other windows, which have none. */
static void
add_taylor_shape (JsonBuilder *b, const char *prefix, EfWindow window, guint nbar, double sll_db)
{
  g_autofree char *sll_name = g_strconcat (prefix, "taylor_sll_db", NULL);
  g_autofree char *nbar_name = g_strconcat (prefix, "taylor_nbar", NULL);

  if (window != EF_WINDOW_TAYLOR)
    return;
  ef_json_set_double (b, sll_name, sll_db < 0 ? sll_db : -35.0);
  ef_json_set_int (b, nbar_name, nbar ? MIN (nbar, 63u) : 4);
}

JsonObject *
ef_run_info_sidecar_extra (const EfRunInfo *info, const char *input, const EfJobParams *params, guint64 pulses,
                           double elapsed_s, double bp_per_s)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  g_autoptr (JsonNode) root = NULL;

  g_return_val_if_fail (info != NULL && params != NULL, NULL);

  json_builder_begin_object (b);
  ef_json_set_string (b, "input", input);
  ef_run_info_add_json (info, b);
  ef_json_set_string (b, "window", ef_window_to_string (params->backend.range.window));
  add_taylor_shape (b, "", params->backend.range.window, params->backend.range.taylor_nbar,
                    params->backend.range.taylor_sll_db);
  add_taylor_shape (b, "azimuth_", params->backend.range.az_window, params->backend.range.az_taylor_nbar,
                    params->backend.range.az_taylor_sll_db);
  ef_json_set_int (b, "upsample", params->backend.range.upsample);
  ef_json_set_int (b, "block", params->backend.block_size);
  ef_json_set_string (b, "order", ef_order_to_string (params->order));
  ef_json_set_int (b, "pulses", (gint64) pulses);
  ef_json_set_double (b, "elapsed_s", elapsed_s);
  ef_json_set_double (b, "bp_per_s", bp_per_s);
  json_builder_end_object (b);
  root = json_builder_get_root (b);
  return json_object_ref (json_node_get_object (root));
}
