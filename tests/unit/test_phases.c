// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Barrier-phase analysis on synthetic event streams, with exact values. */
#include <stdlib.h>
#include "analyses/phases.h"
#include "unit.h"

/* Probe ids of the synthetic probe table. */
enum { P_NONE, P_PBW, P_GOMP, P_USER, P_REGION, NPROBES };

static const struct sbt_probe_info probes[NPROBES] = {
	[P_PBW] = {.id = P_PBW, .kind = SBT_PK_BARRIER, .symbol = "pthread_barrier_wait"},
	[P_GOMP] = {.id = P_GOMP, .kind = SBT_PK_TEAM_BARRIER, .symbol = "GOMP_barrier"},
	[P_USER] = {.id = P_USER, .kind = SBT_PK_BARRIER, .symbol = "my_barrier"},
	[P_REGION] = {.id = P_REGION, .kind = SBT_PK_REGION, .symbol = "GOMP_parallel"},
};

#define PID	100
#define START	1000
#define SITE_A	0x401000
#define SITE_B	0x402000
#define OBJ_X	0x7000
#define OBJ_Y	0x8000
#define MAX_EPS 64

/* Completed episodes, copied out of the callback. */
struct collected {
	struct ph_episode ep[MAX_EPS];
	struct ph_arrival arr[MAX_EPS][8];
	int n;
	__u32 hang_missing[8];
	int nhang, nmissing;
	__u64 hang_object;
};

static void on_episode(void *ctx, const struct ph_episode *ep)
{
	struct collected *c = ctx;

	if (c->n >= MAX_EPS)
		return;
	c->ep[c->n] = *ep;
	memcpy(c->arr[c->n], ep->arr, sizeof(*ep->arr) * (ep->n < 8 ? ep->n : 8));
	c->ep[c->n].arr = c->arr[c->n];
	c->n++;
}

static void on_hang(void *ctx, const struct ph_episode *ep, const __u32 *missing, int n)
{
	struct collected *c = ctx;
	int i;

	c->nhang++;
	c->hang_object = ep->object;
	c->nmissing = n;
	for (i = 0; i < n && i < 8; i++)
		c->hang_missing[i] = missing[i];
}

/* Call sites travel in exit records; the tests name them at entry, and the
 * matching exit (innermost call of that thread) carries them. */
static __u64 pending_site[64][8];
static int pending_depth[64];

static struct phases *new_phases(struct collected *c)
{
	struct phases_config cfg = {.probes = probes, .nprobes = NPROBES, .start_ns = START};
	struct phases_ops ops = {.episode = on_episode, .hang = on_hang};

	memset(c, 0, sizeof(*c));
	memset(pending_depth, 0, sizeof(pending_depth));
	return phases__new(&cfg, &ops, c);
}

static void feed(struct phases *p, __u16 type, __u16 probe, __u32 tid, __u64 ts, __u64 obj,
		 __u64 site)
{
	struct sbt_event e = {.ts = ts,
			      .obj = obj,
			      .site = site,
			      .pid = PID,
			      .tid = tid,
			      .type = type,
			      .probe = probe};

	CHECK_EQ(phases__feed(p, &e), 0);
}

static void enter(struct phases *p, __u16 probe, __u32 tid, __u64 ts, __u64 obj, __u64 site)
{
	pending_site[tid % 64][pending_depth[tid % 64]++ % 8] = site;
	feed(p, SBT_EV_ENTER, probe, tid, ts, obj, 0);
}

static void leave(struct phases *p, __u16 probe, __u32 tid, __u64 ts, __u64 ret)
{
	__u64 site = pending_site[tid % 64][--pending_depth[tid % 64] % 8];

	feed(p, SBT_EV_EXIT, probe, tid, ts, ret, site);
}

static const struct ph_arrival *arrival_of(const struct ph_episode *ep, __u32 tid)
{
	__u32 i;

	for (i = 0; i < ep->n; i++)
		if (ep->arr[i].tid == tid)
			return &ep->arr[i];
	return NULL;
}

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

	/* Episode 1: phase time = last arrival - last departure of episode 0 */
	CHECK_EQ(e1->index, 1);
	CHECK_EQ(ph_barrier_ns(e1), 9300 - 7200);
	CHECK_EQ(ph_phase_ns(e1), 9300 - 6300);
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
		CHECK_EQ(s->phase_sum, 5000 + 3000);
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
	CHECK_EQ(ph_phase_ns(&c.ep[1]), 3500 - 2800);
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

