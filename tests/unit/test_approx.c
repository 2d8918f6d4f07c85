// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The approximation of barrier phases (probe cost removed): time-based,
 * fork and join, barrier exits after Malony-Reed and Sarukkai-Malony, on
 * synthetic event streams with exact values, and its invariants on random
 * ones. */
#include "analyses/alpha_series.h"
#include "phases_fixture.h"

/* A phase analysis approximating with the probe costs a_enter, a_exit
 * under model and exit order, its episodes copied into c. */
static struct phases *approx_phases(struct collected *c, const __u64 *a_enter, const __u64 *a_exit,
				    int model, int order)
{
	struct phases_config cfg = {.probes = probes,
				    .nprobes = NPROBES,
				    .start_ns = START,
				    .alpha_enter = a_enter,
				    .alpha_exit = a_exit,
				    .model = model,
				    .exit_order = order};
	struct phases_ops ops = {.episode = on_episode};

	memset(c, 0, sizeof(*c));
	memset(pending_depth, 0, sizeof(pending_depth));
	return phases__new(&cfg, &ops, c);
}

/*
 * Malony-Reed barrier approximation with calibrated costs: barrier probe
 * entry 100, return 50; region probe entry 300, return 200. Thread 1 pays a
 * region frame (500) before arriving last in the measurement, so in the
 * approximation thread 2 is the last arriver while thread 2 is also the first
 * measured exiter. Expected values worked out in the comments.
 */
TEST(approximation_barrier_malony_reed)
{
	static const __u64 a_enter[NPROBES] = {[P_PBW] = 100, [P_REGION] = 300};
	static const __u64 a_exit[NPROBES] = {[P_PBW] = 50, [P_REGION] = 200};
	struct collected c;
	struct phases *p = approx_phases(&c, a_enter, a_exit, PH_MODEL_MR, PH_EXIT_RANK);
	struct ph_episode_times m;

	enter(p, P_REGION, 1, 1100, 0, SITE_B);
	leave(p, P_REGION, 1, 1400, 0);
	enter(p, P_PBW, 2, 2800, OBJ_X, SITE_A); /* t_a = 1000 + 1800 = 2800 */
	enter(p, P_PBW, 1, 3000, OBJ_X, SITE_A); /* t_a = 1000 + 2000 - 500 = 2500 */
	leave(p, P_PBW, 2, 3100, 0);		 /* first exit: 2800 + (3100-3000-50) = 2850 */
	leave(p, P_PBW, 1, 3150, 0);		 /* 2850 + max(0, 50 - 50) = 2850 */
	enter(p, P_PBW, 1, 4000, OBJ_X, SITE_A); /* 2850 + 850 - 50 = 3650 */
	enter(p, P_PBW, 2, 4100, OBJ_X, SITE_A); /* 2850 + 1000 - 50 = 3800 */
	leave(p, P_PBW, 1, 4200, 0);		 /* 3800 + (4200-4100-50) = 3850 */
	leave(p, P_PBW, 2, 4210, 0);		 /* 3850 + max(0, 10 - 50) = 3850 */
	phases__finish(p);

	CHECK_EQ(c.n, 2);
	CHECK_EQ(arrival_of(&c.ep[0], 1)->ta_arrive, 2500);
	CHECK_EQ(arrival_of(&c.ep[0], 2)->ta_arrive, 2800);
	CHECK_EQ(arrival_of(&c.ep[0], 1)->overhead_ns, 500);
	CHECK_EQ(ph_compute_a(arrival_of(&c.ep[0], 1)), 1500);
	CHECK_EQ(arrival_of(&c.ep[0], 2)->ta_depart, 2850);
	CHECK_EQ(arrival_of(&c.ep[0], 1)->ta_depart, 2850);
	CHECK_EQ(ph_wait_a(arrival_of(&c.ep[0], 1)), 350);
	ph_episode_times(&c.ep[0], PH_APPROXIMATED, &m);
	CHECK_EQ(m.barrier_ns, 300);
	CHECK_EQ(m.phase_ns, 1800);
	CHECK_EQ(arrival_of(&c.ep[1], 1)->ta_arrive, 3650);
	CHECK_EQ(arrival_of(&c.ep[1], 2)->ta_arrive, 3800);
	CHECK_EQ(ph_compute_a(arrival_of(&c.ep[1], 2)), 950);
	CHECK_EQ(arrival_of(&c.ep[1], 1)->ta_depart, 3850);
	CHECK_EQ(arrival_of(&c.ep[1], 2)->ta_depart, 3850);
	ph_episode_times(&c.ep[1], PH_APPROXIMATED, &m);
	CHECK_EQ(m.barrier_ns, 150);
	CHECK_EQ(m.phase_ns, 950);
	/* the approximated run ends at 3850, the measured one at 4210 */
	CHECK_EQ(phases__approx_last_ts(p), 3850);
	CHECK_EQ(phases__last_ts(p), 4210);
	phases__free(p);
}

/*
 * Two episodes of one barrier, three threads, barrier costs entry 100,
 * return 50, under the given model. Episode 0 (no earlier spacing known)
 * follows Malony-Reed: arrivals 2000, 2500, 3000 (thread 3 last), exits
 * t3 3100 -> 3000 + 100 - 50 = 3050, t1 3200 -> 3100, t2 3300 -> 3200; its
 * measured exit spacing beta = (3300 - 3100) / 2 = 100. Episode 1:
 * arrivals t3 4500 -> 3050 + 1400 - 50 = 4400, t2 4800 -> 4650, t1 5000 ->
 * 4850 (the last); measured exits t2 5100, t3 5200, t1 5300.
 */
static struct phases *two_barrier_episodes(struct collected *c, int model, int order)
{
	static const __u64 a_enter[NPROBES] = {[P_PBW] = 100};
	static const __u64 a_exit[NPROBES] = {[P_PBW] = 50};
	struct phases *p = approx_phases(c, a_enter, a_exit, model, order);

	enter(p, P_PBW, 1, 2000, OBJ_X, SITE_A);
	enter(p, P_PBW, 2, 2500, OBJ_X, SITE_A);
	enter(p, P_PBW, 3, 3000, OBJ_X, SITE_A);
	leave(p, P_PBW, 3, 3100, 0);
	leave(p, P_PBW, 1, 3200, 0);
	leave(p, P_PBW, 2, 3300, 0);
	enter(p, P_PBW, 3, 4500, OBJ_X, SITE_A);
	enter(p, P_PBW, 2, 4800, OBJ_X, SITE_A);
	enter(p, P_PBW, 1, 5000, OBJ_X, SITE_A);
	leave(p, P_PBW, 2, 5100, 0);
	leave(p, P_PBW, 3, 5200, 0);
	leave(p, P_PBW, 1, 5300, 0);
	phases__finish(p);
	CHECK_EQ(c->n, 2);
	CHECK_EQ(arrival_of(&c->ep[0], 3)->ta_depart, 3050);
	CHECK_EQ(arrival_of(&c->ep[0], 1)->ta_depart, 3100);
	CHECK_EQ(arrival_of(&c->ep[0], 2)->ta_depart, 3200);
	CHECK_EQ(arrival_of(&c->ep[1], 3)->ta_arrive, 4400);
	CHECK_EQ(arrival_of(&c->ep[1], 2)->ta_arrive, 4650);
	CHECK_EQ(arrival_of(&c->ep[1], 1)->ta_arrive, 4850);
	CHECK_EQ(phases__violations(p, -1), 0);
	return p;
}

