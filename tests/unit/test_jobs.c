// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* One analysis per process (jobs.c) on synthetic interleaved streams of two
 * processes running the same program: same barrier address, own phases. */
#include <stdlib.h>
#include <sys/resource.h>
#include "analyses/jobs.h"
#include "analyses/names.h"
#include "unit.h"

enum { P_NONE, P_PBW, NPROBES };

static const struct sbt_probe_info probes[NPROBES] = {
	[P_PBW] = {.id = P_PBW, .kind = SBT_PK_BARRIER, .symbol = "pthread_barrier_wait"},
};

#define PID_A 100
#define PID_B 200
#define OBJ   0x7000 /* the same address in both processes */
#define SITE  0x401000

static struct sbt_event ev(__u16 type, __u32 pid, __u32 tid, __u64 ts, __u64 obj, __u64 site)
{
	return (struct sbt_event){.ts = ts,
				  .obj = obj,
				  .site = site,
				  .pid = pid,
				  .tid = tid,
				  .type = type,
				  .probe = type == SBT_EV_ENTER || type == SBT_EV_EXIT ? P_PBW : 0};
}

/* Thread tid of pid arrives at ts and leaves at release; the last of the
 * episode gets PTHREAD_BARRIER_SERIAL_THREAD (-1). */
static void arrive(struct jobs *j, __u32 pid, __u32 tid, __u64 ts)
{
	struct sbt_event e = ev(SBT_EV_ENTER, pid, tid, ts, OBJ, 0);

	jobs__feed(j, &e);
}

static void leave(struct jobs *j, __u32 pid, __u32 tid, __u64 ts, int serial)
{
	struct sbt_event e = ev(SBT_EV_EXIT, pid, tid, ts, serial ? (__u64)-1 : 0, SITE);

	jobs__feed(j, &e);
}

static struct jobs *new_jobs(FILE *out, int json, struct names *names)
{
	struct jobs_config c = {
		.ro = {.format = json ? REPORT_JSON : REPORT_TEXT, .out = out},
		.src = {.phases = {.probes = probes, .nprobes = NPROBES}, .names = names},
		.separate = 1,
		.show_idle = 0,
	};

	return jobs__new(&c);
}

/* A: threads 101, 102; 3 episodes, 102 late by 10 each time.
 * B: threads 201..203; 2 episodes, 203 late by 30. Interleaved in time. */
static void feed_two_processes(struct jobs *j)
{
	__u64 t;
	int k;

	for (k = 0; k < 3; k++) {
		t = 1000 + k * 100;
		arrive(j, PID_A, 101, t);
		if (k < 2) {
			arrive(j, PID_B, 201, t + 1);
			arrive(j, PID_B, 202, t + 2);
		}
		arrive(j, PID_A, 102, t + 10);
		leave(j, PID_A, 102, t + 11, 1);
		leave(j, PID_A, 101, t + 12, 0);
		if (k < 2) {
			arrive(j, PID_B, 203, t + 31);
			leave(j, PID_B, 203, t + 32, 1);
			leave(j, PID_B, 201, t + 33, 0);
			leave(j, PID_B, 202, t + 34, 0);
		}
	}
}

TEST(each_process_has_its_own_phases)
{
	struct names *names = names__new();
	FILE *out = tmpfile();
	struct jobs *j = new_jobs(out, 0, names);
	struct job *a = jobs__start(j, PID_A, 900, "./prog A");
	struct job *b = jobs__start(j, PID_B, 900, "./prog B");
	struct sbt_event idle = ev(SBT_EV_ENTER, 300, 301, 1000, OBJ, 0);

	CHECK(a && b);
	CHECK(jobs__feed(j, &idle) == NULL); /* no job for pid 300 */
	feed_two_processes(j);
	CHECK_EQ(phases__completed(a->ph), 3);
	CHECK_EQ(phases__completed(b->ph), 2);
	CHECK_EQ(phases__nthreads(a->ph), 2);
	CHECK_EQ(phases__nthreads(b->ph), 3);
	CHECK_EQ(phases__grouping_errors(a->ph), 0);
	CHECK_EQ(phases__grouping_errors(b->ph), 0);
	/* barrier time: first to last arrival, each process on its own */
	CHECK_EQ(phases__site(a->ph, 0)->barrier_sum, 3 * 10);
	CHECK_EQ(phases__site(b->ph, 0)->barrier_sum, 2 * 30);
	CHECK(job__active(a) && job__active(b));
	jobs__end_all(j, NULL, NULL);
	jobs__free(j);
	fclose(out);
	names__free(names);
}

