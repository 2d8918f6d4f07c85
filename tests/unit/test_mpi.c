// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* MPI across processes (analyses/mpi.c) on hand-built records: episodes,
 * the late rank, waits, alignment of a rank traced from a later call,
 * communicators by name, handle and order, send/receive pairing, phases and
 * the OpenMP regions in them. Exact values. */
#include <stdlib.h>
#include "analyses/mpi.h"
#include "analyses/names.h"
#include "unit.h"

enum { P_BARRIER = 1, P_ALLREDUCE, P_SEND, P_RECV, P_INIT, P_REGION, P_BARRIER_MPICH, NP };

static const struct sbt_probe_info probes[NP] = {
	[P_BARRIER] = {.id = P_BARRIER,
		       .kind = SBT_PK_MPI_COLL,
		       .symbol = "PMPI_Barrier",
		       .object = "/usr/lib/libmpi.so.40"},
	[P_ALLREDUCE] = {.id = P_ALLREDUCE,
			 .kind = SBT_PK_MPI_COLL,
			 .symbol = "PMPI_Allreduce",
			 .object = "/usr/lib/libmpi.so.40"},
	[P_SEND] = {.id = P_SEND, .kind = SBT_PK_MPI_SEND, .symbol = "PMPI_Send"},
	[P_RECV] = {.id = P_RECV, .kind = SBT_PK_MPI_RECV, .symbol = "PMPI_Recv"},
	[P_INIT] = {.id = P_INIT, .kind = SBT_PK_MPI_LIFE, .symbol = "PMPI_Init"},
	[P_REGION] = {.id = P_REGION, .kind = SBT_PK_REGION, .symbol = "GOMP_parallel"},
	[P_BARRIER_MPICH] = {.id = P_BARRIER_MPICH,
			     .kind = SBT_PK_MPI_COLL,
			     .symbol = "PMPI_Barrier",
			     .object = "/usr/lib/libmpich.so.12"},
};

/* Open MPI's MPI_COMM_WORLD in each process (ASLR: another address each). */
#define WORLD(pid) (0x7f0000001000ULL + ((__u64)(pid) << 20))

static __u64 fixed_cost(void *ctx, const struct sbt_event *e)
{
	(void)e;
	return *(const __u64 *)ctx;
}

static void rec_cost(struct mpi *m, __u32 pid, __u16 type, __u16 probe, __u64 ts, const __u64 *cost,
		     __u64 obj, __u64 site)
{
	struct sbt_event e = {.ts = ts,
			      .obj = obj,
			      .site = site,
			      .pid = pid,
			      .tid = pid,
			      .type = type,
			      .probe = probe};
	struct mpi_cost c = {fixed_cost, (void *)cost};

	CHECK_EQ(mpi__feed(m, &e, cost ? &c : NULL), 0);
}

static void rec(struct mpi *m, __u32 pid, __u16 type, __u16 probe, __u64 ts, __u64 obj, __u64 site)
{
	rec_cost(m, pid, type, probe, ts, NULL, obj, site);
}

/* A call whose hits cost nothing, approximating. */
static void call_a(struct mpi *m, __u32 pid, __u16 probe, __u64 enter, __u64 exit, __u64 obj,
		   __u64 site)
{
	static const __u64 zero;

	rec_cost(m, pid, SBT_EV_ENTER, probe, enter, &zero, obj, site);
	rec_cost(m, pid, SBT_EV_EXIT, probe, exit, &zero, 0, 0x401000);
}

/* A probe hit of pid at ts costing cost (a futex tracepoint's). */
static void hit(struct mpi *m, __u32 pid, __u64 ts, __u64 cost)
{
	rec_cost(m, pid, SBT_EV_FUTEX_ENTER, 0, ts, &cost, 0, 0);
}

/* A call of pid from enter to exit. */
static void call(struct mpi *m, __u32 pid, __u16 probe, __u64 enter, __u64 exit, __u64 obj,
		 __u64 site)
{
	rec(m, pid, SBT_EV_ENTER, probe, enter, obj, site);
	rec(m, pid, SBT_EV_EXIT, probe, exit, 0, 0x401000);
}

