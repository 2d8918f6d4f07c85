// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* OpenMP tasks (analyses/tasks.c): tasks created, task waits, the task
 * bodies run inside a wait counted as work (once when nested), the rest of
 * the wait out of the thread's useful compute; bodies run in a barrier's
 * wait move the thread's arrival (analyses/episodes.c). */
#include "phases_fixture.h"

#define TASK_FN 0x401300
#define BODY_A	0x401100 /* regions' outlined functions */
#define BODY_B	0x401200

static void task_body(struct phases *p, __u32 tid, __u64 in, __u64 out)
{
	body_in(p, tid, in, TASK_FN);
	body_out(p, tid, out);
}

/*
 * Thread 1 creates two tasks and waits 1100..1500, running one task
 * (1200..1300, with a nested one 1220..1240 inside) meanwhile; a task it
 * runs outside any wait (2000..2100) is no wait's. Then it arrives at a
 * barrier: its useful compute excludes the 300 ns it only waited.
 */
TEST(task_wait_split_into_work_and_waiting)
{
	struct collected c;
	struct phases *p = new_phases(&c);
	const struct ph_thread *t;
	const struct ph_arrival *a;

	enter(p, P_TASK, 1, 1010, 0, SITE_A);
	leave(p, P_TASK, 1, 1020, 0);
	enter(p, P_TASK, 1, 1030, 0, SITE_A);
	leave(p, P_TASK, 1, 1040, 0);
	enter(p, P_TASKWAIT, 1, 1100, 0, SITE_A);
	body_in(p, 1, 1200, TASK_FN);
	task_body(p, 1, 1220, 1240);
	body_out(p, 1, 1300);
	leave(p, P_TASKWAIT, 1, 1500, 0);
	task_body(p, 1, 2000, 2100);
	enter(p, P_PBW, 1, 3000, OBJ_X, SITE_A);
	enter(p, P_PBW, 2, 3010, OBJ_X, SITE_A);
	leave(p, P_PBW, 2, 3020, -1);
	leave(p, P_PBW, 1, 3030, 0);
	CHECK_EQ(phases__nthreads(p), 2);
	t = phases__thread(p, 0);
	CHECK_EQ(t->tid, 1);
	CHECK_EQ(t->tasks_created, 2);
	CHECK_EQ(t->task_waits, 1);
	CHECK_EQ(t->task_run_ns, 100);
	CHECK_EQ(t->task_wait_ns, 300);
	CHECK_EQ(c.n, 1);
	a = arrival_of(&c.ep[0], 1);
	CHECK_EQ(a->sync_wait_ns, 300);
	CHECK_EQ(ph_useful_ns(a), (3000 - START) - 300);
	CHECK_EQ(c.ep[0].n, 2); /* task bodies are no arrivals */
	phases__free(p);
}

/*
 * The runtimes run a team's queued tasks in its barriers. Thread 2 arrives
 * at the barrier at 1100 and runs two tasks there (1200..1500, 1600..1900,
 * one with a nested task); thread 1, which created them, arrives at 1700.
 * Thread 2 worked until 1900: its arrival, and the barrier's last, move
 * there; its wait is 1950 - 1900; thread 1 waited from 1700. Approximated
 * (a body's hits cost 10 + 10, the barrier's 20 + 20): thread 2 paid 20 at
 * the barrier's entry and 20 for each body, 5 hits before its last body's
 * return, so that return is at 1900 - (20 + 4 * 10 + 10) = 1830; thread
 * 1 paid nothing before its arrival (task creations cost 0 here, a hit's
 * cost counts after its record): 1700; the exits
 * leave at the approximated last arrival 1830 plus the measured hand-off
 * from the last body's return, 1950 - 1900, less the exit's 20: 1860.
 */
TEST(task_bodies_run_in_a_barrier_are_work)
{
	static const __u64 a_enter[NPROBES] = {[P_BODY] = 10, [P_PBW] = 20};
	static const __u64 a_exit[NPROBES] = {[P_BODY] = 10, [P_PBW] = 20};
	struct collected c;
	struct phases *p = new_phases_mr(&c, a_enter, a_exit);
	const struct ph_arrival *a1, *a2;

	phases__add_thread(p, PID, 1, START);
	phases__add_thread(p, PID, 2, START);
	enter(p, P_TASK, 1, 1010, 0, SITE_A);
	leave(p, P_TASK, 1, 1020, 0);
	enter(p, P_PBW, 2, 1100, OBJ_X, SITE_A);
	task_body(p, 2, 1200, 1500);
	body_in(p, 2, 1600, TASK_FN);
	task_body(p, 2, 1650, 1660);
	body_out(p, 2, 1900);
	enter(p, P_PBW, 1, 1700, OBJ_X, SITE_A);
	leave(p, P_PBW, 2, 1950, -1);
	leave(p, P_PBW, 1, 1960, 0);
	CHECK_EQ(c.n, 1);
	a1 = arrival_of(&c.ep[0], 1);
	a2 = arrival_of(&c.ep[0], 2);
	CHECK_EQ(a2->arrive_ns, 1900);
	CHECK_EQ(ph_wait_ns(a2), 50);
	CHECK_EQ(ph_compute_ns(a2), 1900 - START);
	CHECK_EQ(a1->arrive_ns, 1700);
	CHECK_EQ(ph_wait_ns(a1), 260);
	CHECK_EQ(c.ep[0].last_arrive, 1900);
	CHECK_EQ(c.ep[0].first_arrive, 1700);
	CHECK_EQ(a2->ta_arrive, 1830);
	CHECK_EQ(a1->ta_arrive, 1700);
	CHECK_EQ(a2->ta_depart, 1860);
	CHECK_EQ(a1->ta_depart, 1860);
	CHECK_EQ(a2->overhead_ns, 70);
	CHECK_EQ(phases__violations(p, -1), 0);
	phases__free(p);
}

