// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * MPI across processes: calls per rank, collective episodes across ranks,
 * point-to-point pairing, phases between collectives (doc/design.md §5.8).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analyses/mpi.h"
#include "analyses/names.h"
#include "lib/array.h"
#include "lib/hmap.h"

/* One outermost MPI call of a rank. */
struct call {
	__u64 enter, exit;
	__u64 obj, site;
	__u16 probe;
	__u8 kind;
	__u32 comm; /* collectives: the communicator's index (mpi__finish) */
	__u32 ep;   /* collectives: the episode's index (mpi__finish) */
};

struct rank {
	struct mpi_rank_stats s;
	struct call *calls;
	size_t n, cap;
	__u64 *regions; /* OpenMP region entries, in time order once finished */
	size_t nreg, capreg;
	__u32 unnamed;	     /* communicators it used that no name or handle identifies */
	struct hmap comm_of; /* obj -> communicator index + 1 */
};

/* A thread inside an MPI call (outermost), between its entry and return. */
struct thread {
	int depth;
	struct call c;
};

/* A rank's part in an episode. */
struct part {
	__u32 ep, rank_ix;
	__u64 arrival, departure;
	__u16 probe;
};

struct mpi {
	const struct sbt_probe_info *probes;
	__u32 nprobes;
	const struct names *names;
	struct rank **ranks;
	size_t nranks, cap_ranks;
	struct hmap rank_of; /* pid -> index */
	struct hmap threads; /* (pid, tid) -> struct thread */
	struct mpi_comm_stats *comms;
	size_t ncomms, cap_comms;
	struct mpi_episode *eps;
	size_t neps, cap_eps;
	struct part *parts; /* by episode, then rank index, once finished */
	size_t nparts, cap_parts;
	size_t *ep_first; /* episode i's parts begin at parts[ep_first[i]] */
	__u64 unmatched;
	int failed, finished;
};

int mpi__is_kind(int kind)
{
	return kind >= SBT_PK_MPI_COLL && kind <= SBT_PK_MPI_LIFE;
}

struct mpi *mpi__new(const struct sbt_probe_info *probes, __u32 nprobes, const struct names *names)
{
	struct mpi *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->probes = probes;
	m->nprobes = nprobes;
	m->names = names;
	hmap_init(&m->rank_of);
	hmap_init(&m->threads);
	return m;
}

void mpi__free(struct mpi *m)
{
	size_t i;

	if (!m)
		return;
	for (i = 0; i < m->nranks; i++) {
		free(m->ranks[i]->calls);
		free(m->ranks[i]->regions);
		hmap_free(&m->ranks[i]->comm_of);
		free(m->ranks[i]);
	}
	free(m->ranks);
	hmap_free(&m->rank_of);
	hmap_free_values(&m->threads);
	free(m->comms);
	free(m->eps);
	free(m->parts);
	free(m->ep_first);
	free(m);
}

static struct rank *find_rank(const struct mpi *m, __u32 pid)
{
	size_t ix;

	return hmap_get_index(&m->rank_of, pid, 0, &ix) ? m->ranks[ix] : NULL;
}

static struct rank *get_rank(struct mpi *m, __u32 pid)
{
	struct rank *r = find_rank(m, pid);

	if (r)
		return r;
	if (array_reserve((void **)&m->ranks, &m->cap_ranks, m->nranks + 1, sizeof(*m->ranks)))
		return NULL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	if (hmap_put_index(&m->rank_of, pid, 0, m->nranks)) {
		free(r);
		return NULL;
	}
	r->s.pid = pid;
	r->s.rank = -1;
	hmap_init(&r->comm_of);
	m->ranks[m->nranks++] = r;
	return r;
}

int mpi__set_rank(struct mpi *m, __u32 pid, int rank, const char *host)
{
	struct rank *r = get_rank(m, pid);

	if (!r) {
		m->failed = 1;
		return -ENOMEM;
	}
	r->s.rank = rank;
	if (host)
		snprintf(r->s.host, sizeof(r->s.host), "%s", host);
	return 0;
}

