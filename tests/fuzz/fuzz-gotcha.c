/* fuzz-gotcha.c: libFuzzer harness: a MATLAB file, read as AFRL Gotcha data. */
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
  ef_fuzz_gotcha_same_process (TRUE);
  return 0;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  ef_fuzz_gotcha (data, size);
  return 0;
}
