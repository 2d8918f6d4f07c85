// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Several processes: `-p PID,PID...`, system-wide `-a`, a launched command
 * with the processes it starts (`-- CMD`), and running processes with the
 * processes they start (`-p PID --follow`).
 *
 * -p: every file a process maps is read once (discover), and its probes
 * are attached for each process that maps it, with that pid: other
 * processes pay nothing.
 *
 * -a: probes go in once per file, for every process (pid -1): the
 * runtimes installed on the machine, then every file running processes
 * map. Processes started later map the same files, so they are covered
 * from their first instruction; files that appear later (a new program,
 * a dlopen, a copy inside a container) are found when the process execs
 * or the dynamic loader reports new mappings. A process becomes a job at
 * its first barrier (or parallel region, MPI call or condvar broadcast), when
 * --filter accepts it; only
 * then do its futex calls and counters get recorded.
 *
 * -- CMD: as -a, for the command's process tree only (doc/design.md §4,
 * Following a command). The command is held at its entry point until the
 * files it maps are probed; the BPF side keeps the tree (a child joins at
 * its fork) and drops every other process's hits. A process of the tree
 * that execs or loads libraries waits, stopped, until what it maps is
 * probed. The command is a job from the start; another process of the tree
 * becomes one at its first call of a probed function; a process is one job
 * across its execs.
 *
 * -p --follow: as -- CMD, for a tree seeded with the running processes
 * named and their descendants (doc/design.md §4, Following running
 * processes). The processes named are jobs from the start; the session
 * ends when no process of the tree is left.
 *
 * This file: process notes, attaching for -a and -p A,B, records, rescans,
 * the jobs' ends, the target_ops table. The process tree of -- CMD and
 * -p --follow: target_many_launch.c, target_many_follow.c; what they share
 * with this file: target_many_impl.h.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include "lib/array.h"
#include "lib/clock.h"
#include "lib/log.h"
#include "lib/proc.h"
#include "lib/words.h"
#include "user/resolve/discover.h"
#include "user/resolve/sym_timeline.h"
#include "user/resolve/symbolize.h"
#include "user/trace/filter.h"
#include "user/trace/launch.h"
#include "analyses/mpi.h"
#include "user/trace/target_many_impl.h"

static struct target_many *many_of(struct target *tg)
{
	return (struct target_many *)tg;
}

static struct proc_note *note_of(struct target_many *m, __u32 pid)
{
	struct proc_note *n = hmap_get(&m->procs, pid, 0);

	if (n)
		return n;
	n = calloc(1, sizeof(*n));
	if (n && hmap_put(&m->procs, pid, 0, n)) {
		free(n);
		return NULL;
	}
	return n;
}

static void free_note(struct proc_note *n)
{
	if (n)
		sym_timeline__free(n->syms);
	free(n);
}

static void forget_proc(struct target_many *m, __u32 pid)
{
	free_note(hmap_del(&m->procs, pid, 0));
}

/* -vv: where a process's names came from (a short-lived one is named from
 * what was noted while it was there). added: the read names its records
 * from its time on (0: a read made earlier, at a stop, names them). */
static void say_noted(pid_t pid, pid_t from, const char *when, int read, int added)
{
	char link[64], exe[256];
	ssize_t len;

	if (log_get_level() < LOG_DEBUG)
		return;
	snprintf(link, sizeof(link), "/proc/%d/exe", (int)from);
	len = read ? readlink(link, exe, sizeof(exe) - 1) : -1;
	exe[len > 0 ? len : 0] = 0;
	if (!read)
		log_debug("pid %d (%s): its files not read (exiting or gone); names noted before "
			  "kept%s",
			  (int)pid, when,
			  added ? ", its records from then on named by address" : "");
	else
		log_debug("pid %d (%s): names read from %s (%s)%s", (int)pid, when,
			  from == pid ? "itself" : "its parent, as it is gone", exe[0] ? exe : "?",
			  added ? "" : "; not used: those read at its stop since name its records");
}

/* Following a tree: what names a process of the tree (its files, its
 * command line), read now that it is there and stands still (forked,
 * exec'd, stopped): a short-lived one is gone by the time its records are
 * read. A child forked from parent (else 0) and gone already ran its
 * parent's program: named from the parent's. The read names the records
 * stamped from since_ns on; those before, from what was read before (a
 * program that synchronized, then exec'd: its records are read after the
 * stop at its exec). */
