// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Probe costs over a session's time (doc/design.md §5.4): calibrations by
 * entry, each entry's in time order, probe ids bound to entries. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analyses/alpha_series.h"
#include "lib/array.h"
#include "lib/num.h"

struct entry {
	char name[SBT_SYMBOL_MAX];
	int cls;
	/* the calibrations that measured it, in time order */
	__u64 *ts;
	struct alpha_cost *cost;
	size_t n, cap_ts, cap_cost;
	struct alpha_cost min, max;
	size_t last; /* 1 + the index of the calibration that measured it last */
};

struct alpha_series {
	__u64 *ts; /* every calibration's time, in order */
	size_t n, cap;
	struct entry entries[ALPHA_SERIES_MAX_ENTRIES];
	size_t nentries;
	int counters; /* the entry ALPHA_SYM_COUNTERS + 1, 0: none yet */
	/* probe id -> entry + 1 (0: not bound), and how */
	__u8 bound[SBT_MAX_PROBES];
	__u8 how[SBT_MAX_PROBES];
	__u64 generation; /* changes made: calibrations added, probes bound */
};

_Static_assert(ALPHA_SERIES_MAX_ENTRIES < 255, "entries fit bound[] with 0 meaning none");

struct alpha_series *alpha_series__new(void)
{
	return calloc(1, sizeof(struct alpha_series));
}

void alpha_series__free(struct alpha_series *s)
{
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->nentries; i++) {
		free(s->entries[i].ts);
		free(s->entries[i].cost);
	}
	free(s->ts);
	free(s);
}

int alpha_series__find(const struct alpha_series *s, const char *name)
{
	size_t i;

	if (!s)
		return -1; /* no calibration series: a trace of fixed costs */
	for (i = 0; i < s->nentries; i++)
		if (!strncmp(s->entries[i].name, name, SBT_SYMBOL_MAX - 1))
			return (int)i;
	return -1;
}

/* The entry named name, made if new: its index, or -1 when the series is full. */
static int entry_for(struct alpha_series *s, const char *name)
{
	int e = alpha_series__find(s, name);

	if (e >= 0)
		return e;
	if (s->nentries == ALPHA_SERIES_MAX_ENTRIES)
		return -1;
	e = (int)s->nentries++;
	snprintf(s->entries[e].name, sizeof(s->entries[e].name), "%s", name);
	s->entries[e].cls = -1;
	if (!strcmp(s->entries[e].name, ALPHA_SYM_COUNTERS))
		s->counters = e + 1;
	return e;
}

static int measured(struct entry *en, __u64 ts, const struct alpha_cost *c)
{
	if (array_reserve((void **)&en->ts, &en->cap_ts, en->n + 1, sizeof(*en->ts)) ||
	    array_reserve((void **)&en->cost, &en->cap_cost, en->n + 1, sizeof(*en->cost)))
		return -ENOMEM;
	if (!en->n) {
		en->min = en->max = *c;
	} else {
		en->min.entry_ns = c->entry_ns < en->min.entry_ns ? c->entry_ns : en->min.entry_ns;
		en->min.exit_ns = c->exit_ns < en->min.exit_ns ? c->exit_ns : en->min.exit_ns;
		en->max.entry_ns = c->entry_ns > en->max.entry_ns ? c->entry_ns : en->max.entry_ns;
		en->max.exit_ns = c->exit_ns > en->max.exit_ns ? c->exit_ns : en->max.exit_ns;
	}
	en->ts[en->n] = ts;
	en->cost[en->n++] = *c;
	return 0;
}

int alpha_series__add(struct alpha_series *s, __u64 ts, const char *const *names,
		      const struct alpha_cost *costs, const int *cls, size_t n)
{
	size_t i;
	int e;

	if (s->n && ts < s->ts[s->n - 1])
		return -EINVAL;
	if (array_reserve((void **)&s->ts, &s->cap, s->n + 1, sizeof(*s->ts)))
		return -ENOMEM;
	s->generation++;
	s->ts[s->n++] = ts;
	for (i = 0; i < n; i++) {
		e = entry_for(s, names[i]);
		if (e < 0)
			continue; /* the series is full: the fixed table's cost stays */
		if (cls)
			s->entries[e].cls = cls[i];
		/* an entry named twice in one calibration: the first counts */
		if (s->entries[e].last == s->n)
			continue;
		s->entries[e].last = s->n;
		if (measured(&s->entries[e], ts, &costs[i]))
			return -ENOMEM;
	}
	return 0;
}

int alpha_series__bind(struct alpha_series *s, unsigned int id, const char *name, int how)
{
	int e;

	if (id >= SBT_MAX_PROBES || how <= ALPHA_NONE || how >= ALPHA_NHOW)
		return -EINVAL;
	e = entry_for(s, name);
	if (e < 0)
		return -ENOSPC;
	s->bound[id] = (__u8)(e + 1);
	s->how[id] = (__u8)how;
	s->generation++;
	return 0;
}

__u64 alpha_series__generation(const struct alpha_series *s)
{
	return s ? s->generation : 0;
}

size_t alpha_series__count(const struct alpha_series *s)
{
	return s ? s->n : 0;
}

__u64 alpha_series__ts(const struct alpha_series *s, size_t k)
{
	return k < s->n ? s->ts[k] : 0;
}

size_t alpha_series__nentries(const struct alpha_series *s)
{
	return s ? s->nentries : 0;
}

