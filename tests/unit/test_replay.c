// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Crafted trace files through `report`'s path (analyses/replay.c): times a
 * recorder never writes (near 2^63 and 2^64, a realtime offset near the
 * limits) give a report, never an overflow (UBSan: signed overflow in the
 * wall-clock time of a watch block's arrivals). */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>
#include "analyses/replay.h"
#include "unit.h"

enum { P_NONE, P_PBW, NPROBES };

#define PID 4000
#define MS  1000000ULL

static void tmp_path(char *path)
{
	int fd;

	strcpy(path, "/tmp/sbt-replay-XXXXXX");
	fd = mkstemp(path);
	CHECK(fd >= 0);
	if (fd >= 0)
		close(fd);
}

static void put(struct tf_writer *w, __u16 type, __u32 tid, __u64 ts, __u64 obj, __u64 site)
{
	struct sbt_event e = sbt_event_make(type, P_PBW, PID, tid, ts, obj, site);

	CHECK_EQ(tracefile__write(w, &e, 1), 0);
}

/* The probe costs calibrated during the recording of write_costed_trace():
 * barrier 100 / 50 before the start, 400 / 150 from 4 ms on (between the two
 * episodes). */
static const char *cost_names[] = {"pthread_barrier_wait"};
static const struct alpha_cost cost1 = {100, 50}, cost2 = {400, 150};
#define COST2_AT (4 * MS)

/* A trace of two threads meeting twice at one barrier from start on (1 and
 * 3 ms of compute), its wall clock CLOCK_MONOTONIC + realtime; with costs,
 * the barrier probe is charged its costs as calibrated during the recording
 * (else the ALPHA table's 500 throughout). */
static void write_costed_trace(const char *path, __u64 start, __s64 realtime, int costs)
{
	static struct sbt_probe_info probe = {
		.id = P_PBW, .kind = SBT_PK_BARRIER, .symbol = "pthread_barrier_wait"};
	static __u64 alpha[NPROBES] = {0, 500};
	struct tf_thread threads[2] = {{.pid = PID, .tid = PID + 1, .start_ns = start},
				       {.pid = PID, .tid = PID + 2, .start_ns = start}};
	struct tf_meta m = {.kernel = "k",
			    .host = "h",
			    .command = "crafted",
			    .clock = "CLOCK_MONOTONIC",
			    .sbt_version = "t",
			    .command_end = "",
			    .start_ns = start,
			    .realtime_offset_ns = realtime,
			    .probes = &probe,
			    .nprobes = 1,
			    .threads = threads,
			    .nthreads = 2,
			    .alpha_enter = alpha,
			    .alpha_exit = alpha,
			    .nalpha = NPROBES};
	struct tf_cost cal_costs[2] = {
		{.name = 0, .cls = 1, .entry_ns = cost1.entry_ns, .exit_ns = cost1.exit_ns},
		{.name = 0, .cls = 1, .entry_ns = cost2.entry_ns, .exit_ns = cost2.exit_ns}};
	/* written out of time order: read in time order */
	struct tf_calibration cals[2] = {{.ts_ns = start + COST2_AT, .first = 1, .n = 1},
					 {.ts_ns = start - 5 * MS, .first = 0, .n = 1}};
	struct tf_cost_bind bind = {.id = P_PBW, .how = ALPHA_BY_NAME, .name = 0};
	struct tf_writer *w = tracefile__create(path);
	__u64 t = start;
	int k;

	if (costs) {
		m.costs_source = "session";
		m.cost_names = (char **)cost_names;
		m.ncost_names = 1;
		m.cal_costs = cal_costs;
		m.ncal_costs = 2;
		m.calibrations = cals;
		m.ncalibrations = 2;
		m.cost_binds = &bind;
		m.ncost_binds = 1;
	}
	CHECK(w != NULL);
	if (!w)
		return;
	for (k = 0; k < 2; k++) {
		put(w, SBT_EV_ENTER, PID + 1, t + 1 * MS, 0x601000, 0);
		put(w, SBT_EV_ENTER, PID + 2, t + 3 * MS, 0x601000, 0);
		put(w, SBT_EV_EXIT, PID + 1, t + 3 * MS + 10, (__u64)-1, 0x401234);
		put(w, SBT_EV_EXIT, PID + 2, t + 3 * MS + 20, 0, 0x401234);
		t += 3 * MS + 20;
	}
	m.end_ns = t;
	CHECK_EQ(tracefile__finish(w, &m), 0);
}

static void write_trace(const char *path, __u64 start, __s64 realtime)
{
	write_costed_trace(path, start, realtime, 0);
}

/* `sbt-bpf report --watch-all FILE` of the trace, opened by its path or
 * (by_fd) on a descriptor: its output (to free). */
static char *report_of(__u64 start, __s64 realtime, int by_fd)
{
	struct report_opts ro = {.format = REPORT_TEXT, .phase_table = 1, .watch_all = 1};
	struct approx_opts a;
	struct replay rp;
	char path[64], *buf = NULL;
	size_t len = 0;
	int fd = -1;

	tmp_path(path);
	write_trace(path, start, realtime);
	approx_opts__init(&a);
	ro.out = open_memstream(&buf, &len);
	CHECK(ro.out != NULL);
	if (by_fd) {
		fd = open(path, O_RDONLY);
		CHECK_EQ(replay__open_fd(&rp, fd, "fd.sbt", &a), 0);
		close(fd);
	} else {
		CHECK_EQ(replay__open(&rp, path, &a), 0);
	}
	CHECK_EQ(replay__select(&rp, 0, 0), 0);
	CHECK_EQ(replay__report(&rp, &ro, 0), 0);
	replay__close(&rp);
	fclose(ro.out);
	unlink(path);
	return buf;
}

static char *report_watch_all(__u64 start, __s64 realtime)
{
	return report_of(start, realtime, 0);
}

/* The real time column of the watch block's first arrival row (thread
 * PID + 1), into col. */
static void first_real_time(const char *out, char *col, size_t n)
{
	const char *row = strstr(out, "Order of arrival:");
	char tid[16];
	const char *end;

	col[0] = 0;
	snprintf(tid, sizeof(tid), " %u ", PID + 1);
	row = row ? strstr(row, tid) : NULL;
	end = row ? strchr(row, '\n') : NULL;
	if (!end)
		return;
	/* the last field of the row (no counters) */
	while (end > row && end[-1] == ' ')
		end--;
	for (row = end; row > out && row[-1] != ' '; row--)
		;
	snprintf(col, n, "%.*s", (int)(end - row), row);
}

static int is_time_of_day(const char *s)
{
	unsigned h, m, sec, us;
	char rest;

	return sscanf(s, "%2u:%2u:%2u.%6u%c", &h, &m, &sec, &us, &rest) == 4 && h < 24 && m < 60 &&
	       sec < 61;
}

/* replay__open_fd: the same report as from the path. */
TEST(open_fd_reports_the_same)
{
	char *by_path = report_of(1000000000ULL, 0, 0), *by_fd = report_of(1000000000ULL, 0, 1);

	CHECK_STR(by_fd, by_path);
	CHECK(strstr(by_fd, "SBT summary: 2 phases") != NULL);
	free(by_path);
	free(by_fd);
}

TEST(wall_clock_of_a_sane_trace)
{
	char *out = report_watch_all(1000000000ULL, 1700000000000000000LL), col[64];

	first_real_time(out, col, sizeof(col));
	CHECK(is_time_of_day(col));
	CHECK(strstr(out, "SBT summary: 2 phases") != NULL);
	free(out);
}

/* Monotonic times near 2^63 and 2^64 plus a realtime offset near its limits
 * overflowed a signed sum: a time that fits is shown, one that does not is
 * "?". */
TEST(wall_clock_of_huge_times)
{
	__u64 starts[] = {0x7fffffffc0000000ULL, 0x8000000000000000ULL, 0xfffffffff0000000ULL};
	__s64 offsets[] = {1700000000000000000LL, INT64_MAX, -INT64_MAX, INT64_MIN};
	char *out, col[64];
	size_t i, j;

	for (i = 0; i < sizeof(starts) / sizeof(starts[0]); i++)
		for (j = 0; j < sizeof(offsets) / sizeof(offsets[0]); j++) {
			/* thread PID + 1 arrives 1 ms after the start */
			__int128 real = (__int128)(starts[i] + 1 * MS) + offsets[j];

			out = report_watch_all(starts[i], offsets[j]);
			first_real_time(out, col, sizeof(col));
			if (real < 0 || real > INT64_MAX)
				CHECK_STR(col, "?");
			else
				CHECK(is_time_of_day(col));
			/* the phases themselves are what they were */
			CHECK(strstr(out, "SBT summary: 2 phases") != NULL);
			CHECK(strstr(out, "Barrier time:  2.000 ms") != NULL);
			free(out);
		}
}

/* A realtime offset that puts the time before 1970 is no time of day. */
TEST(wall_clock_before_1970_is_unknown)
{
	char *out = report_watch_all(1000000000ULL, -5000000000LL), col[64];

	first_real_time(out, col, sizeof(col));
	CHECK_STR(col, "?");
	free(out);
}

/* ---- a trace of several processes: a report each (report_jobs) ----------------- */

#define B 1000000000ULL

static void put_pid(struct tf_writer *w, __u16 type, __u16 probe, __u32 pid, __u32 tid, __u64 ts,
		    __u64 obj, __u64 site)
{
	struct sbt_event e = sbt_event_make(type, probe, pid, tid, ts, obj, site);

	CHECK_EQ(tracefile__write(w, &e, 1), 0);
}

/* Thread tid of pid alone at a barrier at ts. */
static void episode(struct tf_writer *w, __u32 pid, __u32 tid, __u64 ts)
{
	put_pid(w, SBT_EV_ENTER, P_PBW, pid, tid, ts, 0x601000, 0);
	put_pid(w, SBT_EV_EXIT, P_PBW, pid, tid, ts + 10, (__u64)-1, 0x401234);
}

/* pid 100 ("first", threads 100, 101, and 103 from before the recording and
 * never seen to exit) ends at B + 5000; pid 200 ("other") runs on; pid 100
 * again from B + 6000 ("second", threads 100 and 102); pid 300 has records and
 * a thread, no JOBS entry. */
static void write_jobs_trace(const char *path)
{
	static struct sbt_probe_info probe = {
		.id = P_PBW, .kind = SBT_PK_BARRIER, .symbol = "pthread_barrier_wait"};
	struct tf_job jobs[] = {{.pid = 100, .start_ns = B, .end_ns = B + 5000, .command = "first"},
				{.pid = 200, .start_ns = B, .command = "other"},
				{.pid = 100, .start_ns = B + 6000, .command = "second"}};
	struct tf_thread threads[] = {{.pid = 100, .tid = 100, .start_ns = B, .exit_ns = B + 5000},
				      {.pid = 100, .tid = 101, .start_ns = B, .exit_ns = B + 4000},
				      {.pid = 100, .tid = 103},
				      {.pid = 200, .tid = 200, .start_ns = B},
				      {.pid = 300, .tid = 300, .start_ns = B},
				      {.pid = 100, .tid = 102, .start_ns = B + 6000},
				      {.pid = 100, .tid = 100, .start_ns = B + 6000}};
	struct tf_meta m = {.kernel = "k",
			    .host = "h",
			    .command = "crafted",
			    .clock = "CLOCK_MONOTONIC",
			    .sbt_version = "t",
			    .command_end = "",
			    .start_ns = B,
			    .end_ns = B + 10000,
			    .probes = &probe,
			    .nprobes = 1,
			    .threads = threads,
			    .nthreads = sizeof(threads) / sizeof(threads[0]),
			    .jobs = jobs,
			    .njobs = sizeof(jobs) / sizeof(jobs[0])};
	struct tf_writer *w = tracefile__create(path);

	CHECK(w != NULL);
	if (!w)
		return;
	episode(w, 100, 100, B + 100);
	put_pid(w, SBT_EV_ENTER, P_PBW, 300, 300, B + 150, 0x601000, 0);
	episode(w, 100, 101, B + 200);
	episode(w, 200, 200, B + 300);
	put_pid(w, SBT_EV_THREAD_EXIT, 0, 100, 101, B + 4000, 0, 0);
	put_pid(w, SBT_EV_THREAD_EXIT, 1, 100, 100, B + 5000, 0, 0); /* its last thread */
	put_pid(w, SBT_EV_EXIT, P_PBW, 300, 300, B + 5500, (__u64)-1, 0x401234);
	episode(w, 100, 100, B + 6100);
	episode(w, 100, 102, B + 6200);
	CHECK_EQ(tracefile__finish(w, &m), 0);
}

static int count_of(const char *text, const char *what)
{
	int n = 0;

	for (; (text = strstr(text, what)); text++)
		n++;
	return n;
}

/* The section of out under the heading that starts with head, to the next. */
static char *section(const char *out, const char *head)
{
	const char *at = strstr(out, head), *end;

	if (!at)
		return strdup("");
	end = strstr(at + 1, "\n=== pid ");
	return strndup(at, end ? (size_t)(end - at) : strlen(at));
}

/* Each process of the trace reported once under its heading, its threads its
 * own: a thread goes to the first of its pid's jobs whose life it overlaps
 * (103, never seen to exit, to "first" only); pid 300 has none. */
TEST(a_report_per_process_each_with_its_threads)
{
	struct report_opts ro = {.format = REPORT_TEXT, .phase_table = 1};
	struct approx_opts a;
	struct replay rp;
	char path[64], *buf = NULL, *s;
	size_t len = 0;

	tmp_path(path);
	write_jobs_trace(path);
	approx_opts__init(&a);
	ro.out = open_memstream(&buf, &len);
	CHECK_EQ(replay__open(&rp, path, &a), 0);
	CHECK_EQ(replay__select(&rp, 0, 0), 0);
	CHECK_EQ(replay__report(&rp, &ro, 0), 0);
	replay__close(&rp);
	fclose(ro.out);
	unlink(path);
	CHECK_EQ(count_of(buf, "=== pid "), 3);
	CHECK(strstr(buf, "=== pid 100: first (exited after 0.000 s) ===\n") == buf);
	CHECK(strstr(buf, "=== pid 200: other ===") < strstr(buf, "=== pid 100: second ==="));
	CHECK(strstr(buf, "pid 300") == NULL && strstr(buf, " 300 ") == NULL);
	s = section(buf, "=== pid 100: first");
	CHECK(strstr(s, "SBT summary: 2 phases, 1 barrier site(s), 3 threads, 6 events") != NULL);
	CHECK_EQ(count_of(s, "           100        10"), 3); /* 103, 100, 101 */
	CHECK(strstr(s, "           100        103                           0 ") != NULL);
	free(s);
	s = section(buf, "=== pid 200: other");
	CHECK(strstr(s, "SBT summary: 1 phases, 1 barrier site(s), 1 threads, 2 events") != NULL);
	free(s);
	s = section(buf, "=== pid 100: second");
	CHECK(strstr(s, "SBT summary: 2 phases, 1 barrier site(s), 2 threads, 4 events") != NULL);
	CHECK_EQ(count_of(s, "           100        10"), 2); /* 102, 100 */
	CHECK(strstr(s, " 103 ") == NULL);
	free(s);
	free(buf);
}

/* The approximation of a trace (path) through report's path, its series
 * replaced by costs (NULL: none) unless keep: the approximated end of each
 * thread and of the run into ta[0..3). */
static void approximate(const char *path, int keep, const struct alpha_series *costs, __u64 ta[3])
{
	struct approx_opts a;
	struct phases_config cfg;
	struct replay rp;
	struct phases *ph;

	approx_opts__init(&a);
	CHECK_EQ(replay__open(&rp, path, &a), 0);
	CHECK_EQ(replay__select(&rp, 0, 0), 0);
	cfg = replay__phases_config(&rp);
	if (!keep)
		cfg.alpha_series = costs;
	ph = phases__new(&cfg, NULL, NULL);
	CHECK_EQ(replay__run(&rp, ph, 0, NULL, NULL), 0);
	ta[0] = phases__thread_approx(ph, PID + 1);
	ta[1] = phases__thread_approx(ph, PID + 2);
	ta[2] = phases__approx_last_ts(ph);
	phases__free(ph);
	replay__close(&rp);
}

/* A recording whose probe costs were calibrated again during it: report
 * approximates with the calibration in force at each record, exactly as the
 * live session did with the same costs (a series built here); a trace of an
 * older version (the ALPHA table alone) charges that table throughout, as
 * before. */
TEST(costs_calibrated_during_the_recording)
{
	struct alpha_series *s = alpha_series__new();
	__u64 start = 1000000000ULL, from_file[3], live[3], fixed[3], old[3];
	char path[64];

	tmp_path(path);
	write_costed_trace(path, start, 0, 1);
	CHECK_EQ(alpha_series__add(s, start - 5 * MS, cost_names, &cost1, NULL, 1), 0);
	CHECK_EQ(alpha_series__add(s, start + COST2_AT, cost_names, &cost2, NULL, 1), 0);
	CHECK_EQ(alpha_series__bind(s, P_PBW, cost_names[0], ALPHA_BY_NAME), 0);
	approximate(path, 1, NULL, from_file);
	approximate(path, 0, s, live);
	approximate(path, 0, NULL, fixed);
	CHECK_EQ(from_file[0], live[0]);
	CHECK_EQ(from_file[1], live[1]);
	CHECK_EQ(from_file[2], live[2]);
	/* both threads leave the second episode at its last arrival: thread 2's
	 * 6 ms less the return cost (50) of its exit from the first one, which
	 * came before 4 ms (the calibration of 4 ms on charges 150); with the
	 * ALPHA table's 500, less 500 */
	CHECK_EQ(from_file[0] - start, 6 * MS - 50);
	CHECK_EQ(from_file[1] - start, 6 * MS - 50);
	CHECK_EQ(from_file[2] - start, 6 * MS - 50);
	CHECK_EQ(fixed[2] - start, 6 * MS - 500);
	write_costed_trace(path, start, 0, 0);
	approximate(path, 1, NULL, old);
	CHECK_EQ(old[0], fixed[0]);
	CHECK_EQ(old[1], fixed[1]);
	CHECK_EQ(old[2], fixed[2]);
	unlink(path);
	alpha_series__free(s);
}
