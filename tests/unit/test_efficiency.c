// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Efficiencies and wait states (analyses/efficiency.h, doc/design.md §5.5) of
 * synthetic barrier streams, with exact values: per phase, per site, per
 * thread and for the run, measured and approximated; waits by kind. */
#include <math.h>
#include "analyses/efficiency.h"
#include "phases_fixture.h"

#define NEAR(x, v) CHECK(fabs((x) - (v)) < 1e-9)

/* Every episode's efficiency as it completes, in both views. */
static struct eff seen[MAX_EPS][2];
static int nseen;

static void on_eff_episode(void *ctx, const struct ph_episode *ep)
{
	on_episode(ctx, ep);
	if (nseen < MAX_EPS) {
		eff_phase(ep, PH_MEASURED, &seen[nseen][0]);
		eff_phase(ep, PH_APPROXIMATED, &seen[nseen][1]);
		nseen++;
	}
}

static struct phases *new_eff_phases(struct collected *c, struct phases_config cfg)
{
	struct phases_ops ops = {.episode = on_eff_episode};

	cfg.probes = probes;
	cfg.nprobes = NPROBES;
	cfg.start_ns = START;
	memset(c, 0, sizeof(*c));
	memset(pending_depth, 0, sizeof(pending_depth));
	nseen = 0;
	return phases__new(&cfg, &ops, c);
}

static void call(struct phases *p, __u16 probe, __u32 tid, __u64 t0, __u64 t1, __u64 obj)
{
	enter(p, probe, tid, t0, obj, SITE_B);
	leave(p, probe, tid, t1, 0);
}

/* Three threads, two phases at one barrier from START (1000).
 * Phase 0: thread 3 waits 1000 ns for a mutex (1500..2500); arrivals 1 at
 * 2000, 2 at 3000, 3 at 5000; departures 3 at 5100, 1 at 5200, 2 at 5300.
 * Phase 1 (from 5100): arrivals 2 at 6300, 3 at 7100, 1 at 9200; departures
 * 1 at 9300, 2 at 9400, 3 at 9500. Then thread 1 takes the mutex again,
 * outside any phase, up to the last event at 10100. */
static void two_phases(struct phases *p)
{
	enter(p, P_LOCK, 3, 1500, OBJ_Y, SITE_B);
	enter(p, P_PBW, 1, 2000, OBJ_X, SITE_A);
	leave(p, P_LOCK, 3, 2500, 0);
	call(p, P_UNLOCK, 3, 2600, 2800, OBJ_Y);
	enter(p, P_PBW, 2, 3000, OBJ_X, SITE_A);
	enter(p, P_PBW, 3, 5000, OBJ_X, SITE_A);
	leave(p, P_PBW, 3, 5100, (__u64)-1);
	leave(p, P_PBW, 1, 5200, 0);
	leave(p, P_PBW, 2, 5300, 0);
	enter(p, P_PBW, 2, 6300, OBJ_X, SITE_A);
	enter(p, P_PBW, 3, 7100, OBJ_X, SITE_A);
	enter(p, P_PBW, 1, 9200, OBJ_X, SITE_A);
	leave(p, P_PBW, 1, 9300, (__u64)-1);
	leave(p, P_PBW, 2, 9400, 0);
	leave(p, P_PBW, 3, 9500, 0);
	call(p, P_LOCK, 1, 9600, 9800, OBJ_Y);
	call(p, P_UNLOCK, 1, 9900, 10100, OBJ_Y);
}

/* Phase 0: useful 1000, 2000 and 3000 (4000 less the lock wait) over a
 * span of 4000: LB 2000/3000, SE 3000/4000, PE 0.5. Phase 1: useful 4000,
 * 1000, 2000 over 9200 - 5100. */
