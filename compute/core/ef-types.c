/* ef-types.c: names of the engine's enumerations, for the CLI, settings and logs. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-types"
#include "config.h"

#include <string.h>
#include <time.h>
#if HAVE_OPENMP
#include <omp.h>
#endif

#include "ef-types.h"

static const char *const domain_names[] = { "FX", "TOA", "RAW" };
static const char *const precision_names[] = { "fp64", "fp32", "fp16" };
static const char *const algo_names[] = { "bp", "ffbp", "fbp", "pfa", "mf" };
static const char *const backend_names[] = { "auto", "cpu", "cuda" };
static const char *const window_names[] = { "rect", "hann", "hamming", "taylor" };
static const char *const order_names[] = { "sequential", "interleaved" };

static const char *
name_of (const char *const *names, guint n, guint value)
{
  return value < n ? names[value] : "unknown";
}

static gboolean
value_of (const char *const *names, guint n, const char *s, guint *out)
{
  if (s == NULL)
    return FALSE;
  for (guint i = 0; i < n; i++)
    {
      if (g_ascii_strcasecmp (names[i], s) == 0)
        {
          *out = i;
          return TRUE;
        }
    }
  return FALSE;
}

#define EF_ENUM_NAMES(Type, lower, table)                                              \
  const char *ef_##lower##_to_string (Type v)                                          \
  { return name_of (table, G_N_ELEMENTS (table), (guint) v); }                         \
  gboolean ef_##lower##_from_string (const char *s, Type *out)                         \
  {                                                                                    \
    guint v;                                                                           \
    if (!value_of (table, G_N_ELEMENTS (table), s, &v))                                \
      return FALSE;                                                                    \
    *out = (Type) v;                                                                   \
    return TRUE;                                                                       \
  }

const char *
ef_domain_to_string (EfDomain domain)
{
  return name_of (domain_names, G_N_ELEMENTS (domain_names), domain);
}

EF_ENUM_NAMES (EfPrecision, precision, precision_names)
EF_ENUM_NAMES (EfAlgo, algo, algo_names)
EF_ENUM_NAMES (EfBackendKind, backend_kind, backend_names)
EF_ENUM_NAMES (EfWindow, window, window_names)
EF_ENUM_NAMES (EfOrder, order, order_names)

double
ef_process_cpu_seconds (void)
{
  struct timespec ts;

  if (clock_gettime (CLOCK_PROCESS_CPUTIME_ID, &ts) != 0)
    return 0;
  return (double) ts.tv_sec + 1e-9 * (double) ts.tv_nsec;
}

guint
ef_thread_count (guint asked)
{
#if HAVE_OPENMP
  return asked ? asked : (guint) omp_get_max_threads ();
#else
  (void) asked;
  return 1;
#endif
}