static struct names *world_names(int nranks)
{
	struct names *n = names__new();
	int r;

	for (r = 0; r < nranks; r++)
		names__set(n, 100 + r, WORLD(100 + r), "ompi_mpi_comm_world");
	return n;
}

/* Three ranks (pids 100..102), rank 2 late by 30 at each of two barriers. */
static struct mpi *three_ranks(struct names *n)
{
	struct mpi *m = mpi__new(probes, NP, n);
	__u32 r;

	for (r = 0; r < 3; r++) {
		__u32 pid = 100 + r;

		CHECK_EQ(mpi__set_rank(m, pid, (int)r, "node1"), 0);
		call(m, pid, P_INIT, 0, 10, 0, 0);
		/* arrivals 100 + 10 r (rank 2: +30), all leave at 145 + r */
		call(m, pid, P_BARRIER, 100 + 10 * r + (r == 2 ? 30 : 0), 145 + r, WORLD(pid), 0);
		call(m, pid, P_ALLREDUCE, 200 + 5 * r, 220, WORLD(pid), 0);
	}
	return m;
}

TEST(collective_episodes_late_rank_and_waits)
{
	struct names *n = world_names(3);
	struct mpi *m = three_ranks(n);
	const struct mpi_episode *e;
	const struct mpi_comm_stats *c;
	size_t ix;
	__u64 a, d;

	CHECK(mpi__active(m));
	CHECK_EQ(mpi__finish(m), 0);
	CHECK_EQ(mpi__nranks(m), 3);
	CHECK_EQ(mpi__ncomms(m), 1);
	c = mpi__comm(m, 0);
	CHECK_STR(c->name, "ompi_mpi_comm_world");
	CHECK_EQ(c->size, 3);
	CHECK_EQ(c->episodes, 2);
	CHECK_EQ(c->partial, 0);
	CHECK_EQ(mpi__nepisodes(m), 2);
	/* the barrier: arrivals 100, 110, 150; last 150 by rank 2 */
	e = mpi__episode(m, 0);
	CHECK_EQ(e->index, 0);
	CHECK_EQ(e->probe, P_BARRIER);
	CHECK_EQ(e->nranks, 3);
	CHECK_EQ(mpi__rank(m, e->late_rank_ix)->rank, 2);
	CHECK_EQ(e->first_arrival_ns, 100);
	CHECK_EQ(e->last_arrival_ns, 150);
	CHECK_EQ(e->last_departure_ns, 147);
	CHECK_EQ(e->wait_ns, 50 + 40 + 0);
	CHECK(!e->mixed);
	mpi__episode_part(m, 0, 1, &ix, &a, &d); /* parts in rank order */
	CHECK_EQ(ix, 1);
	CHECK_EQ(a, 110);
	CHECK_EQ(d, 146);
	/* the allreduce: arrivals 200, 205, 210 */
	e = mpi__episode(m, 1);
	CHECK_EQ(e->index, 1);
	CHECK_EQ(mpi__rank(m, e->late_rank_ix)->rank, 2);
	CHECK_EQ(e->wait_ns, 10 + 5);
	CHECK_EQ(c->wait_ns, 90 + 15);
	CHECK_EQ(c->imbalance_ns, 50 + 10);
	CHECK_EQ(c->max_imbalance_ns, 50);
	/* per rank: MPI_Init left out of the totals */
	CHECK_EQ(mpi__rank(m, 0)->calls, 2);
	CHECK_EQ(mpi__rank(m, 0)->mpi_ns, 45 + 20);
	CHECK_EQ(mpi__rank(m, 0)->coll_wait_ns, 50 + 10);
	CHECK_EQ(mpi__rank(m, 2)->coll_wait_ns, 0);
	CHECK_EQ(mpi__rank(m, 2)->late, 2);
	CHECK_EQ(mpi__rank(m, 0)->late, 0);
	/* one phase between the two collectives: 200 - 145 */
	CHECK_EQ(mpi__rank(m, 0)->phases, 1);
	CHECK_EQ(mpi__rank(m, 0)->phase_ns, 55);
	CHECK_STR(mpi__rank(m, 1)->host, "node1");
	CHECK_STR(mpi__symbol(m, P_BARRIER), "MPI_Barrier");
	mpi__free(m);
	names__free(n);
}

