// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Efficiencies and wait states in the reports (doc/design.md §5.5): the JSON
 * efficiency{} objects, the caused waits of the lock table, and the text
 * summary's tables, with the exact values of a synthetic stream. */
#include <stdlib.h>
#include "analyses/names.h"
#include "analyses/phases.h"
#include "analyses/report.h"
#include "analyses/sync.h"
#include "unit.h"

enum { P_NONE, P_PBW, P_LOCK, P_UNLOCK, NPROBES };

static const struct sbt_probe_info probes[NPROBES] = {
	[P_PBW] = {.id = P_PBW, .kind = SBT_PK_BARRIER, .symbol = "pthread_barrier_wait"},
	[P_LOCK] = {.id = P_LOCK, .kind = SBT_PK_LOCK, .symbol = "pthread_mutex_lock"},
	[P_UNLOCK] = {.id = P_UNLOCK, .kind = SBT_PK_UNLOCK, .symbol = "pthread_mutex_unlock"},
};

#define START 1000000000ULL
#define MS    1000000ULL
#define BAR   0x9000
#define MTX   0xa000

static void feed(struct phases *p, __u16 type, __u16 probe, __u32 tid, __u64 ms, __u64 obj)
{
	struct sbt_event e = sbt_event_make(type, probe, 7, tid, START + ms * MS, obj, 0x4000);

	phases__feed(p, &e);
}

/* Thread 2 holds the mutex from 1 to 6 ms; thread 1 asks at 2 and gets it
 * at 7 (a wait of 5 ms, 4 of them caused by thread 2), and holds it to 8.
 * Thread 1 arrives at the barrier at 12 ms, thread 2 at 32; both leave at
 * 33. Useful: 7 and 32 ms over a phase of 32: LB 19.5/32, SE 1; the run
 * (33 ms): SE 32/33, PE 19.5/33. */
static void feed_trace(struct phases *p)
{
	feed(p, SBT_EV_ENTER, P_LOCK, 2, 1, MTX);
	feed(p, SBT_EV_EXIT, P_LOCK, 2, 1, 0);
	feed(p, SBT_EV_ENTER, P_LOCK, 1, 2, MTX);
	feed(p, SBT_EV_ENTER, P_UNLOCK, 2, 6, MTX);
	feed(p, SBT_EV_EXIT, P_UNLOCK, 2, 6, 0);
	feed(p, SBT_EV_EXIT, P_LOCK, 1, 7, 0);
	feed(p, SBT_EV_ENTER, P_UNLOCK, 1, 8, MTX);
	feed(p, SBT_EV_EXIT, P_UNLOCK, 1, 8, 0);
	feed(p, SBT_EV_ENTER, P_PBW, 1, 12, BAR);
	feed(p, SBT_EV_ENTER, P_PBW, 2, 32, BAR);
	feed(p, SBT_EV_EXIT, P_PBW, 1, 33, 0);
	feed(p, SBT_EV_EXIT, P_PBW, 2, 33, 0xffffffff);
}

static char *run_report(int format, int phase_table)
{
	struct names *names = names__new();
	struct sync *sync = sync__new(probes, NPROBES);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct report_opts ro = {.format = format, .phase_table = phase_table, .out = f};
	struct report_src src = {
		.phases = {.probes = probes, .nprobes = NPROBES, .start_ns = START, .sync = sync},
		.names = names,
		.command = "prog"};
	struct report_drops d = {0};
	struct report *r;
	struct phases *p;

	names__set(names, 7, 0x4000, "work (prog.c:12)");
	names__set(names, 7, BAR, "bar");
	r = report__new(&ro, &src);
	p = phases__new(&src.phases, &report_phases_ops, r);
	report__attach(r, p);
	report__begin(r);
	feed_trace(p);
	phases__finish(p);
	report__end(r, &d);
	phases__free(p);
	report__free(r);
	sync__free(sync);
	names__free(names);
	fclose(f);
	return buf;
}

static int count(const char *s, const char *what)
{
	int n = 0;

	for (; (s = strstr(s, what)); s++)
		n++;
	return n;
}

TEST(json_efficiency_exact)
{
	char *out = run_report(REPORT_JSON, 0);

	/* the run */
	CHECK(strstr(out,
		     "\"efficiency\": {\n    \"load_balance\": 0.609375,\n"
		     "    \"sync_efficiency\": 0.969697,\n"
		     "    \"parallel_efficiency\": 0.590909,\n    \"threads\": 2,\n"
		     "    \"phases\": 1,\n    \"runtime_ns\": 33000000,\n"
		     "    \"useful_ns\": 39000000,\n    \"max_useful_ns\": 32000000,\n") != NULL);
	CHECK(strstr(out,
		     "\"barrier_wait_ns\": 20000000,\n      \"barrier_completion_ns\": "
		     "2000000,\n      \"late_start_ns\": 0,\n      \"lock_wait_ns\": 5000000,") !=
	      NULL);
	CHECK(strstr(out, "\"caused\": {\n      \"lock_ns\": 4000000,") != NULL);
	/* the phase and the site: SE 1 */
	CHECK_EQ(count(out, "\"load_balance\": 0.609375,\n        \"sync_efficiency\": 1,\n"), 2);
	/* thread 1: its useful against the phase's greatest */
	CHECK(strstr(out, "\"load_balance\": 0.21875,\n        \"sync_efficiency\": 1,\n"
			  "        \"parallel_efficiency\": 0.21875,") != NULL);
	/* a phase's thread: its lock wait */
	CHECK(strstr(out, "\"useful_ns\": 7000000,\n          \"late_start_ns\": 0,\n"
			  "          \"lock_wait_ns\": 5000000,") != NULL);
	/* the lock table: who held it while others waited */
	CHECK(strstr(out, "\"blocked_ns\": 0,\n      \"caused_wait_ns\": 4000000,") != NULL);
	CHECK(strstr(out,
		     "\"tid\": 2,\n          \"count\": 1,\n          \"wait_ns\": 0,\n"
		     "          \"hold_ns\": 5000000,\n          \"caused_wait_ns\": 4000000") !=
	      NULL);
	free(out);
}

TEST(text_efficiency_tables)
{
	char *out = run_report(REPORT_TEXT, 1);

	CHECK(strstr(out, "  phase  thr     phase ms   barrier ms     imbal ms     LB     PE   "
			  "critical  site\n      0    2       32.000       20.000       10.000   "
			  "0.69   0.61          2  work (prog.c:12) \"bar\"\n") != NULL);
	CHECK(strstr(out, "    run                       1        2        33.000        39.000  "
			  "0.609  0.970  0.591\n") != NULL);
	CHECK(strstr(out, "    site 0                    1        2        32.000        39.000  "
			  "0.609  1.000  0.609  work (prog.c:12) \"bar\"\n") != NULL);
	CHECK(strstr(out, "    thread 1                  1        1        32.000         7.000  "
			  "0.219  1.000  0.219\n") != NULL);
	CHECK(strstr(out, "             1       20.000        1.000       0.000       5.000       "
			  "0.000       0.000       0.000       0.000       0.000       0.000\n") !=
	      NULL);
	CHECK(strstr(out, "             2        0.000        1.000       0.000       0.000       "
			  "0.000       0.000       0.000       4.000       0.000       0.000\n") !=
	      NULL);
	CHECK(strstr(out, "           all       20.000        2.000       0.000       5.000") !=
	      NULL);
	free(out);
}
