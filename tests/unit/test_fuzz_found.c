// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* What the fuzz harnesses found (tests/fuzz/README): each input kept in
 * tests/fuzz/corpus/, run through the code that failed on it, with what it
 * must give now. */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>
#include "analyses/replay.h"
#include "unit.h"

#define CORPUS GOLDEN_DIR "/../../fuzz/corpus"

/* `sbt-bpf report [--format json] FILE` of a corpus file: its output (to
 * free); *rc the report's return. */
static char *report_of(const char *name, int format, int *rc)
{
	struct report_opts ro = {.format = format, .phase_table = 1, .watch_all = 1};
	struct approx_opts a;
	struct replay rp;
	char path[512], *buf = NULL;
	size_t len = 0;

	snprintf(path, sizeof(path), "%s/%s", CORPUS, name);
	approx_opts__init(&a);
	ro.out = open_memstream(&buf, &len);
	*rc = replay__open(&rp, path, &a);
	CHECK_EQ(*rc, 0);
	if (!*rc) {
		CHECK_EQ(replay__select(&rp, 0, 0), 0);
		*rc = replay__report(&rp, &ro, 0);
		replay__close(&rp);
	}
	fclose(ro.out);
	return buf;
}

/* A barrier site whose only episode is partial (its threads ran before the
 * recording): the text report divided its times by 0 episodes (SIGFPE).
 * Now its heading says 0 episodes and no times follow; in JSON its minimum
 * is 0, not the UINT64_MAX it starts from. */
TEST(site_with_only_a_partial_episode)
{
	int rc;
	char *out = report_of("trace/partial-site-only.sbt", REPORT_TEXT, &rc);

	CHECK_EQ(rc, 0);
	CHECK(strstr(out, "Loop barrier 0x40 \"pthread_barrier_wait 0x60\" (pid 10): 0 "
			  "episodes\nThreads:\n") != NULL);
	/* the thread name's escape sequence, made printable */
	CHECK(strstr(out, " a?]0;x? ") != NULL);
	free(out);
	out = report_of("trace/partial-site-only.sbt", REPORT_JSON, &rc);
	CHECK_EQ(rc, 0);
	CHECK(strstr(out, "\"episodes\": 0,\n      \"barrier_ns\": 0,\n      \"barrier_min_ns\": "
			  "0,\n      \"barrier_max_ns\": 0,\n") != NULL);
	free(out);
}
