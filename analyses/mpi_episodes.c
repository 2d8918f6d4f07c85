// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Collective episodes across ranks: communicators named alike in every rank,
 * each rank's calls placed against a reference (doc/design.md §5.8).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analyses/mpi_impl.h"
#include "analyses/names.h"
#include "lib/array.h"

/* ---- communicators -------------------------------------------------------- */

static int comm_index(struct mpi *m, const char *name, __u32 *ix)
{
	size_t i;

	for (i = 0; i < m->ncomms; i++)
		if (!strcmp(m->comms[i].name, name)) {
			*ix = (__u32)i;
			return 0;
		}
	if (array_reserve((void **)&m->comms, &m->cap_comms, m->ncomms + 1, sizeof(*m->comms)))
		return -ENOMEM;
	snprintf(m->comms[m->ncomms].name, sizeof(m->comms[0].name), "%s", name);
	*ix = (__u32)m->ncomms++;
	return 0;
}

int mpi__int_handles(const struct mpi *m, __u16 probe)
{
	const char *base;

	if (probe >= m->nprobes)
		return 0;
	base = strrchr(m->probes[probe].object, '/');
	base = base ? base + 1 : m->probes[probe].object;
	/* Open MPI's sonames (2.x; 3.x to 5.x): pointers; MPICH and its
	 * derivatives (Intel MPI, MVAPICH: libmpi.so.12, libmpich.so.12): ints */
	return strncmp(base, "libmpi.so.40", 12) && strncmp(base, "libmpi.so.20", 12);
}

/* A communicator as probe's MPI passes it: an int's upper half is
 * unspecified in its register or stack slot. */
static __u64 handle(const struct mpi *m, __u16 probe, __u64 comm)
{
	return mpi__int_handles(m, probe) ? (__u32)comm : comm;
}

int mpi__world(const struct mpi *m, __u32 pid, __u16 probe, __u64 comm)
{
	const char *name;

	if (mpi__int_handles(m, probe))
		return handle(m, probe, comm) == MPI_INT_COMM_WORLD;
	name = m->names ? names__get(m->names, pid, comm) : NULL;
	return name && !strcmp(name, "ompi_mpi_comm_world");
}

/* The communicator of a rank's collective call, as every rank names it: its
 * symbol (Open MPI's predefined communicators are variables of libmpi), its
 * handle (MPICH), how it was made (name_made(), while traced), else the
 * order in which the rank first used it (one made before the tracing: made
 * collectively, so in the same order in every member). */
static int comm_of(struct mpi *m, struct rank *r, const struct call *c, __u32 *ix)
{
	__u64 obj = handle(m, c->probe, c->obj);
	const char *name = m->names ? names__get(m->names, r->s.pid, obj) : NULL;
	char key[SBT_SYMBOL_MAX];
	size_t have;
	int err;

	if (hmap_get_index(&r->comm_of, obj, 0, &have)) {
		*ix = (__u32)have;
		return 0;
	}
	if (name && *name)
		snprintf(key, sizeof(key), "%s", name);
	else if (obj <= 0xffffffffu)
		snprintf(key, sizeof(key), "handle 0x%llx", (unsigned long long)obj);
	else
		snprintf(key, sizeof(key), "communicator #%u", ++r->unnamed);
	err = comm_index(m, key, ix);
	return err ? err : hmap_put_index(&r->comm_of, obj, 0, *ix);
}

/* A communicator rank r made by call c (MPI_Comm_split, _split_type, _dup,
 * _create; its parent c's object, the new one c's output) named alike in every
 * member: made collectively over the parent, so the k-th made from it is the
 * same call in every member of the parent, and a split's groups differ by
 * their color. made[parent]: how many the rank made from it so far. */
