// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The .sbt trace file: round trips, a trace written as a recorder writes it, read at every
 * length it could have been cut to (killed, disk full), format 1 still read, clear rejection
 * of broken files, and a mutation fuzz that must never crash the reader. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>
#include "lib/tracefile.h"
#include "unit.h"

#define NREC 3000 /* spans several write buffers and read chunks */
#define REC  sizeof(struct sbt_event)

static void tmp_path(char *path)
{
	int fd;

	strcpy(path, "/tmp/sbt-tracefile-XXXXXX");
	fd = mkstemp(path);
	CHECK(fd >= 0);
	if (fd >= 0)
		close(fd);
}

static struct sbt_event make_event(__u32 i)
{
	return (struct sbt_event){
		.ts = 1000000000ull + i * 7919ull,
		.obj = 0x7f0000001000ull + (i % 5) * 64,
		.site = i % 2 ? 0x401000 + i : 0,
		.pid = 4242,
		.tid = 4242 + i % 8,
		.type = 1 + i % 4,
		.probe = i % 3,
		.lost = i % 97 == 0 ? i : 0,
		.cost = i % 3 ? 400 + i : 0,
		.flags = i % 3 ? SBT_RF_TIMED | SBT_RF_COST : 0,
	};
}

/* A meta with every field set, built with malloc as the API asks. */
static void make_meta(struct tf_meta *m)
{
	static const char *const syms[] = {"main", "worker", ""};
	__u32 i;

	memset(m, 0, sizeof(*m));
	m->kernel = strdup("6.8.0-45-generic");
	m->host = strdup("node17");
	m->command = strdup("./lu -n 4 'quoted arg'");
	m->clock = strdup("CLOCK_MONOTONIC");
	m->sbt_version = strdup("0.3.1");
	m->command_end = strdup("killed by SIGSEGV (core dumped)");
	m->inject_delay_ns = strdup("20000");
	m->start_ns = 1000000000ull;
	m->end_ns = 1000000000ull + NREC * 7919ull;
	m->realtime_offset_ns = -1234567890123ll;
	m->nprobes = 3;
	m->probes = calloc(m->nprobes, sizeof(*m->probes));
	for (i = 0; i < m->nprobes; i++) {
		m->probes[i].id = i + 1;
		m->probes[i].kind = SBT_PK_BARRIER + i;
		m->probes[i].offset = 0x9a10 + i * 0x100;
		snprintf(m->probes[i].symbol, SBT_SYMBOL_MAX, "probe_sym_%u", i);
		snprintf(m->probes[i].object, SBT_PATH_MAX,
			 "/usr/lib/x86_64-linux-gnu/libgomp.so.%u", i);
	}
	m->nsymbols = 3;
	m->symbols = calloc(m->nsymbols, sizeof(*m->symbols));
	for (i = 0; i < m->nsymbols; i++) {
		m->symbols[i].pid = 4242;
		m->symbols[i].addr = 0x401000 + i * 0x40;
		m->symbols[i].name = strdup(syms[i]);
	}
	m->nthreads = 2;
	m->threads = calloc(m->nthreads, sizeof(*m->threads));
	for (i = 0; i < m->nthreads; i++) {
		m->threads[i].pid = 4242;
		m->threads[i].tid = 4242 + i;
		m->threads[i].start_ns = 1000 + i;
		m->threads[i].exit_ns = i ? 0 : 99999;
		snprintf(m->threads[i].comm, sizeof(m->threads[i].comm), "lu-%u", i);
	}
	m->ncpus = 4;
	m->drops_per_cpu = calloc(m->ncpus, sizeof(*m->drops_per_cpu));
	for (i = 0; i < m->ncpus; i++)
		m->drops_per_cpu[i] = i * 10;
	m->drops_total = 60;
	m->nalpha = 3;
	m->alpha_enter = calloc(m->nalpha, sizeof(__u64));
	m->alpha_exit = calloc(m->nalpha, sizeof(__u64));
	for (i = 0; i < m->nalpha; i++) {
		m->alpha_enter[i] = 100 + i;
		m->alpha_exit[i] = 50 + i;
	}
	m->alpha_counters = 718;
	m->njobs = 2;
	m->jobs = calloc(m->njobs, sizeof(*m->jobs));
	m->jobs[0] = (struct tf_job){.pid = 4242,
				     .start_ns = 5,
				     .end_ns = 900,
				     .drops = 3,
				     .command = strdup("./lu -p8")};
	m->jobs[1] = (struct tf_job){.pid = 4243,
				     .start_ns = 7,
				     .command = strdup(""),
				     .rank_id = 3 + 1,
				     .host = "node07"};
	m->costs_source = strdup("session");
	/* two calibrations: three entries, then one of them again */
	m->ncost_names = 3;
	m->cost_names = calloc(m->ncost_names, sizeof(*m->cost_names));
	m->cost_names[0] = strdup("pthread_barrier_wait");
	m->cost_names[1] = strdup("[futex-tracepoints]");
	m->cost_names[2] = strdup("pthread_mutex_lock");
	m->ncal_costs = 4;
	m->cal_costs = calloc(m->ncal_costs, sizeof(*m->cal_costs));
	m->cal_costs[0] = (struct tf_cost){.name = 0, .cls = 1, .entry_ns = 705, .exit_ns = 672};
	m->cal_costs[1] = (struct tf_cost){.name = 1, .cls = 3, .entry_ns = 194, .exit_ns = 194};
	m->cal_costs[2] = (struct tf_cost){.name = 2, .cls = 0, .entry_ns = 9167, .exit_ns = 672};
	m->cal_costs[3] = (struct tf_cost){.name = 0, .cls = 1, .entry_ns = 811, .exit_ns = 690};
	m->ncalibrations = 2;
	m->calibrations = calloc(m->ncalibrations, sizeof(*m->calibrations));
	m->calibrations[0] = (struct tf_calibration){.ts_ns = 999000000ull, .first = 0, .n = 3};
	m->calibrations[1] = (struct tf_calibration){.ts_ns = 1000500000ull, .first = 3, .n = 1};
	m->ncost_binds = 2;
	m->cost_binds = calloc(m->ncost_binds, sizeof(*m->cost_binds));
	m->cost_binds[0] = (struct tf_cost_bind){.id = 1, .how = 1, .name = 0};
	m->cost_binds[1] = (struct tf_cost_bind){.id = 3, .how = 3, .name = 2};
}

/* m as a trace written before the probe costs were calibrated in the session
 * holds it: no CALIBRATION, PROBE_COSTS nor INFO "costs". */
static void drop_costs(struct tf_meta *m)
{
	__u32 i;

	for (i = 0; i < m->ncost_names; i++)
		free(m->cost_names[i]);
	free(m->cost_names);
	free(m->calibrations);
	free(m->cal_costs);
	free(m->cost_binds);
	free(m->costs_source);
	m->cost_names = NULL;
	m->calibrations = NULL;
	m->cal_costs = NULL;
	m->cost_binds = NULL;
	m->costs_source = NULL;
	m->ncost_names = m->ncalibrations = m->ncal_costs = m->ncost_binds = 0;
}

