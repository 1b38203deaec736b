/* ef-stack-ps.c: PS selection over a whole stack, a strip at a time, on the CPU or an accelerator's devices. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-stack-ps"
#include "config.h"

#include <math.h>
#include <string.h>

#include "ef-stack-ps.h"
#include "ef-arcs-accel.h"
#include "ef-error.h"

/* The devices one run may open, at most. */
#define MAX_DEVICES 64

void
ef_stack_ps_report_clear (EfStackPsReport *report)
{
  g_clear_pointer (&report->backend, g_free);
  g_clear_pointer (&report->reason, g_free);
  g_clear_pointer (&report->periodogram, g_free);
  g_clear_pointer (&report->periodogram_reason, g_free);
  g_clear_pointer (&report->devices_reason, g_free);
  report->n_devices = 0;
  report->device_s = report->elapsed_s = 0;
}

/* One run, shared by its readers: a reader a device (or one, on the CPU). */
typedef struct {
  EfStack              *stack;
  const EfPsParams     *params;
  const EfArcModel     *model;
  const EfArcsProvider *acc;
  guint                 mapping;
  EfPsNetwork          *net;
  float                *score, *amp_db;
  GCancellable         *cancel;
  guint                 strip, radius, n, width, height, n_strips;

  gint                  next;           /* atomic: the next strip to take */
  gint                  device_failed;  /* atomic: the CPU takes every strip not yet on a device */
  GMutex                read_lock;      /* a strip's read and the unmapping after it, one at a time */
  GMutex                lock;           /* guards what follows, and the network */
  GCond                 turn;
  guint                 added;          /* strips in the network: the next to add */
  gboolean              stop;           /* an error (in error) or cancellation: every reader leaves */
  GError               *error;
  char                 *reason;         /* the first device failure */
  double                device_ms;
  guint                 device_strips;
} Run;

typedef struct {
  Run           *run;
  EfArcsSession *session;   /* NULL: the CPU */
  EfCf32        *region;    /* owned */
} Reader;

/* The accelerator's arcs of one strip into coh and best; FALSE with error when it fails. */
static gboolean
strip_on_accel (Reader *w, const EfArcPhasors *ph, float **coh, guint16 **best, double *ms, GError **error)
{
  const Run *r = w->run;
  EfArcOffset off[EF_ARC_MAX_OFFSETS];
  gsize n_coh = (gsize) ph->width * ph->height * ef_arc_offsets (&r->params->window, off);

  *coh = g_try_new (float, n_coh);
  *best = r->params->plain ? NULL : g_try_new (guint16, n_coh);
  if (*coh == NULL || (!r->params->plain && *best == NULL))
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_MEMORY, "No memory for a strip's arcs");
      return FALSE;
    }
  return r->acc->session_run (w->session, ph, r->mapping, !r->params->plain, *coh, *best, ms, error);
}

static void
strip_amplitude (Run *r, const EfCf32 *region, const EfRect *rect, guint y0, guint y1)
{
  gsize plane = (gsize) rect->width * rect->height;

  for (guint row = y0; row < y1; row++)
    for (guint c = 0; c < r->width; c++)
      {
        double sum = 0;

        for (guint k = 0; k < r->n; k++)
          sum += cabsf (region[k * plane + (gsize) (row - rect->y) * rect->width + c]);
        r->amp_db[(gsize) row * r->width + c] = (float) (20 * log10 (sum / r->n + 1e-30));
      }
}

/* Takes strips until none is left: reads one, scores it on the device (or the CPU), and adds it to the
 * network when every strip before it is there. */
