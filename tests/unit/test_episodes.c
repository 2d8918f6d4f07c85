// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Barrier episodes as measured (grouping, sites, regions, hangs, counters,
 * lost records) on synthetic event streams, with exact values. */
#include "phases_fixture.h"

/*
 * Three threads, two episodes of one pthread barrier.
 * Episode 0: arrivals 11@2000, 12@3000, 13@6000; departures 6100, 6200, 6300.
 * Episode 1: arrivals 12@7200, 11@8100, 13@9300; departures 9400, 9500, 9600.
 */
TEST(barrier_times_two_episodes)
{
	struct collected c;
	struct phases *p = new_phases(&c);
	const struct ph_episode *e0, *e1;
	struct ph_episode_times b;

	enter(p, P_PBW, 11, 2000, OBJ_X, SITE_A);
	enter(p, P_PBW, 12, 3000, OBJ_X, SITE_A);
	enter(p, P_PBW, 13, 6000, OBJ_X, SITE_A);
	leave(p, P_PBW, 13, 6100, 0xffffffffULL);
	leave(p, P_PBW, 11, 6200, 0);
	leave(p, P_PBW, 12, 6300, 0);
	enter(p, P_PBW, 12, 7200, OBJ_X, SITE_A);
	enter(p, P_PBW, 11, 8100, OBJ_X, SITE_A);
	enter(p, P_PBW, 13, 9300, OBJ_X, SITE_A);
	leave(p, P_PBW, 11, 9400, 0);
	leave(p, P_PBW, 12, 9500, (__u64)-1);
	leave(p, P_PBW, 13, 9600, 0);
	phases__finish(p);

	CHECK_EQ(c.n, 2);
	e0 = &c.ep[0];
	e1 = &c.ep[1];
	CHECK_EQ(e0->index, 0);
	CHECK_EQ(e0->n, 3);
	CHECK_EQ(e0->object, OBJ_X);
	/* SBT barrier time: last arrival - first arrival */
	CHECK_EQ(ph_barrier_ns(e0), 6000 - 2000);
	/* phase 0 runs from the session start to the last arrival */
	CHECK_EQ(ph_phase_ns(e0), 6000 - START);
	CHECK_EQ(ph_compute_ns(arrival_of(e0, 11)), 2000 - START);
	CHECK_EQ(ph_wait_ns(arrival_of(e0, 11)), 6200 - 2000);
	/* Scalasca wait: last arrival - own arrival */
	CHECK_EQ(ph_late_wait_ns(e0, arrival_of(e0, 12)), 6000 - 3000);
	CHECK_EQ(ph_late_wait_ns(e0, arrival_of(e0, 13)), 0);
	/* arrival order and inter-arrival times */
	CHECK_EQ(e0->arr[0].tid, 11);
	CHECK_EQ(e0->arr[1].arrive_ns - e0->arr[0].arrive_ns, 1000);
	CHECK_EQ(e0->arr[2].arrive_ns - e0->arr[1].arrive_ns, 3000);

	/* Episode 1: phase time = last arrival - the release of episode 0 (its
	 * first departure): it holds the barrier time and every compute */
	CHECK_EQ(e1->index, 1);
	CHECK_EQ(ph_barrier_ns(e1), 9300 - 7200);
	CHECK_EQ(ph_phase_ns(e1), 9300 - 6100);
	CHECK_EQ(ph_compute_ns(arrival_of(e1, 12)), 7200 - 6300);
	CHECK_EQ(ph_compute_ns(arrival_of(e1, 11)), 8100 - 6200);
	CHECK_EQ(ph_compute_ns(arrival_of(e1, 13)), 9300 - 6100);
	CHECK_EQ(e1->arr[0].tid, 12);

	ph_episode_times(e1, PH_MEASURED, &b);
	CHECK_EQ(b.critical_tid, 13);
	CHECK_EQ(b.max_compute, 3200);
	CHECK_EQ(b.mean_compute, (900 + 1900 + 3200) / 3);
	CHECK_EQ(b.imbalance_ns, 3200 - 2000);

	/* loop-barrier aggregation of the one site */
	CHECK_EQ(phases__nsites(p), 1);
	{
		const struct ph_site *s = phases__site(p, 0);
		__u32 i;

		CHECK_EQ(s->episodes, 2);
		CHECK_EQ(s->barrier_sum, 4000 + 2100);
		CHECK_EQ(s->barrier_min, 2100);
		CHECK_EQ(s->barrier_max, 4000);
		CHECK_EQ(s->phase_sum, 5000 + 3200);
		CHECK_EQ(s->nidle, 3);
		for (i = 0; i < s->nidle; i++) {
			if (s->idle[i].tid == 11)
				CHECK_EQ(s->idle[i].idle_ns, (6200 - 2000) + (9400 - 8100));
			if (s->idle[i].tid == 13)
				CHECK_EQ(s->idle[i].idle_ns, (6100 - 6000) + (9600 - 9300));
		}
	}
	CHECK_EQ(phases__nthreads(p), 3);
	CHECK_EQ(c.ep[0].serial, 1);
	CHECK_EQ(phases__grouping_errors(p), 0);
	phases__free(p);
}

/* A fast thread leaves and arrives again before a slow one is seen leaving:
 * the new arrival belongs to the next episode. */
TEST(rearrival_before_slow_departure)
{
	struct collected c;
	struct phases *p = new_phases(&c);

	enter(p, P_PBW, 1, 2000, OBJ_X, SITE_A);
	enter(p, P_PBW, 2, 2500, OBJ_X, SITE_A);
	leave(p, P_PBW, 1, 2600, 0);
	enter(p, P_PBW, 1, 2700, OBJ_X, SITE_A);
	leave(p, P_PBW, 2, 2800, 0);
	enter(p, P_PBW, 2, 3500, OBJ_X, SITE_A);
	leave(p, P_PBW, 2, 3600, 0);
	leave(p, P_PBW, 1, 3650, 0);
	phases__finish(p);

	CHECK_EQ(c.n, 2);
	CHECK_EQ(c.ep[0].n, 2);
	CHECK_EQ(c.ep[0].last_arrive, 2500);
	CHECK_EQ(c.ep[1].n, 2);
	CHECK_EQ(c.ep[1].first_arrive, 2700);
	CHECK_EQ(ph_barrier_ns(&c.ep[1]), 800);
	/* from the release (2600), not the slow departure (2800): a phase is
	 * never shorter than its barrier time */
	CHECK_EQ(ph_phase_ns(&c.ep[1]), 3500 - 2600);
	phases__free(p);
}

