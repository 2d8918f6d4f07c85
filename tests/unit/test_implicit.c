// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Implicit barriers of parallel regions (analyses/implicit.c): instances
 * grouped from the region frame, the bodies' entries and returns, on
 * synthetic streams with exact values: team size changing, a thread that
 * does not run the body, nested and concurrent regions, task bodies, and
 * the fork hand-off of the approximation. */
#include "phases_fixture.h"

#define BODY_A	0x401100 /* outlined functions: their addresses */
#define BODY_B	0x401200
#define TASK_FN 0x401300

/* Master tid forks body fn at ts (region frame entry). */
static void fork_region(struct phases *p, __u32 tid, __u64 ts, __u64 fn)
{
	enter(p, P_REGION, tid, ts, fn, SITE_A);
}

static void join_region(struct phases *p, __u32 tid, __u64 ts)
{
	leave(p, P_REGION, tid, ts, 0);
}

/*
 * One instance, a team of three: arrivals at the bodies' returns, every
 * thread leaving at the master's return from the frame; compute runs from
 * each thread's own body entry (a worker's wait in the pool is not compute).
 */
TEST(region_instance_is_an_episode)
{
	struct collected c;
	struct phases *p = new_phases(&c);
	const struct ph_arrival *a;

	fork_region(p, 1, 1100, BODY_A);
	body_in(p, 2, 1112, BODY_A);
	body_in(p, 1, 1110, BODY_A);
	body_in(p, 3, 1115, BODY_A);
	body_out(p, 2, 1200);
	body_out(p, 3, 1250);
	body_out(p, 1, 1300);
	join_region(p, 1, 1320);
	CHECK_EQ(c.n, 1);
	CHECK_EQ(c.ep[0].n, 3);
	CHECK_EQ(c.ep[0].object, BODY_A);
	CHECK_EQ(c.ep[0].probe, P_BODY);
	CHECK_EQ(c.ep[0].first_arrive, 1200);
	CHECK_EQ(c.ep[0].last_arrive, 1300);
	a = arrival_of(&c.ep[0], 2);
	CHECK_EQ(a->start_ns, 1112);
	CHECK_EQ(a->depart_ns, 1320);
	CHECK_EQ(ph_compute_ns(a), 88);
	CHECK_EQ(ph_wait_ns(a), 120);
	CHECK_EQ(a->site, SITE_A);
	a = arrival_of(&c.ep[0], 1);
	CHECK_EQ(ph_compute_ns(a), 190);
	CHECK_EQ(ph_wait_ns(a), 20);
	CHECK_EQ(ph_barrier_ns(&c.ep[0]), 100);
	CHECK_EQ(ph_phase_ns(&c.ep[0]), 190); /* last arrival - earliest start */
	CHECK_EQ(phases__nsites(p), 1);
	CHECK_EQ(phases__site(p, 0)->call_site, SITE_A);
	CHECK_EQ(phases__grouping_errors(p), 0);
	phases__free(p);
}

/* clang's region serialized by if(): __kmpc_serialized_parallel (not
 * probed), then the master calls the body itself, outside any fork. After a
 * released instance, that call is a team of one: no episode, not a late
 * share of the instance before. */
TEST(a_body_called_outside_any_fork_is_no_share)
{
	struct collected c;
	struct phases *p = new_phases(&c);

	fork_region(p, 1, 1100, BODY_A);
	body_in(p, 1, 1110, BODY_A);
	body_in(p, 2, 1112, BODY_A);
	body_out(p, 2, 1200);
	body_out(p, 1, 1300);
	join_region(p, 1, 1320);
	body_in(p, 1, 2000, BODY_A);
	body_out(p, 1, 2100);
	/* the next instance, forked */
	fork_region(p, 1, 3100, BODY_A);
	body_in(p, 1, 3110, BODY_A);
	body_in(p, 2, 3112, BODY_A);
	body_out(p, 2, 3200);
	body_out(p, 1, 3300);
	join_region(p, 1, 3320);
	phases__finish(p);
	CHECK_EQ(c.n, 2);
	CHECK_EQ(c.ep[0].n, 2);
	CHECK_EQ(c.ep[1].n, 2);
	CHECK_EQ(c.ep[1].first_arrive, 3200);
	CHECK_EQ(phases__nsites(p), 1);
	CHECK_EQ(phases__site(p, 0)->call_site, SITE_A);
	phases__free(p);
}

