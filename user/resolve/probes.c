// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "user/resolve/elfsym.h"
#include "lib/entry_skip.h"
#include "lib/x86_insn.h"
#include "user/resolve/probes.h"
#include "lib/log.h"
#include "lib/proc.h"

struct known_func {
	const char *symbol;
	int kind;
	const char *runtime;
};

/* doc/design.md §4. The libgomp entry points other than GOMP_barrier end with the
 * team barrier of a worksharing construct; they name no barrier object. A
 * region frame's entry carries the function its team runs (the region body):
 * the first argument of libgomp's, the third of __kmpc_fork_call (entry_args).
 * Timed variants are blocking acquires/waits whose ETIMEDOUT is counted. */
static const struct known_func known[] = {
	{"pthread_barrier_wait", SBT_PK_BARRIER, "glibc"},
	{"GOMP_barrier", SBT_PK_TEAM_BARRIER, "libgomp"},
	{"GOMP_loop_end", SBT_PK_TEAM_BARRIER, "libgomp"},
	{"GOMP_sections_end", SBT_PK_TEAM_BARRIER, "libgomp"},
	{"GOMP_single_copy_end", SBT_PK_TEAM_BARRIER, "libgomp"},
	/* a region with a `cancel parallel` (or a loop with `cancel for`) has
	 * every barrier in these: its team's barriers all the same */
	{"GOMP_barrier_cancel", SBT_PK_TEAM_BARRIER, "libgomp"},
	{"GOMP_loop_end_cancel", SBT_PK_TEAM_BARRIER, "libgomp"},
	{"GOMP_sections_end_cancel", SBT_PK_TEAM_BARRIER, "libgomp"},
	/* the others of the team wait for the one that runs the single here;
	 * it returns NULL at once to that one, no wait (feed.c) */
	{"GOMP_single_copy_start", SBT_PK_TEAM_BARRIER, "libgomp"},
	{"GOMP_parallel", SBT_PK_REGION, "libgomp"},
	{"GOMP_parallel_loop_static", SBT_PK_REGION, "libgomp"},
	{"GOMP_parallel_loop_dynamic", SBT_PK_REGION, "libgomp"},
	{"GOMP_parallel_loop_guided", SBT_PK_REGION, "libgomp"},
	{"GOMP_parallel_loop_runtime", SBT_PK_REGION, "libgomp"},
	{"GOMP_parallel_loop_nonmonotonic_dynamic", SBT_PK_REGION, "libgomp"},
	{"GOMP_parallel_loop_nonmonotonic_guided", SBT_PK_REGION, "libgomp"},
	{"GOMP_parallel_loop_nonmonotonic_runtime", SBT_PK_REGION, "libgomp"},
	{"GOMP_parallel_loop_maybe_nonmonotonic_runtime", SBT_PK_REGION, "libgomp"},
	{"GOMP_parallel_sections", SBT_PK_REGION, "libgomp"},
	{"GOMP_parallel_reductions", SBT_PK_REGION, "libgomp"},
	{"__kmpc_barrier", SBT_PK_TEAM_BARRIER, "libomp"},
	{"__kmpc_cancel_barrier", SBT_PK_TEAM_BARRIER, "libomp"},
	/* single copyprivate: every thread of the team calls it and waits in
	 * it for the one that ran the single (libgomp's is split in two:
	 * GOMP_single_copy_end above, GOMP_single_copy_start) */
	{"__kmpc_copyprivate", SBT_PK_TEAM_BARRIER, "libomp"},
	/* a reduction without nowait: the team waits in __kmpc_reduce (tree
	 * method) or in the __kmpc_end_reduce its return of 1 or 2 calls for
	 * (atomic and critical methods): one barrier from the first's entry
	 * (feed.c) */
	{"__kmpc_reduce", SBT_PK_TEAM_BARRIER, "libomp"},
	{"__kmpc_end_reduce", SBT_PK_TEAM_BARRIER, "libomp"},
	{"__kmpc_fork_call", SBT_PK_REGION, "libomp"},
	/* OpenMP locks (libgomp and libomp export both) and critical
	 * sections: a named one's object is the section's own word (libgomp's
	 * argument, libomp's third); libgomp's unnamed critical and atomic
	 * sections take no argument and are one lock each */
	{"omp_set_lock", SBT_PK_LOCK, "libgomp, libomp"},
	{"omp_unset_lock", SBT_PK_UNLOCK, "libgomp, libomp"},
	{"omp_test_lock", SBT_PK_TRYLOCK, "libgomp, libomp"},
	{"omp_set_nest_lock", SBT_PK_LOCK, "libgomp, libomp"},
	{"omp_unset_nest_lock", SBT_PK_UNLOCK, "libgomp, libomp"},
	{"omp_test_nest_lock", SBT_PK_TRYLOCK, "libgomp, libomp"},
	{"GOMP_critical_start", SBT_PK_LOCK, "libgomp"},
	{"GOMP_critical_end", SBT_PK_UNLOCK, "libgomp"},
	{"GOMP_critical_name_start", SBT_PK_LOCK, "libgomp"},
	{"GOMP_critical_name_end", SBT_PK_UNLOCK, "libgomp"},
	{"GOMP_atomic_start", SBT_PK_LOCK, "libgomp"},
	{"GOMP_atomic_end", SBT_PK_UNLOCK, "libgomp"},
	{"__kmpc_critical", SBT_PK_LOCK, "libomp"},
	{"__kmpc_critical_with_hint", SBT_PK_LOCK, "libomp"},
	{"__kmpc_end_critical", SBT_PK_UNLOCK, "libomp"},
	{"GOMP_task", SBT_PK_TASK_NEW, "libgomp"},
	{"GOMP_taskwait", SBT_PK_TASK_WAIT, "libgomp"},
	{"GOMP_taskgroup_end", SBT_PK_TASK_WAIT, "libgomp"},
	{"__kmpc_omp_task", SBT_PK_TASK_NEW, "libomp"},
	{"__kmpc_omp_task_with_deps", SBT_PK_TASK_NEW, "libomp"},
	{"__kmpc_omp_taskwait", SBT_PK_TASK_WAIT, "libomp"},
	{"__kmpc_end_taskgroup", SBT_PK_TASK_WAIT, "libomp"},
	{"pthread_mutex_lock", SBT_PK_LOCK, "glibc"},
	{"pthread_mutex_timedlock", SBT_PK_LOCK, "glibc"},
	/* glibc 2.30's: libstdc++'s timed mutexes (try_lock_for, _until) */
	{"pthread_mutex_clocklock", SBT_PK_LOCK, "glibc"},
	{"pthread_mutex_trylock", SBT_PK_TRYLOCK, "glibc"},
	{"pthread_mutex_unlock", SBT_PK_UNLOCK, "glibc"},
	{"pthread_spin_lock", SBT_PK_LOCK, "glibc"},
	{"pthread_spin_trylock", SBT_PK_TRYLOCK, "glibc"},
	{"pthread_spin_unlock", SBT_PK_UNLOCK, "glibc"},
	{"pthread_rwlock_rdlock", SBT_PK_LOCK, "glibc"},
	{"pthread_rwlock_wrlock", SBT_PK_LOCK, "glibc"},
	{"pthread_rwlock_timedrdlock", SBT_PK_LOCK, "glibc"},
	{"pthread_rwlock_timedwrlock", SBT_PK_LOCK, "glibc"},
	{"pthread_rwlock_clockrdlock", SBT_PK_LOCK, "glibc"},
	{"pthread_rwlock_clockwrlock", SBT_PK_LOCK, "glibc"},
	{"pthread_rwlock_tryrdlock", SBT_PK_TRYLOCK, "glibc"},
	{"pthread_rwlock_trywrlock", SBT_PK_TRYLOCK, "glibc"},
	{"pthread_rwlock_unlock", SBT_PK_UNLOCK, "glibc"},
	{"sem_wait", SBT_PK_SEM_WAIT, "glibc"},
	{"sem_timedwait", SBT_PK_SEM_WAIT, "glibc"},
	{"sem_clockwait", SBT_PK_SEM_WAIT, "glibc"},
	{"sem_trywait", SBT_PK_SEM_TRYWAIT, "glibc"},
	{"sem_post", SBT_PK_SEM_POST, "glibc"},
	{"pthread_cond_wait", SBT_PK_COND_WAIT, "glibc"},
	{"pthread_cond_timedwait", SBT_PK_COND_WAIT, "glibc"},
	{"pthread_cond_clockwait", SBT_PK_COND_WAIT, "glibc"},
	{"pthread_cond_signal", SBT_PK_COND_SIGNAL, "glibc"},
	{"pthread_cond_broadcast", SBT_PK_COND_SIGNAL, "glibc"},
	/* the end of a fork-join step's creations (the join's wait is the
	 * futex's, seen outside any probed call) */
	{"pthread_join", SBT_PK_JOIN, "glibc"},
	{"pthread_timedjoin_np", SBT_PK_JOIN, "glibc"},
	{"pthread_clockjoin_np", SBT_PK_JOIN, "glibc"},
	{"pthread_tryjoin_np", SBT_PK_JOIN, "glibc"},
	/* MPI (doc/design.md §5.8): Open MPI's libmpi and MPICH's libmpich
	 * define each MPI_F as a weak alias of PMPI_F; PMPI_F is probed, which
	 * a profiling library's own MPI_F calls too */
	{"PMPI_Barrier", SBT_PK_MPI_COLL, "MPI"},
	{"PMPI_Bcast", SBT_PK_MPI_COLL, "MPI"},
	{"PMPI_Reduce", SBT_PK_MPI_COLL, "MPI"},
	{"PMPI_Allreduce", SBT_PK_MPI_COLL, "MPI"},
	{"PMPI_Gather", SBT_PK_MPI_COLL, "MPI"},
	{"PMPI_Gatherv", SBT_PK_MPI_COLL, "MPI"},
	{"PMPI_Scatter", SBT_PK_MPI_COLL, "MPI"},
	{"PMPI_Scatterv", SBT_PK_MPI_COLL, "MPI"},
	{"PMPI_Allgather", SBT_PK_MPI_COLL, "MPI"},
	{"PMPI_Allgatherv", SBT_PK_MPI_COLL, "MPI"},
	{"PMPI_Alltoall", SBT_PK_MPI_COLL, "MPI"},
	{"PMPI_Alltoallv", SBT_PK_MPI_COLL, "MPI"},
	{"PMPI_Reduce_scatter", SBT_PK_MPI_COLL, "MPI"},
	{"PMPI_Reduce_scatter_block", SBT_PK_MPI_COLL, "MPI"},
	{"PMPI_Scan", SBT_PK_MPI_COLL, "MPI"},
	{"PMPI_Exscan", SBT_PK_MPI_COLL, "MPI"},
	{"PMPI_Send", SBT_PK_MPI_SEND, "MPI"},
	{"PMPI_Ssend", SBT_PK_MPI_SEND, "MPI"},
	{"PMPI_Rsend", SBT_PK_MPI_SEND, "MPI"},
	{"PMPI_Bsend", SBT_PK_MPI_SEND, "MPI"},
	{"PMPI_Recv", SBT_PK_MPI_RECV, "MPI"},
	{"PMPI_Sendrecv", SBT_PK_MPI_SENDRECV, "MPI"},
	{"PMPI_Sendrecv_replace", SBT_PK_MPI_SENDRECV, "MPI"},
	{"PMPI_Wait", SBT_PK_MPI_WAIT, "MPI"},
	{"PMPI_Waitall", SBT_PK_MPI_WAIT, "MPI"},
	{"PMPI_Waitany", SBT_PK_MPI_WAIT, "MPI"},
	{"PMPI_Waitsome", SBT_PK_MPI_WAIT, "MPI"},
	{"PMPI_Test", SBT_PK_MPI_WAIT, "MPI"},
	{"PMPI_Testall", SBT_PK_MPI_WAIT, "MPI"},
	{"PMPI_Testany", SBT_PK_MPI_WAIT, "MPI"},
	{"PMPI_Testsome", SBT_PK_MPI_WAIT, "MPI"},
	{"PMPI_Probe", SBT_PK_MPI_WAIT, "MPI"},
	{"PMPI_Init", SBT_PK_MPI_LIFE, "MPI"},
	{"PMPI_Init_thread", SBT_PK_MPI_LIFE, "MPI"},
	{"PMPI_Finalize", SBT_PK_MPI_LIFE, "MPI"},
	{"PMPI_Comm_split", SBT_PK_MPI_COMM, "MPI"},
	{"PMPI_Comm_split_type", SBT_PK_MPI_COMM, "MPI"},
	{"PMPI_Comm_dup", SBT_PK_MPI_COMM, "MPI"},
	{"PMPI_Comm_create", SBT_PK_MPI_COMM, "MPI"},
};

