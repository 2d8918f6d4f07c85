// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The .sbt trace file writer and reader; the format is described in tracefile.h. */
#define _FILE_OFFSET_BITS 64
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "lib/tracefile.h"

#define WBUF_SIZE (64 * 1024)
#define RBUF_RECS 1024 /* records per read: 40 KiB */

#define REC_SIZE ((__u64)sizeof(struct sbt_event))

/* Smallest encoding of one entry of each table: fixed fields + empty strings. It bounds the
 * count a section of a given length can hold, so a corrupt count cannot make us allocate. */
#define PROBE_MIN  (2 + 2 + 8 + 2 + 2)
#define SYMBOL_MIN (4 + 8 + 2)
#define THREAD_MIN (4 + 4 + 8 + 8 + 2)
#define PAIR_MIN   (2 + 2)
#define JOB_MIN	   (4 + 8 + 8 + 8 + 2)

static const char *const section_names[] = {
	[TF_SEC_INFO] = "INFO",	      [TF_SEC_PROBES] = "PROBES", [TF_SEC_SYMBOLS] = "SYMBOLS",
	[TF_SEC_THREADS] = "THREADS", [TF_SEC_DROPS] = "DROPS",	  [TF_SEC_COUNTERS] = "COUNTERS",
	[TF_SEC_ALPHA] = "ALPHA",     [TF_SEC_JOBS] = "JOBS",
};

#define NSECTIONS (sizeof(section_names) / sizeof(section_names[0]))

/* Records are written as is on little-endian hosts; elsewhere they are swapped to the
 * little-endian file order. The swap is its own inverse, so it serves both directions. */
static void event_to_le(struct sbt_event *e)
{
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
	e->ts = htole64(e->ts);
	e->obj = htole64(e->obj);
	e->site = htole64(e->site);
	e->pid = htole32(e->pid);
	e->tid = htole32(e->tid);
	e->type = htole16(e->type);
	e->probe = htole16(e->probe);
	e->lost = htole32(e->lost);
#endif
}

/* Converts the multi-byte header fields between host and file order (an involution). */
static void header_to_le(struct tf_header *h)
{
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
	h->version = htole32(h->version);
	h->header_size = htole32(h->header_size);
	h->record_size = htole32(h->record_size);
	h->flags = htole32(h->flags);
	h->nrecords = htole64(h->nrecords);
	h->meta_offset = htole64(h->meta_offset);
	h->meta_size = htole64(h->meta_size);
#endif
}

/* The provisional header (final == false) leaves nrecords and meta_offset 0: the "not
 * finalized" mark, which no finished trace has since its meta_offset is >= header_size. */
static void header_init(struct tf_header *h, bool final, __u64 nrecords, __u64 meta_size)
{
	memset(h, 0, sizeof(*h));
	memcpy(h->magic, TF_MAGIC, sizeof(h->magic));
	h->version = TF_VERSION;
	h->header_size = sizeof(*h);
	h->record_size = REC_SIZE;
	if (final) {
		h->nrecords = nrecords;
		h->meta_offset = sizeof(*h) + nrecords * REC_SIZE;
		h->meta_size = meta_size;
	}
	header_to_le(h);
}

/* write(2) until done: regular files may still return short counts (quota, signals). */
static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EIO;
		p += n;
		len -= n;
	}
	return 0;
}