static void write_trace(const char *path, __u32 nrec, const struct tf_meta *m)
{
	struct tf_writer *w = tracefile__create(path);
	__u32 i;

	CHECK(w != NULL);
	if (!w)
		return;
	for (i = 0; i < nrec; i++) {
		struct sbt_event e = make_event(i);

		CHECK_EQ(tracefile__write(w, &e, 1), 0);
	}
	CHECK_EQ(tracefile__records(w), nrec);
	CHECK_EQ(tracefile__finish(w, m), 0);
}

static void check_meta_equal(const struct tf_meta *a, const struct tf_meta *b)
{
	__u32 i;

	CHECK_STR(a->kernel, b->kernel);
	CHECK_STR(a->host, b->host);
	CHECK_STR(a->command, b->command);
	CHECK_STR(a->clock, b->clock);
	CHECK_STR(a->sbt_version, b->sbt_version);
	CHECK_STR(a->command_end, b->command_end);
	CHECK_STR(a->inject_delay_ns, b->inject_delay_ns);
	CHECK_EQ(a->start_ns, b->start_ns);
	CHECK_EQ(a->end_ns, b->end_ns);
	CHECK(a->realtime_offset_ns == b->realtime_offset_ns);
	CHECK_EQ(a->nprobes, b->nprobes);
	for (i = 0; i < a->nprobes && i < b->nprobes; i++) {
		CHECK_EQ(a->probes[i].id, b->probes[i].id);
		CHECK_EQ(a->probes[i].kind, b->probes[i].kind);
		CHECK_EQ(a->probes[i].offset, b->probes[i].offset);
		CHECK_STR(a->probes[i].symbol, b->probes[i].symbol);
		CHECK_STR(a->probes[i].object, b->probes[i].object);
	}
	CHECK_EQ(a->nsymbols, b->nsymbols);
	for (i = 0; i < a->nsymbols && i < b->nsymbols; i++) {
		CHECK_EQ(a->symbols[i].pid, b->symbols[i].pid);
		CHECK_EQ(a->symbols[i].addr, b->symbols[i].addr);
		CHECK_STR(a->symbols[i].name, b->symbols[i].name);
	}
	CHECK_EQ(a->nthreads, b->nthreads);
	for (i = 0; i < a->nthreads && i < b->nthreads; i++) {
		CHECK_EQ(a->threads[i].pid, b->threads[i].pid);
		CHECK_EQ(a->threads[i].tid, b->threads[i].tid);
		CHECK_EQ(a->threads[i].start_ns, b->threads[i].start_ns);
		CHECK_EQ(a->threads[i].exit_ns, b->threads[i].exit_ns);
		CHECK_STR(a->threads[i].comm, b->threads[i].comm);
	}
	CHECK_EQ(a->drops_total, b->drops_total);
	CHECK_EQ(a->nalpha, b->nalpha);
	for (i = 0; i < a->nalpha && i < b->nalpha; i++) {
		CHECK_EQ(a->alpha_enter[i], b->alpha_enter[i]);
		CHECK_EQ(a->alpha_exit[i], b->alpha_exit[i]);
	}
	CHECK_EQ(a->alpha_counters, b->alpha_counters);
	CHECK_EQ(a->njobs, b->njobs);
	for (i = 0; i < a->njobs && i < b->njobs; i++) {
		CHECK_EQ(a->jobs[i].pid, b->jobs[i].pid);
		CHECK_EQ(a->jobs[i].start_ns, b->jobs[i].start_ns);
		CHECK_EQ(a->jobs[i].end_ns, b->jobs[i].end_ns);
		CHECK_EQ(a->jobs[i].drops, b->jobs[i].drops);
		CHECK_STR(a->jobs[i].command, b->jobs[i].command);
		CHECK_EQ(a->jobs[i].rank_id, b->jobs[i].rank_id);
		CHECK_STR(a->jobs[i].host, b->jobs[i].host);
	}
	CHECK_EQ(a->ncpus, b->ncpus);
	for (i = 0; i < a->ncpus && i < b->ncpus; i++)
		CHECK_EQ(a->drops_per_cpu[i], b->drops_per_cpu[i]);
	CHECK_STR(a->costs_source, b->costs_source ? b->costs_source : "");
	CHECK_EQ(a->ncost_names, b->ncost_names);
	for (i = 0; i < a->ncost_names && i < b->ncost_names; i++)
		CHECK_STR(a->cost_names[i], b->cost_names[i]);
	CHECK_EQ(a->ncalibrations, b->ncalibrations);
	for (i = 0; i < a->ncalibrations && i < b->ncalibrations; i++) {
		CHECK_EQ(a->calibrations[i].ts_ns, b->calibrations[i].ts_ns);
		CHECK_EQ(a->calibrations[i].first, b->calibrations[i].first);
		CHECK_EQ(a->calibrations[i].n, b->calibrations[i].n);
	}
	CHECK_EQ(a->ncal_costs, b->ncal_costs);
	for (i = 0; i < a->ncal_costs && i < b->ncal_costs; i++) {
		CHECK_EQ(a->cal_costs[i].name, b->cal_costs[i].name);
		CHECK_EQ(a->cal_costs[i].cls, b->cal_costs[i].cls);
		CHECK_EQ(a->cal_costs[i].entry_ns, b->cal_costs[i].entry_ns);
		CHECK_EQ(a->cal_costs[i].exit_ns, b->cal_costs[i].exit_ns);
	}
	CHECK_EQ(a->ncost_binds, b->ncost_binds);
	for (i = 0; i < a->ncost_binds && i < b->ncost_binds; i++) {
		CHECK_EQ(a->cost_binds[i].id, b->cost_binds[i].id);
		CHECK_EQ(a->cost_binds[i].how, b->cost_binds[i].how);
		CHECK_EQ(a->cost_binds[i].name, b->cost_binds[i].name);
	}
}

TEST(round_trip)
{
	struct tf_meta m;
	struct tf_reader *r;
	struct sbt_event e;
	char path[64], err[256];
	__u64 n = 0, bad = 0;

	tmp_path(path);
	make_meta(&m);
	write_trace(path, NREC, &m);
	r = tracefile__open(path, err, sizeof(err));
	CHECK(r != NULL);
	if (r) {
		CHECK_EQ(tracefile__nrecords(r), NREC);
		check_meta_equal(tracefile__meta(r), &m);
		while (tracefile__next(r, &e) == 1) {
			struct sbt_event want = make_event(n++);

			bad += memcmp(&e, &want, sizeof(e)) != 0;
		}
		CHECK_EQ(n, NREC);
		CHECK_EQ(bad, 0);
		CHECK_EQ(tracefile__next(r, &e), 0); /* stays at the end */
		CHECK_EQ(tracefile__cut(r), 0);
		tracefile__close(r);
	} else {
		printf("    %s\n", err);
	}
	tf_meta_free(&m);
	unlink(path);
}

/* tracefile__open_fd: the same reader on a descriptor the caller keeps (its offset
 * untouched, closing it later changes nothing); its name in the messages. */