/* Malony-Reed on episode 1: first exit (t2) at 4850 + (5100 - 5000 - 50),
 * the others keep the measured spacing less the return cost. */
TEST(barrier_exits_malony_reed_second_episode)
{
	struct collected c;
	struct phases *p = two_barrier_episodes(&c, PH_MODEL_MR, PH_EXIT_RANK);

	CHECK_EQ(arrival_of(&c.ep[1], 2)->ta_depart, 4900);
	CHECK_EQ(arrival_of(&c.ep[1], 3)->ta_depart, 4900 + 100 - 50);
	CHECK_EQ(arrival_of(&c.ep[1], 1)->ta_depart, 4900 + 200 - 50);
	phases__free(p);
}

/* Sarukkai-Malony, measured exit order: the first to leave (t2) as in
 * Malony-Reed, 4850 + (5100 - 5000 - 50) = 4900; the k-th (k - 1) beta
 * later, beta = 100 from episode 0 (Malony-Reed: 50 earlier each). */
TEST(barrier_exits_sarukkai_malony_rank)
{
	struct collected c;
	struct phases *p = two_barrier_episodes(&c, PH_MODEL_SM, PH_EXIT_RANK);

	CHECK_EQ(arrival_of(&c.ep[1], 2)->ta_depart, 4900);
	CHECK_EQ(arrival_of(&c.ep[1], 3)->ta_depart, 4900 + 100);
	CHECK_EQ(arrival_of(&c.ep[1], 1)->ta_depart, 4900 + 200);
	phases__free(p);
}

/* Sarukkai-Malony, reverse arrival order: the i-th of P = 3 to arrive
 * (approximated: t3, t2, t1) is the (P - i + 1)-th to leave, (P - i) beta
 * after the first exit (4900, as in Malony-Reed), but no earlier than
 * Malony-Reed has it: t1, measured last out (5300), at 4900 + 200 - 50. */
TEST(barrier_exits_sarukkai_malony_reverse_arrival)
{
	struct collected c;
	struct phases *p = two_barrier_episodes(&c, PH_MODEL_SM, PH_EXIT_REVERSE);

	CHECK_EQ(arrival_of(&c.ep[1], 1)->ta_depart, 4900 + 200 - 50);
	CHECK_EQ(arrival_of(&c.ep[1], 2)->ta_depart, 4900 + 100);
	CHECK_EQ(arrival_of(&c.ep[1], 3)->ta_depart, 4900 + 200);
	phases__free(p);
}

/* Sarukkai-Malony never moves an exit later than measured. Costs: barrier
 * entry 100, return 50. Episode 0 follows Malony-Reed: arrivals t1 2000,
 * t2 2500; exits t1 2600 -> 2500 + 100 - 50 = 2550, t2 4600 -> 2550 +
 * 2000 - 50 = 4500; its slow exits give beta = 2000 (+ 1). Episode 1:
 * arrivals t1 5000 -> 2550 + 2400 - 50 = 4900, t2 5100 -> 4500 + 500 - 50
 * = 4950; the first exit, t2's (the last arriver's, in either order), at
 * 4950 + (5200 - 5100 - 50) = 5000; t1's at 5000 + beta would pass the
 * measured 5300 and is held there. */
TEST(barrier_exits_sarukkai_malony_never_later_than_measured)
{
	static const __u64 a_enter[NPROBES] = {[P_PBW] = 100};
	static const __u64 a_exit[NPROBES] = {[P_PBW] = 50};
	struct collected c;
	struct phases *p;
	int order;

	for (order = PH_EXIT_RANK; order <= PH_EXIT_REVERSE; order++) {
		p = approx_phases(&c, a_enter, a_exit, PH_MODEL_SM, order);
		enter(p, P_PBW, 1, 2000, OBJ_X, SITE_A);
		enter(p, P_PBW, 2, 2500, OBJ_X, SITE_A);
		leave(p, P_PBW, 1, 2600, 0);
		leave(p, P_PBW, 2, 4600, 0);
		enter(p, P_PBW, 1, 5000, OBJ_X, SITE_A);
		enter(p, P_PBW, 2, 5100, OBJ_X, SITE_A);
		leave(p, P_PBW, 2, 5200, 0);
		leave(p, P_PBW, 1, 5300, 0);
		phases__finish(p);
		CHECK_EQ(c.n, 2);
		CHECK_EQ(arrival_of(&c.ep[0], 1)->ta_depart, 2550);
		CHECK_EQ(arrival_of(&c.ep[0], 2)->ta_depart, 4500);
		CHECK_EQ(arrival_of(&c.ep[1], 1)->ta_arrive, 4900);
		CHECK_EQ(arrival_of(&c.ep[1], 2)->ta_arrive, 4950);
		CHECK_EQ(arrival_of(&c.ep[1], 2)->ta_depart, 5000);
		CHECK_EQ(arrival_of(&c.ep[1], 1)->ta_depart, 5300);
		CHECK_EQ(phases__violations(p, -1), 0);
		phases__free(p);
	}
}

/* Sarukkai-Malony's beta is the least exit spacing seen at the barrier: a
 * slow release (a thread woken late) does not space later episodes. Costs:
 * entry 100, return 50 (charged after the exit it times). Episode 0: exits
 * t2 1550, t1 1600, 100 apart measured (beta 100). Episode 1: arrivals t1
 * 1600 + 1300 - 50 = 2850, t2 1550 + 1900 - 50 = 3400; exits t2 3400 +
 * (3600 - 3500 - 50) = 3450, t1 at Malony-Reed's 3450 + 2000 - 50 = 5400
 * (later than 3450 + beta); 2000 apart measured. Episode 2: arrivals t1
 * 5400 + 1400 - 50 = 6750, t2 3450 + 3900 - 50 = 7300; exits t2 7350, t1
 * beta later at 7450 (Malony-Reed: 7400; a beta of 2000 would hold it at
 * the measured 7700). */