static int pwrite_all(int fd, const void *buf, size_t len, off_t off)
{
	const char *p = buf;

	while (len) {
		ssize_t n = pwrite(fd, p, len, off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EIO;
		p += n;
		len -= n;
		off += n;
	}
	return 0;
}

/* Reads up to len bytes at off; returns the count (short only at end of file) or -errno. */
static ssize_t pread_all(int fd, void *buf, size_t len, off_t off)
{
	char *p = buf;
	size_t done = 0;

	while (done < len) {
		ssize_t n = pread(fd, p + done, len - done, off + done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		done += n;
	}
	return done;
}

/* --- writer ------------------------------------------------------------------------------ */

struct tf_writer {
	int fd;
	int err; /* first failure; sticky, so finish reports it */
	__u64 nrecords;
	size_t len; /* bytes pending in buf */
	char buf[WBUF_SIZE];
};

struct tf_writer *tracefile__create(const char *path)
{
	struct tf_writer *w;
	struct tf_header h;
	int err;

	w = calloc(1, sizeof(*w));
	if (!w)
		return NULL;
	w->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (w->fd < 0) {
		err = errno;
		free(w);
		errno = err;
		return NULL;
	}
	header_init(&h, false, 0, 0);
	err = write_all(w->fd, &h, sizeof(h));
	if (err) {
		close(w->fd);
		free(w);
		errno = -err;
		return NULL;
	}
	return w;
}

static int writer_flush(struct tf_writer *w)
{
	int err;

	if (w->err || !w->len)
		return w->err;
	err = write_all(w->fd, w->buf, w->len);
	w->len = 0;
	if (err)
		w->err = err;
	return err;
}

int tracefile__write(struct tf_writer *w, const struct sbt_event *ev, size_t n)
{
	size_t i;

	if (!w || (n && !ev))
		return -EINVAL;
	for (i = 0; i < n && !w->err; i++) {
		struct sbt_event *slot;

		if (w->len + REC_SIZE > sizeof(w->buf) && writer_flush(w))
			break;
		slot = (struct sbt_event *)(w->buf + w->len);
		memcpy(slot, &ev[i], sizeof(*slot));
		event_to_le(slot);
		w->len += REC_SIZE;
		w->nrecords++;
	}
	return w->err;
}

__u64 tracefile__records(const struct tf_writer *w)
{
	return w ? w->nrecords : 0;
}

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
	size_t at = mb_begin(b, TF_SEC_INFO);

	mb_u64(b, m->start_ns);
	mb_u64(b, m->end_ns);
	mb_u64(b, (__u64)m->realtime_offset_ns);
	mb_u32(b, 5);
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
	mb_end(b, at);
}

static int encode_meta(struct mbuf *b, const struct tf_meta *meta)
{
	static const struct tf_meta empty;
	const struct tf_meta *m = meta ? meta : &empty;

	encode_info(b, m);
	encode_probes(b, m);
	encode_symbols(b, m);
	encode_threads(b, m);
	encode_drops(b, m);
	encode_counters(b, m);
	encode_alpha(b, m);
	encode_jobs(b, m);
	/* a reader would refuse a larger block: fail now rather than write an unreadable trace */
	if (!b->err && b->len > TF_META_MAX)
		b->err = -EFBIG;
	return b->err;
}

int tracefile__finish(struct tf_writer *w, const struct tf_meta *meta)
{
	struct mbuf b = {0};
	struct tf_header h;
	int err;

	if (!w)
		return -EINVAL;
	err = writer_flush(w);
	if (!err)
		err = encode_meta(&b, meta);
	if (!err)
		err = write_all(w->fd, b.p, b.len);
	/* the header goes last, so a failure anywhere above leaves the "not finalized" mark */
	if (!err) {
		header_init(&h, true, w->nrecords, b.len);
		err = pwrite_all(w->fd, &h, sizeof(h), 0);
	}
	if (close(w->fd) && !err)
		err = -errno;
	free(b.p);
	free(w);
	return err;
}

/* --- reader ------------------------------------------------------------------------------ */

struct tf_reader {
	int fd;
	struct tf_meta meta;
	__u64 nrecords;
	__u64 data_off; /* offset of record 0 */
	__u64 next;	/* index of the next record to read from the file */
	__u32 buf_n, buf_i;
	struct sbt_event buf[RBUF_RECS];
};

/* Where open reports its failure. */
struct rctx {
	const char *path;
	char *err;
	size_t errlen;
};

/* Formats "path: reason" into the caller's buffer; returns -errnum for the caller to pass up. */
__attribute__((format(printf, 3, 4))) static int fail(const struct rctx *rc, int errnum,
						      const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!rc->err || !rc->errlen)
		return -errnum;
	n = snprintf(rc->err, rc->errlen, "%s: ", rc->path);
	if (n >= 0 && (size_t)n < rc->errlen) {
		va_start(ap, fmt);
		vsnprintf(rc->err + n, rc->errlen - n, fmt, ap);
		va_end(ap);
	}
	return -errnum;
}

