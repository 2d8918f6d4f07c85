// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Barriers made of semaphores (analyses/semgroups.c, sembar.c, feed.c): the
 * textbook barrier (a semaphore as the counter's mutex, the last thread
 * posting once per other thread) recognized from its first episode on,
 * with exact arrivals and departures; the preloaded turnstile (the last
 * posts for everyone and waits too); a waiter that enters its wait after
 * the posts; a first group missing a thread that waited before the
 * session; two semaphores taking turns, one of them always posted by the
 * same thread. No barrier: a semaphore used as a mutex, a producer releasing
 * idle consumers, a queue whose posts pile up, a hand-off of two threads;
 * a semaphore only polled with sem_trywait holds no records back. */
#include "phases_fixture.h"

#define COUNT_SEM 0x9000 /* the counter's mutex, initially 1 */
#define BAR_SEM	  0x9040 /* the barrier's, initially 0 */
#define BAR_SEM2  0x9080 /* a second one taking turns with it */

/* The counter's semaphore taken at ts (no wait) and posted at ts + 2. */
static void count_in(struct phases *p, __u32 tid, __u64 ts)
{
	enter(p, P_SEMW, tid, ts, COUNT_SEM, SITE_A);
	leave(p, P_SEMW, tid, ts + 1, 0);
	enter(p, P_POST, tid, ts + 2, COUNT_SEM, SITE_A);
	leave(p, P_POST, tid, ts + 3, 0);
}

/* A waiter: counts itself in at ts, waits on semaphore sem from ts + 10. */
static void sb_wait_in_on(struct phases *p, __u64 sem, __u32 tid, __u64 ts)
{
	count_in(p, tid, ts);
	enter(p, P_SEMW, tid, ts + 10, sem, SITE_A);
}

static void sb_wait_in(struct phases *p, __u32 tid, __u64 ts)
{
	sb_wait_in_on(p, BAR_SEM, tid, ts);
}

static void sb_wait_out(struct phases *p, __u32 tid, __u64 ts)
{
	leave(p, P_SEMW, tid, ts, 0);
}

/* The last thread counts itself in at ts and posts n times to sem from
 * ts + 20, each post taking 2 ns (the last returns at ts + 19 + 2n). */
static void sb_last_on(struct phases *p, __u64 sem, __u32 tid, __u64 ts, int n)
{
	int k;

	count_in(p, tid, ts);
	for (k = 0; k < n; k++) {
		enter(p, P_POST, tid, ts + 20 + 2 * k, sem, SITE_B);
		leave(p, P_POST, tid, ts + 21 + 2 * k, 0);
	}
}

static void sb_last(struct phases *p, __u32 tid, __u64 ts, int n)
{
	sb_last_on(p, BAR_SEM, tid, ts, n);
}

/* One episode at base of threads 1..4: the others count in at base +
 * 100 * tid and wait; `last` counts in at base + 500 and posts 3 times
 * (returns at base + 525); the waiters return at base + 600 + 10 * tid. */
static void sb_episode_on(struct phases *p, __u64 sem, __u64 base, __u32 last)
{
	__u32 tid;

	for (tid = 1; tid <= 4; tid++)
		if (tid != last)
			sb_wait_in_on(p, sem, tid, base + 100 * tid);
	sb_last_on(p, sem, last, base + 500, 3);
	for (tid = 1; tid <= 4; tid++)
		if (tid != last)
			sb_wait_out(p, tid, base + 600 + 10 * tid);
}

static void sb_episode(struct phases *p, __u64 base, __u32 last)
{
	sb_episode_on(p, BAR_SEM, base, last);
}

/* A pthread barrier of threads 1 and 2 at ts, to see whether records are
 * held: its episode comes out at once unless they are. */
static void pbw_episode(struct phases *p, __u64 ts)
{
	enter(p, P_PBW, 1, ts, OBJ_X, SITE_A);
	enter(p, P_PBW, 2, ts + 10, OBJ_X, SITE_A);
	leave(p, P_PBW, 2, ts + 20, -1);
	leave(p, P_PBW, 1, ts + 30, 0);
}