/* Two barrier objects used by disjoint thread pairs, events interleaved:
 * each object has its own episodes, and phases are numbered in completion
 * order across objects. */
TEST(interleaved_objects)
{
	struct collected c;
	struct phases *p = new_phases(&c);

	enter(p, P_PBW, 1, 2000, OBJ_X, SITE_A);
	enter(p, P_PBW, 3, 2100, OBJ_Y, SITE_B);
	enter(p, P_PBW, 4, 2200, OBJ_Y, SITE_B);
	enter(p, P_PBW, 2, 2300, OBJ_X, SITE_A);
	leave(p, P_PBW, 3, 2400, 0);
	leave(p, P_PBW, 1, 2450, 0);
	leave(p, P_PBW, 4, 2500, 0);
	leave(p, P_PBW, 2, 2550, 0);
	phases__finish(p);

	CHECK_EQ(c.n, 2);
	CHECK_EQ(c.ep[0].object, OBJ_Y);
	CHECK_EQ(c.ep[0].index, 0);
	CHECK_EQ(ph_barrier_ns(&c.ep[0]), 100);
	CHECK_EQ(c.ep[1].object, OBJ_X);
	CHECK_EQ(c.ep[1].index, 1);
	CHECK_EQ(ph_barrier_ns(&c.ep[1]), 300);
	CHECK(arrival_of(&c.ep[1], 3) == NULL);
	CHECK_EQ(phases__nsites(p), 2);
	phases__free(p);
}

/* One object reached from two call sites alternately: two sites, each
 * aggregating its own episodes. */
TEST(several_sites_one_object)
{
	struct collected c;
	struct phases *p = new_phases(&c);
	__u64 t = 2000;
	int k;

	for (k = 0; k < 4; k++) {
		__u64 site = k % 2 ? SITE_B : SITE_A;

		enter(p, P_PBW, 1, t, OBJ_X, site);
		enter(p, P_PBW, 2, t + 10 * (k + 1), OBJ_X, site);
		leave(p, P_PBW, 1, t + 100, 0);
		leave(p, P_PBW, 2, t + 110, 0);
		t += 1000;
	}
	phases__finish(p);

	CHECK_EQ(c.n, 4);
	CHECK_EQ(phases__nsites(p), 2);
	CHECK_EQ(phases__site(p, 0)->call_site, SITE_A);
	CHECK_EQ(phases__site(p, 0)->episodes, 2);
	CHECK_EQ(phases__site(p, 0)->barrier_sum, 10 + 30);
	CHECK_EQ(phases__site(p, 1)->call_site, SITE_B);
	CHECK_EQ(phases__site(p, 1)->barrier_sum, 20 + 40);
	CHECK_EQ(c.ep[1].site, 1);
	phases__free(p);
}

/* Team barriers name no object: the team of the process is the barrier, and
 * the first argument (garbage for GOMP_barrier) is ignored. Region frames
 * are counted, not turned into episodes. */
TEST(team_barrier_ignores_argument)
{
	struct collected c;
	struct phases *p = new_phases(&c);

	enter(p, P_REGION, 1, 1500, 0, SITE_A);
	enter(p, P_GOMP, 1, 2000, 0xdead, SITE_B);
	enter(p, P_GOMP, 2, 2400, 0xbeef, SITE_B);
	leave(p, P_GOMP, 2, 2500, 0);
	leave(p, P_GOMP, 1, 2550, 0);
	leave(p, P_REGION, 1, 3000, 0);
	phases__finish(p);

	CHECK_EQ(c.n, 1);
	CHECK_EQ(c.ep[0].n, 2);
	CHECK_EQ(c.ep[0].object, 0);
	CHECK_EQ(ph_barrier_ns(&c.ep[0]), 400);
	CHECK_EQ(phases__regions(p)->count, 1);
	CHECK_EQ(phases__regions(p)->total_ns, 1500);
	CHECK_EQ(phases__regions(p)->nsites, 1);
	CHECK_EQ(phases__regions(p)->sites[0].site, SITE_A);
	CHECK_EQ(phases__regions(p)->sites[0].max_ns, 1500);
	phases__free(p);
}

/*
 * libgomp's single copyprivate, twice. Thread 1 runs the first single: its
 * GOMP_single_copy_start (2000) returns NULL at 2010, no wait; thread 2
 * waits for it in GOMP_single_copy_start from 2005 (before thread 1's
 * return: taken back from the middle of the episode); thread 1 arrives in
 * GOMP_single_copy_end at 5000; both leave at 5100 and 5200. The second,
 * thread 2 runs it: thread 1 waits from 6000, thread 2's call returns NULL
 * at 6110 and it arrives at 9000. One episode each, the single's runner
 * last, its body compute: 5000 - 2000 and 9000 - 5200.
 */