TEST(barrier_exits_sarukkai_malony_least_spacing)
{
	static const __u64 a_enter[NPROBES] = {[P_PBW] = 100};
	static const __u64 a_exit[NPROBES] = {[P_PBW] = 50};
	struct collected c;
	struct phases *p = approx_phases(&c, a_enter, a_exit, PH_MODEL_SM, PH_EXIT_RANK);
	static const __u64 t[3][4] = {
		{1000, 1500, 1600, 1700}, {3000, 3500, 3600, 5600}, {7000, 7500, 7600, 7700}};
	int i;

	for (i = 0; i < 3; i++) {
		enter(p, P_PBW, 1, t[i][0], OBJ_X, SITE_A);
		enter(p, P_PBW, 2, t[i][1], OBJ_X, SITE_A);
		leave(p, P_PBW, 2, t[i][2], 0);
		leave(p, P_PBW, 1, t[i][3], 0);
	}
	phases__finish(p);
	CHECK_EQ(c.n, 3);
	CHECK_EQ(arrival_of(&c.ep[1], 2)->ta_depart, 3450);
	CHECK_EQ(arrival_of(&c.ep[1], 1)->ta_depart, 5400);
	CHECK_EQ(arrival_of(&c.ep[2], 1)->ta_arrive, 6750);
	CHECK_EQ(arrival_of(&c.ep[2], 2)->ta_arrive, 7300);
	CHECK_EQ(arrival_of(&c.ep[2], 2)->ta_depart, 7350);
	CHECK_EQ(arrival_of(&c.ep[2], 1)->ta_depart, 7450);
	CHECK_EQ(phases__violations(p, -1), 0);
	phases__free(p);
}

/* Time-based only: each thread keeps its measured times less its own
 * probe cost; the barrier does not re-time anything. */
TEST(time_based_model_ignores_barriers)
{
	static const __u64 a_enter[NPROBES] = {[P_PBW] = 100};
	static const __u64 a_exit[NPROBES] = {[P_PBW] = 50};
	struct collected c;
	struct phases *p = approx_phases(&c, a_enter, a_exit, PH_MODEL_TIME, PH_EXIT_RANK);

	enter(p, P_PBW, 1, 2000, OBJ_X, SITE_A);
	enter(p, P_PBW, 2, 3000, OBJ_X, SITE_A);
	leave(p, P_PBW, 2, 3100, 0);
	leave(p, P_PBW, 1, 3200, 0);
	enter(p, P_PBW, 1, 4000, OBJ_X, SITE_A);
	phases__finish(p);
	CHECK_EQ(arrival_of(&c.ep[0], 2)->ta_depart, 3100 - 100);
	CHECK_EQ(arrival_of(&c.ep[0], 1)->ta_depart, 3200 - 100);
	CHECK_EQ(phases__approx_last_ts(p), 4000 - 150);
	phases__free(p);
}

/* A counter record (-e) costs its thread alpha_counters like a probe hit:
 * thread 1's record at 1500 moves its arrival at 2000 to 1000 + 1000 - 300. */
TEST(counter_records_charged)
{
	static const __u64 a_enter[NPROBES] = {[P_PBW] = 100};
	static const __u64 a_exit[NPROBES] = {[P_PBW] = 50};
	struct phases_config cfg = {.probes = probes,
				    .nprobes = NPROBES,
				    .start_ns = START,
				    .alpha_enter = a_enter,
				    .alpha_exit = a_exit,
				    .alpha_counters = 300,
				    .ncounters = 2};
	struct phases_ops ops = {.episode = on_episode};
	struct collected c;
	struct phases *p;

	memset(&c, 0, sizeof(c));
	memset(pending_depth, 0, sizeof(pending_depth));
	p = phases__new(&cfg, &ops, &c);
	feed(p, SBT_EV_COUNTERS, 0, 1, 1500, 10, 20);
	/* t_a = 1000 + 1000 - 300 (the counter record) */
	enter(p, P_PBW, 1, 2000, OBJ_X, SITE_A);
	feed(p, SBT_EV_COUNTERS, 0, 1, 2010, 11, 21);
	leave(p, P_PBW, 1, 2500, 0);
	phases__finish(p);
	CHECK_EQ(c.n, 1);
	CHECK_EQ(arrival_of(&c.ep[0], 1)->ta_arrive, 1700);
	CHECK_EQ(arrival_of(&c.ep[0], 1)->overhead_ns, 300);
	phases__free(p);
}

/* A PREEMPTED record: the thread lost its CPU to sbt-bpf for ns. */
static void preempted(struct phases *p, __u32 tid, __u64 ts, __u64 ns)
{
	struct sbt_event e = sbt_event_make(SBT_EV_PREEMPTED, 0, PID, tid, ts, ns, 0);

	CHECK_EQ(phases__feed(p, &e), 0);
}

/*
 * sbt-bpf took thread 1's CPU for 400 ns before its arrival (it arrives
 * last) and thread 2's for 300 ns while it waited; a thread never seen (9)
 * lost 1000; a last window of thread 2 overlaps its own later event.
 * Barrier costs entry 100, return 50, region 300 + 200.
 * Thread 1: region 1100..1400 (pays 500), arrival at 3000 -> 1000 + 2000 -
 * 500 - 400 = 2100, the last; first exit at 3100 -> 2100 + (100 - 50) =
 * 2150, thread 2's at 3150 -> 2150 + max(0, 50 - 50). Thread 2's charge is
 * inside its wait: its departure is re-timed from the release, not moved.
 * Without the records the exits would be 2550.
 */
TEST(tracer_preemption_charged_to_its_thread)
{
	static const __u64 a_enter[NPROBES] = {[P_PBW] = 100, [P_REGION] = 300};
	static const __u64 a_exit[NPROBES] = {[P_PBW] = 50, [P_REGION] = 200};
	struct collected c;
	struct phases *p = approx_phases(&c, a_enter, a_exit, PH_MODEL_MR, PH_EXIT_RANK);
	const struct ph_preempted *pr;
	struct sbt_event e;

	enter(p, P_REGION, 1, 1100, 0, SITE_B);
	leave(p, P_REGION, 1, 1400, 0);
	enter(p, P_PBW, 2, 2000, OBJ_X, SITE_A);
	preempted(p, 1, 2500, 400);
	preempted(p, 2, 2800, 300);
	enter(p, P_PBW, 1, 3000, OBJ_X, SITE_A);
	leave(p, P_PBW, 1, 3100, 0);
	leave(p, P_PBW, 2, 3150, 0);
	preempted(p, 9, 3200, 1000);
	/* a window from 2900, but thread 2 ran on (elsewhere) at 3150: 250,
	 * the cost the MPI view removes too */
	e = sbt_event_make(SBT_EV_PREEMPTED, 0, PID, 2, 3300, 400, 0);
	CHECK_EQ(phases__record_cost(p, &e), 250);
	e.tid = 9;
	CHECK_EQ(phases__record_cost(p, &e), 0);
	preempted(p, 2, 3300, 400);
	phases__finish(p);

	CHECK_EQ(c.n, 1);
	CHECK_EQ(arrival_of(&c.ep[0], 1)->ta_arrive, 2100);
	CHECK_EQ(arrival_of(&c.ep[0], 2)->ta_arrive, 2000);
	CHECK_EQ(arrival_of(&c.ep[0], 1)->ta_depart, 2150);
	CHECK_EQ(arrival_of(&c.ep[0], 2)->ta_depart, 2150);
	/* a probe's cost, not the tracer's CPU, is the phase's overhead */
	CHECK_EQ(arrival_of(&c.ep[0], 1)->overhead_ns, 500);
	CHECK_EQ(thread_of(p, 1)->preempted_total, 400);
	CHECK_EQ(thread_of(p, 2)->preempted_total, 300 + 250);
	CHECK(thread_of(p, 9) == NULL);
	/* the windows as recorded */
	pr = phases__preempted(p);
	CHECK_EQ(pr->count, 4);
	CHECK_EQ(pr->ns, 2100);
	/* the records bound no time of the run */
	CHECK_EQ(phases__last_ts(p), 3150);
	CHECK_EQ(phases__approx_last_ts(p), 2150);
	phases__free(p);
}