#define NKNOWN (sizeof(known) / sizeof(known[0]))

/* What a probe's entry records carry (SBT_ARG_*), and the output argument
 * its return record reads (SBT_COOKIE_OUT; 0: the return value). */
struct entry_sel {
	int obj_arg, site_arg, out_arg;
};

/* Known functions whose entry records carry other than their first two
 * arguments (SBT_ARG_*). An MPI collective's object is its communicator, a
 * send's or receive's the peer's rank, with the communicator as site
 * (MPI_Sendrecv: the rank it receives from). */
static const struct {
	const char *symbol;
	struct entry_sel sel;
} entry_args[] = {
	/* functions whose second argument (if any) says nothing of the
	 * object record none: a register the record does not read is one the
	 * probe may go past a write of (x86_insn__entry_skip) */
	{"GOMP_barrier", {SBT_ARG_CONST(0), SBT_ARG_CONST(0), 0}},
	{"GOMP_barrier_cancel", {SBT_ARG_CONST(0), SBT_ARG_CONST(0), 0}},
	{"pthread_barrier_wait", {SBT_ARG_DEFAULT, SBT_ARG_CONST(0), 0}},
	{"pthread_mutex_lock", {SBT_ARG_DEFAULT, SBT_ARG_CONST(0), 0}},
	{"pthread_mutex_timedlock", {SBT_ARG_DEFAULT, SBT_ARG_CONST(0), 0}},
	{"pthread_mutex_clocklock", {SBT_ARG_DEFAULT, SBT_ARG_CONST(0), 0}},
	{"pthread_mutex_trylock", {SBT_ARG_DEFAULT, SBT_ARG_CONST(0), 0}},
	{"pthread_mutex_unlock", {SBT_ARG_DEFAULT, SBT_ARG_CONST(0), 0}},
	{"pthread_spin_lock", {SBT_ARG_DEFAULT, SBT_ARG_CONST(0), 0}},
	{"pthread_spin_trylock", {SBT_ARG_DEFAULT, SBT_ARG_CONST(0), 0}},
	{"pthread_spin_unlock", {SBT_ARG_DEFAULT, SBT_ARG_CONST(0), 0}},
	{"pthread_rwlock_rdlock", {SBT_ARG_DEFAULT, SBT_ARG_CONST(0), 0}},
	{"pthread_rwlock_wrlock", {SBT_ARG_DEFAULT, SBT_ARG_CONST(0), 0}},
	{"pthread_rwlock_timedrdlock", {SBT_ARG_DEFAULT, SBT_ARG_CONST(0), 0}},
	{"pthread_rwlock_timedwrlock", {SBT_ARG_DEFAULT, SBT_ARG_CONST(0), 0}},
	{"pthread_rwlock_clockrdlock", {SBT_ARG_DEFAULT, SBT_ARG_CONST(0), 0}},
	{"pthread_rwlock_clockwrlock", {SBT_ARG_DEFAULT, SBT_ARG_CONST(0), 0}},
	{"pthread_rwlock_tryrdlock", {SBT_ARG_DEFAULT, SBT_ARG_CONST(0), 0}},
	{"pthread_rwlock_trywrlock", {SBT_ARG_DEFAULT, SBT_ARG_CONST(0), 0}},
	{"pthread_rwlock_unlock", {SBT_ARG_DEFAULT, SBT_ARG_CONST(0), 0}},
	{"sem_wait", {SBT_ARG_DEFAULT, SBT_ARG_CONST(0), 0}},
	{"sem_trywait", {SBT_ARG_DEFAULT, SBT_ARG_CONST(0), 0}},
	{"sem_timedwait", {SBT_ARG_DEFAULT, SBT_ARG_CONST(0), 0}},
	{"sem_clockwait", {SBT_ARG_DEFAULT, SBT_ARG_CONST(0), 0}},
	{"sem_post", {SBT_ARG_DEFAULT, SBT_ARG_CONST(0), 0}},
	{"pthread_cond_signal", {SBT_ARG_DEFAULT, SBT_ARG_CONST(0), 0}},
	{"pthread_cond_broadcast", {SBT_ARG_DEFAULT, SBT_ARG_CONST(0), 0}},
	{"omp_set_lock", {SBT_ARG_DEFAULT, SBT_ARG_CONST(0), 0}},
	{"omp_unset_lock", {SBT_ARG_DEFAULT, SBT_ARG_CONST(0), 0}},
	{"omp_test_lock", {SBT_ARG_DEFAULT, SBT_ARG_CONST(0), 0}},
	{"omp_set_nest_lock", {SBT_ARG_DEFAULT, SBT_ARG_CONST(0), 0}},
	{"omp_unset_nest_lock", {SBT_ARG_DEFAULT, SBT_ARG_CONST(0), 0}},
	{"omp_test_nest_lock", {SBT_ARG_DEFAULT, SBT_ARG_CONST(0), 0}},
	{"__kmpc_fork_call", {3, SBT_ARG_DEFAULT, 0}},
	{"__kmpc_critical", {3, SBT_ARG_DEFAULT, 0}},
	{"__kmpc_critical_with_hint", {3, SBT_ARG_DEFAULT, 0}},
	{"__kmpc_end_critical", {3, SBT_ARG_DEFAULT, 0}},
	{"GOMP_critical_start", {SBT_ARG_CONST(SBT_OBJ_CRITICAL), SBT_ARG_DEFAULT, 0}},
	{"GOMP_critical_end", {SBT_ARG_CONST(SBT_OBJ_CRITICAL), SBT_ARG_DEFAULT, 0}},
	{"GOMP_atomic_start", {SBT_ARG_CONST(SBT_OBJ_ATOMIC), SBT_ARG_DEFAULT, 0}},
	{"GOMP_atomic_end", {SBT_ARG_CONST(SBT_OBJ_ATOMIC), SBT_ARG_DEFAULT, 0}},
	{"PMPI_Bcast", {5, SBT_ARG_CONST(0), 0}},
	{"PMPI_Reduce", {SBT_ARG_N(7), SBT_ARG_CONST(0), 0}},
	{"PMPI_Allreduce", {SBT_ARG_N(6), SBT_ARG_CONST(0), 0}},
	{"PMPI_Gather", {SBT_ARG_N(8), SBT_ARG_CONST(0), 0}},
	{"PMPI_Gatherv", {SBT_ARG_N(9), SBT_ARG_CONST(0), 0}},
	{"PMPI_Scatter", {SBT_ARG_N(8), SBT_ARG_CONST(0), 0}},
	{"PMPI_Scatterv", {SBT_ARG_N(9), SBT_ARG_CONST(0), 0}},
	{"PMPI_Allgather", {SBT_ARG_N(7), SBT_ARG_CONST(0), 0}},
	{"PMPI_Allgatherv", {SBT_ARG_N(8), SBT_ARG_CONST(0), 0}},
	{"PMPI_Alltoall", {SBT_ARG_N(7), SBT_ARG_CONST(0), 0}},
	{"PMPI_Alltoallv", {SBT_ARG_N(9), SBT_ARG_CONST(0), 0}},
	{"PMPI_Reduce_scatter", {SBT_ARG_N(6), SBT_ARG_CONST(0), 0}},
	{"PMPI_Reduce_scatter_block", {SBT_ARG_N(6), SBT_ARG_CONST(0), 0}},
	{"PMPI_Scan", {SBT_ARG_N(6), SBT_ARG_CONST(0), 0}},
	{"PMPI_Exscan", {SBT_ARG_N(6), SBT_ARG_CONST(0), 0}},
	{"PMPI_Barrier", {SBT_ARG_DEFAULT, SBT_ARG_CONST(0), 0}},
	{"PMPI_Send", {4, SBT_ARG_N(6), 0}},
	{"PMPI_Ssend", {4, SBT_ARG_N(6), 0}},
	{"PMPI_Rsend", {4, SBT_ARG_N(6), 0}},
	{"PMPI_Bsend", {4, SBT_ARG_N(6), 0}},
	{"PMPI_Recv", {4, SBT_ARG_N(6), 0}},
	{"PMPI_Sendrecv", {4, SBT_ARG_N(9), 0}},
	{"PMPI_Sendrecv_replace", {4, SBT_ARG_N(6), 0}},
	/* a communicator made: the parent, the color, and the new one at the return */
	{"PMPI_Comm_split", {SBT_ARG_DEFAULT, SBT_ARG_DEFAULT, 4}},
	{"PMPI_Comm_split_type", {SBT_ARG_DEFAULT, SBT_ARG_DEFAULT, 5}},
	{"PMPI_Comm_dup", {SBT_ARG_DEFAULT, SBT_ARG_CONST(0), 2}},
	{"PMPI_Comm_create", {SBT_ARG_DEFAULT, SBT_ARG_CONST(0), 3}},
};

