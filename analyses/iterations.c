// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Outer iterations per process (doc/design.md §5.6). The period is known
 * only at the end, so every site keeps the iterations it would begin: each
 * return to it from another site (an iteration of a period of one site is
 * each of its episodes), timed from phase start to phase start. The period's
 * first site is the one of its sites seen first: the loop's entry.
 */
#include <stdlib.h>
#include <string.h>
#include "lib/array.h"
#include "lib/hmap.h"
#include "analyses/iterations.h"

/* Iterations by team size, made once a site's iterations had two sizes
 * (most programs keep one: no memory for them). */
struct it_teams {
	int n;
	struct it_team {
		__u32 threads;
		struct it_stats st[2];
	} t[IT_TEAMS];
};

/* One way a site counts iterations: its returns (entry) or its episodes
 * (every): the iterations' times, the team of the one open and whether its
 * start is known, the first team timed, and by team once two were. */
struct it_count {
	__u64 n;
	__u64 start[2]; /* the latest boundary, per view */
	struct it_stats st[2];
	__u32 open_team, first_team;
	int open_known;
	struct it_teams *teams;
};

struct it_site {
	int seen;
	__u64 order; /* how many sites its process had before it */
	struct it_count entry, every;
};

struct it_proc {
	__u32 pid;
	__u64 nsites;
	struct period det;
};

/* Sites are phases__site() ids, dense, each of one process: an array. The
 * first process is found without the map (a report has one, mostly). */
struct iterations {
	struct hmap procs; /* (pid, 0) -> it_proc, from the second process on */
	struct it_proc **list;
	size_t n, cap;
	struct it_site *sites;
	size_t nsites, cap_sites;
};

struct iterations *iterations__new(void)
{
	struct iterations *it = calloc(1, sizeof(*it));

	if (it)
		hmap_init(&it->procs);
	return it;
}

void iterations__free(struct iterations *it)
{
	size_t i;

	if (!it)
		return;
	for (i = 0; i < it->n; i++) {
		period__free(&it->list[i]->det);
		free(it->list[i]);
	}
	for (i = 0; i < it->nsites; i++) {
		free(it->sites[i].entry.teams);
		free(it->sites[i].every.teams);
	}
	free(it->list);
	free(it->sites);
	hmap_free(&it->procs);
	free(it);
}

static struct it_proc *new_proc(struct iterations *it, __u32 pid)
{
	struct it_proc *p;

	if (array_reserve((void **)&it->list, &it->cap, it->n + 1, sizeof(*it->list)) ||
	    !(p = calloc(1, sizeof(*p))))
		return NULL;
	if (it->n && hmap_put(&it->procs, pid, 0, p)) {
		free(p);
		return NULL;
	}
	p->pid = pid;
	period__init(&p->det);
	it->list[it->n++] = p;
	return p;
}

static struct it_proc *proc_of(struct iterations *it, __u32 pid)
{
	struct it_proc *p;

	if (it->n && it->list[0]->pid == pid)
		return it->list[0];
	if (it->n > 1 && (p = hmap_get(&it->procs, pid, 0)))
		return p;
	return new_proc(it, pid);
}

static struct it_site *site_of(struct iterations *it, struct it_proc *p, __u32 site)
{
	struct it_site *s;

	if (site >= it->nsites) {
		if (array_reserve((void **)&it->sites, &it->cap_sites, (size_t)site + 1,
				  sizeof(*it->sites)))
			return NULL;
		memset(it->sites + it->nsites, 0, (site + 1 - it->nsites) * sizeof(*s));
		it->nsites = (size_t)site + 1;
	}
	s = &it->sites[site];
	if (!s->seen) {
		s->seen = 1;
		s->order = p->nsites++;
	}
	return s;
}

/* The statistics of team size threads in c, made when a second size
 * shows (the first's are every iteration's so far); NULL past IT_TEAMS
 * sizes, or out of memory. */