static int name_made(struct mpi *m, struct rank *r, const struct call *c, struct hmap *made)
{
	__u64 obj = handle(m, c->probe, c->out);
	char key[2 * SBT_SYMBOL_MAX]; /* cut to a name's length by comm_index() */
	size_t k = 0;
	__u32 parent, ix;
	int err = comm_of(m, r, c, &parent);

	if (err || !obj)
		return err;
	hmap_get_index(made, parent, 0, &k);
	if (hmap_put_index(made, parent, 0, ++k))
		return -ENOMEM;
	if (strstr(mpi__symbol(m, c->probe), "split"))
		snprintf(key, sizeof(key), "%s #%zu of %s, color %d", mpi__symbol(m, c->probe), k,
			 m->comms[parent].name, (int)c->site);
	else
		snprintf(key, sizeof(key), "%s #%zu of %s", mpi__symbol(m, c->probe), k,
			 m->comms[parent].name);
	err = comm_index(m, key, &ix);
	/* a handle freed and given again names the newer communicator */
	return err ? err : hmap_put_index(&r->comm_of, obj, 0, ix);
}

/* ---- episodes --------------------------------------------------------------- */

/* The collectives of rank r on communicator comm, in order (indices into its calls). */
static size_t colls_on(const struct rank *r, __u32 comm, size_t *out)
{
	size_t i, n = 0;

	for (i = 0; i < r->n; i++)
		if (r->calls[i].kind == SBT_PK_MPI_COLL && r->calls[i].comm == comm)
			out[n++] = i;
	return n;
}

/* Calls of a rank compared with the reference's to place it. */
#define ALIGN_CALLS 8

static int cmp_s64(const void *a, const void *b)
{
	__s64 x = *(const __s64 *)a, y = *(const __s64 *)b;

	return x < y ? -1 : x > y;
}

/* Where rank r's first collective on comm (its calls rc[0..n)) stands among
 * the reference rank's (ref's rc_ref[0..nref)): where most of its first
 * ALIGN_CALLS calls are the same functions as the reference's, and among
 * those the place where their returns are nearest the reference's (the
 * median difference: a synchronizing collective releases its members
 * together). A rank traced from a later call (attached later, records lost)
 * so joins the right episodes, one traced from the start lands at 0, and a
 * node whose clock is off by less than half a step between collectives
 * (merging nodes' traces) lands right too: overlapping calls would not do,
 * a short call missing the reference's by any offset. */
static long first_episode(const struct rank *ref, const size_t *rc_ref, size_t nref,
			  const struct rank *r, const size_t *rc, size_t n)
{
	size_t j, k, m = n < ALIGN_CALLS ? n : ALIGN_CALLS, best = 0, best_score = 0;
	const struct call *last = &r->calls[rc[m - 1]];
	__u64 best_dist = UINT64_MAX;
	__s64 d[ALIGN_CALLS];

	for (j = 0; j < nref; j++) {
		const struct call *x = &ref->calls[rc_ref[j]];
		size_t score = 0, nd = 0;
		__u64 dist;

		if (best_score == m && x->exit > last->exit && x->exit - last->exit > best_dist)
			break; /* every later place is farther */
		for (k = 0; k < m && j + k < nref; k++) {
			const struct call *y = &ref->calls[rc_ref[j + k]], *c = &r->calls[rc[k]];

			if (y->probe != c->probe)
				continue;
			score++;
			d[nd++] = (__s64)(c->exit - y->exit);
		}
		if (!nd || score < best_score)
			continue;
		qsort(d, nd, sizeof(*d), cmp_s64);
		dist = d[nd / 2] < 0 ? (__u64)-d[nd / 2] : (__u64)d[nd / 2];
		if (score > best_score || dist < best_dist) {
			best = j;
			best_score = score;
			best_dist = dist;
		}
	}
	return (long)best;
}

static int new_part(struct mpi *m, __u32 ep, __u32 rank_ix, __u32 call_ix, const struct call *c)
{
	if (array_reserve((void **)&m->parts, &m->cap_parts, m->nparts + 1, sizeof(*m->parts)))
		return -ENOMEM;
	m->parts[m->nparts++] = (struct part){.ep = ep,
					      .rank_ix = rank_ix,
					      .call_ix = call_ix,
					      .arrival = c->enter,
					      .departure = c->exit,
					      .probe = c->probe};
	return 0;
}