static gpointer
reader_main (gpointer data)
{
  Reader *w = data;
  Run *r = w->run;

  for (;;)
    {
      guint i = (guint) g_atomic_int_add (&r->next, 1);
      g_autoptr (GError) local = NULL;
      g_autoptr (EfArcPhasors) ph = NULL;
      g_autofree float *coh = NULL;
      g_autofree guint16 *best = NULL;
      guint y0, y1, r0, r1;
      EfRect rect, core;
      gboolean ok, on_device = FALSE, stop;
      double ms = 0;

      if (i >= r->n_strips)
        break;
      y0 = i * r->strip;
      y1 = MIN (y0 + r->strip, r->height);
      r0 = y0 >= r->radius ? y0 - r->radius : 0;
      r1 = MIN (y1 + r->radius, r->height);
      rect = (EfRect) { 0, r0, r->width, r1 - r0 };
      core = (EfRect) { 0, y0, r->width, y1 - y0 };

      /* ef_stack_unmap must not run while another thread reads a mapped tile. */
      g_mutex_lock (&r->read_lock);
      ok = !g_cancellable_set_error_if_cancelled (r->cancel, &local)
           && ef_stack_read_region (r->stack, &rect, 0, r->n, w->region, &local);
      /* Every tile of every pass stays mapped otherwise, beyond what a process may map. */
      ef_stack_unmap (r->stack);
      g_mutex_unlock (&r->read_lock);
      if (ok && r->amp_db != NULL)
        strip_amplitude (r, w->region, &rect, y0, y1);
      if (ok && w->session != NULL && !g_atomic_int_get (&r->device_failed))
        {
          ph = ef_arc_phasors_new (w->region, rect.width, rect.height, r->n, &local);
          ok = ph != NULL;
          if (ok && strip_on_accel (w, ph, &coh, &best, &ms, &local))
            on_device = TRUE;
          else if (ok)
            {
              /* The device failed (before any of the strip's arcs were added): the CPU takes this strip
               * and the rest, and the report says why. */
              g_mutex_lock (&r->lock);
              if (r->reason == NULL)
                r->reason = g_strdup_printf ("the %s device failed: %s", r->acc->name, local->message);
              g_mutex_unlock (&r->lock);
              g_message ("the %s device failed: %s; the CPU takes over", r->acc->name, local->message);
              g_atomic_int_set (&r->device_failed, TRUE);
              r->acc->session_free (w->session);
              w->session = NULL;
              g_clear_error (&local);
            }
        }

      /* In strip order, so that the network is the one a single reader builds. */
      g_mutex_lock (&r->lock);
      while (!r->stop && r->added != i)
        g_cond_wait (&r->turn, &r->lock);
      if (!r->stop && ok)
        ok = on_device ? ef_ps_network_add_arcs (r->net, ph, coh, best, &rect, &core, r->model, r->params, r->score,
                                                 &local)
                       : ef_ps_network_add_region (r->net, w->region, &rect, &core, r->model, r->params, r->score,
                                                   &local);
      if (!r->stop && !ok)
        {
          r->stop = TRUE;
          r->error = g_steal_pointer (&local);
        }
      if (on_device)
        {
          r->device_ms += ms;
          r->device_strips++;
        }
      r->added++;
      g_cond_broadcast (&r->turn);
      stop = r->stop;
      g_mutex_unlock (&r->lock);
      if (stop)
        break;
    }
  return NULL;
}

/* Opens the accelerator's sessions into readers (at most options->n_devices of them, 0: every device);
 * their number, or 0 with report->reason saying why the CPU runs. */
static guint
open_sessions (const EfArcsProvider *acc, EfStack *stack, const EfPsParams *params, const EfStackPsOptions *options,
               const EfArcModel *m, guint max_rows, Reader *readers, EfStackPsReport *report)
{
  EfArcOffset off[EF_ARC_MAX_OFFSETS];
  guint n_off = ef_arc_offsets (&params->window, off), n_mappings = 0, have, want, opened = 0;
  const EfGrid *grid = ef_stack_get_grid (stack);
  char *why = NULL;

  while (acc != NULL && acc->mappings != NULL && acc->mappings[n_mappings] != NULL)
    n_mappings++;
  if (acc == NULL)
    report->reason = g_strdup ("this build has no accelerator for arc coherence");
  else if (!acc->available (&why))
    report->reason = why;
  else if (params->plain && options->mapping >= n_mappings)
    report->reason = g_strdup_printf ("%s has no thread mapping %u", acc->name, options->mapping);
  if (report->reason != NULL)
    return 0;

  have = acc->n_devices != NULL ? MIN (acc->n_devices (), MAX_DEVICES) : 1;
  if (have == 0)
    {
      report->reason = g_strdup_printf ("%s counts no device", acc->name);
      return 0;
    }
  want = options->n_devices == 0 ? have : options->n_devices;
  if (want > have)
    report->devices_reason = g_strdup_printf ("%u device(s) asked for; %s has %u", want, acc->name, have);
  for (guint d = 0; d < MIN (want, have); d++)
    {
      g_autoptr (GError) local = NULL;
      EfArcsSession *s = acc->session_new (have > 1 ? (int) d : -1, grid->width, max_rows,
                                           ef_stack_get_n_passes (stack), off, n_off, params->plain ? NULL : m,
                                           params->plain ? NULL : &params->grid, &local);

      if (s == NULL && opened == 0)
        {
          report->reason = g_strdup (local->message);
          return 0;
        }
      if (s == NULL)
        {
          /* The devices opened so far share the strips. */
          g_free (report->devices_reason);
          report->devices_reason = g_strdup_printf ("device %u: %s", d, local->message);
          break;
        }
      readers[opened++].session = s;
    }
  return opened;
}

/* Tensor cores for the periodogram on every session, or on none (so that every strip is computed
 * alike), with the reason in report. */
static void
choose_periodogram (const EfArcsProvider *acc, Reader *readers, guint n_readers, EfStackPsReport *report)
{
  g_autoptr (GError) local = NULL;
  guint i;

  if (acc->session_set_periodogram == NULL)
    {
      report->periodogram_reason = g_strdup_printf ("%s has no tensor-core periodogram", acc->name);
      return;
    }
  for (i = 0; i < n_readers; i++)
    if (!acc->session_set_periodogram (readers[i].session, EF_ARCS_PG_TENSOR, &local))
      break;
  if (i == n_readers)
    return;
  report->periodogram_reason = g_strdup (local->message);
  for (guint j = 0; j < i; j++)
    acc->session_set_periodogram (readers[j].session, EF_ARCS_PG_FP32, NULL);
}