TEST(single_copyprivate_is_one_barrier_episode)
{
	struct collected c;
	struct phases *p = new_phases(&c);
	const struct ph_arrival *a;
	struct ph_episode_times m;

	enter(p, P_COPY_START, 1, 2000, 0, SITE_A);
	enter(p, P_COPY_START, 2, 2005, 0, SITE_A);
	leave(p, P_COPY_START, 1, 2010, 0);
	enter(p, P_COPY_END, 1, 5000, 0, SITE_B);
	leave(p, P_COPY_END, 1, 5100, 0);
	leave(p, P_COPY_START, 2, 5200, 0x7ffd0000);
	enter(p, P_COPY_START, 2, 6100, 0, SITE_A);
	enter(p, P_COPY_START, 1, 6000 + 200, 0, SITE_A);
	leave(p, P_COPY_START, 2, 6210, 0);
	enter(p, P_COPY_END, 2, 9000, 0, SITE_B);
	leave(p, P_COPY_END, 2, 9100, 0);
	leave(p, P_COPY_START, 1, 9150, 0x7ffd0000);
	phases__finish(p);

	CHECK_EQ(c.n, 2);
	CHECK_EQ(c.ep[0].n, 2);
	CHECK_EQ(c.ep[0].first_arrive, 2005);
	CHECK_EQ(c.ep[0].last_arrive, 5000);
	ph_episode_times(&c.ep[0], PH_MEASURED, &m);
	CHECK_EQ(m.critical_tid, 1);
	a = arrival_of(&c.ep[0], 1);
	CHECK_EQ(a->depart_ns, 5100);
	CHECK_EQ(ph_compute_ns(a), 5000 - START);
	CHECK_EQ(arrival_of(&c.ep[0], 2)->depart_ns, 5200);
	CHECK_EQ(c.ep[1].n, 2);
	CHECK_EQ(c.ep[1].first_arrive, 6200);
	CHECK_EQ(c.ep[1].last_arrive, 9000);
	ph_episode_times(&c.ep[1], PH_MEASURED, &m);
	CHECK_EQ(m.critical_tid, 2);
	CHECK_EQ(ph_compute_ns(arrival_of(&c.ep[1], 2)), 9000 - 5200);
	CHECK_EQ(phases__grouping_errors(p), 0);
	phases__free(p);
}

/*
 * libomp's reductions. The atomic (or critical) method: __kmpc_reduce
 * returns 2 (1) at once, the thread combines, and waits in the
 * __kmpc_end_reduce that follows; thread 1 at 2000, thread 2 at 3000, both
 * out of __kmpc_end_reduce at 3100 and 3110. The tree method: __kmpc_reduce
 * waits, returns 0 to the worker (thread 2, 5000 to 6100) when the master
 * (thread 1, 6000, back with 1 at 6050) has combined and released it from
 * its __kmpc_end_reduce (6060 to 6070). One episode each, from each
 * thread's __kmpc_reduce entry to its last return, named by the
 * __kmpc_reduce's call.
 */
TEST(a_libomp_reduction_is_one_barrier_episode_whichever_method)
{
	struct collected c;
	struct phases *p = new_phases(&c);
	const struct ph_arrival *a;
	struct ph_episode_times m;

	enter(p, P_REDUCE, 1, 2000, 0, SITE_A);
	leave(p, P_REDUCE, 1, 2005, 2);
	enter(p, P_END_REDUCE, 1, 2010, 0, SITE_B);
	enter(p, P_REDUCE, 2, 3000, 0, SITE_A);
	leave(p, P_REDUCE, 2, 3005, 2);
	enter(p, P_END_REDUCE, 2, 3010, 0, SITE_B);
	leave(p, P_END_REDUCE, 1, 3100, 0);
	leave(p, P_END_REDUCE, 2, 3110, 0);
	enter(p, P_REDUCE, 2, 5000, 0, SITE_A);
	enter(p, P_REDUCE, 1, 6000, 0, SITE_A);
	leave(p, P_REDUCE, 1, 6050, 1);
	enter(p, P_END_REDUCE, 1, 6060, 0, SITE_B);
	leave(p, P_END_REDUCE, 1, 6070, 0);
	leave(p, P_REDUCE, 2, 6100, 0);
	phases__finish(p);

	CHECK_EQ(c.n, 2);
	CHECK_EQ(c.ep[0].n, 2);
	CHECK_EQ(c.ep[0].first_arrive, 2000);
	CHECK_EQ(c.ep[0].last_arrive, 3000);
	ph_episode_times(&c.ep[0], PH_MEASURED, &m);
	CHECK_EQ(m.critical_tid, 2);
	a = arrival_of(&c.ep[0], 1);
	CHECK_EQ(a->depart_ns, 3100);
	CHECK_EQ(ph_wait_ns(a), 3100 - 2000);
	CHECK_EQ(arrival_of(&c.ep[0], 2)->depart_ns, 3110);
	CHECK_EQ(c.ep[1].n, 2);
	CHECK_EQ(c.ep[1].first_arrive, 5000);
	CHECK_EQ(c.ep[1].last_arrive, 6000);
	ph_episode_times(&c.ep[1], PH_MEASURED, &m);
	CHECK_EQ(m.critical_tid, 1);
	CHECK_EQ(arrival_of(&c.ep[1], 1)->depart_ns, 6070);
	CHECK_EQ(arrival_of(&c.ep[1], 2)->depart_ns, 6100);
	CHECK_EQ(phases__nsites(p), 1);
	CHECK_EQ(phases__grouping_errors(p), 0);
	phases__free(p);
}

/* A user-declared barrier wrapping pthread_barrier_wait is one episode. */
TEST(nested_barrier_calls_count_once)
{
	struct collected c;
	struct phases *p = new_phases(&c);

	enter(p, P_USER, 1, 2000, OBJ_Y, SITE_A);
	enter(p, P_PBW, 1, 2010, OBJ_X, SITE_B);
	enter(p, P_USER, 2, 2300, OBJ_Y, SITE_A);
	enter(p, P_PBW, 2, 2310, OBJ_X, SITE_B);
	leave(p, P_PBW, 2, 2400, 0);
	leave(p, P_USER, 2, 2410, 0);
	leave(p, P_PBW, 1, 2420, 0);
	leave(p, P_USER, 1, 2430, 0);
	phases__finish(p);

	CHECK_EQ(c.n, 1);
	CHECK_EQ(c.ep[0].object, OBJ_Y);
	CHECK_EQ(c.ep[0].probe, P_USER);
	CHECK_EQ(ph_wait_ns(arrival_of(&c.ep[0], 1)), 430);
	phases__free(p);
}

/* A thread created after the session started: its phase 0 compute starts
 * at its creation, not at the session start; phase 0 itself runs from the
 * session start (thread 1's start). */
