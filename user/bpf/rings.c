// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Ring buffers, per CPU or shared (user/bpf/rings.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "lib/clock.h"
#include "lib/log.h"
#include "lib/ordered.h"
#include "sbt.skel.h"
#include "user/bpf/rings.h"

/* Records taken from one ring per drain at most: a target producing faster
 * than we consume must not keep the caller from its signal and timer
 * checks. */
#define RING_BUDGET 65536

/* A record can be taken after a later one of another CPU was handed on only
 * if its program was preempted between its reservation and its clock read;
 * where a ring is not known to be empty, the horizon keeps this much back. */
#define BEHIND_NS (1000ULL * 1000)

/* CPUs the BPF side's per-CPU counters have room for. */
#define BSS_CPUS (sizeof(((struct sbt__bss *)0)->drops_pending) / sizeof(__u64))

struct ring {
	struct rings *owner;
	struct ring_buffer *rb;
	int fd; /* a per-CPU ring's map, ours to close (-1: the shared one) */
	int idx;
	long taken;    /* records taken in this drain */
	__u64 last_ts; /* the newest record taken from it */
	/* the ring's positions, mapped read-only: equal, it is empty */
	const unsigned long *consumer_pos, *producer_pos;
};

struct rings {
	struct ring *r;
	int n;
	int per_cpu;
	size_t each; /* bytes per ring */
	int epfd;
	struct ordered *ord;
	/* how much earlier than its reservation a record may be stamped */
	__u64 stamped_before;
	/* the BPF side's loss counters (mapped .bss), and how many CPUs */
	struct sbt__bss *bss;
	int ncpus;
	/* the fullest ring's fill at the last drain's start, per mille */
	int fill;
};

static size_t ring_size(size_t total, int n)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), each = total / (size_t)n, sz = page;

	while (sz * 2 <= each)
		sz *= 2;
	return sz;
}

/* A sample holds one record, or a record and the COUNTERS records read in
 * the same probe hit. */
static int on_sample(void *ctx, void *data, size_t size)
{
	struct ring *r = ctx;
	const struct sbt_event *e = data;
	size_t i;

	for (i = 0; i < size / sizeof(*e); i++) {
		if (ordered__push(r->owner->ord, r->idx, &e[i]))
			return -ENOMEM;
		if (e[i].ts > r->last_ts)
			r->last_ts = e[i].ts;
		r->taken++;
	}
	/* the records are kept either way: libbpf has consumed them */
	return r->taken >= RING_BUDGET ? -EAGAIN : 0;
}

/* The consumer and producer positions of ring fd (its first two pages). */
static int map_positions(struct ring *r, int fd)
{
	long page = sysconf(_SC_PAGESIZE);
	void *c = mmap(NULL, page, PROT_READ, MAP_SHARED, fd, 0);
	void *p = mmap(NULL, page, PROT_READ, MAP_SHARED, fd, page);

	if (c == MAP_FAILED || p == MAP_FAILED) {
		if (c != MAP_FAILED)
			munmap(c, page);
		if (p != MAP_FAILED)
			munmap(p, page);
		return -errno;
	}
	r->consumer_pos = c;
	r->producer_pos = p;
	return 0;
}

/* Ring idx on map fd: mapped and watched. */
static int add_ring(struct rings *rs, int idx, int fd, char *err, size_t errlen)
{
	struct ring *r = &rs->r[idx];
	struct epoll_event ev = {.events = EPOLLIN};

	r->owner = rs;
	r->idx = idx;
	if (map_positions(r, fd)) {
		snprintf(err, errlen, "cannot map ring buffer %d: %s", idx, strerror(errno));
		return -errno;
	}
	r->rb = ring_buffer__new(fd, on_sample, r, NULL);
	if (!r->rb) {
		snprintf(err, errlen, "cannot map ring buffer %d: %s", idx, strerror(errno));
		return -errno;
	}
	if (epoll_ctl(rs->epfd, EPOLL_CTL_ADD, ring_buffer__epoll_fd(r->rb), &ev)) {
		snprintf(err, errlen, "cannot watch ring buffer %d: %s", idx, strerror(errno));
		return -errno;
	}
	return 0;
}

static int new_ring(__u32 size, char *err, size_t errlen)
{
	int fd = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "sbt_ring", 0, 0, size, NULL);

	if (fd < 0)
		snprintf(err, errlen, "cannot create a ring buffer of %u bytes: %s", size,
			 strerror(errno));
	return fd < 0 ? -errno : fd;
}