static char *read_all(FILE *f)
{
	long n;
	char *s;

	fflush(f);
	n = ftell(f);
	s = calloc(1, n + 1);
	rewind(f);
	if (s && fread(s, 1, n, f) != (size_t)n)
		s[0] = 0;
	return s;
}

TEST(exit_prints_the_report_under_a_heading_and_frees_the_pid)
{
	struct names *names = names__new();
	FILE *out = tmpfile();
	struct jobs *j = new_jobs(out, 0, names);
	struct job *a = jobs__start(j, PID_A, 900, "./prog A"), *again;
	struct sbt_event last = ev(SBT_EV_THREAD_EXIT, PID_A, 101, 2000, 0, 0);
	char *text;

	jobs__start(j, PID_B, 900, "./prog B");
	feed_two_processes(j);
	last.probe = 1; /* the last thread of the process */
	CHECK(jobs__feed(j, &last) == a);
	CHECK_EQ(a->end_ns, 2000);
	jobs__end(j, a, &(struct report_drops){.total = 0});
	CHECK(jobs__find(j, PID_A) == NULL);
	/* the pid, reused, is a new job */
	again = jobs__start(j, PID_A, 3000, "./other");
	CHECK(again && again != a && jobs__find(j, PID_A) == again);
	CHECK_EQ(jobs__count(j), 3);
	jobs__end_all(j, NULL, NULL);
	text = read_all(out);
	CHECK(strstr(text, "=== pid 100: ./prog A (exited after 0.000 s) ===\n") == text);
	CHECK(strstr(text, "SBT summary: 3 phases") != NULL);
	CHECK(strstr(text, "=== pid 200: ./prog B ===") != NULL);
	CHECK(strstr(text, "SBT summary: 2 phases") != NULL);
	CHECK(strstr(text, "./other") == NULL); /* no barrier activity: not shown */
	free(text);
	jobs__free(j);
	fclose(out);
	names__free(names);
}

TEST(json_is_one_document_with_a_report_per_process)
{
	struct names *names = names__new();
	FILE *out = tmpfile();
	struct jobs *j = new_jobs(out, 1, names);
	char *text;

	jobs__begin(j);
	jobs__start(j, PID_A, 900, "./prog \"A\"");
	jobs__start(j, PID_B, 900, "./prog B");
	feed_two_processes(j);
	jobs__end_all(j, NULL, NULL);
	text = read_all(out);
	CHECK(strstr(text, "{\"schema\": 1, \"jobs\": [\n{\"pid\": 100, ") == text);
	CHECK(strstr(text, "\"start_ns\": 900, \"end_ns\": 0, \"report\": {") != NULL);
	CHECK(strstr(text, "\"command\": \"./prog \\\"A\\\"\"") != NULL);
	CHECK(strstr(text, "},\n{\"pid\": 200, ") != NULL);
	CHECK(strstr(text, "\n]}\n") != NULL);
	free(text);
	jobs__free(j);
	fclose(out);
	names__free(names);
}

static int count(const char *text, const char *what)
{
	int n = 0;

	for (; (text = strstr(text, what)); text++)
		n++;
	return n;
}

/* Each report aside took a temporary file: past the descriptor limit (about
 * 1000 processes) a process could not be started and was left out, its
 * records dropped without a word. In memory, none is needed: 300 processes
 * under a limit of 32 descriptors, each reported, in order. */
