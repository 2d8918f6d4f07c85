// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Metadata sections read from a hostile file (lib/tracefile.h): every count is
 * bounded by the bytes present before anything is allocated; sections that
 * repeat along a stream append, replace or update entries as the format says. */
#include "lib/tracefile/sections.h"
#include "lib/utf8.h"
#include "lib/array.h"
#include <endian.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Smallest encoding of one entry of each table: fixed fields + empty strings. It bounds the
 * count a section of a given length can hold, so a corrupt count cannot make us allocate. */
#define PROBE_MIN   (2 + 2 + 8 + 2 + 2)
#define SYMBOL_MIN  (4 + 8 + 2)
#define THREAD_MIN  (4 + 4 + 8 + 8 + 2)
#define PAIR_MIN    (2 + 2)
#define JOB_MIN	    (4 + 8 + 8 + 8 + 2)
#define COUNTER_MIN (4 + 8 + 4 + 2)
#define COST_MIN    (2 + 8 + 8 + 4)
#define BIND_MIN    (2 + 2 + 2)

int tf_fail(const struct rctx *rc, int errnum, const char *fmt, ...)
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
	return tf_fail(rc, EINVAL, "corrupt metadata: section %s overruns its length", section);
}

static int nomem(const struct rctx *rc)
{
	return tf_fail(rc, ENOMEM, "out of memory reading the metadata");
}

/* A bounded view of a section: every read checks the bytes left first. */
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

/* Strings of a trace are printed: what a traced process named itself
 * (threads, command lines) cannot reach the terminal as escape sequences
 * (lib/utf8.h). */
static char *str_dup(const struct str *s)
{
	char *d = malloc(s->len + 1);

	if (d) {
		memcpy(d, s->s, s->len);
		d[s->len] = '\0';
		utf8_printable(d);
	}
	return d;
}

/* Copies into a fixed array, truncating, always NUL-terminated. */
static void str_copy(char *dst, size_t size, const struct str *s)
{
	size_t n = s->len < size - 1 ? s->len : size - 1;

	memcpy(dst, s->s, n);
	dst[n] = '\0';
	utf8_printable(dst);
}

static bool str_is(const struct str *s, const char *lit)
{
	return s->len == strlen(lit) && !memcmp(s->s, lit, s->len);
}

/* A table section's entry count: what its bytes can hold bounds it, and so
 * does the most entries a reader accepts (have: entries earlier sections
 * gave). */
static int get_count(const struct rctx *rc, struct cur *c, int tag, size_t min_bytes, __u64 max,
		     __u64 have, const char *what, __u32 *n)
{
	if (!get_u32(c, n) || *n > c->left / min_bytes)
		return overrun(rc, tf_section_names[tag]);
	if (have + *n > max)
		return tf_fail(rc, EINVAL, "corrupt metadata: %llu %s (at most %llu)",
			       (unsigned long long)(have + *n), what, (unsigned long long)max);
	return 0;
}

/* Room for `need` entries of size bytes in *arr (array_reserve() zeroes the
 * new ones, so that a failure half-way frees cleanly), a read error if none. */
static int grow(const struct rctx *rc, void **arr, size_t *cap, size_t need, size_t size)
{
	return array_reserve(arr, cap, need, size) ? nomem(rc) : 0;
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
	if (str_is(key, "inject_delay_ns"))
		return &m->inject_delay_ns;
	if (str_is(key, "costs"))
		return &m->costs_source;
	if (str_is(key, "job_id"))
		return &m->job_id;
	return NULL;
}

/* Replaces the times and the keys it carries: the last INFO written wins. */
static int parse_info(struct tf_sections *s, const struct rctx *rc, struct cur *c)
{
	struct tf_meta *m = s->m;
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
		free(*slot);
		*slot = v;
	}
	return 0;
}

static int parse_probe(struct tf_sections *s, const struct rctx *rc, struct cur *c,
		       struct sbt_probe_info *p)
{
	struct str sym, obj;