static int kind_of(const struct mpi *m, __u16 probe)
{
	return probe < m->nprobes ? m->probes[probe].kind : 0;
}

const char *mpi__symbol(const struct mpi *m, __u16 probe)
{
	const char *s =
		probe < m->nprobes && m->probes[probe].symbol[0] ? m->probes[probe].symbol : "?";

	/* probed as PMPI_F (probes.c), called as MPI_F */
	return strncmp(s, "PMPI_", 5) ? s : s + 1;
}

static int call_entered(struct mpi *m, const struct sbt_event *e)
{
	struct thread *t = hmap_get(&m->threads, e->pid, e->tid);

	if (!t) {
		t = hmap_put_new(&m->threads, e->pid, e->tid, sizeof(*t));
		if (!t)
			return -ENOMEM;
	}
	if (t->depth++)
		return 0; /* MPI calling itself: the outermost call counts */
	t->c = (struct call){.enter = e->ts, .obj = e->obj, .site = e->site, .probe = e->probe};
	t->c.kind = (__u8)kind_of(m, e->probe);
	return 0;
}

static int call_returned(struct mpi *m, const struct sbt_event *e)
{
	struct thread *t = hmap_get(&m->threads, e->pid, e->tid);
	struct rank *r;

	if (!t || !t->depth || --t->depth)
		return 0; /* a return whose entry came before the tracing, or an inner one */
	r = get_rank(m, e->pid);
	if (!r || array_reserve((void **)&r->calls, &r->cap, r->n + 1, sizeof(*r->calls)))
		return -ENOMEM;
	t->c.exit = e->ts;
	r->calls[r->n++] = t->c;
	return 0;
}

static int region_entered(struct mpi *m, const struct sbt_event *e)
{
	struct rank *r = find_rank(m, e->pid);

	/* only processes that called MPI (MPI_Init comes first) */
	if (!r || !r->n)
		return 0;
	if (array_reserve((void **)&r->regions, &r->capreg, r->nreg + 1, sizeof(*r->regions)))
		return -ENOMEM;
	r->regions[r->nreg++] = e->ts;
	return 0;
}

/* Records of pid were lost: a thread inside a call may have lost its
 * return; its next call starts afresh. */
static void lost(struct mpi *m, __u32 pid)
{
	const struct hmap_slot *s;
	size_t pos = 0;

	while ((s = hmap_next(&m->threads, &pos)))
		if (s->k1 == pid)
			((struct thread *)s->val)->depth = 0;
}

int mpi__feed(struct mpi *m, const struct sbt_event *e)
{
	int kind, err = 0;

	if (m->finished)
		return 0;
	if (e->type == SBT_EV_LOST) {
		lost(m, e->pid);
		return 0;
	}
	if (e->type == SBT_EV_THREAD_EXIT) {
		free(hmap_del(&m->threads, e->pid, e->tid));
		return 0;
	}
	if (e->type != SBT_EV_ENTER && e->type != SBT_EV_EXIT)
		return 0;
	kind = kind_of(m, e->probe);
	if (mpi__is_kind(kind))
		err = e->type == SBT_EV_ENTER ? call_entered(m, e) : call_returned(m, e);
	else if (kind == SBT_PK_REGION && e->type == SBT_EV_ENTER)
		err = region_entered(m, e);
	if (err)
		m->failed = 1;
	return err;
}

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

/* MPICH's handles are ints (MPI_COMM_WORLD is 0x44000000 in every rank),
 * whose register's upper half is unspecified. */
static int int_handles(const struct mpi *m, __u16 probe)
{
	return probe < m->nprobes && strstr(m->probes[probe].object, "mpich");
}

/* The communicator of a rank's collective call, as every rank names it: its
 * symbol (Open MPI's predefined communicators are variables of libmpi), its
 * handle (MPICH), else the order in which the rank first used it (a
 * communicator made at run time: made collectively, so in the same order
 * in every member). */
