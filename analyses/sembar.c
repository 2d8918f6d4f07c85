// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Semaphore barriers recognized from their release groups
 * (analyses/sembar.h, analyses/semgroups.h, doc/design.md §5.1). The first
 * group of a semaphore is not judged: threads may have been waiting since
 * before the session. Each later group either fits a barrier's release or
 * rules the semaphore out; two fitting in a row, each releasing a thread
 * held back, with one team and two posters make it a barrier (one whose
 * waiters all came after the burst is passed over). The posters may also
 * differ between two semaphores of one process releasing the same team (a
 * barrier whose semaphores take turns): a thread kept last by the
 * scheduler for a few episodes of one of them does not hide it.
 */
#include <stdlib.h>
#include <string.h>
#include "analyses/sembar.h"
#include "analyses/semgroups.h"
#include "lib/hmap.h"

enum sb_state { SB_UNSEEN, SB_PENDING, SB_BARRIER, SB_NOT };

/* Consecutive groups of one team and one poster before a semaphore is
 * ruled out: a producer releasing idle consumers. */
#define SAME_POSTER_MAX 8

/* A barrier of fewer threads is not told from a mutex or a hand-off. */
#define TEAM_MIN 3

/* Consecutive fitting groups that held no thread back before a semaphore
 * is ruled out: a pool whose takers never wait for its posts. */
#define UNHELD_MAX 8

/* The runs of one team in one process looked at for a partner: the latest
 * ones begun. A barrier's semaphores are two or three; a bound keeps a
 * process of many semaphores releasing one team from costing each group
 * a walk of all of them (doc/design.md §5.1, Bounds). */
#define RUNS_PER_TEAM 64

struct sb_sem {
	__u32 pid;
	__u64 addr;
	int state;
	int groups;   /* consecutive fitting groups with the same team */
	int rotated;  /* two of them had different posters */
	int unheld;   /* consecutive fitting groups that held no thread back */
	__u32 poster; /* the first one's */
	__u32 *team;
	__u32 nteam;
	struct sb_sem *next_pending; /* sembar.pending */
};

/* The latest runs begun with one team in one process (a ring). */
struct sb_team_runs {
	struct sb_sem *run[RUNS_PER_TEAM];
	unsigned n, next;
};

struct sembar {
	const struct sbt_probe_info *probes;
	int nprobes;
	struct semgroups *groups;
	struct hmap sems;  /* (pid, semaphore) -> struct sb_sem */
	struct hmap teams; /* (pid, hash of a team) -> struct sb_team_runs */
	int npending;
	/* every semaphore made pending since the last decision (some decided
	 * since): what sembar__decide_pending() looks at. Pending once. */
	struct sb_sem *pending, **pending_tail;
	int finishing; /* the groups judged are cut by the end of the trace */
};

static struct sb_sem *sem_of(struct sembar *sb, __u32 pid, __u64 sem)
{
	struct sb_sem *s = hmap_get(&sb->sems, pid, sem);

	if (s || !(s = hmap_put_new(&sb->sems, pid, sem, sizeof(*s))))
		return s;
	s->pid = pid;
	s->addr = sem;
	return s;
}

static void set_state(struct sembar *sb, struct sb_sem *s, int state)
{
	sb->npending += (state == SB_PENDING) - (s->state == SB_PENDING);
	if (state == SB_PENDING && s->state == SB_UNSEEN) {
		*sb->pending_tail = s;
		sb->pending_tail = &s->next_pending;
	}
	s->state = state;
}

/* Ruled out; a decision is final. */
static void rule_out(struct sembar *sb, struct sb_sem *s)
{
	if (s->state != SB_BARRIER)
		set_state(sb, s, SB_NOT);
}

/* A group as a barrier's release makes it: three or more threads, every
 * post taken by a wait of the group and every wait by a post, each waiter
 * back from its wait. When its waiters entered their waits is no part of
 * it: a waiter preempted between counting itself in and its wait enters it
 * after the burst began, and beside a CPU hog two of three did. */