	if (!get_u16(c, &p->id) || !get_u16(c, &p->kind) || !get_u64(c, &p->offset) ||
	    !get_str(c, &sym) || !get_str(c, &obj))
		return overrun(rc, "PROBES");
	/* consumers index tables by probe id: it must be in range and unique */
	if (p->id >= SBT_MAX_PROBES)
		return tf_fail(rc, EINVAL, "corrupt metadata: probe id %u out of range (max %d)",
			       p->id, SBT_MAX_PROBES - 1);
	if (s->probe_ids[p->id]++)
		return tf_fail(rc, EINVAL, "corrupt metadata: probe id %u appears twice", p->id);
	if (p->kind < SBT_PK_BARRIER || p->kind > SBT_PK_MAX)
		return tf_fail(rc, EINVAL, "corrupt metadata: probe %u has unknown kind %u", p->id,
			       p->kind);
	str_copy(p->symbol, sizeof(p->symbol), &sym);
	str_copy(p->object, sizeof(p->object), &obj);
	return 0;
}

/* Appended: probes of libraries found later. */
static int parse_probes(struct tf_sections *s, const struct rctx *rc, struct cur *c)
{
	struct tf_meta *m = s->m;
	__u32 i, n;
	int err = get_count(rc, c, TF_SEC_PROBES, PROBE_MIN, SBT_MAX_PROBES, m->nprobes, "probes",
			    &n);

	if (!err && n)
		err = grow(rc, (void **)&m->probes, &s->cap_probes, m->nprobes + n,
			   sizeof(*m->probes));
	for (i = 0; !err && i < n; i++)
		if (!(err = parse_probe(s, rc, c, &m->probes[m->nprobes])))
			m->nprobes++;
	return err;
}

/* Appended: names resolved as the recording went. */
static int parse_symbols(struct tf_sections *s, const struct rctx *rc, struct cur *c)
{
	struct tf_meta *m = s->m;
	__u32 i, n;
	int err = get_count(rc, c, TF_SEC_SYMBOLS, SYMBOL_MIN, UINT32_MAX, m->nsymbols, "symbols",
			    &n);

	if (!err && n)
		err = grow(rc, (void **)&m->symbols, &s->cap_symbols, m->nsymbols + n,
			   sizeof(*m->symbols));
	for (i = 0; !err && i < n; i++) {
		struct tf_symbol *sym = &m->symbols[m->nsymbols];
		struct str name;

		if (!get_u32(c, &sym->pid) || !get_u64(c, &sym->addr) || !get_str(c, &name))
			return overrun(rc, "SYMBOLS");
		sym->name = str_dup(&name);
		if (!sym->name)
			return nomem(rc);
		m->nsymbols++;
	}
	return err;
}

/* An entry whose key (k1, k2) an earlier one had replaces it, else it is
 * appended: the index it goes to, or -ENOMEM. */
static long slot_of(struct hmap *keys, uint64_t k1, uint64_t k2, __u32 *n)
{
	uintptr_t at = (uintptr_t)hmap_get(keys, k1, k2);

	if (at)
		return (long)(at - 2);
	if (hmap_put(keys, k1, k2, (void *)(uintptr_t)(*n + 2)))
		return -ENOMEM;
	return (*n)++;
}

/* Appended; a thread seen again (its exit, its name) replaces its entry. */
static int parse_threads(struct tf_sections *s, const struct rctx *rc, struct cur *c)
{
	struct tf_meta *m = s->m;
	__u32 i, n;
	int err = get_count(rc, c, TF_SEC_THREADS, THREAD_MIN, UINT32_MAX, m->nthreads, "threads",
			    &n);

	if (!err && n)
		err = grow(rc, (void **)&m->threads, &s->cap_threads, m->nthreads + n,
			   sizeof(*m->threads));
	for (i = 0; !err && i < n; i++) {
		struct tf_thread t = {0};
		struct str comm;
		long at;

		if (!get_u32(c, &t.pid) || !get_u32(c, &t.tid) || !get_u64(c, &t.start_ns) ||
		    !get_u64(c, &t.exit_ns) || !get_str(c, &comm))
			return overrun(rc, "THREADS");
		str_copy(t.comm, sizeof(t.comm), &comm);
		at = slot_of(&s->threads, (__u64)t.pid << 32 | t.tid, t.start_ns, &m->nthreads);
		if (at < 0)
			return nomem(rc);
		m->threads[at] = t;
	}
	return err;
}