static int overrun(const struct rctx *rc, const char *section)
{
	return fail(rc, EINVAL, "corrupt metadata: section %s overruns its length", section);
}

static int nomem(const struct rctx *rc)
{
	return fail(rc, ENOMEM, "out of memory reading the metadata");
}

/* A bounded view of the metadata: every read checks the bytes left first. */
struct cur {
	const __u8 *p;
	size_t left;
};

static bool take(struct cur *c, void *out, size_t n)
{
	if (c->left < n)
		return false;
	if (out)
		memcpy(out, c->p, n);
	c->p += n;
	c->left -= n;
	return true;
}

static bool get_u16(struct cur *c, __u16 *v)
{
	if (!take(c, v, sizeof(*v)))
		return false;
	*v = le16toh(*v);
	return true;
}

static bool get_u32(struct cur *c, __u32 *v)
{
	if (!take(c, v, sizeof(*v)))
		return false;
	*v = le32toh(*v);
	return true;
}

static bool get_u64(struct cur *c, __u64 *v)
{
	if (!take(c, v, sizeof(*v)))
		return false;
	*v = le64toh(*v);
	return true;
}

struct str {
	const char *s;
	__u16 len;
};

static bool get_str(struct cur *c, struct str *s)
{
	if (!get_u16(c, &s->len))
		return false;
	s->s = (const char *)c->p;
	return take(c, NULL, s->len);
}

static char *str_dup(const struct str *s)
{
	char *d = malloc(s->len + 1);

	if (d) {
		memcpy(d, s->s, s->len);
		d[s->len] = '\0';
	}
	return d;
}

/* Copies into a fixed array, truncating, always NUL-terminated. */
static void str_copy(char *dst, size_t size, const struct str *s)
{
	size_t n = s->len < size - 1 ? s->len : size - 1;

	memcpy(dst, s->s, n);
	dst[n] = '\0';
}

static bool str_is(const struct str *s, const char *lit)
{
	return s->len == strlen(lit) && !memcmp(s->s, lit, s->len);
}

/* The meta field an INFO key fills, NULL for keys we do not know. */
static char **info_slot(struct tf_meta *m, const struct str *key)
{
	if (str_is(key, "kernel"))
		return &m->kernel;
	if (str_is(key, "host"))
		return &m->host;
	if (str_is(key, "command"))
		return &m->command;
	if (str_is(key, "clock"))
		return &m->clock;
	if (str_is(key, "sbt_version"))
		return &m->sbt_version;
	return NULL;
}

static int parse_info(const struct rctx *rc, struct cur *c, struct tf_meta *m)
{
	__u64 rto;
	__u32 npairs, i;

	if (!get_u64(c, &m->start_ns) || !get_u64(c, &m->end_ns) || !get_u64(c, &rto) ||
	    !get_u32(c, &npairs) || npairs > c->left / PAIR_MIN)
		return overrun(rc, "INFO");
	m->realtime_offset_ns = (__s64)rto;
	for (i = 0; i < npairs; i++) {
		struct str key, val;
		char **slot, *v;

		if (!get_str(c, &key) || !get_str(c, &val))
			return overrun(rc, "INFO");
		slot = info_slot(m, &key);
		if (!slot)
			continue;
		v = str_dup(&val);
		if (!v)
			return nomem(rc);
		free(*slot); /* a repeated key: the last one wins */
		*slot = v;
	}
	return 0;
}

static int parse_probe(const struct rctx *rc, struct cur *c, struct sbt_probe_info *p, __u8 *seen)
{
	struct str sym, obj;

	if (!get_u16(c, &p->id) || !get_u16(c, &p->kind) || !get_u64(c, &p->offset) ||
	    !get_str(c, &sym) || !get_str(c, &obj))
		return overrun(rc, "PROBES");
	/* consumers index tables by probe id: it must be in range and unique */
	if (p->id >= SBT_MAX_PROBES)
		return fail(rc, EINVAL, "corrupt metadata: probe id %u out of range (max %d)",
			    p->id, SBT_MAX_PROBES - 1);
	if (seen[p->id]++)
		return fail(rc, EINVAL, "corrupt metadata: probe id %u appears twice", p->id);
	if (p->kind < SBT_PK_BARRIER || p->kind > SBT_PK_MAX)
		return fail(rc, EINVAL, "corrupt metadata: probe %u has unknown kind %u", p->id,
			    p->kind);
	str_copy(p->symbol, sizeof(p->symbol), &sym);
	str_copy(p->object, sizeof(p->object), &obj);
	return 0;
}

