// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Fork-join steps (analyses/forkjoin.h): threads created and joined, step
 * by step, with exact figures; and through the phase analysis, from thread
 * records and the joins' futex waits. */
#include <errno.h>
#include <linux/futex.h>
#include "analyses/forkjoin.h"
#include "phases_fixture.h"

#define MAIN PID

/* Step k of a fork-join loop: main creates 3 threads 10 ns apart at b,
 * which run 100, 200 and 300 ns. */
static void three_threads(struct forkjoin *f, __u32 first_tid, __u64 b)
{
	__u32 i;

	for (i = 0; i < 3; i++)
		forkjoin__start(f, PID, MAIN, first_tid + i, b + 10 * i, b + 10 * i, 0);
	for (i = 0; i < 3; i++)
		forkjoin__exit(f, first_tid + i, b + 10 * i + 100 * (i + 1),
			       b + 10 * i + 100 * (i + 1));
}

TEST(a_step_is_its_threads_from_first_creation_to_last_exit)
{
	struct forkjoin *f = forkjoin__new();
	const struct fj_creator *c;

	three_threads(f, 201, 1000);
	three_threads(f, 204, 5000);
	CHECK_EQ(forkjoin__ncreators(f), 1);
	CHECK_EQ(forkjoin__steps(f), 2);
	CHECK_EQ(forkjoin__running(f), 0);
	c = forkjoin__creator(f, 0);
	CHECK_EQ(c->tid, MAIN);
	CHECK_EQ(c->steps, 2);
	CHECK_EQ(c->lone, 0);
	CHECK_EQ(c->threads, 6);
	/* exits at b+100, b+210, b+320: span 320; lives 100, 200, 300 */
	CHECK_EQ(c->span_ns, 640);
	CHECK_EQ(c->span_a_ns, 640);
	CHECK_EQ(c->run_sum_ns, 1200);
	CHECK_EQ(c->mean_sum_ns, 400);
	CHECK_EQ(c->max_sum_ns, 600);
	/* idle: 320-100 + 320-210 = 330 per step */
	CHECK_EQ(c->idle_ns, 660);
	CHECK(fj_creator_balance(c) > 0.6666 && fj_creator_balance(c) < 0.6667);
	CHECK_EQ(c->nworst, 2);
	/* equal idle: the earlier step first */
	CHECK_EQ(c->worst[0].index, 0);
	CHECK_EQ(c->worst[0].start_ns, 1000);
	CHECK_EQ(c->worst[0].end_ns, 1320);
	CHECK_EQ(c->worst[0].first_tid, 201);
	CHECK_EQ(c->worst[0].last_tid, 203);
	CHECK_EQ(c->worst[0].threads, 3);
	CHECK_EQ(c->worst[1].index, 1);
	forkjoin__free(f);
}

TEST(steps_kept_are_the_most_idle)
{
	struct forkjoin *f = forkjoin__new();
	const struct fj_creator *c;
	__u64 idle[5] = {10, 50, 30, 70, 20}, b;
	int k;

	for (k = 0; k < 5; k++) {
		b = 1000 * (k + 1);
		forkjoin__start(f, PID, MAIN, 300 + 2 * k, b, b, 0);
		forkjoin__start(f, PID, MAIN, 301 + 2 * k, b, b, 0);
		forkjoin__exit(f, 300 + 2 * k, b + 100, b + 100);
		forkjoin__exit(f, 301 + 2 * k, b + 100 + idle[k], b + 100 + idle[k]);
	}
	c = forkjoin__creator(f, 0);
	CHECK_EQ(c->steps, 5);
	CHECK_EQ(c->idle_ns, 180);
	CHECK_EQ(c->nworst, FJ_WORST_KEPT);
	CHECK_EQ(c->worst[0].index, 3);
	CHECK_EQ(c->worst[1].index, 1);
	CHECK_EQ(c->worst[2].index, 2);
	CHECK_EQ(c->worst[0].idle_ns, 70);
	forkjoin__free(f);
}