/* What known function symbol's records carry: obj_arg and site_arg at the
 * entry, out_arg's target at the return (0: the return value). */
static struct entry_sel entry_sel_of(const char *symbol)
{
	size_t i;

	for (i = 0; i < sizeof(entry_args) / sizeof(entry_args[0]); i++)
		if (!strcmp(entry_args[i].symbol, symbol))
			return entry_args[i].sel;
	return (struct entry_sel){SBT_ARG_DEFAULT, SBT_ARG_DEFAULT, 0};
}
#define MAX_VERSIONS 4

static const struct {
	const char *name;
	int kind;
} user_kinds[] = {
	{"barrier", SBT_PK_BARRIER},	/* first argument identifies the barrier */
	{"team", SBT_PK_TEAM_BARRIER},	/* barrier of the process's threads, no argument */
	{"region", SBT_PK_REGION},	/* parallel region frame */
	{"lock", SBT_PK_LOCK},		/* blocking acquire of the first argument */
	{"trylock", SBT_PK_TRYLOCK},	/* non-blocking acquire, 0 = acquired */
	{"unlock", SBT_PK_UNLOCK},	/* release of the first argument */
	{"P", SBT_PK_SEM_WAIT},		/* semaphore wait */
	{"V", SBT_PK_SEM_POST},		/* semaphore post */
	{"wait", SBT_PK_COND_WAIT},	/* wait on the first argument until signalled */
	{"signal", SBT_PK_COND_SIGNAL}, /* wake waiters of the first argument */
};

