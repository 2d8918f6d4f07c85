// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Ground-truth MPI workload: each rank computes, then meets the others at
 * MPI_Barrier and at an MPI_Allreduce, STEPS times; rank LATE (the last by
 * default) computes EXTRA ms more, so it is the late arriver of every
 * barrier. With -p each step also passes a token around the ring with
 * blocking MPI_Send/MPI_Recv; with -t THREADS (built with OpenMP) each
 * rank's compute is an OpenMP parallel loop of THREADS threads (a hybrid
 * code: OpenMP phases nested in MPI phases).
 *
 * Every rank prints what it measured around each collective (CLOCK_MONOTONIC,
 * the clock of the tracer's records: one machine, one clock), so a tracer's
 * cross-rank report can be checked against this run:
 *   rank R pid P size N
 *   coll R K NAME arrive_ns A depart_ns D     (K counts the rank's collectives)
 *   total_ns T                                (rank 0: its loop, start to end)
 */
#define _GNU_SOURCE
#include <mpi.h>
#include "workload.h"
#ifdef _OPENMP
#include <omp.h>
#endif

static unsigned long nsteps = 5, work_ms = 20, extra_ms = 30, late = ULONG_MAX, nthreads = 1;
static int spin, ring, wait_start, halves;

static void usage(FILE *f, const char *prog)
{
	fprintf(f,
		"Usage: mpirun -np N %s [-n STEPS] [-d WORK_MS] [-x EXTRA_MS] [-l LATE] [-t "
		"THREADS] "
		"[-m spin|sleep] [-p] [-s] [-W] [-h]\n"
		"Each rank works WORK_MS ms (rank LATE, default the last: WORK_MS + EXTRA_MS), "
		"then\n"
		"calls MPI_Barrier and MPI_Allreduce, STEPS times. -p: a token also goes around "
		"the\n"
		"ring with MPI_Send/MPI_Recv each step. -t: the work is an OpenMP loop of THREADS\n"
		"threads (built with -fopenmp). -m: spin or sleep while working (default sleep: "
		"the\n"
		"ranks may outnumber the CPUs). -W: each rank says \"ready PID\" after MPI_Init "
		"and\n"
		"waits for SIGUSR1 (tracers attach meanwhile).\n",
		prog);
}

/* The rank's work of one step, in THREADS slices of a parallel loop. */
static void compute(uint64_t ns)
{
#ifdef _OPENMP
	long i;

#pragma omp parallel for num_threads(nthreads) schedule(static)
	for (i = 0; i < (long)nthreads; i++)
		work_for_ns(ns, spin);
#else
	work_for_ns(ns, spin);
#endif
}

/* The call, between two clock reads, and the line saying them. */
#define TIMED_COLL(rank, k, name, call)                                                            \
	do {                                                                                       \
		uint64_t arrive_ = now_ns(), depart_;                                              \
		if ((call) != MPI_SUCCESS)                                                         \
			MPI_Abort(MPI_COMM_WORLD, 1);                                              \
		depart_ = now_ns();                                                                \
		emit("coll %d %lu %s arrive_ns %llu depart_ns %llu\n", rank, k, name,              \
		     (unsigned long long)arrive_, (unsigned long long)depart_);                    \
	} while (0)

static void pass_token(int rank, int size, int *token)
{
	int next = (rank + 1) % size, prev = (rank + size - 1) % size;

	if (size < 2)
		return;
	/* even ranks send first: no rank waits on a cycle of sends */
	if (rank % 2 == 0) {
		MPI_Send(token, 1, MPI_INT, next, 7, MPI_COMM_WORLD);
		MPI_Recv(token, 1, MPI_INT, prev, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	} else {
		MPI_Recv(token, 1, MPI_INT, prev, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Send(token, 1, MPI_INT, next, 7, MPI_COMM_WORLD);
	}
}

int main(int argc, char **argv)
{
	const struct wl_opt opts[] = {
		OPT_NUM('n', nsteps, 1, 1000000, 1),
		OPT_NUM('d', work_ms, 0, 60000, 1),
		OPT_NUM('x', extra_ms, 0, 60000, 1),
		OPT_NUM('l', late, 0, 1 << 20, 1),
		OPT_NUM('t', nthreads, 1, 256, 1),
		OPT_MODE('m', spin),
		OPT_FLAG('p', ring),
		OPT_FLAG('W', wait_start),
		OPT_FLAG('s', halves),
		{0},
	};
	int rank, size, token = 0;
	MPI_Comm half = MPI_COMM_NULL;
	double local, sum;
	unsigned long s, k = 0;
	uint64_t start;

	/* before MPI_Init: the threads it starts inherit the blocked signal */
	block_start_signal();
	MPI_Init(&argc, &argv);
	parse_options(argc, argv, opts, usage);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (late == ULONG_MAX)
		late = (unsigned long)size - 1;
	if (halves)
		MPI_Comm_split(MPI_COMM_WORLD, rank < size / 2, rank, &half);
	emit("rank %d pid %d size %d\n", rank, (int)getpid(), size);
	start = begin_run(wait_start);
	for (s = 0; s < nsteps; s++) {
		compute((work_ms + ((unsigned long)rank == late ? extra_ms : 0)) * NSEC_PER_MSEC);
		TIMED_COLL(rank, k++, "MPI_Barrier", MPI_Barrier(MPI_COMM_WORLD));
		local = rank + s;
		TIMED_COLL(rank, k++, "MPI_Allreduce",
			   MPI_Allreduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
		if (ring)
			pass_token(rank, size, &token);
		if (halves)
			MPI_Allreduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, half);
	}
	/* rank 0's loop, from its start to its last collective's return */
	if (!rank)
		end_run(start);
	if (halves)
		MPI_Comm_free(&half);
	MPI_Finalize();
	return 0;
}
