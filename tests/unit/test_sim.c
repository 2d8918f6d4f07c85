// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The replay of the approximated run (analyses/sim.c) and its what-ifs, on
 * synthetic event streams with exact values (no probe cost: approximated
 * times equal measured ones). */
#include <errno.h>
#include "analyses/sim.h"
#include "analyses/sync.h"
#include "condbar_fixture.h"

static const __u64 no_cost[NPROBES];

/* The replay's inputs from a phase analysis without probe cost. */
static void on_sim_episode(void *ctx, const struct ph_episode *ep)
{
	sim__episode(ctx, ep);
}

static void on_sim_call(void *ctx, const struct ph_call *c)
{
	sim__call(ctx, c);
}

static void on_sim_region(void *ctx, const struct ph_call *c)
{
	sim__region(ctx, c);
}

static void on_sim_futex_wait(void *ctx, const struct ph_call *c)
{
	sim__futex_wait(ctx, c);
}

/* A phase analysis without probe cost feeding replay s; with sy, the lock
 * and semaphore tables, which pair each P with the V whose token it took. */
static struct phases *sim_phases_sync(struct sim *s, struct sync *sy)
{
	struct phases_config cfg = {.probes = probes,
				    .nprobes = NPROBES,
				    .start_ns = START,
				    .alpha_enter = no_cost,
				    .alpha_exit = no_cost,
				    .sync = sy,
				    .model = PH_MODEL_MR};
	struct phases_ops ops = {.episode = on_sim_episode,
				 .call = on_sim_call,
				 .futex_wait = on_sim_futex_wait,
				 .region = on_sim_region};

	memset(pending_depth, 0, sizeof(pending_depth));
	return phases__new(&cfg, &ops, s);
}

static struct phases *sim_phases(struct sim *s)
{
	return sim_phases_sync(s, NULL);
}

static __u64 replay(struct sim *s, struct sim_change c)
{
	struct sim_result r;

	CHECK_EQ(sim__run(s, &c, &r), 0);
	CHECK_EQ(r.stalled, 0);
	return r.duration_ns;
}

/*
 * Two threads, three phases at one barrier: thread 1 works 100 per phase,
 * thread 2 works 300; the release takes 10 (both leave 10 after the last
 * arrival). Both start at 1000 (declared). Measured: phases end at
 * 1310, 1620, 1930. A run is timed from its first event, thread 1's
 * arrival at 1100, as the approximated run is (less 100 below):
 *   as is:      3 x (300 + 10)             = 930 - 100 = 830
 *   balance:    3 x (200 + 10)             = 630 - 100 = 530
 *   speedup=2:2 (thread 2's work / 2): 3 x (150 + 10) = 480 - 100 = 380
 *   threads=4:2 (each phase's 400 over min(4, 2) CPUs): 3 x 210 - 100 = 530
 *   threads=1:1: 3 x (400 + 10)            = 1230 - 100 = 1130
 */