static int parse_probes(const struct rctx *rc, struct cur *c, struct tf_meta *m)
{
	__u8 seen[SBT_MAX_PROBES] = {0};
	__u32 n, i;
	int err;

	if (!get_u32(c, &n) || n > c->left / PROBE_MIN)
		return overrun(rc, "PROBES");
	if (n > SBT_MAX_PROBES)
		return fail(rc, EINVAL, "corrupt metadata: %u probes (at most %d)", n,
			    SBT_MAX_PROBES);
	if (!n)
		return 0;
	m->probes = calloc(n, sizeof(*m->probes));
	if (!m->probes)
		return nomem(rc);
	m->nprobes = n;
	for (i = 0; i < n; i++) {
		err = parse_probe(rc, c, &m->probes[i], seen);
		if (err)
			return err;
	}
	return 0;
}

static int parse_symbols(const struct rctx *rc, struct cur *c, struct tf_meta *m)
{
	__u32 n, i;

	if (!get_u32(c, &n) || n > c->left / SYMBOL_MIN)
		return overrun(rc, "SYMBOLS");
	if (!n)
		return 0;
	/* calloc'ed names are NULL, so a failure half-way frees cleanly */
	m->symbols = calloc(n, sizeof(*m->symbols));
	if (!m->symbols)
		return nomem(rc);
	m->nsymbols = n;
	for (i = 0; i < n; i++) {
		struct tf_symbol *s = &m->symbols[i];
		struct str name;

		if (!get_u32(c, &s->pid) || !get_u64(c, &s->addr) || !get_str(c, &name))
			return overrun(rc, "SYMBOLS");
		s->name = str_dup(&name);
		if (!s->name)
			return nomem(rc);
	}
	return 0;
}

static int parse_threads(const struct rctx *rc, struct cur *c, struct tf_meta *m)
{
	__u32 n, i;

	if (!get_u32(c, &n) || n > c->left / THREAD_MIN)
		return overrun(rc, "THREADS");
	if (!n)
		return 0;
	m->threads = calloc(n, sizeof(*m->threads));
	if (!m->threads)
		return nomem(rc);
	m->nthreads = n;
	for (i = 0; i < n; i++) {
		struct tf_thread *t = &m->threads[i];
		struct str comm;

		if (!get_u32(c, &t->pid) || !get_u32(c, &t->tid) || !get_u64(c, &t->start_ns) ||
		    !get_u64(c, &t->exit_ns) || !get_str(c, &comm))
			return overrun(rc, "THREADS");
		str_copy(t->comm, sizeof(t->comm), &comm);
	}
	return 0;
}

static int parse_drops(const struct rctx *rc, struct cur *c, struct tf_meta *m)
{
	__u32 n, i;

	if (!get_u64(c, &m->drops_total) || !get_u32(c, &n) || n > c->left / sizeof(__u64))
		return overrun(rc, "DROPS");
	if (!n)
		return 0;
	m->drops_per_cpu = calloc(n, sizeof(*m->drops_per_cpu));
	if (!m->drops_per_cpu)
		return nomem(rc);
	m->ncpus = n;
	for (i = 0; i < n; i++)
		get_u64(c, &m->drops_per_cpu[i]); /* cannot fail: n was checked above */
	return 0;
}

static int parse_counters(const struct rctx *rc, struct cur *c, struct tf_meta *m)
{
	__u32 n, i;

	if (!get_u32(c, &n))
		return overrun(rc, "COUNTERS");
	if (n > SBT_MAX_COUNTERS)
		return fail(rc, EINVAL, "corrupt metadata: %u counters (at most %d)", n,
			    SBT_MAX_COUNTERS);
	for (i = 0; i < n; i++) {
		struct sbt_counter_info *ci = &m->counters[i];
		struct str name;

		if (!get_u32(c, &ci->type) || !get_u64(c, &ci->config) || !get_u32(c, &ci->flags) ||
		    !get_str(c, &name))
			return overrun(rc, "COUNTERS");
		str_copy(ci->name, sizeof(ci->name), &name);
	}
	m->ncounters = n;
	return 0;
}

