// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "lib/array.h"
#include "lib/hmap.h"
#include "analyses/phases.h"
#include "analyses/sync_impl.h"

/* futex(2) operations, private and clock flags masked (linux/futex.h). */
#define FUTEX_OP_MASK	      127
#define FUTEX_WAIT_OP	      0
#define FUTEX_WAKE_OP_	      1
#define FUTEX_REQUEUE_OP      3
#define FUTEX_CMP_REQUEUE_OP  4
#define FUTEX_WAKE_OP_OP      5
#define FUTEX_LOCK_PI_OP      6
#define FUTEX_UNLOCK_PI_OP    7
#define FUTEX_WAIT_BITSET_OP  9
#define FUTEX_WAKE_BITSET_OP  10
#define FUTEX_WAIT_REQUEUE_PI 11
#define FUTEX_LOCK_PI2_OP     13

void sync__on_pair(struct sync *s, sync_pair_fn fn, void *ctx)
{
	s->on_pair = fn;
	s->pair_ctx = ctx;
}

int sync__futex_is_wait(__u32 op)
{
	switch (op & FUTEX_OP_MASK) {
	case FUTEX_WAIT_OP:
	case FUTEX_LOCK_PI_OP:
	case FUTEX_WAIT_BITSET_OP:
	case FUTEX_WAIT_REQUEUE_PI:
	case FUTEX_LOCK_PI2_OP:
		return 1;
	}
	return 0;
}

int sync__futex_is_wake(__u32 op)
{
	switch (op & FUTEX_OP_MASK) {
	case FUTEX_WAKE_OP_:
	case FUTEX_REQUEUE_OP:
	case FUTEX_CMP_REQUEUE_OP:
	case FUTEX_WAKE_OP_OP:
	case FUTEX_UNLOCK_PI_OP:
	case FUTEX_WAKE_BITSET_OP:
		return 1;
	}
	return 0;
}

struct sync *sync__new(const struct sbt_probe_info *probes, int nprobes)
{
	struct sync *s = calloc(1, sizeof(*s));
	int k;

	if (!s)
		return NULL;
	s->probes = probes;
	s->nprobes = nprobes;
	for (k = 0; k < SYNC_NKINDS; k++)
		hmap_init(&s->objs[k]);
	hmap_init(&s->holds);
	hmap_init(&s->share_ix);
	hmap_init(&s->site_ix);
	return s;
}

void sync__free(struct sync *s)
{
	size_t i;
	int k;

	if (!s)
		return;
	for (k = 0; k < SYNC_NKINDS; k++) {
		for (i = 0; i < s->n[k]; i++) {
			free(s->list[k][i]->threads);
			free(s->list[k][i]->sites);
			free(s->list[k][i]->posts_q.buf);
			free(s->list[k][i]);
		}
		free(s->list[k]);
		hmap_free(&s->objs[k]);
	}
	hmap_free_values(&s->holds);
	hmap_free(&s->share_ix);
	hmap_free(&s->site_ix);
	free(s);
}

struct sync_obj *sync_obj_get(struct sync *s, int kind, __u32 pid, __u64 addr, __u16 probe)
{
	struct sync_obj *o = hmap_get(&s->objs[kind], pid, addr);

	if (o)
		return o;
	if (s->n[kind] == s->cap[kind]) {
		size_t cap = s->cap[kind] ? s->cap[kind] * 2 : 16;
		struct sync_obj **l = realloc(s->list[kind], cap * sizeof(*l));

		if (!l)
			return NULL;
		s->list[kind] = l;
		s->cap[kind] = cap;
	}
	o = hmap_put_new(&s->objs[kind], pid, addr, sizeof(*o));
	if (!o)
		return NULL;
	o->kind = kind;
	o->pid = pid;
	o->addr = addr;
	o->probe = probe;
	s->list[kind][s->n[kind]++] = o;
	return o;
}

struct sync_share *sync_share_of(struct sync *s, struct sync_obj *o, __u32 tid)
{
	struct sync_share *t;
	size_t i;