void many__note_names(struct target_many *m, pid_t pid, pid_t parent, __u64 since_ns,
		      const char *when)
{
	struct job *job = jobs__find(m->base.ctx->jobs, pid);
	pid_t from = parent > 0 && proc__gone(pid) ? parent : pid;
	struct proc_note *n = job ? NULL : hmap_get(&m->procs, pid, 0);
	struct sym_timeline **tl;
	struct symbolizer *sym;
	int added;

	/* names noted while it was there (stopped at its exec, say) beat its
	 * parent's: a fork record is read after the child ran and exited */
	if (from != pid && sym_timeline__count(job ? job->user : n ? n->syms : NULL))
		return;
	if (!m->tree)
		return;
	if (!job && !(n = note_of(m, pid)))
		return;
	tl = job ? (struct sym_timeline **)&job->user : &n->syms;
	if (!*tl && !(*tl = sym_timeline__new()))
		return;
	sym = symbolizer__new(from);
	/* one gone before its first read: nothing to name it by; one gone
	 * since: by address from then on (not by a program it no longer ran) */
	added = (sym || sym_timeline__count(*tl)) && sym_timeline__add(*tl, since_ns, sym) > 0;
	say_noted(pid, from, when, sym != NULL, added);
	if (!sym || job)
		return;
	proc__cmdline(from, n->cmdline, sizeof(n->cmdline));
}

/* ---- attaching ------------------------------------------------------------- */

/* Attach the files found since the last call, for every process. */
void many__attach_new_files(struct target_many *m)
{
	struct session *session = m->base.ctx->session;
	struct discover *d = &m->disc;
	char err[512];
	int i;

	for (i = 0; i < d->nfiles; i++) {
		struct discover_file *f = &d->files[i];
		const struct probe *p = &d->table.probes[f->first];

		if (f->attached || (!f->n && !f->loader_offset))
			continue;
		f->attached = 1;
		probe_costs__set(&m->base.ctx->costs, p, f->first, f->n);
		if (f->n && session__attach_probes(session, p, f->n, -1, err, sizeof(err)))
			log_warn("%s", err);
		if (f->loader_offset &&
		    session__attach_loader(session, f->open_path, f->loader_offset, -1))
			log_warn("cannot watch the dynamic loader %s: %s (libraries loaded later "
				 "are found when a process execs)",
				 f->path, strerror(errno));
	}
}

/* The files process pid maps, into idx[0..64) (those with probes). */
static int scan_pid_files(struct target_many *m, pid_t pid, int idx[64])
{
	int n = discover__pid(&m->disc, pid, idx, 64);

	if (n == -E2BIG)
		log_warn("too many probes (limit %d): some files are not traced",
			 SBT_MAX_PROBES - 1);
	return n;
}

int many__scan_pid(struct target_many *m, pid_t pid)
{
	int idx[64];

	return scan_pid_files(m, pid, idx);
}

struct scan_all {
	struct target_many *m;
	int nproc;
};

static int scan_one(void *ctx, pid_t pid)
{
	struct scan_all *a = ctx;

	if (pid != getpid())
		a->nproc += many__scan_pid(a->m, pid) >= 0;
	return 0;
}

/* The --probe binaries, probed before a process maps them; a name that
 * finds nothing is said now. */
void many__discover_user_probes(struct target_many *m)
{
	const struct env *env = m->base.ctx->env;
	int i;

	for (i = 0; i < env->nprobes; i++) {
		const char *bin = env->probes[i].binary;

		if (access(bin, F_OK))
			log_warn("--probe: %s does not exist here: only files at that path in "
				 "other mount namespaces will match",
				 bin);
		else if (discover__path(&m->disc, bin) < 0)
			log_warn("--probe: nothing to probe in %s", bin);
	}
}

/* -a: the --probe binaries and installed runtimes, then every running
 * process's files. */