TEST(a_rank_traced_from_a_later_call_joins_the_right_episode)
{
	struct names *n = world_names(2);
	struct mpi *m = mpi__new(probes, NP, n);
	const struct mpi_episode *e;
	int k;

	/* rank 0: barriers at 100k .. 100k + 50; rank 1 seen from its third
	 * (attached late): inside each barrier when rank 0 is */
	mpi__set_rank(m, 100, 0, NULL);
	mpi__set_rank(m, 101, 1, NULL);
	for (k = 0; k < 4; k++)
		call(m, 100, P_BARRIER, 1000 + 100 * k, 1050 + 100 * k, WORLD(100), 0);
	for (k = 2; k < 4; k++)
		call(m, 101, P_BARRIER, 1040 + 100 * k, 1049 + 100 * k, WORLD(101), 0);
	CHECK_EQ(mpi__finish(m), 0);
	CHECK_EQ(mpi__nepisodes(m), 4);
	CHECK_EQ(mpi__comm(m, 0)->partial, 2);
	e = mpi__episode(m, 2);
	CHECK_EQ(e->nranks, 2);
	CHECK_EQ(e->first_arrival_ns, 1200);
	CHECK_EQ(e->last_arrival_ns, 1240);
	CHECK_EQ(mpi__rank(m, e->late_rank_ix)->rank, 1);
	CHECK_EQ(mpi__episode(m, 0)->nranks, 1);
	CHECK_EQ(mpi__rank(m, 0)->late, 0); /* an episode of one rank has no late rank */
	CHECK_EQ(mpi__rank(m, 1)->late, 2);
	mpi__free(m);
	names__free(n);
}

TEST(a_rank_first_seen_in_the_collective_after_a_barrier_others_still_leave)
{
	struct names *n = world_names(2);
	struct mpi *m = mpi__new(probes, NP, n);
	int k;

	mpi__set_rank(m, 100, 0, NULL);
	mpi__set_rank(m, 101, 1, NULL);
	/* rank 0: barrier, allreduce, barrier, allreduce, leaving each barrier
	 * late (at 1090 + 200 k); rank 1 seen from its first allreduce, which
	 * it enters at 1080 + 200 k, inside rank 0's barrier still */
	for (k = 0; k < 2; k++) {
		call(m, 100, P_BARRIER, 1000 + 200 * k, 1090 + 200 * k, WORLD(100), 0);
		call(m, 100, P_ALLREDUCE, 1095 + 200 * k, 1120 + 200 * k, WORLD(100), 0);
		call(m, 101, P_ALLREDUCE, 1080 + 200 * k, 1119 + 200 * k, WORLD(101), 0);
		if (k == 0)
			continue;
		/* rank 1's barrier of step 1 */
		call(m, 101, P_BARRIER, 1150, 1289, WORLD(101), 0);
	}
	CHECK_EQ(mpi__finish(m), 0);
	CHECK_EQ(mpi__nepisodes(m), 4);
	CHECK_EQ(mpi__episode(m, 0)->nranks, 1);
	for (k = 1; k < 4; k++) {
		CHECK_EQ(mpi__episode(m, k)->nranks, 2);
		CHECK(!mpi__episode(m, k)->mixed);
	}
	CHECK_EQ(mpi__episode(m, 1)->probe, P_ALLREDUCE);
	CHECK_EQ(mpi__episode(m, 1)->first_arrival_ns, 1080);
	mpi__free(m);
	names__free(n);
}