	if (hmap_get_index(&s->share_ix, (uintptr_t)o, tid, &i))
		return &o->threads[i];
	if (array_reserve((void **)&o->threads, &o->cap_threads, o->nthreads + 1, sizeof(*t)) ||
	    hmap_put_index(&s->share_ix, (uintptr_t)o, tid, o->nthreads))
		return NULL;
	t = &o->threads[o->nthreads++];
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	return t;
}

static void add_site(struct sync *s, struct sync_obj *o, __u64 site, __u64 wait_ns)
{
	size_t i;

	if (hmap_get_index(&s->site_ix, (uintptr_t)o, site, &i)) {
		o->sites[i].count++;
		o->sites[i].wait_ns += wait_ns;
		return;
	}
	if (array_reserve((void **)&o->sites, &o->cap_sites, o->nsites + 1, sizeof(*o->sites)) ||
	    hmap_put_index(&s->site_ix, (uintptr_t)o, site, o->nsites))
		return;
	o->sites[o->nsites++] = (struct sync_site){.site = site, .count = 1, .wait_ns = wait_ns};
}

/* Call c's time: waiting time of the object, the thread (sh) and its site. */
static void add_wait(struct sync *s, struct sync_obj *o, struct sync_share *sh,
		     const struct sync_call *c)
{
	__u64 wait = c->exit_ns - c->enter_ns;

	o->wait_ns += wait;
	if (wait > o->max_wait_ns)
		o->max_wait_ns = wait;
	o->blocked_ns += c->blocked_ns;
	if (sh)
		sh->wait_ns += wait;
	add_site(s, o, c->site, wait);
}

/* A successful wait or acquisition: counts, and its time. Contended: it
 * blocked in the kernel, or (a lock) found another thread holding it
 * (libomp's critical sections and libgomp's locks spin a while first; with
 * no futex tracing no wait shows). */
static void account_wait(struct sync *s, struct sync_obj *o, struct sync_share *sh,
			 const struct sync_call *c)
{
	o->count++;
	o->contended += c->futex_waits > 0 || (sh && sh->found_held);
	if (sh)
		sh->count++;
	add_wait(s, o, sh, c);
}

/* A wait that gave up (timed out): waiting time of the object and of the
 * thread, as a condvar's timed-out wait is, though no acquisition. */
static void account_timeout(struct sync *s, struct sync_obj *o, struct sync_share *sh,
			    const struct sync_call *c)
{
	o->timeouts++;
	add_wait(s, o, sh, c);
}

/* A wait that failed other than by a timeout (a semaphore wait a signal
 * interrupted: EINTR): waiting time too, up to the signal, which the
 * thread's phases count as sync wait as well. */
static void account_interrupted(struct sync *s, struct sync_obj *o, struct sync_share *sh,
				const struct sync_call *c)
{
	o->interrupted++;
	add_wait(s, o, sh, c);
}

/* ---- holds ------------------------------------------------------------------ */

/* A read lock's acquire: shared with other readers. */
static int read_lock(const struct sync *s, __u16 probe)
{
	return probe < s->nprobes && strstr(s->probes[probe].symbol, "rdlock") != NULL;
}

/* o gains (+1) or loses (-1) a holder of hold h. */
static void count_holder(struct sync_obj *o, const struct sync_hold *h, int delta)
{
	if (!o || (delta < 0 && !o->holding))
		return;
	o->holding += delta;
	if (!h->shared && (delta > 0 || o->exclusive))
		o->exclusive += delta;
}

/* tid holds lock (its object o, NULL: not known) from ts; shared: a read
 * lock. */
static void hold_begin(struct sync *s, struct sync_obj *o, __u32 tid, __u64 lock, __u64 ts,
		       int shared)
{
	struct sync_hold *h = hmap_get(&s->holds, tid, lock);

	if (!h && !(h = hmap_put_new(&s->holds, tid, lock, sizeof(*h))))
		return;
	sync_caused__hold_begin(o, h, ts);
	h->shared = shared;
	count_holder(o, h, 1);
}

