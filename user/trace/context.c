// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdint.h>
#include <stdlib.h>
#include <sys/utsname.h>
#include "lib/log.h"
#include "lib/parse.h"
#include "lib/proc.h"
#include "lib/clock.h"
#include "lib/utf8.h"
#include "user/resolve/sym_timeline.h"
#include "user/resolve/symbolize.h"
#include "user/trace/context.h"

static void name_thread(struct trace_ctx *c, __u32 pid, __u32 tid)
{
	char comm[32];

	if (names__comm(c->names, tid))
		return;
	if (proc__comm(pid, tid, comm, sizeof(comm)) || !comm[0])
		snprintf(comm, sizeof(comm), "?");
	names__set_comm(c->names, tid, comm);
}

struct add_threads {
	struct trace_ctx *c;
	struct job *job;
	struct hmap *pending;
	int born; /* the process began in the session */
};

static int add_thread(void *ctx, pid_t tid)
{
	struct add_threads *a = ctx;
	struct pending_thread *pt = a->pending ? hmap_del(a->pending, tid, 0) : NULL;
	__u64 start = a->born || pt ? a->job->start_ns : 0;

	if (pt && pt->start_ns > start)
		start = pt->start_ns;
	phases__add_thread(a->job->ph, a->job->pid, tid, start);
	if (pt && pt->comm[0])
		names__set_comm(a->c->names, tid, pt->comm);
	free(pt);
	name_thread(a->c, a->job->pid, tid);
	return 0;
}

/* Threads seen created that /proc no longer lists (the process exited
 * before its first records were read): they ran all the same. */
static void add_pending(struct add_threads *a)
{
	const struct hmap_slot *s;
	size_t pos = 0;

	/* add_thread() deletes the entry, which the walk allows */
	while ((s = hmap_next(a->pending, &pos)))
		if (((const struct pending_thread *)s->val)->pid == a->job->pid)
			add_thread(a, (pid_t)s->k1);
}

/* The variables MPI launchers give each rank its number in: Open MPI's
 * mpirun, MPICH's and Intel MPI's Hydra, PMIx launchers (Open MPI 5, Slurm
 * with PMIx), Slurm's srun, MVAPICH, HPE's PALS and Cray's ALPS. The process's own MPI_Comm_rank
 * would need its output read from its memory after the call; the launcher's variable is there from
 * the exec (doc/design.md §5.8). */
static const char *const rank_vars[] = {
	"OMPI_COMM_WORLD_RANK", "PMI_RANK",    "PMIX_RANK",   "SLURM_PROCID",
	"MV2_COMM_WORLD_RANK",	"PALS_RANKID", "ALPS_APP_PE",
};

/* A process started by an MPI launcher: its rank, and the host it runs on. */
static void name_rank(struct trace_ctx *c, struct job *job)
{
	struct utsname u;
	char v[32];
	size_t i;
	int rank;

	for (i = 0; i < sizeof(rank_vars) / sizeof(rank_vars[0]); i++)
		if (!proc__environ_get((pid_t)job->pid, rank_vars[i], v, sizeof(v)) &&
		    !parse_int(v, 0, INT32_MAX - 1, &rank)) {
			jobs__set_rank(c->jobs, job, rank, uname(&u) ? NULL : u.nodename);
			return;
		}
}

__u64 trace_ctx__stamp(const struct trace_ctx *c, __u64 ns)
{
	int64_t shift;
	double since;

	if (!c->env->skew_ns && !c->env->skew_ppm)
		return ns;
	since = ns > c->start_ns ? (double)(ns - c->start_ns) : 0;
	shift = c->env->skew_ns + (int64_t)(since * c->env->skew_ppm / 1e6);
	/* a clock behind by more than the time since boot stops at 1 ns */
	return shift >= 0 || ns > (__u64)-shift ? ns + (__u64)shift : 1;
}

__u64 trace_ctx__now(const struct trace_ctx *c)
{
	return trace_ctx__stamp(c, clock_ns(CLOCK_MONOTONIC));
}

/* What names job's records: what was noted while the process was there
 * (noted, else a new timeline) up to now, the process as it is now from
 * now on (from the start when nothing was noted). A process gone is named
 * as noted. */
static struct sym_timeline *job_names(struct trace_ctx *c, struct job *job,
				      struct sym_timeline *noted)
{
	struct sym_timeline *tl = noted ? noted : sym_timeline__new();
	struct symbolizer *s = symbolizer__new((pid_t)job->pid);
	int held = sym_timeline__count(tl);

	if (!tl || (!s && held))
		symbolizer__free(s);
	else
		sym_timeline__add(tl, held ? trace_ctx__now(c) : 0, s);
	return tl;
}

struct job *trace_ctx__start_job(struct trace_ctx *c, pid_t pid, __u64 start_ns, int born,
				 const char *command, struct hmap *pending,
				 struct sym_timeline *noted)
{
	struct job *job = jobs__start(c->jobs, pid, start_ns, command);
	struct add_threads a = {c, job, pending, born};