TEST(creators_and_lone_threads_and_threads_still_running)
{
	struct forkjoin *f = forkjoin__new();
	const struct fj_creator *c;

	/* main creates a helper alone, then two workers; worker 402 creates
	 * two of its own, one of which is still running at the end */
	forkjoin__start(f, PID, MAIN, 401, 100, 100, 0);
	forkjoin__exit(f, 401, 150, 150);
	forkjoin__start(f, PID, MAIN, 402, 200, 200, 0);
	forkjoin__start(f, PID, MAIN, 403, 210, 210, 0);
	forkjoin__start(f, PID, 402, 404, 220, 220, 0);
	forkjoin__start(f, PID, 402, 405, 230, 230, 0);
	forkjoin__exit(f, 404, 300, 300);
	forkjoin__exit(f, 403, 400, 400);
	forkjoin__exit(f, 402, 500, 500);
	/* the process's own creation is no step's, nor an unknown thread's exit */
	forkjoin__start(f, PID + 1, 0, PID + 1, 600, 600, 0);
	forkjoin__exit(f, 999, 700, 700);
	CHECK_EQ(forkjoin__ncreators(f), 2);
	c = forkjoin__creator(f, 0);
	CHECK_EQ(c->tid, MAIN);
	CHECK_EQ(c->lone, 1);
	CHECK_EQ(c->steps, 1);
	CHECK_EQ(c->span_ns, 300);
	CHECK_EQ(c->worst[0].index, 1);
	CHECK_EQ(c->idle_ns, 100);
	c = forkjoin__creator(f, 1);
	CHECK_EQ(c->tid, 402);
	CHECK_EQ(c->steps, 0);
	CHECK_EQ(c->live, 1);
	CHECK_EQ(forkjoin__steps(f), 1);
	CHECK_EQ(forkjoin__running(f), 1);
	forkjoin__free(f);
}

TEST(a_recycled_thread_id_starts_in_its_own_step)
{
	struct forkjoin *f = forkjoin__new();
	const struct fj_creator *c;

	/* 501's exit was lost; the id comes back in the next step */
	forkjoin__start(f, PID, MAIN, 501, 100, 100, 0);
	forkjoin__start(f, PID, MAIN, 502, 100, 100, 0);
	forkjoin__exit(f, 502, 200, 200);
	forkjoin__start(f, PID, MAIN, 501, 300, 300, 0);
	forkjoin__start(f, PID, MAIN, 503, 300, 300, 0);
	forkjoin__exit(f, 501, 400, 400);
	forkjoin__exit(f, 503, 450, 450);
	c = forkjoin__creator(f, 0);
	CHECK_EQ(c->steps, 2);
	CHECK_EQ(c->span_ns, 200 + 150);
	CHECK_EQ(forkjoin__running(f), 0);
	forkjoin__free(f);
}

/* ---- through the phase analysis ---------------------------------------------- */

static void thread_start(struct phases *p, __u32 creator, __u32 tid, __u64 ts)
{
	struct sbt_event e = sbt_event_make(SBT_EV_THREAD_START, 0, PID, tid, ts, 0, 0);

	e.cost = creator;
	CHECK_EQ(phases__feed(p, &e), 0);
}

TEST(a_join_ends_its_thread_before_the_exit_record_comes)
{
	struct collected col;
	struct phases *p = new_phases(&col);
	const struct fj_creator *c;

	feed(p, SBT_EV_THREAD_START, 0, MAIN, 900, 0, 0); /* ignored: the process */
	thread_start(p, MAIN, 601, 1000);
	thread_start(p, MAIN, 602, 1010);
	feed(p, SBT_EV_THREAD_EXIT, 0, 601, 1500, 0, 0);
	/* main joins 602, which it wakes at 2000 (its id cleared); main
	 * creates the next step's thread before 602's exit record */
	feed(p, SBT_EV_FUTEX_ENTER, 0, MAIN, 1600, 0x7000, FUTEX_WAIT | (__u64)602 << 32);
	feed(p, SBT_EV_FUTEX_EXIT, 0, MAIN, 2000, 0, 0);
	thread_start(p, MAIN, 603, 2100);
	feed(p, SBT_EV_THREAD_EXIT, 0, 602, 2150, 0, 0);
	thread_start(p, MAIN, 604, 2160);
	feed(p, SBT_EV_THREAD_EXIT, 0, 603, 2600, 0, 0);
	feed(p, SBT_EV_THREAD_EXIT, 0, 604, 2700, 0, 0);
	phases__finish(p);
	c = forkjoin__creator(phases__forkjoin(p), 0);
	CHECK_EQ(c->steps, 2);
	CHECK_EQ(c->span_ns, (2000 - 1000) + (2700 - 2100));
	CHECK_EQ(phases__out_of_order(p), 0);
	CHECK_EQ(c->idle_ns, (2000 - 1500) + (2700 - 2600));
	CHECK_EQ(c->worst[0].last_tid, 602);
	CHECK_EQ(c->worst[0].end_ns, 2000);
	phases__free(p);
}

