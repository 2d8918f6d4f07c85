// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer harness: the input is a .sbt file, read by everything that reads
 * one but the OTF2 export (fuzz_otf2.c): the reader, `report` as text (every
 * block: phase table, episode lines, watch blocks of every site, hangs,
 * warnings) and as JSON (every phase), the Chrome, CSV and SVG exports; each
 * output checked (tests/fuzz/passes.h).
 */
#include "analyses/export.h"
#include "analyses/report.h"
#include "tests/fuzz/fuzz.h"
#include "tests/fuzz/passes.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_init();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd = fuzz_file(data, size);

	/* options from the input's size: the fuzzer reaches each by growing or
	 * shrinking it by a byte, and an input always gets the same */
	pass_report(fd, REPORT_TEXT, size);
	pass_report(fd, REPORT_JSON, size);
	pass_export(fd, EXPORT_CHROME, NULL, size);
	pass_export(fd, EXPORT_CSV, NULL, size);
	pass_export(fd, EXPORT_SVG, NULL, size);
	return 0;
}