TEST(phase_pop_metrics_exact)
{
	struct collected c;
	struct phases *p = new_eff_phases(&c, (struct phases_config){0});
	const struct eff *e;

	two_phases(p);
	phases__finish(p);
	CHECK_EQ(nseen, 2);
	e = &seen[0][PH_MEASURED];
	CHECK_EQ(e->threads, 3);
	CHECK_EQ(e->s.runtime_ns, 4000);
	CHECK_EQ(e->s.useful_ns, 6000);
	CHECK_EQ(e->max_useful_ns, 3000);
	NEAR(e->load_balance, 2000.0 / 3000);
	NEAR(e->sync_efficiency, 0.75);
	NEAR(e->parallel_efficiency, 0.5);
	/* wait states: at the barrier 3000 + 2000 + 0; completion 200 + 300 +
	 * 100; the lock 1000 */
	CHECK_EQ(e->s.barrier_wait_ns, 5000);
	CHECK_EQ(e->s.completion_ns, 600);
	CHECK_EQ(e->s.late_start_ns, 0);
	CHECK_EQ(e->s.waits.ns[PH_WAIT_LOCK], 1000);
	CHECK_EQ(arrival_of(&c.ep[0], 3)->waits.ns[PH_WAIT_LOCK], 1000);
	CHECK_EQ(arrival_of(&c.ep[0], 3)->sync_wait_ns, 1000);
	e = &seen[1][PH_MEASURED];
	CHECK_EQ(e->s.runtime_ns, 4100);
	CHECK_EQ(e->max_useful_ns, 4000);
	NEAR(e->load_balance, 7000.0 / 3 / 4000);
	NEAR(e->sync_efficiency, 4000.0 / 4100);
	NEAR(e->parallel_efficiency, 7000.0 / 3 / 4100);
	/* threads 1 and 2 left the first barrier 100 and 200 after thread 3 */
	CHECK_EQ(e->s.late_start_ns, 300);
	CHECK_EQ(e->s.barrier_wait_ns, 0 + 2900 + 2100);
	CHECK_EQ(e->s.completion_ns, 100 + 200 + 300);
	phases__free(p);
}

/* The site: each thread's useful over both phases (5000, 3000, 5000) over
 * 4000 + 4100. A thread: its useful against the greatest of each of its
 * phases (3000 + 4000). The run: from the earliest phase start (1000) to
 * the last event (10100). */
TEST(site_thread_and_run_aggregates)
{
	struct collected c;
	struct phases *p = new_eff_phases(&c, (struct phases_config){0});
	struct eff e;

	two_phases(p);
	phases__finish(p);
	eff_site(phases__site(p, 0), PH_MEASURED, &e);
	CHECK_EQ(e.threads, 3);
	CHECK_EQ(e.s.phases, 2);
	CHECK_EQ(e.s.runtime_ns, 8100);
	CHECK_EQ(e.s.useful_ns, 13000);
	CHECK_EQ(e.max_useful_ns, 5000);
	NEAR(e.load_balance, 13000.0 / 3 / 5000);
	NEAR(e.sync_efficiency, 5000.0 / 8100);
	NEAR(e.parallel_efficiency, 13000.0 / 3 / 8100);
	CHECK_EQ(e.s.barrier_wait_ns, 10000);
	CHECK_EQ(e.s.waits.ns[PH_WAIT_LOCK], 1000);

	eff_thread(thread_of(p, 2), PH_MEASURED, &e);
	CHECK_EQ(e.threads, 1);
	CHECK_EQ(e.s.phases, 2);
	CHECK_EQ(e.s.useful_ns, 3000);
	CHECK_EQ(e.max_useful_ns, 7000);
	CHECK_EQ(e.s.runtime_ns, 8100);
	NEAR(e.load_balance, 3000.0 / 7000);
	NEAR(e.sync_efficiency, 7000.0 / 8100);
	NEAR(e.parallel_efficiency, 3000.0 / 8100);
	/* its runtime is its useful, waits, wait at the barrier and late start */
	CHECK_EQ(e.s.useful_ns + e.s.barrier_wait_ns + e.s.late_start_ns, 8100);
	eff_thread(thread_of(p, 3), PH_MEASURED, &e);
	CHECK_EQ(e.s.useful_ns + e.s.waits.ns[PH_WAIT_LOCK] + e.s.barrier_wait_ns +
			 e.s.late_start_ns,
		 8100);
	CHECK_EQ(e.s.completion_ns, 100 + 300);

	eff_run(p, PH_MEASURED, &e);
	CHECK_EQ(e.threads, 3);
	CHECK_EQ(e.s.phases, 2);
	CHECK_EQ(e.s.runtime_ns, 10100 - 1000);
	CHECK_EQ(e.s.useful_ns, 13000);
	CHECK_EQ(e.max_useful_ns, 5000);
	NEAR(e.load_balance, 13000.0 / 3 / 5000);
	NEAR(e.sync_efficiency, 5000.0 / 9100);
	NEAR(e.parallel_efficiency, 13000.0 / 3 / 9100);
	CHECK_EQ(e.s.barrier_wait_ns, 10000);
	CHECK_EQ(e.s.completion_ns, 1200);
	/* the lock after the last phase is in none */
	CHECK_EQ(e.s.waits.ns[PH_WAIT_LOCK], 1000);
	phases__free(p);
}