static int attach_all(struct target_many *m)
{
	const struct env *env = m->base.ctx->env;
	struct scan_all a = {m, 0};
	__u64 t0 = clock_ns(CLOCK_MONOTONIC);

	discover__installed(&m->disc); /* what processes started later map */
	many__discover_user_probes(m);
	proc__for_each_pid(scan_one, &a);
	many__attach_new_files(m);
	snprintf(m->base.ctx->command, sizeof(m->base.ctx->command), "-a (every process)");
	fprintf(stderr,
		"sbt-bpf: tracing every process: %d probe%s in %d file%s (%d processes read), "
		"attached in %.1f ms; Ctrl-C to stop\n",
		m->disc.table.n - 1, words__plural(m->disc.table.n - 1), m->disc.nfiles,
		words__plural(m->disc.nfiles), a.nproc, (clock_ns(CLOCK_MONOTONIC) - t0) / 1e6);
	if (!env->classes_given)
		log_info("locks and futex calls are not traced with -a unless asked for "
			 "(--trace all): they cost every process of the machine");
	return 0;
}

/* A job for pid, named by its command line (else fallback); born: it
 * began in the session (see trace_ctx__start_job()). */
struct job *many__start_job(struct target_many *m, pid_t pid, __u64 start_ns, int born,
			    const char *fallback)
{
	struct trace_ctx *c = m->base.ctx;
	char cmd[1024];
	struct proc_note *n = hmap_get(&m->procs, pid, 0);
	struct sym_timeline *noted = n ? n->syms : NULL;

	proc__cmdline(pid, cmd, sizeof(cmd));
	if (!c->env->tree && session__add_target(c->session, pid))
		log_warn("pid %d: cannot add it to the BPF filter: futex records missed", (int)pid);
	if (n) /* the job's now */
		n->syms = NULL;
	return trace_ctx__start_job(c, pid, start_ns, born, cmd[0] ? cmd : fallback, &m->pending,
				    noted);
}

/* -p: one process of the list, attached with its pid. 1: traced, 0:
 * skipped, or a negative errno. */
static int attach_pid(struct target_many *m, pid_t pid)
{
	struct trace_ctx *c = m->base.ctx;
	const char *why = proc__untraceable(pid);
	int idx[64], n, i;
	char err[512];

	if (why && kill(pid, 0) == 0) {
		log_warn("process %d %s: skipped", (int)pid, why);
		return 0;
	}
	n = discover__pid(&m->disc, pid, idx, 64);
	if (n == -ESRCH || (n < 0 && kill(pid, 0))) {
		log_err("no such process: %d", (int)pid);
		return -ESRCH;
	}
	if (n == -E2BIG) {
		log_err("too many probes (limit %d)", SBT_MAX_PROBES - 1);
		return -E2BIG;
	}
	if (n <= 0) {
		log_warn("process %d maps no file with a function sbt-bpf traces: skipped",
			 (int)pid);
		return 0;
	}
	for (i = 0; i < n; i++) {
		const struct discover_file *f = &m->disc.files[idx[i]];
		const struct probe *p = &m->disc.table.probes[f->first];

		probe_costs__set(&c->costs, p, f->first, f->n);
		if (session__attach_probes(c->session, p, f->n, pid, err, sizeof(err))) {
			log_err("pid %d: %s", (int)pid, err);
			return -EINVAL;
		}
	}
	if (!many__start_job(m, pid, c->start_ns, 0, "?"))
		return -ENOMEM;
	m->running++;
	return 1;
}

static int attach_pids(struct target_many *m)
{
	struct trace_ctx *c = m->base.ctx;
	const struct env *env = c->env;
	__u64 t0 = clock_ns(CLOCK_MONOTONIC);
	pid_t pids[ENV_MAX_PIDS];
	size_t len = 0;
	int i, j, e;

	for (i = 0; i < env->npids; i++) {
		pid_t pid = proc__tgid(env->pids[i]);

		/* a thread id names its process */
		pids[i] = pid = pid > 0 ? pid : env->pids[i];
		for (j = 0; j < i && pids[j] != pid; j++)
			;
		if (j < i)
			continue; /* named twice, or two threads of one process */
		e = attach_pid(m, pid);
		if (e < 0)
			return EXIT_RUNTIME;
		if (e > 0 && len < sizeof(c->command))
			len += snprintf(c->command + len, sizeof(c->command) - len, "%s%d",
					len ? "," : "-p ", (int)pid);
	}
	if (!m->running) {
		log_err("none of the processes calls a function sbt-bpf traces");
		return EXIT_RUNTIME;
	}
	fprintf(stderr,
		"sbt-bpf: tracing %d processes: %d probe%s in %d file%s, attached in %.1f ms; "
		"Ctrl-C to stop\n",
		m->running, m->disc.table.n - 1, words__plural(m->disc.table.n - 1), m->disc.nfiles,
		words__plural(m->disc.nfiles), (clock_ns(CLOCK_MONOTONIC) - t0) / 1e6);
	return 0;
}

