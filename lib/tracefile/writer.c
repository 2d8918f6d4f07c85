// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The .sbt writer: a stream of chunks (lib/tracefile.h), metadata ahead of
 * the records that need it, so that a file cut anywhere reads up to its last
 * complete record. */
#include "lib/tracefile/common.h"
#include "lib/outfile.h"
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define WBUF_RECS 1638 /* records per RECORDS chunk: 64 KiB */
#define CHUNK_HDR 8

/* A growable byte buffer for encoding the metadata; errors are sticky like the writer's. */
struct mbuf {
	__u8 *p;
	size_t len, cap;
	int err;
};

static void mb_put(struct mbuf *b, const void *v, size_t n)
{
	if (b->err || !n)
		return;
	if (n > b->cap - b->len) {
		size_t cap = b->cap ? b->cap : 4096;
		__u8 *p;

		while (cap - b->len < n && cap <= SIZE_MAX / 2)
			cap *= 2;
		p = cap - b->len >= n ? realloc(b->p, cap) : NULL;
		if (!p) {
			b->err = -ENOMEM;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, v, n);
	b->len += n;
}

static void mb_u16(struct mbuf *b, __u16 v)
{
	v = htole16(v);
	mb_put(b, &v, sizeof(v));
}

static void mb_u32(struct mbuf *b, __u32 v)
{
	v = htole32(v);
	mb_put(b, &v, sizeof(v));
}

static void mb_u64(struct mbuf *b, __u64 v)
{
	v = htole64(v);
	mb_put(b, &v, sizeof(v));
}

/* A string of at most max bytes; longer ones are cut at the 16-bit length limit. */
static void mb_strn(struct mbuf *b, const char *s, size_t max)
{
	size_t n = s ? strnlen(s, max) : 0;

	if (n > UINT16_MAX)
		n = UINT16_MAX;
	mb_u16(b, n);
	mb_put(b, s, n);
}

static void mb_str(struct mbuf *b, const char *s)
{
	mb_strn(b, s, UINT16_MAX);
}

/* Starts a section; returns where its length goes, for mb_end(). */
static size_t mb_begin(struct mbuf *b, __u32 tag)
{
	size_t at;

	mb_u32(b, tag);
	at = b->len;
	mb_u32(b, 0);
	return at;
}

static void mb_end(struct mbuf *b, size_t at)
{
	__u64 len = b->len - at - sizeof(__u32);
	__u32 v;

	if (b->err)
		return;
	if (len > UINT32_MAX) {
		b->err = -EFBIG;
		return;
	}
	v = htole32(len);
	memcpy(b->p + at, &v, sizeof(v));
}

static void encode_info(struct mbuf *b, const struct tf_meta *m)
{
	const char *clock = m->clock ? m->clock : "CLOCK_MONOTONIC";
	int end = m->command_end && *m->command_end, costs = m->costs_source && *m->costs_source;
	int inject = m->inject_delay_ns && *m->inject_delay_ns, job = m->job_id && *m->job_id;
	size_t at = mb_begin(b, TF_SEC_INFO);

	mb_u64(b, m->start_ns);
	mb_u64(b, m->end_ns);
	mb_u64(b, (__u64)m->realtime_offset_ns);
	mb_u32(b, 5 + end + costs + inject + job);
	mb_str(b, "kernel");
	mb_str(b, m->kernel);
	mb_str(b, "host");
	mb_str(b, m->host);
	mb_str(b, "command");
	mb_str(b, m->command);
	mb_str(b, "clock");
	mb_str(b, clock);
	mb_str(b, "sbt_version");
	mb_str(b, m->sbt_version);
	if (end) {
		mb_str(b, "command_end");
		mb_str(b, m->command_end);
	}
	if (costs) {
		mb_str(b, "costs");
		mb_str(b, m->costs_source);
	}
	if (inject) {
		mb_str(b, "inject_delay_ns");
		mb_str(b, m->inject_delay_ns);
	}
	if (job) {
		mb_str(b, "job_id");
		mb_str(b, m->job_id);
	}
	mb_end(b, at);
}

static void encode_probes(struct mbuf *b, const struct tf_meta *m)
{
	size_t at = mb_begin(b, TF_SEC_PROBES);
	__u32 i;

	mb_u32(b, m->probes ? m->nprobes : 0);
	for (i = 0; m->probes && i < m->nprobes; i++) {
		const struct sbt_probe_info *p = &m->probes[i];

		mb_u16(b, p->id);
		mb_u16(b, p->kind);
		mb_u64(b, p->offset);
		mb_strn(b, p->symbol, sizeof(p->symbol));
		mb_strn(b, p->object, sizeof(p->object));
	}
	mb_end(b, at);
}

static void encode_symbols(struct mbuf *b, const struct tf_meta *m)
{
	size_t at = mb_begin(b, TF_SEC_SYMBOLS);
	__u32 i;

	mb_u32(b, m->symbols ? m->nsymbols : 0);
	for (i = 0; m->symbols && i < m->nsymbols; i++) {
		mb_u32(b, m->symbols[i].pid);
		mb_u64(b, m->symbols[i].addr);
		mb_str(b, m->symbols[i].name);
	}
	mb_end(b, at);
}

static void encode_threads(struct mbuf *b, const struct tf_meta *m)
{
	size_t at = mb_begin(b, TF_SEC_THREADS);
	__u32 i;

	mb_u32(b, m->threads ? m->nthreads : 0);
	for (i = 0; m->threads && i < m->nthreads; i++) {
		const struct tf_thread *t = &m->threads[i];

		mb_u32(b, t->pid);
		mb_u32(b, t->tid);
		mb_u64(b, t->start_ns);
		mb_u64(b, t->exit_ns);
		mb_strn(b, t->comm, sizeof(t->comm));
	}
	mb_end(b, at);
}

static void encode_drops(struct mbuf *b, const struct tf_meta *m)
{
	size_t at = mb_begin(b, TF_SEC_DROPS);
	__u32 i;

	mb_u64(b, m->drops_total);
	mb_u32(b, m->drops_per_cpu ? m->ncpus : 0);
	for (i = 0; m->drops_per_cpu && i < m->ncpus; i++)
		mb_u64(b, m->drops_per_cpu[i]);
	mb_end(b, at);
}

static void encode_counters(struct mbuf *b, const struct tf_meta *m)
{
	size_t at = mb_begin(b, TF_SEC_COUNTERS);
	__u32 i, n = m->ncounters < SBT_MAX_COUNTERS ? m->ncounters : SBT_MAX_COUNTERS;

	mb_u32(b, n);
	for (i = 0; i < n; i++) {
		mb_u32(b, m->counters[i].type);
		mb_u64(b, m->counters[i].config);
		mb_u32(b, m->counters[i].flags);
		mb_str(b, m->counters[i].name);
	}
	mb_end(b, at);
}

static void encode_alpha(struct mbuf *b, const struct tf_meta *m)
{
	size_t at = mb_begin(b, TF_SEC_ALPHA);
	__u32 i, n = m->alpha_enter && m->alpha_exit ? m->nalpha : 0;

	mb_u32(b, n);
	for (i = 0; i < n; i++) {
		mb_u64(b, m->alpha_enter[i]);
		mb_u64(b, m->alpha_exit[i]);
	}
	/* added after the pairs: older readers stop before it */
	mb_u64(b, m->alpha_counters);
	mb_end(b, at);
}

static void encode_jobs(struct mbuf *b, const struct tf_meta *m)
{
	size_t at;
	__u32 i;

	if (!m->jobs)
		return;
	at = mb_begin(b, TF_SEC_JOBS);
	mb_u32(b, m->njobs);
	for (i = 0; i < m->njobs; i++) {
		mb_u32(b, m->jobs[i].pid);
		mb_u64(b, m->jobs[i].start_ns);
		mb_u64(b, m->jobs[i].end_ns);
		mb_u64(b, m->jobs[i].drops);
		mb_str(b, m->jobs[i].command);
	}
	/* added after the entries: older readers stop before them */
	for (i = 0; i < m->njobs; i++) {
		mb_u32(b, m->jobs[i].rank_id);
		mb_strn(b, m->jobs[i].host, sizeof(m->jobs[i].host));
	}
	mb_end(b, at);
}

/* The name of cost entry k, "" when it has none. */
static const char *cost_name(const struct tf_meta *m, __u32 k)
{
	return m->cost_names && k < m->ncost_names && m->cost_names[k] ? m->cost_names[k] : "";
}

/* A section per calibration, in the order given. */
static void encode_calibrations(struct mbuf *b, const struct tf_meta *m)
{
	__u32 i, k;

	for (i = 0; m->calibrations && i < m->ncalibrations; i++) {
		const struct tf_calibration *cal = &m->calibrations[i];
		__u32 n = cal->first <= m->ncal_costs && cal->n <= m->ncal_costs - cal->first
				  ? cal->n
				  : 0;
		size_t at = mb_begin(b, TF_SEC_CALIBRATION);

		if (!m->cal_costs || n > TF_COST_NAMES_MAX)
			n = 0;
		mb_u64(b, cal->ts_ns);
		mb_u32(b, n);
		for (k = cal->first; k < cal->first + n; k++) {
			mb_strn(b, cost_name(m, m->cal_costs[k].name), SBT_SYMBOL_MAX - 1);
			mb_u64(b, m->cal_costs[k].entry_ns);
			mb_u64(b, m->cal_costs[k].exit_ns);
			mb_u32(b, m->cal_costs[k].cls);
		}
		mb_end(b, at);
	}
}

static void encode_probe_costs(struct mbuf *b, const struct tf_meta *m)
{
	size_t at;
	__u32 i;

	if (!m->cost_binds || !m->ncost_binds)
		return;
	at = mb_begin(b, TF_SEC_PROBE_COSTS);
	mb_u32(b, m->ncost_binds);
	for (i = 0; i < m->ncost_binds; i++) {
		mb_u16(b, m->cost_binds[i].id);
		mb_u16(b, m->cost_binds[i].how);
		mb_strn(b, cost_name(m, m->cost_binds[i].name), SBT_SYMBOL_MAX - 1);
	}
	mb_end(b, at);
}

/* The sections of m named in mask, in tag order. */
static void encode_meta(struct mbuf *b, const struct tf_meta *m, unsigned int mask)
{
	static void (*const encode[TF_NSECTIONS])(struct mbuf *, const struct tf_meta *) = {
		[TF_SEC_INFO] = encode_info,
		[TF_SEC_PROBES] = encode_probes,
		[TF_SEC_SYMBOLS] = encode_symbols,
		[TF_SEC_THREADS] = encode_threads,
		[TF_SEC_DROPS] = encode_drops,
		[TF_SEC_COUNTERS] = encode_counters,
		[TF_SEC_ALPHA] = encode_alpha,
		[TF_SEC_JOBS] = encode_jobs,
		[TF_SEC_CALIBRATION] = encode_calibrations,
		[TF_SEC_PROBE_COSTS] = encode_probe_costs,
	};
	int tag;

	for (tag = 0; tag < TF_NSECTIONS; tag++)
		if (encode[tag] && (mask & TF_PUT(tag)))
			encode[tag](b, m);
}

struct tf_writer {
	int fd;
	int err; /* first failure; sticky: nothing is written after it */
	__u64 nrecords, written;
	__u64 meta_total; /* metadata bytes so far: readers load at most TF_META_MAX */
	struct mbuf meta; /* metadata chunks waiting, written before the records */
	void (*on_flush)(void *ctx, struct tf_writer *w);
	void *flush_ctx;
	int flushing;
	/* one RECORDS chunk: its header, then nbuf records */
	size_t nbuf;
	__u8 buf[CHUNK_HDR + WBUF_RECS * sizeof(struct sbt_event)];
};

static void header_init(struct tf_header *h)
{
	memset(h, 0, sizeof(*h));
	memcpy(h->magic, TF_MAGIC, sizeof(h->magic));
	h->version = TF_VERSION;
	h->header_size = sizeof(*h);
	h->record_size = REC_SIZE;
	tf_header_to_le(h);
}

struct tf_writer *tracefile__create(const char *path)
{
	struct tf_writer *w;
	struct tf_header h;
	int err;

	w = calloc(1, sizeof(*w));
	if (!w)
		return NULL;
	w->fd = outfile__open(path);
	if (w->fd < 0) {
		err = -w->fd;
		free(w);
		errno = err;
		return NULL;
	}
	header_init(&h);
	err = tf_write_all(w->fd, &h, sizeof(h), NULL);
	if (err) {
		close(w->fd);
		free(w);
		errno = -err;
		return NULL;
	}
	return w;
}

void tracefile__on_flush(struct tf_writer *w, void (*fn)(void *ctx, struct tf_writer *w), void *ctx)
{
	w->on_flush = fn;
	w->flush_ctx = ctx;
}

int tracefile__put_meta(struct tf_writer *w, const struct tf_meta *m, unsigned int sections)
{
	size_t before;

	if (!w || !m)
		return -EINVAL;
	if (w->err)
		return w->err;
	before = w->meta.len;
	encode_meta(&w->meta, m, sections);
	w->meta_total += w->meta.len - before;
	/* a reader would refuse more: fail now rather than write an unreadable trace */
	if (!w->meta.err && w->meta_total > TF_META_MAX)
		w->meta.err = -EFBIG;
	if (w->meta.err)
		w->err = w->meta.err;
	return w->err;
}

/* The metadata waiting, then the records: a failure half-way (the disk full) leaves a file
 * whose complete records are all counted in w->written, as a reader will find them. */
static int write_chunks(struct tf_writer *w)
{
	__u32 hdr[2] = {htole32(TF_SEC_RECORDS), htole32(w->nbuf * REC_SIZE)};
	size_t done = 0;
	int err = 0;

	if (w->meta.len)
		err = tf_write_all(w->fd, w->meta.p, w->meta.len, NULL);
	w->meta.len = 0;
	if (!err && w->nbuf) {
		memcpy(w->buf, hdr, sizeof(hdr));
		err = tf_write_all(w->fd, w->buf, CHUNK_HDR + w->nbuf * REC_SIZE, &done);
		if (done > CHUNK_HDR)
			w->written += (done - CHUNK_HDR) / REC_SIZE;
	}
	w->nbuf = 0;
	return err;
}

int tracefile__flush(struct tf_writer *w)
{
	if (!w)
		return -EINVAL;
	if (!w->err && w->on_flush && !w->flushing) {
		w->flushing = 1;
		w->on_flush(w->flush_ctx, w);
		w->flushing = 0;
	}
	if (!w->err)
		w->err = write_chunks(w);
	return w->err;
}

int tracefile__write(struct tf_writer *w, const struct sbt_event *ev, size_t n)
{
	size_t i;

	if (!w || (n && !ev))
		return -EINVAL;
	for (i = 0; i < n && !w->err; i++) {
		struct sbt_event *slot;

		if (w->nbuf == WBUF_RECS && tracefile__flush(w))
			break;
		slot = (struct sbt_event *)(w->buf + CHUNK_HDR + w->nbuf * REC_SIZE);
		memcpy(slot, &ev[i], sizeof(*slot));
		tf_event_to_le(slot);
		w->nbuf++;
		w->nrecords++;
	}
	return w->err;
}

__u64 tracefile__records(const struct tf_writer *w)
{
	return w ? w->nrecords : 0;
}

__u64 tracefile__records_written(const struct tf_writer *w)
{
	return w ? w->written : 0;
}

int tracefile__finish(struct tf_writer *w, const struct tf_meta *meta)
{
	__u32 hdr[2] = {htole32(TF_SEC_END), htole32(sizeof(__u64))};
	__u8 end[CHUNK_HDR + sizeof(__u64)];
	__u64 n;
	int err;

	if (!w)
		return -EINVAL;
	if (meta)
		tracefile__put_meta(w, meta, TF_PUT_META);
	err = tracefile__flush(w);
	/* the END mark goes last, so a failure anywhere above leaves a file that reads as cut */
	if (!err) {
		n = htole64(w->nrecords);
		memcpy(end, hdr, sizeof(hdr));
		memcpy(end + CHUNK_HDR, &n, sizeof(n));
		err = tf_write_all(w->fd, end, sizeof(end), NULL);
	}
	if (close(w->fd) && !err)
		err = -errno;
	free(w->meta.p);
	free(w);
	return err;
}
