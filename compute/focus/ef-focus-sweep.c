/* ef-focus-sweep.c: the registry of accelerators that take the sharpness sweeps' sums. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-focus"
#include "config.h"

#include "ef-focus-sweep.h"

/* Few: one a kind of accelerator. Written by the registering libraries' constructors, before main. */
#define MAX_SWEEPERS 4

static const EfFocusSweepProvider *sweepers[MAX_SWEEPERS];
static GMutex sweepers_lock;

void
ef_focus_sweep_register (const EfFocusSweepProvider *provider)
{
  guint i;

  g_return_if_fail (provider != NULL && provider->backend != NULL && provider->create != NULL);

  g_mutex_lock (&sweepers_lock);
  for (i = 0; i < MAX_SWEEPERS && sweepers[i] != NULL && g_strcmp0 (sweepers[i]->backend, provider->backend) != 0; i++)
    ;
  if (i < MAX_SWEEPERS)
    sweepers[i] = provider;
  g_mutex_unlock (&sweepers_lock);
  if (i == MAX_SWEEPERS)
    g_critical ("No room to register the %s sweeps", provider->backend);
}

const EfFocusSweepProvider *
ef_focus_sweep_get (const char *backend)
{
  const EfFocusSweepProvider *found = NULL;

  g_mutex_lock (&sweepers_lock);
  for (guint i = 0; i < MAX_SWEEPERS && sweepers[i] != NULL && found == NULL; i++)
    if (g_strcmp0 (sweepers[i]->backend, backend) == 0)
      found = sweepers[i];
  g_mutex_unlock (&sweepers_lock);
  return found;
}