/* A record of a self-timed site: cost, when not 0, is the measured cost of
 * the thread's previous self-timed hit. */
static void timed(struct phases *p, __u16 type, __u16 probe, __u32 tid, __u64 ts, __u32 cost)
{
	struct sbt_event e = sbt_event_make(type, probe, PID, tid, ts, OBJ_X, SITE_A);

	e.flags = SBT_RF_TIMED | (cost ? SBT_RF_COST : 0);
	e.cost = cost;
	CHECK_EQ(phases__feed(p, &e), 0);
}

/*
 * Self-timed hits: each record brings the measured cost of its thread's
 * previous hit, which replaces the calibrated cost charged for it (entry
 * 100, return 50) while the thread has not been re-based since; a cost far
 * above the calibrated one (preempted) is refused.
 */
TEST(measured_costs_replace_calibrated_ones)
{
	static const __u64 a_enter[NPROBES] = {[P_PBW] = 100, [P_LOCK] = 100};
	static const __u64 a_exit[NPROBES] = {[P_PBW] = 50, [P_LOCK] = 50};
	struct collected c;
	struct phases *p = approx_phases(&c, a_enter, a_exit, PH_MODEL_MR, PH_EXIT_RANK);
	const struct ph_timed *tm;

	timed(p, SBT_EV_ENTER, P_LOCK, 1, 1100, 0);	  /* t_a 1100; 100 charged */
	timed(p, SBT_EV_EXIT, P_LOCK, 1, 1400, 250);	  /* 250 instead: 1400 - 250 = 1150 */
	timed(p, SBT_EV_ENTER, P_PBW, 2, 2800, 0);	  /* 2800 */
	timed(p, SBT_EV_ENTER, P_PBW, 1, 3000, 80);	  /* 3000 - (250 + 80) = 2670 */
	timed(p, SBT_EV_EXIT, P_PBW, 2, 3100, 120);	  /* 2800 + (3100 - 3000 - 50) = 2850 */
	timed(p, SBT_EV_EXIT, P_PBW, 1, 3150, 300);	  /* re-based: its arrival's cost is past */
	timed(p, SBT_EV_ENTER, P_LOCK, 1, 3400, 70);	  /* 2850 + 250 - 70 = 3030 */
	timed(p, SBT_EV_ENTER, P_LOCK, 2, 3500, 5000000); /* refused: 2850 + 400 - 50 = 3200 */
	CHECK_EQ(arrival_of(&c.ep[0], 1)->ta_arrive, 2670);
	CHECK_EQ(arrival_of(&c.ep[0], 1)->ta_depart, 2850);
	CHECK_EQ(phases__thread_approx(p, 1), 3030);
	CHECK_EQ(phases__thread_approx(p, 2), 3200);
	/* thread 1: 250 + 80 + 300 + 70 measured, 100 charged for its last hit */
	CHECK_EQ(thread_of(p, 1)->overhead_total, 800);
	/* thread 2: 120 measured, 50 and 100 charged */
	CHECK_EQ(thread_of(p, 2)->overhead_total, 270);
	tm = phases__timed(p);
	CHECK_EQ(tm->hits, 5);
	CHECK_EQ(tm->measured_ns, 820);
	CHECK_EQ(tm->calibrated_ns, 400);
	CHECK_EQ(tm->refused, 1);
	phases__finish(p);
	phases__free(p);
}

/* Fork and join (Malony-Reed §3.2.2), region costs entry 300, return 200.
 * The main thread (tid = pid) pays a region call (1500 -> 2500) before
 * thread 2 starts at 3000: thread 2 takes the main thread's approximated
 * time, 1000 + 2000 - 500 = 2500, as its basis. Thread 2 pays a region
 * call of its own (3100 -> 3900) and exits at 4200, approximated 2500 +
 * 1200 - 500 = 3200: the main thread, joining its last worker, continues
 * from there rather than from its own 1000 + 3200 - 500 = 3700. */
TEST(fork_and_join_rebase_the_threads)
{
	static const __u64 a_enter[NPROBES] = {[P_REGION] = 300};
	static const __u64 a_exit[NPROBES] = {[P_REGION] = 200};
	struct collected c;
	struct phases *p = approx_phases(&c, a_enter, a_exit, PH_MODEL_MR, PH_EXIT_RANK);

	enter(p, P_REGION, PID, 1500, 0, SITE_A);
	leave(p, P_REGION, PID, 2500, 0);
	feed(p, SBT_EV_THREAD_START, 0, 2, 3000, 0, 0);
	CHECK_EQ(phases__thread_approx(p, 2), 2500);
	enter(p, P_REGION, 2, 3100, 0, SITE_B);
	leave(p, P_REGION, 2, 3900, 0);
	feed(p, SBT_EV_THREAD_EXIT, 0, 2, 4200, 0, 0);
	CHECK_EQ(phases__thread_approx(p, 2), 3200);
	CHECK_EQ(phases__thread_approx(p, PID), 3200);
	enter(p, P_REGION, PID, 4500, 0, SITE_A);
	CHECK_EQ(phases__thread_approx(p, PID), 3200 + 300);
	CHECK_EQ(phases__violations(p, -1), 0);
	CHECK_EQ(phases__clamped(p), 0);
	phases__finish(p);
	phases__free(p);
}

/* Join after the main thread's own events (region costs entry 300, return
 * 200). The main thread starts at 1000; workers 2 and 3 start at 2000 and 2100 (approximated
 * alike). Worker 2 pays one region call and exits first, at 4000: 2000 + 2000 - 500 = 3500, the
 * greatest worker approximation. The main thread enters a region at 5000 (5000; it owes 300 from
 * then). Worker 3 pays 12 region calls (6000) and exits last, at 9000: 2100 + 6900 - 6000 = 3000.
 * The main thread resumes, measured, at 9000, approximated at max(3500, 5000) = 5000 (its own 1000
 * + 8000 - 300 = 8700 held the wait for worker 3's probes); its region return at 9500 is 5000 + 500
 * = 5500. Re-based at worker 2's exit (4000) instead, it would count 4000..5000 twice: 10500, after
 * 9500. */