TEST(open_fd)
{
	struct tf_meta m;
	struct tf_reader *r;
	struct sbt_event e;
	char path[64], err[256];
	int fd, pipefd[2];
	__u64 n = 0;

	tmp_path(path);
	make_meta(&m);
	write_trace(path, NREC, &m);
	fd = open(path, O_RDONLY);
	CHECK(fd >= 0);
	r = tracefile__open_fd(fd, "mem.sbt", err, sizeof(err));
	CHECK(r != NULL);
	CHECK_EQ(lseek(fd, 0, SEEK_CUR), 0);
	close(fd);
	if (r) {
		check_meta_equal(tracefile__meta(r), &m);
		while (tracefile__next(r, &e) == 1)
			n++;
		CHECK_EQ(n, NREC);
		tracefile__close(r);
	}
	CHECK(tracefile__open_fd(fd, "closed.sbt", err, sizeof(err)) == NULL);
	CHECK_EQ(errno, EBADF);
	CHECK_STR(err, "closed.sbt: Bad file descriptor");
	CHECK_EQ(pipe(pipefd), 0);
	CHECK(tracefile__open_fd(pipefd[0], NULL, err, sizeof(err)) == NULL);
	CHECK_STR(err, "(fd): not a regular file");
	close(pipefd[0]);
	close(pipefd[1]);
	tf_meta_free(&m);
	unlink(path);
}

TEST(empty_trace)
{
	struct tf_meta m = {0};
	struct tf_reader *r;
	struct sbt_event e;
	char path[64], err[256];

	tmp_path(path);
	write_trace(path, 0, NULL);
	r = tracefile__open(path, err, sizeof(err));
	CHECK(r != NULL);
	if (r) {
		const struct tf_meta *rm = tracefile__meta(r);

		CHECK_EQ(tracefile__nrecords(r), 0);
		CHECK_EQ(tracefile__next(r, &e), 0);
		CHECK_STR(rm->kernel, "");
		CHECK_STR(rm->command, "");
		CHECK_STR(rm->command_end, ""); /* not written: unknown */
		CHECK_STR(rm->inject_delay_ns, "");
		CHECK_STR(rm->clock, ""); /* no INFO at all */
		CHECK_EQ(tracefile__cut(r), 0);
		CHECK_EQ(rm->nprobes, 0);
		CHECK_EQ(rm->nsymbols, 0);
		CHECK_EQ(rm->nthreads, 0);
		CHECK_EQ(rm->ncpus, 0);
		CHECK(rm->probes == NULL && rm->symbols == NULL && rm->threads == NULL);
		tracefile__close(r);
	}
	/* zero records with a full meta */
	make_meta(&m);
	write_trace(path, 0, &m);
	r = tracefile__open(path, err, sizeof(err));
	CHECK(r != NULL);
	if (r) {
		check_meta_equal(tracefile__meta(r), &m);
		CHECK_EQ(tracefile__next(r, &e), 0);
		tracefile__close(r);
	}
	tf_meta_free(&m);
	unlink(path);
}

/* --- whole files in memory, for cutting and corrupting ------------------------------------- */

struct blob {
	unsigned char *p;
	size_t len;
};

static struct blob load(const char *path)
{
	struct blob b = {0};
	FILE *f = fopen(path, "rb");

	CHECK(f != NULL);
	if (!f)
		return b;
	fseek(f, 0, SEEK_END);
	b.len = ftell(f);
	rewind(f);
	b.p = malloc(b.len ? b.len : 1);
	CHECK_EQ(fread(b.p, 1, b.len, f), b.len);
	fclose(f);
	return b;
}

static void store(const char *path, const void *p, size_t len)
{
	FILE *f = fopen(path, "wb");

	CHECK(f != NULL);
	if (!f)
		return;
	if (len)
		CHECK_EQ(fwrite(p, 1, len, f), len);
	fclose(f);
}

static struct blob copy(const struct blob *b)
{
	struct blob c = {malloc(b->len), b->len};

	memcpy(c.p, b->p, b->len);
	return c;
}

/* A valid trace of nrec records and a full meta (at the end, as tracefile__finish puts it),
 * in memory. */
static struct blob valid_blob(const char *path, __u32 nrec)
{
	struct tf_meta m;

	make_meta(&m);
	write_trace(path, nrec, &m);
	tf_meta_free(&m);
	return load(path);
}

static void put32(struct blob *b, size_t off, __u32 v)
{
	if (off + 4 <= b->len)
		memcpy(b->p + off, &v, 4);
}

static void put64(struct blob *b, size_t off, __u64 v)
{
	if (off + 8 <= b->len)
		memcpy(b->p + off, &v, 8);
}

static __u32 get32(const struct blob *b, size_t off)
{
	__u32 v;

	memcpy(&v, b->p + off, 4);
	return v;
}

static __u64 get64(const struct blob *b, size_t off)
{
	__u64 v;

	memcpy(&v, b->p + off, 8);
	return v;
}

/* Offset of the payload of the nth (0: first) chunk with tag in a format 2 blob, 0 when none:
 * the test's own walk of the layout of lib/tracefile.h. */
static size_t find_chunk(const struct blob *b, __u32 tag, int nth)
{
	size_t off = TF_HEADER_SIZE;

	while (off + 8 <= b->len) {
		__u32 t = get32(b, off), len = get32(b, off + 4);

		if (t == tag && nth-- == 0)
			return off + 8;
		off += 8 + (size_t)len;
	}
	return 0;
}

/* Writes the blob and expects tracefile__open to fail with "path: " + want. */
static void expect_reject(const char *path, const struct blob *b, const char *want)
{
	char err[256], full[320];
	struct tf_reader *r;

	store(path, b->p, b->len);
	r = tracefile__open(path, err, sizeof(err));
	CHECK(r == NULL);
	tracefile__close(r);
	snprintf(full, sizeof(full), "%s: %s", path, want);
	CHECK_STR(err, full);
}

/* Records of format 1 and 2 files have no cost and flags (read as 0). */
static int legacy_records;

/* Opens path, which must read; its records must be make_event(0..): their count, or -1. */
static long read_all(const char *path, struct tf_reader **out)
{
	char err[256];
	struct tf_reader *r = tracefile__open(path, err, sizeof(err));
	struct sbt_event e;
	long n = 0, bad = 0;
	int ret;

	*out = r;
	if (!r) {
		printf("    %s\n", err);
		return -1;
	}
	while ((ret = tracefile__next(r, &e)) == 1) {
		struct sbt_event want = make_event(n++);

		if (legacy_records)
			want.cost = want.flags = 0;
		bad += memcmp(&e, &want, sizeof(e)) != 0;
	}
	CHECK_EQ(ret, 0);
	CHECK_EQ(bad, 0);
	CHECK_EQ(n, tracefile__nrecords(r));
	return n;
}

/* --- a trace written as the recorder writes it ------------------------------------------- */

#define STREAM_NAME_EVERY 25 /* a call site named every 25 records */
#define STREAM_PID	  4242

/* The recorder's side: the start of the recording before any record, names put by the flush
 * hook ahead of the records naming them, a probe found two thirds in, the end last. */
struct stream {
	struct tf_writer *w;
	__u32 named; /* records whose names were put */
	__u32 nrec;
	int err;       /* first failure returned by the writer */
	__u64 written; /* records the writer says it wrote, before the END mark */
};

static void note(struct stream *s, int err)
{
	if (err && !s->err)
		s->err = err;
}

static __u64 site_of(__u32 i)
{
	return 0x500000 + i;
}

