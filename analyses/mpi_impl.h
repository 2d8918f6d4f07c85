/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* What the MPI analysis's files share (analyses/mpi.h): mpi.c (records,
 * ranks, accessors), mpi_episodes.c (communicators, episodes),
 * mpi_approx.c (point to point, the approximation across ranks). */
#ifndef SBT_MPI_IMPL_H
#define SBT_MPI_IMPL_H

#include "analyses/mpi.h"
#include "lib/hmap.h"

/* One outermost MPI call of a rank. */
struct call {
	__u64 enter, exit;
	__u64 obj, site;
	__u64 out; /* its return's obj: the communicator it made (SBT_PK_MPI_COMM) */
	__u16 probe;
	__u8 kind;
	__u32 tid;
	__u32 comm; /* collectives: the communicator's index (mpi__finish) */
	__u32 ep;   /* collectives: the episode's index (mpi__finish) */
	/* entry and return less the probe cost charged to the thread before
	 * them (mpi__feed()) */
	__u64 ta_enter, ta_exit;
	__u64 entry_cost; /* its entry hit's, after its entry time: inside the call */
	/* a receive paired with a send: that call (rank index, call index) */
	__u32 send_rank, send_call;
	__u8 paired;
	/* the run across ranks (mpi_approx.c): arrival, departure, when known */
	__u8 arrived, departed;
	__u64 a, d;
};

struct rank {
	struct mpi_rank_stats s;
	struct call *calls;
	size_t n, cap;
	__u64 *regions; /* OpenMP region entries, in time order once finished */
	size_t nreg, capreg;
	__u32 unnamed;	     /* communicators it used that no name or handle identifies */
	struct hmap comm_of; /* obj -> communicator index + 1 */
};

/* A thread inside an MPI call (outermost), between its entry and return. */
struct thread {
	int depth;
	struct call c;
	__u64 charged; /* probe cost charged to it so far (mpi__feed()) */
};

/* A rank's part in an episode. */
struct part {
	__u32 ep, rank_ix, call_ix;
	__u64 arrival, departure;
	__u16 probe;
};

struct mpi {
	const struct sbt_probe_info *probes;
	__u32 nprobes;
	const struct names *names;
	struct rank **ranks;
	size_t nranks, cap_ranks;
	struct hmap rank_of; /* pid -> index */
	struct hmap threads; /* (pid, tid) -> struct thread */
	struct mpi_comm_stats *comms;
	size_t ncomms, cap_comms;
	struct mpi_episode *eps;
	size_t neps, cap_eps;
	struct part *parts; /* by episode, then rank index, once finished */
	size_t nparts, cap_parts;
	size_t *ep_first; /* episode i's parts begin at parts[ep_first[i]] */
	__u64 unmatched;
	struct mpi_run run; /* measured and approximated (mpi_approx.c) */
	int unapproximated; /* a record came without its cost: no approximation */
	int failed, finished;
};

/* Episodes from the ranks' collectives (mpi_episodes.c). 0 or -ENOMEM. */
int mpi_episodes__form(struct mpi *m);
/* Receives paired with their sends (mpi_approx.c). 0 or -ENOMEM. */
int mpi_p2p__pair(struct mpi *m);
/* The run rebuilt across ranks from each rank's own approximation
 * (mpi_approx.c; doc/design.md §5.8). 0 or -ENOMEM. */
int mpi_approx__run(struct mpi *m);

#endif