TEST(replay_of_barrier_phases_and_their_what_ifs)
{
	struct sim_result r;
	struct sim_path path;
	struct sim *s = sim__new();
	struct phases *p = sim_phases(s);
	__u64 t = 1000;
	int k;

	phases__add_thread(p, PID, 1, 1000);
	phases__add_thread(p, PID, 2, 1000);
	for (k = 0; k < 3; k++) {
		enter(p, P_PBW, 1, t + 100, OBJ_X, SITE_A);
		enter(p, P_PBW, 2, t + 300, OBJ_X, SITE_A);
		leave(p, P_PBW, 1, t + 310, 0);
		leave(p, P_PBW, 2, t + 310, 0);
		t += 310;
	}
	phases__finish(p);
	CHECK_EQ(sim__finish(s, p), 0);
	CHECK_EQ(sim__episodes(s), 3);
	CHECK_EQ(replay(s, (struct sim_change){.kind = SIM_AS_IS}), 830);
	CHECK_EQ(replay(s, (struct sim_change){.kind = SIM_BALANCE, .any_site = 1}), 530);
	CHECK_EQ(replay(s, (struct sim_change){.kind = SIM_BALANCE, .site = 0}), 530);
	CHECK_EQ(replay(s, (struct sim_change){.kind = SIM_BALANCE, .site = 1}), 830);
	CHECK_EQ(replay(s, (struct sim_change){.kind = SIM_SPEEDUP, .tid = 2, .factor = 2}), 380);
	CHECK_EQ(replay(s, (struct sim_change){.kind = SIM_THREADS, .threads = 4, .cpus = 2}), 530);
	CHECK_EQ(replay(s, (struct sim_change){.kind = SIM_THREADS, .threads = 1, .cpus = 1}),
		 1130);
	/* the measured run replayed (no probe cost: the same), and no change to it */
	CHECK_EQ(replay(s, (struct sim_change){.kind = SIM_AS_IS, .measured = 1}), 830);
	CHECK_EQ(sim__run(s, &(struct sim_change){.kind = SIM_BALANCE, .measured = 1}, &r),
		 -EINVAL);
	/* the critical path as is: thread 2's work in each phase (300 x 3, the
	 * first from the run's first event: 200) and each release (10 x 3) */
	CHECK_EQ(replay(s, (struct sim_change){.kind = SIM_AS_IS}), 830);
	CHECK_EQ(sim__critical_path(s, &path, 1), 0);
	CHECK_EQ(path.total_ns, 830);
	CHECK_EQ(path.sync_ns, 30);
	CHECK_EQ(path.outside_ns, 0);
	CHECK_EQ(path.nthreads, 1);
	CHECK_EQ(path.threads[0].id, 2);
	CHECK_EQ(path.threads[0].ns, 800);
	CHECK_EQ(path.nsites, 1);
	CHECK_EQ(path.sites[0].id, 0);
	CHECK_EQ(path.sites[0].ns, 800);
	CHECK_EQ(path.work_ns, 3 * (100 + 300)); /* the parallelism: 1200 / 830 */
	/* phase by phase: thread 2's work in each (the first from 1100) */
	CHECK_EQ(path.nphases, 3);
	CHECK(path.phases[0].index == 0 && path.phases[0].ns == 200 && path.phases[0].tid == 2);
	CHECK(path.phases[1].index == 1 && path.phases[1].ns == 300 && path.phases[1].tid == 2);
	CHECK(path.phases[2].index == 2 && path.phases[2].ns == 300 &&
	      path.phases[2].tid_ns == 300);
	sim_path__free(&path);
	phases__free(p);
	sim__free(s);
}

/*
 * A master's serial part: thread 2 starts at 1000 (and takes a free lock
 * then, the run's first event), thread 1 (forked late) at 1200; both arrive
 * at 1300 and leave at 1310. Thread 2's work before thread 1 started (200)
 * is serial, the rest (100 each) parallel:
 *   threads=1:1: 200 + 200 = 400 of work before the release: 410 in all
 *   threads=2:2: 200 + 100 and 100: as measured, 310
 *   balance:     the parallel part is already even: 310
 */
TEST(serial_part_of_a_phase_stays_with_its_thread)
{
	struct sim *s = sim__new();
	struct phases *p = sim_phases(s);

	phases__add_thread(p, PID, 2, 1000);
	phases__add_thread(p, PID, 1, 1200);
	enter(p, P_LOCK, 2, 1000, OBJ_Y, SITE_B);
	leave(p, P_LOCK, 2, 1000, 0);
	enter(p, P_UNLOCK, 2, 1000, OBJ_Y, SITE_B);
	leave(p, P_UNLOCK, 2, 1000, 0);
	enter(p, P_PBW, 1, 1300, OBJ_X, SITE_A);
	enter(p, P_PBW, 2, 1300, OBJ_X, SITE_A);
	leave(p, P_PBW, 1, 1310, 0);
	leave(p, P_PBW, 2, 1310, 0);
	phases__finish(p);
	CHECK_EQ(sim__finish(s, p), 0);
	CHECK_EQ(replay(s, (struct sim_change){.kind = SIM_AS_IS}), 310);
	CHECK_EQ(replay(s, (struct sim_change){.kind = SIM_THREADS, .threads = 1, .cpus = 1}), 410);
	CHECK_EQ(replay(s, (struct sim_change){.kind = SIM_THREADS, .threads = 2, .cpus = 2}), 310);
	CHECK_EQ(replay(s, (struct sim_change){.kind = SIM_BALANCE, .any_site = 1}), 310);
	phases__free(p);
	sim__free(s);
}