/* The jobs' ranks and hosts after their entries (slots: where each entry
 * went); absent from older traces. */
static void parse_job_ranks(struct tf_meta *m, struct cur *c, const long *slots, __u32 n)
{
	__u32 i, rank_id;
	struct str host;

	for (i = 0; i < n; i++) {
		if (!get_u32(c, &rank_id) || !get_str(c, &host))
			return;
		/* a rank is an int: more is no rank */
		m->jobs[slots[i]].rank_id = rank_id <= INT32_MAX ? rank_id : 0;
		str_copy(m->jobs[slots[i]].host, sizeof(m->jobs[0].host), &host);
	}
}

/* Appended; a job seen again (its end, its losses) replaces its entry. */
static int parse_jobs(struct tf_sections *s, const struct rctx *rc, struct cur *c)
{
	struct tf_meta *m = s->m;
	long *slots = NULL;
	__u32 i, n;
	int err = get_count(rc, c, TF_SEC_JOBS, JOB_MIN, UINT32_MAX, m->njobs, "jobs", &n);

	/* present but empty is not absent: absent means a trace of one job */
	if (!err)
		err = grow(rc, (void **)&m->jobs, &s->cap_jobs, m->njobs + (n ? n : 1),
			   sizeof(*m->jobs));
	if (!err && !(slots = malloc((n + 1) * sizeof(*slots))))
		err = nomem(rc);
	for (i = 0; !err && i < n; i++) {
		struct tf_job j = {0};
		struct str cmd;
		long at;

		if (!get_u32(c, &j.pid) || !get_u64(c, &j.start_ns) || !get_u64(c, &j.end_ns) ||
		    !get_u64(c, &j.drops) || !get_str(c, &cmd)) {
			err = overrun(rc, "JOBS");
			break;
		}
		at = slot_of(&s->jobs, j.pid, j.start_ns, &m->njobs);
		j.command = at < 0 ? NULL : str_dup(&cmd);
		if (!j.command) {
			err = nomem(rc);
			break;
		}
		free(m->jobs[at].command);
		m->jobs[at] = j;
		slots[i] = at;
	}
	if (!err)
		parse_job_ranks(m, c, slots, n);
	free(slots);
	return err;
}

/* The last one counts: the losses so far. */
static int parse_drops(struct tf_sections *s, const struct rctx *rc, struct cur *c)
{
	struct tf_meta *m = s->m;
	__u32 i, n;
	int err;

	free(m->drops_per_cpu);
	m->drops_per_cpu = NULL;
	m->ncpus = 0;
	if (!get_u64(c, &m->drops_total))
		return overrun(rc, "DROPS");
	err = get_count(rc, c, TF_SEC_DROPS, sizeof(__u64), UINT32_MAX, 0, "CPUs", &n);
	if (err || !n)
		return err;
	m->drops_per_cpu = calloc(n, sizeof(__u64));
	if (!m->drops_per_cpu)
		return nomem(rc);
	for (i = 0; i < n; i++)
		get_u64(c, &m->drops_per_cpu[i]); /* cannot fail: the count was checked */
	m->ncpus = n;
	return 0;
}

