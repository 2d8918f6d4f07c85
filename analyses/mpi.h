/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * MPI across processes (doc/design.md §5.8): the ranks of a job, each a
 * traced process, and the episodes their calls make together. The k-th
 * collective call on a communicator in each rank is the same episode (MPI
 * orders collectives on a communicator alike in every member): who arrived
 * last, how long each rank waited for it, the imbalance. Blocking sends and
 * receives are paired in order per (sender, receiver) (MPI does not let
 * messages between two ranks overtake; tags are not compared), which gives
 * a receive's wait for a late sender. Phases between a rank's collectives
 * count the OpenMP regions its process ran in them (hybrid codes).
 *
 * Fed every probe record of every traced process; the episodes are formed
 * at mpi__finish(), so the order in which processes' records come does not
 * matter. Pure: no system calls.
 */
#ifndef SBT_MPI_H
#define SBT_MPI_H

#include <stddef.h>
#include "sbt/events.h"
#include "sbt/format.h"

struct names;

#define MPI_HOST_MAX 64

/* One rank's totals, over the calls seen. */
struct mpi_rank_stats {
	__u32 pid;
	int rank;		 /* -1: not known (no launcher's variable said it) */
	char host[MPI_HOST_MAX]; /* "" unknown */
	__u64 calls;		 /* outermost MPI calls but MPI_Init* and MPI_Finalize */
	__u64 mpi_ns;		 /* time inside them */
	__u64 colls;		 /* collective calls */
	__u64 coll_ns;		 /* time inside collectives */
	__u64 coll_wait_ns;	 /* of which waiting for the episode's last arrival */
	__u64 late;		 /* episodes (of 2 ranks or more) it arrived at last */
	__u64 p2p;		 /* blocking sends, receives, sendrecvs */
	__u64 p2p_ns;
	__u64 late_sender_ns; /* receives' waits for the matching send to begin */
	__u64 completion;     /* MPI_Wait*, MPI_Test*, MPI_Probe */
	__u64 completion_ns;
	__u64 coll_wait_a_ns;	 /* approximated (doc/design.md §5.8; mpi__run()) */
	__u64 phases;		 /* intervals between its consecutive collectives */
	__u64 phase_ns;		 /* their time (outside MPI collectives) */
	__u64 phase_regions;	 /* OpenMP regions begun in them */
	__u64 first_ns, last_ns; /* its first and last MPI call's entry / return */
};

/* A collective episode: one call of each member rank. */
struct mpi_episode {
	__u32 comm;	    /* index into the communicators */
	__u32 index;	    /* k: its place among the communicator's episodes */
	__u16 probe;	    /* the function (of the last rank to arrive) */
	__u32 nranks;	    /* ranks present */
	__u32 late_rank_ix; /* index into the ranks of the last to arrive */
	__u64 first_arrival_ns, last_arrival_ns, last_departure_ns;
	__u64 wait_ns;	  /* the ranks' waits for the last arrival, summed */
	int mixed;	  /* ranks called different functions: a mismatch of the matching */
	int inconsistent; /* a synchronizing collective some rank left before the last
			   * arrived: its ranks are not one communicator's */
	/* approximated (mpi__run()->approximated): the last arrival, its rank,
	 * the waits */
	__u64 last_arrival_a_ns;
	__u32 late_rank_a_ix;
	__u64 wait_a_ns;
};

/* The job's MPI run, from the first collective episode's release to the
 * last's (their last departures), measured and approximated: each rank's
 * own approximation between its MPI calls (the probe cost removed), the
 * calls rebuilt across ranks (doc/design.md §5.8). */
struct mpi_run {
	int approximated; /* every rank's calls approximated: the _a figures hold */
	__u64 first_release_ns, last_release_ns;
	__u64 first_release_a_ns, last_release_a_ns;
	__u64 episodes_changed; /* episodes whose late rank the approximation changed */
};