/*
 * Four episodes, the last thread 4, 4, 3, 2: the first group is not
 * judged (it could miss earlier waiters), the second and third have one
 * team and two posters: a barrier once the fourth burst closes the third.
 * Every episode is a barrier episode, the first ones too: arrivals at the
 * waits and at the last thread's first post, departures at the waits'
 * returns and at its last post's.
 */
TEST(textbook_barrier_is_recognized_from_its_first_episode)
{
	struct collected c;
	struct phases *p = new_phases(&c);
	const struct ph_arrival *a;

	sb_episode(p, 10000, 4);
	sb_episode(p, 20000, 4);
	sb_episode(p, 30000, 3);
	CHECK_EQ(c.n, 0); /* held: undecided */
	sb_episode(p, 40000, 2);
	phases__finish(p);
	CHECK_EQ(c.n, 4);
	CHECK_EQ(c.ep[0].object, BAR_SEM);
	CHECK_EQ(c.ep[0].n, 4);
	CHECK_EQ(c.ep[0].first_arrive, 10110);
	CHECK_EQ(c.ep[0].last_arrive, 10520); /* the first post */
	a = arrival_of(&c.ep[0], 4);
	CHECK_EQ(a->arrive_ns, 10520);
	CHECK_EQ(a->depart_ns, 10525); /* the last post's return */
	a = arrival_of(&c.ep[0], 1);
	CHECK_EQ(a->depart_ns, 10610);
	CHECK_EQ(ph_wait_ns(a), 10610 - 10110);
	a = arrival_of(&c.ep[1], 4);
	CHECK_EQ(a->start_ns, 10525);
	CHECK_EQ(ph_compute_ns(a), 20520 - 10525);
	CHECK_EQ(arrival_of(&c.ep[2], 3)->arrive_ns, 30520);
	CHECK_EQ(arrival_of(&c.ep[3], 2)->depart_ns, 40525);
	CHECK_EQ(arrival_of(&c.ep[3], 3)->start_ns, 30525);
	CHECK_EQ(phases__nsites(p), 1);
	CHECK_EQ(phases__grouping_errors(p), 0);
	phases__free(p);
}

/* The preloaded turnstile: the last thread posts once for every thread
 * (4) and waits too, its wait returning at once. It leaves at its last
 * post's return; its own wait is no second arrival. */
TEST(preloaded_turnstile_is_a_barrier)
{
	struct collected c;
	struct phases *p = new_phases(&c);
	__u32 last[] = {4, 3, 2, 1};
	__u32 tid;
	int k;

	for (k = 0; k < 4; k++) {
		__u64 base = 10000 * (k + 1);

		for (tid = 1; tid <= 4; tid++)
			if (tid != last[k])
				sb_wait_in(p, tid, base + 100 * tid);
		sb_last(p, last[k], base + 500, 4);
		enter(p, P_SEMW, last[k], base + 530, BAR_SEM, SITE_A);
		leave(p, P_SEMW, last[k], base + 531, 0);
		for (tid = 1; tid <= 4; tid++)
			if (tid != last[k])
				sb_wait_out(p, tid, base + 600 + 10 * tid);
	}
	phases__finish(p);
	CHECK_EQ(c.n, 4);
	for (k = 0; k < 4; k++) {
		CHECK_EQ(c.ep[k].n, 4);
		CHECK_EQ(arrival_of(&c.ep[k], last[k])->arrive_ns, 10000 * (k + 1) + 520);
		CHECK_EQ(arrival_of(&c.ep[k], last[k])->depart_ns, 10000 * (k + 1) + 527);
	}
	phases__free(p);
}

/* Thread 1 counts itself in first but enters its wait only after the
 * last thread posted (and left): it is the same episode, its arrival just
 * before the first post, and the episode waits for it. */