/* The flush hook: names of the records buffered since the last flush. */
static void name_sites(void *ctx, struct tf_writer *w)
{
	struct stream *s = ctx;
	__u64 upto = tracefile__records(w);
	struct tf_symbol syms[64];
	struct tf_meta m = {.symbols = syms};
	char names[64][16];

	for (; s->named < upto; s->named++) {
		if (s->named % STREAM_NAME_EVERY)
			continue;
		snprintf(names[m.nsymbols], sizeof(names[0]), "site_%u", s->named);
		syms[m.nsymbols] =
			(struct tf_symbol){STREAM_PID, site_of(s->named), names[m.nsymbols]};
		if (++m.nsymbols == 64) {
			note(s, tracefile__put_meta(w, &m, TF_PUT(TF_SEC_SYMBOLS)));
			m.nsymbols = 0;
		}
	}
	if (m.nsymbols)
		note(s, tracefile__put_meta(w, &m, TF_PUT(TF_SEC_SYMBOLS)));
}

/* What the recording knows at its start: full's INFO without the end, two of its probes,
 * its jobs and threads still running. Shallow: nothing to free. */
static void put_start(struct stream *s, const struct tf_meta *full)
{
	struct tf_meta m = *full;
	struct tf_job jobs[2];
	struct tf_thread threads[2];
	__u32 i;

	m.end_ns = 0;
	m.command_end = NULL;
	m.nprobes = 2;
	m.nalpha = 3;
	for (i = 0; i < 2; i++) {
		jobs[i] = full->jobs[i];
		jobs[i].end_ns = jobs[i].drops = 0;
		threads[i] = full->threads[i];
		threads[i].exit_ns = 0;
	}
	m.jobs = jobs;
	m.threads = threads;
	note(s, tracefile__put_meta(s->w, &m,
				    TF_PUT(TF_SEC_INFO) | TF_PUT(TF_SEC_PROBES) |
					    TF_PUT(TF_SEC_ALPHA) | TF_PUT(TF_SEC_COUNTERS) |
					    TF_PUT(TF_SEC_JOBS) | TF_PUT(TF_SEC_THREADS)));
}

/* A probe found later (a library loaded): the third one, and the costs of all. */
static void put_late_probe(struct stream *s, const struct tf_meta *full)
{
	struct tf_meta m = {.probes = full->probes + 2,
			    .nprobes = 1,
			    .alpha_enter = full->alpha_enter,
			    .alpha_exit = full->alpha_exit,
			    .nalpha = full->nalpha,
			    .alpha_counters = full->alpha_counters};

	note(s, tracefile__put_meta(s->w, &m, TF_PUT(TF_SEC_PROBES) | TF_PUT(TF_SEC_ALPHA)));
}

/* Writes a stream of nrec records to path, flushed every flush_every records (0: when the
 * buffer is full), and returns what the writer said. */
static struct stream write_stream(const char *path, __u32 nrec, __u32 flush_every)
{
	struct stream s = {.nrec = nrec};
	struct tf_meta full;
	__u32 i;

	make_meta(&full);
	s.w = tracefile__create(path);
	CHECK(s.w != NULL);
	if (!s.w) {
		tf_meta_free(&full);
		return s;
	}
	tracefile__on_flush(s.w, name_sites, &s);
	put_start(&s, &full);
	note(&s, tracefile__flush(s.w));
	for (i = 0; i < nrec; i++) {
		struct sbt_event e = make_event(i);

		if (i == nrec * 2 / 3)
			put_late_probe(&s, &full);
		note(&s, tracefile__write(s.w, &e, 1));
		if (flush_every && (i + 1) % flush_every == 0)
			note(&s, tracefile__flush(s.w));
	}
	/* the end: INFO with the end time, jobs and threads with their ends, losses */
	note(&s, tracefile__put_meta(s.w, &full,
				     TF_PUT(TF_SEC_INFO) | TF_PUT(TF_SEC_JOBS) |
					     TF_PUT(TF_SEC_THREADS) | TF_PUT(TF_SEC_DROPS)));
	note(&s, tracefile__flush(s.w));
	s.written = tracefile__records_written(s.w);
	note(&s, tracefile__finish(s.w, NULL));
	s.w = NULL;
	tf_meta_free(&full);
	return s;
}

/* Where each record of a format 3 blob ends, and where the last chunk of each tag ends. */
struct layout {
	size_t *rec_end;
	__u32 nrec;
	size_t last_end[TF_SEC_PROBE_COSTS + 1];
};

static struct layout layout_of(const struct blob *b)
{
	struct layout l = {malloc(b->len / REC * sizeof(size_t) + 1), 0, {0}};
	size_t off = TF_HEADER_SIZE, k;

	while (off + 8 <= b->len) {
		__u32 tag = get32(b, off), len = get32(b, off + 4);

		for (k = 0; tag == TF_SEC_RECORDS && k < len / REC; k++)
			l.rec_end[l.nrec++] = off + 8 + (k + 1) * REC;
		if (tag <= TF_SEC_PROBE_COSTS)
			l.last_end[tag] = off + 8 + len;
		off += 8 + (size_t)len;
	}
	return l;
}

/* Complete records in the first len bytes. */
static __u32 records_within(const struct layout *l, size_t len)
{
	__u32 n = 0;

	while (n < l->nrec && l->rec_end[n] <= len)
		n++;
	return n;
}

/* The file at path, the first len bytes of full (laid out as l): readable up to its last
 * complete record, naming what those records refer to, or refused with a clear reason.
 * Returns 1 when it opened. */
static int check_prefix(const char *path, const struct blob *full, const struct layout *l,
			size_t len, __u32 nrec)
{
	__u32 want = records_within(l, len), i;
	struct tf_reader *r;
	char err[256], msg[320];
	long n;
	int end;

	if (!want) {
		r = tracefile__open(path, err, sizeof(err));
		CHECK(r == NULL);
		tracefile__close(r);
		snprintf(msg, sizeof(msg), "%s: %s", path,
			 len == 0  ? "empty file, not an sbt-bpf trace"
			 : len < 8 ? "not an sbt-bpf trace (bad magic)"
			 : len < TF_HEADER_SIZE
				 ? "truncated: the file ends inside the header"
				 : "truncated: the recording was cut before its first record "
				   "(recorder killed or disk full?)");
		if (strncmp(err, msg, strlen(msg)))
			CHECK_STR(err, msg);
		return 0;
	}
	n = read_all(path, &r);
	CHECK_EQ(n, want);
	if (r) {
		const struct tf_meta *m = tracefile__meta(r);
		int cut = len < full->len;

		CHECK_EQ(tracefile__cut(r), cut);
		/* the start of the recording precedes every record */
		CHECK_STR(m->command, "./lu -n 4 'quoted arg'");
		CHECK_EQ(m->njobs, 2);
		CHECK_EQ(m->nthreads, 2);
		CHECK_EQ(m->nprobes, want > nrec * 2 / 3 ? 3 : m->nprobes);
		CHECK(m->nprobes >= 2);
		/* every record read is named: the names went ahead of it */
		CHECK(m->nsymbols >= (want + STREAM_NAME_EVERY - 1) / STREAM_NAME_EVERY);
		for (i = 0; i < m->nsymbols && i < 3; i++)
			CHECK_EQ(m->symbols[i].addr, site_of(i * STREAM_NAME_EVERY));
		/* the end time: written at the end, else the last record's; ends of jobs and
		 * threads once written */
		end = len >= l->last_end[TF_SEC_INFO];
		CHECK_EQ(m->end_ns, end ? 1000000000ull + NREC * 7919ull : make_event(want - 1).ts);
		CHECK_STR(m->command_end, end ? "killed by SIGSEGV (core dumped)" : "");
		CHECK_EQ(m->jobs[0].end_ns, len >= l->last_end[TF_SEC_JOBS] ? 900 : 0);
		CHECK_EQ(m->threads[0].exit_ns, len >= l->last_end[TF_SEC_THREADS] ? 99999 : 0);
	}
	tracefile__close(r);
	return 1;
}

