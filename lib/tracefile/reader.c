// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The .sbt reader: a hostile file is checked before anything is allocated
 * (lib/tracefile.h); records are read in bounded chunks. */
#include "lib/tracefile/common.h"
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

#define RBUF_RECS 1024 /* records per read: 40 KiB */

/* Smallest encoding of one entry of each table: fixed fields + empty strings. It bounds the
 * count a section of a given length can hold, so a corrupt count cannot make us allocate. */
#define PROBE_MIN  (2 + 2 + 8 + 2 + 2)
#define SYMBOL_MIN (4 + 8 + 2)
#define THREAD_MIN (4 + 4 + 8 + 8 + 2)
#define PAIR_MIN   (2 + 2)
#define JOB_MIN	   (4 + 8 + 8 + 8 + 2)


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
	if (str_is(key, "command_end"))
		return &m->command_end;
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

/* How a table section is bounded: the smallest encoding of an entry (what
 * the section's bytes can hold caps the count before anything is
 * allocated), the most entries a reader accepts, and the size of one in
 * memory. */
struct table_shape {
	const char *what; /* "probes": for "corrupt metadata: N probes (at most M)" */
	size_t min_bytes;
	__u32 max;
	size_t size;
};

/* A table section's count, checked, and a zeroed array for it in *arr
 * (NULL when empty: an empty table reads as an absent one). */
static int get_table(const struct rctx *rc, struct cur *c, int tag, const struct table_shape *t,
		     void **arr, __u32 *n)
{
	if (!get_u32(c, n) || *n > c->left / t->min_bytes)
		return overrun(rc, tf_section_names[tag]);
	if (*n > t->max)
		return fail(rc, EINVAL, "corrupt metadata: %u %s (at most %u)", *n, t->what, t->max);
	if (!t->size || !*n)
		return 0;
	*arr = calloc(*n, t->size);
	return *arr ? 0 : nomem(rc);
}

static int parse_probes(const struct rctx *rc, struct cur *c, struct tf_meta *m)
{
	static const struct table_shape shape = {"probes", PROBE_MIN, SBT_MAX_PROBES,
						 sizeof(*m->probes)};
	__u8 seen[SBT_MAX_PROBES] = {0};
	__u32 i;
	int err = get_table(rc, c, TF_SEC_PROBES, &shape, (void **)&m->probes, &m->nprobes);

	for (i = 0; !err && i < m->nprobes; i++)
		err = parse_probe(rc, c, &m->probes[i], seen);
	return err;
}

static int parse_symbols(const struct rctx *rc, struct cur *c, struct tf_meta *m)
{
	static const struct table_shape shape = {"symbols", SYMBOL_MIN, UINT32_MAX,
						 sizeof(*m->symbols)};
	/* calloc'ed names are NULL, so a failure half-way frees cleanly */
	int err = get_table(rc, c, TF_SEC_SYMBOLS, &shape, (void **)&m->symbols, &m->nsymbols);
	__u32 i;

	for (i = 0; !err && i < m->nsymbols; i++) {
		struct tf_symbol *s = &m->symbols[i];
		struct str name;

		if (!get_u32(c, &s->pid) || !get_u64(c, &s->addr) || !get_str(c, &name))
			return overrun(rc, "SYMBOLS");
		s->name = str_dup(&name);
		if (!s->name)
			return nomem(rc);
	}
	return err;
}

static int parse_threads(const struct rctx *rc, struct cur *c, struct tf_meta *m)
{
	static const struct table_shape shape = {"threads", THREAD_MIN, UINT32_MAX,
						 sizeof(*m->threads)};
	int err = get_table(rc, c, TF_SEC_THREADS, &shape, (void **)&m->threads, &m->nthreads);
	__u32 i;

	for (i = 0; !err && i < m->nthreads; i++) {
		struct tf_thread *t = &m->threads[i];
		struct str comm;

		if (!get_u32(c, &t->pid) || !get_u32(c, &t->tid) || !get_u64(c, &t->start_ns) ||
		    !get_u64(c, &t->exit_ns) || !get_str(c, &comm))
			return overrun(rc, "THREADS");
		str_copy(t->comm, sizeof(t->comm), &comm);
	}
	return err;
}