static int parse_alpha(const struct rctx *rc, struct cur *c, struct tf_meta *m)
{
	__u32 n, i;

	if (!get_u32(c, &n) || n > c->left / 16)
		return overrun(rc, "ALPHA");
	if (n > SBT_MAX_PROBES)
		return fail(rc, EINVAL, "corrupt metadata: %u probe costs (at most %d)", n,
			    SBT_MAX_PROBES);
	if (!n)
		return 0;
	m->alpha_enter = calloc(n, sizeof(__u64));
	m->alpha_exit = calloc(n, sizeof(__u64));
	if (!m->alpha_enter || !m->alpha_exit)
		return nomem(rc);
	m->nalpha = n;
	for (i = 0; i < n; i++) {
		get_u64(c, &m->alpha_enter[i]); /* cannot fail: n was checked above */
		get_u64(c, &m->alpha_exit[i]);
	}
	if (c->left >= 8) /* absent from traces of older versions */
		get_u64(c, &m->alpha_counters);
	return 0;
}

static int parse_jobs(const struct rctx *rc, struct cur *c, struct tf_meta *m)
{
	__u32 n, i;

	if (!get_u32(c, &n) || n > c->left / JOB_MIN)
		return overrun(rc, "JOBS");
	m->jobs = calloc(n + 1, sizeof(*m->jobs));
	if (!m->jobs)
		return nomem(rc);
	for (i = 0; i < n; i++) {
		struct tf_job *j = &m->jobs[i];
		struct str cmd;

		if (!get_u32(c, &j->pid) || !get_u64(c, &j->start_ns) || !get_u64(c, &j->end_ns) ||
		    !get_u64(c, &j->drops) || !get_str(c, &cmd))
			return overrun(rc, "JOBS");
		j->command = str_dup(&cmd);
		if (!j->command)
			return nomem(rc);
		m->njobs++;
	}
	return 0;
}

static int parse_section(const struct rctx *rc, __u32 tag, struct cur *c, struct tf_meta *m)
{
	switch (tag) {
	case TF_SEC_INFO:
		return parse_info(rc, c, m);
	case TF_SEC_PROBES:
		return parse_probes(rc, c, m);
	case TF_SEC_SYMBOLS:
		return parse_symbols(rc, c, m);
	case TF_SEC_THREADS:
		return parse_threads(rc, c, m);
	case TF_SEC_DROPS:
		return parse_drops(rc, c, m);
	case TF_SEC_COUNTERS:
		return parse_counters(rc, c, m);
	case TF_SEC_ALPHA:
		return parse_alpha(rc, c, m);
	case TF_SEC_JOBS:
		return parse_jobs(rc, c, m);
	}
	return 0; /* written by a newer version: skipped */
}

static int parse_meta(const struct rctx *rc, const __u8 *p, size_t size, struct tf_meta *m)
{
	struct cur c = {p, size};
	bool seen[NSECTIONS] = {false};

	while (c.left) {
		size_t off = size - c.left;
		__u32 tag, len;
		struct cur sec;
		int err;

		if (!get_u32(&c, &tag) || !get_u32(&c, &len))
			return fail(rc, EINVAL,
				    "corrupt metadata: truncated section header at byte %zu", off);
		if (len > c.left)
			return fail(
				rc, EINVAL,
				"corrupt metadata: section %s of %u bytes overruns the metadata "
				"block (%zu bytes left)",
				tag < NSECTIONS && section_names[tag] ? section_names[tag] : "?",
				len, c.left);
		sec = (struct cur){c.p, len};
		take(&c, NULL, len);
		if (tag >= NSECTIONS || !section_names[tag])
			continue;
		/* a second copy would leak the first or silently override it */
		if (seen[tag])
			return fail(rc, EINVAL, "corrupt metadata: duplicate section %s",
				    section_names[tag]);
		seen[tag] = true;
		err = parse_section(rc, tag, &sec, m);
		if (err)
			return err;
	}
	return 0;
}

