// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Exports of a small synthetic trace, compared with golden files
 * (tests/unit/golden/; SBT_UPDATE_GOLDEN=1 rewrites them after a reviewed
 * change), and structural properties checked directly. */
#include <stdlib.h>
#include "analyses/export.h"
#include "analyses/names.h"
#include "analyses/sync.h"
#include "unit.h"

enum { P_NONE, P_PBW, P_LOCK, P_UNLOCK, P_SEMW, P_POST, NPROBES };

static const struct sbt_probe_info probes[NPROBES] = {
	[P_PBW] = {.id = P_PBW, .kind = SBT_PK_BARRIER, .symbol = "pthread_barrier_wait"},
	[P_LOCK] = {.id = P_LOCK, .kind = SBT_PK_LOCK, .symbol = "pthread_mutex_lock"},
	[P_UNLOCK] = {.id = P_UNLOCK, .kind = SBT_PK_UNLOCK, .symbol = "pthread_mutex_unlock"},
	[P_SEMW] = {.id = P_SEMW, .kind = SBT_PK_SEM_WAIT, .symbol = "sem_wait"},
	[P_POST] = {.id = P_POST, .kind = SBT_PK_SEM_POST, .symbol = "sem_post"},
};
static const __u64 a_in[NPROBES] = {
	[P_PBW] = 100, [P_LOCK] = 200, [P_UNLOCK] = 200, [P_SEMW] = 100, [P_POST] = 200};
static const __u64 a_out[NPROBES] = {
	[P_PBW] = 50, [P_LOCK] = 50, [P_UNLOCK] = 50, [P_SEMW] = 50, [P_POST] = 50};

#define PID   7
#define START 1000
#define BAR   0x5000
#define MTX   0x6000
#define SEM   0x7000
#define SITE  0x401000

/* The exporter being fed: records go to it too, as `sbt-bpf export` does. */
static struct exporter *cur_x;

static void ev(struct phases *p, __u16 type, __u16 probe, __u32 tid, __u64 ts, __u64 obj,
	       __u64 site)
{
	struct sbt_event e = sbt_event_make(type, probe, PID, tid, ts, obj, site);

	CHECK_EQ(phases__feed(p, &e), 0);
	if (exporter__wants_records(cur_x))
		exporter__record(cur_x, &e, phases__thread_approx(p, tid));
}

static void call(struct phases *p, __u16 probe, __u32 tid, __u64 t0, __u64 t1, __u64 obj)
{
	ev(p, SBT_EV_ENTER, probe, tid, t0, obj, 0);
	ev(p, SBT_EV_EXIT, probe, tid, t1, 0, SITE);
}

/* Two threads, two barrier episodes; thread 8 takes the mutex in phase 0
 * and posts the semaphore thread 9 waits on in phase 1. */
static void feed_trace(struct phases *p)
{
	call(p, P_LOCK, 8, 1500, 1900, MTX);
	call(p, P_UNLOCK, 8, 2400, 2700, MTX);
	ev(p, SBT_EV_ENTER, P_PBW, 8, 3000, BAR, 0);
	ev(p, SBT_EV_ENTER, P_PBW, 9, 5000, BAR, 0);
	ev(p, SBT_EV_EXIT, P_PBW, 9, 5200, (__u64)-1, SITE);
	ev(p, SBT_EV_EXIT, P_PBW, 8, 5300, 0, SITE);
	ev(p, SBT_EV_ENTER, P_SEMW, 9, 5600, SEM, 0);
	call(p, P_POST, 8, 6000, 6300, SEM);
	ev(p, SBT_EV_EXIT, P_SEMW, 9, 6800, 0, SITE);
	ev(p, SBT_EV_ENTER, P_PBW, 8, 7000, BAR, 0);
	ev(p, SBT_EV_ENTER, P_PBW, 9, 8000, BAR, 0);
	ev(p, SBT_EV_EXIT, P_PBW, 8, 8200, (__u64)-1, SITE);
	ev(p, SBT_EV_EXIT, P_PBW, 9, 8300, 0, SITE);
}

/* The main thread (tid PID) joins the workers: a futex wait outside any
 * probed call, from before their first phase until after they exit. */
static void feed_join(struct phases *p)
{
	ev(p, SBT_EV_FUTEX_ENTER, 0, PID, 1200, 0x8000, 0 /* FUTEX_WAIT */);
	feed_trace(p);
	ev(p, SBT_EV_THREAD_EXIT, 0, 8, 8600, 0, 0);
	ev(p, SBT_EV_THREAD_EXIT, 0, 9, 8700, 0, 0);
	ev(p, SBT_EV_FUTEX_EXIT, 0, PID, 8800, 0, 0);
}

