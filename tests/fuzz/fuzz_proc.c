// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer harness: hostile /proc contents. The input is read as the text of
 * /proc/PID/status, as /proc/PID/maps (line by line, as proc__mapped_files
 * reads it), and as a name or command line another user chose (made
 * printable by utf8_printable before it reaches a terminal or an SVG).
 */
#include <stdlib.h>
#include <string.h>
#include "lib/proc.h"
#include "lib/utf8.h"
#include "tests/fuzz/fuzz.h"
#include "tests/fuzz/wellformed.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_init();
	return 0;
}

static void broken(const char *what, const char *text, size_t at)
{
	fuzz_die_in(what, "breaks its contract", text, strlen(text), at);
}

/* A file-backed mapping: an absolute path on one line, an inode, its
 * addresses. */
static void maps_line(const char *line)
{
	struct mapped_file m;

	if (proc__parse_maps_line(line, &m))
		return;
	if (m.path[0] != '/' || strchr(m.path, '\n') || !memchr(m.path, 0, sizeof(m.path)) ||
	    !m.inode || m.pid || m.open_path[0])
		broken("proc__parse_maps_line", line, 0);
}

static void maps(char *text)
{
	char *line, *save = NULL;

	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		maps_line(line);
}

/* What utf8_printable leaves: valid UTF-8 without a control character, not
 * even a newline, and as many bytes as it was given. */
static void printable(const char *text)
{
	char *s = strdup(text);
	size_t at, len = strlen(text);

	if (!s)
		abort();
	utf8_printable(s);
	if (strlen(s) != len || wf_text(s, len, &at) || strchr(s, '\n') || strchr(s, '\t'))
		broken("utf8_printable", text, 0);
	free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_string(data, size);
	struct proc_status st;

	/* the status file is read as bytes, NULs and all */
	proc__parse_status((const char *)data, size, &st);
	printable(text);
	maps(text);
	free(text);
	return 0;
}
