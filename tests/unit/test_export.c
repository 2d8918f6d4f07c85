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

static void ev(struct phases *p, __u16 type, __u16 probe, __u32 tid, __u64 ts, __u64 obj,
	       __u64 site)
{
	struct sbt_event e = sbt_event_make(type, probe, PID, tid, ts, obj, site);

	CHECK_EQ(phases__feed(p, &e), 0);
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

/* The export of the synthetic trace in one format, as a string. */
static char *export_to_string(int format, int views, size_t *len)
{
	static const struct export_thread threads[] = {{PID, 8, "worker"}, {PID, 9, "worker"}};
	struct names *n = names__new();
	struct sync *s = sync__new(probes, NPROBES);
	struct report_src src = {.phases = {.probes = probes,
					    .nprobes = NPROBES,
					    .start_ns = START,
					    .sync = s,
					    .alpha_enter = a_in,
					    .alpha_exit = a_out},
				 .names = n,
				 .command = "synthetic",
				 .kernel = "test"};
	struct export_opts o = {.format = format,
				.views = views,
				.end_ns = 9000,
				.threads = threads,
				.nthreads = 2,
				.width = 100};
	struct export_drops d = {0};
	struct exporter *x;
	struct phases *p;
	char err[128], *buf = NULL;

	names__set(n, PID, SITE, "worker (w.c:10)");
	names__set(n, PID, BAR, "bar");
	names__set(n, PID, MTX, "mtx");
	names__set_comm(n, 8, "worker");
	names__set_comm(n, 9, "worker");
	o.out = open_memstream(&buf, len);
	x = exporter__new(&o, &src, err, sizeof(err));
	p = phases__new(&src.phases, &exporter_phases_ops, x);
	exporter__begin(x);
	feed_trace(p);
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
	CHECK(strstr(s, "2 phases") != NULL);
	CHECK(strstr(s, "~ worker 9") != NULL);
	CHECK_EQ(count(s, "<svg"), 1);
	CHECK_EQ(count(s, "</svg>"), 1);
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