static int comm_of(struct mpi *m, struct rank *r, const struct call *c, __u32 *ix)
{
	__u64 obj = int_handles(m, c->probe) ? (__u32)c->obj : c->obj;
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

/* ---- episodes --------------------------------------------------------------- */

static int cmp_call(const void *a, const void *b)
{
	const struct call *x = a, *y = b;

	return x->enter < y->enter ? -1 : x->enter > y->enter;
}

static int overlaps(const struct call *a, const struct call *b)
{
	return a->enter <= b->exit && b->enter <= a->exit;
}

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

/* Whether call c of a rank can be reference call x's episode: the same
 * function, both inside at once (every member is inside a synchronizing
 * collective at its release). */
static int same_episode(const struct call *x, const struct call *c)
{
	return x->probe == c->probe && overlaps(x, c);
}

/* Where rank r's first collective on comm (its calls rc[0..n)) stands among
 * the reference rank's (ref's rc_ref[0..nref)): the place where most of its
 * first ALIGN_CALLS calls fall into episodes they can be, the nearest in
 * time among equals. A rank traced from a later call (attached later,
 * records lost) so joins the right episodes; one traced from the start
 * lands at 0. One call alone would not do: a rank leaving a barrier early
 * is inside its next collective while a slower one still leaves the
 * barrier. */
static long first_episode(const struct rank *ref, const size_t *rc_ref, size_t nref,
			  const struct rank *r, const size_t *rc, size_t n)
{
	const struct call *first = &r->calls[rc[0]];
	const struct call *last = &r->calls[rc[(n < ALIGN_CALLS ? n : ALIGN_CALLS) - 1]];
	size_t j, k, best = 0, best_score = 0;
	__u64 best_dist = UINT64_MAX;

	for (j = 0; j < nref; j++) {
		const struct call *x = &ref->calls[rc_ref[j]];
		__u64 dist =
			x->enter > first->enter ? x->enter - first->enter : first->enter - x->enter;
		size_t score = 0;

		if (x->enter > last->exit)
			break; /* it and the later ones begin after the calls compared end */
		for (k = 0; k < n && k < ALIGN_CALLS && j + k < nref; k++)
			score += same_episode(&ref->calls[rc_ref[j + k]], &r->calls[rc[k]]);
		if (score > best_score || (score == best_score && dist < best_dist)) {
			best = j;
			best_score = score;
			best_dist = dist;
		}
	}
	return (long)best;
}

static int new_part(struct mpi *m, __u32 ep, __u32 rank_ix, const struct call *c)
{
	if (array_reserve((void **)&m->parts, &m->cap_parts, m->nparts + 1, sizeof(*m->parts)))
		return -ENOMEM;
	m->parts[m->nparts++] = (struct part){.ep = ep,
					      .rank_ix = rank_ix,
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
				err = new_part(m, ep, (__u32)i, &r->calls[scratch[k]]);
			if (err)
				return err;
			r->calls[scratch[k]].ep = ep;
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
			sorted[n++].ep = (__u32)i;
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
	qsort(m->eps, m->neps, sizeof(*m->eps), cmp_episode_time);
	for (i = 0; i < m->neps; i++)
		from[i] = m->eps[i].index;
	err = regroup_parts(m, from);
	free(from);
	return err;
}

/* Each communicator's episodes numbered from 0 in time order; partial ones
 * counted against the communicator's size. */
static void number_episodes(struct mpi *m)
{
	__u64 *next = calloc(m->ncomms + 1, sizeof(*next));
	size_t i;

	for (i = 0; i < m->neps; i++) {
		struct mpi_episode *e = &m->eps[i];

		e->index = next ? (__u32)next[e->comm]++ : 0;
		if (e->nranks < m->comms[e->comm].size)
			m->comms[e->comm].partial++;
	}
	free(next);
}

static int form_episodes(struct mpi *m)
{
	size_t i, most = 0, *scratch, *ref_calls;
	struct hmap eps;
	__u32 c;
	int err = 0;

	for (i = 0; i < m->nranks && !err; i++) {
		struct rank *r = m->ranks[i];
		size_t k;

		qsort(r->calls, r->n, sizeof(*r->calls), cmp_call);
		for (k = 0; k < r->n && !err; k++)
			if (r->calls[k].kind == SBT_PK_MPI_COLL)
				err = comm_of(m, r, &r->calls[k], &r->calls[k].comm);
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
		number_episodes(m);
	return err;
}

/* ---- point to point ----------------------------------------------------------- */

/* The peer a call sends to (dest) and receives from (src); -1 none. */
static void peers(const struct call *c, long *dest, long *src)
{
	*dest = *src = -1;
	if (c->kind == SBT_PK_MPI_SEND || c->kind == SBT_PK_MPI_SENDRECV)
		*dest = (int)c->obj;
	if (c->kind == SBT_PK_MPI_RECV)
		*src = (int)c->obj;
	if (c->kind == SBT_PK_MPI_SENDRECV)
		*src = (int)c->site;
}

struct sends {
	__u64 *enter;
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

			peers(&r->calls[k], &dest, &src);
			if (dest < 0 || r->s.rank < 0)
				continue;
			s = hmap_get(q, (__u64)r->s.rank, (__u64)dest);
			if (!s)
				s = hmap_put_new(q, (__u64)r->s.rank, (__u64)dest, sizeof(*s));
			if (!s ||
			    array_reserve((void **)&s->enter, &s->cap, s->n + 1, sizeof(__u64)))
				return -ENOMEM;
			s->enter[s->n++] = r->calls[k].enter;
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
			const struct call *c = &r->calls[k];
			struct sends *s;
			__u64 sent, late;

			peers(c, &dest, &src);
			if (c->kind != SBT_PK_MPI_RECV && c->kind != SBT_PK_MPI_SENDRECV)
				continue;
			s = src >= 0 && r->s.rank >= 0 ? hmap_get(q, (__u64)src, (__u64)r->s.rank)
						       : NULL;
			if (!s || s->taken >= s->n) {
				m->unmatched++;
				continue;
			}
			sent = s->enter[s->taken++];
			late = sent > c->enter ? sent - c->enter : 0;
			r->s.late_sender_ns +=
				late < c->exit - c->enter ? late : c->exit - c->enter;
		}
	}
}

static int point_to_point(struct mpi *m)
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
		free(((struct sends *)s->val)->enter);
	hmap_free_values(&q);
	return err;
}