/* Hold h of lock by tid ends at ts. */
static void hold_account(struct sync *s, __u32 pid, __u32 tid, __u64 lock, __u64 ts, __u16 probe,
			 const struct sync_hold *h)
{
	__u64 hold = ts > h->start ? ts - h->start : 0;
	struct sync_obj *o = sync_obj_get(s, SYNC_LOCK, pid, lock, probe);
	struct sync_share *sh;

	if (!o)
		return;
	count_holder(o, h, -1);
	o->holds++;
	o->hold_ns += hold;
	if (hold > o->max_hold_ns)
		o->max_hold_ns = hold;
	sh = sync_share_of(s, o, tid);
	if (sh)
		sh->hold_ns += hold;
	sync_caused__hold_end(s, o, tid, h, ts);
}

static void hold_end(struct sync *s, __u32 pid, __u32 tid, __u64 lock, __u64 ts, __u16 probe)
{
	struct sync_hold *h = hmap_get(&s->holds, tid, lock);

	if (h && h->depth) { /* a recursive mutex's inner unlock */
		h->depth--;
		return;
	}
	h = hmap_del(&s->holds, tid, lock);

	/* none: acquired before the trace, or not by this thread; suspended:
	 * a condition wait gave it up, and did not return */
	if (h && !h->suspended)
		hold_account(s, pid, tid, lock, ts, probe, h);
	free(h);
}

/* ---- calls ---------------------------------------------------------------- */

int sync__call_result(const struct sbt_probe_info *probes, int nprobes, __u16 probe, __s64 retval)
{
	const char *sym = probe < nprobes ? probes[probe].symbol : "";

	if (!strncmp(sym, "omp_test_", 9))
		return (int)retval ? 0 : EBUSY;
	if (!strncmp(sym, "omp_", 4) || !strncmp(sym, "GOMP_", 5) || !strncmp(sym, "__kmpc_", 7))
		return 0;
	/* a robust mutex whose owner died: the caller holds it now */
	if ((int)retval == EOWNERDEAD)
		return 0;
	return (int)retval; /* an int: the upper bits are garbage */
}

static int timed(const struct sbt_probe_info *p)
{
	return strstr(p->symbol, "timed") || strstr(p->symbol, "clock");
}

/* Call c took a lock its thread holds already (a recursive mutex): one
 * more unlock comes before the hold ends, and no acquisition. */
static int relocked(struct sync *s, const struct sync_call *c)
{
	struct sync_hold *h = hmap_get(&s->holds, c->tid, c->obj);

	if (!h || h->suspended)
		return 0;
	h->depth++;
	return 1;
}

static void lock_call(struct sync *s, const struct sync_call *c, int kind)
{
	struct sync_obj *o = sync_obj_get(s, SYNC_LOCK, c->pid, c->obj, c->probe);
	int ret = sync__call_result(s->probes, s->nprobes, c->probe, c->retval);
	struct sync_share *sh;

	if (!o)
		return;
	/* a failed trylock neither waited (sync__acquire()) nor counts */
	sh = ret == 0 || kind != SBT_PK_TRYLOCK ? sync_share_of(s, o, c->tid) : NULL;
	sync_caused__acquired(o, sh, c->exit_ns);
	if (ret == 0 && relocked(s, c)) {
		o->nested++;
	} else if (ret == 0) {
		account_wait(s, o, sh, c);
		hold_begin(s, o, c->tid, c->obj, c->exit_ns, read_lock(s, c->probe));
	} else if (kind == SBT_PK_TRYLOCK) {
		o->failed++;
	} else if (ret == ETIMEDOUT) {
		account_timeout(s, o, sh, c);
	} else {
		account_interrupted(s, o, sh, c);
	}
	if (sh)
		sh->found_held = 0; /* a trylock's acquisition takes no stale one */
}

/* ---- semaphore pairing ------------------------------------------------------ */

static void post_push(struct sync_obj *o, __u32 tid, __u64 ts, __u64 ta, __u16 probe)
{
	struct sync_post v = {tid, ts, ta, probe};

	array_fifo_push(&o->posts_q, &v, sizeof(v), 0); /* no memory: the V is not paired */
}