TEST(communicators_by_handle_and_by_order_of_use)
{
	struct mpi *m = mpi__new(probes, NP, NULL);
	const struct mpi_comm_stats *c;

	/* MPICH: MPI_COMM_WORLD is the int 0x44000000, the register's upper
	 * half unspecified; a split communicator, a heap pointer per process */
	call(m, 100, P_BARRIER_MPICH, 10, 20, 0xdead000044000000ULL, 0);
	call(m, 101, P_BARRIER_MPICH, 12, 20, 0x44000000ULL, 0);
	call(m, 100, P_BARRIER, 30, 40, 0x5500000010ULL, 0);
	call(m, 101, P_BARRIER, 33, 40, 0x5600000020ULL, 0);
	CHECK_EQ(mpi__finish(m), 0);
	CHECK_EQ(mpi__ncomms(m), 2);
	c = mpi__comm(m, 0);
	CHECK_STR(c->name, "handle 0x44000000");
	CHECK_EQ(c->episodes, 1);
	CHECK_EQ(c->size, 2);
	c = mpi__comm(m, 1);
	CHECK_STR(c->name, "communicator #1");
	CHECK_EQ(c->episodes, 1);
	CHECK_EQ(c->size, 2);
	CHECK_EQ(mpi__episode(m, 1)->wait_ns, 3);
	/* ranks not known: by pid, rank -1 */
	CHECK_EQ(mpi__rank(m, 0)->rank, -1);
	CHECK_EQ(mpi__rank(m, 0)->pid, 100);
	mpi__free(m);
	names__free(NULL);
}

TEST(receives_pair_with_sends_in_order_and_wait_for_late_senders)
{
	struct mpi *m = mpi__new(probes, NP, NULL);

	mpi__set_rank(m, 100, 0, NULL);
	mpi__set_rank(m, 101, 1, NULL);
	/* rank 1 receives from 0 twice; the first send begins 25 after the
	 * receive, the second before it; a wildcard receive (-1) is not paired */
	call(m, 101, P_RECV, 100, 140, 0, MPI_INT_COMM_WORLD);
	call(m, 100, P_SEND, 125, 130, 1, MPI_INT_COMM_WORLD);
	call(m, 100, P_SEND, 200, 205, 1 | 0xffffffff00000000ULL, MPI_INT_COMM_WORLD);
	call(m, 101, P_RECV, 210, 212, 0, 0xdead000000000000ULL | MPI_INT_COMM_WORLD);
	call(m, 101, P_RECV, 300, 310, 0xffffffffULL, MPI_INT_COMM_WORLD);
	/* on another communicator the peer is that one's rank: not paired */
	call(m, 100, P_SEND, 400, 405, 1, 0x84000001);
	call(m, 101, P_RECV, 390, 420, 0, 0x84000001);
	CHECK_EQ(mpi__finish(m), 0);
	CHECK_EQ(mpi__rank(m, 1)->late_sender_ns, 25);
	CHECK_EQ(mpi__rank(m, 1)->p2p, 4);
	CHECK_EQ(mpi__rank(m, 1)->p2p_ns, 40 + 2 + 10 + 30);
	CHECK_EQ(mpi__rank(m, 0)->late_sender_ns, 0);
	CHECK_EQ(mpi__unmatched_recvs(m), 2);
	CHECK_EQ(mpi__nepisodes(m), 0);
	mpi__free(m);
}

TEST(openmp_regions_counted_in_the_phases_between_collectives)
{
	struct names *n = world_names(1);
	struct mpi *m = mpi__new(probes, NP, n);

	/* regions before MPI_Init are not a rank's (nothing kept) */
	rec(m, 100, SBT_EV_ENTER, P_REGION, 5, 0, 0);
	call(m, 100, P_INIT, 10, 20, 0, 0);
	call(m, 100, P_BARRIER, 30, 40, WORLD(100), 0);
	rec(m, 100, SBT_EV_ENTER, P_REGION, 50, 0, 0);
	rec(m, 100, SBT_EV_ENTER, P_REGION, 60, 0, 0);
	call(m, 100, P_BARRIER, 70, 80, WORLD(100), 0);
	rec(m, 100, SBT_EV_ENTER, P_REGION, 90, 0, 0);
	call(m, 100, P_BARRIER, 100, 110, WORLD(100), 0);
	rec(m, 100, SBT_EV_ENTER, P_REGION, 120, 0, 0); /* after the last: in no phase */
	CHECK_EQ(mpi__finish(m), 0);
	CHECK_EQ(mpi__rank(m, 0)->phases, 2);
	CHECK_EQ(mpi__rank(m, 0)->phase_ns, 30 + 20);
	CHECK_EQ(mpi__rank(m, 0)->phase_regions, 3);
	mpi__free(m);
	names__free(n);
}