/* The last one counts (a fixed array in the meta: nothing to allocate). */
static int parse_counters(struct tf_sections *s, const struct rctx *rc, struct cur *c)
{
	struct tf_meta *m = s->m;
	__u32 i, n;
	int err =
		get_count(rc, c, TF_SEC_COUNTERS, COUNTER_MIN, SBT_MAX_COUNTERS, 0, "counters", &n);

	m->ncounters = 0;
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

/* The last one counts: the costs of every probe so far. */
static int parse_alpha(struct tf_sections *s, const struct rctx *rc, struct cur *c)
{
	struct tf_meta *m = s->m;
	__u32 i, n;
	int err = get_count(rc, c, TF_SEC_ALPHA, 16, SBT_MAX_PROBES, 0, "probe costs", &n);

	free(m->alpha_enter);
	free(m->alpha_exit);
	m->alpha_enter = m->alpha_exit = NULL;
	m->nalpha = 0;
	m->alpha_counters = 0;
	if (err)
		return err;
	if (n) {
		m->alpha_enter = calloc(n, sizeof(__u64));
		m->alpha_exit = calloc(n, sizeof(__u64));
		if (!m->alpha_enter || !m->alpha_exit)
			return nomem(rc);
		m->nalpha = n;
	}
	for (i = 0; i < n; i++) {
		get_u64(c, &m->alpha_enter[i]); /* cannot fail: the count was checked */
		get_u64(c, &m->alpha_exit[i]);
	}
	if (c->left >= 8) /* absent from traces of older versions */
		get_u64(c, &m->alpha_counters);
	return 0;
}

/* The index of symbol name among the meta's cost names, added if new; at
 * most TF_COST_NAMES_MAX of them. */
static int cost_name(struct tf_sections *s, const struct rctx *rc, const struct str *name,
		     __u32 *at)
{
	struct tf_meta *m = s->m;
	char buf[SBT_SYMBOL_MAX];
	__u32 i;

	str_copy(buf, sizeof(buf), name);
	for (i = 0; i < m->ncost_names; i++)
		if (!strcmp(m->cost_names[i], buf)) {
			*at = i;
			return 0;
		}
	if (m->ncost_names == TF_COST_NAMES_MAX)
		return tf_fail(rc, EINVAL, "corrupt metadata: more than %d calibrated symbols",
			       TF_COST_NAMES_MAX);
	if (grow(rc, (void **)&m->cost_names, &s->cap_cost_names, m->ncost_names + 1,
		 sizeof(*m->cost_names)))
		return -ENOMEM;
	m->cost_names[m->ncost_names] = strdup(buf);
	if (!m->cost_names[m->ncost_names])
		return nomem(rc);
	*at = m->ncost_names++;
	return 0;
}

/* Appended: one calibration, its costs after the earlier ones'. */
static int parse_calibration(struct tf_sections *s, const struct rctx *rc, struct cur *c)
{
	struct tf_meta *m = s->m;
	struct tf_calibration cal = {0};
	__u32 i, n;
	int err;

	if (!get_u64(c, &cal.ts_ns))
		return overrun(rc, "CALIBRATION");
	err = get_count(rc, c, TF_SEC_CALIBRATION, COST_MIN, TF_COST_NAMES_MAX, 0,
			"calibrated costs", &n);
	if (!err && m->ncal_costs > UINT32_MAX - n)
		err = tf_fail(rc, EINVAL, "corrupt metadata: too many calibrated costs");
	if (!err)
		err = grow(rc, (void **)&m->calibrations, &s->cap_calibrations,
			   (size_t)m->ncalibrations + 1, sizeof(*m->calibrations));
	if (!err && n)
		err = grow(rc, (void **)&m->cal_costs, &s->cap_cal_costs, (size_t)m->ncal_costs + n,
			   sizeof(*m->cal_costs));
	cal.first = m->ncal_costs;
	for (i = 0; !err && i < n; i++) {
		struct tf_cost *k = &m->cal_costs[m->ncal_costs];
		struct str sym;

		if (!get_str(c, &sym) || !get_u64(c, &k->entry_ns) || !get_u64(c, &k->exit_ns) ||
		    !get_u32(c, &k->cls))
			return overrun(rc, "CALIBRATION");
		err = cost_name(s, rc, &sym, &k->name);
		if (!err)
			m->ncal_costs++;
	}
	if (err)
		return err;
	cal.n = m->ncal_costs - cal.first;
	m->calibrations[m->ncalibrations++] = cal;
	return 0;
}

/* Appended; a probe id bound again replaces its entry. */
static int parse_probe_costs(struct tf_sections *s, const struct rctx *rc, struct cur *c)
{
	struct tf_meta *m = s->m;
	__u32 i, n;
	int err = get_count(rc, c, TF_SEC_PROBE_COSTS, BIND_MIN, SBT_MAX_PROBES, 0,
			    "probe cost bindings", &n);

	if (!err && n)
		err = grow(rc, (void **)&m->cost_binds, &s->cap_cost_binds,
			   (size_t)m->ncost_binds + n, sizeof(*m->cost_binds));
	for (i = 0; !err && i < n; i++) {
		struct tf_cost_bind b = {0};
		struct str sym;

		if (!get_u16(c, &b.id) || !get_u16(c, &b.how) || !get_str(c, &sym))
			return overrun(rc, "PROBE_COSTS");
		if (b.id >= SBT_MAX_PROBES)
			return tf_fail(
				rc, EINVAL,
				"corrupt metadata: probe cost of id %u out of range (max %d)", b.id,
				SBT_MAX_PROBES - 1);
		err = cost_name(s, rc, &sym, &b.name);
		if (err)
			break;
		/* at most one entry per id: SBT_MAX_PROBES bounds the table */
		if (s->bind_at[b.id]) {
			m->cost_binds[s->bind_at[b.id] - 1] = b;
		} else {
			s->bind_at[b.id] = m->ncost_binds + 1;
			m->cost_binds[m->ncost_binds++] = b;
		}
	}
	return err;
}

void tf_sections__init(struct tf_sections *s, struct tf_meta *m, bool once)
{
	memset(s, 0, sizeof(*s));
	s->m = m;
	s->once = once;
	hmap_init(&s->threads);
	hmap_init(&s->jobs);
}

int tf_sections__parse(struct tf_sections *s, const struct rctx *rc, __u32 tag, const __u8 *p,
		       size_t len)
{
	static int (*const parse[TF_NSECTIONS])(struct tf_sections *, const struct rctx *,
						struct cur *) = {
		[TF_SEC_INFO] = parse_info,
		[TF_SEC_PROBES] = parse_probes,
		[TF_SEC_SYMBOLS] = parse_symbols,
		[TF_SEC_THREADS] = parse_threads,
		[TF_SEC_DROPS] = parse_drops,
		[TF_SEC_COUNTERS] = parse_counters,
		[TF_SEC_ALPHA] = parse_alpha,
		[TF_SEC_JOBS] = parse_jobs,
		[TF_SEC_CALIBRATION] = parse_calibration,
		[TF_SEC_PROBE_COSTS] = parse_probe_costs,
	};
	struct cur c = {p, len};

	if (tag >= TF_NSECTIONS || !parse[tag])
		return 0; /* written by a newer version: skipped */
	/* version 1: a second copy would silently override the first */
	if (s->once && s->seen[tag])
		return tf_fail(rc, EINVAL, "corrupt metadata: duplicate section %s",
			       tf_section_names[tag]);
	s->seen[tag] = true;
	return parse[tag](s, rc, &c);
}

/* The promise of tf_meta: strings are never NULL after a successful read. */
int tf_sections__end(struct tf_sections *s, const struct rctx *rc)
{
	struct tf_meta *m = s->m;
	char **str[] = {&m->kernel,	 &m->host,	  &m->command,	   &m->clock,
			&m->sbt_version, &m->command_end, &m->costs_source, &m->inject_delay_ns,
			&m->job_id};
	size_t i;

	for (i = 0; i < sizeof(str) / sizeof(str[0]); i++) {
		if (!*str[i])
			*str[i] = strdup("");
		if (!*str[i])
			return nomem(rc);
	}
	return 0;
}

void tf_sections__free(struct tf_sections *s)
{
	hmap_free(&s->threads);
	hmap_free(&s->jobs);
}