/* ---- where pthread_join calls are probed --------------------------------------- */

TEST(once_a_creator_joins_a_step_is_its_creations_between_joins)
{
	struct forkjoin *f = forkjoin__new();
	const struct fj_creator *c;

	/* main joined before (a thread of before the attach) */
	forkjoin__join(f, PID, MAIN, 50);
	/* 701 ends before 702 is created: no join between, one step; main
	 * works 80 ns after its last creation before it joins */
	forkjoin__start(f, PID, MAIN, 701, 100, 100, 0);
	forkjoin__exit(f, 701, 150, 150);
	forkjoin__start(f, PID, MAIN, 702, 200, 200, 0);
	forkjoin__join(f, PID, MAIN, 280);
	forkjoin__exit(f, 702, 400, 400);
	forkjoin__join(f, PID, MAIN, 410);
	/* the next step; its threads end before the join */
	forkjoin__start(f, PID, MAIN, 703, 500, 500, 0);
	forkjoin__start(f, PID, MAIN, 704, 510, 510, 0);
	forkjoin__exit(f, 703, 600, 600);
	forkjoin__exit(f, 704, 650, 650);
	CHECK_EQ(forkjoin__steps(f), 1);
	forkjoin__join(f, PID, MAIN, 660);
	c = forkjoin__creator(f, 0);
	CHECK_EQ(c->steps, 2);
	CHECK_EQ(c->threads, 4);
	CHECK_EQ(c->joins, 4);
	CHECK_EQ(c->creator_ns, 80 + (660 - 510));
	CHECK_EQ(c->span_ns, (400 - 100) + (650 - 500));
	CHECK_EQ(c->idle_ns, (400 - 150) + (650 - 600));
	CHECK_EQ(c->worst[0].index, 0);
	CHECK_EQ(c->worst[1].index, 1);
	forkjoin__free(f);
}

TEST(a_creation_after_a_join_begins_a_step_beside_the_one_still_running)
{
	struct forkjoin *f = forkjoin__new();
	const struct fj_creator *c;

	/* a sliding window: 801 joined, 803 created while 802 runs */
	forkjoin__start(f, PID, MAIN, 801, 100, 100, 0);
	forkjoin__start(f, PID, MAIN, 802, 110, 110, 0);
	forkjoin__exit(f, 801, 200, 200);
	forkjoin__join(f, PID, MAIN, 0);
	forkjoin__start(f, PID, MAIN, 803, 210, 210, 0);
	forkjoin__start(f, PID, MAIN, 804, 220, 220, 0);
	forkjoin__exit(f, 802, 300, 300);
	c = forkjoin__creator(f, 0);
	CHECK_EQ(c->steps, 1);
	CHECK_EQ(c->worst[0].index, 0);
	CHECK_EQ(c->worst[0].end_ns, 300);
	CHECK_EQ(c->live, 2);
	/* never joined: the end of the trace closes the second */
	forkjoin__exit(f, 803, 400, 400);
	forkjoin__exit(f, 804, 420, 420);
	CHECK_EQ(c->steps, 1);
	forkjoin__finish(f);
	CHECK_EQ(c->steps, 2);
	CHECK_EQ(c->worst[0].index, 0); /* idle 100 against 20 */
	CHECK_EQ(c->worst[1].index, 1);
	CHECK_EQ(c->worst[1].start_ns, 210);
	CHECK_EQ(forkjoin__running(f), 0);
	forkjoin__free(f);
}

TEST(an_open_step_at_the_end_is_freed_and_not_counted)
{
	struct forkjoin *f = forkjoin__new();

	/* one step with a thread alive, one ended but never joined (leak check
	 * under the sanitizers) */
	forkjoin__start(f, PID, MAIN, 901, 100, 100, 0);
	forkjoin__start(f, PID, MAIN, 902, 100, 100, 0);
	forkjoin__exit(f, 901, 200, 200);
	forkjoin__join(f, PID, MAIN, 0);
	forkjoin__start(f, PID, MAIN, 903, 300, 300, 0);
	forkjoin__exit(f, 903, 400, 400);
	CHECK_EQ(forkjoin__steps(f), 0);
	CHECK_EQ(forkjoin__running(f), 1);
	forkjoin__free(f);
}

static const struct sbt_probe_info join_probes[] = {
	[1] = {.id = 1, .kind = SBT_PK_JOIN, .symbol = "pthread_join"},
};