TEST(nested_calls_lost_records_and_processes_without_mpi)
{
	struct mpi *m = mpi__new(probes, NP, NULL);
	struct sbt_event lost = {.ts = 60, .pid = 100, .type = SBT_EV_LOST, .lost = 1};

	/* an MPI call inside another counts once, as the outer one */
	rec(m, 100, SBT_EV_ENTER, P_ALLREDUCE, 10, 0x44000000, 0);
	call(m, 100, P_BARRIER, 12, 15, 0x44000000, 0);
	rec(m, 100, SBT_EV_EXIT, P_ALLREDUCE, 30, 0, 0);
	/* a return lost: the next call starts afresh after the loss */
	rec(m, 100, SBT_EV_ENTER, P_BARRIER, 50, 0x44000000, 0);
	CHECK_EQ(mpi__feed(m, &lost, NULL), 0);
	call(m, 100, P_BARRIER, 70, 75, 0x44000000, 0);
	/* a rank named that never called MPI is not listed */
	mpi__set_rank(m, 200, 5, NULL);
	CHECK_EQ(mpi__finish(m), 0);
	CHECK_EQ(mpi__nranks(m), 1);
	CHECK_EQ(mpi__rank(m, 0)->calls, 2);
	CHECK_EQ(mpi__rank(m, 0)->mpi_ns, 20 + 5);
	CHECK_EQ(mpi__nepisodes(m), 2);
	CHECK_EQ(mpi__episode(m, 0)->probe, P_ALLREDUCE);
	mpi__free(m);
}

TEST(the_run_rebuilt_across_ranks_from_each_ranks_approximation)
{
	struct names *n = world_names(2);
	struct mpi *m = mpi__new(probes, NP, n);
	const struct mpi_run *run;
	const struct mpi_episode *e;

	mpi__set_rank(m, 100, 0, NULL);
	mpi__set_rank(m, 101, 1, NULL);
	call_a(m, 100, P_INIT, 0, 10, 0, 0);
	call_a(m, 101, P_INIT, 0, 10, 0, 0);
	/* a barrier: rank 1 arrives last measured (140), but 50 of its 130
	 * before it were probe cost: approximated it arrives at 90, rank 0 at
	 * 100; each leaves its measured release latency after the last (10, 8) */
	hit(m, 101, 50, 50);
	call_a(m, 100, P_BARRIER, 100, 150, WORLD(100), 0);
	call_a(m, 101, P_BARRIER, 140, 148, WORLD(101), 0);
	/* an allreduce: 110 + 50 = 160 and 108 + 72 = 180; leaving 190, 189 */
	call_a(m, 100, P_ALLREDUCE, 200, 230, WORLD(100), 0);
	call_a(m, 101, P_ALLREDUCE, 220, 229, WORLD(101), 0);
	/* rank 0 sends to rank 1: the send arrives at 190 + 70 - 40 = 220, the
	 * receive at 189 + 21 = 210; it ends 20 (measured, from the send's
	 * start) after the send: 240 (a receive on its own would end at 280) */
	hit(m, 100, 260, 40);
	call_a(m, 100, P_SEND, 300, 305, 1, MPI_INT_COMM_WORLD);
	call_a(m, 101, P_RECV, 250, 320, 0, MPI_INT_COMM_WORLD);
	/* a last barrier: rank 0 at 225 + 95 = 320, rank 1 at 240 + 90 = 330 */
	call_a(m, 100, P_BARRIER, 400, 420, WORLD(100), 0);
	call_a(m, 101, P_BARRIER, 410, 419, WORLD(101), 0);
	CHECK_EQ(mpi__finish(m), 0);
	run = mpi__run(m);
	CHECK(run->approximated);
	e = mpi__episode(m, 0);
	CHECK_EQ(mpi__rank(m, e->late_rank_ix)->rank, 1);
	CHECK_EQ(e->last_arrival_a_ns, 100);
	CHECK_EQ(mpi__rank(m, e->late_rank_a_ix)->rank, 0);
	CHECK_EQ(e->wait_a_ns, 10);
	e = mpi__episode(m, 1);
	CHECK_EQ(e->last_arrival_a_ns, 180);
	CHECK_EQ(mpi__rank(m, e->late_rank_a_ix)->rank, 1);
	CHECK_EQ(e->wait_a_ns, 20);
	e = mpi__episode(m, 2);
	CHECK_EQ(e->last_arrival_a_ns, 330);
	CHECK_EQ(mpi__rank(m, e->late_rank_a_ix)->rank, 1);
	CHECK_EQ(run->episodes_changed, 1);
	CHECK_EQ(mpi__rank(m, 0)->coll_wait_a_ns, 20 + 10);
	CHECK_EQ(mpi__rank(m, 1)->coll_wait_a_ns, 10);
	CHECK_EQ(run->first_release_ns, 150);
	CHECK_EQ(run->last_release_ns, 420);
	CHECK_EQ(run->first_release_a_ns, 110);
	CHECK_EQ(run->last_release_a_ns, 340);
	mpi__free(m);
	names__free(n);
}