const char *user_probe__kinds(void)
{
	return "barrier, team, region, lock, trylock, unlock, P, V, wait, signal";
}

unsigned int probe_kind__class(int kind)
{
	switch (kind) {
	case SBT_PK_BARRIER:
	case SBT_PK_TEAM_BARRIER:
	case SBT_PK_REGION:
	case SBT_PK_REGION_BODY:
	case SBT_PK_JOIN:
		return SBT_TRACE_BARRIER;
	case SBT_PK_LOCK:
	case SBT_PK_TRYLOCK:
	case SBT_PK_UNLOCK:
		return SBT_TRACE_LOCK;
	case SBT_PK_SEM_WAIT:
	case SBT_PK_SEM_TRYWAIT:
	case SBT_PK_SEM_POST:
		return SBT_TRACE_SEM;
	case SBT_PK_COND_WAIT:
	case SBT_PK_COND_SIGNAL:
		return SBT_TRACE_COND;
	case SBT_PK_TASK_NEW:
	case SBT_PK_TASK_WAIT:
		return SBT_TRACE_TASK;
	case SBT_PK_MPI_COLL:
	case SBT_PK_MPI_SEND:
	case SBT_PK_MPI_RECV:
	case SBT_PK_MPI_SENDRECV:
	case SBT_PK_MPI_WAIT:
	case SBT_PK_MPI_LIFE:
	case SBT_PK_MPI_COMM:
		return SBT_TRACE_MPI;
	}
	return 0;
}

