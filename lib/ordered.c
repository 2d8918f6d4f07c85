// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Time ordering of several sources' records (lib/ordered.h): a sorted
 * queue per source (records come nearly sorted, so keeping it sorted costs
 * a comparison), merged by taking the oldest head. Linear in the number of
 * sources holding records per record flushed: fine for the CPUs of one
 * machine, whose rings are mostly idle.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "lib/ordered.h"

struct held {
	struct sbt_event ev;
	__u64 seq; /* push number: ties keep push order */
};

/* A circular queue, sorted by (ts, seq). */
struct queue {
	struct held *q;
	size_t head, n, cap; /* cap: a power of two, or 0 */
};

struct ordered {
	struct queue *src;
	int nsrc;
	size_t held;
	__u64 pushed;
	__u64 last_out; /* the newest timestamp flushed */
	__u64 late;
};

struct ordered *ordered__new(int nsrc)
{
	struct ordered *o = calloc(1, sizeof(*o));

	if (!o || nsrc < 1)
		goto fail;
	o->src = calloc(nsrc, sizeof(*o->src));
	if (!o->src)
		goto fail;
	o->nsrc = nsrc;
	return o;
fail:
	free(o);
	return NULL;
}

void ordered__free(struct ordered *o)
{
	int i;

	if (!o)
		return;
	for (i = 0; i < o->nsrc; i++)
		free(o->src[i].q);
	free(o->src);
	free(o);
}

static struct held *at(const struct queue *q, size_t i)
{
	return &q->q[(q->head + i) & (q->cap - 1)];
}

static int before(const struct held *a, const struct held *b)
{
	return a->ev.ts < b->ev.ts || (a->ev.ts == b->ev.ts && a->seq < b->seq);
}

/* Room for one more: double, unwrapping the circle. */
static int grow(struct queue *q)
{
	size_t cap = q->cap ? 2 * q->cap : 64, i;
	struct held *n;

	if (q->n < q->cap)
		return 0;
	n = malloc(cap * sizeof(*n));
	if (!n)
		return -ENOMEM;
	for (i = 0; i < q->n; i++)
		n[i] = *at(q, i);
	free(q->q);
	q->q = n;
	q->cap = cap;
	q->head = 0;
	return 0;
}

int ordered__push(struct ordered *o, int src, const struct sbt_event *e)
{
	struct queue *q = &o->src[src];
	struct held h = {.ev = *e, .seq = o->pushed};
	size_t i;

	if (grow(q))
		return -ENOMEM;
	/* from the tail back to its place: none to pass, nearly always */
	for (i = q->n; i > 0 && before(&h, at(q, i - 1)); i--)
		*at(q, i) = *at(q, i - 1);
	*at(q, i) = h;
	q->n++;
	o->pushed++;
	o->held++;
	o->late += e->ts < o->last_out;
	return 0;
}

/* The source whose head is the oldest record (-1: none held). */
static int oldest(const struct ordered *o)
{
	int i, best = -1;

	for (i = 0; i < o->nsrc; i++)
		if (o->src[i].n && (best < 0 || before(at(&o->src[i], 0), at(&o->src[best], 0))))
			best = i;
	return best;
}

long ordered__flush(struct ordered *o, __u64 horizon, size_t max, ordered_fn fn, void *ctx)
{
	long handed = 0;
	struct queue *q;
	struct held *h;
	int s, rc;

	while ((size_t)handed < max && (s = oldest(o)) >= 0) {
		q = &o->src[s];
		h = at(q, 0);
		if (h->ev.ts > horizon)
			break;
		rc = fn(ctx, &h->ev);
		if (rc < 0)
			return rc;
		if (h->ev.ts > o->last_out)
			o->last_out = h->ev.ts;
		q->head = (q->head + 1) & (q->cap - 1);
		q->n--;
		o->held--;
		handed++;
	}
	return handed;
}

size_t ordered__len(const struct ordered *o)
{
	return o->held;
}

__u64 ordered__late(const struct ordered *o)
{
	return o->late;
}