TEST(waiter_entering_after_the_posts_joins_the_episode)
{
	struct collected c;
	struct phases *p = new_phases(&c);
	const struct ph_arrival *a;

	sb_episode(p, 10000, 4);
	sb_episode(p, 20000, 3);
	count_in(p, 1, 30100);
	sb_wait_in(p, 2, 30200);
	sb_wait_in(p, 4, 30400);
	sb_last(p, 3, 30500, 3);
	enter(p, P_SEMW, 1, 30530, BAR_SEM, SITE_A); /* a post is left for it */
	leave(p, P_SEMW, 1, 30531, 0);
	sb_wait_out(p, 2, 30620);
	sb_wait_out(p, 4, 30640);
	sb_episode(p, 40000, 2);
	phases__finish(p);
	CHECK_EQ(c.n, 4);
	CHECK_EQ(c.ep[2].n, 4);
	a = arrival_of(&c.ep[2], 1);
	CHECK_EQ(a->arrive_ns, 30519);
	CHECK_EQ(a->depart_ns, 30531);
	CHECK_EQ(c.ep[2].last_arrive, 30520); /* the last thread is still the last */
	CHECK_EQ(c.ep[3].n, 4);
	phases__free(p);
}

/*
 * Attached while thread 1 waited: the first group misses it (its wait's
 * entry was before the session), and is not judged. The next ones are
 * the whole team: a barrier, its first episode without thread 1.
 */
TEST(first_group_missing_an_earlier_waiter)
{
	struct collected c;
	struct phases *p = new_phases(&c);

	sb_wait_in(p, 2, 10200);
	sb_wait_in(p, 3, 10300);
	sb_last(p, 4, 10500, 3);
	leave(p, P_SEMW, 1, 10610, 0); /* entered before the session */
	sb_wait_out(p, 2, 10620);
	sb_wait_out(p, 3, 10630);
	sb_episode(p, 20000, 4);
	sb_episode(p, 30000, 3);
	sb_episode(p, 40000, 2);
	phases__finish(p);
	CHECK_EQ(c.n, 4);
	CHECK_EQ(c.ep[0].n, 3);
	CHECK_EQ(c.ep[1].n, 4);
	CHECK_EQ(c.ep[3].n, 4);
	phases__free(p);
}

/* A semaphore as a mutex (initially 1): its first wait passes with no
 * post seen. No barrier, decided there: records are not held. */
TEST(mutex_semaphore_is_no_barrier)
{
	struct collected c;
	struct phases *p = new_phases(&c);
	__u32 tid;
	int k;

	for (k = 0; k < 6; k++)
		for (tid = 1; tid <= 4; tid++)
			count_in(p, tid, 10000 + 1000 * k + 100 * tid);
	pbw_episode(p, 20000);
	CHECK_EQ(c.n, 1);
	CHECK_EQ(c.ep[0].object, OBJ_X);
	phases__finish(p);
	CHECK_EQ(c.n, 1);
	phases__free(p);
}

/* A producer releasing three idle consumers with a burst each time: the
 * same team, the same poster. No barrier, decided after eight groups
 * judged (the first is not, the tenth burst closes the ninth). */
TEST(same_poster_every_time_is_no_barrier)
{
	struct collected c;
	struct phases *p = new_phases(&c);
	int k;

	for (k = 0; k < 10; k++) {
		__u64 base = 10000 + 1000 * k;

		enter(p, P_SEMW, 1, base + 100, BAR_SEM, SITE_A);
		enter(p, P_SEMW, 2, base + 200, BAR_SEM, SITE_A);
		enter(p, P_SEMW, 3, base + 300, BAR_SEM, SITE_A);
		sb_last(p, 4, base + 500, 3);
		sb_wait_out(p, 1, base + 610);
		sb_wait_out(p, 2, base + 620);
		sb_wait_out(p, 3, base + 630);
	}
	pbw_episode(p, 30000);
	CHECK_EQ(c.n, 1);
	CHECK_EQ(c.ep[0].object, OBJ_X);
	phases__free(p);
}

/* A queue: the producers (changing) post faster than the three consumers
 * take: posts are left when the next burst comes. No barrier. */