TEST(join_resumes_at_the_last_worker_exit)
{
	static const __u64 a_enter[NPROBES] = {[P_REGION] = 300};
	static const __u64 a_exit[NPROBES] = {[P_REGION] = 200};
	struct collected c;
	struct phases *p = approx_phases(&c, a_enter, a_exit, PH_MODEL_MR, PH_EXIT_RANK);
	__u64 ts = 2200;
	int i;

	feed(p, SBT_EV_THREAD_START, 0, PID, 1000, 0, 0);
	feed(p, SBT_EV_THREAD_START, 0, 2, 2000, 0, 0);
	feed(p, SBT_EV_THREAD_START, 0, 3, 2100, 0, 0);
	enter(p, P_REGION, 2, 2200, 0, SITE_B);
	leave(p, P_REGION, 2, 3200, 0);
	for (i = 0; i < 12; i++, ts += 500) {
		enter(p, P_REGION, 3, ts, 0, SITE_B);
		leave(p, P_REGION, 3, ts + 250, 0);
	}
	feed(p, SBT_EV_THREAD_EXIT, 0, 2, 4000, 0, 0);
	CHECK_EQ(phases__thread_approx(p, 2), 3500);
	enter(p, P_REGION, PID, 5000, 0, SITE_A);
	CHECK_EQ(phases__thread_approx(p, PID), 5000);
	feed(p, SBT_EV_THREAD_EXIT, 0, 3, 9000, 0, 0);
	CHECK_EQ(phases__thread_approx(p, 3), 3000);
	CHECK_EQ(phases__thread_approx(p, PID), 5000);
	leave(p, P_REGION, PID, 9500, 0);
	CHECK_EQ(phases__thread_approx(p, PID), 5500);
	CHECK_EQ(phases__approx_last_ts(p), 5500);
	CHECK_EQ(phases__last_ts(p), 9500);
	CHECK_EQ(phases__violations(p, -1), 0);
	phases__finish(p);
	phases__free(p);
}

/* A process killed: its main thread, which waited in a join (unprobed)
 * since 1000, exits first, at 9000, its clock never re-based (8000 + 1000:
 * nothing of the workers' cost was taken from its wait); the worker, whose
 * 12 region calls cost 6000, exits after it, at 9100: 2100 + 7000 - 6000 =
 * 3100. The main thread joined nobody: the run ends at the worker's
 * approximated exit, not at the main thread's clock (9000, the measured
 * time: no probe cost removed from a killed run). */
TEST(killed_main_thread_joins_nobody)
{
	static const __u64 a_enter[NPROBES] = {[P_REGION] = 300};
	static const __u64 a_exit[NPROBES] = {[P_REGION] = 200};
	struct collected c;
	struct phases *p = approx_phases(&c, a_enter, a_exit, PH_MODEL_MR, PH_EXIT_RANK);
	__u64 ts = 2200;
	int i;

	feed(p, SBT_EV_THREAD_START, 0, PID, 1000, 0, 0);
	feed(p, SBT_EV_THREAD_START, 0, 3, 2100, 0, 0);
	for (i = 0; i < 12; i++, ts += 500) {
		enter(p, P_REGION, 3, ts, 0, SITE_B);
		leave(p, P_REGION, 3, ts + 250, 0);
	}
	feed(p, SBT_EV_THREAD_EXIT, 0, PID, 9000, 0, 0);
	feed(p, SBT_EV_THREAD_EXIT, 1, 3, 9100, 0, 0);
	CHECK_EQ(phases__thread_approx(p, 3), 3100);
	CHECK_EQ(phases__approx_last_ts(p), 3100);
	CHECK_EQ(phases__last_ts(p), 9100);
	phases__finish(p);
	phases__free(p);
}

/* Property test of the approximation on random traces (doc/design.md §5.4
 * invariants), every model and exit order, workers exiting in random order
 * around a call of the main thread: per-thread order kept, no barrier exit
 * before the approximated last arrival (event-based models), approximated
 * windows never longer than the measured ones, the approximated run never
 * longer than the measured one, phases no shorter than their barrier time
 * and their threads' compute. */
struct prop {
	int bad;
	int event_based; /* a barrier model: no exit before the last arrival */
	__u64 last_depart_a[8];
};

static void prop_episode(void *ctx, const struct ph_episode *ep)
{
	struct prop *pr = ctx;
	struct ph_episode_times m;
	__u64 max_a = 0;
	__u32 i;
	int v;

	/* a phase holds its barrier time and every thread's compute */
	for (v = PH_MEASURED; v <= PH_APPROXIMATED; v++) {
		ph_episode_times(ep, v, &m);
		if (m.phase_ns < m.barrier_ns || m.phase_ns < m.max_compute)
			pr->bad++;
	}
	for (i = 0; i < ep->n; i++)
		if (ep->arr[i].ta_arrive > max_a)
			max_a = ep->arr[i].ta_arrive;
	for (i = 0; i < ep->n; i++) {
		const struct ph_arrival *a = &ep->arr[i];
		__u32 tid = a->tid % 8;

		if (a->ta_start > a->ta_arrive || (pr->event_based && a->ta_depart < max_a) ||
		    ph_compute_a(a) > ph_compute_ns(a) || a->ta_arrive < pr->last_depart_a[tid])
			pr->bad++;
		pr->last_depart_a[tid] = a->ta_depart;
	}
}

static __u64 rnd_state = 42;

static __u64 rnd(__u64 n)
{
	rnd_state = rnd_state * 6364136223846793005ULL + 1442695040888963407ULL;
	return (rnd_state >> 33) % n;
}

static const int models[] = {PH_MODEL_MR, PH_MODEL_SM, PH_MODEL_TIME};

/* Threads exit in time order, the main thread's region call (entered at
 * main_at) among them; it returns after the last: the join. */
static void exit_workers(struct phases *p, int nthr, const __u64 *last_ev, __u64 main_at)
{
	__u64 ex[8], end = main_at;
	int i, n, next;

	for (i = 0; i < nthr; i++) {
		ex[i] = last_ev[i] + 1 + rnd(5000);
		end = ex[i] > end ? ex[i] : end;
	}
	for (n = 0; n <= nthr; n++) {
		for (next = -1, i = 0; i < nthr; i++)
			if (ex[i] && (next < 0 || ex[i] < ex[next]))
				next = i;
		if (main_at && (next < 0 || main_at <= ex[next])) {
			enter(p, P_REGION, PID, main_at, 0, SITE_A);
			main_at = 0;
		} else if (next >= 0) {
			feed(p, SBT_EV_THREAD_EXIT, 0, 1 + next, ex[next], 0, 0);
			ex[next] = 0;
		}
	}
	leave(p, P_REGION, PID, end + 1 + rnd(1000), 0);
}