/*
 * libgomp lets a thread still in a barrier call run tasks the next phase
 * created once another thread has left it: thread 1 leaves at 1300, thread
 * 2, still in its call, runs a task 1400..1590 and leaves at 1600. That
 * task is not this barrier's: thread 2's arrival stays at its entry. Thread
 * 1 paid 3 x 50 creating tasks (t_a 1050 at its arrival); the first exit
 * is at the approximated last arrival, thread 2's 1100, plus 1300 - 1200:
 * 1200, and thread 2's, spaced as measured, at 1500, would come before its
 * own task's end (1590): it leaves on its own clock, 1600, no repair.
 */
TEST(task_bodies_after_a_departure_move_no_arrival)
{
	static const __u64 a_enter[NPROBES] = {[P_TASK] = 50}, a_exit[NPROBES];
	struct collected c;
	struct phases *p = new_phases_mr(&c, a_enter, a_exit);

	phases__add_thread(p, PID, 1, START);
	phases__add_thread(p, PID, 2, START);
	enter(p, P_TASK, 1, 1010, 0, SITE_A);
	leave(p, P_TASK, 1, 1060, 0);
	enter(p, P_TASK, 1, 1070, 0, SITE_A);
	leave(p, P_TASK, 1, 1120, 0);
	enter(p, P_TASK, 1, 1130, 0, SITE_A);
	leave(p, P_TASK, 1, 1180, 0);
	enter(p, P_PBW, 2, 1100, OBJ_X, SITE_A);
	enter(p, P_PBW, 1, 1200, OBJ_X, SITE_A);
	leave(p, P_PBW, 1, 1300, 0);
	task_body(p, 2, 1400, 1590);
	leave(p, P_PBW, 2, 1600, -1);
	CHECK_EQ(c.n, 1);
	CHECK_EQ(arrival_of(&c.ep[0], 2)->arrive_ns, 1100);
	CHECK_EQ(c.ep[0].last_arrive, 1200);
	CHECK_EQ(arrival_of(&c.ep[0], 1)->ta_arrive, 1050);
	CHECK_EQ(arrival_of(&c.ep[0], 1)->ta_depart, 1200);
	CHECK_EQ(arrival_of(&c.ep[0], 2)->ta_depart, 1600);
	CHECK_EQ(phases__violations(p, -1), 0);
	phases__free(p);
}

/*
 * Tasks run, counted by their bodies: a region's shares are none. Thread 1
 * forks a region of BODY_A (1000) and runs its share 1010..1350 inside the
 * region call; thread 2 runs its share 1020..1300 with a task inside it
 * (1100..1200), then a task after its share, at the region's end
 * (1400..1500): two tasks. Thread 3 runs a body of a region forked before
 * the session (attached mid-region: no fork seen, no share before): a share
 * whose instance is unknown, no task. A taskloop's tasks (created inside the
 * runtime, no creation probed) are bodies like these.
 */
TEST(tasks_run_are_task_bodies_not_region_shares)
{
	struct collected c;
	struct phases *p = new_phases(&c);

	enter(p, P_REGION, 1, 1000, BODY_A, SITE_A);
	body_in(p, 1, 1010, BODY_A);
	body_in(p, 2, 1020, BODY_A);
	task_body(p, 2, 1100, 1200);
	body_out(p, 2, 1300);
	body_out(p, 1, 1350);
	task_body(p, 2, 1400, 1500);
	/* the master's share done, libgomp's end of region runs a task left
	 * (in the region's frame, another body than the one forked) */
	task_body(p, 1, 1450, 1550);
	leave(p, P_REGION, 1, 1600, 0);
	body_in(p, 3, 1700, BODY_B);
	body_out(p, 3, 1800);
	CHECK_EQ(phases__nthreads(p), 3);
	CHECK_EQ(thread_of(p, 1)->tasks_run, 1);
	CHECK_EQ(thread_of(p, 2)->tasks_run, 2);
	CHECK_EQ(thread_of(p, 3)->tasks_run, 0);
	CHECK(ph_thread_has_tasks(thread_of(p, 2)) && !ph_thread_has_tasks(thread_of(p, 3)));
	phases__free(p);
}