/* Instances of one region with a team of 3, then 2 (num_threads), then 3
 * again where thread 3 never runs the body: each has exactly the threads
 * that ran it; one site for all. */
TEST(team_size_changes_between_instances)
{
	struct collected c;
	struct phases *p = new_phases(&c);
	__u64 t0;
	int k;

	for (k = 0; k < 3; k++) {
		t0 = 2000 + (__u64)k * 1000;
		fork_region(p, 1, t0, BODY_A);
		body_in(p, 1, t0 + 10, BODY_A);
		body_in(p, 2, t0 + 20, BODY_A);
		if (k == 0)
			body_in(p, 3, t0 + 30, BODY_A);
		body_out(p, 2, t0 + 400 + (__u64)k);
		if (k == 0)
			body_out(p, 3, t0 + 500);
		body_out(p, 1, t0 + 600);
		join_region(p, 1, t0 + 610);
	}
	CHECK_EQ(c.n, 3);
	CHECK_EQ(c.ep[0].n, 3);
	CHECK_EQ(c.ep[1].n, 2);
	CHECK_EQ(c.ep[2].n, 2);
	CHECK(arrival_of(&c.ep[2], 3) == NULL);
	CHECK_EQ(arrival_of(&c.ep[1], 2)->start_ns, 3020);
	CHECK_EQ(arrival_of(&c.ep[2], 2)->arrive_ns, 4402);
	CHECK_EQ(phases__nsites(p), 1);
	CHECK_EQ(phases__site(p, 0)->episodes, 3);
	phases__free(p);
}

/* A region nested in a region: the inner instance is released by the inner
 * master's return from its own frame and holds the inner team only; the
 * outer one completes at the outer join with the outer team. */
TEST(nested_regions_are_separate_instances)
{
	struct collected c;
	struct phases *p = new_phases(&c);

	fork_region(p, 1, 1100, BODY_A);
	body_in(p, 1, 1110, BODY_A);
	body_in(p, 2, 1120, BODY_A);
	fork_region(p, 1, 1200, BODY_B); /* thread 1 forks an inner team {1, 4} */
	body_in(p, 4, 1215, BODY_B);
	body_in(p, 1, 1210, BODY_B);
	body_out(p, 4, 1300);
	body_out(p, 1, 1350);
	join_region(p, 1, 1360);
	body_out(p, 2, 1500);
	body_out(p, 1, 1400);
	join_region(p, 1, 1510);
	CHECK_EQ(c.n, 2);
	CHECK_EQ(c.ep[0].object, BODY_B);
	CHECK_EQ(c.ep[0].n, 2);
	CHECK(arrival_of(&c.ep[0], 4) && arrival_of(&c.ep[0], 1));
	CHECK_EQ(arrival_of(&c.ep[0], 4)->depart_ns, 1360);
	CHECK_EQ(c.ep[1].object, BODY_A);
	CHECK_EQ(c.ep[1].n, 2);
	CHECK(arrival_of(&c.ep[1], 2) && arrival_of(&c.ep[1], 1));
	/* the outer share of thread 1 resumes after the inner region */
	CHECK_EQ(arrival_of(&c.ep[1], 1)->start_ns, 1360);
	CHECK_EQ(arrival_of(&c.ep[1], 2)->depart_ns, 1510);
	phases__free(p);
}

/* Two threads of an outer team each run the same inner region on a team
 * of one (nesting inactive, as by default): two concurrent instances of one
 * body, each its master's alone. */
TEST(concurrent_instances_of_one_body)
{
	struct collected c;
	struct phases *p = new_phases(&c);

	fork_region(p, 1, 1100, BODY_B);
	fork_region(p, 2, 1105, BODY_B);
	body_in(p, 1, 1110, BODY_B);
	body_in(p, 2, 1112, BODY_B);
	body_out(p, 2, 1200);
	body_out(p, 1, 1300);
	join_region(p, 2, 1210);
	join_region(p, 1, 1310);
	CHECK_EQ(c.n, 2);
	CHECK_EQ(c.ep[0].n, 1);
	CHECK_EQ(c.ep[0].arr[0].tid, 2);
	CHECK_EQ(c.ep[0].arr[0].depart_ns, 1210);
	CHECK_EQ(c.ep[1].n, 1);
	CHECK_EQ(c.ep[1].arr[0].tid, 1);
	CHECK_EQ(c.ep[1].arr[0].depart_ns, 1310);
	/* each master's share is its own frame's: nothing mixed */
	CHECK_EQ(phases__concurrent_forks(p), 0);
	phases__free(p);
}