TEST(a_probed_join_ends_the_creations_and_its_wait_still_names_the_thread)
{
	struct phases_config cfg = {.probes = join_probes, .nprobes = 2, .start_ns = START};
	struct phases *p = phases__new(&cfg, NULL, NULL);
	const struct fj_creator *c;

	/* a first step, joined; then 1001 is gone before 1002 is created,
	 * main joins both */
	thread_start(p, MAIN, 1000, 1500);
	feed(p, SBT_EV_THREAD_EXIT, 0, 1000, 1600, 0, 0);
	feed(p, SBT_EV_ENTER, 1, MAIN, 1700, 0x1000, 0);
	feed(p, SBT_EV_EXIT, 1, MAIN, 1710, 0, 0);
	thread_start(p, MAIN, 1001, 2000);
	feed(p, SBT_EV_THREAD_EXIT, 0, 1001, 2100, 0, 0);
	thread_start(p, MAIN, 1002, 2200);
	feed(p, SBT_EV_ENTER, 1, MAIN, 2300, 0x1000, 0);
	feed(p, SBT_EV_EXIT, 1, MAIN, 2310, 0, 0);
	feed(p, SBT_EV_ENTER, 1, MAIN, 2320, 0x2000, 0);
	feed(p, SBT_EV_FUTEX_ENTER, 0, MAIN, 2330, 0x7000, FUTEX_WAIT | (__u64)1002 << 32);
	feed(p, SBT_EV_FUTEX_EXIT, 0, MAIN, 2900, 0, 0);
	feed(p, SBT_EV_EXIT, 1, MAIN, 2910, 0, 0);
	feed(p, SBT_EV_THREAD_EXIT, 0, 1002, 2950, 0, 0);
	c = forkjoin__creator(phases__forkjoin(p), 0);
	CHECK_EQ(c->lone, 1);
	CHECK_EQ(c->steps, 1);
	CHECK_EQ(c->threads, 2);
	CHECK_EQ(c->span_ns, 2900 - 2000);
	/* its own time before its first join, the step alone too */
	CHECK_EQ(c->creator_ns, (1700 - 1500) + (2300 - 2200));
	CHECK_EQ(c->worst[0].last_tid, 1002);
	CHECK_EQ(thread_of(p, MAIN)->depth, 0);
	phases__free(p);
}

TEST(a_timed_out_wait_on_a_thread_id_does_not_end_the_thread)
{
	struct collected col;
	struct phases *p = new_phases(&col);
	const struct fj_creator *c;

	thread_start(p, MAIN, 1101, 1000);
	thread_start(p, MAIN, 1102, 1010);
	/* pthread_timedjoin_np(1102) times out at 1500; 1102 ends at 2000 */
	feed(p, SBT_EV_FUTEX_ENTER, 0, MAIN, 1100, 0x7000, FUTEX_WAIT | (__u64)1102 << 32);
	feed(p, SBT_EV_THREAD_EXIT, 0, 1101, 1200, 0, 0);
	feed(p, SBT_EV_FUTEX_EXIT, 0, MAIN, 1500, (__u64)-ETIMEDOUT, 0);
	feed(p, SBT_EV_THREAD_EXIT, 0, 1102, 2000, 0, 0);
	phases__finish(p);
	c = forkjoin__creator(phases__forkjoin(p), 0);
	CHECK_EQ(c->steps, 1);
	CHECK_EQ(c->span_ns, 2000 - 1000);
	CHECK_EQ(c->worst[0].last_tid, 1102);
	phases__free(p);
}

TEST(a_creator_never_seen_joining_makes_a_step_of_the_threads_alive_at_once)
{
	struct forkjoin *f = forkjoin__new();
	const struct fj_creator *c;
	int k;

	/* detached threads: three steps of two, the creator never joins */
	for (k = 0; k < 3; k++) {
		forkjoin__start(f, PID, MAIN, 1200 + 2 * k, 1000 * k, 1000 * k, 0);
		forkjoin__start(f, PID, MAIN, 1201 + 2 * k, 1000 * k + 10, 1000 * k + 10, 0);
		forkjoin__exit(f, 1200 + 2 * k, 1000 * k + 100, 1000 * k + 100);
		forkjoin__exit(f, 1201 + 2 * k, 1000 * k + 300, 1000 * k + 300);
	}
	c = forkjoin__creator(f, 0);
	CHECK_EQ(c->steps, 3);
	CHECK_EQ(c->span_ns, 3 * 300);
	CHECK_EQ(c->idle_ns, 3 * 200);
	CHECK_EQ(c->creator_ns, 0);
	forkjoin__free(f);
}

