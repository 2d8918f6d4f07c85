// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Reports of a synthetic stream: the JSON fields and the SBT text lines carry
 * the exact values of the analysis. */
#include <stdlib.h>
#include "lib/json.h"
#include "analyses/alpha_series.h"
#include "analyses/names.h"
#include "analyses/phases.h"
#include "analyses/report.h"
#include "unit.h"

enum { P_NONE, P_PBW, NPROBES };

static const struct sbt_probe_info probes[NPROBES] = {
	[P_PBW] = {.id = P_PBW, .kind = SBT_PK_BARRIER, .symbol = "pthread_barrier_wait"},
};

#define START 1000000000ULL
#define MS    1000000ULL

static void feed(struct phases *p, __u16 type, __u32 tid, __u64 ts, __u64 obj, __u64 site)
{
	struct sbt_event e = sbt_event_make(type, P_PBW, 7, tid, ts, obj, site);

	phases__feed(p, &e);
}

/* Through a report made of ro and src, one episode of two threads: thread
 * 1 arrives 10 ms after the start, thread 2 at 40 ms; both leave at 41 ms. */
static void report_episode(const struct report_opts *ro, const struct report_src *src)
{
	struct report_drops d = {0};
	struct report *r = report__new(ro, src);
	struct phases *p = phases__new(&src->phases, &report_phases_ops, r);

	report__attach(r, p);
	report__begin(r);
	feed(p, SBT_EV_ENTER, 1, START + 10 * MS, 0x9000, 0);
	feed(p, SBT_EV_ENTER, 2, START + 40 * MS, 0x9000, 0);
	feed(p, SBT_EV_EXIT, 1, START + 41 * MS, 0, 0x4000);
	feed(p, SBT_EV_EXIT, 2, START + 41 * MS, 0xffffffff, 0x4000);
	report__at_end(r);
	phases__finish(p);
	report__end(r, &d);
	phases__free(p);
	report__free(r);
}

/* Two threads, one episode: thread 1 arrives 10 ms after the start, thread
 * 2 at 40 ms; both leave at 41 ms. */
static char *run_report(int format, int watch_all)
{
	struct names *names = names__new();
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct report_opts ro = {.format = format,
				 .episode_lines = 1,
				 .watch_all = watch_all,
				 .warn_ns = 20 * MS,
				 .out = f};
	struct report_src src = {
		.phases = {.probes = probes, .nprobes = NPROBES, .start_ns = START},
		.names = names,
		.command = "prog"};

	names__set(names, 7, 0x4000, "work (prog.c:12)");
	names__set(names, 7, 0x9000, "bar");
	report_episode(&ro, &src);
	names__free(names);
	fclose(f);
	return buf;
}

TEST(json_fields_exact)
{
	char *out = run_report(REPORT_JSON, 0);

	CHECK(strstr(out, "\"phase_count\": 1") != NULL);
	CHECK(strstr(out, "\"barrier_ns\": 30000000") != NULL);
	CHECK(strstr(out, "\"phase_ns\": 40000000") != NULL);
	CHECK(strstr(out, "\"call_site\": \"work (prog.c:12)\"") != NULL);
	CHECK(strstr(out, "\"name\": \"bar\"") != NULL);
	CHECK(strstr(out, "\"arrive_ns\": 10000000") != NULL);
	CHECK(strstr(out, "\"compute_ns\": 10000000") != NULL);
	CHECK(strstr(out, "\"wait_ns\": 31000000") != NULL);
	CHECK(strstr(out, "\"late_wait_ns\": 30000000") != NULL);
	CHECK(strstr(out, "\"idle_ns\": 31000000") != NULL);
	CHECK(strstr(out, "\"grouping_errors\": 0") != NULL);
	CHECK(strstr(out, "\"duration_ns\": 31000000") != NULL);
	free(out);
}

TEST(text_line_and_warning)
{
	char *out = run_report(REPORT_TEXT, 1);

	CHECK(strstr(out, "SBT WARNING: work (prog.c:12) \"bar\" (barrier: 30.000 ms > 20 ms, "
			  "phase 0: 40.000 ms, from start: 0.040 s)\n") != NULL);
	CHECK(strstr(out, "Order of arrival:") != NULL);
	CHECK(strstr(out, "Imbalance:     15.000 ms lost (LB 0.62), critical thread 2") != NULL);
	CHECK(strstr(out, "Loop barrier work (prog.c:12) \"bar\" (pid 7): 1 episodes") != NULL);
	CHECK(strstr(out, "No records lost.") != NULL);
	free(out);
}

