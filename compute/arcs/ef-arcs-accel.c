/* ef-arcs-accel.c: the registry through which an accelerator offers arc coherence to the engine. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-arcs"
#include "config.h"

#include "ef-arcs-accel.h"

static const EfArcsProvider *registered;
static GMutex registry_lock;

void
ef_arcs_register (const EfArcsProvider *provider)
{
  g_return_if_fail (provider != NULL && provider->available != NULL && provider->session_new != NULL);
  g_return_if_fail (provider->session_run != NULL && provider->session_free != NULL);

  g_mutex_lock (&registry_lock);
  registered = provider;
  g_mutex_unlock (&registry_lock);
}

const EfArcsProvider *
ef_arcs_provider (void)
{
  const EfArcsProvider *p;

  g_mutex_lock (&registry_lock);
  p = registered;
  g_mutex_unlock (&registry_lock);
  return p;
}