/*
 * glibc's mutex is not fair: a releaser that asks again before a woken
 * waiter runs takes the lock back. Measured (both declared at 1000):
 *   t1: lock 1000-1000, unlock 1100, lock 1105 (waits) -1300, unlock 1400
 *   t2: lock 1050 (waits) -1200, unlock 1250
 * Hand-offs of the waits: 1200 - 1100 = 100 and 1300 - 1250 = 50: the
 * lock's is their median, 100 (the upper of two). Replayed: t1 unlocks at
 * 1100, t2 would have it at 1200, but t1 asks again at 1105 and takes it
 * back; t1 works 100 and unlocks at 1205, after the grant found the lock
 * taken: so t2 has it 100 later, at 1305, works 50 and unlocks at 1355: the
 * run is 355 long where 400 was measured.
 */
TEST(a_lock_taken_back_by_its_releaser)
{
	struct sim_path path;
	struct sim *s = sim__new();
	struct phases *p = sim_phases(s);
	struct sim_result r;

	phases__add_thread(p, PID, 1, 1000);
	phases__add_thread(p, PID, 2, 1000);
	enter(p, P_LOCK, 1, 1000, OBJ_Y, SITE_A);
	leave(p, P_LOCK, 1, 1000, 0);
	enter(p, P_LOCK, 2, 1050, OBJ_Y, SITE_B);
	enter(p, P_UNLOCK, 1, 1100, OBJ_Y, SITE_A);
	leave(p, P_UNLOCK, 1, 1100, 0);
	enter(p, P_LOCK, 1, 1105, OBJ_Y, SITE_A);
	leave(p, P_LOCK, 2, 1200, 0);
	enter(p, P_UNLOCK, 2, 1250, OBJ_Y, SITE_B);
	leave(p, P_UNLOCK, 2, 1250, 0);
	leave(p, P_LOCK, 1, 1300, 0);
	enter(p, P_UNLOCK, 1, 1400, OBJ_Y, SITE_A);
	leave(p, P_UNLOCK, 1, 1400, 0);
	phases__finish(p);
	CHECK_EQ(sim__finish(s, p), 0);
	CHECK_EQ(sim__items(s), 6);
	CHECK_EQ(sim__run(s, &(struct sim_change){.kind = SIM_AS_IS}, &r), 0);
	CHECK_EQ(r.stalled, 0);
	CHECK_EQ(r.lock_barges, 1);
	CHECK_EQ(r.duration_ns, 355);
	/* its critical path, back from t2's unlock at 1355: t2's 50 of work,
	 * the hand-off from t1's unlock at 1205 (100), t1 from there back to
	 * its start: 100 + 5 + 100 */
	CHECK_EQ(sim__critical_path(s, &path, 1), 0);
	CHECK_EQ(path.total_ns, 355);
	CHECK_EQ(path.sync_ns, 100);
	CHECK_EQ(path.outside_ns, 255);
	CHECK_EQ(path.nthreads, 2);
	CHECK(path.threads[0].id == 1 && path.threads[0].ns == 205);
	CHECK(path.threads[1].id == 2 && path.threads[1].ns == 50);
	CHECK_EQ(path.nsites, 0);
	/* t1: 100 + 5 + 100 of work, t2: 50 (plus its 50 before asking) */
	CHECK_EQ(path.work_ns, 100 + 5 + 100 + 50 + 50);
	/* its stretches in time order: t1's work, the hand-off, t2's work */
	CHECK_EQ(path.nsegs, 5);
	CHECK(path.segs[0].tid == 1 && path.segs[0].from == 1000 && path.segs[0].to == 1100);
	CHECK(path.segs[1].tid == 1 && path.segs[1].from == 1100 && path.segs[1].to == 1105);
	CHECK(path.segs[2].tid == 1 && path.segs[2].from == 1105 && path.segs[2].to == 1205);
	CHECK(path.segs[3].tid == 0 && path.segs[3].from == 1205 && path.segs[3].to == 1305);
	CHECK(path.segs[4].tid == 2 && path.segs[4].from == 1305 && path.segs[4].to == 1355);
	sim_path__free(&path);
	phases__free(p);
	sim__free(s);
}

/* A lock whose release the trace does not show (a lost record; the trace
 * ends while a thread holds it): free from its holder's end, or the replay
 * would wait for it forever. Thread 1 takes it at 1010 and ends; thread 2
 * asks at 1020 (it got it at 1500 in the measurement, from a release the
 * trace lacks): replayed, it is free, and the run is 1020 - 1010 long. */