TEST(late_thread_phase_zero)
{
	struct collected c;
	struct phases *p = new_phases(&c);

	feed(p, SBT_EV_THREAD_START, 0, 2, 1800, 1, 0);
	enter(p, P_PBW, 1, 2000, OBJ_X, SITE_A);
	enter(p, P_PBW, 2, 2600, OBJ_X, SITE_A);
	leave(p, P_PBW, 1, 2700, 0);
	leave(p, P_PBW, 2, 2700, 0);
	phases__finish(p);

	CHECK_EQ(c.n, 1);
	CHECK_EQ(ph_compute_ns(arrival_of(&c.ep[0], 1)), 2000 - START);
	CHECK_EQ(ph_compute_ns(arrival_of(&c.ep[0], 2)), 2600 - 1800);
	CHECK_EQ(ph_phase_ns(&c.ep[0]), 2600 - START);
	phases__free(p);
}

/* An episode open only because tracing stopped is cut, not hung. Threads 1
 * and 2 arrive at 5000 and 5100; thread 3 is still computing when the trace
 * ends. Hang timeout 1000: with the last record at 5900 the episode is not
 * reported at finish; with one at 6200 (another thread's record) it is, as
 * the periodic check would have. With hangs not checked (timeout 0, "off"),
 * never. */
static int hangs_at_finish(__u64 timeout, __u64 last_record)
{
	struct collected c;
	struct phases *p = new_phases(&c);
	int n;

	enter(p, P_PBW, 1, 2000, OBJ_X, SITE_A);
	enter(p, P_PBW, 2, 2001, OBJ_X, SITE_A);
	enter(p, P_PBW, 3, 2002, OBJ_X, SITE_A);
	leave(p, P_PBW, 1, 2010, 0);
	leave(p, P_PBW, 2, 2010, 0);
	leave(p, P_PBW, 3, 2010, 0);
	enter(p, P_PBW, 1, 5000, OBJ_X, SITE_A);
	if (timeout)
		phases__check_hangs(p, 5050, timeout);
	enter(p, P_PBW, 2, 5100, OBJ_X, SITE_A);
	feed(p, SBT_EV_THREAD_START, 0, 4, last_record, 1, 0);
	phases__finish(p);
	n = c.nhang;
	phases__free(p);
	return n;
}

TEST(open_at_end_is_cut_not_hung)
{
	CHECK_EQ(hangs_at_finish(1000, 5900), 0);
	CHECK_EQ(hangs_at_finish(1000, 6200), 1);
	CHECK_EQ(hangs_at_finish(0, 9000), 0);
}

/* Hang: after two good episodes thread 3 never arrives. The hang report names
 * it as missing; it fires once, and only after the timeout. */
TEST(hang_names_missing_thread)
{
	struct collected c;
	struct phases *p = new_phases(&c);
	__u64 t = 2000;
	int k;

	for (k = 0; k < 2; k++, t += 1000) {
		enter(p, P_PBW, 1, t, OBJ_X, SITE_A);
		enter(p, P_PBW, 2, t + 1, OBJ_X, SITE_A);
		enter(p, P_PBW, 3, t + 2, OBJ_X, SITE_A);
		leave(p, P_PBW, 1, t + 10, 0);
		leave(p, P_PBW, 2, t + 10, 0);
		leave(p, P_PBW, 3, t + 10, 0);
	}
	feed(p, SBT_EV_THREAD_START, 0, 4, 2500, 1, 0); /* alive, never a participant */
	enter(p, P_PBW, 1, 5000, OBJ_X, SITE_A);
	enter(p, P_PBW, 2, 5100, OBJ_X, SITE_A);
	phases__check_hangs(p, 6000, 1000);
	CHECK_EQ(c.nhang, 0);
	phases__check_hangs(p, 6100, 1000);
	CHECK_EQ(c.nhang, 1);
	CHECK_EQ(c.nmissing, 1);
	CHECK_EQ(c.hang_missing[0], 3);
	CHECK_EQ(c.hang_object, OBJ_X);
	phases__check_hangs(p, 9000, 1000);
	phases__finish(p);
	CHECK_EQ(c.nhang, 1);
	CHECK_EQ(c.n, 2);
	phases__free(p);
}

/* A barrier of 40 threads; then thread 5 alone waits in it. All 39 others
 * are counted missing, the first PH_HANG_LISTED listed in the order they
 * first took part, thread 5 skipped. */
TEST(hang_counts_every_missing_thread_and_lists_the_first)
{
	struct collected c;
	struct phases *p = new_phases(&c);
	__u32 tid, want = 1;
	int i;

	for (tid = 1; tid <= 40; tid++)
		enter(p, P_PBW, tid, 2000 + tid, OBJ_X, SITE_A);
	for (tid = 1; tid <= 40; tid++)
		leave(p, P_PBW, tid, 2100, 0);
	enter(p, P_PBW, 5, 3000, OBJ_X, SITE_A);
	phases__check_hangs(p, 4000, 1000);
	CHECK_EQ(c.nhang, 1);
	CHECK_EQ(c.nmissing, 39);
	CHECK_EQ(c.listed_missing, PH_HANG_LISTED);
	for (i = 0; i < 8; i++, want++) {
		want += want == 5;
		CHECK_EQ(c.hang_missing[i], want);
	}
	phases__free(p);
}

/* A barrier with no complete episode waits for every live thread of the
 * process: 50 started, 2 exited, 3 arrived: 45 missing. */
TEST(hang_without_history_counts_live_threads)
{
	struct collected c;
	struct phases *p = new_phases(&c);
	__u32 tid;

	for (tid = 1; tid <= 50; tid++)
		feed(p, SBT_EV_THREAD_START, 0, tid, 1000 + tid, 1, 0);
	feed(p, SBT_EV_THREAD_EXIT, 0, 7, 1500, 0, 0);
	feed(p, SBT_EV_THREAD_EXIT, 0, 8, 1500, 0, 0);
	enter(p, P_PBW, 1, 2000, OBJ_X, SITE_A);
	enter(p, P_PBW, 2, 2001, OBJ_X, SITE_A);
	enter(p, P_PBW, 3, 2002, OBJ_X, SITE_A);
	phases__check_hangs(p, 3002, 1000);
	CHECK_EQ(c.nhang, 1);
	CHECK_EQ(c.nmissing, 45);
	CHECK_EQ(c.listed_missing, PH_HANG_LISTED);
	phases__free(p);
}

