// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The harnesses' shared helpers (tests/fuzz/fuzz.h). */
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "lib/log.h"
#include "tests/fuzz/fuzz.h"

static FILE *msgs; /* stderr as it was before libFuzzer closed it */
static char tmpdir[PATH_MAX];

void fuzz_init(void)
{
	int fd = dup(STDERR_FILENO);

	msgs = fd >= 0 ? fdopen(fd, "w") : NULL;
	log_set_level(LOG_QUIET);
}

int fuzz_file(const uint8_t *data, size_t size)
{
	static int fd = -1;
	size_t done = 0;
	ssize_t n;

	if (fd < 0)
		fd = memfd_create("fuzz-input", MFD_CLOEXEC);
	/* without its file, every later input would test nothing */
	if (fd < 0 || ftruncate(fd, 0))
		abort();
	while (done < size) {
		n = pwrite(fd, data + done, size - done, (off_t)done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			abort();
		done += n;
	}
	return fd;
}

char *fuzz_string(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = 0;
	return s;
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

void fuzz_remove_tree(const char *path)
{
	nftw(path, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void remove_tmpdir(void)
{
	fuzz_remove_tree(tmpdir);
}

const char *fuzz_tmpdir(void)
{
	const char *base = getenv("TMPDIR");

	if (tmpdir[0])
		return tmpdir;
	snprintf(tmpdir, sizeof(tmpdir), "%s/sbt-fuzz-XXXXXX", base && *base ? base : "/tmp");
	if (!mkdtemp(tmpdir))
		abort();
	atexit(remove_tmpdir);
	return tmpdir;
}

/* Bytes [from, to) of doc as a C string literal's contents. */
static void excerpt(FILE *f, const char *doc, size_t from, size_t to)
{
	size_t i;

	for (i = from; i < to; i++) {
		unsigned char c = doc[i];

		if (c == '\\' || c == '"')
			fprintf(f, "\\%c", c);
		else if (c >= 0x20 && c < 0x7f)
			fputc(c, f);
		else
			fprintf(f, "\\x%02x", c);
	}
}

void fuzz_die_in(const char *pass, const char *why, const char *doc, size_t len, size_t at)
{
	FILE *f = msgs ? msgs : stderr;
	size_t from = at > 80 ? at - 80 : 0, to = len - at > 80 ? at + 80 : len;

	fprintf(f, "\nfuzz check failed: %s: %s at byte %zu of %zu:\n\"", pass, why, at, len);
	excerpt(f, doc, from, at);
	fprintf(f, "\" <HERE> \"");
	excerpt(f, doc, at, to);
	fprintf(f, "\"\n");
	fflush(f);
	abort();
}
