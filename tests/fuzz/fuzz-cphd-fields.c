/* fuzz-cphd-fields.c: libFuzzer harness: a valid CPHD file whose numbers the input replaces. */
/* SPDX-License-Identifier: GPL-3.0-or-later */
#define G_LOG_DOMAIN "ef-fuzz"
#include "config.h"

#include <stddef.h>
#include <stdint.h>

#include "ef-fuzz-targets.h"

int LLVMFuzzerInitialize (int *argc, char ***argv);
int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
  ef_fuzz_quiet ();
  return 0;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  ef_fuzz_cphd_fields (data, size);
  return 0;
}
