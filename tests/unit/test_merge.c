// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Clock fitting (analyses/clock_fit.c) and the merge of nodes' traces
 * (analyses/merge.c) on hand-made samples and traces. Exact values. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "analyses/clock_fit.h"
#include "analyses/merge.h"
#include "unit.h"

TEST(a_line_through_exact_samples)
{
	/* d = 1000 + 0.001 (t - t0): 1000 ns off, drifting 1000 ppm */
	__u64 t[11];
	__s64 d[11];
	struct clock_fit f;
	int i;

	for (i = 0; i < 11; i++) {
		t[i] = 5000000 + (__u64)i * 1000000;
		d[i] = 1000 + i * 1000;
	}
	CHECK_EQ(clock_fit(t, d, 11, &f), 0);
	CHECK_EQ(f.n, 11);
	CHECK_EQ(f.used, 11);
	CHECK_EQ(f.t0, 5000000);
	CHECK_EQ(clock_fit__at(&f, 5000000), 1000);
	CHECK_EQ(clock_fit__at(&f, 10000000), 6000);
	CHECK_EQ(clock_fit__at(&f, 4000000), 0); /* before the first sample: the line */
	CHECK(f.residual_ns < 1);
}

TEST(a_late_sample_left_out_and_the_uncertainty)
{
	__u64 t[8];
	__s64 d[8] = {-3000, -3010, -2990, -3000, -3005, -2995, -3000, 40000};
	struct clock_fit f;
	int i;

	for (i = 0; i < 8; i++)
		t[i] = (__u64)i * 2000000;
	CHECK_EQ(clock_fit(t, d, 8, &f), 0);
	CHECK_EQ(f.used, 7);
	CHECK(f.residual_ns >= 5 && f.residual_ns <= 15);
	CHECK(llabs(clock_fit__at(&f, 6000000) + 3000) <= 10);
}

TEST(one_sample_or_a_short_span_gives_an_offset)
{
	__u64 t[3] = {100, 200, 300};
	__s64 d[3] = {70, 50, 60};
	struct clock_fit f;

	CHECK_EQ(clock_fit(t, d, 1, &f), 0);
	CHECK_EQ(clock_fit__at(&f, 999999999), 70);
	CHECK_EQ(clock_fit(t, d, 3, &f), 0); /* within 1 ms: the median */
	CHECK_EQ(clock_fit__at(&f, 999999999), 60);
	CHECK(f.drift == 0);
	CHECK_EQ(clock_fit(t, d, 0, &f), 0);
	CHECK_EQ(clock_fit__at(&f, 5), 0);
}

/* ---- merge ------------------------------------------------------------------ */

#define WORLD 0x7f0000001000ULL
#define STEP  10000000ULL /* 10 ms between barriers */

static struct sbt_event ev(__u64 ts, __u32 pid, __u16 type, __u16 probe, __u64 obj)
{
	return (struct sbt_event){
		.ts = ts, .obj = obj, .pid = pid, .tid = pid, .type = type, .probe = probe};
}

/* A node's trace: pid 100 is MPI rank `rank`, calling MPI_Barrier (probe
 * 1) n times, leaving each at k STEP + 500 on the true clock, stamped by a
 * clock `skew` ns ahead; its realtime offset is the true one (NTP does not
 * know of the skew). */
static void node_trace(const char *path, const char *host, int rank, __s64 skew, int n,
		       const char *init_object)
{
	struct tf_writer *w = tracefile__create(path);
	struct tf_meta m = {0};
	struct sbt_probe_info probes[2] = {
		{.id = 1,
		 .kind = SBT_PK_MPI_COLL,
		 .symbol = "PMPI_Barrier",
		 .object = "libmpi.so.40"},
		{.id = 2, .kind = SBT_PK_MPI_LIFE, .symbol = "PMPI_Init"},
	};
	struct tf_symbol sym = {.pid = 100, .addr = WORLD, .name = "ompi_mpi_comm_world"};
	struct tf_thread th = {.pid = 100, .tid = 100, .start_ns = 1000 + skew, .comm = "app"};
	struct tf_job job = {
		.pid = 100, .start_ns = 1000 + skew, .command = "app", .rank_id = (__u32)rank + 1};
	int k;

	CHECK(w != NULL);
	snprintf(probes[1].object, sizeof(probes[1].object), "%s", init_object);
	m.host = (char *)host;
	m.job_id = "J1";
	m.start_ns = 1000 + skew;
	m.realtime_offset_ns = 1700000000000000000LL;
	m.probes = probes;
	m.nprobes = 2;
	m.symbols = &sym;
	m.nsymbols = 1;
	m.threads = &th;
	m.nthreads = 1;
	m.jobs = &job;
	m.njobs = 1;
	CHECK_EQ(tracefile__put_meta(w, &m, TF_PUT_META), 0);
	for (k = 1; k <= n; k++) {
		/* rank 1 arrives 2 ms late */
		struct sbt_event in = ev(k * STEP - 3000000 + (rank ? 2000000 : 0) + skew, 100,
					 SBT_EV_ENTER, 1, WORLD);
		struct sbt_event out = ev(k * STEP + 500 + skew, 100, SBT_EV_EXIT, 1, 0);

		CHECK_EQ(tracefile__write(w, &in, 1), 0);
		CHECK_EQ(tracefile__write(w, &out, 1), 0);
	}
	CHECK_EQ(tracefile__finish(w, NULL), 0);
}