TEST(approximation_invariants_on_random_traces)
{
	int round, bad = 0, longer = 0;

	for (round = 0; round < 600; round++) {
		__u64 a_in[NPROBES] = {[P_PBW] = rnd(2000), [P_REGION] = rnd(5000)};
		__u64 a_out[NPROBES] = {[P_PBW] = rnd(1000), [P_REGION] = rnd(2000)};
		struct phases_config cfg = {.probes = probes,
					    .nprobes = NPROBES,
					    .start_ns = START,
					    .alpha_enter = a_in,
					    .alpha_exit = a_out,
					    .model = models[rnd(3)],
					    .exit_order = rnd(2) ? PH_EXIT_RANK : PH_EXIT_REVERSE};
		struct phases_ops ops = {.episode = prop_episode};
		int nthr = 2 + rnd(5), neps = 1 + rnd(8), k, i, j;
		__u64 now[8], last_ev[8], last = 0, release;
		struct prop pr;
		struct phases *p;

		memset(&pr, 0, sizeof(pr));
		pr.event_based = cfg.model != PH_MODEL_TIME;
		memset(pending_depth, 0, sizeof(pending_depth));
		p = phases__new(&cfg, &ops, &pr);
		feed(p, SBT_EV_THREAD_START, 0, PID, START, 0, 0);
		for (i = 0; i < nthr; i++) {
			feed(p, SBT_EV_THREAD_START, 0, 1 + i, START + 1 + i, 0, 0);
			now[i] = START + 1 + i + rnd(1000);
		}
		for (k = 0; k < neps; k++) {
			/* compute, with a few probed calls inside */
			for (i = 0; i < nthr; i++) {
				for (j = rnd(4); j > 0; j--) {
					now[i] += 1 + rnd(3000);
					enter(p, P_REGION, 1 + i, now[i], 0, SITE_B);
					now[i] += 1 + rnd(1000);
					leave(p, P_REGION, 1 + i, now[i], 0);
				}
				now[i] += 1 + rnd(20000);
			}
			/* arrivals in time order, then the releases */
			for (release = 0, i = 0; i < nthr; i++)
				release = now[i] > release ? now[i] : release;
			for (j = 0; j < nthr; j++) {
				int first = -1;

				for (i = 0; i < nthr; i++)
					if (now[i] && (first < 0 || now[i] < now[first]))
						first = i;
				enter(p, P_PBW, 1 + first, now[first], OBJ_X, SITE_A);
				now[first] = 0;
			}
			for (i = 0; i < nthr; i++) {
				now[i] = release + 1 + rnd(500);
				leave(p, P_PBW, 1 + i, now[i], 0);
				last = now[i] > last ? now[i] : last;
			}
		}
		memcpy(last_ev, now, sizeof(now));
		exit_workers(p, nthr, last_ev, last + 1 + rnd(5000));
		phases__finish(p);
		bad += pr.bad;
		longer += phases__approx_last_ts(p) > phases__last_ts(p);
		phases__free(p);
	}
	CHECK_EQ(bad, 0);
	CHECK_EQ(longer, 0);
}

/*
 * Probe costs that change during the session (doc/design.md §5.4): calibrated
 * at 0 (barrier 100 / 50, counter record 300) and again at 3500 (400 / 150,
 * 500). Each hit pays the cost in force at its own time; the barrier's exit
 * cost at the release is the one in force at the exit. The lock probe is
 * bound to no calibrated entry: it pays the fixed table's 70 / 30, and the
 * barrier's fixed 1 / 1 is never used. Expected values in the comments.
 */
TEST(costs_calibrated_during_the_session)
{
	static const __u64 a_enter[NPROBES] = {[P_PBW] = 1, [P_LOCK] = 70};
	static const __u64 a_exit[NPROBES] = {[P_PBW] = 1, [P_LOCK] = 30};
	static const char *const names[] = {"pthread_barrier_wait", ALPHA_SYM_COUNTERS};
	const struct alpha_cost m1[] = {{100, 50}, {300, 0}}, m2[] = {{400, 150}, {500, 0}};
	struct alpha_series *s = alpha_series__new();
	struct phases_config cfg = {.probes = probes,
				    .nprobes = NPROBES,
				    .start_ns = START,
				    .alpha_enter = a_enter,
				    .alpha_exit = a_exit,
				    .alpha_counters = 999,
				    .ncounters = 2,
				    .alpha_series = s,
				    .model = PH_MODEL_MR};
	struct phases_ops ops = {.episode = on_episode};
	struct collected c;
	struct phases *p;

	CHECK_EQ(alpha_series__add(s, 0, names, m1, NULL, 2), 0);
	CHECK_EQ(alpha_series__add(s, 3500, names, m2, NULL, 2), 0);
	CHECK_EQ(alpha_series__bind(s, P_PBW, "pthread_barrier_wait", ALPHA_BY_NAME), 0);
	memset(&c, 0, sizeof(c));
	memset(pending_depth, 0, sizeof(pending_depth));
	p = phases__new(&cfg, &ops, &c);
	enter(p, P_PBW, 2, 2800, OBJ_X, SITE_A);      /* 2800; pays 100 */
	enter(p, P_PBW, 1, 3000, OBJ_X, SITE_A);      /* 3000; pays 100 */
	leave(p, P_PBW, 2, 3100, 0);		      /* 3000 + (100 - 50) = 3050; pays 50 */
	leave(p, P_PBW, 1, 3150, 0);		      /* 3050 + max(0, 50 - 50); pays 50 */
	feed(p, SBT_EV_COUNTERS, 0, 1, 3400, 10, 20); /* 3050 + 250 - 50; pays 300 */
	/* the costs of 3500 from here */
	enter(p, P_PBW, 1, 4000, OBJ_X, SITE_A);      /* 3050 + 850 - 350 = 3550; pays 400 */
	enter(p, P_PBW, 2, 4100, OBJ_X, SITE_A);      /* 3050 + 1000 - 50 = 4000; pays 400 */
	leave(p, P_PBW, 1, 4300, 0);		      /* 4000 + (200 - 150) = 4050; pays 150 */
	leave(p, P_PBW, 2, 4320, 0);		      /* 4050 + max(0, 20 - 150); pays 150 */
	feed(p, SBT_EV_COUNTERS, 0, 2, 4800, 11, 21); /* 4050 + 480 - 150; pays 500 */
	enter(p, P_LOCK, 1, 5000, OBJ_Y, SITE_B);     /* 4050 + 700 - 150 = 4600; pays 70 */
	leave(p, P_LOCK, 1, 5200, 0);		      /* 4050 + 900 - 220 = 4730; pays 30 */
	CHECK_EQ(phases__thread_approx(p, 1), 4730);
	enter(p, P_PBW, 2, 6000, OBJ_X, SITE_A); /* 4050 + 1680 - 650 = 5080; pays 400 */
	CHECK_EQ(phases__thread_approx(p, 2), 5080);
	CHECK_EQ(c.n, 2);
	CHECK_EQ(arrival_of(&c.ep[0], 1)->ta_arrive, 3000);
	CHECK_EQ(arrival_of(&c.ep[0], 2)->ta_arrive, 2800);
	CHECK_EQ(arrival_of(&c.ep[0], 1)->ta_depart, 3050);
	CHECK_EQ(arrival_of(&c.ep[0], 2)->ta_depart, 3050);
	CHECK_EQ(arrival_of(&c.ep[1], 1)->ta_arrive, 3550);
	CHECK_EQ(arrival_of(&c.ep[1], 2)->ta_arrive, 4000);
	/* with the costs of 0 throughout, the exit would be 4000 + 150 */
	CHECK_EQ(arrival_of(&c.ep[1], 1)->ta_depart, 4050);
	CHECK_EQ(arrival_of(&c.ep[1], 2)->ta_depart, 4050);
	CHECK_EQ(thread_of(p, 1)->overhead_total, 100 + 50 + 300 + 400 + 150 + 70 + 30);
	CHECK_EQ(thread_of(p, 2)->overhead_total, 100 + 50 + 400 + 150 + 500 + 400);
	phases__finish(p);
	phases__free(p);
	alpha_series__free(s);
}