/* Two threads of the program each fork a team of two running the same body
 * at once (a region called from two pthreads): the workers' shares are
 * matched to the latest fork, which may mix the teams; counted, said. */
TEST(workers_of_two_teams_running_one_body_are_counted)
{
	struct collected c;
	struct phases *p = new_phases(&c);

	fork_region(p, 1, 1100, BODY_A);
	fork_region(p, 3, 1105, BODY_A);
	body_in(p, 1, 1110, BODY_A);
	body_in(p, 3, 1111, BODY_A);
	body_in(p, 2, 1112, BODY_A); /* 1's worker */
	body_in(p, 4, 1113, BODY_A); /* 3's worker */
	body_out(p, 1, 1200);
	body_out(p, 2, 1210);
	body_out(p, 3, 1220);
	body_out(p, 4, 1230);
	join_region(p, 1, 1240);
	join_region(p, 3, 1250);
	CHECK_EQ(phases__concurrent_forks(p), 2);
	/* one team after the other: nothing counted */
	fork_region(p, 1, 2000, BODY_A);
	body_in(p, 1, 2010, BODY_A);
	body_in(p, 2, 2011, BODY_A);
	body_out(p, 1, 2100);
	body_out(p, 2, 2110);
	join_region(p, 1, 2120);
	CHECK_EQ(phases__concurrent_forks(p), 2);
	phases__free(p);
}

/*
 * Two teams at once in one process (regions started by two threads of the
 * program): masters 1 and 3 fork bodies A and B with workers 2 and 4; each
 * team meets at an explicit GOMP_barrier (which names no object) at the
 * same times. Each team's barrier is its own episode, of its own two
 * threads: the team barrier's key is the instance whose body its threads
 * run. (Before, the four arrivals were one episode.)
 */
TEST(team_barriers_of_teams_at_once_are_apart)
{
	struct collected c;
	struct phases *p = new_phases(&c);
	int k;

	fork_region(p, 1, 1000, BODY_A);
	fork_region(p, 3, 1001, BODY_B);
	body_in(p, 1, 1010, BODY_A);
	body_in(p, 2, 1011, BODY_A);
	body_in(p, 3, 1012, BODY_B);
	body_in(p, 4, 1013, BODY_B);
	enter(p, P_GOMP, 1, 2000, 0, SITE_A);
	enter(p, P_GOMP, 3, 2001, 0, SITE_B);
	enter(p, P_GOMP, 2, 2500, 0, SITE_A);
	enter(p, P_GOMP, 4, 2600, 0, SITE_B);
	for (k = 1; k <= 4; k++)
		leave(p, P_GOMP, (__u32)k, 2700 + (__u64)k, 0);
	CHECK_EQ(c.n, 2);
	for (k = 0; k < c.n && k < 2; k++) {
		__u32 master = arrival_of(&c.ep[k], 1) ? 1 : 3;

		CHECK_EQ(c.ep[k].n, 2);
		CHECK_EQ(c.ep[k].object, 0);
		CHECK(arrival_of(&c.ep[k], master + 1) != NULL);
		CHECK_EQ(c.ep[k].last_arrive, master == 1 ? 2500 : 2600);
	}
	CHECK_EQ(phases__grouping_errors(p), 0);
	phases__free(p);
}

/* gcc names task bodies like region bodies: one no frame forked (run by a
 * worker waiting in the implicit barrier, or inside a body) starts no share
 * and arrives nowhere; nor does a body whose fork came before the session.
 * A task run in the implicit barrier is work: the worker's arrival moves to
 * its end. */
TEST(task_bodies_and_unforked_bodies_are_not_arrivals)
{
	struct collected c;
	struct phases *p = new_phases(&c);

	body_in(p, 2, 1050, BODY_B); /* forked before the session */
	body_out(p, 2, 1060);
	fork_region(p, 1, 1100, BODY_A);
	body_in(p, 1, 1110, BODY_A);
	body_in(p, 2, 1120, BODY_A);
	body_in(p, 1, 1130, TASK_FN); /* a task run inside the body */
	body_out(p, 1, 1140);
	body_out(p, 2, 1200);
	body_in(p, 2, 1210, TASK_FN); /* a task run in the implicit barrier */
	body_out(p, 2, 1220);
	body_out(p, 1, 1300);
	join_region(p, 1, 1320);
	CHECK_EQ(c.n, 1);
	CHECK_EQ(c.ep[0].n, 2);
	CHECK_EQ(arrival_of(&c.ep[0], 1)->arrive_ns, 1300);
	CHECK_EQ(arrival_of(&c.ep[0], 2)->arrive_ns, 1220);
	CHECK_EQ(arrival_of(&c.ep[0], 2)->depart_ns, 1320);
	CHECK_EQ(phases__grouping_errors(p), 0);
	phases__free(p);
}

