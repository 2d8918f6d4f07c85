// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* What the fuzz harnesses found (tests/fuzz/README): each input kept in
 * tests/fuzz/corpus/, run through the code that failed on it, with what it
 * must give now. */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>
#include "analyses/export.h"
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

/* `sbt-bpf export --format svg FILE` of a corpus file: the SVG (to free). */
static char *svg_of(const char *name)
{
	struct export_thread threads[8];
	struct export_opts o = {.format = EXPORT_SVG, .views = EXPORT_MEASURED, .threads = threads};
	struct approx_opts a;
	struct replay rp;
	struct report_src src;
	struct phases_config pc;
	struct exporter *x = NULL;
	struct phases *ph = NULL;
	char path[512], err[256], *buf = NULL;
	size_t len = 0;
	__u32 i;

	snprintf(path, sizeof(path), "%s/%s", CORPUS, name);
	approx_opts__init(&a);
	if (replay__open(&rp, path, &a))
		return NULL;
	for (i = 0; i < rp.m->nthreads && i < 8; i++)
		threads[o.nthreads++] = (struct export_thread){
			rp.m->threads[i].pid, rp.m->threads[i].tid, rp.m->threads[i].comm, 0, ""};
	o.end_ns = rp.m->end_ns;
	o.out = open_memstream(&buf, &len);
	src = replay__report_src(&rp);
	pc = replay__phases_config(&rp);
	x = exporter__new(&o, &src, err, sizeof(err));
	ph = x ? phases__new(&pc, &exporter_phases_ops, x) : NULL;
	CHECK(ph != NULL);
	if (ph) {
		exporter__begin(x);
		CHECK_EQ(replay__run(&rp, ph, 0, NULL, NULL), 0);
		exporter__end(x, ph, &(struct export_drops){0});
	}
	phases__free(ph);
	exporter__free(x);
	replay__close(&rp);
	fclose(o.out);
	return buf;
}

/* A thread named "a" U+FFFF "b": the SVG held U+FFFF, which XML forbids
 * (found by the SVG export's XML check). The name is printed "a???b". */
TEST(thread_name_with_a_noncharacter)
{
	char *svg = svg_of("trace/svg-noncharacter.sbt");

	CHECK(svg != NULL);
	if (!svg)
		return;
	CHECK(strstr(svg, ">a???b 11</text>") != NULL);
	CHECK(strstr(svg, "\xef\xbf\xbf") == NULL);
	free(svg);
}

/* A trace with probe costs and no calibration series (an older recording,
 * its source not "fixed"): the text report looked for the all-CPUs entry in
 * the series that is not there (a NULL dereference). Now its costs are said
 * to be as recorded, with no all-CPUs line. */
TEST(costs_without_a_series)
{
	int rc;
	char *out = report_of("trace/costs-without-a-series.sbt", REPORT_TEXT, &rc);

	CHECK_EQ(rc, 0);
	CHECK(strstr(out, "    Probe costs (entry + return ns): as recorded") != NULL);
	CHECK(strstr(out, "with every CPU hitting") == NULL);
	free(out);
}