/* 600 threads, each in a barrier episode of its own (distinct objects). */
static void feed_many_threads(struct phases *p)
{
	__u32 i;

	for (i = 0; i < 600; i++) {
		ev(p, SBT_EV_ENTER, P_PBW, 100 + i, 1000 + 10 * i, BAR + 64 * i, 0);
		ev(p, SBT_EV_EXIT, P_PBW, 100 + i, 1005 + 10 * i, (__u64)-1, SITE);
	}
}

struct run {
	int format, views;
	int keep_views;			/* --both */
	const __u64 *a_in, *a_out;	/* probe costs */
	void (*feed)(struct phases *p); /* feed_trace by default */
	const char *comm;		/* of thread 9 ("worker") */
};

static char *export_run(const struct run *r, size_t *len);

/* The export of the synthetic trace in one format, as a string. */
static char *export_to_string(int format, int views, size_t *len)
{
	return export_run(&(struct run){.format = format, .views = views}, len);
}

static char *export_run(const struct run *r, size_t *len)
{
	static const struct export_thread threads[] = {{PID, 8, "worker", 0, ""},
						       {PID, 9, "worker", 0, ""}};
	struct names *n = names__new();
	struct sync *s = sync__new(probes, NPROBES);
	struct report_src src = {.phases = {.probes = probes,
					    .nprobes = NPROBES,
					    .start_ns = START,
					    .sync = s,
					    .alpha_enter = r->a_in ? r->a_in : a_in,
					    .alpha_exit = r->a_out ? r->a_out : a_out},
				 .names = n,
				 .command = "synthetic",
				 .kernel = "test"};
	struct export_opts o = {.format = r->format,
				.views = r->views,
				.end_ns = 9000,
				.threads = threads,
				.nthreads = 2,
				.width = 400,
				.keep_views = r->keep_views};
	struct export_drops d = {0};
	struct exporter *x;
	struct phases *p;
	char err[128], *buf = NULL;

	names__set(n, PID, SITE, "worker (w.c:10)");
	names__set(n, PID, BAR, "bar");
	names__set(n, PID, MTX, "mtx");
	names__set_comm(n, 8, "worker");
	names__set_comm(n, 9, r->comm ? r->comm : "worker");
	o.out = open_memstream(&buf, len);
	x = exporter__new(&o, &src, err, sizeof(err));
	p = phases__new(&src.phases, &exporter_phases_ops, x);
	cur_x = x;
	exporter__begin(x);
	(r->feed ? r->feed : feed_trace)(p);
	phases__finish(p);
	exporter__end(x, p, &d);
	phases__free(p);
	exporter__free(x);
	fclose(o.out);
	sync__free(s);
	names__free(n);
	return buf;
}

static void check_golden(const char *name, const char *got, size_t len)
{
	char path[256], *want = NULL;
	size_t wlen = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", GOLDEN_DIR, name);
	if (getenv("SBT_UPDATE_GOLDEN")) {
		f = fopen(path, "w");
		CHECK(f && fwrite(got, 1, len, f) == len);
		if (f)
			fclose(f);
		return;
	}
	f = fopen(path, "r");
	CHECK(f != NULL);
	if (!f)
		return;
	want = malloc(len + 2);
	wlen = fread(want, 1, len + 1, f);
	fclose(f);
	CHECK_EQ(wlen, len);
	CHECK(wlen == len && !memcmp(want, got, len));
	if (wlen != len || memcmp(want, got, len))
		printf("    %s differs from the golden file (SBT_UPDATE_GOLDEN=1 to rewrite)\n",
		       name);
	free(want);
}

static size_t count(const char *s, const char *needle)
{
	size_t n = 0;

	for (; (s = strstr(s, needle)); s++)
		n++;
	return n;
}