TEST(reports_aside_need_no_descriptor)
{
	struct names *names = names__new();
	FILE *out = tmpfile();
	struct jobs *j = new_jobs(out, 0, names);
	struct rlimit old, few;
	char *text, want[64];
	const char *at;
	__u32 k, started = 0;

	CHECK_EQ(getrlimit(RLIMIT_NOFILE, &old), 0);
	few = (struct rlimit){.rlim_cur = 32, .rlim_max = old.rlim_max};
	CHECK_EQ(setrlimit(RLIMIT_NOFILE, &few), 0);
	for (k = 0; k < 300; k++)
		started += jobs__start(j, 1000 + k, 900, "./prog") != NULL;
	CHECK_EQ(setrlimit(RLIMIT_NOFILE, &old), 0);
	CHECK_EQ(started, 300);
	for (k = 0; k < 300; k++) {
		arrive(j, 1000 + k, 1000 + k, 1000 + k);
		leave(j, 1000 + k, 1000 + k, 1001 + k, 1);
	}
	jobs__end_all(j, NULL, NULL);
	CHECK_EQ(jobs__failed(j), 0);
	text = read_all(out);
	CHECK_EQ(count(text, "=== pid "), 300);
	CHECK_EQ(count(text, "SBT summary: 1 phases"), 300);
	for (at = text, k = 0; k < 300 && at; k++) {
		snprintf(want, sizeof(want), "=== pid %u: ./prog ===\n", 1000 + k);
		at = strstr(at, want);
	}
	CHECK(at != NULL); /* every heading, in start order */
	free(text);
	jobs__free(j);
	fclose(out);
	names__free(names);
}

/* A failed write to the output (a full disk) stays on the output for its
 * owner's close to report: the command fails. */
TEST(a_full_output_is_an_error_on_the_output)
{
	struct names *names = names__new();
	FILE *out = fopen("/dev/full", "w");
	struct jobs *j = new_jobs(out, 0, names);

	CHECK(out != NULL);
	if (!out)
		return;
	jobs__start(j, PID_A, 900, "./prog A");
	jobs__start(j, PID_B, 900, "./prog B");
	feed_two_processes(j);
	jobs__end_all(j, NULL, NULL);
	CHECK(ferror(out));
	CHECK_EQ(jobs__failed(j), 0); /* nothing left out: the output failed */
	jobs__free(j);
	fclose(out);
	names__free(names);
}

/* ---- a launched command's tree (live_first) ------------------------------------ */

#define PID_SH 300 /* the command: a wrapper that synchronizes with nobody */

static struct jobs *new_tree(FILE *out, int json, struct names *names)
{
	struct jobs_config c = {
		.ro = {.format = json ? REPORT_JSON : REPORT_TEXT, .episode_lines = 1, .out = out},
		.src = {.phases = {.probes = probes, .nprobes = NPROBES}, .names = names},
		.live_first = 1,
	};

	return jobs__new(&c);
}

/* A alone: threads 101, 102; 3 episodes. */
static void feed_a(struct jobs *j)
{
	int k;

	for (k = 0; k < 3; k++) {
		arrive(j, PID_A, 101, 1000 + k * 100);
		arrive(j, PID_A, 102, 1010 + k * 100);
		leave(j, PID_A, 102, 1011 + k * 100, 1);
		leave(j, PID_A, 101, 1012 + k * 100, 0);
	}
}

TEST(tree_with_one_process_synchronizing_reads_as_that_process_alone)
{
	struct names *names = names__new();
	FILE *out = tmpfile();
	struct jobs *j = new_tree(out, 0, names);
	struct job *sh = jobs__start(j, PID_SH, 900, "sh -c ./prog");
	struct job *a = jobs__start(j, PID_A, 950, "./prog A");
	char *text;

	feed_a(j);
	CHECK(a->live && !sh->live);
	/* live: the episode lines are out before the end */
	fflush(out);
	CHECK_EQ(ftell(out) > 0, 1);
	CHECK_EQ(jobs__nsynced(j), 1);
	CHECK(jobs__reported(j, a) && !jobs__reported(j, sh));
	jobs__end_all(j, NULL, NULL);
	text = read_all(out);
	CHECK_EQ(count(text, "(barrier: "), 3);
	CHECK_EQ(count(text, "SBT summary: "), 1);
	CHECK(strstr(text, "SBT summary: 3 phases") != NULL);
	CHECK(strstr(text, "===") == NULL); /* no heading */
	free(text);
	jobs__free(j);
	fclose(out);
	names__free(names);
}