/* ---- a creator whose joins were probed from its start (launched) ------------ */

/* Step k of a loop of tiny workers: 3 threads created 100 ns apart from b,
 * each ending 50 ns after its creation (before the next is created). */
static void tiny_workers(struct forkjoin *f, __u32 first_tid, __u64 b)
{
	__u32 i;

	for (i = 0; i < 3; i++) {
		forkjoin__start(f, PID, MAIN, first_tid + i, b + 100 * i, b + 100 * i, 1);
		forkjoin__exit(f, first_tid + i, b + 100 * i + 50, b + 100 * i + 50);
	}
}

TEST(workers_ended_before_the_last_is_created_are_one_step_at_the_first_join)
{
	struct forkjoin *f = forkjoin__new();
	const struct fj_creator *c;

	tiny_workers(f, 1301, 1000);
	c = forkjoin__creator(f, 0);
	CHECK_EQ(c->steps, 0);
	CHECK_EQ(c->lone, 0);
	forkjoin__join(f, PID, MAIN, 1300);
	CHECK_EQ(c->steps, 1);
	CHECK_EQ(c->lone, 0);
	CHECK_EQ(c->threads, 3);
	CHECK_EQ(c->span_ns, 1250 - 1000);
	CHECK_EQ(c->run_sum_ns, 150);
	CHECK_EQ(c->max_sum_ns, 50);
	/* exits at 1050, 1150, 1250 */
	CHECK_EQ(c->idle_ns, 200 + 100);
	CHECK_EQ(c->creator_ns, 1300 - 1200);
	CHECK_EQ(c->worst[0].index, 0);
	CHECK_EQ(c->worst[0].first_tid, 1301);
	CHECK_EQ(c->worst[0].last_tid, 1303);
	/* the next step, joined, is the second */
	tiny_workers(f, 1304, 2000);
	forkjoin__join(f, PID, MAIN, 2300);
	CHECK_EQ(c->steps, 2);
	CHECK_EQ(c->threads, 6);
	CHECK_EQ(c->worst[1].index, 1);
	CHECK_EQ(c->worst[1].start_ns, 2000);
	forkjoin__free(f);
}

TEST(a_first_join_with_a_thread_alive_takes_the_groups_before_it)
{
	struct forkjoin *f = forkjoin__new();
	const struct fj_creator *c;

	/* 1401 ends, then 1402 and 1403 run; main joins while 1403 runs */
	forkjoin__start(f, PID, MAIN, 1401, 100, 100, 1);
	forkjoin__exit(f, 1401, 150, 150);
	forkjoin__start(f, PID, MAIN, 1402, 200, 200, 1);
	forkjoin__start(f, PID, MAIN, 1403, 210, 210, 1);
	forkjoin__exit(f, 1402, 300, 300);
	forkjoin__join(f, PID, MAIN, 310);
	c = forkjoin__creator(f, 0);
	CHECK_EQ(c->steps, 0);
	forkjoin__exit(f, 1403, 500, 500);
	CHECK_EQ(c->steps, 1);
	CHECK_EQ(c->threads, 3);
	CHECK_EQ(c->span_ns, 400);
	CHECK_EQ(c->idle_ns, (500 - 150) + (500 - 300));
	CHECK_EQ(c->worst[0].index, 0);
	CHECK_EQ(c->worst[0].first_tid, 1401);
	CHECK_EQ(c->worst[0].last_tid, 1403);
	forkjoin__free(f);
}

TEST(a_launched_creator_that_never_joins_or_waits_otherwise_keeps_its_groups_apart)
{
	struct forkjoin *f = forkjoin__new();
	const struct fj_creator *c;
	int k;

	/* detached threads, two steps of two; then two more, between which
	 * the creator waits at a barrier (or a semaphore): the groups before
	 * the wait are steps of their own, the others at the trace's end */
	for (k = 0; k < 4; k++) {
		if (k == 2)
			forkjoin__waited(f, PID, MAIN);
		forkjoin__start(f, PID, MAIN, 1500 + 2 * k, 1000 * k, 1000 * k, 1);
		forkjoin__start(f, PID, MAIN, 1501 + 2 * k, 1000 * k + 10, 1000 * k + 10, 1);
		forkjoin__exit(f, 1500 + 2 * k, 1000 * k + 100, 1000 * k + 100);
		forkjoin__exit(f, 1501 + 2 * k, 1000 * k + 300, 1000 * k + 300);
	}
	c = forkjoin__creator(f, 0);
	CHECK_EQ(c->steps, 2);
	forkjoin__finish(f);
	CHECK_EQ(c->steps, 4);
	CHECK_EQ(c->span_ns, 4 * 300);
	CHECK_EQ(c->idle_ns, 4 * 200);
	forkjoin__free(f);
}