/* ---- per rank --------------------------------------------------------------- */

/* Regions entered in (from, to): regions[] in time order, *at the first not yet passed. */
static __u64 regions_in(const struct rank *r, size_t *at, __u64 from, __u64 to)
{
	__u64 n = 0;

	while (*at < r->nreg && r->regions[*at] <= from)
		(*at)++;
	while (*at < r->nreg && r->regions[*at] < to) {
		(*at)++;
		n++;
	}
	return n;
}

static void rank_totals(struct rank *r)
{
	struct mpi_rank_stats *s = &r->s;
	const struct call *prev = NULL;
	size_t k, at = 0;

	qsort(r->regions, r->nreg, sizeof(*r->regions), array_cmp_u64);
	for (k = 0; k < r->n; k++) {
		const struct call *c = &r->calls[k];
		__u64 ns = c->exit - c->enter;

		if (c->kind == SBT_PK_MPI_LIFE)
			continue; /* MPI_Init and MPI_Finalize: set-up, not the program's time */
		s->calls++;
		s->mpi_ns += ns;
		if (!s->first_ns || c->enter < s->first_ns)
			s->first_ns = c->enter;
		if (c->exit > s->last_ns)
			s->last_ns = c->exit;
		switch (c->kind) {
		case SBT_PK_MPI_COLL:
			s->colls++;
			s->coll_ns += ns;
			if (prev && c->enter >= prev->exit) {
				s->phases++;
				s->phase_ns += c->enter - prev->exit;
				s->phase_regions += regions_in(r, &at, prev->exit, c->enter);
			}
			prev = c;
			break;
		case SBT_PK_MPI_SEND:
		case SBT_PK_MPI_RECV:
		case SBT_PK_MPI_SENDRECV:
			s->p2p++;
			s->p2p_ns += ns;
			break;
		case SBT_PK_MPI_WAIT:
			s->completion++;
			s->completion_ns += ns;
			break;
		}
	}
}