/*
 * Fork hand-off (Malony-Reed §3.2.2): the master pays 300 on the frame's
 * entry, so its body starts at t_a 1110 - 300 = 810 (measured 1110); the
 * worker, time-based, would start at 1150 (it paid nothing since its
 * start), but is forked at the master's approximated fork 1100 (START +
 * 100) plus the measured fork latency 50 less the 300 the master's probe
 * delayed it: 1100 + max(0, 50 - 300) = 1100.
 */
TEST(worker_share_starts_at_the_approximated_fork)
{
	static const __u64 a_enter[NPROBES] = {[P_REGION] = 300, [P_BODY] = 10};
	static const __u64 a_exit[NPROBES] = {[P_REGION] = 20, [P_BODY] = 10};
	struct collected c;
	struct phases *p = new_phases_mr(&c, a_enter, a_exit);

	phases__add_thread(p, PID, 1, START);
	phases__add_thread(p, PID, 2, START);
	fork_region(p, 1, 1100, BODY_A); /* t_a 1100 */
	body_in(p, 2, 1150, BODY_A);	 /* t_a 1100 + max(0, 50 - 300) = 1100 */
	body_in(p, 1, 1410, BODY_A);	 /* t_a 1100 + 310 - 300 = 1110 */
	body_out(p, 2, 1700);		 /* t_a 1100 + 550 - 10 = 1640 */
	body_out(p, 1, 1900);		 /* t_a 1110 + 490 - 10 = 1590 */
	join_region(p, 1, 1950);
	CHECK_EQ(c.n, 1);
	CHECK_EQ(arrival_of(&c.ep[0], 2)->ta_start, 1100);
	CHECK_EQ(arrival_of(&c.ep[0], 1)->ta_start, 1110);
	CHECK_EQ(arrival_of(&c.ep[0], 2)->ta_arrive, 1640);
	CHECK_EQ(arrival_of(&c.ep[0], 1)->ta_arrive, 1590);
	/* exits: the approximated last arrival 1640 + (1950 - 1900 - 20) */
	CHECK_EQ(arrival_of(&c.ep[0], 1)->ta_depart, 1670);
	CHECK_EQ(arrival_of(&c.ep[0], 2)->ta_depart, 1670);
	phases__free(p);
}

/* A team barrier a body reaches by a tail call returns where the body
 * returns (into the runtime): its site is the body; one called from the
 * body keeps its call site. */
TEST(tail_called_barrier_is_sited_at_its_body)
{
	struct collected c;
	struct phases *p = new_phases(&c);
	int k;

	for (k = 0; k < 2; k++) {
		__u64 fn = k ? BODY_B : BODY_A, t0 = 2000 + (__u64)k * 1000;

		fork_region(p, 1, t0, fn);
		body_in(p, 1, t0 + 10, fn);
		body_in(p, 2, t0 + 20, fn);
		feed(p, SBT_EV_ENTER, P_GOMP, 1, t0 + 100, 0, 0);
		feed(p, SBT_EV_ENTER, P_GOMP, 2, t0 + 200, 0, 0);
		/* k = 0: called from the body; k = 1: tail-called */
		feed(p, SBT_EV_EXIT, P_GOMP, 1, t0 + 210, 0, k ? BODY_RET : SITE_B);
		feed(p, SBT_EV_EXIT, P_GOMP, 2, t0 + 211, 0, k ? BODY_RET : SITE_B);
		body_out(p, 1, t0 + 212);
		body_out(p, 2, t0 + 213);
		join_region(p, 1, t0 + 220);
	}
	CHECK_EQ(c.n, 4);
	CHECK_EQ(ph_lowest_site(&c.ep[0]), SITE_B);
	CHECK_EQ(ph_lowest_site(&c.ep[2]), BODY_B);
	CHECK_EQ(phases__nsites(p), 4); /* two barriers, two regions */
	phases__free(p);
}

/*
 * A stripped binary's body, probed once its region first ran (late_bodies.h):
 * the probe goes in at 1150, while instance 1 runs. Thread 1 entered the body
 * before (unseen), thread 2 after: instance 1 is no episode, although thread
 * 2's return is seen. Instance 2, forked after, is whole. The armed record is
 * no time of the run.
 */