/*
 * Recursive tasks (fib, nqueens): a wait inside a body run in another wait.
 * Thread 1 waits 1000..2000 (W1), running body B1 1100..1900 there, which
 * waits 1200..1800 (W2), running body B2 1300..1500. W2 waited 400 (600
 * less B2's 200), W1 200 (1000 less B1's 800). Running tasks in waits:
 * B1's 800 less the 400 W2 waited inside it: 400. Waiting and running add
 * up to W1's 1000; counting each wait's bodies would give 1000 + 200.
 */
TEST(nested_task_waits_count_their_time_once)
{
	struct collected c;
	struct phases *p = new_phases(&c);
	const struct ph_thread *t;

	enter(p, P_TASKWAIT, 1, 1000, 0, SITE_A);
	body_in(p, 1, 1100, TASK_FN);
	enter(p, P_TASKWAIT, 1, 1200, 0, SITE_A);
	task_body(p, 1, 1300, 1500);
	leave(p, P_TASKWAIT, 1, 1800, 0);
	body_out(p, 1, 1900);
	leave(p, P_TASKWAIT, 1, 2000, 0);
	t = thread_of(p, 1);
	CHECK_EQ(t->task_waits, 2);
	CHECK_EQ(t->task_wait_ns, 400 + 200);
	CHECK_EQ(t->task_run_ns, 400);
	CHECK_EQ(t->tasks_run, 2);
	phases__free(p);
}

/*
 * Recursion deeper than a thread's first stack (8 calls): 40 levels of a
 * task body waiting for its child, each level 10 ns of waiting on each
 * side of the child's body and 1 ns of work on each side of its wait.
 * Every body and wait counted; the waiting is 40 x 20, the work run in the
 * outermost wait the innermost body's 10 and 2 in each of the 39 between.
 */
TEST(task_recursion_deeper_than_the_first_stack_is_counted_whole)
{
	struct collected c;
	struct phases *p = new_phases(&c);
	const struct ph_thread *t;
	__u64 ts = 1000;
	int i, levels = 40;

	for (i = 0; i < levels; i++) {
		body_in(p, 1, ts, TASK_FN);
		enter(p, P_TASKWAIT, 1, ts + 1, 0, SITE_A);
		ts += 11; /* 10 waited before the child's body */
	}
	task_body(p, 1, ts, ts + 10);
	ts += 10;
	for (i = 0; i < levels; i++) {
		ts += 10; /* 10 waited after it */
		leave(p, P_TASKWAIT, 1, ts, 0);
		body_out(p, 1, ++ts);
	}
	t = thread_of(p, 1);
	CHECK_EQ(t->depth, 0);
	CHECK_EQ(t->task_waits, levels);
	/* every body inside a wait; the outermost, at depth 0 with no share
	 * known, is none */
	CHECK_EQ(t->tasks_run, levels);
	CHECK_EQ(t->task_wait_ns, (__u64)levels * 20);
	CHECK_EQ(t->task_run_ns, 10 + (levels - 1) * 2);
	phases__free(p);
}

/*
 * A task begins no sooner than its creation: thread 1 creates three tasks
 * at 1000, 2000, 3000, each creation's probe costing 900 (entry), so they
 * are approximated at 1000, 1100, 1200; thread 2, in the barrier from 1050,
 * runs them at 1100, 2100, 3100 (50 each), idle in between because the
 * creations came late. Each body begins as long after the later of its
 * thread's previous event and its creation as it did measured: 1050 + 50
 * = 1100, 1150 + 100 = 1250, 1300 + 100 = 1400 (its own clock, no probe
 * cost, had 3100). Thread 2's arrival moves to its last body's return,
 * 1450, after thread 1's, 4000 - 3 x 900 = 1300.
 */
TEST(a_task_begins_after_its_creation_approximated)
{
	static const __u64 a_enter[NPROBES] = {[P_TASK] = 900};
	static const __u64 a_exit[NPROBES] = {0};
	struct collected c;
	struct phases *p = new_phases_mr(&c, a_enter, a_exit);
	__u64 k;

	phases__add_thread(p, PID, 1, START);
	phases__add_thread(p, PID, 2, START);
	enter(p, P_PBW, 2, 1050, OBJ_X, SITE_A);
	for (k = 0; k < 3; k++) {
		enter(p, P_TASK, 1, 1000 + 1000 * k, 0, SITE_A);
		task_body(p, 2, 1100 + 1000 * k, 1150 + 1000 * k);
		leave(p, P_TASK, 1, 1910 + 1000 * k, 0);
	}
	enter(p, P_PBW, 1, 4000, OBJ_X, SITE_A);
	leave(p, P_PBW, 2, 4010, -1);
	leave(p, P_PBW, 1, 4010, 0);
	CHECK_EQ(c.n, 1);
	CHECK_EQ(arrival_of(&c.ep[0], 2)->arrive_ns, 3150);
	CHECK_EQ(arrival_of(&c.ep[0], 2)->ta_arrive, 1450);
	CHECK_EQ(arrival_of(&c.ep[0], 1)->ta_arrive, 1300);
	CHECK_EQ(thread_of(p, 2)->tasks_run, 3);
	CHECK_EQ(phases__violations(p, -1), 0);
	phases__free(p);
}