TEST(no_run_rebuilt_when_a_record_came_without_its_cost)
{
	struct names *n = world_names(2);
	struct mpi *m = mpi__new(probes, NP, n);

	call_a(m, 100, P_BARRIER, 100, 150, WORLD(100), 0);
	call(m, 101, P_BARRIER, 140, 148, WORLD(101), 0);
	CHECK_EQ(mpi__finish(m), 0);
	CHECK(!mpi__run(m)->approximated);
	CHECK_EQ(mpi__run(m)->first_release_ns, 150);
	CHECK_EQ(mpi__episode(m, 0)->wait_a_ns, 0);
	mpi__free(m);
	names__free(n);
}

TEST(the_last_arrivers_entry_hit_is_not_release_latency)
{
	struct names *n = world_names(2);
	struct mpi *m = mpi__new(probes, NP, n);
	static const __u64 zero, four = 4;

	/* rank 1 arrives last at 140; its entry hit (4 ns) runs after that
	 * time, inside the barrier: the ranks leave 10 - 4 and 8 - 4 after it */
	rec_cost(m, 100, SBT_EV_ENTER, P_BARRIER, 100, &zero, WORLD(100), 0);
	rec_cost(m, 101, SBT_EV_ENTER, P_BARRIER, 140, &four, WORLD(101), 0);
	rec_cost(m, 101, SBT_EV_EXIT, P_BARRIER, 148, &zero, 0, 0);
	rec_cost(m, 100, SBT_EV_EXIT, P_BARRIER, 150, &zero, 0, 0);
	CHECK_EQ(mpi__finish(m), 0);
	CHECK(mpi__run(m)->approximated);
	CHECK_EQ(mpi__episode(m, 0)->last_arrival_a_ns, 140);
	CHECK_EQ(mpi__run(m)->first_release_ns, 150);
	CHECK_EQ(mpi__run(m)->first_release_a_ns, 146);
	mpi__free(m);
	names__free(n);
}

TEST(the_disjoint_groups_of_a_split_are_said_to_be_one_episode_that_cannot_be)
{
	struct mpi *m = mpi__new(probes, NP, NULL);
	const struct mpi_comm_stats *c;

	/* ranks 0-1 and 2-3 on the two halves of a split: each pair's first
	 * heap communicator, matched by order of use into one "episode" whose
	 * first pair left before the second arrived */
	call(m, 100, P_BARRIER, 100, 150, 0x5500000010ULL, 0);
	call(m, 101, P_BARRIER, 140, 150, 0x5600000010ULL, 0);
	call(m, 102, P_BARRIER, 300, 350, 0x5700000010ULL, 0);
	call(m, 103, P_BARRIER, 340, 350, 0x5800000010ULL, 0);
	CHECK_EQ(mpi__finish(m), 0);
	CHECK_EQ(mpi__ncomms(m), 1);
	c = mpi__comm(m, 0);
	CHECK_STR(c->name, "communicator #1");
	CHECK_EQ(c->episodes, 1);
	CHECK_EQ(c->inconsistent, 1);
	CHECK(mpi__episode(m, 0)->inconsistent);
	/* the run's releases: the episode's last departure */
	CHECK_EQ(mpi__run(m)->first_release_ns, 350);
	mpi__free(m);
}