TEST(a_lock_never_released_is_free_at_its_holders_end)
{
	struct sim *s = sim__new();
	struct phases *p = sim_phases(s);
	struct sim_result r;
	struct sim_path path;

	phases__add_thread(p, PID, 1, 1000);
	phases__add_thread(p, PID, 2, 1000);
	enter(p, P_LOCK, 1, 1010, OBJ_Y, SITE_A);
	leave(p, P_LOCK, 1, 1010, 0);
	enter(p, P_LOCK, 2, 1020, OBJ_Y, SITE_B);
	leave(p, P_LOCK, 2, 1500, 0);
	phases__finish(p);
	CHECK_EQ(sim__finish(s, p), 0);
	CHECK_EQ(sim__critical_path(s, &path, 1), -EINVAL); /* no replay yet */
	CHECK_EQ(sim__run(s, &(struct sim_change){.kind = SIM_AS_IS}, &r), 0);
	CHECK_EQ(r.stalled, 0);
	CHECK_EQ(r.duration_ns, 10);
	CHECK_EQ(sim__run(s, &(struct sim_change){.kind = SIM_SPEEDUP, .factor = 0}, &r), -EINVAL);
	phases__free(p);
	sim__free(s);
}

TEST(what_if_specs)
{
	struct sim_change c;
	char err[512], name[64];

	CHECK_EQ(sim_change__parse("balance", &c, err, sizeof(err)), 0);
	CHECK(c.kind == SIM_BALANCE && c.any_site);
	CHECK_EQ(sim_change__parse("balance=lu.c:320", &c, err, sizeof(err)), 0);
	CHECK(c.kind == SIM_BALANCE && !c.any_site);
	CHECK_STR(c.site_text, "lu.c:320");
	CHECK_EQ(sim_change__parse("speedup=4242:1.5", &c, err, sizeof(err)), 0);
	CHECK(c.kind == SIM_SPEEDUP && c.tid == 4242 && c.factor == 1.5);
	sim_change__name(&c, name, sizeof(name));
	CHECK_STR(name, "speedup=4242:1.5");
	CHECK_EQ(sim_change__parse("threads=8", &c, err, sizeof(err)), 0);
	CHECK(c.kind == SIM_THREADS && c.threads == 8 && c.cpus == 0);
	CHECK_EQ(sim_change__parse("threads=8:4", &c, err, sizeof(err)), 0);
	CHECK(c.threads == 8 && c.cpus == 4);
	sim_change__name(&c, name, sizeof(name));
	CHECK_STR(name, "threads=8:4");
	CHECK_EQ(sim_change__parse("as-is", &c, err, sizeof(err)), 0);
	CHECK(c.kind == SIM_AS_IS);
	CHECK_EQ(sim_change__parse("balance=", &c, err, sizeof(err)), -EINVAL);
	CHECK_EQ(sim_change__parse("speedup=12", &c, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "speedup=TID:F") != NULL);
	CHECK_EQ(sim_change__parse("speedup=12x:2", &c, err, sizeof(err)), -EINVAL);
	CHECK_EQ(sim_change__parse("speedup=step:2", &c, err, sizeof(err)), 0);
	CHECK(c.kind == SIM_SPEEDUP && !strcmp(c.region, "step") && c.factor == 2);
	sim_change__name(&c, name, sizeof(name));
	CHECK_STR(name, "speedup=step:2");
	CHECK_EQ(sim_change__parse("move=step:12:13", &c, err, sizeof(err)), 0);
	CHECK(c.kind == SIM_MOVE && !strcmp(c.region, "step") && c.tid == 12 && c.to == 13);
	sim_change__name(&c, name, sizeof(name));
	CHECK_STR(name, "move=step:12:13");
	CHECK_EQ(sim_change__parse("move=step:12", &c, err, sizeof(err)), 0);
	CHECK(c.tid == 12 && c.to == 0);
	CHECK_EQ(sim_change__parse("move=step", &c, err, sizeof(err)), -EINVAL);
	CHECK_EQ(sim_change__parse("move=12:13", &c, err, sizeof(err)), -EINVAL);
	CHECK_EQ(sim_change__parse("move=step:x", &c, err, sizeof(err)), -EINVAL);
	CHECK_EQ(sim_change__parse("speedup=1:0", &c, err, sizeof(err)), -EINVAL);
	CHECK_EQ(sim_change__parse("threads=0", &c, err, sizeof(err)), -EINVAL);
	CHECK_EQ(sim_change__parse("threads=2:", &c, err, sizeof(err)), -EINVAL);
	CHECK_EQ(sim_change__parse("threads", &c, err, sizeof(err)), -EINVAL);
	CHECK_EQ(sim_change__parse("as-is=1", &c, err, sizeof(err)), -EINVAL);
	CHECK_EQ(sim_change__parse("frobnicate", &c, err, sizeof(err)), -EINVAL);
	CHECK(strstr(err, "unknown --what-if 'frobnicate'") != NULL);
}