/* A team made for each phase at the same barrier (created and joined every
 * step): threads 1 and 2 from START, arriving at 2000 and 4000, gone at
 * 4200; threads 3 and 4 created at 5000, arriving at 6000 and 9000, gone
 * at 9200. Phase by phase, useful 1000 and 3000 over 3000, 1000 and 4000
 * over 4000: the site's LB is the phases' mean useful (4500, over the
 * memberships) against their greatest (7000), SE that greatest over the
 * runtime, not a single thread's one phase against both. */
TEST(a_team_made_for_each_phase_is_compared_phase_by_phase)
{
	struct collected c;
	struct phases *p = new_eff_phases(&c, (struct phases_config){0});
	struct eff e;

	enter(p, P_PBW, 1, 2000, OBJ_X, SITE_A);
	enter(p, P_PBW, 2, 4000, OBJ_X, SITE_A);
	leave(p, P_PBW, 2, 4100, (__u64)-1);
	leave(p, P_PBW, 1, 4100, 0);
	feed(p, SBT_EV_THREAD_EXIT, 0, 1, 4200, 0, 0);
	feed(p, SBT_EV_THREAD_EXIT, 0, 2, 4200, 0, 0);
	feed(p, SBT_EV_THREAD_START, 0, 3, 5000, 0, 0);
	feed(p, SBT_EV_THREAD_START, 0, 4, 5000, 0, 0);
	enter(p, P_PBW, 3, 6000, OBJ_X, SITE_A);
	enter(p, P_PBW, 4, 9000, OBJ_X, SITE_A);
	leave(p, P_PBW, 4, 9100, (__u64)-1);
	leave(p, P_PBW, 3, 9100, 0);
	feed(p, SBT_EV_THREAD_EXIT, 0, 3, 9200, 0, 0);
	feed(p, SBT_EV_THREAD_EXIT, 0, 4, 9200, 0, 0);
	phases__finish(p);
	eff_site(phases__site(p, 0), PH_MEASURED, &e);
	CHECK_EQ(e.threads, 4);
	CHECK_EQ(e.s.phases, 2);
	CHECK_EQ(e.s.runtime_ns, 3000 + 4000);
	CHECK_EQ(e.s.useful_ns, 9000);
	CHECK_EQ(e.max_useful_ns, 7000);
	NEAR(e.load_balance, 4500.0 / 7000);
	NEAR(e.sync_efficiency, 1.0);
	eff_run(p, PH_MEASURED, &e);
	CHECK_EQ(e.s.runtime_ns, 9200 - 1000);
	NEAR(e.load_balance, 4500.0 / 7000);
	NEAR(e.sync_efficiency, 7000.0 / 8200);
	NEAR(e.parallel_efficiency, 4500.0 / 8200);
	phases__free(p);
}

