/* ef-backend.c: the registry of accelerator backends, and the dispatcher that chooses between them and
 * the CPU. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-backend"
#include "config.h"

#include "ef-backend.h"
#include "ef-mf.h"
#include "ef-error.h"

/* Few: one a kind of accelerator. Written by the registering libraries' constructors, before main. */
#define MAX_PROVIDERS 8

static const EfBackendProvider *providers[MAX_PROVIDERS];
static GMutex providers_lock;

void
ef_backend_register (const EfBackendProvider *provider)
{
  guint i;

  g_return_if_fail (provider != NULL && provider->name != NULL);
  g_return_if_fail (provider->available != NULL && provider->create != NULL);

  g_mutex_lock (&providers_lock);
  for (i = 0; i < MAX_PROVIDERS && providers[i] != NULL && providers[i]->kind != provider->kind; i++)
    ;
  if (i < MAX_PROVIDERS)
    providers[i] = provider;
  g_mutex_unlock (&providers_lock);
  if (i == MAX_PROVIDERS)
    g_critical ("No room to register the %s backend", provider->name);
}

const EfBackendProvider *
ef_backend_get_provider (EfBackendKind kind)
{
  const EfBackendProvider *found = NULL;

  g_mutex_lock (&providers_lock);
  for (guint i = 0; i < MAX_PROVIDERS && providers[i] != NULL && found == NULL; i++)
    if (providers[i]->kind == kind)
      found = providers[i];
  g_mutex_unlock (&providers_lock);
  return found;
}

double
ef_backend_processed_band (const EfBackend *self, const EfPulse *pulses)
{
  double band = self->info.bandwidth;

  if (!(band > 0))
    band = self->info.domain == EF_DOMAIN_FX ? pulses[0].fx2 - pulses[0].fx1 + pulses[0].scss
                                             : pulses[0].fx2 - pulses[0].fx1;
  return band;
}

EfBackend *
ef_backend_new (EfBackendKind kind, const EfDatasetInfo *info, const EfBackendParams *params, char **note,
                GError **error)
{
  g_autoptr (GError) local = NULL;
  g_autofree char *fallback = NULL;
  EfBackend *self;

  g_return_val_if_fail (info != NULL && params != NULL, NULL);
  if (note)
    *note = NULL;

  /* Data that no backend can form this way is the data's fault, not a device's: said as it is. */
  if (params->algo == EF_ALGO_MF && !ef_mf_check_info (info, error))
    return NULL;
  if (kind == EF_BACKEND_CUDA || kind == EF_BACKEND_AUTO)
    {
      const EfBackendProvider *provider = ef_backend_get_provider (EF_BACKEND_CUDA);
      g_autofree char *why = NULL;

      if (provider == NULL)
        why = g_strdup ("This build has no CUDA support");
      else if (provider->available (params, &why))
        {
          self = provider->create (info, params, &local);
          if (self != NULL)
            {
              self->run.backend_requested = kind;
              if (note && self->run.precision_reason != NULL)
                *note = g_strdup (self->run.precision_reason);
              return self;
            }
          why = g_strdup_printf ("%s failed: %s", provider->name, local->message);
        }
      if (why == NULL)
        why = g_strdup_printf ("No %s device", provider->name);
      /* Asked for CUDA by name: say why not rather than quietly running elsewhere. */
      if (kind == EF_BACKEND_CUDA)
        {
          g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_NO_DEVICE, "%s", why);
          return NULL;
        }
      fallback = g_strdup_printf ("%s; using the CPU", why);
    }

  self = ef_backend_cpu_new (info, params, error);
  if (self == NULL)
    return NULL;
  self->run.backend_requested = kind;
  if (fallback != NULL)
    ef_run_info_set_backend (&self->run, "cpu", 0, fallback);
  if (note)
    *note = g_strdup (fallback != NULL ? fallback : self->run.precision_reason);
  return self;
}

void
ef_backend_free (EfBackend *self)
{
  if (self == NULL)
    return;
  if (self->ops && self->ops->free)
    self->ops->free (self);
  ef_run_info_clear (&self->run);
  ef_dataset_info_clear (&self->info);
  g_free (self);
}

gboolean
ef_backend_process_block (EfBackend *self, const EfPulse *pulses, const EfCf32 *samples, guint count,
                          GError **error)
{
  g_return_val_if_fail (self != NULL, FALSE);
  return self->ops->process_block (self, pulses, samples, count, error);
}

gboolean
ef_backend_read_image (EfBackend *self, const EfRect *rect, EfCf32 *out, GError **error)
{
  const EfGrid *g;

  g_return_val_if_fail (self != NULL && rect != NULL && out != NULL, FALSE);
  g = &self->params.grid;
  if (rect->x + (guint64) rect->width > g->width || rect->y + (guint64) rect->height > g->height)
    {
      g_set_error (error, EF_COMPUTE_ERROR, EF_COMPUTE_ERROR_INVALID_ARGUMENT,
                   "The rectangle %u,%u %ux%u is outside the %ux%u image", rect->x, rect->y, rect->width,
                   rect->height, g->width, g->height);
      return FALSE;
    }
  return self->ops->read_image (self, rect, out, error);
}

guint
ef_backend_blocks_per_call (const EfBackend *self)
{
  g_return_val_if_fail (self != NULL, 1);
  return MAX (self->blocks_per_call, 1u);
}

const char *
ef_backend_name (const EfBackend *self)
{
  return self->ops->name;
}

EfDeviceImage *
ef_backend_ref_device_image (EfBackend *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return self->ops->ref_device_image != NULL ? self->ops->ref_device_image (self) : NULL;
}

void
ef_backend_run_init (EfBackend *self, const EfBackendParams *params, EfBackendKind kind, guint n_devices)
{
  g_return_if_fail (self != NULL && params != NULL);

  ef_run_info_clear (&self->run);
  ef_run_info_init (&self->run, kind, params->algo, params->precision);
  ef_run_info_set_backend (&self->run, kind == EF_BACKEND_CUDA ? "cuda" : "cpu", n_devices, NULL);
  ef_backend_run_set_weighting (&self->run, &params->range);
}

void
ef_backend_run_set_weighting (EfRunInfo *run, const EfRangeParams *range)
{
  EfAzWeight w;

  g_return_if_fail (run != NULL && range != NULL);
  ef_az_weight_init (&w, range->az_window, range->az_taylor_nbar, range->az_taylor_sll_db, &range->aperture);
  ef_run_info_set_weighting (run, range->window, range->az_window,
                             ef_az_weight_active (&w) ? range->az_window : EF_WINDOW_RECT,
                             ef_aperture_why_not (&range->aperture));
}

const EfRunInfo *
ef_backend_get_run_info (EfBackend *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  if (self->ops->update_run != NULL)
    self->ops->update_run (self);
  else
    self->run.nonfinite_samples = self->n_bad_samples;
  return &self->run;
}