static const struct {
	const char *name;
	unsigned int bit;
} trace_classes[] = {
	{"barrier", SBT_TRACE_BARRIER}, {"lock", SBT_TRACE_LOCK},   {"sem", SBT_TRACE_SEM},
	{"cond", SBT_TRACE_COND},	{"futex", SBT_TRACE_FUTEX}, {"task", SBT_TRACE_TASK},
	{"mpi", SBT_TRACE_MPI},
};

int trace_classes__parse(const char *list, unsigned int *out, char *err, size_t errlen)
{
	char buf[256], *tok, *save = NULL;
	unsigned int bits = 0;
	size_t i;

	if (!strcmp(list, "all")) {
		*out = SBT_TRACE_ALL;
		return 0;
	}
	snprintf(buf, sizeof(buf), "%s", list);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < sizeof(trace_classes) / sizeof(trace_classes[0]); i++)
			if (!strcmp(tok, trace_classes[i].name))
				break;
		if (i == sizeof(trace_classes) / sizeof(trace_classes[0])) {
			snprintf(err, errlen,
				 "--trace: unknown class '%s' (barrier, lock, sem, cond, futex, "
				 "task, mpi, all)",
				 tok);
			return -EINVAL;
		}
		bits |= trace_classes[i].bit;
	}
	if (!bits) {
		snprintf(err, errlen, "--trace: empty list");
		return -EINVAL;
	}
	*out = bits;
	return 0;
}

/* The ':' that ends BINARY in BINARY:SYMBOL:KIND, k the one before KIND:
 * the last one before k with no ':' beside it. A C symbol has no ':', a
 * C++ name ("ns::Class::method") only "::" pairs; a path may hold ':'.
 * NULL: none. */
static const char *binary_end(const char *arg, const char *k)
{
	const char *s;

	for (s = k - 1; s >= arg; s--)
		if (*s == ':' && s[1] != ':' && (s == arg || s[-1] != ':'))
			return s;
	return NULL;
}

int user_probe__parse(const char *arg, struct user_probe *up, char *err, size_t errlen)
{
	const char *k = strrchr(arg, ':'), *s = k ? binary_end(arg, k) : NULL;
	size_t i;

	memset(up, 0, sizeof(*up));
	if (!k || !s || s == arg || k == s + 1 || k[-1] == ':') {
		snprintf(err, errlen, "--probe '%s': expected BINARY:SYMBOL:KIND", arg);
		return -EINVAL;
	}
	for (i = 0; i < sizeof(user_kinds) / sizeof(user_kinds[0]); i++)
		if (!strcmp(k + 1, user_kinds[i].name))
			up->kind = user_kinds[i].kind;
	if (!up->kind) {
		snprintf(err, errlen, "--probe '%s': unknown kind '%s' (known kinds: %s)", arg,
			 k + 1, user_probe__kinds());
		return -EINVAL;
	}
	if ((size_t)(s - arg) >= sizeof(up->binary) || (size_t)(k - s - 1) >= sizeof(up->symbol)) {
		snprintf(err, errlen, "--probe '%s': name too long", arg);
		return -EINVAL;
	}
	memcpy(up->binary, arg, s - arg);
	memcpy(up->symbol, s + 1, k - s - 1);
	return 0;
}

void probes__known(unsigned int classes, char *buf, size_t n)
{
	size_t i, len = 0;

	buf[0] = 0;
	for (i = 0; i < NKNOWN && len < n; i++)
		if (probe_kind__class(known[i].kind) & classes)
			len += snprintf(buf + len, n - len, "%s%s (%s)", len ? ", " : "",
					known[i].symbol, known[i].runtime);
}

#if defined(__x86_64__)
/* The argument an entry record's selector reads (include/sbt/events.h),
 * dflt for the default; 0 for none (the return address, the probed
 * address, a constant). */
static int selected_arg(int sel, int dflt)
{
	if (sel == SBT_ARG_DEFAULT)
		return dflt;
	if (sel >= 1 && sel <= 5)
		return sel;
	return sel > SBT_ARG_N(0) ? sel - SBT_ARG_N(0) : 0;
}

/* The registers the entry record of sel reads (the arguments on the stack
 * read the stack pointer, which nothing a probe goes past writes). */
static unsigned int regs_read(const struct entry_sel *sel)
{
	return x86_insn__arg_reg(selected_arg(sel->obj_arg, 1)) |
	       x86_insn__arg_reg(selected_arg(sel->site_arg, 2)) | x86_insn__arg_reg(sel->out_arg);
}
#endif

unsigned int probes__regs_read(const char *symbol)
{
#if defined(__x86_64__)
	struct entry_sel sel = entry_sel_of(symbol);

	return regs_read(&sel);
#else
	(void)symbol;
	return 0;
#endif
}

/* How far past its first instruction the function at offset of f is
 * probed (lib/entry_skip.h); 0 off x86. */