TEST(queue_with_posts_left_is_no_barrier)
{
	struct collected c;
	struct phases *p = new_phases(&c);
	int k;

	for (k = 0; k < 4; k++) {
		__u64 base = 10000 + 1000 * k;

		enter(p, P_SEMW, 1, base + 100, BAR_SEM, SITE_A);
		enter(p, P_SEMW, 2, base + 200, BAR_SEM, SITE_A);
		enter(p, P_SEMW, 3, base + 300, BAR_SEM, SITE_A);
		sb_last(p, 4 + k % 2, base + 500, 4); /* one more than waits */
		sb_wait_out(p, 1, base + 610);
		sb_wait_out(p, 2, base + 620);
		sb_wait_out(p, 3, base + 630);
	}
	pbw_episode(p, 20000);
	CHECK_EQ(c.n, 1);
	phases__finish(p);
	CHECK_EQ(c.n, 1);
	phases__free(p);
}

/* Two threads handing a token back and forth: no barrier (two threads are
 * not told from a hand-off). */
TEST(two_thread_hand_off_is_no_barrier)
{
	struct collected c;
	struct phases *p = new_phases(&c);
	int k;

	for (k = 0; k < 6; k++) {
		__u64 base = 10000 + 1000 * k;
		__u32 w = 1 + k % 2;

		enter(p, P_SEMW, w, base, BAR_SEM, SITE_A);
		sb_last(p, 3 - w, base + 500, 1);
		sb_wait_out(p, w, base + 600);
	}
	pbw_episode(p, 20000);
	CHECK_EQ(c.n, 1);
	phases__finish(p);
	CHECK_EQ(c.n, 1);
	phases__free(p);
}

/* Threads polling a semaphore with sem_trywait (failing) while another
 * posts now and then: never a candidate, records flow at once. */
TEST(trywait_polling_holds_nothing)
{
	struct collected c;
	struct phases *p = new_phases(&c);
	__u32 tid;
	int k;

	for (k = 0; k < 2; k++) {
		for (tid = 1; tid <= 3; tid++) {
			enter(p, P_SEMTRY, tid, 10000 + 1000 * k + 10 * tid, BAR_SEM, SITE_A);
			leave(p, P_SEMTRY, tid, 10001 + 1000 * k + 10 * tid, (__u64)-1);
		}
		sb_last(p, 4, 10500 + 1000 * k, 1);
	}
	pbw_episode(p, 20000);
	CHECK_EQ(c.n, 1);
	CHECK_EQ(c.ep[0].object, OBJ_X);
	phases__free(p);
}

/* A first group (no team known yet) of threads 1..4 whose waiter 1 counted
 * itself in before the last thread (4) but enters its wait at `late`, after
 * the posts (returning at once), the others leaving at 10620 and 10630;
 * then three textbook episodes. */
static void first_group_late_waiter(struct phases *p, __u64 late)
{
	count_in(p, 1, 10100);
	sb_wait_in(p, 2, 10200);
	sb_wait_in(p, 3, 10300);
	sb_last(p, 4, 10500, 3);
	if (late < 10620) {
		enter(p, P_SEMW, 1, late, BAR_SEM, SITE_A);
		leave(p, P_SEMW, 1, late + 1, 0);
	}
	sb_wait_out(p, 2, 10620);
	sb_wait_out(p, 3, 10630);
	if (late >= 10620) {
		enter(p, P_SEMW, 1, late, BAR_SEM, SITE_A);
		leave(p, P_SEMW, 1, late + 1, 0);
	}
	sb_episode(p, 20000, 3);
	sb_episode(p, 30000, 2);
	sb_episode(p, 40000, 1);
	phases__finish(p);
}

/* In the first group too, a waiter that enters its wait after the posts,
 * not back from any wait since, is of the group. */
TEST(late_waiter_in_the_first_group)
{
	struct collected c;
	struct phases *p = new_phases(&c);

	first_group_late_waiter(p, 10530);
	CHECK_EQ(c.n, 4);
	CHECK_EQ(c.ep[0].n, 4);
	CHECK_EQ(arrival_of(&c.ep[0], 1)->arrive_ns, 10519);
	phases__free(p);
}

/*
 * Two semaphores taking turns (the textbook barrier's alternating pair),
 * the scheduler keeping thread 4 last at every episode of the first: its
 * posters differ from the second's, which rotate (4, 4, 2, 2). Both are
 * barriers; the first is decided even though the second's rotation shows
 * only in the group the end of the trace closes.
 */