TEST(export_chrome_golden)
{
	size_t len;
	char *s = export_to_string(EXPORT_CHROME, EXPORT_MEASURED | EXPORT_APPROXIMATED, &len);

	check_golden("export.chrome.json", s, len);
	/* per view: 2 compute + 2 barrier slices per episode, a release flow
	 * per episode, a lock wait and hold, a semaphore wait with its V flow */
	CHECK_EQ(count(s, "\"name\":\"compute\""), 2 * 4);
	CHECK_EQ(count(s, "\"cat\":\"barrier\""), 2 * 4);
	CHECK_EQ(count(s, "\"ph\":\"s\",\"name\":\"release\""), 2 * 2);
	CHECK_EQ(count(s, "\"name\":\"hold mtx\""), 2);
	CHECK_EQ(count(s, "\"ph\":\"f\",\"name\":\"post\""), 2);
	/* exact ns, written as us: thread 8's first compute, 0 to 2000 ns... */
	CHECK(strstr(s, "\"tid\":8,\"ts\":0.000,\"dur\":2.000") != NULL);
	/* ...and the measured and approximated processes are named */
	CHECK(strstr(s, "\"name\":\"measured: process 7\"") != NULL);
	CHECK(strstr(s, "\"name\":\"approximated: process 7\"") != NULL);
	free(s);
}

TEST(export_csv_golden)
{
	size_t len;
	char *s = export_to_string(EXPORT_CSV, EXPORT_MEASURED | EXPORT_APPROXIMATED, &len);

	check_golden("export.csv", s, len);
	CHECK_EQ(count(s, "\n"), 1 + 2 * 2); /* header + phases x threads */
	CHECK(strstr(s, "\n0,7,8,worker,worker (w.c:10),bar,0,0,0,2000,4300,2000,2300,2000,") !=
	      NULL);
	free(s);
}

TEST(export_svg_golden)
{
	size_t len;
	char *s = export_to_string(EXPORT_SVG, EXPORT_MEASURED | EXPORT_APPROXIMATED, &len);

	check_golden("export.svg", s, len);
	CHECK(strstr(s, "2 phases at 1 barrier site") != NULL);
	CHECK(strstr(s, "width=\"400\" height=") != NULL);
	CHECK(strstr(s, "viewBox=\"0 0 400 ") != NULL);
	/* the probe costs moved times by more than a column (40 ns): both views */
	CHECK_EQ(count(s, "<g class=\"row measured\">"), 2);
	CHECK_EQ(count(s, "<g class=\"row approximated\">"), 2);
	CHECK(strstr(s, ">~ worker 9</text>") != NULL);
	/* the site in the legend and on hover, the phases numbered */
	CHECK(strstr(s, ">worker (w.c:10) &quot;bar&quot;: 2 phases<title>") != NULL);
	CHECK_EQ(count(s, "<title>phase 0: worker (w.c:10) &quot;bar&quot;</title>"), 1);
	CHECK_EQ(count(s, "<title>phase 1: worker (w.c:10) &quot;bar&quot;</title>"), 1);
	CHECK(strstr(s, "class=\"phase\" x=\"171\" y=") != NULL); /* phase 0 at column 0 */
	CHECK_EQ(count(s, "class=\"phase\""), 2);
	/* 8000 ns over 198 columns: at most 2 steps of 70 px, 5 us */
	CHECK(strstr(s, ">time (µs)<title>") != NULL);
	CHECK_EQ(count(s, "class=\"tick\""), 2);
	CHECK(strstr(s, "text-anchor=\"middle\">5</text>") != NULL);
	CHECK_EQ(count(s, "<svg"), 1);
	CHECK_EQ(count(s, "</svg>"), 1);
	free(s);
}

static const __u64 a_tiny[NPROBES] = {
	[P_PBW] = 1, [P_LOCK] = 1, [P_UNLOCK] = 1, [P_SEMW] = 1, [P_POST] = 1};

/* Probe costs of 1 ns move no time by a column: one set of rows, and a
 * note; --both (keep_views) draws both anyway. */
TEST(export_svg_one_row_set_when_the_views_look_alike)
{
	struct run r = {.format = EXPORT_SVG,
			.views = EXPORT_MEASURED | EXPORT_APPROXIMATED,
			.a_in = a_tiny,
			.a_out = a_tiny};
	size_t len;
	char *s = export_run(&r, &len);

	CHECK_EQ(count(s, "<g class=\"row measured\">"), 2);
	CHECK_EQ(count(s, "class=\"row approximated\""), 0);
	CHECK_EQ(count(s, "~ worker"), 0);
	CHECK(strstr(s, "Approximated times (probe cost removed) not drawn") != NULL);
	free(s);
	r.keep_views = 1;
	s = export_run(&r, &len);
	CHECK_EQ(count(s, "<g class=\"row approximated\">"), 2);
	CHECK_EQ(count(s, "not drawn"), 0);
	free(s);
	r.keep_views = 0;
	r.views = EXPORT_MEASURED;
	r.a_in = r.a_out = NULL;
	s = export_run(&r, &len);
	CHECK_EQ(count(s, "<g class=\"row measured\">"), 2);
	CHECK_EQ(count(s, "class=\"row approximated\""), 0);
	CHECK(strstr(s, ">Measured times.") != NULL || strstr(s, " Measured times.") != NULL);
	free(s);
}

