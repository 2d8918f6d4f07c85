// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer harness: the input is a .sbt file, exported as OTF2. Apart from
 * fuzz_trace.c because an archive costs the OTF2 library milliseconds (files,
 * 256 KiB buffers per location): together they would run at a fifth of the
 * speed. The archive is written under a directory of the run's own.
 */
#include "analyses/export.h"
#include "tests/fuzz/fuzz.h"
#include "tests/fuzz/passes.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_init();
	fuzz_tmpdir();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	pass_export(fuzz_file(data, size), EXPORT_OTF2, fuzz_tmpdir(), size);
	return 0;
}