/* Hangs are found from the oldest wait on: a barrier whose latest arrival
 * is recent is not reported with an older one, and a new arrival restarts
 * a barrier's wait. */
TEST(hang_check_goes_by_latest_arrival)
{
	struct collected c;
	struct phases *p = new_phases(&c);

	enter(p, P_PBW, 1, 1000, OBJ_X, SITE_A);
	enter(p, P_PBW, 2, 1500, OBJ_Y, SITE_A);
	enter(p, P_PBW, 3, 1800, OBJ_X, SITE_A); /* X now waits from 1800 */
	phases__check_hangs(p, 2000, 1000);
	CHECK_EQ(c.nhang, 0);
	phases__check_hangs(p, 2500, 1000);
	CHECK_EQ(c.nhang, 1);
	CHECK_EQ(c.hang_object, OBJ_Y);
	CHECK_EQ(phases__longest_wait(p, 2500), 700);
	phases__check_hangs(p, 2800, 1000);
	CHECK_EQ(c.nhang, 2);
	CHECK_EQ(c.hang_object, OBJ_X);
	CHECK_EQ(phases__longest_wait(p, 2800), 0);
	phases__check_hangs(p, 90000, 1000); /* reported once */
	CHECK_EQ(c.nhang, 2);
	phases__free(p);
}

/* Records out of time order (a CPU's ring read late): a barrier entered at
 * 4500 after one entered at 5000 hangs first, and is reported. */
TEST(hang_found_behind_a_later_wait)
{
	struct collected c;
	struct phases *p = new_phases(&c);

	enter(p, P_PBW, 1, 5000, OBJ_X, SITE_A);
	enter(p, P_PBW, 2, 4500, OBJ_Y, SITE_A);
	phases__check_hangs(p, 5800, 1000);
	CHECK_EQ(c.nhang, 1);
	CHECK_EQ(c.hang_object, OBJ_Y);
	CHECK_EQ(phases__longest_wait(p, 5800), 800);
	phases__check_hangs(p, 6000, 1000);
	CHECK_EQ(c.nhang, 2);
	phases__free(p);
}

/* One record stamped far ahead does not hide the hangs of the others:
 * thirty barriers that never release, each reported once, oldest first. */
TEST(hangs_found_whatever_came_first)
{
	struct collected c;
	struct phases *p = new_phases(&c);
	__u32 i;

	enter(p, P_PBW, 1, 1000000, OBJ_X, SITE_A);
	for (i = 0; i < 30; i++)
		enter(p, P_PBW, 10 + i, 2000 + 1000 * i, 0x10000 + 64 * i, SITE_A);
	phases__check_hangs(p, 2000 + 1000 * 29 + 500, 500);
	CHECK_EQ(c.nhang, 30);
	CHECK_EQ(c.hang_object, 0x10000 + 64 * 29);
	phases__check_hangs(p, 1000500, 500);
	CHECK_EQ(c.nhang, 31);
	CHECK_EQ(c.hang_object, OBJ_X);
	phases__free(p);
}

/* Waits that end (a departure), or move on (a new arrival), leave the watch
 * or take their new place in it; the others are found in order. */
TEST(hang_watch_keeps_its_order_as_waits_change)
{
	struct collected c;
	struct phases *p = new_phases(&c);
	__u32 i;

	for (i = 0; i < 20; i++) /* barrier i entered at 1000 + 100 i */
		enter(p, P_PBW, 100 + i, 1000 + 100 * i, 0x20000 + 64 * i, SITE_A);
	for (i = 0; i < 20; i += 3) /* every third released */
		leave(p, P_PBW, 100 + i, 4000, 0);
	enter(p, P_PBW, 200, 5000, 0x20000 + 64 * 1, SITE_A); /* barrier 1: a new arrival */
	phases__check_hangs(p, 3850,
			    1000); /* 1000..2850 due: 2, 4, 5, 7, 8, 10, 11, 13, 14, 16, 17 */
	CHECK_EQ(c.nhang, 11);
	CHECK_EQ(c.hang_object, 0x20000 + 64 * 17);
	phases__check_hangs(p, 5999, 1000);
	CHECK_EQ(c.nhang, 12); /* 19 (2900) */
	phases__check_hangs(p, 6000, 1000);
	CHECK_EQ(c.nhang, 13); /* 1, waiting from 5000 */
	CHECK_EQ(c.hang_object, 0x20000 + 64 * 1);
	phases__free(p);
}

/* A released thread that exits without a return record: the episode still
 * completes, with that departure unknown (and no wait counted for it). */
TEST(missing_departure_settles_on_exit)
{
	struct collected c;
	struct phases *p = new_phases(&c);

	enter(p, P_PBW, 1, 2000, OBJ_X, SITE_A);
	enter(p, P_PBW, 2, 2100, OBJ_X, SITE_A);
	leave(p, P_PBW, 1, 2200, 0);
	CHECK_EQ(c.n, 0);
	feed(p, SBT_EV_THREAD_EXIT, 0, 2, 2300, 0, 0);
	CHECK_EQ(c.n, 1);
	CHECK_EQ(ph_wait_ns(arrival_of(&c.ep[0], 2)), 0);
	CHECK_EQ(c.ep[0].last_depart, 2200);
	phases__finish(p);
	phases__free(p);
}