TEST(two_nodes_merged_on_the_first_clock)
{
	char a[] = "/tmp/sbt-merge-a-XXXXXX", b[] = "/tmp/sbt-merge-b-XXXXXX",
	     out[] = "/tmp/sbt-merge-o-XXXXXX", err[256] = "";
	const char *inputs[2] = {a, b};
	struct merge_opts o = {.inputs = inputs, .ninputs = 2, .output = out, .align = 1};
	struct merge_node nodes[2];
	struct tf_reader *r;
	const struct tf_meta *m;
	struct sbt_event e;
	__u64 n = 0, skewed_exits = 0;
	int fd;

	fd = mkstemp(a);
	close(fd);
	fd = mkstemp(b);
	close(fd);
	fd = mkstemp(out);
	close(fd);
	node_trace(a, "node1", 0, 0, 5, "libmpi.so.40");
	/* the same MPI_Barrier probe; an MPI_Init of another library */
	node_trace(b, "node2", 1, 3000000, 5, "/opt/libmpi.so.40");
	CHECK_EQ(merge__run(&o, nodes, err, sizeof(err)), 0);
	CHECK_STR(err, "");
	CHECK_STR(nodes[1].host, "node2");
	CHECK_STR(nodes[1].job_id, "J1");
	CHECK_EQ(nodes[1].nranks, 1);
	CHECK_EQ(nodes[1].episodes, 5);
	CHECK_EQ(nodes[1].realtime_ns, 0); /* the realtime estimate misses the skew */
	CHECK_EQ(clock_fit__at(&nodes[1].fit, 20000000), -3000000);
	CHECK_EQ(nodes[1].remapped, 1); /* pid 100 on both */
	CHECK_EQ(nodes[0].records + nodes[1].records, 20);
	r = tracefile__open(out, err, sizeof(err));
	CHECK(r != NULL);
	if (!r)
		return;
	m = tracefile__meta(r);
	CHECK_EQ(m->nprobes, 3);
	CHECK_EQ(m->probes[2].id, 3); /* node 2's own probe after node 1's */
	CHECK_STR(m->probes[2].object, "/opt/libmpi.so.40");
	CHECK_EQ(m->njobs, 2);
	CHECK_EQ(m->jobs[1].pid, 100 | 1u << 22);
	CHECK_EQ(m->jobs[1].rank_id, 2);
	CHECK_STR(m->jobs[1].host, "node2");
	CHECK_EQ(m->jobs[1].start_ns, 1000);
	CHECK_EQ(m->symbols[1].pid, 100 | 1u << 22);
	CHECK_STR(m->job_id, "J1");
	while (tracefile__next(r, &e) == 1) {
		n++;
		if (e.pid == (100 | 1u << 22)) {
			CHECK(e.probe == 1); /* the probe both nodes have */
			skewed_exits += e.type == SBT_EV_EXIT && e.ts % STEP == 500;
		}
	}
	CHECK_EQ(n, 20);
	CHECK_EQ(skewed_exits, 5); /* on node 1's clock again */
	tracefile__close(r);
	unlink(a);
	unlink(b);
	unlink(out);
}

TEST(merge_errors_are_said)
{
	const char *inputs[2] = {"/nonexistent/a.sbt", "/nonexistent/b.sbt"};
	struct merge_opts o = {.inputs = inputs, .ninputs = 2, .output = "/tmp/x.sbt", .align = 1};
	struct merge_node nodes[2];
	char err[256] = "";

	CHECK(merge__run(&o, nodes, err, sizeof(err)) < 0);
	CHECK(strstr(err, "/nonexistent/a.sbt") != NULL);
}