TEST(a_launched_creator_holds_so_many_groups_then_takes_itself_for_one_that_never_joins)
{
	struct forkjoin *f = forkjoin__new();
	const struct fj_creator *c;
	__u32 k;

	/* groups of two threads, detached */
	for (k = 0; k < 100; k++) {
		forkjoin__start(f, PID, MAIN, 2000 + 2 * k, 1000 * k, 1000 * k, 1);
		forkjoin__start(f, PID, MAIN, 2001 + 2 * k, 1000 * k, 1000 * k, 1);
		forkjoin__exit(f, 2000 + 2 * k, 1000 * k + 100, 1000 * k + 100);
		forkjoin__exit(f, 2001 + 2 * k, 1000 * k + 200, 1000 * k + 200);
	}
	c = forkjoin__creator(f, 0);
	/* held up to 64; the 65th ended them and every later group is a step
	 * at its end */
	CHECK_EQ(c->steps, 100);
	CHECK_EQ(c->nheld, 0);
	/* a join now ends only the creations after it */
	forkjoin__join(f, PID, MAIN, 200000);
	CHECK_EQ(c->steps, 100);
	CHECK_EQ(c->idle_ns, 100 * 100);
	forkjoin__free(f);
}

TEST(a_creator_attached_to_is_not_taken_to_join_before_it_is_seen_to)
{
	struct collected col;
	struct phases *p = new_phases(&col);
	const struct fj_creator *c;

	/* main ran before the session: its joins may not have been probed
	 * yet; each group of threads alive at once is a step at its end */
	phases__add_thread(p, PID, MAIN, 0);
	thread_start(p, MAIN, 1601, 1000);
	feed(p, SBT_EV_THREAD_EXIT, 0, 1601, 1100, 0, 0);
	thread_start(p, MAIN, 1602, 1200);
	thread_start(p, MAIN, 1603, 1210);
	feed(p, SBT_EV_THREAD_EXIT, 0, 1602, 1300, 0, 0);
	feed(p, SBT_EV_THREAD_EXIT, 0, 1603, 1400, 0, 0);
	c = forkjoin__creator(phases__forkjoin(p), 0);
	CHECK_EQ(c->lone, 1);
	CHECK_EQ(c->steps, 1);
	phases__free(p);
}

TEST(a_launched_creator_waiting_on_a_futex_ends_its_groups_but_not_on_a_lock)
{
	struct collected col;
	struct phases *p = new_phases(&col);
	const struct fj_creator *c;

	/* main began in the session; a wait on a contended lock's word (2)
	 * between groups is no wait for threads; one on another word is */
	phases__add_thread(p, PID, MAIN, START);
	thread_start(p, MAIN, 1701, 1000);
	feed(p, SBT_EV_THREAD_EXIT, 0, 1701, 1100, 0, 0);
	feed(p, SBT_EV_FUTEX_ENTER, 0, MAIN, 1110, 0x7000, FUTEX_WAIT | (__u64)2 << 32);
	feed(p, SBT_EV_FUTEX_EXIT, 0, MAIN, 1120, 0, 0);
	thread_start(p, MAIN, 1702, 1200);
	feed(p, SBT_EV_THREAD_EXIT, 0, 1702, 1300, 0, 0);
	c = forkjoin__creator(phases__forkjoin(p), 0);
	CHECK_EQ(c->nheld, 2);
	feed(p, SBT_EV_FUTEX_ENTER, 0, MAIN, 1310, 0x7100, FUTEX_WAIT | (__u64)7 << 32);
	feed(p, SBT_EV_FUTEX_EXIT, 0, MAIN, 1320, 0, 0);
	CHECK_EQ(c->nheld, 0);
	CHECK_EQ(c->lone, 2);
	thread_start(p, MAIN, 1703, 1400);
	thread_start(p, MAIN, 1704, 1410);
	feed(p, SBT_EV_THREAD_EXIT, 0, 1703, 1500, 0, 0);
	feed(p, SBT_EV_THREAD_EXIT, 0, 1704, 1600, 0, 0);
	phases__finish(p);
	CHECK_EQ(c->steps, 1);
	CHECK_EQ(c->span_ns, 200);
	phases__free(p);
}