TEST(alternating_semaphores_share_their_rotation)
{
	static const __u32 last_b[] = {4, 4, 2, 2};
	struct collected c;
	struct phases *p = new_phases(&c);
	int k, i;

	for (k = 0; k < 4; k++) {
		sb_episode_on(p, BAR_SEM, 10000 + 20000 * k, 4);
		sb_episode_on(p, BAR_SEM2, 20000 + 20000 * k, last_b[k]);
	}
	phases__finish(p);
	CHECK_EQ(c.n, 8);
	for (i = 0; i < c.n; i++) {
		CHECK_EQ(c.ep[i].object, i % 2 ? BAR_SEM2 : BAR_SEM);
		CHECK_EQ(c.ep[i].n, 4);
	}
	phases__free(p);
}

/* The first group again, its late waiter entering its wait only after the
 * others left the barrier: the episode waits for the arrivals its untaken
 * post promises. One episode of four. */
TEST(late_waiter_after_the_first_group_left)
{
	struct collected c;
	struct phases *p = new_phases(&c);

	first_group_late_waiter(p, 10700);
	CHECK_EQ(c.n, 4);
	CHECK_EQ(c.ep[0].n, 4);
	CHECK_EQ(arrival_of(&c.ep[0], 1)->arrive_ns, 10519);
	CHECK_EQ(arrival_of(&c.ep[0], 1)->depart_ns, 10701);
	CHECK_EQ(c.ep[1].n, 4);
	phases__free(p);
}

/* The first group, its waiters leaving between the posts of the burst (each
 * post wakes one at once): the episode still waits while the poster may post
 * again, and for the waiter its last post is for (1, entering after the
 * burst). One episode of four. */
TEST(first_group_waiters_leaving_during_the_burst)
{
	struct collected c;
	struct phases *p = new_phases(&c);

	count_in(p, 1, 10100);
	sb_wait_in(p, 2, 10200);
	sb_wait_in(p, 3, 10300);
	count_in(p, 4, 10500);
	enter(p, P_POST, 4, 10520, BAR_SEM, SITE_B);
	leave(p, P_POST, 4, 10521, 0);
	sb_wait_out(p, 2, 10522);
	enter(p, P_POST, 4, 10524, BAR_SEM, SITE_B);
	leave(p, P_POST, 4, 10525, 0);
	sb_wait_out(p, 3, 10526);
	enter(p, P_POST, 4, 10528, BAR_SEM, SITE_B);
	leave(p, P_POST, 4, 10529, 0);
	count_in(p, 4, 10540); /* the poster's burst is over */
	enter(p, P_SEMW, 1, 10550, BAR_SEM, SITE_A);
	leave(p, P_SEMW, 1, 10551, 0);
	sb_episode(p, 20000, 3);
	sb_episode(p, 30000, 2);
	sb_episode(p, 40000, 1);
	phases__finish(p);
	CHECK_EQ(c.n, 4);
	CHECK_EQ(c.ep[0].n, 4);
	CHECK_EQ(arrival_of(&c.ep[0], 4)->depart_ns, 10529);
	CHECK_EQ(arrival_of(&c.ep[0], 1)->depart_ns, 10551);
	CHECK_EQ(c.ep[1].n, 4);
	phases__free(p);
}

/*
 * An episode at base whose waiter 1 counts itself in first but is
 * preempted before its wait, which it enters in the middle of the burst of
 * the last thread (4): after the posts for the threads already waiting (2,
 * 3), before its own. at_once: its wait takes one of those posts and
 * returns before the last post (the kernel gives a post to whoever comes
 * first); else it blocks, the others' posts taken first, until the last
 * post. Seen beside a CPU hog.
 */
static void mid_burst_waiter(struct phases *p, __u64 base, int at_once)
{
	count_in(p, 1, base + 100);
	sb_wait_in(p, 2, base + 200);
	sb_wait_in(p, 3, base + 300);
	count_in(p, 4, base + 500);
	enter(p, P_POST, 4, base + 520, BAR_SEM, SITE_B);
	leave(p, P_POST, 4, base + 521, 0);
	if (!at_once)
		sb_wait_out(p, 2, base + 522); /* no post left now */
	enter(p, P_POST, 4, base + 523, BAR_SEM, SITE_B);
	enter(p, P_SEMW, 1, base + 524, BAR_SEM, SITE_A);
	if (at_once)
		sb_wait_out(p, 1, base + 525); /* no post left now */
	leave(p, P_POST, 4, base + 526, 0);
	sb_wait_out(p, at_once ? 2 : 3, base + 527);
	enter(p, P_POST, 4, base + 528, BAR_SEM, SITE_B);
	leave(p, P_POST, 4, base + 529, 0);
	sb_wait_out(p, at_once ? 3 : 1, base + 530);
}

