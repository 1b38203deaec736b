/* ef-stack-ps.c: PS selection over a whole stack, a strip at a time, on the CPU or an accelerator. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-stack-ps"
#include "config.h"

#include <math.h>
#include <string.h>

#include "ef-stack-ps.h"
#include "ef-arcs-accel.h"
#include "ef-error.h"

void
ef_stack_ps_report_clear (EfStackPsReport *report)
{
  g_clear_pointer (&report->backend, g_free);
  g_clear_pointer (&report->reason, g_free);
  report->device_s = report->elapsed_s = 0;
}

/* The accelerator's arcs of one strip, into net; FALSE with error when it fails. */
static gboolean
strip_on_accel (const EfArcsProvider *acc, EfArcsSession *session, EfPsNetwork *net, const EfArcPhasors *ph,
                const EfRect *rect, const EfRect *core, const EfArcModel *m, const EfPsParams *p, guint mapping,
                float *score, double *device_ms, GError **error)
{
  EfArcOffset off[EF_ARC_MAX_OFFSETS];
  gsize n_coh = (gsize) rect->width * rect->height * ef_arc_offsets (&p->window, off);
  g_autofree float *coh = g_try_new (float, n_coh);
  g_autofree guint16 *best = p->plain ? NULL : g_try_new (guint16, n_coh);
  double ms = 0;

  if (coh == NULL || (!p->plain && best == NULL))
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_MEMORY, "No memory for a strip's arcs");
      return FALSE;
    }
  if (!acc->session_run (session, ph, mapping, !p->plain, coh, best, &ms, error))
    return FALSE;
  *device_ms += ms;
  return ef_ps_network_add_arcs (net, ph, coh, best, rect, core, m, p, score, error);
}

EfPsNetwork *
ef_stack_ps_run (EfStack *stack, const EfPsParams *params, const EfStackPsOptions *options, float *score,
                 float *amp_db, GCancellable *cancel, EfStackPsReport *report, GError **error)
{
  g_autoptr (EfPsNetwork) net = NULL;
  g_autofree double *t = NULL, *b = NULL;
  g_autofree EfCf32 *region = NULL;
  const EfArcsProvider *acc = NULL;
  EfArcsSession *session = NULL;
  const EfGrid *grid;
  const EfStackGeometry *geo;
  EfArcModel m;
  guint n, strip, radius, n_mappings = 0;
  gsize region_bytes;
  double device_ms = 0;
  gint64 t0 = g_get_monotonic_time ();
  gboolean ok = TRUE;

  g_return_val_if_fail (stack != NULL && params != NULL && options != NULL && report != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  memset (report, 0, sizeof *report);
  report->backend = g_strdup ("cpu");
  if (!ef_arc_window_check (&params->window, error) || !ef_arc_grid_check (&params->grid, error))
    return NULL;
  grid = ef_stack_get_grid (stack);
  geo = ef_stack_get_geometry (stack);
  n = ef_stack_get_n_passes (stack);
  if (n < 2)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "The stack holds %u pass(es); arcs need at least two", n);
      return NULL;
    }
  t = g_new (double, n);
  b = g_new (double, n);
  for (guint k = 0; k < n; k++)
    {
      t[k] = ef_stack_get_t_years (stack, k);
      b[k] = ef_stack_get_bperp (stack, k);
    }
  m = (EfArcModel) { geo->wavelength, geo->range, geo->incidence_deg, n, t, b };
  radius = params->window.radius;
  strip = ef_stack_get_tile (stack);
  if (!g_size_checked_mul (&region_bytes, (gsize) grid->width * MIN (grid->height, strip + 2 * radius),
                           (gsize) n * sizeof (EfCf32))
      || (region = g_try_malloc (region_bytes)) == NULL)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_MEMORY,
                   "No memory for a strip of %u rows of %u passes", strip, n);
      return NULL;
    }

  if (options->backend != EF_BACKEND_CPU)
    {
      g_autoptr (GError) local = NULL;
      char *why = NULL;

      acc = ef_arcs_provider ();
      if (acc != NULL)
        while (acc->mappings != NULL && acc->mappings[n_mappings] != NULL)
          n_mappings++;
      if (acc == NULL)
        report->reason = g_strdup ("this build has no accelerator for arc coherence");
      else if (!acc->available (&why))
        report->reason = why;
      else if (params->plain && options->mapping >= n_mappings)
        report->reason = g_strdup_printf ("%s has no thread mapping %u", acc->name, options->mapping);
      if (report->reason == NULL && acc != NULL)
        {
          EfArcOffset off[EF_ARC_MAX_OFFSETS];
          guint n_off = ef_arc_offsets (&params->window, off);

          session = acc->session_new (grid->width, MIN (grid->height, strip + 2 * radius), n, off, n_off,
                                      params->plain ? NULL : &m, params->plain ? NULL : &params->grid, &local);
          if (session == NULL)
            report->reason = g_strdup (local->message);
          else
            {
              g_free (report->backend);
              report->backend = g_ascii_strdown (acc->name, -1);
            }
        }
    }

  net = ef_ps_network_new (grid->width, grid->height);
  for (guint y0 = 0; y0 < grid->height && ok; y0 += strip)
    {
      guint y1 = MIN (y0 + strip, grid->height);
      guint r0 = y0 >= radius ? y0 - radius : 0, r1 = MIN (y1 + radius, grid->height);
      EfRect rect = { 0, r0, grid->width, r1 - r0 };
      EfRect core = { 0, y0, grid->width, y1 - y0 };
      gsize plane = (gsize) rect.width * rect.height;
      gboolean done = FALSE;

      if (g_cancellable_set_error_if_cancelled (cancel, error) || !ef_stack_read_region (stack, &rect, 0, n, region,
                                                                                         error))
        {
          ok = FALSE;
          break;
        }
      /* Every tile of every pass stays mapped otherwise, beyond what a process may map. */
      ef_stack_unmap (stack);
      if (amp_db != NULL)
        for (guint r = y0; r < y1; r++)
          for (guint c = 0; c < grid->width; c++)
            {
              double sum = 0;

              for (guint k = 0; k < n; k++)
                sum += cabsf (region[k * plane + (gsize) (r - r0) * rect.width + c]);
              amp_db[(gsize) r * grid->width + c] = (float) (20 * log10 (sum / n + 1e-30));
            }
      if (session != NULL)
        {
          g_autoptr (EfArcPhasors) ph = ef_arc_phasors_new (region, rect.width, rect.height, n, error);
          g_autoptr (GError) local = NULL;

          if (ph == NULL)
            {
              ok = FALSE;
              break;
            }
          if (strip_on_accel (acc, session, net, ph, &rect, &core, &m, params, options->mapping, score, &device_ms,
                              &local))
            done = TRUE;
          else
            {
              /* The device failed (before any of the strip's arcs were added): the CPU takes this strip
               * and the rest, and the report says why. */
              report->reason = g_strdup_printf ("the %s device failed: %s", acc->name, local->message);
              g_message ("%s; the CPU takes over", report->reason);
              acc->session_free (session);
              session = NULL;
              g_free (report->backend);
              report->backend = g_strdup ("cpu");
            }
        }
      if (!done && !ef_ps_network_add_region (net, region, &rect, &core, &m, params, score, error))
        ok = FALSE;
    }
  if (session != NULL)
    acc->session_free (session);
  if (!ok || !ef_ps_network_solve (net, params, error))
    return NULL;
  report->device_s = device_ms / 1e3;
  report->elapsed_s = (g_get_monotonic_time () - t0) / 1e6;
  return g_steal_pointer (&net);
}