/* Time-based approximation (each thread's own probe cost removed: 100 ns
 * an entry, 50 a return). Thread 3: lock 1500 -> 2400 (a wait of 900), its
 * arrivals at 4700 and 6650, its first departure at 4700. Thread 1:
 * arrivals 2000, 9050, departure 5100, last event 9550; thread 2: 3000,
 * 6150, departure 5200. */
TEST(approximated_view_time_based)
{
	static const __u64 a_in[NPROBES] = {[P_PBW] = 100, [P_LOCK] = 100, [P_UNLOCK] = 100};
	static const __u64 a_out[NPROBES] = {[P_PBW] = 50, [P_LOCK] = 50, [P_UNLOCK] = 50};
	struct collected c;
	struct phases *p = new_eff_phases(&c, (struct phases_config){.alpha_enter = a_in,
								     .alpha_exit = a_out,
								     .model = PH_MODEL_TIME});
	const struct eff *e;
	struct eff s;

	two_phases(p);
	phases__finish(p);
	CHECK_EQ(arrival_of(&c.ep[0], 3)->waits_a.ns[PH_WAIT_LOCK], 900);
	e = &seen[0][PH_APPROXIMATED];
	CHECK_EQ(e->s.runtime_ns, 3700);
	CHECK_EQ(e->s.useful_ns, 1000 + 2000 + 2800);
	CHECK_EQ(e->max_useful_ns, 2800);
	NEAR(e->load_balance, 5800.0 / 3 / 2800);
	NEAR(e->sync_efficiency, 2800.0 / 3700);
	CHECK_EQ(e->s.barrier_wait_ns, 2700 + 1700);
	CHECK_EQ(e->s.waits.ns[PH_WAIT_LOCK], 900);
	e = &seen[1][PH_APPROXIMATED];
	CHECK_EQ(e->s.runtime_ns, 9050 - 4700);
	CHECK_EQ(e->s.useful_ns, 3950 + 950 + 1950);
	CHECK_EQ(e->s.late_start_ns, 400 + 500);
	NEAR(e->sync_efficiency, 3950.0 / 4350);

	eff_site(phases__site(p, 0), PH_APPROXIMATED, &s);
	CHECK_EQ(s.s.runtime_ns, 3700 + 4350);
	CHECK_EQ(s.max_useful_ns, 4950);
	NEAR(s.load_balance, 12650.0 / 3 / 4950);
	eff_run(p, PH_APPROXIMATED, &s);
	CHECK_EQ(s.s.runtime_ns, 9550 - 1000);
	NEAR(s.sync_efficiency, 4950.0 / 8550);
	/* the measured view is untouched by the costs */
	eff_run(p, PH_MEASURED, &s);
	CHECK_EQ(s.s.runtime_ns, 9100);
	phases__free(p);
}

/* Waits by kind, out of useful compute: thread 1's P (1200..1700, posted by
 * 2 at 1500) and a task wait of 500 in which it ran a task body for 200;
 * thread 2's condvar wait (1600..2000, signalled by 1 at 1800). */