struct rings *rings__new(struct sbt *skel, int ncpus, size_t total_bytes, char *err, size_t errlen)
{
	int per_cpu = ncpus > 0;
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	struct rings *rs = calloc(1, sizeof(*rs));
	int i;

	if (!rs)
		goto nomem;
	rs->per_cpu = !!per_cpu;
	rs->n = per_cpu ? ncpus : 1;
	rs->each = per_cpu ? ring_size(total_bytes, rs->n) : total_bytes;
	rs->epfd = -1;
	rs->r = calloc(rs->n, sizeof(*rs->r));
	rs->ord = ordered__new(rs->n);
	if (!rs->r || !rs->ord)
		goto nomem;
	for (i = 0; i < rs->n; i++)
		rs->r[i].fd = -1;
	skel->rodata->per_cpu_rings = rs->per_cpu;
	skel->rodata->wakeup_bytes = rs->each / 4;
	bpf_map__set_max_entries(skel->maps.events, per_cpu ? page : total_bytes);
	bpf_map__set_max_entries(skel->maps.rings, rs->n);
	if (!per_cpu)
		return rs;
	/* CPU 0's ring is the template the verifier checks the others by */
	rs->r[0].fd = new_ring(rs->each, err, errlen);
	if (rs->r[0].fd < 0 || bpf_map__set_inner_map_fd(skel->maps.rings, rs->r[0].fd))
		goto fail;
	return rs;
nomem:
	snprintf(err, errlen, "out of memory");
fail:
	rings__free(rs);
	return NULL;
}

/* Ring i: created (CPU 0's was), installed for its CPU. */
static int install(struct rings *rs, struct sbt *skel, __u32 i, char *err, size_t errlen)
{
	if (rs->r[i].fd < 0)
		rs->r[i].fd = new_ring(rs->each, err, errlen);
	if (rs->r[i].fd < 0)
		return rs->r[i].fd;
	if (bpf_map_update_elem(bpf_map__fd(skel->maps.rings), &i, &rs->r[i].fd, BPF_ANY)) {
		snprintf(err, errlen, "cannot install the ring buffer of CPU %u: %s", i,
			 strerror(errno));
		return -errno;
	}
	return 0;
}

int rings__start(struct rings *rs, struct sbt *skel, char *err, size_t errlen)
{
	int i, e;

	rs->bss = skel->bss;
	rs->ncpus = libbpf_num_possible_cpus();
	if (rs->ncpus < 1 || rs->ncpus > (int)BSS_CPUS)
		rs->ncpus = BSS_CPUS;
	rs->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (rs->epfd < 0) {
		snprintf(err, errlen, "epoll: %s", strerror(errno));
		return -errno;
	}
	if (!rs->per_cpu) {
		log_info("one ring buffer of %zu KiB, shared by the CPUs", rs->each >> 10);
		return add_ring(rs, 0, bpf_map__fd(skel->maps.events), err, errlen);
	}
	log_info("%d per-CPU ring buffers of %zu KiB", rs->n, rs->each >> 10);
	for (i = 0; i < rs->n; i++) {
		e = install(rs, skel, i, err, errlen);
		if (!e)
			e = add_ring(rs, i, rs->r[i].fd, err, errlen);
		if (e)
			return e;
	}
	return 0;
}

void rings__free(struct rings *rs)
{
	int i;

	if (!rs)
		return;
	for (i = 0; rs->r && i < rs->n; i++) {
		ring_buffer__free(rs->r[i].rb);
		if (rs->r[i].consumer_pos)
			munmap((void *)rs->r[i].consumer_pos, sysconf(_SC_PAGESIZE));
		if (rs->r[i].producer_pos)
			munmap((void *)rs->r[i].producer_pos, sysconf(_SC_PAGESIZE));
		if (rs->r[i].fd >= 0)
			close(rs->r[i].fd);
	}
	if (rs->epfd >= 0)
		close(rs->epfd);
	ordered__free(rs->ord);
	free(rs->r);
	free(rs);
}

/* Bytes written to ring r and not consumed yet (its positions are mapped
 * from rings__start() on). */
static unsigned long ring_held(const struct ring *r)
{
	return __atomic_load_n(r->producer_pos, __ATOMIC_ACQUIRE) -
	       __atomic_load_n(r->consumer_pos, __ATOMIC_ACQUIRE);
}

/* The time before which ring r can produce no record it has not given us:
 * empty at some time, any record it makes later was reserved after, and
 * stamped after its reservation (or, at a self-timed site, at most
 * stamped_before earlier); not empty (a drain budget, a record being
 * written), not much before the newest record taken. */