/* --inject-delay 200 (pthread_barrier_wait 300 / 250 with it): the last
 * arriver (thread 1, 3000) leaves first at 3300: 3000 + 300 - 250 = 3050,
 * its entry's spin in the release; thread 2 leaves 700 later, which holds
 * the start of its return hit but not its spin, spun after its record:
 * 3050 + 700 - (250 - 200) = 3700. */
TEST(barrier_exit_spacing_without_the_injected_delay)
{
	static const __u64 a_enter[NPROBES] = {[P_PBW] = 300};
	static const __u64 a_exit[NPROBES] = {[P_PBW] = 250};
	struct phases_config cfg = {.alpha_enter = a_enter,
				    .alpha_exit = a_exit,
				    .inject_ns = 200,
				    .model = PH_MODEL_MR};
	struct collected c;
	struct phases *p = new_phases_with(&c, cfg);

	enter(p, P_PBW, 2, 1000, OBJ_X, SITE_A);
	enter(p, P_PBW, 1, 3000, OBJ_X, SITE_A);
	leave(p, P_PBW, 1, 3300, 0);
	leave(p, P_PBW, 2, 4000, 0);
	phases__finish(p);
	CHECK_EQ(c.n, 1);
	CHECK_EQ(arrival_of(&c.ep[0], 1)->ta_depart, 3050);
	CHECK_EQ(arrival_of(&c.ep[0], 2)->ta_depart, 3700);
	phases__free(p);
}

/* Hits beside hits (doc/design.md §5.4): linear from the cost alone to the
 * cost with threads - 1 others hitting, capped there. */
TEST(concurrency_factor_between_alone_and_every_cpu)
{
	CHECK(alpha_concurrency_factor(2.0, 2, 0) == 1);
	CHECK(alpha_concurrency_factor(2.0, 2, 0.5) == 1.5);
	CHECK(alpha_concurrency_factor(2.0, 4, 1.5) == 1.5);
	CHECK(alpha_concurrency_factor(2.0, 4, 7) == 2.0);
	CHECK(alpha_concurrency_factor(0.5, 3, 1) == 0.75);
	CHECK(alpha_concurrency_factor(2.0, 1, 5) == 1);  /* one CPU: nothing beside */
	CHECK(alpha_concurrency_factor(2.0, 2, -1) == 1); /* rounding below 0 */
}

/*
 * Two threads hit pthread_barrier_wait (400 / 100 us) at the same instant,
 * so nothing decays; the all-CPUs measurement (2 threads) found a hit
 * twice as dear beside another. A hit is charged its cost times 1 + the
 * other thread's duty (its hits' cost over 1 ms):
 *   t1 enters: t2 has no duty          400000        duties t1 0.4
 *   t2 enters: 1 + 0.4                 560000        t2 0.56
 *   t1 leaves: 1 + 0.56                156000        t1 0.556
 *   t2 leaves: 1 + 0.556               155600
 * The ratio is the one in force at the hit, as costs are (a calibration at
 * 9000 that measured 1 changes nothing here). An older trace's all-CPUs
 * entry (its class without the thread count) scales nothing, nor does a
 * ratio below 1 (noise: none is charged).
 */
TEST(hits_beside_hits_are_charged_by_the_others_duty)
{
	static const __u64 a_enter[NPROBES] = {[P_PBW] = 1};
	static const __u64 a_exit[NPROBES] = {[P_PBW] = 1};
	static const char *const names[] = {"pthread_barrier_wait", ALPHA_SYM_ALL_CPUS};
	const __u64 want[3][2] = {{556000, 715600}, {500000, 500000}, {500000, 500000}};
	int old;

	for (old = 0; old < 3; old++) {
		const int cls[] = {0, ALPHA_ALL_CPUS_CLS + (old == 1 ? 0 : 2)};
		const struct alpha_cost m[] = {{400000, 100000}, {old == 2 ? 750 : 3000, 1500}},
					m1[] = {{400000, 100000}, {1500, 1500}};
		struct alpha_series *s = alpha_series__new();
		struct phases_config cfg = {.alpha_enter = a_enter,
					    .alpha_exit = a_exit,
					    .alpha_series = s,
					    .model = PH_MODEL_MR};
		struct collected c;
		struct phases *p;

		CHECK_EQ(alpha_series__add(s, 0, names, m, cls, 2), 0);
		/* a later calibration charges the records after it only */
		CHECK_EQ(alpha_series__add(s, 9000, names, m1, cls, 2), 0);
		CHECK_EQ(alpha_series__bind(s, P_PBW, "pthread_barrier_wait", ALPHA_BY_NAME), 0);
		p = new_phases_with(&c, cfg);
		enter(p, P_PBW, 1, 5000, OBJ_X, SITE_A);
		enter(p, P_PBW, 2, 5000, OBJ_X, SITE_A);
		leave(p, P_PBW, 1, 5000, 0);
		leave(p, P_PBW, 2, 5000, 0);
		phases__finish(p);
		CHECK_EQ(thread_of(p, 1)->overhead_total, want[old][0]);
		CHECK_EQ(thread_of(p, 2)->overhead_total, want[old][1]);
		phases__free(p);
		alpha_series__free(s);
	}
}

/*
 * The band's low side also takes each hand-off at the least measured at
 * its object so far (doc/design.md §5.4). One calibration: the three
 * analyses charge the same costs (100 / 50). The barrier's releases take
 * 300, 100 and 400 after the last arrival, its second exits 50, 10 and 50
 * after the first: at the third episode the low side releases 100 after
 * the last arrival (300 earlier) and spaces the exits by 10 (both 0 once
 * the exit cost is taken off), so the run ends 300 earlier there.
 */