/* Strings from the target (thread names) may not be UTF-8: the JSON stays
 * valid, with U+FFFD for the bad bytes, valid sequences and escapes kept. */
TEST(json_strings_always_valid)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct json j;

	json_init(&j, f, 0);
	json_str(&j, "w\xff\xfe \xc3\xa9 \"q\"\n\x01");
	fclose(f);
	CHECK_STR(buf, "\"w\\ufffd\\ufffd \xc3\xa9 \\\"q\\\"\\n\\u0001\"");
	free(buf);
}

/* Thread 1 waits at the barrier from 10 ms, thread 2 never comes; the
 * process is stopped (stopped threads given) or not when the hang is checked
 * at 2 s, with a 1 s timeout. */
static char *run_stopped(int format, const __u32 *stopped, int nstopped)
{
	struct names *names = names__new();
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct report_opts ro = {.format = format, .episode_lines = 1, .out = f};
	struct report_src src = {
		.phases = {.probes = probes, .nprobes = NPROBES, .start_ns = START},
		.names = names,
		.command = "prog"};
	struct report_drops d = {0};
	struct report *r = report__new(&ro, &src);
	struct phases *p = phases__new(&src.phases, &report_phases_ops, r);

	names__set(names, 7, 0x9000, "bar");
	report__attach(r, p);
	report__begin(r);
	phases__add_thread(p, 7, 2, START);
	feed(p, SBT_EV_ENTER, 1, START + 10 * MS, 0x9000, 0);
	phases__set_stopped(p, stopped, nstopped);
	phases__check_hangs(p, START + 2000 * MS, 1000 * MS);
	report__at_end(r);
	phases__finish(p);
	report__end(r, &d);
	phases__free(p);
	report__free(r);
	names__free(names);
	fclose(f);
	return buf;
}

/* A barrier of a stopped process is reported as a stop, naming the stopped
 * threads; without stopped threads, as a hang. */
TEST(stopped_process_is_no_hang)
{
	static const __u32 tids[20] = {7,  1,  2,  3,  4,  5,  6,  8,  9,
				       10, 11, 12, 13, 14, 15, 16, 17, 18};
	char *out = run_stopped(REPORT_TEXT, tids, 3);

	CHECK(strstr(out, "SBT STOPPED: ") != NULL);
	CHECK(strstr(out, "(pid 7): 1 thread waiting since 0.010 s, 1 missing, 3 stopped\n") !=
	      NULL);
	CHECK(strstr(out, "    stopped: 7 (?) 1 (?) 2 (?) (SIGSTOP or a debugger") != NULL);
	CHECK(strstr(out, "SBT HANG") == NULL);
	free(out);
	out = run_stopped(REPORT_TEXT, tids, 18);
	CHECK(strstr(out, "16 (?) and 2 more (SIGSTOP") != NULL);
	free(out);
	out = run_stopped(REPORT_JSON, tids, 2);
	CHECK(strstr(out, "\"stopped\": [\n        7,\n        1\n      ],") != NULL);
	CHECK(strstr(out, "\"stopped_threads\": 2") != NULL);
	free(out);
	out = run_stopped(REPORT_TEXT, NULL, 0);
	CHECK(strstr(out, "SBT HANG: ") != NULL);
	CHECK(strstr(out, "stopped") == NULL);
	free(out);
	out = run_stopped(REPORT_JSON, NULL, 0);
	CHECK(strstr(out, "\"stopped\": []") != NULL);
	CHECK(strstr(out, "\"stopped_threads\": 0") != NULL);
	free(out);
}

/* Where the probe costs came from (doc/design.md §5.4): the same episode, the
 * barrier probe charged pthread_barrier_wait's costs as calibrated at the
 * start (0.5 ms before it) and at 20 ms, a --probe function ("step", id 2)
 * charged them by class; probe 3 bound to nothing. */