/* Lost records are counted and the phases in flight are marked. */
TEST(lost_records_mark_phases)
{
	struct collected c;
	struct phases *p = new_phases(&c);
	struct sbt_event e = {.ts = 2050,
			      .pid = PID,
			      .tid = 2,
			      .type = SBT_EV_ENTER,
			      .probe = P_PBW,
			      .obj = OBJ_X,
			      .site = SITE_A,
			      .lost = 3};
	__u64 first[4];

	enter(p, P_PBW, 1, 2000, OBJ_X, SITE_A);
	pending_site[2][pending_depth[2]++] = SITE_A;
	CHECK_EQ(phases__feed(p, &e), 0);
	leave(p, P_PBW, 1, 2200, 0);
	leave(p, P_PBW, 2, 2200, 0);
	phases__finish(p);
	CHECK_EQ(phases__lost(p), 3);
	CHECK_EQ(c.ep[0].lost, 3);
	CHECK_EQ(phases__lost_phases(p, first, 4), 1);
	CHECK_EQ(first[0], 0);
	phases__free(p);
}

static void lost_window(struct phases *p, __u64 t0, __u64 t1, __u32 n, __u64 arrivals)
{
	struct sbt_event e = {
		.ts = t0, .obj = t1, .site = arrivals, .pid = PID, .type = SBT_EV_LOST, .lost = n};

	CHECK_EQ(phases__feed(p, &e), 0);
}

/* Two threads at barrier X. Phase 1 releases when thread 2 arrives, but
 * its entry and return are lost (2100..2110); it arrives at phase 2 at
 * 2300, before thread 1 wakes from phase 1 (2400): that arrival joins
 * phase 1's episode, and thread 1 is alone in phase 2's. Both are marked
 * (phase 1 in flight at the loss, phase 2 by thread 1's first arrival
 * after it); so is phase 3, as each thread's next two arrivals are: which
 * thread lost records is not known. Phase 0 ended before the loss, phase 4
 * after the marks: unmarked. */
TEST(a_loss_window_marks_every_phase_it_touches)
{
	struct collected c;
	struct phases *p = new_phases(&c);
	__u64 first[8];
	int k;

	enter(p, P_PBW, 1, 1000, OBJ_X, SITE_A); /* phase 0 */
	enter(p, P_PBW, 2, 1100, OBJ_X, SITE_A);
	leave(p, P_PBW, 1, 1200, 0);
	leave(p, P_PBW, 2, 1200, 0);
	enter(p, P_PBW, 1, 2000, OBJ_X, SITE_A); /* phase 1 */
	lost_window(p, 2100, 2110, 2, 1);
	enter(p, P_PBW, 2, 2300, OBJ_X, SITE_A); /* phase 2, joins phase 1's */
	leave(p, P_PBW, 1, 2400, 0);
	enter(p, P_PBW, 1, 2600, OBJ_X, SITE_A);
	leave(p, P_PBW, 2, 2700, 0);
	leave(p, P_PBW, 1, 2700, 0);
	for (k = 3; k <= 4; k++) {
		enter(p, P_PBW, 1, k * 1000, OBJ_X, SITE_A);
		enter(p, P_PBW, 2, k * 1000 + 100, OBJ_X, SITE_A);
		leave(p, P_PBW, 1, k * 1000 + 200, 0);
		leave(p, P_PBW, 2, k * 1000 + 200, 0);
	}
	phases__finish(p);
	CHECK_EQ(phases__lost(p), 2);
	CHECK_EQ(c.n, 5);
	CHECK_EQ(c.ep[0].lost, 0);
	CHECK_EQ(c.ep[1].n, 2); /* phase 1's, with thread 2's phase 2 arrival */
	CHECK(c.ep[1].lost > 0);
	CHECK_EQ(c.ep[2].n, 1); /* phase 2's, thread 1 alone */
	CHECK(c.ep[2].lost > 0);
	CHECK(c.ep[3].lost > 0);
	CHECK_EQ(c.ep[4].lost, 0);
	CHECK_EQ(phases__lost_phases(p, first, 8), 3);
	phases__free(p);
}

/* An episode that begins inside a loss window is marked: its first
 * arrival may have been lost. One that begins after the thread's marks
 * are spent, and after the window, is not. */
TEST(an_episode_beginning_in_a_loss_window_is_marked)
{
	struct collected c;
	struct phases *p = new_phases(&c);

	lost_window(p, 900, 1500, 1, 0);
	enter(p, P_PBW, 1, 1000, OBJ_X, SITE_A);
	enter(p, P_PBW, 2, 1100, OBJ_X, SITE_A);
	leave(p, P_PBW, 1, 1200, 0);
	leave(p, P_PBW, 2, 1200, 0);
	phases__finish(p);
	CHECK_EQ(c.n, 1);
	CHECK(c.ep[0].lost > 0);
	phases__free(p);
}

/* Phases that left no record: the usual team (2 threads) over the
 * arrivals seen and lost, less the episodes seen: 3 complete episodes
 * (6 arrivals) and 4 lost arrivals make 5 phases, 2 missing. */
TEST(missing_phases_estimated_from_lost_arrivals)
{
	struct collected c;
	struct phases *p = new_phases(&c);
	int k;

	for (k = 0; k < 3; k++) {
		if (k == 2)
			lost_window(p, 2500, 2600, 8, 4);
		enter(p, P_PBW, 1, 1000 + k * 1000, OBJ_X, SITE_A);
		enter(p, P_PBW, 2, 1100 + k * 1000, OBJ_X, SITE_A);
		leave(p, P_PBW, 1, 1200 + k * 1000, 0);
		leave(p, P_PBW, 2, 1200 + k * 1000, 0);
	}
	phases__finish(p);
	CHECK_EQ(c.n, 3);
	CHECK_EQ(phases__missing_phases(p), 2);
	phases__free(p);
}

/* Nothing lost, nothing missing. */
TEST(no_loss_no_missing_phases)
{
	struct collected c;
	struct phases *p = new_phases(&c);

	enter(p, P_PBW, 1, 1000, OBJ_X, SITE_A);
	enter(p, P_PBW, 2, 1100, OBJ_X, SITE_A);
	leave(p, P_PBW, 1, 1200, 0);
	leave(p, P_PBW, 2, 1200, 0);
	phases__finish(p);
	CHECK_EQ(phases__missing_phases(p), 0);
	CHECK_EQ(c.ep[0].lost, 0);
	phases__free(p);
}

