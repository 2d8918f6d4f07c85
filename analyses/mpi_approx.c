// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Point to point pairing, and the run rebuilt across ranks from each rank's
 * own approximation (doc/design.md §5.8).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analyses/mpi_impl.h"
#include "lib/array.h"
#include "lib/num.h"

/* ---- point to point ----------------------------------------------------------- */

/* The world rank a call sends to (dest) and receives from (src); -1 none:
 * a peer is a rank of the call's communicator, a world rank only on
 * MPI_COMM_WORLD (MPI_Sendrecv's communicator is not recorded: taken as the
 * world). */
static void peers(const struct mpi *m, const struct rank *r, const struct call *c, long *dest,
		  long *src)
{
	*dest = *src = -1;
	if (c->kind != SBT_PK_MPI_SEND && c->kind != SBT_PK_MPI_RECV &&
	    c->kind != SBT_PK_MPI_SENDRECV)
		return;
	if (c->kind != SBT_PK_MPI_SENDRECV && !mpi__world(m, r->s.pid, c->probe, c->site))
		return;
	if (c->kind == SBT_PK_MPI_SEND || c->kind == SBT_PK_MPI_SENDRECV)
		*dest = (int)c->obj;
	if (c->kind == SBT_PK_MPI_RECV)
		*src = (int)c->obj;
	if (c->kind == SBT_PK_MPI_SENDRECV)
		*src = (int)c->site;
}

/* The sends from one rank to another, in order: (rank index, call index). */
struct sends {
	__u32 (*call)[2];
	size_t n, cap, taken;
};

static int queue_sends(struct mpi *m, struct hmap *q)
{
	size_t i, k;
	long dest, src;

	for (i = 0; i < m->nranks; i++) {
		const struct rank *r = m->ranks[i];

		for (k = 0; k < r->n; k++) {
			struct sends *s;

			peers(m, r, &r->calls[k], &dest, &src);
			if (dest < 0 || r->s.rank < 0)
				continue;
			s = hmap_get(q, (__u64)r->s.rank, (__u64)dest);
			if (!s)
				s = hmap_put_new(q, (__u64)r->s.rank, (__u64)dest, sizeof(*s));
			if (!s ||
			    array_reserve((void **)&s->call, &s->cap, s->n + 1, sizeof(*s->call)))
				return -ENOMEM;
			s->call[s->n][0] = (__u32)i;
			s->call[s->n++][1] = (__u32)k;
		}
	}
	return 0;
}

/* Each receive paired with the next send to it from its source: the time it
 * waited for that send to begin (a late sender), within the call. */
static void pair_receives(struct mpi *m, struct hmap *q)
{
	size_t i, k;
	long dest, src;

	for (i = 0; i < m->nranks; i++) {
		struct rank *r = m->ranks[i];

		for (k = 0; k < r->n; k++) {
			struct call *c = &r->calls[k];
			struct sends *s;
			__u64 sent, late;

			peers(m, r, c, &dest, &src);
			if (c->kind != SBT_PK_MPI_RECV && c->kind != SBT_PK_MPI_SENDRECV)
				continue;
			s = src >= 0 && r->s.rank >= 0 ? hmap_get(q, (__u64)src, (__u64)r->s.rank)
						       : NULL;
			if (!s || s->taken >= s->n) {
				m->unmatched++;
				continue;
			}
			c->send_rank = s->call[s->taken][0];
			c->send_call = s->call[s->taken++][1];
			c->paired = 1;
			sent = m->ranks[c->send_rank]->calls[c->send_call].enter;
			late = sent > c->enter ? sent - c->enter : 0;
			r->s.late_sender_ns +=
				late < c->exit - c->enter ? late : c->exit - c->enter;
		}
	}
}

int mpi_p2p__pair(struct mpi *m)
{
	const struct hmap_slot *s;
	struct hmap q;
	size_t pos = 0;
	int err;

	hmap_init(&q);
	err = queue_sends(m, &q);
	if (!err)
		pair_receives(m, &q);
	while ((s = hmap_next(&q, &pos)))
		free(((struct sends *)s->val)->call);
	hmap_free_values(&q);
	return err;
}

/* ---- the run across ranks ----------------------------------------------------- */

int mpi__synchronizing(const char *call)
{
	static const char *const calls[] = {
		"MPI_Barrier",	"MPI_Allreduce", "MPI_Allgather",      "MPI_Allgatherv",
		"MPI_Alltoall", "MPI_Alltoallv", "MPI_Reduce_scatter", "MPI_Reduce_scatter_block",
	};
	size_t i;

	for (i = 0; i < sizeof(calls) / sizeof(calls[0]); i++)
		if (!strcmp(call, calls[i]))
			return 1;
	return 0;
}

/* Call k of rank r's approximated arrival: its previous call's approximated
 * departure plus what the rank's own approximation puts between them (its
 * compute, the probe cost removed); its own approximated entry for a first
 * call (ranks start on one clock). */
static __u64 arrival(struct mpi *m, size_t r, size_t k)
{
	struct call *c = &m->ranks[r]->calls[k], *prev = k ? c - 1 : NULL;

	if (!c->arrived) {
		/* another thread's charges are not this one's: the measured gap */
		__u64 gap = prev && prev->tid == c->tid ? sub0(c->ta_enter, prev->ta_exit)
			    : prev			? sub0(c->enter, prev->exit)
							: 0;

		c->a = prev && prev->departed ? prev->d + gap : c->ta_enter;
		c->arrived = 1;
	}
	return c->a;
}