EfPsNetwork *
ef_stack_ps_run (EfStack *stack, const EfPsParams *params, const EfStackPsOptions *options, float *score,
                 float *amp_db, GCancellable *cancel, EfStackPsReport *report, GError **error)
{
  g_autoptr (EfPsNetwork) net = NULL;
  g_autofree double *t = NULL, *b = NULL;
  const EfArcsProvider *acc = NULL;
  Reader readers[MAX_DEVICES] = { { 0 } };
  GThread *threads[MAX_DEVICES] = { 0 };
  Run r = { 0 };
  const EfGrid *grid;
  const EfStackGeometry *geo;
  EfArcModel m;
  guint n, n_readers = 0, max_rows;
  gsize region_bytes;
  gint64 t0 = g_get_monotonic_time ();
  gboolean ok = TRUE, tensor = FALSE;

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
  r.stack = stack;
  r.params = params;
  r.model = &m;
  r.mapping = options->mapping;
  r.score = score;
  r.amp_db = amp_db;
  r.cancel = cancel;
  r.radius = params->window.radius;
  r.strip = ef_stack_get_tile (stack);
  r.n = n;
  r.width = grid->width;
  r.height = grid->height;
  r.n_strips = (grid->height + r.strip - 1) / r.strip;
  max_rows = MIN (grid->height, r.strip + 2 * r.radius);
  if (!g_size_checked_mul (&region_bytes, (gsize) grid->width * max_rows, (gsize) n * sizeof (EfCf32)))
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_MEMORY,
                   "No memory for a strip of %u rows of %u passes", r.strip, n);
      return NULL;
    }

  if (options->backend != EF_BACKEND_CPU)
    {
      acc = ef_arcs_provider ();
      n_readers = open_sessions (acc, stack, params, options, &m, max_rows, readers, report);
      if (n_readers > 0)
        {
          g_free (report->backend);
          report->backend = g_ascii_strdown (acc->name, -1);
          if (!params->plain && options->periodogram == EF_ARCS_PG_TENSOR)
            {
              choose_periodogram (acc, readers, n_readers, report);
              tensor = report->periodogram_reason == NULL;
            }
        }
    }
  report->n_devices = n_readers;
  r.acc = acc;
  n_readers = MAX (n_readers, 1);
  for (guint i = 0; i < n_readers && ok; i++)
    {
      readers[i].run = &r;
      if ((readers[i].region = g_try_malloc (region_bytes)) == NULL)
        ok = FALSE;
    }
  if (!ok)
    g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_MEMORY,
                 "No memory for a strip of %u rows of %u passes", r.strip, n);

  if (ok)
    {
      net = ef_ps_network_new (grid->width, grid->height);
      r.net = net;
      g_mutex_init (&r.read_lock);
      g_mutex_init (&r.lock);
      g_cond_init (&r.turn);
      /* One device reads on this thread, as a single reader always has. */
      for (guint i = 1; i < n_readers; i++)
        threads[i] = g_thread_new ("ef-stack-ps", reader_main, &readers[i]);
      reader_main (&readers[0]);
      for (guint i = 1; i < n_readers; i++)
        g_thread_join (threads[i]);
      g_cond_clear (&r.turn);
      g_mutex_clear (&r.lock);
      g_mutex_clear (&r.read_lock);
      if (r.error != NULL)
        {
          g_propagate_error (error, r.error);
          ok = FALSE;
        }
    }
  for (guint i = 0; i < n_readers; i++)
    {
      if (readers[i].session != NULL)
        acc->session_free (readers[i].session);
      g_free (readers[i].region);
    }

  if (r.reason != NULL)
    {
      g_free (report->reason);
      report->reason = g_steal_pointer (&r.reason);
      g_free (report->backend);
      report->backend = g_strdup ("cpu");
    }
  if (!params->plain)
    {
      if (tensor && r.device_strips < r.n_strips)
        report->periodogram = g_strdup_printf ("%s for %u of %u strips, then fp32 on the CPU", EF_ARCS_PG_TENSOR_LABEL,
                                               r.device_strips, r.n_strips);
      else
        report->periodogram = g_strdup (tensor ? EF_ARCS_PG_TENSOR_LABEL : "fp32");
      if (options->periodogram == EF_ARCS_PG_TENSOR && report->periodogram_reason == NULL && !tensor)
        report->periodogram_reason = g_strdup_printf ("tensor cores need an accelerator, and arc coherence ran on "
                                                      "the CPU%s%s", report->reason != NULL ? ": " : "",
                                                      report->reason != NULL ? report->reason : "");
    }
  if (!ok || !ef_ps_network_solve (net, params, error))
    return NULL;
  report->device_s = r.device_ms / 1e3;
  report->elapsed_s = (g_get_monotonic_time () - t0) / 1e6;
  return g_steal_pointer (&net);
}