/* The episode (comm, index), made when new. */
static int episode_of(struct mpi *m, struct hmap *eps, __u32 comm, long index, __u32 *ep)
{
	size_t have;

	if (hmap_get_index(eps, comm, (__u64)index, &have)) {
		*ep = (__u32)have;
		return 0;
	}
	if (array_reserve((void **)&m->eps, &m->cap_eps, m->neps + 1, sizeof(*m->eps)))
		return -ENOMEM;
	m->eps[m->neps] = (struct mpi_episode){.comm = comm, .index = (__u32)index};
	*ep = (__u32)m->neps++;
	return hmap_put_index(eps, comm, (__u64)index, *ep);
}

/* The ranks' collectives on comm as episodes: rank i's k-th call is episode
 * k + its offset to the reference (the rank seen calling on comm first). */
static int comm_episodes(struct mpi *m, __u32 comm, struct hmap *eps, size_t *scratch,
			 size_t *ref_calls)
{
	const struct rank *ref = NULL;
	size_t i, k, n, nref = 0;
	__u32 ep;
	int err;

	for (i = 0; i < m->nranks; i++) {
		n = colls_on(m->ranks[i], comm, scratch);
		if (n && (!ref ||
			  m->ranks[i]->calls[scratch[0]].enter < ref->calls[ref_calls[0]].enter)) {
			ref = m->ranks[i];
			memcpy(ref_calls, scratch, n * sizeof(*scratch));
			nref = n;
		}
	}
	for (i = 0; i < m->nranks; i++) {
		struct rank *r = m->ranks[i];
		long base;

		n = colls_on(r, comm, scratch);
		if (!n)
			continue;
		m->comms[comm].size++;
		base = first_episode(ref, ref_calls, nref, r, scratch, n);
		for (k = 0; k < n; k++) {
			err = episode_of(m, eps, comm, base + (long)k, &ep);
			if (!err)
				err = new_part(m, ep, (__u32)i, (__u32)scratch[k],
					       &r->calls[scratch[k]]);
			if (err)
				return err;
		}
	}
	return 0;
}

static int cmp_part(const void *a, const void *b)
{
	const struct part *x = a, *y = b;

	if (x->ep != y->ep)
		return x->ep < y->ep ? -1 : 1;
	return x->rank_ix < y->rank_ix ? -1 : x->rank_ix > y->rank_ix;
}

/* Episode i's figures from its parts [from, to), charged to its ranks. */
static void episode_figures(struct mpi *m, size_t i, size_t from, size_t to)
{
	struct mpi_episode *e = &m->eps[i];
	struct mpi_comm_stats *c = &m->comms[e->comm];
	size_t p, late = from;

	e->first_arrival_ns = m->parts[from].arrival;
	for (p = from; p < to; p++) {
		const struct part *x = &m->parts[p];

		if (x->arrival > m->parts[late].arrival)
			late = p;
		if (x->arrival < e->first_arrival_ns)
			e->first_arrival_ns = x->arrival;
		if (x->departure > e->last_departure_ns)
			e->last_departure_ns = x->departure;
		e->mixed |= x->probe != m->parts[from].probe;
	}
	e->nranks = (__u32)(to - from);
	e->late_rank_ix = m->parts[late].rank_ix;
	e->last_arrival_ns = m->parts[late].arrival;
	/* every member of a synchronizing collective is inside it at its
	 * release: ranks that never were at once are not one episode */
	for (p = from; p < to; p++)
		if (m->parts[p].departure < e->last_arrival_ns &&
		    mpi__synchronizing(mpi__symbol(m, m->parts[p].probe)))
			e->inconsistent = 1;
	c->inconsistent += e->inconsistent;
	e->probe = m->parts[late].probe;
	for (p = from; p < to; p++) {
		__u64 w = e->last_arrival_ns - m->parts[p].arrival;

		e->wait_ns += w;
		m->ranks[m->parts[p].rank_ix]->s.coll_wait_ns += w;
	}
	if (e->nranks > 1)
		m->ranks[e->late_rank_ix]->s.late++;
	c->episodes++;
	c->wait_ns += e->wait_ns;
	c->imbalance_ns += e->last_arrival_ns - e->first_arrival_ns;
	if (e->last_arrival_ns - e->first_arrival_ns > c->max_imbalance_ns)
		c->max_imbalance_ns = e->last_arrival_ns - e->first_arrival_ns;
}