static int fits(const struct sg_group *g)
{
	return g->nteam >= TEAM_MIN && g->posts == g->taken && !g->unexplained && !g->still_waiting;
}

static int same_team(const struct sb_sem *s, const struct sg_group *g)
{
	return s->nteam == g->nteam && !memcmp(s->team, g->team, g->nteam * sizeof(*g->team));
}

/* FNV-1a of a team's (sorted) thread ids: the key of its runs. */
static __u64 team_hash(const __u32 *team, __u32 n)
{
	__u64 h = 0xcbf29ce484222325ULL;
	__u32 i;

	for (i = 0; i < n; i++) {
		h ^= team[i];
		h *= 0x100000001b3ULL;
	}
	return h ^ n;
}

/* The runs of s's team in process pid (NULL: no memory). */
static struct sb_team_runs *team_runs(struct sembar *sb, __u32 pid, const struct sb_sem *s)
{
	__u64 h = team_hash(s->team, s->nteam);
	struct sb_team_runs *r = hmap_get(&sb->teams, pid, h);

	return r ? r : hmap_put_new(&sb->teams, pid, h, sizeof(*r));
}

/* s begins a run with its team: one of the latest ones of that team. */
static void note_run(struct sembar *sb, __u32 pid, struct sb_sem *s)
{
	struct sb_team_runs *r = team_runs(sb, pid, s);

	if (!r)
		return;
	r->run[r->next] = s;
	r->next = (r->next + 1) % RUNS_PER_TEAM;
	if (r->n < RUNS_PER_TEAM)
		r->n++;
}

/* The first of a run of fitting groups. */
static void first_of_run(struct sb_sem *s, const struct sg_group *g)
{
	__u32 *team = malloc(g->nteam * sizeof(*team));

	s->groups = 0;
	if (!team)
		return;
	memcpy(team, g->team, g->nteam * sizeof(*team));
	free(s->team);
	s->team = team;
	s->nteam = g->nteam;
	s->groups = 1;
	s->poster = g->poster;
	s->rotated = 0;
}

/* Whether two runs release one team and show two posters between them. */
static int rotate_together(const struct sb_sem *a, const struct sb_sem *b)
{
	return a->nteam == b->nteam && !memcmp(a->team, b->team, a->nteam * sizeof(*a->team)) &&
	       (a->rotated || b->rotated || a->poster != b->poster);
}

/*
 * s's run has two or more fitting groups of one team: a barrier if the
 * poster changed in it, or if it rotates together with a partner (another
 * semaphore of the process with a fitting run), which is then made a
 * barrier too once its own run is as long.
 */
static void judge_run(struct sembar *sb, __u32 pid, struct sb_sem *s)
{
	struct sb_team_runs *r = team_runs(sb, pid, s);
	int barrier = s->rotated;
	unsigned i;

	for (i = 0; r && i < r->n; i++) {
		struct sb_sem *o = r->run[i];

		/* o may have begun another run since, or be here twice */
		if (o == s || o->state == SB_NOT || !o->groups || !rotate_together(s, o))
			continue;
		barrier = 1;
		if (o->groups >= 2)
			set_state(sb, o, SB_BARRIER);
	}
	if (barrier)
		set_state(sb, s, SB_BARRIER);
	else if (s->groups >= SAME_POSTER_MAX)
		rule_out(sb, s);
}

/*
 * A fitting group none of whose waiters waited when its burst began: a
 * barrier's whose waiters were all preempted on their way to the wait, or
 * a pool's whose takers never wait. It neither counts nor breaks the run,
 * unless its team does; too many in a row rule the semaphore out.
 */
static void pass_over(struct sembar *sb, struct sb_sem *s, const struct sg_group *g)
{
	if ((s->groups && !same_team(s, g)) || ++s->unheld >= UNHELD_MAX)
		rule_out(sb, s);
}