/* The whole stream: metadata accumulated across its chunks as lib/tracefile.h says. */
TEST(stream_round_trip)
{
	char path[64];
	struct tf_reader *r;
	struct tf_meta full;
	struct stream s;
	__u32 i;

	tmp_path(path);
	s = write_stream(path, 300, 40);
	CHECK_EQ(s.err, 0);
	CHECK_EQ(read_all(path, &r), 300);
	make_meta(&full);
	if (r) {
		const struct tf_meta *m = tracefile__meta(r);

		CHECK_EQ(tracefile__cut(r), 0);
		CHECK_EQ(m->nsymbols, 300 / STREAM_NAME_EVERY);
		for (i = 0; i < m->nsymbols; i++) {
			char want[16];

			snprintf(want, sizeof(want), "site_%u", i * STREAM_NAME_EVERY);
			CHECK_STR(m->symbols[i].name, want);
		}
		/* the probe found later is appended, the costs are the last written */
		CHECK_EQ(m->nprobes, 3);
		CHECK_STR(m->probes[2].symbol, "probe_sym_2");
		CHECK_EQ(m->nalpha, 3);
		CHECK_EQ(m->alpha_exit[2], 52);
		/* threads and jobs put again at their end replace their entries */
		CHECK_EQ(m->nthreads, 2);
		CHECK_EQ(m->threads[0].exit_ns, 99999);
		CHECK_EQ(m->njobs, 2);
		CHECK_EQ(m->jobs[0].end_ns, 900);
		CHECK_EQ(m->jobs[0].drops, 3);
		CHECK_STR(m->jobs[0].command, "./lu -p8");
		/* the INFO of the end replaces that of the start */
		CHECK_EQ(m->start_ns, full.start_ns);
		CHECK_EQ(m->end_ns, full.end_ns);
		CHECK_STR(m->command_end, full.command_end);
		CHECK_STR(m->kernel, full.kernel);
		CHECK_EQ(m->drops_total, 60);
		CHECK_EQ(m->ncpus, 4);
		CHECK_EQ(m->ncounters, 0);
	}
	tracefile__close(r);
	tf_meta_free(&full);
	unlink(path);
}

/* Cut at every byte (the recorder killed at any moment): the file reads up to its last
 * complete record, its records named, or is refused with a clear reason; never a crash. */
TEST(cut_at_every_length)
{
	char path[64];
	struct blob full;
	struct layout l;
	size_t len;
	int opened = 0, refused = 0;

	tmp_path(path);
	write_stream(path, 300, 40);
	full = load(path);
	l = layout_of(&full);
	CHECK_EQ(l.nrec, 300);
	for (len = full.len + 1; len-- > 0;) {
		CHECK_EQ(truncate(path, len), 0);
		if (check_prefix(path, &full, &l, len, 300))
			opened++;
		else
			refused++;
	}
	/* both outcomes were exercised */
	CHECK(opened > 0);
	CHECK(refused > 0);
	free(l.rec_end);
	free(full.p);
	unlink(path);
}

/* Records flushed only when the write buffer is full: the flush hook still puts their names
 * ahead of them, so a cut anywhere names every record read. */
TEST(cut_with_full_buffers)
{
	char path[64];
	struct blob full;
	struct layout l;
	size_t len;

	tmp_path(path);
	write_stream(path, 4000, 0);
	full = load(path);
	l = layout_of(&full);
	CHECK_EQ(l.nrec, 4000);
	CHECK(find_chunk(&full, TF_SEC_RECORDS, 2) != 0); /* several chunks */
	for (len = full.len + 1; len-- > 0;) {
		if (len % 41 && len + 8 < full.len)
			continue; /* every 41st length, and the last ones */
		CHECK_EQ(truncate(path, len), 0);
		check_prefix(path, &full, &l, len, 4000);
	}
	free(l.rec_end);
	free(full.p);
	unlink(path);
}

/* The disk full after `limit` bytes (RLIMIT_FSIZE fails writes as ENOSPC would): every call
 * after it fails, nothing is written past it, and the file reads up to its last record. */
TEST(disk_full)
{
	static const size_t limits[] = {70, 600, 5003, 9001, 12345};
	struct rlimit old, rl;
	char path[64], ref[64];
	struct blob full, got;
	struct layout l;
	struct stream s;
	size_t i;

	tmp_path(path);
	tmp_path(ref);
	write_stream(ref, 300, 40);
	full = load(ref);
	l = layout_of(&full);
	signal(SIGXFSZ, SIG_IGN);
	CHECK_EQ(getrlimit(RLIMIT_FSIZE, &old), 0);
	for (i = 0; i < sizeof(limits) / sizeof(limits[0]); i++) {
		rl = (struct rlimit){limits[i], old.rlim_max};
		CHECK_EQ(setrlimit(RLIMIT_FSIZE, &rl), 0);
		s = write_stream(path, 300, 40);
		CHECK_EQ(setrlimit(RLIMIT_FSIZE, &old), 0);
		CHECK_EQ(s.err, -EFBIG);
		got = load(path);
		/* the same bytes as the whole stream, up to the limit, and nothing after */
		CHECK_EQ(got.len, limits[i]);
		CHECK(got.len <= full.len && !memcmp(got.p, full.p, got.len));
		check_prefix(path, &full, &l, got.len, 300);
		/* what it says it wrote is what a reader finds, the cut chunk's records too */
		CHECK_EQ(s.written, records_within(&l, got.len));
		free(got.p);
	}
	signal(SIGXFSZ, SIG_DFL);
	free(l.rec_end);
	free(full.p);
	unlink(path);
	unlink(ref);
}

/* A recording in progress reads as cut, up to what was flushed. */
TEST(read_while_recording)
{
	char path[64], err[256], want[320];
	struct tf_writer *w;
	struct sbt_event ev[2000];
	struct tf_reader *r;
	__u32 i;

	tmp_path(path);
	snprintf(want, sizeof(want),
		 "%s: truncated: the recording was cut before its first record (recorder killed "
		 "or disk full?)",
		 path);
	w = tracefile__create(path);
	CHECK(w != NULL);
	if (!w)
		return;
	CHECK(tracefile__open(path, err, sizeof(err)) == NULL);
	CHECK_STR(err, want);
	for (i = 0; i < 2000; i++)
		ev[i] = make_event(i);
	CHECK_EQ(tracefile__write(w, ev, 2000), 0); /* more than a buffer: some reach the disk */
	CHECK_EQ(tracefile__records_written(w), 1638);
	CHECK_EQ(read_all(path, &r), 1638);
	CHECK(r && tracefile__cut(r));
	tracefile__close(r);
	CHECK_EQ(tracefile__flush(w), 0);
	CHECK_EQ(read_all(path, &r), 2000);
	CHECK(r && tracefile__cut(r));
	tracefile__close(r);
	CHECK_EQ(tracefile__finish(w, NULL), 0);
	CHECK_EQ(read_all(path, &r), 2000);
	CHECK(r && !tracefile__cut(r));
	tracefile__close(r);
	unlink(path);
}