TEST(error_band_low_side_takes_the_least_handoffs)
{
	static const __u64 a_enter[NPROBES] = {[P_PBW] = 1};
	static const __u64 a_exit[NPROBES] = {[P_PBW] = 1};
	static const char *const names[] = {"pthread_barrier_wait"};
	const struct alpha_cost m1[] = {{100, 50}};
	const __u64 at[3][4] = {
		{1000, 1200, 1500, 1550}, {2000, 2100, 2200, 2210}, {3000, 3100, 3500, 3550}};
	const __u32 first[3] = {2, 1, 2};
	struct alpha_series *s = alpha_series__new();
	struct phases_config cfg = {.alpha_enter = a_enter,
				    .alpha_exit = a_exit,
				    .alpha_series = s,
				    .model = PH_MODEL_MR,
				    .error_band = 1};
	struct ph_band run;
	struct collected c;
	struct phases *p;
	int i;

	CHECK_EQ(alpha_series__add(s, 0, names, m1, NULL, 1), 0);
	CHECK_EQ(alpha_series__bind(s, P_PBW, "pthread_barrier_wait", ALPHA_BY_NAME), 0);
	p = new_phases_with(&c, cfg);
	for (i = 0; i < 3; i++) {
		/* the last to arrive leaves first */
		enter(p, P_PBW, first[i], at[i][0], OBJ_X, SITE_A);
		enter(p, P_PBW, 3 - first[i], at[i][1], OBJ_X, SITE_A);
		leave(p, P_PBW, 3 - first[i], at[i][2], 0);
		leave(p, P_PBW, first[i], at[i][3], 0);
	}
	phases__finish(p);
	CHECK_EQ(c.n, 3);
	CHECK_EQ(phases__band(p, &run), 1);
	CHECK_EQ(run.hi, phases__approx_duration(p));
	CHECK_EQ(run.hi - run.lo, 300);
	phases__free(p);
	alpha_series__free(s);
}

/*
 * The error band: beside the analysis charging the cost in force (100 / 50
 * before 3500, 400 / 150 from then), one charges the least (100 / 50)
 * throughout and one the greatest (400 / 150). Two phases of two threads;
 * the second phase's span and the run's approximated end, worked out:
 *
 *                 least            greatest         in force
 *   exits ep 0    3000+300-50=3250  3000+300-150=3150 3250
 *   t1 arrives    3250+650-50=3850  3150+650-150=3650 3850
 *   t2 arrives    3250+800-50=4000  3150+800-150=3800 4000
 *   exits ep 1    4000+300-50=4250  3800+300-150=3950 4000+300-150=4150
 *   phase 1 span  4000-3250=750     3800-3150=650     750
 *   run (from 2800) 1450            1150              1350
 */
/* Phase 0 (which 0) or 1 of the error band's run. */
static void band_phase(struct phases *p, int which)
{
	const __u64 at[2][4] = {{2800, 3000, 3300, 3350}, {4000, 4100, 4400, 4420}};
	const __u32 first[2] = {2, 1};

	enter(p, P_PBW, first[which], at[which][0], OBJ_X, SITE_A);
	enter(p, P_PBW, 3 - first[which], at[which][1], OBJ_X, SITE_A);
	leave(p, P_PBW, which ? 1 : 2, at[which][2], 0);
	leave(p, P_PBW, which ? 2 : 1, at[which][3], 0);
}

TEST(error_band_from_the_least_and_greatest_costs)
{
	static const __u64 a_enter[NPROBES] = {[P_PBW] = 1};
	static const __u64 a_exit[NPROBES] = {[P_PBW] = 1};
	static const char *const names[] = {"pthread_barrier_wait"};
	const struct alpha_cost m1[] = {{100, 50}}, m2[] = {{400, 150}};
	struct alpha_series *s = alpha_series__new();
	struct phases_config cfg = {.alpha_enter = a_enter,
				    .alpha_exit = a_exit,
				    .alpha_series = s,
				    .model = PH_MODEL_MR,
				    .error_band = 1};
	struct ph_band run, compute, end;
	struct collected c;
	struct phases *p;

	CHECK_EQ(alpha_series__add(s, 0, names, m1, NULL, 1), 0);
	CHECK_EQ(alpha_series__add(s, 3500, names, m2, NULL, 1), 0);
	CHECK_EQ(alpha_series__bind(s, P_PBW, "pthread_barrier_wait", ALPHA_BY_NAME), 0);
	p = new_phases_with(&c, cfg);
	band_phase(p, 0);
	band_phase(p, 1);
	phases__finish(p);

	CHECK_EQ(c.n, 2);
	CHECK_EQ(c.ep[1].band_known, 1);
	CHECK_EQ(c.ep[1].band_lo, 650);
	CHECK_EQ(c.ep[1].band_hi, 750);
	CHECK_EQ(arrival_of(&c.ep[1], 1)->ta_arrive, 3850);
	CHECK_EQ(arrival_of(&c.ep[1], 2)->ta_depart, 4150);
	CHECK_EQ(phases__approx_last_ts(p) - 2800, 1350);
	CHECK_EQ(phases__band(p, &run), 1);
	CHECK_EQ(run.lo, 1150);
	CHECK_EQ(run.hi, 1450);
	/* thread 1: its second phase's compute 600 / 500 / 600, its end 4150 */
	CHECK_EQ(phases__thread_band(p, 1, &compute, &end), 1);
	CHECK_EQ(compute.hi - compute.lo, 100);
	CHECK_EQ(compute.hi, thread_of(p, 1)->compute_a_ns);
	CHECK_EQ(end.lo, 1150);
	CHECK_EQ(end.hi, 1450);
	CHECK_EQ(phases__thread_band(p, 99, &compute, &end), 0);
	phases__free(p);

	/* live: the second calibration arrives after the first phase; the
	 * greatest side charges 400 / 150 from the next record on (exits of
	 * phase 1 at 4000 + 300 - 150 = 4150, as the cost in force has it),
	 * the least 100 / 50 throughout (4250) */
	alpha_series__free(s);
	s = alpha_series__new();
	cfg.alpha_series = s;
	CHECK_EQ(alpha_series__add(s, 0, names, m1, NULL, 1), 0);
	CHECK_EQ(alpha_series__bind(s, P_PBW, "pthread_barrier_wait", ALPHA_BY_NAME), 0);
	p = new_phases_with(&c, cfg);
	band_phase(p, 0);
	CHECK_EQ(phases__band(p, &run), 1);
	CHECK_EQ(run.hi - run.lo, 0);
	CHECK_EQ(alpha_series__add(s, 3500, names, m2, NULL, 1), 0);
	band_phase(p, 1);
	phases__finish(p);
	CHECK_EQ(phases__band(p, &run), 1);
	CHECK_EQ(run.lo, 1350);
	CHECK_EQ(run.hi, 1450);
	CHECK_EQ(c.ep[1].band_lo, 750);
	CHECK_EQ(c.ep[1].band_hi, 750);
	phases__free(p);

	/* without a series (a fixed --alpha): no band */
	cfg.alpha_series = NULL;
	p = new_phases_with(&c, cfg);
	enter(p, P_PBW, 1, 3000, OBJ_X, SITE_A);
	leave(p, P_PBW, 1, 3300, 0);
	phases__finish(p);
	CHECK_EQ(phases__band(p, &run), 0);
	CHECK_EQ(c.ep[0].band_known, 0);
	phases__free(p);
	alpha_series__free(s);
}