static void judge(void *ctx, __u32 pid, __u64 sem, const struct sg_group *g)
{
	struct sembar *sb = ctx;
	struct sb_sem *s = hmap_get(&sb->sems, pid, sem);

	if (!s || s->state == SB_BARRIER || s->state == SB_NOT || g->seq == 1)
		return;
	if (!fits(g)) {
		if (!sb->finishing)
			rule_out(sb, s);
		return;
	}
	/* a burst that released a thread held back shows what a barrier does */
	if (!g->waited_before) {
		pass_over(sb, s, g);
		return;
	}
	s->unheld = 0;
	if (!s->groups) {
		first_of_run(s, g);
		if (s->groups)
			note_run(sb, pid, s);
		return;
	}
	if (!same_team(s, g)) {
		rule_out(sb, s);
		return;
	}
	s->groups++;
	s->rotated |= g->poster != s->poster;
	judge_run(sb, pid, s);
}

struct sembar *sembar__new(const struct sbt_probe_info *probes, int nprobes)
{
	struct sembar *sb = calloc(1, sizeof(*sb));

	if (!sb)
		return NULL;
	sb->probes = probes;
	sb->nprobes = nprobes;
	sb->groups = semgroups__new(judge, sb);
	if (!sb->groups) {
		free(sb);
		return NULL;
	}
	hmap_init(&sb->sems);
	hmap_init(&sb->teams);
	sb->pending_tail = &sb->pending;
	return sb;
}

void sembar__free(struct sembar *sb)
{
	const struct hmap_slot *slot;
	size_t pos = 0;

	if (!sb)
		return;
	while ((slot = hmap_next(&sb->sems, &pos)))
		free(((struct sb_sem *)slot->val)->team);
	hmap_free_values(&sb->sems);
	hmap_free_values(&sb->teams);
	semgroups__free(sb->groups);
	free(sb);
}

void sembar__observe(struct sembar *sb, const struct sbt_event *e)
{
	struct sb_sem *s;
	struct sg_step st;
	int kind;

	if ((e->type != SBT_EV_ENTER && e->type != SBT_EV_EXIT) || e->probe >= sb->nprobes)
		return;
	kind = sb->probes[e->probe].kind;
	if (!sembar__is_sem_kind(kind))
		return;
	if (e->type == SBT_EV_EXIT) {
		semgroups__exit(sb->groups, e, kind, &st);
		/* a barrier's semaphore starts at 0: no wait passes before the
		 * last thread posts */
		if (st.unposted && (s = hmap_get(&sb->sems, e->pid, st.sem)))
			rule_out(sb, s);
		return;
	}
	/* a barrier's threads block in a wait; a trywait alone (polling)
	 * holds no records back */
	if (kind == SBT_PK_SEM_WAIT) {
		s = sem_of(sb, e->pid, e->obj);
		if (s && s->state == SB_UNSEEN)
			set_state(sb, s, SB_PENDING);
	}
	semgroups__enter(sb->groups, e, kind, e->obj, &st);
}

int sembar__pending(const struct sembar *sb)
{
	return sb->npending;
}

/* The semaphores still pending go to state (the list emptied). */
static void leave_pending(struct sembar *sb, int state)
{
	struct sb_sem *s, *next;

	for (s = sb->pending; s; s = next) {
		next = s->next_pending;
		s->next_pending = NULL;
		if (s->state == SB_PENDING)
			set_state(sb, s, state);
	}
	sb->pending = NULL;
	sb->pending_tail = &sb->pending;
}

/* The semaphores still pending: their groups so far judged as cut by the
 * end of the trace (only a pending one's judgement can change), then each
 * undecided ruled out. */
void sembar__decide_pending(struct sembar *sb)
{
	struct sb_sem *s;

	if (!sb->npending)
		return;
	sb->finishing = 1;
	for (s = sb->pending; s; s = s->next_pending)
		if (s->state == SB_PENDING)
			semgroups__close(sb->groups, s->pid, s->addr);
	sb->finishing = 0;
	leave_pending(sb, SB_NOT);
}

void sembar__defer_pending(struct sembar *sb)
{
	leave_pending(sb, SB_UNSEEN);
}

int sembar__is_barrier(const struct sembar *sb, __u32 pid, __u64 sem)
{
	const struct sb_sem *s = hmap_get(&sb->sems, pid, sem);

	return s && s->state == SB_BARRIER;
}
