/* fuzz-cphd-xml.c: libFuzzer harness: the XML block of a CPHD file. */
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
  ef_fuzz_cphd_xml (data, size);
  return 0;
}