static uint64_t entry_skip(const struct mapped_file *f, uint64_t offset, uint64_t span,
			   const struct entry_sel *sel)
{
#if defined(__x86_64__)
	int fd = proc__open_mapped(f);
	unsigned int skip;

	if (fd < 0)
		return 0;
	skip = entry_skip__in_file(fd, offset, span, regs_read(sel));
	close(fd);
	return skip;
#else
	(void)f, (void)offset, (void)span, (void)sel;
	return 0;
#endif
}

/* Probe symbol of kind at offset of f, its entry records carrying what sel
 * says; span: the bytes the function spans as far as the symbols tell (0:
 * unknown, lib/entry_skip.h). */
static int add_probe(struct probe_table *t, const char *symbol, int kind,
		     const struct mapped_file *f, uint64_t offset, const struct entry_sel *sel,
		     uint64_t span)
{
	char open_path[sizeof(t->probes->open_path)];
	struct probe *p;
	int i, err;

	for (i = 1; i < t->n; i++)
		if (t->probes[i].info.offset == offset && t->probes[i].dev == f->dev &&
		    t->probes[i].ino == f->inode)
			return 0; /* declared twice (e.g. --probe on a known function) */
	if (t->n >= SBT_MAX_PROBES)
		return -E2BIG;
	err = proc__pin(f, open_path, sizeof(open_path));
	if (err) {
		/* replaced since it was read, or the process is gone */
		log_warn("%s: cannot keep it open to probe it: %s", f->path, strerror(-err));
		return 0;
	}
	p = realloc(t->probes, (t->n + 1) * sizeof(*p));
	if (!p)
		return -ENOMEM;
	t->probes = p;
	p = &t->probes[t->n];
	memset(p, 0, sizeof(*p));
	p->info.id = t->n++;
	p->info.kind = kind;
	p->info.offset = offset;
	snprintf(p->info.symbol, sizeof(p->info.symbol), "%s", symbol);
	snprintf(p->info.object, sizeof(p->info.object), "%s", f->path);
	snprintf(p->open_path, sizeof(p->open_path), "%s", open_path);
	p->dev = f->dev;
	p->ino = f->inode;
	p->obj_arg = sel->obj_arg;
	p->site_arg = sel->site_arg;
	p->out_arg = sel->out_arg;
	p->entry_skip = entry_skip(f, offset, span, sel);
	if (p->entry_skip)
		log_debug("%s (%s+%#llx): probed %llu bytes in", symbol, f->path,
			  (unsigned long long)offset, (unsigned long long)p->entry_skip);
	return 0;
}

/* Whether the kernel can put a uprobe on the instruction at offset of path.
 * x86 uprobes refuse instructions with a lock prefix (glibc's
 * pthread_spin_lock starts with `lock decl (%rdi)`): the attach would fail
 * with ENOTSUPP, and with multi-uprobe links take every other probe of the
 * file down with it. */
static int probeable(const struct mapped_file *f, uint64_t offset)
{
#if defined(__x86_64__)
	unsigned char insn[15];
	int fd = proc__open_mapped(f);
	ssize_t i;

	if (fd < 0)
		return 1;
	i = pread(fd, insn, sizeof(insn), (off_t)offset);
	close(fd);
	for (; i-- > 0;) {
		unsigned char b = insn[sizeof(insn) - 1 - i];

		if (b == 0xf0)
			return 0;
		/* other legacy prefixes may come before lock */
		if (b != 0x66 && b != 0x67 && b != 0x2e && b != 0x3e && b != 0x26 && b != 0x64 &&
		    b != 0x65 && b != 0x36 && b != 0xf2 && b != 0xf3)
			break;
	}
#endif
	return 1;
}

int probes__add_symbol(struct probe_table *t, const struct elfsym *es, const struct mapped_file *f,
		       const char *symbol, int kind)
{
	uint64_t offs[MAX_VERSIONS];
	int i, n = elfsym__find(es, symbol, offs, MAX_VERSIONS), err;
	struct entry_sel sel = entry_sel_of(symbol);

	for (i = 0; i < n; i++) {
		if (!probeable(f, offs[i])) {
			t->unprobeable++;
			size_t len = strlen(t->unprobeable_names);

			snprintf(t->unprobeable_names + len, sizeof(t->unprobeable_names) - len,
				 "%s%s", len ? ", " : "", symbol);
			continue;
		}
		err = add_probe(t, symbol, kind, f, offs[i], &sel,
				elfsym__function_span(es, offs[i]));
		if (err)
			return err;
	}
	return n;
}

/* Whether a function is the outlined body of an OpenMP construct, as the
 * compilers name them: gcc `main._omp_fn.0`, clang `.omp_outlined.`,
 * `.omp_outlined..3` (14) or `main.omp_outlined` (17+). clang's
 * `*_debug__` twin is called by the body proper, and task bodies
 * (`.omp_task_entry.`) are not region bodies. gcc's task bodies share the
 * region bodies' names: the analysis keeps only those a region frame
 * started (doc/design.md §5.1). */
static int is_region_body(const char *symbol)
{
	return (strstr(symbol, "._omp_fn.") || strstr(symbol, "omp_outlined")) &&
	       !strstr(symbol, "_debug__");
}

/* clang's task entry (`.omp_task_entry.`, the task's code inlined): a body
 * like the others, probed with the barrier class as gcc's are (they share
 * the region bodies' names), and with the task class: a task body run
 * inside a barrier or a task wait is work, not waiting (analyses/tasks.c,
 * analyses/episodes.c). */
static int is_task_body(const char *symbol)
{
	return strstr(symbol, ".omp_task_entry.") != NULL;
}

struct body_scan {
	struct probe_table *t;
	const struct elfsym *es;
	const struct mapped_file *f;
	unsigned int classes;
	int found;
};