struct alpha_entry_info alpha_series__entry(const struct alpha_series *s, size_t e)
{
	const struct entry *en = &s->entries[e];

	return (struct alpha_entry_info){.name = en->name,
					 .cls = en->cls,
					 .measured = en->n,
					 .min = en->min,
					 .max = en->max};
}

int alpha_series__entry_of(const struct alpha_series *s, unsigned int id, int *how)
{
	if (!s || id >= SBT_MAX_PROBES || !s->bound[id])
		return -1;
	if (how)
		*how = s->how[id];
	return s->bound[id] - 1;
}

int alpha_series__counters(const struct alpha_series *s)
{
	return s ? s->counters - 1 : -1;
}

/* The last index of ts[0..n) at or before t, or 0 when none is. */
static size_t at_or_before(const __u64 *ts, size_t n, __u64 t)
{
	size_t lo = 0, hi = n; /* the answer is the last i < hi with ts[i] <= t */

	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (ts[mid] <= t)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

int alpha_series__cost(const struct alpha_series *s, int e, __u64 ts, __u32 *hint,
		       struct alpha_cost *c)
{
	const struct entry *en;
	size_t h;

	if (!s || e < 0 || (size_t)e >= s->nentries || !s->entries[e].n)
		return 0;
	en = &s->entries[e];
	h = *hint < en->n ? *hint : 0;
	/* records come in time order: the answer is the hint's or the next */
	if (en->ts[h] <= ts && (h + 1 == en->n || ts < en->ts[h + 1]))
		;
	else if (h + 1 < en->n && en->ts[h + 1] <= ts && (h + 2 == en->n || ts < en->ts[h + 2]))
		h++;
	else
		h = at_or_before(en->ts, en->n, ts);
	*hint = (__u32)h;
	*c = en->cost[h];
	return 1;
}

/* A calibrated function, not a pseudo-entry ("[futex-tracepoints]"). */
static int is_function(const struct entry *en)
{
	return en->n && en->name[0] != '[';
}

static void widen(struct alpha_cost *lo, struct alpha_cost *hi, const struct entry *en)
{
	lo->entry_ns = en->min.entry_ns < lo->entry_ns ? en->min.entry_ns : lo->entry_ns;
	lo->exit_ns = en->min.exit_ns < lo->exit_ns ? en->min.exit_ns : lo->exit_ns;
	hi->entry_ns = en->max.entry_ns > hi->entry_ns ? en->max.entry_ns : hi->entry_ns;
	hi->exit_ns = en->max.exit_ns > hi->exit_ns ? en->max.exit_ns : hi->exit_ns;
}

void alpha_series__all_cpus(const struct alpha_series *s, double *least, double *greatest)
{
	int e = s ? alpha_series__find(s, ALPHA_SYM_ALL_CPUS) : -1;
	size_t k;

	*least = *greatest = 1;
	for (k = 0; e >= 0 && k < s->entries[e].n; k++) {
		const struct alpha_cost *c = &s->entries[e].cost[k];
		double r = c->exit_ns ? (double)c->entry_ns / (double)c->exit_ns : 1;

		*least = r < *least ? r : *least;
		*greatest = r > *greatest ? r : *greatest;
	}
}

double alpha_concurrency_factor(double ratio, unsigned int threads, double others)
{
	if (threads < 2 || !(others > 0))
		return 1;
	if (others > threads - 1)
		others = threads - 1;
	return 1 + (ratio - 1) * others / (threads - 1);
}

unsigned int alpha_series__all_cpus_threads(const struct alpha_series *s)
{
	int e = s ? alpha_series__find(s, ALPHA_SYM_ALL_CPUS) : -1;
	int cls = e >= 0 ? s->entries[e].cls : 0;

	/* an older trace's class, or a single CPU's: unknown */
	return cls >= ALPHA_ALL_CPUS_CLS + 2 ? (unsigned int)(cls - ALPHA_ALL_CPUS_CLS) : 0;
}

int alpha_series__range(const struct alpha_series *s, unsigned int id, struct alpha_cost *lo,
			struct alpha_cost *hi)
{
	int how, e = alpha_series__entry_of(s, id, &how);
	const struct entry *own;
	double least, greatest;
	size_t i;

	if (e < 0 || !s->entries[e].n)
		return 0;
	own = &s->entries[e];
	*lo = own->min;
	*hi = own->max;
	for (i = 0; i < s->nentries && (how == ALPHA_BY_CLASS || how == ALPHA_BY_FALLBACK); i++)
		if (is_function(&s->entries[i]) &&
		    (how == ALPHA_BY_FALLBACK || s->entries[i].cls == own->cls))
			widen(lo, hi, &s->entries[i]);
	alpha_series__all_cpus(s, &least, &greatest);
	*lo = (struct alpha_cost){scaled_u64(lo->entry_ns, least), scaled_u64(lo->exit_ns, least)};
	*hi = (struct alpha_cost){scaled_u64(hi->entry_ns, greatest),
				  scaled_u64(hi->exit_ns, greatest)};
	return 1;
}

const char *alpha_how_name(int how)
{
	static const char *const names[ALPHA_NHOW] = {
		[ALPHA_NONE] = "none",
		[ALPHA_BY_NAME] = "name",
		[ALPHA_BY_SHIM] = "shim",
		[ALPHA_BY_CLASS] = "class",
		[ALPHA_BY_FALLBACK] = "fallback",
	};

	return how >= 0 && how < ALPHA_NHOW ? names[how] : "none";
}