/*
 * Splash-3's barrier of a mutex and a condvar (tests/unit/condbar_fixture.h),
 * three episodes, no probe cost: the mutex each thread holds when it
 * arrives is the barrier's own (replayed as held, the others could never
 * arrive), the broadcast at the last arrival too. The replay ends where the
 * run did, the last thread's unlock at 30432, timed from the run's first
 * event (thread 1's lock at 10100), less 1 for each episode's last arrival:
 * its lock call (1 measured) is the barrier's own acquisition, which takes
 * no time in the replay (its wait is for the others' arrivals, which the
 * replay times): 30432 - 10100 - 3 = 20329.
 */
TEST(replay_of_a_condvar_barrier)
{
	struct sim *s = sim__new();
	struct phases *p = sim_phases(s);
	struct sim_result r;
	__u32 tid;

	for (tid = 1; tid <= 3; tid++)
		phases__add_thread(p, PID, tid, 10000);
	cb_episode(p, 10000, 3);
	cb_episode(p, 20000, 3);
	cb_wait_in(p, 1, 30100);
	cb_wait_in(p, 3, 30150);
	cb_last(p, 2, 30200);
	cb_wait_out(p, 1, 30410);
	cb_wait_out(p, 3, 30430);
	phases__finish(p);
	CHECK_EQ(sim__finish(s, p), 0);
	CHECK_EQ(sim__episodes(s), 3);
	CHECK_EQ(sim__run(s, &(struct sim_change){.kind = SIM_AS_IS}, &r), 0);
	CHECK_EQ(r.stalled, 0);
	CHECK_EQ(r.duration_ns, 20329);
	phases__free(p);
	sim__free(s);
}

/*
 * A condition wait ends at the signal that ended it in the measurement, a
 * hand-off later. Thread 1 waits from 1000 to 1300; thread 2 signals at
 * 1200 (returns 1210): the hand-off is 100. Locks are not traced, so the
 * wait's mutex is not replayed. As is: 300. Thread 2 twice as fast: it
 * signals at 1100, thread 1 goes on at 1200: 200, all of it on the
 * critical path as thread 2's work (100) and the hand-off (100).
 */
TEST(a_condition_wait_ends_at_its_signal)
{
	struct sim *s = sim__new();
	struct phases *p = sim_phases(s);
	struct sim_path path;

	phases__add_thread(p, PID, 1, 1000);
	phases__add_thread(p, PID, 2, 1000);
	cwait(p, 1, 1000);
	enter(p, P_SIGNAL, 2, 1200, CV, SITE_B);
	leave(p, P_SIGNAL, 2, 1210, 0);
	leave(p, P_CWAIT, 1, 1300, 0);
	phases__finish(p);
	CHECK_EQ(sim__finish(s, p), 0);
	CHECK_EQ(replay(s, (struct sim_change){.kind = SIM_AS_IS}), 300);
	CHECK_EQ(replay(s, (struct sim_change){.kind = SIM_SPEEDUP, .tid = 2, .factor = 2}), 200);
	CHECK_EQ(sim__critical_path(s, &path, 1), 0);
	CHECK_EQ(path.total_ns, 200);
	CHECK_EQ(path.sync_ns, 100);
	CHECK(path.nthreads == 1 && path.threads[0].id == 2 && path.threads[0].ns == 100);
	sim_path__free(&path);
	phases__free(p);
	sim__free(s);
}

/*
 * A region function's work (--probe FN:region): thread 2 works 1000-1300,
 * 150 of it inside a region frame (1050-1200); thread 1 works 1000-1100.
 * Both leave 10 after the last arrival. The run is timed from 1050.
 *   as is: 1310 - 1050 = 260
 *   the region twice as fast: thread 2 arrives at 1000 + 50 + 75 + 100 =
 *     1225, the run ends at 1235: 185
 *   the region moved to thread 1: thread 2 arrives at 1150, thread 1 at
 *     1100 + 150 = 1250: 1260 - 1050 = 210 (to the least loaded: the same)
 */
