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

struct it_site {
	int seen;
	__u64 order;			   /* how many sites its process had before it */
	__u64 entries, episodes;	   /* returns to it, and episodes at it */
	__u64 entry_start[2], ep_start[2]; /* the latest of each, per view */
	struct it_stats entry[2], every[2];
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

/* One more boundary at start[]: the time since the previous one is an iteration's. */
static void boundary(__u64 *count, __u64 prev[2], struct it_stats st[2], const __u64 start[2])
{
	int v;

	for (v = 0; v < 2; v++) {
		if (*count)
			it_stats__add(&st[v], start[v] > prev[v] ? start[v] - prev[v] : 0);
		prev[v] = start[v];
	}
	(*count)++;
}

void iterations__episode(struct iterations *it, __u32 pid, __u32 site, const __u64 start[2])
{
	struct it_proc *p = proc_of(it, pid);
	struct it_site *s = p ? site_of(it, p, site) : NULL;

	if (!s)
		return;
	if (!period__feed(&p->det, site))
		boundary(&s->entries, s->entry_start, s->entry, start);
	boundary(&s->episodes, s->ep_start, s->every, start);
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
	const struct it_site *s;
	const __u32 *pat;
	int v;

	memset(o, 0, sizeof(*o));
	o->pid = p->pid;
	o->len = period__get(&p->det, &pat);
	if (!o->len || !(s = rotate(it, p, pat, o)))
		return -1;
	o->count = o->len == 1 ? s->episodes : s->entries;
	for (v = 0; v < 2; v++)
		it_stats__summary(o->len == 1 ? &s->every[v] : &s->entry[v], &o->time[v]);
	return 0;
}