static int cmp_rank(const void *a, const void *b)
{
	const struct rank *x = *(struct rank *const *)a, *y = *(struct rank *const *)b;

	if ((x->s.rank < 0) != (y->s.rank < 0))
		return x->s.rank < 0 ? 1 : -1;
	if (x->s.rank != y->s.rank)
		return x->s.rank < y->s.rank ? -1 : 1;
	return x->s.pid < y->s.pid ? -1 : x->s.pid > y->s.pid;
}

/* Ranks in rank order (before any index of them is kept). */
static int order_ranks(struct mpi *m)
{
	size_t i;

	qsort(m->ranks, m->nranks, sizeof(*m->ranks), cmp_rank);
	hmap_free(&m->rank_of);
	hmap_init(&m->rank_of);
	for (i = 0; i < m->nranks; i++)
		if (hmap_put_index(&m->rank_of, m->ranks[i]->s.pid, 0, i))
			return -ENOMEM;
	return 0;
}

int mpi__finish(struct mpi *m)
{
	size_t i;
	int err;

	if (m->finished)
		return 0;
	m->finished = 1;
	/* processes that made no MPI call (a rank's number set, nothing seen) stay out */
	for (i = 0; i < m->nranks;) {
		if (m->ranks[i]->n) {
			i++;
			continue;
		}
		free(m->ranks[i]->regions);
		hmap_free(&m->ranks[i]->comm_of);
		free(m->ranks[i]);
		m->ranks[i] = m->ranks[--m->nranks];
	}
	err = order_ranks(m);
	for (i = 0; i < m->nranks && !err; i++)
		rank_totals(m->ranks[i]);
	if (!err)
		err = form_episodes(m);
	if (!err)
		err = point_to_point(m);
	if (err)
		m->failed = 1;
	return err;
}

int mpi__active(const struct mpi *m)
{
	size_t i;

	for (i = 0; m && i < m->nranks; i++)
		if (m->ranks[i]->n)
			return 1;
	return 0;
}

int mpi__failed(const struct mpi *m)
{
	return m->failed;
}

size_t mpi__nranks(const struct mpi *m)
{
	return m->nranks;
}

const struct mpi_rank_stats *mpi__rank(const struct mpi *m, size_t i)
{
	return &m->ranks[i]->s;
}

size_t mpi__ncomms(const struct mpi *m)
{
	return m->ncomms;
}

const struct mpi_comm_stats *mpi__comm(const struct mpi *m, size_t i)
{
	return &m->comms[i];
}

size_t mpi__nepisodes(const struct mpi *m)
{
	return m->neps;
}

const struct mpi_episode *mpi__episode(const struct mpi *m, size_t i)
{
	return &m->eps[i];
}

int mpi__episode_rank(const struct mpi *m, size_t i, size_t rank_ix, __u64 *arrival,
		      __u64 *departure)
{
	size_t p;

	for (p = m->ep_first[i]; p < m->ep_first[i + 1]; p++)
		if (m->parts[p].rank_ix == rank_ix) {
			*arrival = m->parts[p].arrival;
			*departure = m->parts[p].departure;
			return 1;
		}
	return 0;
}

__u64 mpi__unmatched_recvs(const struct mpi *m)
{
	return m->unmatched;
}