/* Records with an unknown probe id or type are rejected and counted. */
TEST(bad_records_rejected)
{
	struct collected c;
	struct phases *p = new_phases(&c);
	struct sbt_event bad_probe = {.type = SBT_EV_ENTER, .probe = 200, .tid = 1, .ts = 5};
	struct sbt_event bad_type = {.type = 99, .tid = 1, .ts = 5};

	CHECK(phases__feed(p, &bad_probe) < 0);
	CHECK(phases__feed(p, &bad_type) < 0);
	CHECK_EQ(phases__bad_records(p), 2);
	phases__finish(p);
	phases__free(p);
}

/* pthread_barrier_wait's serial-thread return checks the grouping: an
 * episode where two threads got it (two episodes merged) is counted. */
TEST(serial_thread_checks_grouping)
{
	struct collected c;
	struct phases *p = new_phases(&c);

	enter(p, P_PBW, 1, 2000, OBJ_X, SITE_A);
	enter(p, P_PBW, 2, 2100, OBJ_X, SITE_A);
	leave(p, P_PBW, 1, 2200, (__u64)-1);
	leave(p, P_PBW, 2, 2200, (__u64)-1);
	enter(p, P_PBW, 1, 3000, OBJ_X, SITE_A);
	enter(p, P_PBW, 2, 3100, OBJ_X, SITE_A);
	leave(p, P_PBW, 1, 3200, 0);
	leave(p, P_PBW, 2, 3200, (__u64)-1);
	phases__finish(p);
	CHECK_EQ(c.n, 2);
	CHECK_EQ(c.ep[0].serial, 2);
	CHECK_EQ(phases__grouping_errors(p), 1);
	phases__free(p);
}

static void counters_rec(struct phases *p, __u32 tid, __u64 ts, __u16 flags, __u64 v0, __u64 v1)
{
	struct sbt_event e = sbt_event_make(SBT_EV_COUNTERS, flags, PID, tid, ts, v0, v1);

	CHECK_EQ(phases__feed(p, &e), 0);
}

/* Counter deltas are taken over the compute window: value at the arrival
 * minus value at the previous departure. Phase 0 is known only for a thread
 * counted since its first run (flag), else it stays unknown. */
TEST(counter_deltas_per_window)
{
	struct phases_config cfg = {
		.probes = probes, .nprobes = NPROBES, .start_ns = START, .ncounters = 2};
	struct phases_ops ops = {.episode = on_episode};
	struct collected c;
	struct phases *p;

	memset(&c, 0, sizeof(c));
	memset(pending_depth, 0, sizeof(pending_depth));
	p = phases__new(&cfg, &ops, &c);
	/* phase 0: thread 1 counted since its start, thread 2 not */
	enter(p, P_PBW, 1, 2000, OBJ_X, SITE_A);
	counters_rec(p, 1, 2000, SBT_CTR_SINCE_START, 100, 7);
	enter(p, P_PBW, 2, 2100, OBJ_X, SITE_A);
	counters_rec(p, 2, 2100, 0, 5000, 70);
	leave(p, P_PBW, 1, 2200, 0);
	counters_rec(p, 1, 2200, SBT_CTR_SINCE_START, 130, 7);
	leave(p, P_PBW, 2, 2200, 0);
	counters_rec(p, 2, 2200, 0, 5010, 70);
	/* phase 1 */
	enter(p, P_PBW, 1, 3000, OBJ_X, SITE_A);
	counters_rec(p, 1, 3000, SBT_CTR_SINCE_START | SBT_CTR_SCALED, 1130, 9);
	enter(p, P_PBW, 2, 3100, OBJ_X, SITE_A);
	counters_rec(p, 2, 3100, 0, 7010, 75);
	leave(p, P_PBW, 1, 3200, 0);
	leave(p, P_PBW, 2, 3200, 0);
	phases__finish(p);

	CHECK_EQ(c.n, 2);
	CHECK_EQ(arrival_of(&c.ep[0], 1)->ctr_valid, 1);
	CHECK_EQ(arrival_of(&c.ep[0], 1)->ctr[0], 100);
	CHECK_EQ(arrival_of(&c.ep[0], 1)->ctr[1], 7);
	CHECK_EQ(arrival_of(&c.ep[0], 2)->ctr_valid, 0);
	CHECK_EQ(arrival_of(&c.ep[1], 1)->ctr[0], 1130 - 130);
	CHECK_EQ(arrival_of(&c.ep[1], 1)->ctr[1], 2);
	CHECK_EQ(arrival_of(&c.ep[1], 1)->ctr_scaled, 1);
	CHECK_EQ(arrival_of(&c.ep[1], 2)->ctr[0], 7010 - 5010);
	CHECK_EQ(arrival_of(&c.ep[1], 2)->ctr[1], 5);
	CHECK_EQ(phases__site(p, 0)->ctr[0], 100 + 1000 + 2000);
	phases__free(p);
}

/* A lost return record must not take the thread out of later episodes: its
 * next arrival at the same barrier unwinds the stale call. */
TEST(lost_return_record_recovers)
{
	struct collected c;
	struct phases *p = new_phases(&c);

	enter(p, P_PBW, 1, 2000, OBJ_X, SITE_A);
	enter(p, P_PBW, 2, 2100, OBJ_X, SITE_A);
	leave(p, P_PBW, 2, 2200, 0);
	pending_depth[1]--; /* thread 1's return record is lost */
	enter(p, P_PBW, 1, 3000, OBJ_X, SITE_A);
	enter(p, P_PBW, 2, 3100, OBJ_X, SITE_A);
	leave(p, P_PBW, 1, 3200, 0);
	leave(p, P_PBW, 2, 3200, 0);
	phases__finish(p);
	CHECK_EQ(c.n, 2);
	CHECK_EQ(c.ep[1].n, 2);
	CHECK(arrival_of(&c.ep[1], 1) != NULL);
	CHECK_EQ(ph_wait_ns(arrival_of(&c.ep[0], 1)), 0); /* its departure is unknown */
	phases__free(p);
}

/* Records taken while the probes went in can predate the session start:
 * the phase start is clamped, never after the arrival. */