/* The promise of tf_meta: strings are never NULL after a successful read. */
static int fill_strings(const struct rctx *rc, struct tf_meta *m)
{
	char **s[] = {&m->kernel, &m->host, &m->command, &m->clock, &m->sbt_version};
	size_t i;

	for (i = 0; i < sizeof(s) / sizeof(s[0]); i++) {
		if (!*s[i])
			*s[i] = strdup("");
		if (!*s[i])
			return nomem(rc);
	}
	return 0;
}

/* Reads and checks the header against the file's size; leaves it in host order. */
static int check_header(const struct rctx *rc, int fd, __u64 size, struct tf_header *h)
{
	__u64 end, held;
	ssize_t n;

	if (size == 0)
		return fail(rc, EINVAL, "empty file, not an sbt-bpf trace");
	n = pread_all(fd, h, sizeof(*h), 0);
	if (n < 0)
		return fail(rc, -n, "%s", strerror(-n));
	if ((size_t)n < sizeof(h->magic) || memcmp(h->magic, TF_MAGIC, sizeof(h->magic)))
		return fail(rc, EINVAL, "not an sbt-bpf trace (bad magic)");
	if ((size_t)n < sizeof(*h))
		return fail(rc, EINVAL, "truncated: the file ends inside the header (%zd bytes)",
			    n);
	header_to_le(h);
	if (h->version > TF_VERSION)
		return fail(rc, EINVAL,
			    "trace format version %u is newer than this sbt-bpf supports (%d); "
			    "upgrade sbt-bpf to read it",
			    h->version, TF_VERSION);
	if (h->version == 0)
		return fail(rc, EINVAL, "corrupt header: format version 0");
	if (h->header_size < sizeof(*h))
		return fail(rc, EINVAL, "corrupt header: header size %u (at least %zu)",
			    h->header_size, sizeof(*h));
	if (h->record_size != REC_SIZE)
		return fail(rc, EINVAL, "corrupt header: record size %u (expected %llu)",
			    h->record_size, (unsigned long long)REC_SIZE);
	if (h->nrecords == 0 && h->meta_offset == 0)
		return fail(rc, EINVAL, "trace was not finalized (recording interrupted?)");
	if (h->nrecords > (UINT64_MAX - h->header_size) / REC_SIZE)
		return fail(rc, EINVAL, "corrupt header: record count %llu overflows",
			    (unsigned long long)h->nrecords);
	end = h->header_size + h->nrecords * REC_SIZE;
	if (h->meta_offset != end)
		return fail(rc, EINVAL,
			    "corrupt header: metadata at offset %llu, expected %llu after %llu "
			    "records",
			    (unsigned long long)h->meta_offset, (unsigned long long)end,
			    (unsigned long long)h->nrecords);
	if (size < end) {
		held = size > h->header_size ? (size - h->header_size) / REC_SIZE : 0;
		return fail(rc, EINVAL,
			    "truncated: header says %llu records but the file holds %llu",
			    (unsigned long long)h->nrecords, (unsigned long long)held);
	}
	if (h->meta_size > UINT64_MAX - end)
		return fail(rc, EINVAL, "corrupt header: metadata size %llu overflows",
			    (unsigned long long)h->meta_size);
	if (size < end + h->meta_size)
		return fail(rc, EINVAL,
			    "truncated: header says %llu bytes of metadata but the file holds %llu",
			    (unsigned long long)h->meta_size, (unsigned long long)(size - end));
	if (size > end + h->meta_size)
		return fail(rc, EINVAL, "corrupt: %llu unexpected bytes after the metadata",
			    (unsigned long long)(size - end - h->meta_size));
	if (h->meta_size > TF_META_MAX)
		return fail(rc, EFBIG, "metadata block too large (%llu bytes, limit %u)",
			    (unsigned long long)h->meta_size, TF_META_MAX);
	return 0;
}