/* Whether exactly n episodes were collected, each with threads 1..4
 * (checked): their arrivals may be looked at. */
static int whole_team_episodes(const struct collected *c, int n)
{
	int k, whole = c->n == n;
	__u32 tid;

	CHECK_EQ(c->n, n);
	for (k = 0; k < c->n && k < n; k++)
		for (tid = 1; tid <= 4; tid++)
			whole &= arrival_of(&c->ep[k], tid) != NULL;
	CHECK(whole);
	return whole;
}

/* Episodes 1, 2, 4 textbook (last 4, 3, 1), the third one's waiter in the
 * middle of the burst: four episodes of the whole team, the late waiter's
 * arrival just before the burst, the burst one episode. */
static void check_mid_burst_waiter(int at_once)
{
	struct collected c;
	struct phases *p = new_phases(&c);
	const struct ph_arrival *a;

	sb_episode(p, 10000, 4);
	sb_episode(p, 20000, 3);
	mid_burst_waiter(p, 30000, at_once);
	sb_episode(p, 40000, 1);
	phases__finish(p);
	if (!whole_team_episodes(&c, 4)) {
		phases__free(p);
		return;
	}
	CHECK_EQ(c.ep[2].last_arrive, 30520);
	a = arrival_of(&c.ep[2], 1);
	CHECK_EQ(a->arrive_ns, 30519);
	CHECK_EQ(a->depart_ns, at_once ? 30525 : 30530);
	CHECK_EQ(arrival_of(&c.ep[2], 4)->depart_ns, 30529);
	CHECK_EQ(arrival_of(&c.ep[2], 2)->depart_ns, at_once ? 30527 : 30522);
	CHECK_EQ(arrival_of(&c.ep[2], 3)->depart_ns, at_once ? 30530 : 30527);
	CHECK_EQ(arrival_of(&c.ep[3], 1)->start_ns, at_once ? 30525 : 30530);
	CHECK_EQ(phases__nsites(p), 1);
	CHECK_EQ(phases__grouping_errors(p), 0);
	phases__free(p);
}

/* Its wait took a post meant for another and returned at once: was
 * counted as a wait of the next group with no post for it (the semaphore
 * ruled out: 5 phases of 9 in the e2e test). */
TEST(waiter_in_the_middle_of_the_burst_returning_at_once)
{
	check_mid_burst_waiter(1);
}

/* It blocked until the last post: was counted as waiting for the next
 * group, so the last post began one, and the group closed without it (the
 * semaphore ruled out; once decided, a tenth phase in the e2e test). */
TEST(waiter_in_the_middle_of_the_burst_blocking)
{
	check_mid_burst_waiter(0);
}

#define LATE(tid) (1u << (tid))
#define ALL_LATE  (LATE(1) | LATE(2) | LATE(3) | LATE(4))

/* An episode at base of threads 1..4, the last one `last` posting three
 * times from base + 520: the waiters whose bit is set in `late` count
 * themselves in at base + 100 * tid, are preempted, and enter their waits
 * only after the burst, at base + 540 + 10 * tid (a post is left for each:
 * they return at once); the others wait from base + 100 * tid + 10 and
 * return at base + 600 + 10 * tid. */
static void late_waiters_episode(struct phases *p, __u64 base, __u32 last, unsigned int late)
{
	__u32 tid;

	for (tid = 1; tid <= 4; tid++)
		if (tid != last && (late & LATE(tid)))
			count_in(p, tid, base + 100 * tid);
		else if (tid != last)
			sb_wait_in(p, tid, base + 100 * tid);
	sb_last(p, last, base + 500, 3);
	for (tid = 1; tid <= 4; tid++) {
		if (tid == last)
			continue;
		if (late & LATE(tid)) {
			enter(p, P_SEMW, tid, base + 540 + 10 * tid, BAR_SEM, SITE_A);
			leave(p, P_SEMW, tid, base + 541 + 10 * tid, 0);
		} else {
			sb_wait_out(p, tid, base + 600 + 10 * tid);
		}
	}
}

