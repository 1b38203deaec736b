/* fuzz-ismrmrd-fields.c: libFuzzer harness: an ISMRMRD file whose header fields, matrix, FOV and count the input sets. */
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
  (void) argc;
  (void) argv;
  ef_fuzz_quiet ();
  return 0;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  ef_fuzz_ismrmrd_fields (data, size);
  return 0;
}