TEST(two_communicators_interleaved_each_episode_released_once)
{
	struct mpi *m = mpi__new(probes, NP, NULL);
	const struct mpi_run *run;
	int k;

	mpi__set_rank(m, 100, 0, NULL);
	mpi__set_rank(m, 101, 1, NULL);
	/* the world (MPICH's handle) and a duplicate, alternating: the
	 * episodes' time order differs from the order they were formed in */
	for (k = 0; k < 3; k++) {
		__u64 t = 100 + 200 * (__u64)k;
		__u64 comm = k % 2 ? 0x84000001 : MPI_INT_COMM_WORLD;

		call_a(m, 100, P_BARRIER_MPICH, t, t + 50, comm, 0);
		call_a(m, 101, P_BARRIER_MPICH, t + 40, t + 50, comm, 0);
	}
	CHECK_EQ(mpi__finish(m), 0);
	run = mpi__run(m);
	CHECK(run->approximated);
	CHECK_EQ(mpi__nepisodes(m), 3);
	for (k = 0; k < 3; k++) {
		CHECK_EQ(mpi__episode(m, k)->wait_a_ns, 40); /* once each, not twice */
		CHECK_EQ(mpi__episode(m, k)->last_arrival_a_ns, 140 + 200 * (__u64)k);
	}
	CHECK_EQ(run->first_release_ns, 150);
	CHECK_EQ(run->last_release_ns, 550);
	CHECK_EQ(run->first_release_a_ns, 150);
	CHECK_EQ(run->last_release_a_ns, 550);
	mpi__free(m);
}

enum { P_SPLIT = NP, NP2 };

TEST(the_halves_of_a_split_are_two_communicators)
{
	struct sbt_probe_info p2[NP2];
	struct mpi *m;
	__u32 r;
	size_t i;
	int k;

	memcpy(p2, probes, sizeof(probes));
	p2[P_SPLIT] = (struct sbt_probe_info){.id = P_SPLIT,
					      .kind = SBT_PK_MPI_COMM,
					      .symbol = "PMPI_Comm_split",
					      .object = "/usr/lib/libmpich.so.12"};
	m = mpi__new(p2, NP2, NULL);
	/* MPICH: 4 ranks split the world by rank < 2; each half's new handle
	 * is the same int in every rank (0x84000000), its upper half garbage */
	for (r = 0; r < 4; r++) {
		mpi__set_rank(m, 100 + r, (int)r, NULL);
		rec(m, 100 + r, SBT_EV_ENTER, P_SPLIT, 10, MPI_INT_COMM_WORLD, r < 2);
		rec(m, 100 + r, SBT_EV_EXIT, P_SPLIT, 20, 0xbeef000084000000ULL, 0);
		for (k = 0; k < 2; k++) /* each half's barriers, at other times */
			call(m, 100 + r, P_BARRIER_MPICH, 100 + 100 * k + (r < 2 ? 0 : 50) + r,
			     140 + 100 * k + (r < 2 ? 0 : 50), 0x84000000, 0);
	}
	CHECK_EQ(mpi__finish(m), 0);
	CHECK_EQ(mpi__ncomms(m), 3); /* the world (the split's parent) and the halves */
	for (i = 0; i < mpi__ncomms(m); i++) {
		const struct mpi_comm_stats *c = mpi__comm(m, i);

		if (!strcmp(c->name, "handle 0x44000000"))
			continue;
		CHECK(!strcmp(c->name, "MPI_Comm_split #1 of handle 0x44000000, color 1") ||
		      !strcmp(c->name, "MPI_Comm_split #1 of handle 0x44000000, color 0"));
		CHECK_EQ(c->size, 2);
		CHECK_EQ(c->episodes, 2);
		CHECK_EQ(c->inconsistent, 0);
	}
	mpi__free(m);
}