static int cmp_episode_time(const void *a, const void *b)
{
	const struct mpi_episode *x = a, *y = b;

	if (x->first_arrival_ns != y->first_arrival_ns)
		return x->first_arrival_ns < y->first_arrival_ns ? -1 : 1;
	return x->comm < y->comm ? -1 : x->comm > y->comm;
}

/* Parts regrouped in the episodes' new order (from[i]: where episode i's
 * parts were), ep_first[] indexing them. */
static int regroup_parts(struct mpi *m, const size_t *from)
{
	struct part *sorted = malloc((m->nparts + 1) * sizeof(*sorted));
	size_t i, k, n = 0;

	if (!sorted)
		return -ENOMEM;
	for (i = 0; i < m->neps; i++) {
		m->ep_first[i] = n;
		for (k = 0; k < m->eps[i].nranks; k++) {
			sorted[n] = m->parts[from[i] + k];
			sorted[n].ep = (__u32)i;
			/* the call's episode by its new index too */
			m->ranks[sorted[n].rank_ix]->calls[sorted[n].call_ix].ep = (__u32)i;
			n++;
		}
	}
	m->ep_first[m->neps] = n;
	free(m->parts);
	m->parts = sorted;
	return 0;
}

/* Each episode's figures; then the episodes in time order, their parts
 * grouped by episode. */
static int order_episodes(struct mpi *m)
{
	size_t i, p, *from;
	int err;

	if (m->nparts) /* qsort() takes no NULL, even for none */
		qsort(m->parts, m->nparts, sizeof(*m->parts), cmp_part);
	m->ep_first = calloc(m->neps + 1, sizeof(*m->ep_first));
	from = calloc(m->neps + 1, sizeof(*from));
	if (!m->ep_first || !from) {
		free(from);
		return -ENOMEM;
	}
	for (i = 0, p = 0; i < m->neps; i++) {
		size_t first = p;

		while (p < m->nparts && m->parts[p].ep == i)
			p++;
		episode_figures(m, i, first, p);
		m->eps[i].index = (__u32)first; /* carried through the sort */
	}
	if (m->neps)
		qsort(m->eps, m->neps, sizeof(*m->eps), cmp_episode_time);
	for (i = 0; i < m->neps; i++)
		from[i] = m->eps[i].index;
	err = regroup_parts(m, from);
	free(from);
	return err;
}

/* Each communicator's episodes numbered from 0 in time order; partial ones
 * counted against the communicator's size. */
static int number_episodes(struct mpi *m)
{
	__u64 *next = calloc(m->ncomms + 1, sizeof(*next));
	size_t i;

	if (!next)
		return -ENOMEM;

	for (i = 0; i < m->neps; i++) {
		struct mpi_episode *e = &m->eps[i];

		e->index = (__u32)next[e->comm]++;
		if (e->nranks < m->comms[e->comm].size)
			m->comms[e->comm].partial++;
	}
	free(next);
	return 0;
}

int mpi_episodes__form(struct mpi *m)
{
	size_t i, most = 0, *scratch, *ref_calls;
	struct hmap eps;
	__u32 c;
	int err = 0;

	for (i = 0; i < m->nranks && !err; i++) {
		struct rank *r = m->ranks[i];
		struct hmap made;
		size_t k;

		/* in time order: a communicator is made before it is used */
		hmap_init(&made);
		for (k = 0; k < r->n && !err; k++)
			if (r->calls[k].kind == SBT_PK_MPI_COLL)
				err = comm_of(m, r, &r->calls[k], &r->calls[k].comm);
			else if (r->calls[k].kind == SBT_PK_MPI_COMM)
				err = name_made(m, r, &r->calls[k], &made);
		hmap_free(&made);
		if (r->n > most)
			most = r->n;
	}
	if (err)
		return err;
	scratch = calloc(most + 1, sizeof(*scratch));
	ref_calls = calloc(most + 1, sizeof(*ref_calls));
	hmap_init(&eps);
	if (!scratch || !ref_calls)
		err = -ENOMEM;
	for (c = 0; c < m->ncomms && !err; c++)
		err = comm_episodes(m, c, &eps, scratch, ref_calls);
	hmap_free(&eps);
	free(scratch);
	free(ref_calls);
	if (!err)
		err = order_episodes(m);
	if (!err)
		err = number_episodes(m);
	return err;
}