TEST(a_region_made_faster_or_moved)
{
	struct sim *s = sim__new();
	struct phases *p = sim_phases(s);
	struct sim_change c = {.kind = SIM_SPEEDUP, .factor = 2, .region = "GOMP_parallel"};
	struct sim_path path;

	phases__add_thread(p, PID, 1, 1000);
	phases__add_thread(p, PID, 2, 1000);
	enter(p, P_REGION, 2, 1050, 0, SITE_B);
	enter(p, P_PBW, 1, 1100, OBJ_X, SITE_A);
	leave(p, P_REGION, 2, 1200, 0);
	enter(p, P_PBW, 2, 1300, OBJ_X, SITE_A);
	leave(p, P_PBW, 1, 1310, 0);
	leave(p, P_PBW, 2, 1310, 0);
	phases__finish(p);
	CHECK_EQ(sim__finish(s, p), 0);
	c.probes[P_REGION / 8] |= 1u << (P_REGION % 8);
	CHECK_EQ(replay(s, (struct sim_change){.kind = SIM_AS_IS}), 260);
	CHECK_EQ(replay(s, c), 185);
	c.kind = SIM_MOVE;
	c.tid = 2;
	c.to = 1;
	CHECK_EQ(replay(s, c), 210);
	c.to = 0;
	CHECK_EQ(replay(s, c), 210);
	/* as is, the path is thread 2's: 50 of work, 150 in the region, 100,
	 * from the run's first event (1050: the region's 150 and 100), then
	 * the release (10) */
	CHECK_EQ(replay(s, (struct sim_change){.kind = SIM_AS_IS}), 260);
	CHECK_EQ(sim__critical_path(s, &path, 0), 0);
	CHECK_EQ(path.total_ns, 260);
	CHECK(path.nregions == 1 && path.regions[0].id == P_REGION && path.regions[0].ns == 150);
	sim_path__free(&path);
	/* a thread's speedup leaves a region of another alone */
	CHECK_EQ(replay(s, (struct sim_change){.kind = SIM_SPEEDUP, .tid = 1, .factor = 2}), 260);
	phases__free(p);
	sim__free(s);
}

/*
 * A semaphore's token: thread 1 waits (sem_wait) from 1000 to 1300, thread 2
 * works to 1200 and posts (returns 1210). The P took that V's token: it
 * waits for it in the replay, a hand-off (1300 - 1200) after the post. The
 * critical path: thread 2's 200 of work, then the hand-off: 300.
 */
TEST(a_semaphore_token_and_its_critical_path)
{
	struct sync *sy = sync__new(probes, NPROBES);
	struct sim *s = sim__new();
	struct phases *p = sim_phases_sync(s, sy);
	struct sim_path path;

	phases__add_thread(p, PID, 1, 1000);
	phases__add_thread(p, PID, 2, 1000);
	enter(p, P_SEMW, 1, 1000, OBJ_Y, SITE_A);
	enter(p, P_POST, 2, 1200, OBJ_Y, SITE_B);
	leave(p, P_POST, 2, 1210, 0);
	leave(p, P_SEMW, 1, 1300, 0);
	phases__finish(p);
	CHECK_EQ(sim__finish(s, p), 0);
	CHECK_EQ(replay(s, (struct sim_change){.kind = SIM_AS_IS}), 300);
	CHECK_EQ(sim__critical_path(s, &path, 1), 0);
	CHECK_EQ(path.total_ns, 300);
	CHECK_EQ(path.sync_ns, 100);
	CHECK(path.nthreads == 1 && path.threads[0].id == 2 && path.threads[0].ns == 200);
	CHECK(path.nsegs == 2 && path.segs[0].tid == 2 && path.segs[1].tid == 0);
	/* thread 2 twice as fast: the token comes 100 earlier */
	CHECK_EQ(replay(s, (struct sim_change){.kind = SIM_SPEEDUP, .tid = 2, .factor = 2}), 200);
	sim_path__free(&path);
	phases__free(p);
	sim__free(s);
	sync__free(sy);
}

/* One fork-join step: main thread PID creates workers a and b at c0 and c0
 * + 10; a works wa, b wb (the longer) before the barrier, which releases
 * 10 after b; each exits 20 later (a 10 before b). main joins a (a futex
 * wait for a's id from c0 + 20, woken 5 after a's exit), then b (from 1
 * later, 5 after b's exit), and works `serial` after. Returns its end. */