/* A thread created after the session started: its phase 0 starts at its
 * creation, not at the session start. */
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
	CHECK_EQ(ph_phase_ns(&c.ep[0]), 2600 - 1800);
	phases__free(p);
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
	struct sbt_event e = {.ts = ts,
			      .obj = v0,
			      .site = v1,
			      .pid = PID,
			      .tid = tid,
			      .type = SBT_EV_COUNTERS,
			      .probe = flags};

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
	struct phases_config cfg = {.probes = probes,
				    .nprobes = NPROBES,
				    .start_ns = START,
				    .alpha_enter = a_enter,
				    .alpha_exit = a_exit};
	struct phases_ops ops = {.episode = on_episode};
	struct collected c;
	struct phases *p;
	struct ph_episode_times m;

	memset(&c, 0, sizeof(c));
	memset(pending_depth, 0, sizeof(pending_depth));
	p = phases__new(&cfg, &ops, &c);
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
	struct phases_config cfg = {.probes = probes,
				    .nprobes = NPROBES,
				    .start_ns = START,
				    .alpha_enter = a_enter,
				    .alpha_exit = a_exit,
				    .model = model,
				    .exit_order = order};
	struct phases_ops ops = {.episode = on_episode};
	struct phases *p;

	memset(c, 0, sizeof(*c));
	memset(pending_depth, 0, sizeof(pending_depth));
	p = phases__new(&cfg, &ops, c);
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

/* Sarukkai-Malony, measured exit order: the k-th to leave at
 * t_a(last arrival) + k beta, beta = 100 from episode 0. */
TEST(barrier_exits_sarukkai_malony_rank)
{
	struct collected c;
	struct phases *p = two_barrier_episodes(&c, PH_MODEL_SM, PH_EXIT_RANK);

	CHECK_EQ(arrival_of(&c.ep[1], 2)->ta_depart, 4850 + 100);
	CHECK_EQ(arrival_of(&c.ep[1], 3)->ta_depart, 4850 + 200);
	CHECK_EQ(arrival_of(&c.ep[1], 1)->ta_depart, 4850 + 300);
	phases__free(p);
}

/* Sarukkai-Malony, reverse arrival order: the i-th of P = 3 to arrive
 * (approximated: t3, t2, t1) leaves at + (P - i + 1) beta. */
TEST(barrier_exits_sarukkai_malony_reverse_arrival)
{
	struct collected c;
	struct phases *p = two_barrier_episodes(&c, PH_MODEL_SM, PH_EXIT_REVERSE);

	CHECK_EQ(arrival_of(&c.ep[1], 1)->ta_depart, 4850 + 100);
	CHECK_EQ(arrival_of(&c.ep[1], 2)->ta_depart, 4850 + 200);
	CHECK_EQ(arrival_of(&c.ep[1], 3)->ta_depart, 4850 + 300);
	phases__free(p);
}

/* Time-based only: each thread keeps its measured times less its own
 * probe cost; the barrier does not re-time anything. */
TEST(time_based_model_ignores_barriers)
{
	static const __u64 a_enter[NPROBES] = {[P_PBW] = 100};
	static const __u64 a_exit[NPROBES] = {[P_PBW] = 50};
	struct phases_config cfg = {.probes = probes,
				    .nprobes = NPROBES,
				    .start_ns = START,
				    .alpha_enter = a_enter,
				    .alpha_exit = a_exit,
				    .model = PH_MODEL_TIME};
	struct phases_ops ops = {.episode = on_episode};
	struct collected c;
	struct phases *p;

	memset(&c, 0, sizeof(c));
	memset(pending_depth, 0, sizeof(pending_depth));
	p = phases__new(&cfg, &ops, &c);
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

/* Property test of the approximation on random traces (DESIGN §5.4
 * invariants): per-thread order kept, no barrier exit before the
 * approximated last arrival, approximated windows never longer than the
 * measured ones, the approximated run never longer than the measured one. */
struct prop {
	int bad;
	__u64 last_depart_a[8];
};

static void prop_episode(void *ctx, const struct ph_episode *ep)
{
	struct prop *pr = ctx;
	__u64 max_a = 0;
	__u32 i;

	for (i = 0; i < ep->n; i++)
		if (ep->arr[i].ta_arrive > max_a)
			max_a = ep->arr[i].ta_arrive;
	for (i = 0; i < ep->n; i++) {
		const struct ph_arrival *a = &ep->arr[i];
		__u32 tid = a->tid % 8;

		if (a->ta_start > a->ta_arrive || a->ta_depart < max_a ||
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

TEST(approximation_invariants_on_random_traces)
{
	int round, bad = 0, longer = 0;

	for (round = 0; round < 300; round++) {
		__u64 a_in[NPROBES] = {[P_PBW] = rnd(2000), [P_REGION] = rnd(5000)};
		__u64 a_out[NPROBES] = {[P_PBW] = rnd(1000), [P_REGION] = rnd(2000)};
		struct phases_config cfg = {.probes = probes,
					    .nprobes = NPROBES,
					    .start_ns = START,
					    .alpha_enter = a_in,
					    .alpha_exit = a_out};
		struct phases_ops ops = {.episode = prop_episode};
		int nthr = 2 + rnd(5), neps = 1 + rnd(8), k, i, j;
		__u64 now[8], last = 0, release;
		struct prop pr;
		struct phases *p;

		memset(&pr, 0, sizeof(pr));
		memset(pending_depth, 0, sizeof(pending_depth));
		p = phases__new(&cfg, &ops, &pr);
		for (i = 0; i < nthr; i++)
			now[i] = START + rnd(1000);
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
		phases__finish(p);
		bad += pr.bad;
		longer += phases__approx_last_ts(p) > phases__last_ts(p);
		phases__free(p);
	}
	CHECK_EQ(bad, 0);
	CHECK_EQ(longer, 0);
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