struct mpi_comm_stats {
	char name[SBT_SYMBOL_MAX]; /* the communicator as the ranks share it */
	__u32 size;		   /* ranks that called on it */
	__u64 episodes;
	__u64 partial; /* episodes some rank of it did not reach (records lost, a late attach) */
	__u64 inconsistent; /* episodes that cannot be one (mpi_episode.inconsistent) */
	__u64 wait_ns;	    /* summed over episodes and ranks */
	__u64 imbalance_ns; /* summed last - first arrival */
	__u64 max_imbalance_ns;
};

struct mpi;

/* probes: the probe table by id (kinds, symbols); names: object names (a
 * communicator Open MPI defines is named by its symbol). NULL on no memory. */
struct mpi *mpi__new(const struct sbt_probe_info *probes, __u32 nprobes, const struct names *names);
void mpi__free(struct mpi *m);
/* Whether MPI function call (MPI_Barrier) is a collective no rank leaves
 * before every member arrived. */
int mpi__synchronizing(const char *call);
/* Whether probe's communicators are int handles (MPICH and its derivatives)
 * rather than pointers (Open MPI). */
int mpi__int_handles(const struct mpi *m, __u16 probe);
/* MPICH's MPI_COMM_WORLD (and its derivatives': Intel MPI, MVAPICH). */
#define MPI_INT_COMM_WORLD 0x44000000u
/* Whether communicator comm, as process pid passed it to probe, is
 * MPI_COMM_WORLD. */
int mpi__world(const struct mpi *m, __u32 pid, __u16 probe, __u64 comm);
/* Whether probe kind k is one of MPI's. */
int mpi__is_kind(int kind);
/* Process pid is rank `rank` (-1 unknown) on host (NULL unknown). 0 or
 * -ENOMEM (mpi__failed() then). */
int mpi__set_rank(struct mpi *m, __u32 pid, int rank, const char *host);
/* What a record's probe hit costs its thread, as its process's
 * approximation charges it (phases__record_cost()): asked only for the
 * threads that made an MPI call. */
struct mpi_cost {
	__u64 (*of)(void *ctx, const struct sbt_event *e);
	void *ctx;
};

/* A record of a traced process: MPI calls, the OpenMP region entries of
 * processes that call MPI, and the cost of each probe hit of a thread that
 * made an MPI call (cost NULL: not approximating, then no approximated run).
 * 0 or -ENOMEM (the analysis is then incomplete: mpi__failed()). */
int mpi__feed(struct mpi *m, const struct sbt_event *e, const struct mpi_cost *cost);
/* Form the episodes from the calls seen. 0 or -ENOMEM. */
int mpi__finish(struct mpi *m);
/* Whether any process made an MPI call. */
int mpi__active(const struct mpi *m);
int mpi__failed(const struct mpi *m);

/* After mpi__finish(): ranks in rank order (unknown ranks last, by pid),
 * communicators in order of first use, episodes in time order. */
size_t mpi__nranks(const struct mpi *m);
const struct mpi_rank_stats *mpi__rank(const struct mpi *m, size_t i);
size_t mpi__ncomms(const struct mpi *m);
const struct mpi_comm_stats *mpi__comm(const struct mpi *m, size_t i);
size_t mpi__nepisodes(const struct mpi *m);
const struct mpi_episode *mpi__episode(const struct mpi *m, size_t i);
/* Part j of episode i (j < its nranks, in rank order): the rank's index,
 * arrival and departure. */
void mpi__episode_part(const struct mpi *m, size_t i, size_t j, size_t *rank_ix, __u64 *arrival,
		       __u64 *departure);
/* The function of probe id as programs call it (MPI_Barrier for the
 * PMPI_Barrier probed), "?" when unknown. */
const char *mpi__symbol(const struct mpi *m, __u16 probe);
/* The run across ranks, measured and approximated. */
const struct mpi_run *mpi__run(const struct mpi *m);
/* p2p receives that could not be paired (a wildcard source, a send not seen). */
__u64 mpi__unmatched_recvs(const struct mpi *m);

#endif
