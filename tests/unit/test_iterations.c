// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Outer iterations (analyses/iterations.h, doc/design.md §5.6) of synthetic
 * episode streams, with exact times: count, mean, min, max, trend, jitter,
 * in both views; the first site is the loop's entry. */
#include <math.h>
#include "analyses/iterations.h"
#include "unit.h"

#define NEAR(x, v) CHECK(fabs((x) - (v)) < 1e-6)

/* Iteration k of the loop B C D (after an initialization at site A) takes
 * 100 + 10k ns measured and half of that approximated. */
TEST(times_trend_and_jitter)
{
	struct iterations *it = iterations__new();
	struct it_result o;
	__u64 t = 1000, ta = 500, start[2];
	int k, j;

	start[0] = t, start[1] = ta;
	iterations__episode(it, 7, 0, start, 2, 0);
	for (k = 0; k < 6; k++) {
		for (j = 0; j < 3; j++) {
			start[0] = t + j, start[1] = ta + j;
			iterations__episode(it, 7, 1 + j, start, 2, 0);
		}
		t += 100 + 10 * k;
		ta += (100 + 10 * k) / 2;
	}
	CHECK_EQ(iterations__nprocs(it), 1);
	CHECK_EQ(iterations__result(it, 0, &o), 0);
	CHECK_EQ(o.pid, 7);
	CHECK_EQ(o.len, 3);
	CHECK_EQ(o.sites[0], 1);
	CHECK_EQ(o.sites[1], 2);
	CHECK_EQ(o.sites[2], 3);
	CHECK_EQ(o.count, 6);
	/* five timed: 100, 110, 120, 130, 140 */
	CHECK_EQ(o.time[0].timed, 5);
	NEAR(o.time[0].mean_ns, 120);
	CHECK_EQ(o.time[0].min_ns, 100);
	CHECK_EQ(o.time[0].max_ns, 140);
	NEAR(o.time[0].slope_ns, 10);
	NEAR(o.time[0].cv, sqrt(200.0) / 120);
	NEAR(o.time[1].mean_ns, 60);
	NEAR(o.time[1].slope_ns, 5);
	iterations__free(it);
}

/* Two processes apart (each site is of one process, as phases__site()'s);
 * one without a period. */
TEST(per_process_and_none)
{
	struct iterations *it = iterations__new();
	struct it_result o;
	__u64 start[2] = {0, 0};
	int k;

	for (k = 0; k < 8; k++) {
		start[0] = start[1] = 50 * k;
		iterations__episode(it, 1, 4, start, 2, 0);
		iterations__episode(it, 2, 10 + k, start, 2, 0);
	}
	CHECK_EQ(iterations__nprocs(it), 2);
	CHECK_EQ(iterations__result(it, 0, &o), 0);
	CHECK_EQ(o.len, 1);
	CHECK_EQ(o.sites[0], 4);
	CHECK_EQ(o.count, 8);
	NEAR(o.time[0].mean_ns, 50);
	NEAR(o.time[0].cv, 0);
	NEAR(o.time[0].slope_ns, 0);
	CHECK_EQ(iterations__result(it, 1, &o), -1);
	CHECK_EQ(o.pid, 2);
	iterations__free(it);
}

/* A loop of one site whose team size changes (num_threads 1, 2, 1, 2, ...):
 * iterations on 1 thread take 100, on 2 threads 60 (approximated: half).
 * Each iteration counts under the team of the episode that began it; the
 * last begun is not timed. With one size throughout, no table. */
TEST(iterations_by_team_size)
{
	struct iterations *it = iterations__new();
	struct it_result o;
	__u64 t = 1000, start[2];
	int k;

	for (k = 0; k < 9; k++) {
		__u32 team = k % 2 ? 2 : 1;

		start[0] = t, start[1] = t / 2;
		iterations__episode(it, 3, 0, start, team, 0);
		t += team == 1 ? 100 : 60;
	}
	CHECK_EQ(iterations__result(it, 0, &o), 0);
	CHECK_EQ(o.count, 9);
	CHECK_EQ(o.nteams, 2);
	CHECK_EQ(o.teams[0].threads, 1);
	CHECK_EQ(o.teams[0].time[0].timed, 4);
	NEAR(o.teams[0].time[0].mean_ns, 100);
	NEAR(o.teams[0].time[1].mean_ns, 50);
	CHECK_EQ(o.teams[1].threads, 2);
	CHECK_EQ(o.teams[1].time[0].timed, 4);
	NEAR(o.teams[1].time[0].mean_ns, 60);
	NEAR(o.time[0].mean_ns, 80);
	iterations__free(it);

	it = iterations__new();
	for (k = 0; k < 5; k++) {
		start[0] = 1000 + 100 * k, start[1] = 500 + 50 * k;
		iterations__episode(it, 3, 0, start, 4, 0);
	}
	CHECK_EQ(iterations__result(it, 0, &o), 0);
	CHECK_EQ(o.nteams, 0);
	iterations__free(it);
}

/* Attached mid-run: the first two episodes began before the session (3 of
 * the 4 threads seen in the first, 2 in the second; their starts are
 * bounds, 0 ns apart here). The iterations they begin are counted, not
 * timed, and make no team size of their own: 6 iterations, 3 timed, all
 * on 4 threads, 100 each. */
TEST(iterations_begun_before_the_session_are_not_timed)
{
	struct iterations *it = iterations__new();
	struct it_result o;
	__u64 start[2] = {1000, 1000};
	int k;

	iterations__episode(it, 3, 0, start, 3, 1);
	iterations__episode(it, 3, 0, start, 2, 1);
	for (k = 0; k < 4; k++) {
		start[0] = start[1] = 1100 + 100 * (__u64)k;
		iterations__episode(it, 3, 0, start, 4, 0);
	}
	CHECK_EQ(iterations__result(it, 0, &o), 0);
	CHECK_EQ(o.count, 6);
	CHECK_EQ(o.time[0].timed, 3);
	NEAR(o.time[0].mean_ns, 100);
	NEAR(o.time[0].min_ns, 100);
	CHECK_EQ(o.nteams, 0);
	iterations__free(it);
}