	if (!job) {
		sym_timeline__free(noted);
		return NULL;
	}
	job->user = job_names(c, job, noted);
	name_rank(c, job);
	proc__for_each_task(pid, add_thread, &a);
	if (pending)
		add_pending(&a);
	return job;
}

void trace_ctx__job_exec(struct trace_ctx *c, struct job *job, __u64 ts_ns)
{
	if (!job->user && !(job->user = sym_timeline__new()))
		return;
	sym_timeline__add(job->user, ts_ns, symbolizer__new((pid_t)job->pid));
}

void trace_ctx__job_free_names(struct job *job)
{
	sym_timeline__free(job->user);
	job->user = NULL;
}

void trace_ctx__unfollowed(struct trace_ctx *c, const struct sbt_event *e)
{
	char comm[SBT_COMM_LEN];

	/* not across top's full-screen table */
	if (c->told_unfollowed || c->env->top)
		return;
	c->told_unfollowed = 1;
	sbt_event_comm(e, comm);
	utf8_printable(comm);
	log_warn("pid %u (%s) started process %u, which is not traced (-p traces only the "
		 "processes named; -p %u --follow traces the processes they start too; said once)",
		 e->pid, comm, e->tid, e->pid);
}

/* Probe kinds whose first argument is a synchronization object. */
static int names_object(int kind)
{
	return kind == SBT_PK_BARRIER || (kind >= SBT_PK_LOCK && kind <= SBT_PK_COND_SIGNAL) ||
	       kind == SBT_PK_MPI_COLL; /* a communicator: Open MPI's predefined ones are named */
}

/* The objects of functions that take none (include/sbt/events.h). */
static const char *fixed_object_name(__u64 obj)
{
	switch (obj) {
	case SBT_OBJ_CRITICAL:
		return "(unnamed critical)";
	case SBT_OBJ_ATOMIC:
		return "(atomic)";
	}
	return NULL;
}

/* The global variable holding a barrier, lock, semaphore, condvar or futex
 * word; "" (looked up, not found) for other memory, so that the lookup is
 * not repeated. */
static void name_object(struct trace_ctx *c, struct job *job, struct symbolizer *sym, __u64 obj)
{
	char buf[SBT_SYMBOL_MAX * 2];

	if (!obj || names__get(c->names, job->pid, obj))
		return;
	if (fixed_object_name(obj))
		snprintf(buf, sizeof(buf), "%s", fixed_object_name(obj));
	else if (symbolizer__data(sym, obj, buf, sizeof(buf)))
		buf[0] = 0;
	names__set(c->names, job->pid, obj, buf);
}

/* Probe kinds whose call sites the reports list as barrier sites, side by
 * side: two on one source line are numbered (names__set_numbered()). */
static int lists_sites(int kind)
{
	return kind == SBT_PK_BARRIER || kind == SBT_PK_TEAM_BARRIER || kind == SBT_PK_REGION;
}

static void name_call(struct trace_ctx *c, struct job *job, struct symbolizer *sym,
		      const struct sbt_event *e)
{
	char buf[SBT_SYMBOL_MAX * 2];
	/* code addresses: a return's call site; a region body's entry carries
	 * its own address, the implicit barrier's object */
	int body = e->type == SBT_EV_ENTER && c->costs.infos[e->probe].kind == SBT_PK_REGION_BODY;

	if ((e->type == SBT_EV_EXIT || body) && !names__get(c->names, e->pid, e->site)) {
		if (body)
			symbolizer__function(sym, e->site, buf, sizeof(buf));
		else
			symbolizer__code(sym, e->site, buf, sizeof(buf));
		if (lists_sites(c->costs.infos[e->probe].kind))
			names__set_numbered(c->names, e->pid, e->site, buf);
		else
			names__set(c->names, e->pid, e->site, buf);
	}
	if (e->type == SBT_EV_ENTER && names_object(c->costs.infos[e->probe].kind))
		name_object(c, job, sym, e->obj);
}

void trace_ctx__name_record(struct trace_ctx *c, struct job *job, const struct sbt_event *e)
{
	/* the program the process ran when the record was stamped: one it
	 * exec'd since is named from its own files by a later symbolizer */
	struct symbolizer *sym = sym_timeline__at(job->user, e->ts);

	if ((e->type == SBT_EV_ENTER || e->type == SBT_EV_EXIT) && e->probe < SBT_MAX_PROBES)
		name_call(c, job, sym, e);
	else if (e->type == SBT_EV_FUTEX_ENTER)
		name_object(c, job, sym, e->obj);
	if (e->type == SBT_EV_THREAD_START || e->type == SBT_EV_THREAD_EXIT) {
		char comm[SBT_COMM_LEN];

		sbt_event_comm(e, comm);
		if (comm[0])
			names__set_comm(c->names, e->tid, comm);
	} else {
		name_thread(c, e->pid, e->tid);
	}
}