static __u64 ring_horizon(const struct ring *r)
{
	__u64 now = clock_ns(CLOCK_MONOTONIC), early = r->owner->stamped_before;

	if (!ring_held(r))
		return now > early ? now - early : 0;
	early += BEHIND_NS;
	return r->last_ts > early ? r->last_ts - early : 0;
}

/* The records CPU cpu failed to reserve since the last look, as one LOST
 * record of source src (include/sbt/events.h). Taken after the source's
 * horizon was read: a loss not taken now happens later, so its record can
 * never come after the horizon passed it. The first loss's time is read
 * before the count is taken: a burst beginning in between makes the
 * window start early, never late. 0 or -ENOMEM. */
static int take_losses(struct rings *rs, int src, int cpu)
{
	struct sbt__bss *b = rs->bss;
	__u64 first = __atomic_load_n(&b->drops_first_ts[cpu], __ATOMIC_ACQUIRE), n;
	struct sbt_event e = {.type = SBT_EV_LOST};

	if (!__atomic_load_n(&b->drops_pending[cpu], __ATOMIC_RELAXED))
		return 0;
	n = __atomic_exchange_n(&b->drops_pending[cpu], 0, __ATOMIC_ACQ_REL);
	if (!n)
		return 0;
	e.ts = first;
	e.obj = __atomic_load_n(&b->drops_last_ts[cpu], __ATOMIC_ACQUIRE);
	e.site = __atomic_exchange_n(&b->drops_pending_phase[cpu], 0, __ATOMIC_ACQ_REL);
	e.pid = __atomic_load_n(&b->drops_last_pid[cpu], __ATOMIC_RELAXED);
	e.lost = n > 0xffffffffULL ? 0xffffffffU : (__u32)n;
	return ordered__push(rs->ord, src, &e);
}

/* Losses of the CPUs whose records ring r holds (all of them, shared). */
static int take_ring_losses(struct rings *rs, const struct ring *r)
{
	int cpu, err = 0;

	if (rs->per_cpu)
		return take_losses(rs, r->idx, r->idx);
	for (cpu = 0; cpu < rs->ncpus && !err; cpu++)
		err = take_losses(rs, r->idx, cpu);
	return err;
}

/* Take what every ring holds (a budget each). *horizon: the time before
 * which no ring can still produce a record. Returns records taken. */
static long take_all(struct rings *rs, __u64 *horizon)
{
	__u64 h = ~0ULL, mark;
	long total = 0;
	int i, rc;

	rs->fill = 0;
	for (i = 0; i < rs->n; i++) {
		struct ring *r = &rs->r[i];
		int fill = (int)(ring_held(r) * 1000 / rs->each);

		if (fill > rs->fill)
			rs->fill = fill;
		r->taken = 0;
		rc = ring_buffer__consume(r->rb);
		if (rc < 0 && rc != -EAGAIN)
			return rc;
		mark = ring_horizon(r);
		if (mark < h)
			h = mark;
		rc = take_ring_losses(rs, r);
		if (rc)
			return rc;
		total += r->taken;
	}
	*horizon = h;
	return total;
}

int rings__drain(struct rings *rs, int timeout_ms, rings_event_fn fn, void *ctx)
{
	struct epoll_event ev[8];
	__u64 horizon;
	long taken, handed;

	if (timeout_ms && epoll_wait(rs->epfd, ev, 8, timeout_ms) < 0 && errno == EINTR)
		return -EINTR;
	taken = take_all(rs, &horizon);
	if (taken < 0)
		return (int)taken;
	handed = ordered__flush(rs->ord, horizon, (size_t)RING_BUDGET * rs->n, fn, ctx);
	if (handed < 0)
		return (int)handed;
	return (int)taken;
}

int rings__flush(struct rings *rs, rings_event_fn fn, void *ctx)
{
	__u64 horizon;
	long rc;

	do {
		rc = take_all(rs, &horizon);
		if (rc < 0)
			return (int)rc;
	} while (rc > 0);
	while (ordered__len(rs->ord)) {
		rc = ordered__flush(rs->ord, ~0ULL, RING_BUDGET, fn, ctx);
		if (rc < 0)
			return (int)rc;
	}
	return 0;
}

int rings__fill(const struct rings *rs)
{
	return rs->fill;
}

void rings__user_stamped(struct rings *rs)
{
	rs->stamped_before = SBT_USER_TS_BEHIND_MAX_NS;
}

__u64 rings__late(const struct rings *rs)
{
	return rs->per_cpu ? ordered__late(rs->ord) : 0;
}
