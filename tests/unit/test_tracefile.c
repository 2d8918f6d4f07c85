// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The .sbt trace file: round trips, clear rejection of broken files, and a mutation fuzz
 * that must never crash the reader. */
#include <stdlib.h>
#include <unistd.h>
#include "lib/tracefile.h"
#include "unit.h"

#define NREC 3000 /* spans several write buffers and read chunks */

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
	m->jobs[1] = (struct tf_job){.pid = 4243, .start_ns = 7, .command = strdup("")};
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
	}
	CHECK_EQ(a->ncpus, b->ncpus);
	for (i = 0; i < a->ncpus && i < b->ncpus; i++)
		CHECK_EQ(a->drops_per_cpu[i], b->drops_per_cpu[i]);
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
		tracefile__close(r);
	} else {
		printf("    %s\n", err);
	}
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
		CHECK_STR(rm->command_end, "");		 /* not written: unknown */
		CHECK_STR(rm->clock, "CLOCK_MONOTONIC"); /* the writer's default */
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

/* --- whole files in memory, for corrupting ---------------------------------------------- */

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

/* A valid trace of nrec records and a full meta, in memory. */
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

static __u64 get64(const struct blob *b, size_t off)
{
	__u64 v;

	memcpy(&v, b->p + off, 8);
	return v;
}