/* --- format 1: written by earlier versions, still read ----------------------------------- */

/* tests/unit/golden/trace-v1.sbt: make_meta() and make_event(0..9), written by the format 1
 * writer. */
TEST(format1_read)
{
	char path[64], want[160];
	struct tf_reader *r;
	struct tf_meta m;
	struct blob b, orig;
	size_t second;

	legacy_records = 1;
	CHECK_EQ(read_all(GOLDEN_DIR "/trace-v1.sbt", &r), 10);
	legacy_records = 0;
	make_meta(&m);
	m.inject_delay_ns[0] = 0; /* a key the format 1 writer did not have */
	m.jobs[1].rank_id = 0;	  /* nor MPI ranks */
	m.jobs[1].host[0] = 0;
	/* older than the costs calibrated in the session: none read, the ALPHA section's alone */
	drop_costs(&m);
	if (r) {
		check_meta_equal(tracefile__meta(r), &m);
		CHECK_EQ(tracefile__meta(r)->ncalibrations, 0);
		CHECK_STR(tracefile__meta(r)->costs_source, "");
		CHECK_EQ(tracefile__cut(r), 0);
	}
	tracefile__close(r);
	tf_meta_free(&m);
	orig = load(GOLDEN_DIR "/trace-v1.sbt");
	CHECK_EQ(get32(&orig, 8), 1);
	tmp_path(path);
	/* not finalized: no way to find its metadata */
	b = copy(&orig);
	put64(&b, offsetof(struct tf_header, nrecords), 0);
	put64(&b, offsetof(struct tf_header, meta_offset), 0);
	expect_reject(path, &b,
		      "trace was not finalized (recording interrupted?); a trace of format "
		      "version 1 cannot be read without its end");
	free(b.p);
	b = copy(&orig);
	b.len = TF_HEADER_SIZE + 3 * 40 + 13;
	expect_reject(path, &b, "truncated: header says 10 records but the file holds 3");
	b.len = orig.len - 10;
	snprintf(want, sizeof(want),
		 "truncated: header says %llu bytes of metadata but the file holds %llu",
		 (unsigned long long)get64(&b, offsetof(struct tf_header, meta_size)),
		 (unsigned long long)get64(&b, offsetof(struct tf_header, meta_size)) - 10);
	expect_reject(path, &b, want);
	/* a section repeated: format 1 allows none */
	b.len = orig.len;
	second = get64(&b, offsetof(struct tf_header, meta_offset));
	second += 8 + get32(&b, second + 4); /* the second section: PROBES */
	CHECK_EQ(get32(&b, second), TF_SEC_PROBES);
	put32(&b, second, TF_SEC_INFO);
	expect_reject(path, &b, "corrupt metadata: duplicate section INFO");
	free(b.p);
	free(orig.p);
	unlink(path);
}

/* A format 3 blob as format 2 wrote it: 40-byte records, without cost and flags. */
static struct blob as_format2(const struct blob *v3)
{
	struct blob b = {malloc(v3->len), 0};
	size_t off = TF_HEADER_SIZE, k;

	memcpy(b.p, v3->p, TF_HEADER_SIZE);
	b.len = TF_HEADER_SIZE;
	put32(&b, offsetof(struct tf_header, version), 2);
	put32(&b, offsetof(struct tf_header, record_size), 40);
	while (off + 8 <= v3->len) {
		__u32 tag = get32(v3, off), len = get32(v3, off + 4), n = len / REC;

		memcpy(b.p + b.len, v3->p + off, 8);
		if (tag == TF_SEC_RECORDS) {
			n *= 40;
			memcpy(b.p + b.len + 4, &n, 4);
			n /= 40;
			for (k = 0; k < n; k++)
				memcpy(b.p + b.len + 8 + k * 40, v3->p + off + 8 + k * REC, 40);
			b.len += 8 + n * 40;
		} else {
			memcpy(b.p + b.len + 8, v3->p + off + 8, len);
			b.len += 8 + (size_t)len;
		}
		off += 8 + (size_t)len;
	}
	return b;
}

/* Format 2 (40-byte records) is still read: cost and flags come back 0. */
TEST(format2_read)
{
	char path[64], err[256];
	struct tf_reader *r;
	struct blob v3, v2;
	struct sbt_event e;
	__u32 n = 0, bad = 0;

	tmp_path(path);
	write_stream(path, 300, 40);
	v3 = load(path);
	v2 = as_format2(&v3);
	store(path, v2.p, v2.len);
	r = tracefile__open(path, err, sizeof(err));
	CHECK(r != NULL);
	while (r && tracefile__next(r, &e) == 1) {
		struct sbt_event want = make_event(n++);

		want.cost = want.flags = 0;
		bad += memcmp(&e, &want, sizeof(e)) != 0;
	}
	CHECK_EQ(n, 300);
	CHECK_EQ(bad, 0);
	CHECK(r && !tracefile__cut(r) && tracefile__meta(r)->nsymbols == 300 / STREAM_NAME_EVERY);
	tracefile__close(r);
	/* cut inside a record: read up to the last whole one */
	store(path, v2.p, v2.len - 60);
	r = tracefile__open(path, err, sizeof(err));
	CHECK(r && tracefile__cut(r) && tracefile__nrecords(r) < 300);
	tracefile__close(r);
	free(v2.p);
	free(v3.p);
	unlink(path);
}

/* --- broken files ------------------------------------------------------------------------- */

TEST(reject_missing_and_empty)
{
	char path[64], err[256], want[320];
	struct blob empty = {0};

	CHECK(tracefile__open("/nonexistent/dir/lu.sbt", err, sizeof(err)) == NULL);
	CHECK_STR(err, "/nonexistent/dir/lu.sbt: No such file or directory");
	tmp_path(path);
	expect_reject(path, &empty, "empty file, not an sbt-bpf trace");
	/* a directory is not a trace either */
	CHECK(tracefile__open("/tmp", err, sizeof(err)) == NULL);
	snprintf(want, sizeof(want), "/tmp: not a regular file");
	CHECK_STR(err, want);
	unlink(path);
}

TEST(reject_bad_magic_and_version)
{
	char path[64];
	struct blob b;

	tmp_path(path);
	b = valid_blob(path, 10);
	memcpy(b.p, "ELF\0\0\0\0\0", 8);
	expect_reject(path, &b, "not an sbt-bpf trace (bad magic)");
	memcpy(b.p, "SBTTRACE", 8);
	put32(&b, offsetof(struct tf_header, version), 4);
	expect_reject(path, &b,
		      "trace format version 4 is newer than this sbt-bpf supports (3); upgrade "
		      "sbt-bpf to read it");
	put32(&b, offsetof(struct tf_header, version), 3);
	put32(&b, offsetof(struct tf_header, record_size), 40);
	expect_reject(path, &b, "corrupt header: record size 40 (expected 48)");
	put32(&b, offsetof(struct tf_header, version), 2);
	put32(&b, offsetof(struct tf_header, record_size), 48);
	expect_reject(path, &b, "corrupt header: record size 48 (expected 40)");
	/* a file shorter than the header but with the magic */
	put32(&b, offsetof(struct tf_header, version), 3);
	put32(&b, offsetof(struct tf_header, record_size), 48);
	b.len = 20;
	expect_reject(path, &b, "truncated: the file ends inside the header (20 bytes)");
	b.len = 5;
	expect_reject(path, &b, "not an sbt-bpf trace (bad magic)");
	free(b.p);
	unlink(path);
}