TEST(body_probed_mid_instance_counts_from_the_next)
{
	struct collected c;
	struct phases *p = new_phases(&c);
	struct sbt_event armed =
		sbt_event_make(SBT_EV_PROBE_ARMED, P_BODY, PID, PID, 1150, BODY_A, 0);

	fork_region(p, 1, 1100, BODY_A);
	CHECK_EQ(phases__feed(p, &armed), 0);
	body_in(p, 2, 1160, BODY_A);
	body_out(p, 2, 1200);
	join_region(p, 1, 1300);
	CHECK_EQ(c.n, 0);
	fork_region(p, 1, 1400, BODY_A);
	body_in(p, 1, 1410, BODY_A);
	body_in(p, 2, 1420, BODY_A);
	body_out(p, 1, 1500);
	body_out(p, 2, 1550);
	join_region(p, 1, 1560);
	CHECK_EQ(c.n, 1);
	CHECK_EQ(c.ep[0].n, 2);
	CHECK_EQ(c.ep[0].first_arrive, 1500);
	CHECK_EQ(c.ep[0].last_arrive, 1550);
	CHECK_EQ(phases__grouping_errors(p), 0);
	CHECK_EQ(phases__bad_records(p), 0);
	CHECK_EQ(phases__regions(p)->sites[0].count, 2);
	CHECK_EQ(phases__regions(p)->sites[0].unprobed, 1);
	CHECK_EQ(phases__first_ts(p), 1100);
	CHECK_EQ(phases__last_ts(p), 1560);
	phases__free(p);
}

/* An armed record naming a probe that is no region body is a bad record. */
TEST(armed_record_of_other_probe_is_bad)
{
	struct collected c;
	struct phases *p = new_phases(&c);
	struct sbt_event armed =
		sbt_event_make(SBT_EV_PROBE_ARMED, P_REGION, PID, PID, 1150, BODY_A, 0);

	CHECK(phases__feed(p, &armed) < 0);
	CHECK_EQ(phases__bad_records(p), 1);
	phases__free(p);
}

static __u64 region_exit_a;

static void on_region(void *ctx, const struct ph_call *c)
{
	(void)ctx;
	region_exit_a = c->exit_a;
}

/*
 * The master waits at the implicit barrier from its body's return (1300)
 * to the frame's return (1950), the release. The worker paid 200 on a call
 * in its body: it arrives at t_a 1900 - 210 = 1690 (the body's entry 10
 * too), the master at 1300 - 10 = 1290. The release is the approximated
 * last arrival plus the measured hand-off: 1690 + 50 = 1740, where the
 * master's return is approximated too (the region's own report). On its
 * own clock, across its wait, it would be at 1950 - 20 = 1930: the release
 * comes first (a repair of 190 before).
 */
TEST(the_masters_return_is_approximated_at_the_release)
{
	static const __u64 a_enter[NPROBES] = {[P_BODY] = 10, [P_TASK] = 200};
	static const __u64 a_exit[NPROBES] = {[P_BODY] = 10};
	struct collected c;
	struct phases *p = new_phases_ops(
		&c,
		(struct phases_config){
			.alpha_enter = a_enter, .alpha_exit = a_exit, .model = PH_MODEL_MR},
		(struct phases_ops){.episode = on_episode, .region = on_region});

	phases__add_thread(p, PID, 1, START);
	phases__add_thread(p, PID, 2, START);
	fork_region(p, 1, 1100, BODY_A);
	body_in(p, 2, 1150, BODY_A);
	body_in(p, 1, 1160, BODY_A);
	body_out(p, 1, 1300);
	enter(p, P_TASK, 2, 1400, 0, SITE_A);
	leave(p, P_TASK, 2, 1700, 0);
	body_out(p, 2, 1900);
	join_region(p, 1, 1950);
	CHECK_EQ(c.n, 1);
	CHECK_EQ(arrival_of(&c.ep[0], 2)->ta_arrive, 1690);
	CHECK_EQ(arrival_of(&c.ep[0], 1)->ta_arrive, 1290);
	CHECK_EQ(arrival_of(&c.ep[0], 1)->ta_depart, 1740);
	CHECK_EQ(arrival_of(&c.ep[0], 2)->ta_depart, 1740);
	CHECK_EQ(region_exit_a, 1740);
	CHECK_EQ(phases__violations(p, -1), 0);
	phases__free(p);
}