TEST(tree_with_two_processes_synchronizing_has_a_report_each_under_a_heading)
{
	struct names *names = names__new();
	FILE *out = tmpfile();
	struct jobs *j = new_tree(out, 0, names);
	struct job *a, *b;
	char *text, *ha, *hb;

	jobs__start(j, PID_SH, 900, "sh -c './prog A & ./prog B'");
	a = jobs__start(j, PID_A, 950, "./prog A");
	b = jobs__start(j, PID_B, 960, "./prog B");
	feed_two_processes(j);
	CHECK(a->live && !b->live); /* A reached a barrier first */
	jobs__end(j, b, &(struct report_drops){.total = 0});
	jobs__end_all(j, NULL, NULL);
	text = read_all(out);
	/* A's episodes live, B's not; then B's report, then A's summary */
	CHECK_EQ(count(text, "(barrier: "), 3);
	hb = strstr(text, "\n=== pid 200: ./prog B ===\n");
	ha = strstr(text, "\n=== pid 100: ./prog A ===\n");
	CHECK(hb && ha && hb < ha);
	CHECK(hb && strstr(hb, "SBT summary: 2 phases") < ha);
	CHECK(ha && strstr(ha, "SBT summary: 3 phases") != NULL);
	CHECK(strstr(text, "sh -c") == NULL);
	CHECK_EQ(count(text, "SBT summary: "), 2);
	free(text);
	jobs__free(j);
	fclose(out);
	names__free(names);
}

TEST(tree_where_nothing_synchronized_reports_the_command)
{
	struct names *names = names__new();
	FILE *out = tmpfile();
	struct jobs *j = new_tree(out, 0, names);
	struct job *sh = jobs__start(j, PID_SH, 900, "sh -c true");
	struct job *other = jobs__start(j, 301, 900, "true");
	char *text;

	CHECK(jobs__reported(j, sh) && !jobs__reported(j, other));
	jobs__end_all(j, NULL, NULL);
	text = read_all(out);
	CHECK(strstr(text, "\nSBT summary: 0 phases") == text);
	CHECK_EQ(count(text, "SBT summary: "), 1);
	CHECK(strstr(text, "===") == NULL);
	free(text);
	jobs__free(j);
	fclose(out);
	names__free(names);
}

TEST(tree_json_is_one_report_or_the_jobs_document_as_it_turns_out)
{
	struct names *names = names__new();
	FILE *one = tmpfile(), *two = tmpfile();
	struct jobs *j = new_tree(one, 1, names);
	char *text;

	jobs__begin(j);
	jobs__start(j, PID_SH, 900, "sh -c ./prog");
	jobs__start(j, PID_A, 950, "./prog A");
	feed_a(j);
	jobs__end_all(j, NULL, NULL);
	jobs__free(j);
	text = read_all(one);
	CHECK(text[0] == '{' && strstr(text, "\"schema\": 1,") != NULL);
	CHECK(strstr(text, "\"jobs\"") == NULL);
	CHECK_EQ(count(text, "\"phase_count\": 3"), 1);
	free(text);

	j = new_tree(two, 1, names);
	jobs__begin(j);
	jobs__start(j, PID_SH, 900, "sh -c './prog A & ./prog B'");
	jobs__start(j, PID_A, 950, "./prog A");
	jobs__start(j, PID_B, 960, "./prog B");
	feed_two_processes(j);
	jobs__end_all(j, NULL, NULL);
	jobs__free(j);
	text = read_all(two);
	CHECK(strstr(text, "{\"schema\": 1, \"jobs\": [\n{\"pid\": 100, ") == text);
	CHECK(strstr(text, "},\n{\"pid\": 200, ") != NULL);
	CHECK(strstr(text, "\"pid\": 300") == NULL);
	CHECK(strstr(text, "\n]}\n") != NULL);
	free(text);
	fclose(one);
	fclose(two);
	names__free(names);
}

/* -a (and following a tree): a process forked in the session, without exec,
 * is a job from its fork record's time, its main thread started there
 * (user/trace/context.c adds it so); one that existed at the attach is a job
 * from the session's start, its threads' starts unknown. The same stream,
 * pshared's child's: its main thread alone at a barrier every 4 ms, 40
 * times, forked 1.2 s into the session, gone 0.161 s after its fork. */