int probes__add_body(struct probe_table *t, const char *name, const struct mapped_file *f,
		     uint64_t offset, uint64_t span)
{
	/* the body's address tells which region frame started it, its return
	 * address a barrier it tail-calls (doc/design.md §5.1) */
	static const struct entry_sel body = {SBT_ARG_RET, SBT_ARG_IP, 0};
	int first = t->n, err;

	if (!probeable(f, offset))
		return -ENOTSUP;
	err = add_probe(t, name, SBT_PK_REGION_BODY, f, offset, &body, span);
	if (err)
		return err;
	return t->n > first;
}

int probes__find(const struct probe_table *t, uint64_t dev, uint64_t ino, uint64_t offset)
{
	int i;

	for (i = 1; i < t->n; i++)
		if (t->probes[i].info.offset == offset && t->probes[i].ino == ino &&
		    t->probes[i].dev == dev)
			return i;
	return 0;
}

static int add_body(void *ctx, const char *name, uint64_t offset)
{
	struct body_scan *b = ctx;
	int n;

	if (!(((b->classes & SBT_TRACE_BARRIER) && is_region_body(name)) ||
	      ((b->classes & (SBT_TRACE_BARRIER | SBT_TRACE_TASK)) && is_task_body(name))))
		return 0;
	n = probes__add_body(b->t, name, b->f, offset, elfsym__function_span(b->es, offset));
	if (n == -ENOTSUP)
		return 0;
	if (n < 0)
		return n;
	b->found++;
	return 0;
}

/* The region (and task) bodies es (file f) defines, from its symbol table. */
static int add_bodies(struct probe_table *t, const struct elfsym *es, const struct mapped_file *f,
		      unsigned int classes)
{
	struct body_scan b = {.t = t, .es = es, .f = f, .classes = classes};
	int err = elfsym__each_function(es, add_body, &b);

	return err ? err : b.found;
}

/* The libraries whose functions the probe shim stands in for. */
static int interposed(const struct mapped_file *f)
{
	static const char *const libs[] = {"libc.so", "libc-", "libpthread", "libgomp", "libomp"};
	const char *base = strrchr(f->path, '/');
	size_t i;

	base = base ? base + 1 : f->path;
	for (i = 0; i < sizeof(libs) / sizeof(libs[0]); i++)
		if (!strncmp(base, libs[i], strlen(libs[i])))
			return 1;
	return 0;
}

static int shim_covers(const struct probe_table *t, size_t i)
{
	return (t->shim_covers[i / 64] >> (i % 64)) & 1;
}

int probes__shim_in_use(const struct probe_table *t)
{
	return t->shim_covers[0] || t->shim_covers[1];
}

int probes__shim_sites(const struct elfsym *es, const char *fn, uint64_t *enter, uint64_t *exit)
{
	char name[SBT_SYMBOL_MAX + 16];

	snprintf(name, sizeof(name), "sbt_enter_%s", fn);
	if (elfsym__find(es, name, enter, 1) != 1)
		return 0;
	snprintf(name, sizeof(name), "sbt_exit_%s", fn);
	return elfsym__find(es, name, exit, 1) == 1;
}

_Static_assert(NKNOWN <= 128, "probe_table.shim_covers holds a bit per known function");

int probes__use_shim(struct probe_table *t, const char *path)
{
	uint64_t enter, exit;
	struct elfsym *es;
	int e, n = 0;
	size_t i;

	es = elfsym__open(path, &e);
	if (!es)
		return e;
	for (i = 0; i < NKNOWN; i++) {
		if (probes__shim_sites(es, known[i].symbol, &enter, &exit)) {
			t->shim_covers[i / 64] |= 1ULL << (i % 64);
			n++;
		}
	}
	elfsym__close(es);
	return n;
}

/* The probe shim's sites (shim/shim.h) of the known functions of classes:
 * each probe enters at sbt_enter_F and leaves at sbt_exit_F. Returns the
 * probes added or a negative errno. */
static int add_shim_sites(struct probe_table *t, const struct elfsym *es,
			  const struct mapped_file *f, unsigned int classes)
{
	struct entry_sel sel;
	uint64_t enter, exit;
	int added = 0, e;
	size_t i;

	for (i = 0; i < NKNOWN; i++) {
		if (!(probe_kind__class(known[i].kind) & classes) || !shim_covers(t, i) ||
		    !probes__shim_sites(es, known[i].symbol, &enter, &exit))
			continue;
		sel = entry_sel_of(known[i].symbol);
		/* a site begins with a 5-byte nop: probed there (span 0) */
		e = add_probe(t, known[i].symbol, known[i].kind, f, enter, &sel, 0);
		if (e)
			return e;
		t->probes[t->n - 1].exit_offset = exit;
		added++;
	}
	return added;
}

/* Known functions of the classes defined in es (file f), and the region
 * bodies it defines; used[], when not NULL, marks those f imports, and
 * those it defines when `exe` (a static binary defines what it uses), and
 * used[NKNOWN] a file defining bodies. Returns the probes added or a
 * negative errno. */
static int add_known(struct probe_table *t, const struct elfsym *es, const struct mapped_file *f,
		     unsigned int classes, int exe, int *used)
{
	int n, added = 0;
	uint64_t mark;
	size_t i;

	/* the shim defines the functions it wraps: only its sites are probes,
	 * and only when it is ours to use */
	if (elfsym__find(es, "sbt_probes_shim_v1", &mark, 1) == 1)
		return probes__shim_in_use(t) ? add_shim_sites(t, es, f, classes) : 0;
	for (i = 0; i < NKNOWN; i++) {
		if (!(probe_kind__class(known[i].kind) & classes))
			continue;
		if (used && elfsym__imports(es, known[i].symbol))
			used[i] = 1;
		if (shim_covers(t, i) && interposed(f))
			continue;
		n = probes__add_symbol(t, es, f, known[i].symbol, known[i].kind);
		if (n < 0)
			return n;
		if (n > 0 && exe && used)
			used[i] = 1;
		added += n;
	}
	if (!(classes & (SBT_TRACE_BARRIER | SBT_TRACE_TASK)))
		return added;
	n = add_bodies(t, es, f, classes);
	if (n < 0)
		return n;
	/* a region body counts as a use: its program runs OpenMP regions */
	if (n > 0 && used)
		used[NKNOWN] = 1;
	return added + n;
}