static char *run_costs(int format, const char *source)
{
	static const struct sbt_probe_info cprobes[4] = {
		[1] = {.id = 1, .kind = SBT_PK_BARRIER, .symbol = "pthread_barrier_wait"},
		[2] = {.id = 2, .kind = SBT_PK_REGION, .symbol = "step", .object = "/opt/app"},
		[3] = {.id = 3, .kind = SBT_PK_LOCK, .symbol = "my_lock"},
	};
	static const __u64 a_in[4] = {0, 700, 700, 50}, a_out[4] = {0, 600, 600, 50};
	static const char *const names[] = {"pthread_barrier_wait", "[shim-site]", "[all-cpus]"};
	const struct alpha_cost c1[] = {{700, 600}, {500, 500}, {1950, 1300}}, c2[] = {{900, 650}};
	const int cls[] = {1, 2, 3};
	struct alpha_series *s = alpha_series__new();
	struct names *nm = names__new();
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct report_opts ro = {.format = format, .out = f};
	struct report_src src = {.phases = {.probes = cprobes,
					    .nprobes = 4,
					    .start_ns = START,
					    .alpha_enter = a_in,
					    .alpha_exit = a_out,
					    .alpha_series = s},
				 .names = nm,
				 .command = "prog",
				 .costs_source = source};

	alpha_series__add(s, START - MS / 2, names, c1, cls, 3);
	alpha_series__add(s, START + 20 * MS, names, c2, cls, 1);
	alpha_series__bind(s, 1, "pthread_barrier_wait", ALPHA_BY_NAME);
	alpha_series__bind(s, 2, "pthread_barrier_wait", ALPHA_BY_CLASS);
	report_episode(&ro, &src);
	names__free(nm);
	alpha_series__free(s);
	fclose(f);
	return buf;
}

/* s without its blanks (the JSON is indented; no string here has one). */
static char *squeeze(char *s)
{
	char *w = s, *r;

	for (r = s; *r; r++)
		if (*r != ' ' && *r != '\n')
			*w++ = *r;
	*w = 0;
	return s;
}

TEST(costs_said_where_they_came_from)
{
	char *out = run_costs(REPORT_TEXT, "session");

	CHECK(strstr(out,
		     "    Probe costs (entry + return ns): measured by the session 2 times, at "
		     "-0.001 and 0.020 s\n"
		     "        pthread_barrier_wait     700..900 + 600..650\n"
		     "        with every CPU hitting probes at once: x1.00..1.50\n"
		     "        step (app): pthread_barrier_wait's cost, its probed instruction is "
		     "of "
		     "the same class\n") != NULL);
	/* an entry no probe is charged is not listed */
	CHECK(strstr(out, "[shim-site]") == NULL);
	free(out);
	out = squeeze(run_costs(REPORT_JSON, "session"));
	CHECK(strstr(out,
		     "\"costs\":{\"source\":\"session\",\"calibrations\":2,\"at_ns\":"
		     "[-500000,20000000],\"entries\":[{\"symbol\":\"pthread_barrier_wait\","
		     "\"class\":\"emulated\",\"calibrations\":2,\"entry_ns\":{\"min\":700,"
		     "\"max\":900},\"exit_ns\":{\"min\":600,\"max\":650}}],"
		     "\"all_cpus_ratio_min\":1,\"all_cpus_ratio_max\":1.5,\"all_cpus_threads\":0,"
		     "\"borrowed\":"
		     "[{\"probe\":2,\"symbol\":\"step\",\"object\":\"/opt/app\",\"from\":"
		     "\"pthread_barrier_wait\",\"how\":\"class\"}],\"borrowed_count\":1}") != NULL);
	CHECK(strstr(out, "\"entry_ns\":700,\"exit_ns\":600,\"cost_of\":\"pthread_barrier_wait\","
			  "\"how\":\"name\"}") != NULL);
	/* the probe bound to nothing says nothing of it */
	CHECK(strstr(out,
		     "\"symbol\":\"my_lock\",\"object\":\"\",\"entry_ns\":50,\"exit_ns\":50}") !=
	      NULL);
	free(out);
	out = run_costs(REPORT_TEXT, NULL);
	CHECK(strstr(out,
		     "    Probe costs (entry + return ns): as recorded (the trace does not say "
		     "how they were obtained)\n") != NULL);
	free(out);
	out = run_costs(REPORT_TEXT, "cache");
	CHECK(strstr(out, "from the calibration cache (--no-calibrate)\n") != NULL);
	free(out);
}