/* A completed P takes the oldest V not yet taken, or an initial token.
 * Returns 1 with the V in *out, 0 for an initial token. */
static int pair_p(struct sync *s, struct sync_obj *o, const struct sync_call *c,
		  struct sync_post *out)
{
	struct sync_post v;

	if (!array_fifo_pop(&o->posts_q, &v, sizeof(v))) {
		o->initial_tokens++;
		if (s->on_pair)
			s->on_pair(s->pair_ctx, o, c, NULL);
		return 0;
	}
	o->paired++;
	if (c->futex_waits && c->exit_ns > v.ts)
		o->handoff_ns += c->exit_ns - v.ts;
	sync_caused__late_post(s, o, c, &v);
	if (s->on_pair)
		s->on_pair(s->pair_ctx, o, c, &v);
	if (out)
		*out = v;
	return 1;
}

/* sem_* return -1 and set errno, which we do not see: a failed timed wait
 * counts as a timeout, a failed plain wait as interrupted. */
static int sem_call(struct sync *s, const struct sync_call *c, int kind, struct sync_post *v)
{
	struct sync_obj *o = sync_obj_get(s, SYNC_SEM, c->pid, c->obj, c->probe);

	if (!o)
		return 0;
	o->barrier |= c->barrier;
	if ((int)c->retval == 0) {
		account_wait(s, o, sync_share_of(s, o, c->tid), c);
		return pair_p(s, o, c, v);
	} else if (kind == SBT_PK_SEM_TRYWAIT)
		o->failed++;
	else if (timed(&s->probes[c->probe]))
		account_timeout(s, o, sync_share_of(s, o, c->tid), c);
	else
		account_interrupted(s, o, sync_share_of(s, o, c->tid), c);
	return 0;
}

/* The mutex is released at the wait's entry (sync__cond_enter()) and held
 * again at its return. */
static void cond_call(struct sync *s, const struct sync_call *c)
{
	struct sync_obj *o = sync_obj_get(s, SYNC_COND, c->pid, c->obj, c->probe);

	const struct sync_hold *h = c->arg2 ? hmap_get(&s->holds, c->tid, c->arg2) : NULL;

	/* -1: no return, the thread ended in the wait (feed__abandon_waits()),
	 * not holding the mutex again */
	if (h && h->suspended && (int)c->retval != -1)
		hold_begin(s, hmap_get(&s->objs[SYNC_LOCK], c->pid, c->arg2), c->tid, c->arg2,
			   c->exit_ns, 0);
	if (!o)
		return;
	account_wait(s, o, sync_share_of(s, o, c->tid), c);
	o->barrier |= c->barrier;
	o->same_broadcaster |= c->same_broadcaster;
	sync_caused__cond_woken(s, o, c);
	if ((int)c->retval == ETIMEDOUT)
		o->timeouts++;
}

int sync__call(struct sync *s, const struct sync_call *c, struct sync_post *v)
{
	int kind;

	if (c->probe >= s->nprobes)
		return 0;
	kind = s->probes[c->probe].kind;
	switch (kind) {
	case SBT_PK_LOCK:
	case SBT_PK_TRYLOCK:
		lock_call(s, c, kind);
		break;
	case SBT_PK_SEM_WAIT:
	case SBT_PK_SEM_TRYWAIT:
		return sem_call(s, c, kind, v);
	case SBT_PK_COND_WAIT:
		cond_call(s, c);
		break;
	}
	return 0;
}

void sync__release(struct sync *s, __u32 pid, __u32 tid, __u16 probe, __u64 obj, __u64 ts, __u64 ta)
{
	struct sync_obj *o;

	if (probe >= s->nprobes)
		return;
	switch (s->probes[probe].kind) {
	case SBT_PK_UNLOCK:
		hold_end(s, pid, tid, obj, ts, probe);
		break;
	case SBT_PK_SEM_POST:
		o = sync_obj_get(s, SYNC_SEM, pid, obj, probe);
		if (o) {
			o->posts++;
			post_push(o, tid, ts, ta, probe);
		}
		break;
	case SBT_PK_COND_SIGNAL:
		o = sync_obj_get(s, SYNC_COND, pid, obj, probe);
		if (!o)
			break;
		if (strstr(s->probes[probe].symbol, "broadcast"))
			o->broadcasts++;
		else
			o->posts++;
		sync_caused__signal(o, tid, ts);
		break;
	}
}