int probes__add_known(struct probe_table *t, const struct elfsym *es, const struct mapped_file *f,
		      unsigned int classes)
{
	return add_known(t, es, f, classes, 0, NULL);
}

int probes__add_interposed(struct probe_table *t, const struct elfsym *es,
			   const struct mapped_file *f, unsigned int classes)
{
	int n, added = 0;
	size_t i;

	if (!interposed(f))
		return 0;
	for (i = 0; i < NKNOWN; i++) {
		if (!(probe_kind__class(known[i].kind) & classes) || !shim_covers(t, i))
			continue;
		n = probes__add_symbol(t, es, f, known[i].symbol, known[i].kind);
		if (n < 0)
			return n;
		added += n;
	}
	return added;
}

/* Known functions defined in file f (see add_known). */
static int scan_file(struct probe_table *t, const struct mapped_file *f, int exe, int *used,
		     unsigned int classes)
{
	struct elfsym *es;
	int err, n;

	es = elfsym__open_mapped(f, &err);
	if (!es) {
		t->files_denied += err == -EACCES || err == -EPERM;
		return 0; /* not ELF, unreadable: nothing to probe there */
	}
	t->files_searched++;
	n = add_known(t, es, f, classes, exe, used);
	elfsym__close(es);
	return n < 0 ? n : 0;
}

/* The mapped file a --probe BINARY names: same file (inode), same path, or
 * same base name. NULL if the process does not map it (yet). */
static const struct mapped_file *find_mapped(const struct mapped_file *files, int n,
					     const char *binary)
{
	struct stat st;
	int i;

	if (!stat(binary, &st)) {
		uint64_t dev = proc__dev_of(st.st_dev);

		for (i = 0; i < n; i++)
			if (files[i].inode == st.st_ino && files[i].dev == dev)
				return &files[i];
	}
	for (i = 0; i < n; i++)
		if (!strcmp(files[i].path, binary))
			return &files[i];
	if (!strchr(binary, '/'))
		for (i = 0; i < n; i++)
			if (!strcmp(basename(files[i].path), binary))
				return &files[i];
	return NULL;
}

static int add_user_probe(struct probe_table *t, const struct user_probe *up,
			  const struct mapped_file *files, int nfiles, char *err, size_t errlen)
{
	const struct mapped_file *f = find_mapped(files, nfiles, up->binary);
	struct mapped_file unmapped;
	struct stat st;
	struct elfsym *es;
	int e, n;

	if (!f) {
		/* Not mapped yet (dlopen later): attach to the file itself. */
		memset(&unmapped, 0, sizeof(unmapped));
		if (!realpath(up->binary, unmapped.path)) {
			snprintf(err, errlen, "--probe: %s: %s (and the process maps no such file)",
				 up->binary, strerror(errno));
			return -ENOENT;
		}
		snprintf(unmapped.open_path, sizeof(unmapped.open_path), "%s", unmapped.path);
		if (!stat(unmapped.path, &st)) {
			unmapped.dev = proc__dev_of(st.st_dev);
			unmapped.inode = st.st_ino;
		}
		f = &unmapped;
	}
	es = elfsym__open_mapped(f, &e);
	if (!es) {
		snprintf(err, errlen, "--probe: %s: cannot read ELF symbols: %s", f->path,
			 strerror(-e));
		return -ENOENT;
	}
	n = probes__add_symbol(t, es, f, up->symbol, up->kind);
	elfsym__close(es);
	if (n == 0) {
		snprintf(err, errlen,
			 strncmp(up->symbol, "0x", 2)
				 ? "--probe: function '%s' not found in %s"
				 : "--probe: address %s is in no executable segment of %s",
			 up->symbol, f->path);
		return -ENOENT;
	}
	if (n > 0)
		t->used++;
	return n < 0 ? n : 0;
}

int probes__init(struct probe_table *t)
{
	memset(t, 0, sizeof(*t));
	t->probes = calloc(1, sizeof(*t->probes));
	if (!t->probes)
		return -ENOMEM;
	t->n = 1;
	return 0;
}

int probes__resolve(pid_t pid, unsigned int classes, const struct user_probe *up, int nup,
		    struct probe_table *t, char *err, size_t errlen)
{
	struct mapped_file *files = NULL;
	int used[NKNOWN + 1] = {0}; /* + 1: region bodies */
	uint64_t exe = 0;
	int i, n, rc;
	size_t k;

	if ((rc = probes__init(t)))
		return rc;
	n = proc__mapped_files(pid, &files);
	if (n < 0) {
		snprintf(err, errlen, "process %d: %s", (int)pid,
			 n == -ESRCH ? "no such process" : strerror(-n));
		return n;
	}
	proc__exe_inode(pid, &exe);
	for (i = 0; i < n && !rc; i++)
		if (files[i].executable)
			rc = scan_file(t, &files[i], files[i].inode == exe, used, classes);
	for (i = 0; i < nup && !rc; i++)
		rc = add_user_probe(t, &up[i], files, n, err, errlen);
	/* a parallel region counts: an OpenMP program whose only barriers are
	 * the implicit ones of its regions is traced, never refused */
	for (k = 0; k <= NKNOWN; k++)
		t->used += used[k];
	if (rc == -E2BIG)
		snprintf(err, errlen, "too many probes (limit %d)", SBT_MAX_PROBES - 1);
	free(files);
	return rc;
}

void probes__warn_unprobeable(const struct probe_table *t)
{
	if (t->unprobeable)
		log_warn("not traced: %s (the first instruction has a lock prefix, which uprobes "
			 "cannot take)",
			 t->unprobeable_names);
}

void probes__free(struct probe_table *t)
{
	free(t->probes);
	memset(t, 0, sizeof(*t));
}
