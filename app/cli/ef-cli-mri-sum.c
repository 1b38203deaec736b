/* ef-cli-mri-sum.c: echoform-cli mri's exact sums (F^H d, Q) where the engine's choice puts them (ef-mri-accel.h). */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-cli-mri"
#include "config.h"

#include "ef-cli-private.h"
#include "ef-mri-accel.h"

gboolean
ef_cli_mri_sum (EfBackendKind kind, const EfMriTraj *t, const EfCf64 *d, const double *w, const EfMriGrid *g,
                EfCf64 *out, char **ran, GError **error)
{
  EfMriRun run;
  gboolean ok;

  *ran = NULL;
  if (!ef_mri_run_choose (kind, &run, error))
    {
      g_prefix_error (error, "--backend cuda: ");
      return FALSE;
    }
  ok = ef_mri_run_sum (&run, t, d, w, g, out, error);
  if (ok)
    *ran = run.fallback != NULL ? g_strdup_printf ("%s; %s", run.detail, run.fallback) : g_strdup (run.detail);
  ef_mri_run_clear (&run);
  return ok;
}
