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

	pass_report(fd, REPORT_TEXT);
	pass_report(fd, REPORT_JSON);
	pass_export(fd, EXPORT_CHROME, NULL);
	pass_export(fd, EXPORT_CSV, NULL);
	pass_export(fd, EXPORT_SVG, NULL);
	return 0;
}