static int parse_drops(const struct rctx *rc, struct cur *c, struct tf_meta *m)
{
	static const struct table_shape shape = {"CPUs", sizeof(__u64), UINT32_MAX,
						 sizeof(__u64)};
	__u32 i;
	int err;

	if (!get_u64(c, &m->drops_total))
		return overrun(rc, "DROPS");
	err = get_table(rc, c, TF_SEC_DROPS, &shape, (void **)&m->drops_per_cpu, &m->ncpus);
	for (i = 0; !err && i < m->ncpus; i++)
		get_u64(c, &m->drops_per_cpu[i]); /* cannot fail: the count was checked */
	return err;
}

static int parse_counters(const struct rctx *rc, struct cur *c, struct tf_meta *m)
{
	/* a fixed array in the meta: nothing to allocate */
	static const struct table_shape shape = {"counters", 1, SBT_MAX_COUNTERS, 0};
	__u32 i, n;
	int err = get_table(rc, c, TF_SEC_COUNTERS, &shape, NULL, &n);

	for (i = 0; !err && i < n; i++) {
		struct sbt_counter_info *ci = &m->counters[i];
		struct str name;

		if (!get_u32(c, &ci->type) || !get_u64(c, &ci->config) || !get_u32(c, &ci->flags) ||
		    !get_str(c, &name))
			return overrun(rc, "COUNTERS");
		str_copy(ci->name, sizeof(ci->name), &name);
	}
	if (!err)
		m->ncounters = n;
	return err;
}

static int parse_alpha(const struct rctx *rc, struct cur *c, struct tf_meta *m)
{
	static const struct table_shape shape = {"probe costs", 16, SBT_MAX_PROBES,
						 sizeof(__u64)};
	__u32 i;
	int err = get_table(rc, c, TF_SEC_ALPHA, &shape, (void **)&m->alpha_enter, &m->nalpha);

	if (!err && m->nalpha) {
		m->alpha_exit = calloc(m->nalpha, sizeof(__u64));
		err = m->alpha_exit ? 0 : nomem(rc);
	}
	for (i = 0; !err && i < m->nalpha; i++) {
		get_u64(c, &m->alpha_enter[i]); /* cannot fail: the count was checked */
		get_u64(c, &m->alpha_exit[i]);
	}
	if (!err && c->left >= 8) /* absent from traces of older versions */
		get_u64(c, &m->alpha_counters);
	return err;
}

static int parse_jobs(const struct rctx *rc, struct cur *c, struct tf_meta *m)
{
	static const struct table_shape shape = {"jobs", JOB_MIN, UINT32_MAX, sizeof(*m->jobs)};
	__u32 i, n;
	int err = get_table(rc, c, TF_SEC_JOBS, &shape, (void **)&m->jobs, &n);

	/* present but empty is not absent: absent means a trace of one job */
	if (!err && !m->jobs && !(m->jobs = calloc(1, sizeof(*m->jobs))))
		err = nomem(rc);
	for (i = 0; !err && i < n; i++) {
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
	return err;
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
	bool seen[TF_NSECTIONS] = {false};

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
				tag < TF_NSECTIONS && tf_section_names[tag] ? tf_section_names[tag] : "?",
				len, c.left);
		sec = (struct cur){c.p, len};
		take(&c, NULL, len);
		if (tag >= TF_NSECTIONS || !tf_section_names[tag])
			continue;
		/* a second copy would leak the first or silently override it */
		if (seen[tag])
			return fail(rc, EINVAL, "corrupt metadata: duplicate section %s",
				    tf_section_names[tag]);
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
	char **s[] = {&m->kernel, &m->host, &m->command, &m->clock, &m->sbt_version,
		      &m->command_end};
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
	n = tf_pread_all(fd, h, sizeof(*h), 0);
	if (n < 0)
		return fail(rc, -n, "%s", strerror(-n));
	if ((size_t)n < sizeof(h->magic) || memcmp(h->magic, TF_MAGIC, sizeof(h->magic)))
		return fail(rc, EINVAL, "not an sbt-bpf trace (bad magic)");
	if ((size_t)n < sizeof(*h))
		return fail(rc, EINVAL, "truncated: the file ends inside the header (%zd bytes)",
			    n);
	tf_header_to_le(h);
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
		n = tf_pread_all(r->fd, p, h->meta_size, h->meta_offset);
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
	got = tf_pread_all(r->fd, r->buf, n * REC_SIZE, r->data_off + r->next * REC_SIZE);
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
	tf_event_to_le(out);
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

