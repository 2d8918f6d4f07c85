// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* One analysis per process (jobs.c) on synthetic interleaved streams of two
 * processes running the same program: same barrier address, own phases. */
#include <stdlib.h>
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