static int load_meta(const struct rctx *rc, struct tf_reader *r, const struct tf_header *h)
{
	__u8 *p = NULL;
	ssize_t n = 0;
	int err;

	if (h->meta_size) {
		p = malloc(h->meta_size);
		if (!p)
			return nomem(rc);
		n = pread_all(r->fd, p, h->meta_size, h->meta_offset);
	}
	if (n < 0)
		err = fail(rc, -n, "reading the metadata: %s", strerror(-n));
	else if ((__u64)n < h->meta_size)
		err = fail(rc, EIO, "truncated while reading the metadata");
	else
		err = parse_meta(rc, p, h->meta_size, &r->meta);
	if (!err)
		err = fill_strings(rc, &r->meta);
	free(p);
	return err;
}

static int reader_init(const struct rctx *rc, struct tf_reader *r)
{
	struct tf_header h;
	struct stat st;
	int err;

	r->fd = open(rc->path, O_RDONLY | O_CLOEXEC);
	if (r->fd < 0)
		return fail(rc, errno, "%s", strerror(errno));
	if (fstat(r->fd, &st))
		return fail(rc, errno, "%s", strerror(errno));
	if (!S_ISREG(st.st_mode))
		return fail(rc, EINVAL, "not a regular file");
	err = check_header(rc, r->fd, st.st_size, &h);
	if (err)
		return err;
	r->nrecords = h.nrecords;
	r->data_off = h.header_size;
	return load_meta(rc, r, &h);
}

struct tf_reader *tracefile__open(const char *path, char *err, size_t errlen)
{
	struct rctx rc = {path ? path : "(null)", err, errlen};
	struct tf_reader *r;
	int ret;

	if (err && errlen)
		err[0] = '\0';
	if (!path) {
		fail(&rc, EINVAL, "no trace file given");
		errno = EINVAL;
		return NULL;
	}
	r = calloc(1, sizeof(*r));
	if (!r) {
		fail(&rc, ENOMEM, "out of memory");
		errno = ENOMEM;
		return NULL;
	}
	r->fd = -1;
	ret = reader_init(&rc, r);
	if (ret) {
		tracefile__close(r);
		errno = -ret;
		return NULL;
	}
	return r;
}

const struct tf_meta *tracefile__meta(const struct tf_reader *r)
{
	return &r->meta;
}

__u64 tracefile__nrecords(const struct tf_reader *r)
{
	return r->nrecords;
}

/* Loads the next chunk of records: 1, 0 at the end, or -errno. */
static int reader_fill(struct tf_reader *r)
{
	__u64 left = r->nrecords - r->next;
	size_t n = left < RBUF_RECS ? left : RBUF_RECS;
	ssize_t got;

	if (!n)
		return 0;
	got = pread_all(r->fd, r->buf, n * REC_SIZE, r->data_off + r->next * REC_SIZE);
	if (got < 0)
		return got;
	/* the size was checked at open: a short read means the file shrank since */
	if ((size_t)got < n * REC_SIZE)
		return -EIO;
	r->buf_n = n;
	r->buf_i = 0;
	r->next += n;
	return 1;
}

int tracefile__next(struct tf_reader *r, struct sbt_event *out)
{
	int ret;

	if (r->buf_i == r->buf_n) {
		ret = reader_fill(r);
		if (ret <= 0)
			return ret;
	}
	*out = r->buf[r->buf_i++];
	event_to_le(out);
	return 1;
}

void tracefile__close(struct tf_reader *r)
{
	if (!r)
		return;
	if (r->fd >= 0)
		close(r->fd);
	tf_meta_free(&r->meta);
	free(r);
}

void tf_meta_free(struct tf_meta *m)
{
	__u32 i;

	if (!m)
		return;
	free(m->kernel);
	free(m->host);
	free(m->command);
	free(m->clock);
	free(m->sbt_version);
	free(m->probes);
	for (i = 0; m->symbols && i < m->nsymbols; i++)
		free(m->symbols[i].name);
	free(m->symbols);
	free(m->threads);
	free(m->drops_per_cpu);
	free(m->alpha_enter);
	free(m->alpha_exit);
	for (i = 0; m->jobs && i < m->njobs; i++)
		free(m->jobs[i].command);
	free(m->jobs);
	memset(m, 0, sizeof(*m));
}