/* The main thread waits in join (a futex wait outside any probed call)
 * while the workers run: its row shows that wait, and every row the
 * thread's lifetime. */
TEST(export_svg_main_thread_join_and_lifetimes)
{
	struct run r = {.format = EXPORT_SVG, .views = EXPORT_MEASURED, .feed = feed_join};
	size_t len;
	char *s = export_run(&r, &len), *main_row = strstr(s, "<title>thread 7 (");
	char *end = main_row ? strstr(main_row, "</g>") : NULL;

	CHECK(main_row != NULL);
	CHECK(end != NULL);
	if (main_row && end) {
		*end = 0;
		/* 1200..8800 ns, 40.4 ns a column: columns 4 to 193, all blue */
		CHECK(strstr(main_row, "<rect x=\"174\" y=") != NULL);
		CHECK(strstr(main_row, "width=\"190\" height=\"11\" fill=\"#4678d2\"/>") != NULL);
		/* alive from the session start to the end: columns 0 to 197 */
		CHECK(strstr(main_row, "<rect class=\"alive\" x=\"170\"") != NULL);
		CHECK(strstr(main_row, "width=\"198\" height=\"2\"") != NULL);
		*end = '<';
	}
	/* thread 8 exits at 8600 ns: column 188 */
	main_row = strstr(s, "<title>thread 8 (");
	end = main_row ? strstr(main_row, "</g>") : NULL;
	CHECK(main_row && end);
	if (main_row && end) {
		*end = 0;
		CHECK(strstr(main_row, "width=\"189\" height=\"2\"") != NULL);
		*end = '<';
	}
	CHECK(strstr(s, "3 threads") != NULL);
	free(s);
}

/* A picture of thousands of rows is unreadable and its cells take memory:
 * the first SVG_MAX_ROWS threads are drawn, the others counted. */
TEST(export_svg_rows_are_bounded)
{
	struct run r = {.format = EXPORT_SVG, .views = EXPORT_MEASURED, .feed = feed_many_threads};
	size_t len;
	char *s = export_run(&r, &len);

	/* threads 8 and 9 (declared) and the first 510 of the 600 */
	CHECK_EQ(count(s, "<title>thread "), 512);
	CHECK(strstr(s, "<title>thread 609 (") != NULL);
	CHECK(strstr(s, "<title>thread 610 (") == NULL);
	CHECK(strstr(s, ">90 more threads not drawn (the first 512 are)</text>") != NULL);
	CHECK_EQ(count(s, "</svg>"), 1);
	free(s);
}

/* The same join in the Chrome export: a wait slice per view, exact. The
 * main thread resumes 100 ns after the last worker exit (8700) in both: in
 * the approximation after the greatest approximated exit, 8100 (the join
 * rule, model 2). */
TEST(export_chrome_futex_wait_outside_calls)
{
	struct run r = {.format = EXPORT_CHROME,
			.views = EXPORT_MEASURED | EXPORT_APPROXIMATED,
			.feed = feed_join};
	size_t len;
	char *s = export_run(&r, &len);

	CHECK_EQ(count(s, "\"name\":\"wait futex 0x8000\",\"cat\":\"sync\""), 2);
	CHECK(strstr(s, "\"pid\":7,\"tid\":7,\"ts\":0.200,\"dur\":7.600}") != NULL);
	CHECK(strstr(s, "\"pid\":4194311,\"tid\":4194311,\"ts\":0.200,\"dur\":7.000}") != NULL);
	free(s);
}

/* Names come from the traced program: escaped, so the SVG stays XML. */
TEST(export_svg_escapes_names)
{
	struct run r = {.format = EXPORT_SVG, .views = EXPORT_MEASURED, .comm = "<w&\"x\">"};
	size_t len;
	char *s = export_run(&r, &len);

	CHECK(strstr(s, ">&lt;w&amp;&quot;x&quot;&gt; 9</text>") != NULL);
	CHECK_EQ(count(s, "<w&"), 0);
	free(s);
}

TEST(export_measured_view_only)
{
	size_t len;
	char *s = export_to_string(EXPORT_CHROME, EXPORT_MEASURED, &len);

	CHECK_EQ(count(s, "approximated"), 0);
	CHECK_EQ(count(s, "\"name\":\"compute\""), 4);
	free(s);
}
