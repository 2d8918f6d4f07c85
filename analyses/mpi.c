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
#include "analyses/mpi_impl.h"
#include "lib/array.h"

int mpi__is_kind(int kind)
{
	/* MPI's kinds follow one another (include/sbt/events.h) */
	return kind >= SBT_PK_MPI_COLL && kind <= SBT_PK_MPI_COMM;
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

static void rank_free(struct rank *r)
{
	free(r->calls);
	free(r->regions);
	hmap_free(&r->comm_of);
	free(r);
}

void mpi__free(struct mpi *m)
{
	size_t i;

	if (!m)
		return;
	for (i = 0; i < m->nranks; i++)
		rank_free(m->ranks[i]);
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

/* The thread's state: made at its first MPI call, or found. */
static struct thread *thread_of(struct mpi *m, const struct sbt_event *e, int make)
{
	struct thread *t = hmap_get(&m->threads, e->pid, e->tid);

	return t || !make ? t : hmap_put_new(&m->threads, e->pid, e->tid, sizeof(*t));
}

/* hit: the entry's own cost (after its time: inside the call) */
static int call_entered(struct mpi *m, struct thread *t, const struct sbt_event *e, __u64 hit)
{
	if (t->depth++)
		return 0; /* MPI calling itself: the outermost call counts */
	t->c = (struct call){.enter = e->ts, .obj = e->obj, .site = e->site, .probe = e->probe};
	t->c.kind = (__u8)kind_of(m, e->probe);
	t->c.tid = e->tid;
	t->c.ta_enter = e->ts - t->charged;
	t->c.entry_cost = hit;
	return 0;
}

static int call_returned(struct mpi *m, struct thread *t, const struct sbt_event *e)
{
	struct rank *r;

	if (!t->depth || --t->depth)
		return 0; /* a return whose entry came before the tracing, or an inner one */
	r = get_rank(m, e->pid);
	if (!r || array_reserve((void **)&r->calls, &r->cap, r->n + 1, sizeof(*r->calls)))
		return -ENOMEM;
	t->c.exit = e->ts;
	t->c.out = e->obj; /* a communicator made: the new one */
	t->c.ta_exit = e->ts - t->charged;
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

/* An MPI call's entry or return, with the probe cost charged to its thread
 * so far (a thread that made an MPI call: its compute between calls). */
static int mpi_record(struct mpi *m, const struct sbt_event *e, int kind,
		      const struct mpi_cost *cost)
{
	int call = mpi__is_kind(kind), entry = call && e->type == SBT_EV_ENTER, err = 0;
	struct thread *t = thread_of(m, e, entry);
	__u64 hit;

	if (!t)
		return entry ? -ENOMEM : 0;
	hit = cost ? cost->of(cost->ctx, e) : 0;
	if (!cost)
		m->unapproximated = 1;
	if (call)
		err = entry ? call_entered(m, t, e, hit) : call_returned(m, t, e);
	/* the hit's cost comes after its time: charged to what follows */
	t->charged += hit;
	return err;
}

int mpi__feed(struct mpi *m, const struct sbt_event *e, const struct mpi_cost *cost)
{
	int kind = 0, err = 0;

	if (m->finished)
		return 0;
	switch (e->type) {
	case SBT_EV_LOST:
		lost(m, e->pid);
		return 0;
	case SBT_EV_THREAD_EXIT:
		free(hmap_del(&m->threads, e->pid, e->tid));
		return 0;
	case SBT_EV_ENTER:
	case SBT_EV_EXIT:
		kind = kind_of(m, e->probe);
		/* fall through */
	case SBT_EV_FUTEX_ENTER:
	case SBT_EV_FUTEX_EXIT:
	case SBT_EV_COUNTERS:
	case SBT_EV_PREEMPTED:
		err = mpi_record(m, e, kind, cost);
		if (!err && kind == SBT_PK_REGION && e->type == SBT_EV_ENTER)
			err = region_entered(m, e);
	}
	if (err)
		m->failed = 1;
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

	if (r->nreg) /* qsort() takes no NULL, even for none */
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

static int cmp_call(const void *a, const void *b)
{
	const struct call *x = a, *y = b;

	return x->enter < y->enter ? -1 : x->enter > y->enter;
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

	if (m->nranks)
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
		rank_free(m->ranks[i]);
		m->ranks[i] = m->ranks[--m->nranks];
	}
	err = order_ranks(m);
	for (i = 0; i < m->nranks && !err; i++) {
		/* appended as they returned: in entry order, whatever thread made them */
		qsort(m->ranks[i]->calls, m->ranks[i]->n, sizeof(struct call), cmp_call);
		rank_totals(m->ranks[i]);
	}
	if (!err)
		err = mpi_episodes__form(m);
	if (!err)
		err = mpi_p2p__pair(m);
	if (!err)
		err = mpi_approx__run(m);
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

void mpi__episode_part(const struct mpi *m, size_t i, size_t j, size_t *rank_ix, __u64 *arrival,
		       __u64 *departure)
{
	const struct part *p = &m->parts[m->ep_first[i] + j];

	*rank_ix = p->rank_ix;
	*arrival = p->arrival;
	*departure = p->departure;
}

const struct mpi_run *mpi__run(const struct mpi *m)
{
	return &m->run;
}

__u64 mpi__unmatched_recvs(const struct mpi *m)
{
	return m->unmatched;
}