/* Offset of the payload of the first section with tag, 0 when none. */
static size_t find_section(const struct blob *b, __u32 tag)
{
	size_t off = get64(b, offsetof(struct tf_header, meta_offset));

	while (off + 8 <= b->len) {
		__u32 t, len;

		memcpy(&t, b->p + off, 4);
		memcpy(&len, b->p + off + 4, 4);
		if (t == tag)
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
	put32(&b, offsetof(struct tf_header, version), 2);
	expect_reject(path, &b,
		      "trace format version 2 is newer than this sbt-bpf supports (1); upgrade "
		      "sbt-bpf to read it");
	put32(&b, offsetof(struct tf_header, version), 1);
	put32(&b, offsetof(struct tf_header, record_size), 48);
	expect_reject(path, &b, "corrupt header: record size 48 (expected 40)");
	/* a file shorter than the header but with the magic */
	put32(&b, offsetof(struct tf_header, record_size), 40);
	b.len = 20;
	expect_reject(path, &b, "truncated: the file ends inside the header (20 bytes)");
	b.len = 5;
	expect_reject(path, &b, "not an sbt-bpf trace (bad magic)");
	free(b.p);
	unlink(path);
}

TEST(reject_truncated)
{
	char path[64], want[128];
	struct blob b;
	size_t full, meta_size;

	tmp_path(path);
	b = valid_blob(path, 100);
	full = b.len;
	meta_size = get64(&b, offsetof(struct tf_header, meta_size));
	CHECK_EQ(full, TF_HEADER_SIZE + 100 * 40 + meta_size);
	/* in the middle of record 37 */
	b.len = TF_HEADER_SIZE + 37 * 40 + 13;
	expect_reject(path, &b, "truncated: header says 100 records but the file holds 37");
	/* inside the metadata */
	b.len = full - 10;
	snprintf(want, sizeof(want),
		 "truncated: header says %zu bytes of metadata but the file holds %zu", meta_size,
		 meta_size - 10);
	expect_reject(path, &b, want);
	/* and junk after it */
	b.len = full;
	b.p = realloc(b.p, full + 3);
	memset(b.p + full, 0xee, 3);
	b.len = full + 3;
	expect_reject(path, &b, "corrupt: 3 unexpected bytes after the metadata");
	free(b.p);
	unlink(path);
}

/* A recording still in progress, or killed, has only the provisional header. */
TEST(reject_unfinalized)
{
	char path[64], err[256], want[320];
	struct tf_writer *w;
	struct sbt_event ev[2000];
	struct tf_reader *r;
	__u32 i;

	tmp_path(path);
	snprintf(want, sizeof(want), "%s: trace was not finalized (recording interrupted?)", path);
	w = tracefile__create(path);
	CHECK(w != NULL);
	if (!w)
		return;
	CHECK(tracefile__open(path, err, sizeof(err)) == NULL);
	CHECK_STR(err, want);
	for (i = 0; i < 2000; i++)
		ev[i] = make_event(i);
	CHECK_EQ(tracefile__write(w, ev, 2000), 0); /* more than a buffer: some reach the disk */
	CHECK(tracefile__open(path, err, sizeof(err)) == NULL);
	CHECK_STR(err, want);
	CHECK_EQ(tracefile__finish(w, NULL), 0);
	r = tracefile__open(path, err, sizeof(err));
	CHECK(r != NULL);
	if (r)
		CHECK_EQ(tracefile__nrecords(r), 2000);
	tracefile__close(r);
	unlink(path);
}

TEST(reject_corrupt_metadata)
{
	char path[64], want[160];
	struct blob b, orig;
	size_t probes, threads, second;

	tmp_path(path);
	orig = valid_blob(path, 5);
	b = (struct blob){malloc(orig.len), orig.len};
	memcpy(b.p, orig.p, orig.len);
	probes = find_section(&b, TF_SEC_PROBES);
	threads = find_section(&b, TF_SEC_THREADS);
	CHECK(probes != 0 && threads != 0);
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
	put32(&b, threads - 4, 0x7fffffff); /* the section's length */
	snprintf(want, sizeof(want),
		 "corrupt metadata: section THREADS of 2147483647 bytes overruns the metadata "
		 "block (%zu bytes left)",
		 b.len - threads);
	expect_reject(path, &b, want);
	memcpy(b.p, orig.p, orig.len);
	put32(&b, threads - 8, TF_SEC_PROBES);
	expect_reject(path, &b, "corrupt metadata: duplicate section PROBES");
	free(b.p);
	free(orig.p);
	unlink(path);
}

/* Sections from a newer writer are skipped. */
TEST(unknown_section_skipped)
{
	static const unsigned char extra[] = {0x99, 0, 0, 0, 5, 0, 0, 0, 'h', 'e', 'l', 'l', 'o'};
	char path[64], err[256];
	struct tf_reader *r;
	struct sbt_event e;
	struct tf_meta m;
	struct blob b;
	int n = 0;

	tmp_path(path);
	b = valid_blob(path, 7);
	b.p = realloc(b.p, b.len + sizeof(extra));
	memcpy(b.p + b.len, extra, sizeof(extra));
	b.len += sizeof(extra);
	put64(&b, offsetof(struct tf_header, meta_size),
	      get64(&b, offsetof(struct tf_header, meta_size)) + sizeof(extra));
	store(path, b.p, b.len);
	r = tracefile__open(path, err, sizeof(err));
	CHECK(r != NULL);
	if (r) {
		make_meta(&m);
		check_meta_equal(tracefile__meta(r), &m);
		tf_meta_free(&m);
		while (tracefile__next(r, &e) == 1)
			n++;
		CHECK_EQ(n, 7);
	} else {
		printf("    %s\n", err);
	}
	tracefile__close(r);
	free(b.p);
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
static void mutate(struct blob *b, size_t meta_off)
{
	size_t i, n, off;
	/* after a truncation, only mutations that need no metadata remain possible */
	int kinds = b->len > meta_off + 8 ? 6 : 3;

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
	case 3: /* flip bytes in the metadata, where the parsing is */
		for (i = 0, n = 1 + rnd() % 4; i < n; i++)
			b->p[meta_off + rnd() % (b->len - meta_off)] ^= 1 + rnd() % 255;
		break;
	case 4: /* a huge 32-bit value at a 4-aligned place in the metadata: lengths, counts */
		off = meta_off + (rnd() % ((b->len - meta_off) / 4)) * 4;
		put32(b, off, huge());
		break;
	case 5: /* a huge or random 16-bit string length in the metadata */
		off = meta_off + rnd() % (b->len - meta_off - 1);
		b->p[off] = 0xff;
		b->p[off + 1] = rnd();
		break;
	}
}

TEST(mini_fuzz)
{
	char path[64], err[256];
	struct blob orig, b;
	size_t meta_off, prefix;
	int iter, opened = 0, rejected = 0, bad_msg = 0, bad_count = 0;

	tmp_path(path);
	orig = valid_blob(path, 20);
	meta_off = get64(&orig, offsetof(struct tf_header, meta_offset));
	prefix = strlen(path) + 2;
	b.p = malloc(orig.len);
	for (iter = 0; iter < 2000; iter++) {
		struct tf_reader *r;
		struct sbt_event e;
		__u64 n = 0;
		int ret;

		memcpy(b.p, orig.p, orig.len);
		b.len = orig.len;
		mutate(&b, meta_off);
		if (rnd() % 4 == 0)
			mutate(&b, meta_off); /* sometimes two at once */
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
	free(orig.p);
	unlink(path);
}