TEST(waits_by_kind_leave_useful_compute)
{
	struct collected c;
	struct phases *p = new_eff_phases(&c, (struct phases_config){.no_sync_barriers = 1});
	const struct ph_arrival *a;
	const struct eff *e;

	enter(p, P_SEMW, 1, 1200, OBJ_Y, SITE_B);
	call(p, P_POST, 2, 1500, 1550, OBJ_Y);
	enter(p, P_CWAIT, 2, 1600, OBJ_X + 8, SITE_B);
	leave(p, P_SEMW, 1, 1700, 0);
	call(p, P_SIGNAL, 1, 1800, 1850, OBJ_X + 8);
	leave(p, P_CWAIT, 2, 2000, 0);
	enter(p, P_TASKWAIT, 1, 2100, 0, SITE_B);
	body_in(p, 1, 2200, 0x4100);
	body_out(p, 1, 2400);
	leave(p, P_TASKWAIT, 1, 2600, 0);
	enter(p, P_PBW, 1, 3000, OBJ_X, SITE_A);
	enter(p, P_PBW, 2, 3200, OBJ_X, SITE_A);
	leave(p, P_PBW, 1, 3300, (__u64)-1);
	leave(p, P_PBW, 2, 3310, 0);
	phases__finish(p);
	CHECK_EQ(c.n, 1);
	a = arrival_of(&c.ep[0], 1);
	CHECK_EQ(a->waits.ns[PH_WAIT_SEM], 500);
	CHECK_EQ(a->waits.ns[PH_WAIT_TASK], 300);
	CHECK_EQ(a->waits.ns[PH_WAIT_LOCK] + a->waits.ns[PH_WAIT_COND], 0);
	CHECK_EQ(a->sync_wait_ns, 800);
	CHECK_EQ(ph_useful(a, PH_MEASURED), 2000 - 800);
	a = arrival_of(&c.ep[0], 2);
	CHECK_EQ(a->waits.ns[PH_WAIT_COND], 400);
	CHECK_EQ(ph_useful(a, PH_MEASURED), 2200 - 400);
	e = &seen[0][PH_MEASURED];
	CHECK_EQ(e->max_useful_ns, 1800);
	NEAR(e->load_balance, 1500.0 / 1800);
	NEAR(e->sync_efficiency, 1800.0 / 2200);
	phases__free(p);
}

/* Threads running before the session (attached to): their first phase is
 * partial and counts nowhere; the run begins at the second phase's start. */
TEST(partial_phases_count_nowhere)
{
	struct collected c;
	struct phases *p = new_eff_phases(&c, (struct phases_config){0});
	struct eff e;

	phases__add_thread(p, PID, 1, 0);
	phases__add_thread(p, PID, 2, 0);
	enter(p, P_PBW, 1, 2000, OBJ_X, SITE_A);
	enter(p, P_PBW, 2, 3000, OBJ_X, SITE_A);
	leave(p, P_PBW, 1, 3100, (__u64)-1);
	leave(p, P_PBW, 2, 3200, 0);
	enter(p, P_PBW, 1, 4100, OBJ_X, SITE_A);
	enter(p, P_PBW, 2, 5100, OBJ_X, SITE_A);
	leave(p, P_PBW, 1, 5200, (__u64)-1);
	leave(p, P_PBW, 2, 5300, 0);
	phases__finish(p);
	CHECK_EQ(c.n, 2);
	CHECK(c.ep[0].partial);
	CHECK_EQ(phases__eff_phases(p), 1);
	CHECK_EQ(phases__eff_start(p, PH_MEASURED), 3100);
	eff_site(phases__site(p, 0), PH_MEASURED, &e);
	CHECK_EQ(e.s.phases, 1);
	CHECK_EQ(e.s.runtime_ns, 5100 - 3100);
	CHECK_EQ(e.s.useful_ns, 1000 + 1900);
	eff_run(p, PH_MEASURED, &e);
	CHECK_EQ(e.s.runtime_ns, 5300 - 3100);
	NEAR(e.load_balance, 1450.0 / 1900);
	NEAR(e.sync_efficiency, 1900.0 / 2200);
	phases__free(p);
}

/* Nothing to compare: every ratio of zero to zero is 1. */
TEST(no_phases_is_all_ones)
{
	struct collected c;
	struct phases *p = new_eff_phases(&c, (struct phases_config){0});
	struct eff e;

	call(p, P_LOCK, 1, 2000, 2500, OBJ_Y);
	phases__finish(p);
	eff_run(p, PH_MEASURED, &e);
	CHECK_EQ(e.threads, 0);
	CHECK_EQ(e.s.runtime_ns, 0);
	NEAR(e.load_balance, 1.0);
	NEAR(e.sync_efficiency, 1.0);
	NEAR(e.parallel_efficiency, 1.0);
	eff_thread(thread_of(p, 1), PH_MEASURED, &e);
	CHECK_EQ(e.threads, 0);
	NEAR(e.parallel_efficiency, 1.0);
	phases__free(p);
}