TEST(reject_corrupt_chunks)
{
	char path[64], want[160];
	struct blob b, orig;
	size_t probes, threads, recs, end, second;
	struct tf_reader *r;
	struct layout l;

	tmp_path(path);
	orig = valid_blob(path, 5);
	b = copy(&orig);
	probes = find_chunk(&b, TF_SEC_PROBES, 0);
	threads = find_chunk(&b, TF_SEC_THREADS, 0);
	recs = find_chunk(&b, TF_SEC_RECORDS, 0);
	end = find_chunk(&b, TF_SEC_END, 0);
	CHECK(probes && threads && recs && end);
	put32(&b, probes, 0xffffffff); /* a count that would ask for gigabytes */
	expect_reject(path, &b, "corrupt metadata: section PROBES overruns its length");
	memcpy(b.p, orig.p, orig.len);
	put32(&b, probes + 4, 2000); /* id of the first probe (then kind) */
	expect_reject(path, &b, "corrupt metadata: probe id 2000 out of range (max 1023)");
	memcpy(b.p, orig.p, orig.len);
	put32(&b, probes + 4, 1 | 99u << 16);
	expect_reject(path, &b, "corrupt metadata: probe 1 has unknown kind 99");
	memcpy(b.p, orig.p, orig.len);
	/* the second probe gets the first one's id: skip count, fixed fields and two strings */
	second = probes + 4 + 12 + 2 + strlen("probe_sym_0") + 2 +
		 strlen("/usr/lib/x86_64-linux-gnu/libgomp.so.0");
	CHECK_EQ(b.p[second], 2);
	b.p[second] = 1;
	expect_reject(path, &b, "corrupt metadata: probe id 1 appears twice");
	memcpy(b.p, orig.p, orig.len);
	put32(&b, recs - 4, 41); /* a records chunk that is not whole records */
	snprintf(want, sizeof(want),
		 "corrupt: records chunk of 41 bytes at offset %zu (not a multiple of 48)", recs);
	expect_reject(path, &b, want);
	memcpy(b.p, orig.p, orig.len);
	put64(&b, end, 6);
	expect_reject(path, &b, "corrupt: the end mark says 6 records, the file holds 5");
	b.p = realloc(b.p, orig.len + 3);
	memcpy(b.p, orig.p, orig.len);
	memset(b.p + orig.len, 0xee, 3);
	b.len = orig.len + 3;
	expect_reject(path, &b, "corrupt: 3 unexpected bytes after the end mark");
	free(b.p);
	free(orig.p);
	/* a metadata chunk longer than the file (the threads' exits): cut there, what precedes
	 * it is read */
	write_stream(path, 300, 40);
	orig = load(path);
	l = layout_of(&orig);
	b = copy(&orig);
	threads = find_chunk(&b, TF_SEC_THREADS, 1);
	put32(&b, threads - 4, 0x7fffffff);
	store(path, b.p, b.len);
	CHECK_EQ(read_all(path, &r), records_within(&l, threads - 8));
	CHECK(r && tracefile__cut(r) && tracefile__meta(r)->threads[0].exit_ns == 0);
	tracefile__close(r);
	/* zeros where a chunk should start: the unwritten tail of a file, cut there */
	memcpy(b.p, orig.p, orig.len);
	recs = find_chunk(&b, TF_SEC_RECORDS, 3) - 8;
	memset(b.p + recs, 0, b.len - recs);
	store(path, b.p, b.len);
	CHECK_EQ(read_all(path, &r), 3 * 40);
	CHECK(r && tracefile__cut(r));
	tracefile__close(r);
	free(l.rec_end);
	free(b.p);
	free(orig.p);
	unlink(path);
}

/* One calibration (ts, a name and its entry cost) and bindings of ids to names, as a
 * recorder puts them along its stream: a meta of its own, names numbered in it. */
static void put_costs(struct tf_writer *w, __u64 ts, const char *name, __u64 cost, const __u16 *ids,
		      const char *const *bound, __u32 nbound)
{
	struct tf_meta m = {0};
	__u32 i;

	m.ncost_names = 1 + nbound;
	m.cost_names = calloc(m.ncost_names, sizeof(*m.cost_names));
	m.cost_names[0] = strdup(name);
	m.ncal_costs = 1;
	m.cal_costs = calloc(1, sizeof(*m.cal_costs));
	m.cal_costs[0] =
		(struct tf_cost){.name = 0, .cls = 1, .entry_ns = cost, .exit_ns = cost / 2};
	m.ncalibrations = 1;
	m.calibrations = calloc(1, sizeof(*m.calibrations));
	m.calibrations[0] = (struct tf_calibration){.ts_ns = ts, .first = 0, .n = 1};
	m.ncost_binds = nbound;
	m.cost_binds = calloc(nbound + 1, sizeof(*m.cost_binds));
	for (i = 0; i < nbound; i++) {
		m.cost_names[1 + i] = strdup(bound[i]);
		m.cost_binds[i] = (struct tf_cost_bind){.id = ids[i], .how = 3, .name = 1 + i};
	}
	CHECK_EQ(
		tracefile__put_meta(w, &m, TF_PUT(TF_SEC_CALIBRATION) | TF_PUT(TF_SEC_PROBE_COSTS)),
		0);
	tf_meta_free(&m);
}

/* Calibrations along a recording: each CALIBRATION chunk is one more, in the order
 * written; a probe id bound again keeps its place with the new entry; the names are
 * one table across the file. */
TEST(calibrations_along_a_stream)
{
	static const __u16 first[] = {1, 2}, again[] = {2, 5};
	static const char *const bound1[] = {"sem_wait", "pthread_mutex_lock"}, *const bound2[] = {
											"sem_wait",
											"sem_post"};
	struct tf_writer *w;
	struct tf_reader *r;
	const struct tf_meta *m;
	struct sbt_event e = make_event(0);
	char path[64];

	tmp_path(path);
	w = tracefile__create(path);
	CHECK(w != NULL);
	if (!w)
		return;
	put_costs(w, 1000, "sem_wait", 700, first, bound1, 2);
	CHECK_EQ(tracefile__write(w, &e, 1), 0);
	CHECK_EQ(tracefile__flush(w), 0);
	put_costs(w, 2000, "pthread_mutex_lock", 9000, again, bound2, 2);
	e = make_event(1);
	CHECK_EQ(tracefile__write(w, &e, 1), 0);
	CHECK_EQ(tracefile__finish(w, NULL), 0);
	CHECK_EQ(read_all(path, &r), 2);
	m = r ? tracefile__meta(r) : NULL;
	if (m) {
		CHECK_EQ(m->ncalibrations, 2);
		CHECK_EQ(m->ncal_costs, 2);
		CHECK_EQ(m->calibrations[1].ts_ns, 2000);
		CHECK_EQ(m->calibrations[1].first, 1);
		CHECK_EQ(m->ncost_names, 3);
		CHECK_STR(m->cost_names[m->cal_costs[0].name], "sem_wait");
		CHECK_STR(m->cost_names[m->cal_costs[1].name], "pthread_mutex_lock");
		CHECK_EQ(m->cal_costs[1].entry_ns, 9000);
		CHECK_EQ(m->cal_costs[1].exit_ns, 4500);
		CHECK_EQ(m->ncost_binds, 3);
		CHECK_EQ(m->cost_binds[0].id, 1);
		CHECK_STR(m->cost_names[m->cost_binds[0].name], "sem_wait");
		CHECK_EQ(m->cost_binds[1].id, 2); /* bound again: sem_wait now */
		CHECK_STR(m->cost_names[m->cost_binds[1].name], "sem_wait");
		CHECK_EQ(m->cost_binds[2].id, 5);
		CHECK_STR(m->cost_names[m->cost_binds[2].name], "sem_post");
		CHECK_EQ(m->cost_binds[2].how, 3);
	}
	tracefile__close(r);
	unlink(path);
}