static __u64 fork_join_step(struct phases *p, __u64 c0, __u32 a, __u32 b, __u64 wa, __u64 wb,
			    __u64 serial)
{
	__u64 last = c0 + 10 + wb, a_exit = last + 10 + 10, b_exit = last + 10 + 20;

	feed(p, SBT_EV_THREAD_START, 0, a, c0, 0, 0);
	feed(p, SBT_EV_THREAD_START, 0, b, c0 + 10, 0, 0);
	feed(p, SBT_EV_FUTEX_ENTER, 0, PID, c0 + 20, 0x9000 + a, (__u64)a << 32);
	enter(p, P_PBW, a, c0 + wa, OBJ_X, SITE_A);
	enter(p, P_PBW, b, last, OBJ_X, SITE_A);
	leave(p, P_PBW, a, last + 10, 0);
	leave(p, P_PBW, b, last + 10, 0);
	feed(p, SBT_EV_THREAD_EXIT, 0, a, a_exit, 0, 0);
	feed(p, SBT_EV_FUTEX_EXIT, 0, PID, a_exit + 5, 0, 0);
	feed(p, SBT_EV_FUTEX_ENTER, 0, PID, a_exit + 6, 0x9000 + b, (__u64)b << 32);
	feed(p, SBT_EV_THREAD_EXIT, 0, b, b_exit, 0, 0);
	feed(p, SBT_EV_FUTEX_EXIT, 0, PID, b_exit + 5, 0, 0);
	return b_exit + 5 + serial;
}

/*
 * A program that creates its workers and joins them at every step (naive
 * fork-join), main thread from 1000, its serial work between the steps:
 *   step 1: workers 1 (200) and 2 (400) created at 1100, 1110; barrier
 *           1510-1520; exits 1530, 1540; joins return 1535, 1545;
 *           main works 100;
 *   step 2: workers 3 (100) and 4 (300) created at 1645, 1655; barrier
 *           1955-1965; exits 1975, 1985; joins return 1980, 1990;
 *           main works 50 and exits at 2040.
 * The replay as is: 1040. Thread 2 twice as fast: both workers end at 1330
 * (2's work 200 less, its 20 after the barrier 10 less), the join of 1
 * returns at 1335 and that of 2, asked 1 later, at once: 209 earlier than
 * measured, and step 2 begins as much earlier, as main creates its workers
 * after the joins: 831.
 * The critical path, back from main's end: its 50, b's exit and wake-up
 * (5), worker 4 (20 after the barrier, its release 10, its 300), main from
 * the creation of 4 back to the join of 2 (10 + 100), the wake-up (5),
 * worker 2 (20 + 10 + 400), main before creating 1 (100) and 2 (10).
 */
TEST(fork_join_steps_replayed_from_creation_to_join)
{
	struct sim *s = sim__new();
	struct phases *p = sim_phases(s);
	struct sim_path path;
	__u64 end;

	feed(p, SBT_EV_THREAD_START, 0, PID, 1000, 0, 0);
	end = fork_join_step(p, 1100, 1, 2, 200, 400, 100);
	end = fork_join_step(p, end, 3, 4, 100, 300, 50);
	CHECK_EQ(end, 2040);
	feed(p, SBT_EV_THREAD_EXIT, 0, PID, end, 0, 0);
	phases__finish(p);
	CHECK_EQ(sim__finish(s, p), 0);
	CHECK_EQ(replay(s, (struct sim_change){.kind = SIM_AS_IS}), 1040);
	CHECK_EQ(replay(s, (struct sim_change){.kind = SIM_SPEEDUP, .tid = 2, .factor = 2}), 831);
	CHECK_EQ(replay(s, (struct sim_change){.kind = SIM_AS_IS}), 1040);
	CHECK_EQ(sim__critical_path(s, &path, 0), 0);
	CHECK_EQ(path.total_ns, 1040);
	CHECK_EQ(path.sync_ns, 5 + 10 + 5 + 10);
	CHECK_EQ(path.nthreads, 3);
	CHECK(path.threads[0].id == 2 && path.threads[0].ns == 420);
	CHECK(path.threads[1].id == 4 && path.threads[1].ns == 320);
	CHECK(path.threads[2].id == PID && path.threads[2].ns == 50 + 110 + 110);
	CHECK_EQ(path.outside_ns, 50 + 20 + 110 + 20 + 110);
	sim_path__free(&path);
	phases__free(p);
	sim__free(s);
}