static struct it_stats *team_stats(struct it_count *c, __u32 threads)
{
	struct it_teams *ts = c->teams;
	int i;

	if (!ts && threads == c->first_team)
		return NULL; /* one size so far: the totals are its */
	if (!ts) {
		ts = c->teams = calloc(1, sizeof(*ts));
		if (!ts)
			return NULL;
		ts->t[0].threads = c->first_team;
		memcpy(ts->t[0].st, c->st, sizeof(c->st));
		ts->n = 1;
	}
	for (i = 0; i < ts->n; i++)
		if (ts->t[i].threads == threads)
			return ts->t[i].st;
	if (ts->n == IT_TEAMS)
		return NULL;
	ts->t[ts->n].threads = threads;
	return ts->t[ts->n++].st;
}

/* One more boundary at start[], of an iteration on team threads (known:
 * its start is, the episode was seen whole): the time since the previous
 * one is the iteration's that began there, if that one's start was known
 * (an episode begun before the session, attached to, has a bound only, and
 * of the threads seen). */
static void boundary(struct it_count *c, const __u64 start[2], __u32 threads, int known)
{
	struct it_stats *by_team;
	int v;

	if (c->n && c->open_known) {
		if (!c->first_team) /* a team has a thread or more */
			c->first_team = c->open_team;
		by_team = team_stats(c, c->open_team);
		for (v = 0; v < 2; v++) {
			__u64 dt = start[v] > c->start[v] ? start[v] - c->start[v] : 0;

			it_stats__add(&c->st[v], dt);
			if (by_team)
				it_stats__add(&by_team[v], dt);
		}
	}
	for (v = 0; v < 2; v++)
		c->start[v] = start[v];
	c->open_team = threads;
	c->open_known = known;
	c->n++;
}

void iterations__episode(struct iterations *it, __u32 pid, __u32 site, const __u64 start[2],
			 __u32 team, int partial)
{
	struct it_proc *p = proc_of(it, pid);
	struct it_site *s = p ? site_of(it, p, site) : NULL;

	if (!s)
		return;
	if (!period__feed(&p->det, site))
		boundary(&s->entry, start, team, !partial);
	boundary(&s->every, start, team, !partial);
}

size_t iterations__nprocs(const struct iterations *it)
{
	return it->n;
}

/* The period's sites in *o, from the one seen first; returns that site. */
static const struct it_site *rotate(const struct iterations *it, const struct it_proc *p,
				    const __u32 *pat, struct it_result *o)
{
	const struct it_site *first = NULL, *s;
	__u32 i, lo = 0;

	for (i = 0; i < o->len; i++) {
		s = pat[i] < it->nsites ? &it->sites[pat[i]] : NULL;
		if (s && (!first || s->order < first->order)) {
			first = s;
			lo = i;
		}
	}
	for (i = 0; i < o->len; i++)
		o->sites[i] = pat[(lo + i) % o->len];
	return first;
}

int iterations__result(const struct iterations *it, size_t i, struct it_result *o)
{
	const struct it_proc *p = it->list[i];
	const struct it_count *c;
	const struct it_site *s;
	const __u32 *pat;
	int v, k;

	memset(o, 0, sizeof(*o));
	o->pid = p->pid;
	o->len = period__get(&p->det, &pat);
	if (!o->len || !(s = rotate(it, p, pat, o)))
		return -1;
	c = o->len == 1 ? &s->every : &s->entry;
	o->count = c->n;
	for (v = 0; v < 2; v++)
		it_stats__summary(&c->st[v], &o->time[v]);
	for (k = 0; c->teams && k < c->teams->n; k++) {
		o->teams[k].threads = c->teams->t[k].threads;
		for (v = 0; v < 2; v++)
			it_stats__summary(&c->teams->t[k].st[v], &o->teams[k].time[v]);
	}
	o->nteams = c->teams ? (__u32)c->teams->n : 0;
	return 0;
}