/* Hostile cost sections: a probe id out of range, more calibrated names than a file
 * may hold, a calibration claiming more costs than its bytes or the limit. */
TEST(reject_corrupt_costs)
{
	static const __u16 far[] = {SBT_MAX_PROBES};
	static const char *const one[] = {"f"};
	struct tf_writer *w;
	struct blob b;
	char path[64], name[16];
	size_t cal;
	int i;

	tmp_path(path);
	w = tracefile__create(path);
	put_costs(w, 1, "f", 1, far, one, 1);
	CHECK_EQ(tracefile__finish(w, NULL), 0);
	b = load(path);
	expect_reject(path, &b, "corrupt metadata: probe cost of id 1024 out of range (max 1023)");
	free(b.p);
	w = tracefile__create(path);
	for (i = 0; i <= TF_COST_NAMES_MAX; i++) {
		snprintf(name, sizeof(name), "f%d", i);
		put_costs(w, i, name, 1, NULL, NULL, 0);
	}
	CHECK_EQ(tracefile__finish(w, NULL), 0);
	b = load(path);
	expect_reject(path, &b, "corrupt metadata: more than 64 calibrated symbols");
	cal = find_chunk(&b, TF_SEC_CALIBRATION, 0);
	put32(&b, cal + 8, 2); /* the count, after ts: 2 costs in the bytes of one */
	expect_reject(path, &b, "corrupt metadata: section CALIBRATION overruns its length");
	free(b.p);
	unlink(path);
}

/* Chunks from a newer writer are skipped. */
TEST(unknown_chunk_skipped)
{
	static const unsigned char extra[] = {0x99, 0, 0, 0, 5, 0, 0, 0, 'h', 'e', 'l', 'l', 'o'};
	char path[64];
	struct tf_reader *r;
	struct tf_meta m;
	struct blob b, orig;
	size_t end;

	tmp_path(path);
	orig = valid_blob(path, 7);
	end = find_chunk(&orig, TF_SEC_END, 0) - 8;
	b = (struct blob){malloc(orig.len + sizeof(extra)), orig.len + sizeof(extra)};
	memcpy(b.p, orig.p, end);
	memcpy(b.p + end, extra, sizeof(extra));
	memcpy(b.p + end + sizeof(extra), orig.p + end, orig.len - end);
	store(path, b.p, b.len);
	CHECK_EQ(read_all(path, &r), 7);
	if (r) {
		make_meta(&m);
		check_meta_equal(tracefile__meta(r), &m);
		tf_meta_free(&m);
		CHECK_EQ(tracefile__cut(r), 0);
	}
	tracefile__close(r);
	free(b.p);
	free(orig.p);
	unlink(path);
}

/* --- mini fuzz --------------------------------------------------------------------------- */

static __u64 rng_state = 0x9e3779b97f4a7c15ull;

static __u64 rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static __u64 huge(void)
{
	static const __u64 v[] = {0xffffffffull, 0x7fffffffull, 0x80000000ull, 0xffffull,
				  ~0ull,	 1ull << 63,	0x100000000ull};

	return rnd() % 2 ? v[rnd() % (sizeof(v) / sizeof(v[0]))] : rnd();
}

/* One random corruption of b, which holds a copy of the valid file. */
static void mutate(struct blob *b)
{
	size_t i, n, off, body = TF_HEADER_SIZE;
	/* after a truncation, only mutations that need chunks remain possible */
	int kinds = b->len > body + 8 ? 6 : 3;

	if (!b->len)
		return;
	switch (rnd() % kinds) {
	case 0: /* flip bytes anywhere */
		for (i = 0, n = 1 + rnd() % 8; i < n; i++)
			b->p[rnd() % b->len] ^= 1 + rnd() % 255;
		break;
	case 1: /* truncate */
		b->len = rnd() % b->len;
		break;
	case 2: /* a header field */
		off = 8 + (rnd() % 5) * 4;
		if (off >= 24)
			put64(b, 24 + (rnd() % 3) * 8, huge());
		else
			put32(b, off, huge());
		break;
	case 3: /* flip bytes in the chunks */
		for (i = 0, n = 1 + rnd() % 4; i < n; i++)
			b->p[body + rnd() % (b->len - body)] ^= 1 + rnd() % 255;
		break;
	case 4: /* a huge 32-bit value at a 4-aligned place in the chunks: lengths, counts */
		off = body + (rnd() % ((b->len - body) / 4)) * 4;
		put32(b, off, huge());
		break;
	case 5: /* a huge or random 16-bit string length in the chunks */
		off = body + rnd() % (b->len - body - 1);
		b->p[off] = 0xff;
		b->p[off + 1] = rnd();
		break;
	}
}

/* Mutations of a file: reads cleanly (as many records as it says) or is refused with a
 * reason naming it; never a crash. */
static void fuzz(const char *path, const struct blob *orig, int iters)
{
	char err[256];
	struct blob b = {malloc(orig->len), 0};
	size_t prefix = strlen(path) + 2;
	int iter, opened = 0, rejected = 0, bad_msg = 0, bad_count = 0;

	for (iter = 0; iter < iters; iter++) {
		struct tf_reader *r;
		struct sbt_event e;
		__u64 n = 0;
		int ret;

		memcpy(b.p, orig->p, orig->len);
		b.len = orig->len;
		mutate(&b);
		if (rnd() % 4 == 0)
			mutate(&b); /* sometimes two at once */
		store(path, b.p, b.len);
		r = tracefile__open(path, err, sizeof(err));
		if (!r) {
			rejected++;
			bad_msg += strlen(err) <= prefix || strncmp(err, path, prefix - 2);
			continue;
		}
		opened++;
		while ((ret = tracefile__next(r, &e)) == 1)
			n++;
		bad_count += ret != 0 || n != tracefile__nrecords(r);
		tracefile__close(r);
	}
	CHECK_EQ(bad_msg, 0);
	CHECK_EQ(bad_count, 0);
	/* both outcomes must have been exercised for the fuzz to mean anything */
	CHECK(opened > 0);
	CHECK(rejected > 0);
	printf("    fuzz: %d opened, %d rejected\n", opened, rejected);
	free(b.p);
}

TEST(mini_fuzz)
{
	char path[64];
	struct blob orig;

	tmp_path(path);
	write_stream(path, 120, 30);
	orig = load(path);
	fuzz(path, &orig, 3000);
	free(orig.p);
	unlink(path);
}