/* Episode i, a synchronizing collective: every member leaves after the last
 * approximated arrival, as long after it as it left after the measured last
 * arrival (its release latency, Sarukkai & Malony's exit in their order),
 * less the last arriver's entry hit, which came after its arrival's time. */
static void release(struct mpi *m, size_t i)
{
	struct mpi_episode *e = &m->eps[i];
	size_t p, late = m->ep_first[i];
	__u64 last = 0, hit;

	for (p = m->ep_first[i]; p < m->ep_first[i + 1]; p++) {
		__u64 a = arrival(m, m->parts[p].rank_ix, m->parts[p].call_ix);

		/* the first of equals, as the measured late rank (episode_figures) */
		if (p == m->ep_first[i] || a > last) {
			last = a;
			late = p;
		}
	}
	e->last_arrival_a_ns = last;
	e->late_rank_a_ix = m->parts[late].rank_ix;
	hit = m->ranks[m->parts[late].rank_ix]->calls[m->parts[late].call_ix].entry_cost;
	for (p = m->ep_first[i]; p < m->ep_first[i + 1]; p++) {
		struct rank *r = m->ranks[m->parts[p].rank_ix];
		struct call *c = &r->calls[m->parts[p].call_ix];

		c->d = last + sub0(sub0(c->exit, e->last_arrival_ns), hit);
		c->departed = 1;
		e->wait_a_ns += last - c->a;
		r->s.coll_wait_a_ns += last - c->a;
	}
	m->run.episodes_changed += e->late_rank_a_ix != e->late_rank_ix;
}

/* A receive paired with its send: done when both arrived, then as long as
 * the measured message took from the later of the two (Malony & Reed's
 * await after an advance), less that one's entry hit. */
static __u64 received(struct mpi *m, const struct call *c, __u64 a)
{
	const struct call *s = &m->ranks[c->send_rank]->calls[c->send_call];
	const struct call *later = s->enter > c->enter ? s : c;
	__u64 sent = arrival(m, c->send_rank, c->send_call);

	return (sent > a ? sent : a) + sub0(sub0(c->exit, later->enter), later->entry_cost);
}

static void depart(struct mpi *m, size_t r, size_t k)
{
	struct call *c = &m->ranks[r]->calls[k];
	__u64 a;

	if (c->departed)
		return;
	a = arrival(m, r, k);
	if (c->kind == SBT_PK_MPI_COLL && mpi__synchronizing(mpi__symbol(m, c->probe))) {
		release(m, c->ep);
		return;
	}
	if ((c->kind == SBT_PK_MPI_RECV || c->kind == SBT_PK_MPI_SENDRECV) && c->paired)
		c->d = received(m, c, a);
	else
		c->d = a + sub0(c->ta_exit, c->ta_enter);
	c->departed = 1;
}

static size_t ncalls(const struct mpi *m)
{
	size_t i, n = 0;

	for (i = 0; i < m->nranks; i++)
		n += m->ranks[i]->n;
	return n;
}

/* Every call, by its measured return: whatever a call's approximated times
 * depend on (its rank's previous call, the members of its episode, its
 * send) returned before it. */
struct by_exit {
	__u64 exit;
	__u32 r, k;
};

static int cmp_by_exit(const void *a, const void *b)
{
	const struct by_exit *x = a, *y = b;

	return x->exit < y->exit ? -1 : x->exit > y->exit;
}

/* Episode i's release: its last departure, measured and approximated. */
static void releases(const struct mpi *m, size_t i, __u64 *d, __u64 *d_a)
{
	size_t p;

	*d = m->eps[i].last_departure_ns;
	*d_a = 0;
	for (p = m->ep_first[i]; p < m->ep_first[i + 1]; p++) {
		const struct call *c = &m->ranks[m->parts[p].rank_ix]->calls[m->parts[p].call_ix];

		*d_a = c->d > *d_a ? c->d : *d_a;
	}
}

/* The first and last releases over every episode (episodes are in order of
 * their first arrival, not of their releases), measured or approximated. */
static void release_span(const struct mpi *m, int approx, __u64 *first, __u64 *last)
{
	__u64 d, d_a, v;
	size_t i;

	*first = UINT64_MAX;
	*last = 0;
	for (i = 0; i < m->neps; i++) {
		releases(m, i, &d, &d_a);
		v = approx ? d_a : d;
		*first = v < *first ? v : *first;
		*last = v > *last ? v : *last;
	}
	if (*first > *last)
		*first = *last;
}

int mpi_approx__run(struct mpi *m)
{
	struct by_exit *order;
	size_t i, k, n;

	release_span(m, 0, &m->run.first_release_ns, &m->run.last_release_ns);
	n = ncalls(m);
	if (m->unapproximated || !n)
		return 0;
	order = malloc(n * sizeof(*order));
	if (!order)
		return -ENOMEM;
	for (i = 0, n = 0; i < m->nranks; i++)
		for (k = 0; k < m->ranks[i]->n; k++)
			order[n++] =
				(struct by_exit){m->ranks[i]->calls[k].exit, (__u32)i, (__u32)k};
	qsort(order, n, sizeof(*order), cmp_by_exit);
	for (i = 0; i < n; i++)
		depart(m, order[i].r, order[i].k);
	free(order);
	m->run.approximated = 1;
	release_span(m, 1, &m->run.first_release_a_ns, &m->run.last_release_a_ns);
	return 0;
}