#define SESSION_NS 1000000000ull
#define FORK_NS	   (SESSION_NS + 1200000000ull)
#define STEP_NS	   4000000ull

static char *forked_child_report(int born)
{
	struct names *names = names__new();
	FILE *out = tmpfile();
	struct jobs *j = new_jobs(out, 0, names);
	struct job *c = jobs__start(j, PID_B, born ? FORK_NS : SESSION_NS, "./pshared 40");
	struct sbt_event last = ev(SBT_EV_THREAD_EXIT, PID_B, PID_B, FORK_NS + 161000000, 0, 0);
	char *text;
	__u64 t;
	int k;

	phases__add_thread(c->ph, PID_B, PID_B, born ? FORK_NS : 0);
	for (k = 1; k <= 40; k++) {
		t = FORK_NS + k * STEP_NS;
		arrive(j, PID_B, PID_B, t - 2000);
		leave(j, PID_B, PID_B, t, 1);
	}
	last.probe = 1;
	CHECK(jobs__feed(j, &last) == c);
	jobs__end(j, c, &(struct report_drops){.total = 0});
	jobs__end_all(j, NULL, NULL);
	text = read_all(out);
	jobs__free(j);
	fclose(out);
	names__free(names);
	return text;
}

TEST(a_process_forked_in_the_session_is_a_job_from_its_fork)
{
	char *text = forked_child_report(1);

	CHECK(strstr(text, "=== pid 200: ./pshared 40 (exited after 0.161 s) ===\n") == text);
	CHECK(strstr(text, "SBT summary: 40 phases, 1 barrier site(s), 1 threads, ") != NULL);
	CHECK(strstr(text, "partial") == NULL);
	/* phase 0 from the fork: every iteration its 4 ms */
	CHECK(strstr(text, "40 iterations (39 timed)") != NULL);
	CHECK(strstr(text, "measured: mean 4.000 ms, min 4.000, max 4.000; trend +0.000 ms per "
			   "iteration, jitter (cv) 0.000\n") != NULL);
	free(text);
	/* the same process taken for one that was there at the attach: what
	 * -a made of it when nothing recorded its fork */
	text = forked_child_report(0);
	CHECK(strstr(text, "=== pid 200: ./pshared 40 (exited after 1.361 s) ===\n") == text);
	CHECK(strstr(text, "SBT summary: 40 phases (1 partial: began before attach, not in the "
			   "statistics)") != NULL);
	/* the iteration the partial phase began is not timed (it was 1204 ms:
	 * from the bound of its start, the session's) */
	CHECK(strstr(text, "40 iterations (38 timed)") != NULL);
	CHECK(strstr(text, "measured: mean 4.000 ms, min 4.000, max 4.000;") != NULL);
	free(text);
}

/* A tree where nothing synchronized (-- sh -c PROG): the process that
 * created threads is the one reported, not the shell that ran it; one that
 * synchronizes is, whatever threads the others created. */
TEST(tree_where_none_synchronized_reports_the_first_that_created_threads)
{
	struct names *names = names__new();
	FILE *out = tmpfile();
	struct jobs *j = new_tree(out, 0, names);
	struct job *sh = jobs__start(j, PID_SH, 900, "sh -c ./prog");
	struct job *a = jobs__start(j, PID_A, 950, "./prog A");
	struct sbt_event start = ev(SBT_EV_THREAD_START, PID_A, 101, 1000, 0, 0);
	char *text;

	CHECK(jobs__reported(j, sh) && !jobs__reported(j, a));
	jobs__feed(j, &start);
	CHECK(jobs__threaded(j) == a);
	CHECK(!jobs__reported(j, sh) && jobs__reported(j, a));
	jobs__end_all(j, NULL, NULL);
	text = read_all(out);
	CHECK_EQ(count(text, "SBT summary: "), 1);
	CHECK(strstr(text, " 1 threads") != NULL); /* A's: 101 (the main thread never seen) */
	free(text);
	jobs__free(j);
	fclose(out);
	names__free(names);
}