TEST(arrival_before_session_start)
{
	struct collected c;
	struct phases *p = new_phases(&c);

	enter(p, P_PBW, 1, START - 300, OBJ_X, SITE_A);
	enter(p, P_PBW, 2, START + 100, OBJ_X, SITE_A);
	leave(p, P_PBW, 1, START + 200, 0);
	leave(p, P_PBW, 2, START + 200, 0);
	phases__finish(p);
	CHECK_EQ(c.n, 1);
	CHECK_EQ(ph_compute_ns(arrival_of(&c.ep[0], 1)), 0);
	CHECK_EQ(ph_compute_ns(arrival_of(&c.ep[0], 2)), 100);
	CHECK(ph_phase_ns(&c.ep[0]) < 1000);
	phases__free(p);
}

/* A recycled thread id starts afresh: its first window begins at its
 * creation, not at the old thread's last departure. */
TEST(recycled_tid_starts_afresh)
{
	struct collected c;
	struct phases *p = new_phases(&c);

	enter(p, P_PBW, 1, 2000, OBJ_X, SITE_A);
	enter(p, P_PBW, 2, 2100, OBJ_X, SITE_A);
	leave(p, P_PBW, 1, 2200, 0);
	leave(p, P_PBW, 2, 2200, 0);
	feed(p, SBT_EV_THREAD_EXIT, 0, 2, 2300, 0, 0);
	feed(p, SBT_EV_THREAD_START, 0, 2, 5000, 0, 0);
	enter(p, P_PBW, 1, 5100, OBJ_X, SITE_A);
	enter(p, P_PBW, 2, 5600, OBJ_X, SITE_A);
	leave(p, P_PBW, 1, 5700, 0);
	leave(p, P_PBW, 2, 5700, 0);
	phases__finish(p);
	CHECK_EQ(c.n, 2);
	CHECK_EQ(ph_compute_ns(arrival_of(&c.ep[1], 2)), 600);
	CHECK_EQ(phases__thread(p, 1)->exit_ns, 0);
	phases__free(p);
}

/*
 * Attached to a running process (threads 11, 12, 13 declared with an
 * unknown start): 11 and 12 wait in the barrier when the probes go in and
 * are never seen in that episode; 13 arrives at 1500. Episode 0 = {13},
 * partial (13's phase began before the session). 11 and 12 leave unseen,
 * arrive at 2000 and 2500 with unknown phase starts: episode 1 is partial
 * too, although 13's window (1510..3000) is whole. Episode 2 (4000, 4500,
 * 5000) is whole: the only one in the site's and threads' statistics.
 */
TEST(partial_episodes_after_attach)
{
	struct collected c;
	struct phases *p = new_phases(&c);
	const struct ph_site *s;
	__u32 tid;

	for (tid = 11; tid <= 13; tid++)
		phases__add_thread(p, PID, tid, 0);
	enter(p, P_PBW, 13, 1500, OBJ_X, SITE_A);
	leave(p, P_PBW, 13, 1510, (__u64)-1);
	enter(p, P_PBW, 11, 2000, OBJ_X, SITE_A);
	enter(p, P_PBW, 12, 2500, OBJ_X, SITE_A);
	enter(p, P_PBW, 13, 3000, OBJ_X, SITE_A);
	for (tid = 11; tid <= 13; tid++)
		leave(p, P_PBW, tid, 3000 + tid, tid == 13 ? (__u64)-1 : 0);
	enter(p, P_PBW, 11, 4000, OBJ_X, SITE_A);
	enter(p, P_PBW, 12, 4500, OBJ_X, SITE_A);
	enter(p, P_PBW, 13, 5000, OBJ_X, SITE_A);
	for (tid = 11; tid <= 13; tid++)
		leave(p, P_PBW, tid, 5000 + tid, tid == 13 ? (__u64)-1 : 0);
	phases__finish(p);

	CHECK_EQ(c.n, 3);
	CHECK_EQ(c.ep[0].n, 1);
	CHECK_EQ(c.ep[0].partial, 1);
	CHECK_EQ(c.ep[1].partial, 2);
	CHECK_EQ(arrival_of(&c.ep[1], 13)->partial, 0);
	CHECK_EQ(arrival_of(&c.ep[1], 11)->partial, 1);
	CHECK_EQ(c.ep[2].partial, 0);
	CHECK_EQ(phases__completed(p), 3);
	CHECK_EQ(phases__partial(p), 2);
	CHECK_EQ(phases__grouping_errors(p), 0);
	CHECK_EQ(phases__nsites(p), 1);
	s = phases__site(p, 0);
	CHECK_EQ(s->episodes, 1);
	CHECK_EQ(s->barrier_min, 5000 - 4000);
	CHECK_EQ(s->barrier_max, 5000 - 4000);
	CHECK_EQ(s->phase_min, 5000 - 3011);
	for (tid = 11; tid <= 13; tid++) {
		const struct ph_thread *t = phases__thread(p, tid - 11);

		CHECK_EQ(t->tid, tid);
		CHECK_EQ(t->episodes, 1);
		CHECK_EQ(t->compute_ns, 4000 + 500 * (tid - 11) - (3000 + tid));
	}
	phases__free(p);
}

/* The same stream from a launched process (threads started at known
 * times): nothing is partial. */
TEST(no_partial_episode_when_starts_are_known)
{
	struct collected c;
	struct phases *p = new_phases(&c);
	__u32 tid;

	for (tid = 11; tid <= 13; tid++)
		phases__add_thread(p, PID, tid, START);
	enter(p, P_PBW, 13, 1500, OBJ_X, SITE_A);
	leave(p, P_PBW, 13, 1510, (__u64)-1);
	enter(p, P_PBW, 11, 2000, OBJ_X, SITE_A);
	phases__finish(p);
	CHECK_EQ(c.n, 1);
	CHECK_EQ(c.ep[0].partial, 0);
	CHECK_EQ(phases__partial(p), 0);
	CHECK_EQ(phases__site(p, 0)->episodes, 1);
	phases__free(p);
}