void sync__cond_enter(struct sync *s, __u32 pid, __u32 tid, __u16 probe, __u64 mutex, __u64 ts)
{
	struct sync_hold *h = mutex ? hmap_get(&s->holds, tid, mutex) : NULL;

	if (!h || h->suspended)
		return;
	hold_account(s, pid, tid, mutex, ts, probe, h);
	h->suspended = 1;
}

void sync__acquire(struct sync *s, __u32 pid, __u32 tid, __u16 probe, __u64 obj, __u64 ts)
{
	struct sync_obj *o = sync_obj_get(s, SYNC_LOCK, pid, obj, probe);
	struct sync_share *sh = o ? sync_share_of(s, o, tid) : NULL;
	const struct sync_hold *own;
	__u32 mine;

	if (!o)
		return;
	sync_caused__acquire(o, sh, ts);
	if (!sh)
		return;
	own = hmap_get(&s->holds, tid, obj);
	mine = own && !own->suspended;
	/* another holder than itself (a recursive mutex locked again); a
	 * reader is held up by a writer only */
	if (read_lock(s, probe))
		sh->found_held = o->exclusive > (mine && !own->shared);
	else
		sh->found_held = o->holding > mine;
}

void sync__thread_exit(struct sync *s, __u32 pid, __u32 tid)
{
	const struct hmap_slot *sl;
	size_t pos = 0;

	/* the locks it held (a robust mutex's dead owner): held by nobody now */
	while ((sl = hmap_next(&s->holds, &pos))) {
		struct sync_hold *h = sl->val;

		if (sl->k1 != tid)
			continue;
		if (!h->suspended)
			count_holder(hmap_get(&s->objs[SYNC_LOCK], pid, sl->k2), h, -1);
		free(hmap_del(&s->holds, sl->k1, sl->k2));
	}
}

/* ---- futex ------------------------------------------------------------------ */

void sync__futex_wait(struct sync *s, __u32 pid, __u32 tid, __u64 uaddr, __u64 enter_ns,
		      __u64 exit_ns, int inside)
{
	struct sync_obj *o = sync_obj_get(s, SYNC_FUTEX, pid, uaddr, 0);
	__u64 d = exit_ns - enter_ns;
	struct sync_share *sh;

	if (!o)
		return;
	o->count++;
	o->wait_ns += d;
	o->blocked_ns += d;
	if (d > o->max_wait_ns)
		o->max_wait_ns = d;
	if (!inside) {
		o->outside++;
		o->outside_ns += d;
	}
	sh = sync_share_of(s, o, tid);
	if (sh) {
		sh->count++;
		sh->wait_ns += d;
	}
}

void sync__futex_joined(struct sync *s, __u32 pid, __u64 uaddr, __u32 joined_tid)
{
	struct sync_obj *o = sync_obj_get(s, SYNC_FUTEX, pid, uaddr, 0);

	if (!o || o->joined_tid == joined_tid)
		return;
	o->joined_tid = joined_tid;
	o->joined++;
}

void sync__futex_wake(struct sync *s, __u32 pid, __u64 uaddr, __s64 woken)
{
	struct sync_obj *o = sync_obj_get(s, SYNC_FUTEX, pid, uaddr, 0);

	if (!o)
		return;
	o->posts++;
	if (woken > 0)
		o->broadcasts += woken;
}

size_t sync__count(const struct sync *s, int kind)
{
	return kind >= 0 && kind < SYNC_NKINDS ? s->n[kind] : 0;
}

const struct sync_obj *sync__obj(const struct sync *s, int kind, size_t i)
{
	return i < sync__count(s, kind) ? s->list[kind][i] : NULL;
}