/* Every job holds a temporary file and its symbolizer opens the job's
 * libraries: take all the descriptors we may. */
static void raise_fd_limit(void)
{
	struct rlimit rl;

	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

static int many_prepare(struct target *tg)
{
	struct target_many *m = many_of(tg);
	const struct env *env = tg->ctx->env;

	raise_fd_limit();
	if (discover__init(&m->disc, env->classes, env->probes, env->nprobes,
			   env->all || env->tree))
		return EXIT_RUNTIME;
	return env->cmd ? many__launch(m) : 0;
}

static int many_attach(struct target *tg)
{
	const struct env *env = tg->ctx->env;

	tg->table = &many_of(tg)->disc.table;
	tg->every_process = env->tree || env->all;
	if (env->cmd)
		return many__attach_tree(many_of(tg));
	/* running processes produce records while the probes go in */
	tg->ctx->start_ns = clock_ns(CLOCK_MONOTONIC);
	if (env->follow)
		return many__attach_follow(many_of(tg));
	return env->all ? attach_all(many_of(tg)) : attach_pids(many_of(tg));
}

/* ---- records ------------------------------------------------------------------- */

/* -a: a process's first barrier, parallel region or MPI call (an MPI rank:
 * MPI_Init comes first), or condvar broadcast (a barrier made of a mutex
 * and a condvar, as SPLASH's and PARSEC's: a job that turns out to have
 * none is not reported, jobs__end_all()); following a tree: a process of
 * the tree calling any probed function. */
static int starts_job(const struct target_many *m, const struct sbt_event *e)
{
	const struct sbt_probe_info *info;

	if (e->type != SBT_EV_ENTER || e->probe >= SBT_MAX_PROBES)
		return 0;
	if (m->tree)
		return 1;
	info = &m->base.ctx->costs.infos[e->probe];
	return info->kind == SBT_PK_BARRIER || info->kind == SBT_PK_TEAM_BARRIER ||
	       info->kind == SBT_PK_REGION || mpi__is_kind(info->kind) ||
	       (info->kind == SBT_PK_COND_SIGNAL &&
		!strcmp(info->symbol, "pthread_cond_broadcast"));
}

/* A job, if --filter accepts it (else NULL). Its threads start when it
 * started (exec or fork) during the session, else with the session. */
static struct job *maybe_start_job(struct target_many *m, const struct sbt_event *e)
{
	struct proc_note *n = note_of(m, e->pid);
	__u64 session_start = m->base.ctx->start_ns;
	struct job *job;
	char comm[32];

	if (!n || n->ignored)
		return NULL;
	/* a short-lived process may be gone by the time its first barrier is
	 * read: its name is in its exec record */
	if (!filter__accepts(&m->base.ctx->env->filter, e->pid) &&
	    (kill(e->pid, 0) == 0 || errno != ESRCH ||
	     !filter__accepts_gone(&m->base.ctx->env->filter, n->comm))) {
		n->ignored = 1;
		return NULL;
	}
	snprintf(comm, sizeof(comm), "[%s]", n->comm[0] ? n->comm : "?");
	job = many__start_job(m, e->pid, n->start_ns > session_start ? n->start_ns : session_start,
			      n->start_ns > session_start, n->cmdline[0] ? n->cmdline : comm);
	if (!job)
		return NULL;
	log_debug("pid %d: a job; names from %s", (int)e->pid,
		  sym_timeline__count(job->user) ? "what was noted and the running process"
						 : "nowhere (by address)");
	/* a rescan due (it exec'd or loaded libraries since the last one)
	 * stays due: the note goes after it (many_rescan()) */
	if (!n->rescan)
		forget_proc(m, e->pid);
	return job;
}

/* A process was forked (record e, its parent's pid in cost; following a
 * tree, a process of the tree; -a, any): when it was born, and its names.
 * One gone already ran its parent's program: named as its parent, if only
 * by the parent's job (the two may be gone by the time their records are
 * read). */
static void note_fork(struct target_many *m, const struct sbt_event *e)
{
	const struct job *parent = jobs__find(m->base.ctx->jobs, e->cost);
	struct proc_note *n = note_of(m, e->pid);

	many__note_names(m, e->pid, (pid_t)e->cost, e->ts, "fork record");
	if (!n)
		return;
	n->start_ns = e->ts;
	sbt_event_comm(e, n->comm); /* its parent's, until it execs */
	if (!n->cmdline[0] && parent)
		snprintf(n->cmdline, sizeof(n->cmdline), "%s", parent->command);
}

static void thread_record(struct target_many *m, const struct sbt_event *e)
{
	struct pending_thread *pt;

	if (e->type == SBT_EV_THREAD_EXIT) {
		free(hmap_del(&m->pending, e->tid, 0));
		if (e->probe) /* the last thread: the process is gone */
			forget_proc(m, e->pid);
		return;
	}
	if (e->tid == e->pid) /* a new process (a fork; -a or following a tree) */
		note_fork(m, e);
	pt = calloc(1, sizeof(*pt));
	if (!pt)
		return;
	pt->pid = e->pid;
	pt->start_ns = e->ts;
	sbt_event_comm(e, pt->comm);
	free(hmap_del(&m->pending, e->tid, 0)); /* a recycled tid */
	if (hmap_put(&m->pending, e->tid, 0, pt))
		free(pt);
}

static void want_rescan(struct target_many *m, __u32 pid)
{
	struct proc_note *n = note_of(m, pid);

	if (n && !n->rescan) {
		n->rescan = 1;
		m->rescans++;
	}
}

static void many_job_exited(struct target *tg, struct job *job);

static void exec_record(struct target_many *m, struct job *job, const struct sbt_event *e)
{
	struct proc_note *n;

	/* -p: the same job, named from the program it runs now (its probes
	 * were attached for that pid alone; files only the new program maps
	 * are not probed). */
	if (!m->base.ctx->env->all && !m->tree) {
		if (job)
			trace_ctx__job_exec(m->base.ctx, job, e->ts);
		return;
	}
	/* -a: a new program, a new job. Following a tree: a process is one
	 * job, whatever it runs (env, taskset, numactl exec the command) */
	if (job && !m->tree) {
		job->end_ns = e->ts;
		many_job_exited(&m->base, job);
	}
	/* one stopped at this exec was read then, before its records were */
	many__note_names(m, e->pid, 0, e->ts, "exec record");
	n = note_of(m, e->pid);
	if (n) {
		n->start_ns = e->ts;
		n->ignored = 0;
		sbt_event_comm(e, n->comm);
	}
	want_rescan(m, e->pid);
}

static int many_record(struct target *tg, const struct sbt_event *e)
{
	struct target_many *m = many_of(tg);
	struct job *job = jobs__find(tg->ctx->jobs, e->pid);

	switch (e->type) {
	case SBT_EV_EXEC:
		exec_record(m, job, e);
		return 1;
	case SBT_EV_MAPS:
		want_rescan(m, e->pid);
		return 1;
	case SBT_EV_FORK:
		trace_ctx__unfollowed(tg->ctx, e);
		return 1;
	case SBT_EV_THREAD_START:
		/* following a tree, a process that creates threads is a job
		 * (its fork-join steps), whether or not it calls a probed
		 * function */
		if (!job && m->tree && e->tid != e->pid)
			job = maybe_start_job(m, e);
		/* fall through */
	case SBT_EV_THREAD_EXIT:
		if (job)
			return 0;
		thread_record(m, e);
		return 1;
	}
	if (!job && (tg->ctx->env->all || m->tree) && starts_job(m, e))
		maybe_start_job(m, e);
	return 0;
}

/* Following a tree, a process is held while its new files are probed
 * (many__resume_paused()), except one that cannot be (a job of an interactive
 * shell, one under a debugger): files with probes it maps (idx[0..n)) that
 * are not probed yet are probed now, after it may have called them. Said
 * once they are (a user who sees the notice may go on at once): the
 * message is made before the attach, which marks the files attached, and
 * printed after it. NULL: nothing to say (or no memory). */
static char *unheld_notice(struct target_many *m, pid_t pid, const int *idx, int n)
{
	char comm[32], files[1024] = "", *msg;
	size_t len = 0;
	int i, late = 0;

	for (i = 0; m->tree && i < n; i++) {
		if (m->disc.files[idx[i]].attached)
			continue;
		late++;
		if (len < sizeof(files))
			len += snprintf(files + len, sizeof(files) - len, "%s%s", len ? ", " : "",
					m->disc.files[idx[i]].path);
	}
	if (!late)
		return NULL;
	if (proc__comm(pid, 0, comm, sizeof(comm)))
		snprintf(comm, sizeof(comm), "?");
	if (asprintf(
		    &msg,
		    "pid %d (%s) mapped %s before sbt-bpf could probe %s (a job of an "
		    "interactive shell, or a process under a debugger, is not stopped for it): its "
		    "calls there until now, if any, are not traced",
		    (int)pid, comm, files, late > 1 ? "them" : "it") < 0)
		return NULL;
	return msg;
}

/* The notices of unheld processes, kept until their files are attached. */
struct notices {
	char **msg;
	size_t n, cap;
};

static void notices_add(struct notices *ns, char *msg)
{
	if (!msg)
		return;
	if (array_reserve((void **)&ns->msg, &ns->cap, ns->n + 1, sizeof(*ns->msg))) {
		log_warn("%s", msg); /* no room to keep it: said now */
		free(msg);
		return;
	}
	ns->msg[ns->n++] = msg;
}

static void notices_say(struct notices *ns)
{
	size_t i;

	for (i = 0; i < ns->n; i++) {
		log_warn("%s", ns->msg[i]);
		free(ns->msg[i]);
	}
	free(ns->msg);
}

static void many_rescan(struct target *tg)
{
	struct target_many *m = many_of(tg);
	struct notices late = {0};
	const struct hmap_slot *s;
	size_t pos = 0;
	int idx[64], n;

	if (m->tree)
		many__resume_paused(m, 1);
	if (!m->rescans)
		return;
	while ((s = hmap_next(&m->procs, &pos))) {
		struct proc_note *note = s->val;

		if (note->rescan) {
			note->rescan = 0;
			n = scan_pid_files(m, (pid_t)s->k1, idx);
			notices_add(&late, unheld_notice(m, (pid_t)s->k1, idx, n));
			/* a job keeps a note only while a rescan is due */
			if (jobs__find(tg->ctx->jobs, (__u32)s->k1))
				forget_proc(m, (__u32)s->k1);
		}
	}
	m->rescans = 0;
	many__attach_new_files(m);
	notices_say(&late);
}

static __u64 many_job_drops(const struct target *tg, const struct job *job)
{
	return job->ended ? job->drops : session__pid_drops(tg->ctx->session, job->pid);
}

/* The launched command's last thread has exited: it is a zombie in a
 * moment. Reap it (200 ms at most) so that its report can say how it ended. */
static void reap_command(struct target_many *m, struct job *job)
{
	char end[64];
	int i;

	for (i = 0; i < 200 && !m->reaped; i++) {
		m->reaped = waitpid(m->cmd, &m->wstatus, WNOHANG) == m->cmd;
		if (!m->reaped)
			usleep(1000);
	}
	if (!m->reaped)
		return;
	launch__describe_end(m->wstatus, end, sizeof(end));
	report__set_command_end(job->report, end);
}

static void many_job_exited(struct target *tg, struct job *job)
{
	struct target_many *m = many_of(tg);
	struct session *session = tg->ctx->session;
	struct report_drops d = {.total = session__pid_drops(session, job->pid)};

	if (m->cmd && job->pid == (__u32)m->cmd)
		reap_command(m, job);
	job->drops = d.total;
	jobs__end(tg->ctx->jobs, job, &d);
	session__remove_target(session, job->pid);
	trace_ctx__job_free_names(job);
	if (m->running > 0)
		m->running--;
}

/* -a never ends by itself; -p PID,PID ends when all have exited; -- CMD
 * when the command has (a process it started may go on); -p --follow when
 * no process of the tree is left. */
static int many_gone(struct target *tg)
{
	struct target_many *m = many_of(tg);

	if (m->cmd && !m->reaped) /* our child: reap it, keep how it ended */
		m->reaped = waitpid(m->cmd, &m->wstatus, WNOHANG) == m->cmd;
	if (m->cmd)
		return m->reaped;
	if (m->tree)
		return !session__tree_alive(tg->ctx->session);
	return !tg->ctx->env->all && m->running == 0;
}

static int many_ended(const struct target *tg, int *wstatus)
{
	const struct target_many *m = (const struct target_many *)tg;

	if (m->reaped)
		*wstatus = m->wstatus;
	return m->reaped;
}

/* Ctrl-C reaches the whole foreground process group: the command dies of
 * it, or acts on it, and its end is the session's to report. */
static void many_interrupted(struct target *tg, __u64 stop_ns)
{
	struct target_many *m = many_of(tg);

	if (!m->cmd || !m->released || m->reaped)
		return;
	/* a process stopped for us acts on its signal only once continued */
	if (m->tree)
		many__resume_paused(m, 0);
	m->reaped = launch__await_end(m->cmd, stop_ns, &m->wstatus);
	log_debug("the command %s %.0f ms after the stop", m->reaped ? "ended" : "runs on",
		  (clock_ns(CLOCK_MONOTONIC) - stop_ns) / 1e6);
}

static int many_release(struct target *tg)
{
	struct target_many *m = many_of(tg);

	if (!m->cmd)
		return 0;
	if (launch__release(m->cmd)) {
		log_err("cannot start '%s': %s", tg->ctx->command, strerror(errno));
		return EXIT_RUNTIME;
	}
	m->released = 1;
	return 0;
}

/* A followed tree where nothing synchronized is said so, at the end (a
 * process may exec a program that synchronizes at any time). */
static void many_finish(struct target *tg)
{
	struct target_many *m = many_of(tg);
	const struct env *env = tg->ctx->env;
	const struct job *threaded = jobs__threaded(tg->ctx->jobs);
	char known[2048];

	if (!m->tree || env->force || jobs__nsynced(tg->ctx->jobs))
		return;
	/* threads created and joined: the report has their steps */
	if (threaded) {
		log_warn("'%s' synchronized its threads through none of the functions sbt-bpf "
			 "traces but their creation and join: the report shows its fork-join "
			 "steps.\n"
			 "  a barrier of its own can be declared with --probe "
			 "BINARY:SYMBOL:barrier (or :team, :lock, ...); --force: no such warning",
			 threaded->command);
		return;
	}
	probes__known(env->classes, known, sizeof(known));
	log_warn(
		"'%s' and the processes %s started called none of the functions sbt-bpf "
		"traces.\n"
		"  searched %d files for: %s\n"
		"  declare the program's own barrier with --probe BINARY:SYMBOL:barrier (or :team, "
		":lock, ...), or widen --trace; --force: no such warning",
		tg->ctx->command, env->npids > 1 ? "they" : "it", m->disc.table.files_searched,
		known);
}

static void many_free(struct target *tg)
{
	struct target_many *m = many_of(tg);
	const struct hmap_slot *sl;
	size_t pos = 0;

	if (m->cmd && !m->released)
		launch__abort(m->cmd);
	/* the session is still open: nobody stays stopped for us */
	if (m->tree && tg->ctx->session)
		many__resume_paused(m, 0);
	while ((sl = hmap_next(&m->procs, &pos)))
		free_note(sl->val);
	hmap_free(&m->procs);
	hmap_free(&m->no_shim);
	hmap_free(&m->seeded);
	hmap_free_values(&m->pending);
	discover__free(&m->disc);
	free(m);
}

static const struct target_ops many_ops = {
	.prepare = many_prepare,
	.attach = many_attach,
	.release = many_release,
	.record = many_record,
	.rescan = many_rescan,
	.job_exited = many_job_exited,
	.job_drops = many_job_drops,
	.gone = many_gone,
	.finish = many_finish,
	.interrupted = many_interrupted,
	.ended = many_ended,
	.free = many_free,
};

struct target *target_many__new(struct trace_ctx *ctx)
{
	struct target_many *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	/* a followed tree is several processes only if several synchronize */
	m->base = (struct target){.ops = &many_ops, .ctx = ctx, .several = !ctx->env->tree};
	m->tree = ctx->env->tree;
	hmap_init(&m->procs);
	hmap_init(&m->no_shim);
	hmap_init(&m->seeded);
	hmap_init(&m->pending);
	return &m->base;
}