/*
 * Two of the three waiters of the second episode (the first judged)
 * reach their waits after the burst, preempted on the way: it still fits
 * a barrier's release, one waiter having been held back (while most
 * waiters had to be, the semaphore was ruled out: 5 phases of 9 in the e2e
 * test, in both shapes).
 */
TEST(most_waiters_after_the_burst)
{
	struct collected c;
	struct phases *p = new_phases(&c);
	const struct ph_arrival *a;

	sb_episode(p, 10000, 4);
	late_waiters_episode(p, 20000, 3, LATE(1) | LATE(2));
	sb_episode(p, 30000, 2);
	sb_episode(p, 40000, 1);
	phases__finish(p);
	if (!whole_team_episodes(&c, 4)) {
		phases__free(p);
		return;
	}
	CHECK_EQ(c.ep[1].last_arrive, 20520);
	a = arrival_of(&c.ep[1], 1);
	CHECK_EQ(a->arrive_ns, 20519);
	CHECK_EQ(a->depart_ns, 20551);
	a = arrival_of(&c.ep[1], 2);
	CHECK_EQ(a->arrive_ns, 20519);
	CHECK_EQ(a->depart_ns, 20561);
	CHECK_EQ(arrival_of(&c.ep[1], 4)->depart_ns, 20640);
	CHECK_EQ(arrival_of(&c.ep[1], 3)->depart_ns, 20525);
	phases__free(p);
}

/* Five episodes (last 4, 3, `third`, 1, 2), every waiter of the third
 * late: the classifier passes that group over, the second and fourth make
 * the barrier; every episode is the whole team, the late arrivals just
 * before the burst. */
static void check_all_waiters_late(__u32 third)
{
	struct collected c;
	struct phases *p = new_phases(&c);
	__u32 tid;

	sb_episode(p, 10000, 4);
	sb_episode(p, 20000, 3);
	late_waiters_episode(p, 30000, third, ALL_LATE);
	sb_episode(p, 40000, 1);
	sb_episode(p, 50000, 2);
	phases__finish(p);
	if (!whole_team_episodes(&c, 5)) {
		phases__free(p);
		return;
	}
	for (tid = 1; tid <= 4; tid++) {
		const struct ph_arrival *a = arrival_of(&c.ep[2], tid);

		CHECK_EQ(a->arrive_ns, tid == third ? 30520 : 30519);
		CHECK_EQ(a->depart_ns, tid == third ? 30525 : 30541 + 10 * tid);
	}
	CHECK_EQ(phases__grouping_errors(p), 0);
	phases__free(p);
}

TEST(every_waiter_after_the_burst_is_passed_over)
{
	check_all_waiters_late(2);
}

/* The same, posted by the last thread of the group before: its burst
 * ended at its calls on the counter's semaphore, so these posts, with
 * nobody waiting yet, begin a group of their own. */
TEST(every_waiter_after_the_burst_of_the_same_poster)
{
	check_all_waiters_late(3);
}

/* Bursts whose takers all come after the posts, every time, the poster
 * changing: nothing is ever held back (a pool, or a barrier whose waiters
 * are always late, which cannot be told from it). No barrier, decided when
 * eight groups in a row were passed over: records are not held to the end. */
TEST(never_holding_a_thread_back_is_no_barrier)
{
	struct collected c;
	struct phases *p = new_phases(&c);
	int k;

	for (k = 0; k < 10; k++)
		late_waiters_episode(p, 10000 + 1000 * k, 1 + k % 4, ALL_LATE);
	pbw_episode(p, 30000);
	CHECK_EQ(c.n, 1);
	CHECK_EQ(c.ep[0].object, OBJ_X);
	phases__finish(p);
	CHECK_EQ(c.n, 1);
	phases__free(p);
}
