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
 * its first barrier (or parallel region), when --filter accepts it; only
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
#include "user/resolve/symbolize.h"
#include "user/trace/filter.h"
#include "user/trace/guard.h"
#include "user/trace/launch.h"
#include "user/trace/shim_preload.h"
#include "user/trace/target.h"

struct target_many {
	struct target base;
	struct discover disc;
	int running;	     /* jobs of -p that have not exited */
	struct hmap procs;   /* processes that are not jobs (yet): pid -> struct proc_note */
	struct hmap pending; /* their threads: tid -> struct pending_thread */
	int rescans;	     /* procs with a rescan due */
	struct hmap no_shim; /* the shim in use: processes found without it (a pid set) */
	int tree;	     /* a process tree followed in BPF: -- CMD, -p --follow */
	struct hmap seeded;  /* -p --follow: pids we put in the tree (a pid set) */
	/* -- CMD */
	pid_t cmd;    /* the command's pid; 0 with -p and -a */
	int released; /* it runs */
	int reaped;   /* it was waited for: wstatus holds its end */
	int wstatus;
};

/* What we know of a process that is not a job. */
struct proc_note {
	__u64 start_ns;		 /* when it exec'd or was forked, if during the session */
	int ignored;		 /* --filter rejected it (until it execs) */
	int rescan;		 /* its mappings changed */
	char comm[SBT_COMM_LEN]; /* from its exec: names a job whose /proc is gone */
	/* -- CMD: read while it ran, for a job started after it exited */
	struct symbolizer *sym;
	char cmdline[1024];
};

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
		symbolizer__free(n->sym);
	free(n);
}

static void forget_proc(struct target_many *m, __u32 pid)
{
	free_note(hmap_del(&m->procs, pid, 0));
}

/* A set of pids: hmap keys, with an index as the value (a pointer value
 * of 1 would be hmap's tombstone: not stored, never found). */
static int pid_set_add(struct hmap *set, pid_t pid)
{
	return hmap_put_index(set, (__u32)pid, 0, 0);
}

static int pid_set_has(const struct hmap *set, pid_t pid)
{
	size_t ix;

	return hmap_get_index(set, (__u32)pid, 0, &ix);
}

/* Following a tree: what names a process of the tree (its files, its
 * command line), read now that it is there and stands still (forked,
 * exec'd, stopped): a short-lived one is gone by the time its records are
 * read. A child forked from parent (else 0) and gone already ran its
 * parent's program: named from the parent's. */
static void note_names(struct target_many *m, pid_t pid, pid_t parent)
{
	struct job *job = jobs__find(m->base.ctx->jobs, pid);
	pid_t from = parent > 0 && proc__gone(pid) ? parent : pid;
	struct symbolizer *sym;
	struct proc_note *n;

	if (!m->tree || !(sym = symbolizer__new(from)))
		return;
	if (job) { /* a new program, a dlopen */
		symbolizer__free(job->user);
		job->user = sym;
		return;
	}
	n = note_of(m, pid);
	if (!n) {
		symbolizer__free(sym);
		return;
	}
	symbolizer__free(n->sym);
	n->sym = sym;
	proc__cmdline(from, n->cmdline, sizeof(n->cmdline));
}

/* ---- attaching ------------------------------------------------------------- */

/* Attach the files found since the last call, for every process. */
static void attach_new_files(struct target_many *m)
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

static int scan_pid(struct target_many *m, pid_t pid)
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
		a->nproc += scan_pid(a->m, pid) >= 0;
	return 0;
}

/* The --probe binaries, probed before a process maps them; a name that
 * finds nothing is said now. */
static void discover_user_probes(struct target_many *m)
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
	discover_user_probes(m);
	proc__for_each_pid(scan_one, &a);
	attach_new_files(m);
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
static struct job *start_job(struct target_many *m, pid_t pid, __u64 start_ns, int born,
			     const char *fallback)
{
	struct trace_ctx *c = m->base.ctx;
	char cmd[1024];

	proc__cmdline(pid, cmd, sizeof(cmd));
	if (!c->env->tree && session__add_target(c->session, pid))
		log_warn("pid %d: cannot add it to the BPF filter: futex records missed", (int)pid);
	return trace_ctx__start_job(c, pid, start_ns, born, cmd[0] ? cmd : fallback, &m->pending);
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
	if (!start_job(m, pid, c->start_ns, 0, "?"))
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

/* ---- -- CMD: the command and its process tree ------------------------------- */

/* --shim: the libraries to preload for the classes traced; their classes
 * are probed at the shim's sites from now on. Without them, plain uprobes. */
static void use_shim(struct target_many *m, char *preload, size_t n)
{
	char err[512], *lib, *save = NULL, copy[4096];
	int cls = shim_preload__find(m->base.ctx->env->classes, preload, n, err, sizeof(err));

	if (cls < 0) {
		log_warn("--shim: %s: plain uprobes", err);
		preload[0] = '\0';
		return;
	}
	snprintf(copy, sizeof(copy), "%s", preload);
	for (lib = strtok_r(copy, ":", &save); lib; lib = strtok_r(NULL, ":", &save))
		if (probes__use_shim(&m->disc.table, lib) < 0)
			log_warn("--shim: cannot read %s", lib);
	log_info("probe shim preloaded: %s", preload);
}

/* Plain uprobes for process pid alone on the functions the shim stands in
 * for, in the files it maps (files[0..n)). 0, or -1 when they could not be
 * attached. */
static int fall_back_to_uprobes(struct target_many *m, pid_t pid, const struct mapped_file *files,
				int n)
{
	struct trace_ctx *c = m->base.ctx;
	int first, added = discover__unshimmed(&m->disc, files, n, &first);
	const struct probe *p = &m->disc.table.probes[first];
	char err[512];

	if (added <= 0)
		return added == 0 ? 0 : -1;
	probe_costs__set(&c->costs, p, first, added);
	if (session__attach_probes(c->session, p, added, pid, err, sizeof(err))) {
		log_warn("%s", err);
		return -1;
	}
	return 0;
}

/* The probe shim in use: a process of the tree that maps the C library but
 * not the shim (a setuid program, whose loader ignores LD_PRELOAD, or one
 * run with its environment cleared) gets plain uprobes of its own on the
 * functions the shim wraps, with a notice, once per process. A static
 * program defines the functions itself and is probed there, as without the
 * shim, with a notice when it has probes (`probed`: the files with probes
 * that scan_pid() just found it mapping). Called while the process is held
 * (stopped, or before it runs). */
static void check_shim_loaded(struct target_many *m, pid_t pid, int probed)
{
	struct mapped_file *files;
	int n, i, libc = 0, shim = 0, loader = 0;

	if (!m->base.ctx->env->shim || !probes__shim_in_use(&m->disc.table))
		return;
	n = proc__mapped_files(pid, &files);
	if (n <= 0)
		return;
	for (i = 0; i < n; i++) {
		shim |= strstr(files[i].path, "/libsbt-probes-") != NULL;
		libc |= strstr(files[i].path, "/libc.so") != NULL;
		loader |= strstr(files[i].path, "/ld-") != NULL;
	}
	/* a dynamic program held before its loader mapped its libraries is
	 * looked at again when the loader reports them */
	if (shim || (loader && !libc) || pid_set_has(&m->no_shim, pid) ||
	    pid_set_add(&m->no_shim, pid))
		goto out;
	if (!libc && probed > 0)
		log_warn("pid %d is a static program: the probe shim cannot stand in for its "
			 "functions, probed in the program itself with plain uprobes",
			 (int)pid);
	else if (libc)
		log_warn("pid %d did not load the probe shim (a setuid program, or LD_PRELOAD "
			 "cleared): %s",
			 (int)pid,
			 fall_back_to_uprobes(m, pid, files, n)
				 ? "its functions could not be probed: its calls of the functions "
				   "the shim wraps are not traced"
				 : "traced with plain uprobes");
out:
	free(files);
}

/* The command, held at its entry point. Its --probe functions and the ones
 * it maps are resolved as for one process, for the same errors (an unknown
 * --probe symbol stops here) and warnings. */
static int launch(struct target_many *m)
{
	struct trace_ctx *c = m->base.ctx;
	const struct env *env = c->env;
	struct probe_table t;
	char err[1024] = "", preload[4096] = "";
	pid_t pid;

	if (env->shim)
		use_shim(m, preload, sizeof(preload));
	pid = launch__start(env->cmd, preload, err, sizeof(err));

	if (pid < 0) {
		log_err("%s", err);
		return EXIT_RUNTIME;
	}
	m->cmd = pid;
	launch__join_argv(env->cmd, c->command, sizeof(c->command));
	if (probes__resolve(pid, env->classes, env->probes, env->nprobes, &t, err, sizeof(err))) {
		log_err("%s", err);
		probes__free(&t);
		return EXIT_RUNTIME;
	}
	/* the shim's sites stand in for what uprobes cannot take */
	if (!env->shim || !preload[0])
		probes__warn_unprobeable(&t);
	probes__free(&t);
	return 0;
}

/* Before any process of the tree can be stopped for us: a guard that
 * continues them if sbt-bpf is killed. */
static void start_guard(struct target_many *m)
{
	int lists[2];

	if (session__stopped_lists(m->base.ctx->session, lists) || guard__start(lists, 2) < 0)
		log_warn("cannot start the guard of stopped processes: if sbt-bpf is killed, "
			 "a process of the tree may stay stopped");
}

/* The probe shim's sites, each hit once by the command while it is held at
 * its entry point, before it joins the tree (the BPF side drops those
 * hits). The kernel rewrites a probed nop5 into a call to its uprobe
 * trampoline at the site's first hit in a process, under the process's
 * memory map lock taken for writing: hit first by a thread of the running
 * command, the site would cost that hit ~35 us here, and where its other
 * threads hold or wait for the lock (page faults, their own first hits)
 * the hit sleeps, then waits for a CPU: milliseconds on a loaded machine,
 * inside whatever call the site traces, where no record can show it. Held
 * at its entry, the command has one thread and nothing to wait for. */
static void prepay_sites(struct target_many *m)
{
	const struct discover *d = &m->disc;
	size_t cap = 2 * (size_t)d->table.n;
	uint64_t *offs = malloc(cap * sizeof(*offs)), *addrs = malloc(cap * sizeof(*addrs));
	uint64_t *fns = malloc(cap * sizeof(*fns));
	__u64 t0 = clock_ns(CLOCK_MONOTONIC);
	int i, j, k, n = 0, called;

	for (i = 0; offs && addrs && fns && i < d->nfiles; i++) {
		const struct discover_file *f = &d->files[i];

		for (j = f->first, k = 0; j < f->first + f->n; j++) {
			const struct probe *p = &d->table.probes[j];

			if (!p->exit_offset)
				continue;
			offs[k++] = p->info.offset;
			offs[k++] = p->exit_offset;
		}
		if (k && proc__code_addresses(m->cmd, f->dev, f->ino, offs, addrs, k) > 0)
			for (j = 0; j < k; j++)
				if (addrs[j])
					fns[n++] = addrs[j];
	}
	called = n ? launch__call_sites(m->cmd, fns, n) : 0;
	if (called == -EOPNOTSUPP) /* nor does the kernel rewrite them there */
		log_debug("the command runs with a shadow stack: its probe shim sites stay traps");
	else if (called < 0)
		log_info("the probe shim's sites were not hit before the command ran (%s): their "
			 "first hits in it cost more",
			 strerror(-called));
	else if (n)
		log_debug("%d probe shim sites hit before the command ran, in %.1f ms", called,
			  (clock_ns(CLOCK_MONOTONIC) - t0) / 1e6);
	free(offs);
	free(addrs);
	free(fns);
}

/* Probes in every file the command maps, for every process; the BPF side
 * keeps the command's tree. Files the tree maps later are probed while the
 * process mapping them waits (resume_paused()). The command is a job from
 * the start, whether it synchronizes or runs others that do. */
static int attach_tree(struct target_many *m)
{
	struct trace_ctx *c = m->base.ctx;
	__u64 t0 = clock_ns(CLOCK_MONOTONIC);
	int n;

	start_guard(m);
	n = scan_pid(m, m->cmd);
	if (n < 0 && n != -E2BIG) {
		log_err("cannot read the mappings of '%s': %s", c->command, strerror(-n));
		return EXIT_RUNTIME;
	}
	check_shim_loaded(m, m->cmd, n);
	attach_new_files(m);
	prepay_sites(m);
	if (session__follow(c->session, m->cmd)) {
		log_err("pid %d: cannot follow it", (int)m->cmd);
		return EXIT_RUNTIME;
	}
	/* the command runs only once released */
	c->start_ns = clock_ns(CLOCK_MONOTONIC);
	if (!trace_ctx__start_job(c, m->cmd, c->start_ns, 1, c->command, &m->pending))
		return EXIT_RUNTIME;
	fprintf(stderr,
		"sbt-bpf: tracing pid %d (%s) and the processes it starts: %d probe%s in %d "
		"file%s, attached in %.1f ms; Ctrl-C to stop\n",
		(int)m->cmd, c->command, m->disc.table.n - 1, words__plural(m->disc.table.n - 1),
		m->disc.nfiles, words__plural(m->disc.nfiles), (c->start_ns - t0) / 1e6);
	return 0;
}

/* Processes of the tree stopped where they may have mapped new files:
 * probe those (unless tracing is over), then let them run. */
static void resume_paused(struct target_many *m, int probe)
{
	struct session *session = m->base.ctx->session;
	pid_t pids[256];
	int n, i, found;

	do {
		n = session__take_paused(session, pids, 256);
		for (i = 0; probe && i < n; i++) {
			found = scan_pid(m, pids[i]);
			note_names(m, pids[i], 0);
			check_shim_loaded(m, pids[i], found);
		}
		if (probe)
			attach_new_files(m);
		for (i = 0; i < n; i++)
			kill(pids[i], SIGCONT);
		session__resumed(session, pids, n);
	} while (n == 256);
}

/* ---- -p --follow: running processes and the processes they start ------------- */

/* pid joins the tree: from now on the BPF side adds the processes it forks.
 * 0, or a negative errno. */
static int seed_pid(struct target_many *m, pid_t pid)
{
	int e = session__follow(m->base.ctx->session, pid);

	if (!e && pid_set_add(&m->seeded, pid))
		e = -ENOMEM;
	return e;
}

struct seed_pass {
	struct target_many *m;
	int added;
};

static int seed_if_child(void *ctx, pid_t pid)
{
	struct seed_pass *p = ctx;
	struct proc_status st;

	if (pid == getpid() || pid_set_has(&p->m->seeded, pid) || proc__status(pid, &st) ||
	    st.ppid <= 0 || !pid_set_has(&p->m->seeded, st.ppid))
		return 0;
	p->added += seed_pid(p->m, pid) == 0;
	return 0;
}

/* The processes the seeds started before the attach, theirs, and so on: passes
 * over every process until one adds none. Nothing escapes: a child forked
 * after its parent joined is the BPF side's; one forked before is there at
 * the next pass (or gone). */
static void seed_descendants(struct target_many *m)
{
	struct seed_pass p = {m, 0};

	do {
		p.added = 0;
		proc__for_each_pid(seed_if_child, &p);
	} while (p.added);
}

/* A process that exited as it joined may have had its bit cleared (its exit)
 * before we set it: the bit would outlive it, and keep the session waiting
 * for it. */
static void drop_gone_seeds(struct target_many *m)
{
	const struct hmap_slot *sl;
	size_t pos = 0;

	while ((sl = hmap_next(&m->seeded, &pos)))
		if (proc__gone((pid_t)sl->k1)) {
			session__unfollow(m->base.ctx->session, (pid_t)sl->k1);
			hmap_del(&m->seeded, sl->k1, 0);
		}
}

/* The processes named (pids[0..n)), then their descendants, join the tree;
 * the files of all are found. Returns how many descendants joined, or -1. */
static int seed_tree(struct target_many *m, const pid_t *pids, int n)
{
	const struct hmap_slot *sl;
	size_t pos = 0;
	int i, roots = 0;

	for (i = 0; i < n; i++)
		if (seed_pid(m, pids[i])) {
			log_err("pid %d: cannot follow it", (int)pids[i]);
			return -1;
		}
	seed_descendants(m);
	drop_gone_seeds(m);
	while ((sl = hmap_next(&m->seeded, &pos)))
		scan_pid(m, (pid_t)sl->k1);
	for (i = 0; i < n; i++)
		roots += pid_set_has(&m->seeded, pids[i]);
	return (int)m->seeded.len - roots;
}

/* The -p processes that can be followed into pids[], their files found.
 * Returns how many, or -1 after an error. */
static int follow_roots(struct target_many *m, pid_t *pids)
{
	const struct env *env = m->base.ctx->env;
	int i, j, n = 0, e;

	for (i = 0; i < env->npids; i++) {
		pid_t pid = proc__tgid(env->pids[i]);
		const char *why;

		pid = pid > 0 ? pid : env->pids[i]; /* a thread id names its process */
		for (j = 0; j < n && pids[j] != pid; j++)
			;
		if (j < n)
			continue;
		why = proc__untraceable(pid);
		if (why && kill(pid, 0) && errno == ESRCH) {
			log_err("no such process: %d", (int)pid);
			return -1;
		}
		if (why) {
			log_warn("process %d %s: skipped", (int)pid, why);
			continue;
		}
		e = scan_pid(m, pid);
		if (e < 0 && e != -E2BIG && kill(pid, 0) == 0)
			log_warn("pid %d: cannot read its mappings (%s): only the processes it "
				 "starts are probed",
				 (int)pid, strerror(-e));
		pids[n++] = pid;
	}
	if (!n)
		log_err("none of the processes can be traced");
	return n ? n : -1;
}

/* What --follow costs other processes, where it matters: a lock call of any
 * process mapping the same library takes a probe hit. */
static void warn_follow_cost(const struct env *env)
{
	if (env->classes & (SBT_TRACE_LOCK | SBT_TRACE_TASK))
		log_warn("--follow: the probes are in every process that maps the traced "
			 "libraries: while sbt-bpf runs, each %s call of any process on this "
			 "machine pays a probe hit (microseconds) and is not recorded",
			 env->classes & SBT_TRACE_LOCK ? "lock" : "OpenMP task");
}

static void say_following(struct target_many *m, const pid_t *pids, int n, int before, __u64 t0)
{
	struct trace_ctx *c = m->base.ctx;
	char running[48] = "";

	if (before)
		snprintf(running, sizeof(running), " (%d running already)", before);
	if (n == 1)
		fprintf(stderr, "sbt-bpf: tracing pid %d (%s) and the processes it starts%s",
			(int)pids[0], c->command, running);
	else
		fprintf(stderr, "sbt-bpf: tracing %d processes (%s) and the processes they start%s",
			n, c->command, running);
	fprintf(stderr, ": %d probe%s in %d file%s, attached in %.1f ms; Ctrl-C to stop\n",
		m->disc.table.n - 1, words__plural(m->disc.table.n - 1), m->disc.nfiles,
		words__plural(m->disc.nfiles), (clock_ns(CLOCK_MONOTONIC) - t0) / 1e6);
}

/* What the report and the trace file call the session: the process's
 * command line, or the list. */
static void name_roots(struct trace_ctx *c, const pid_t *pids, int n)
{
	size_t len = 0;
	int i;

	if (n == 1) {
		proc__cmdline(pids[0], c->command, sizeof(c->command));
		if (c->command[0])
			return;
	}
	for (i = 0; i < n && len < sizeof(c->command); i++)
		len += snprintf(c->command + len, sizeof(c->command) - len, "%s%d",
				len ? "," : "-p ", (int)pids[i]);
}

/* -p --follow: the tree of launch mode, seeded with the running processes
 * named and their descendants. Their files are probed for every process,
 * the seeds' first (a kernel refusing multi-uprobe links starts the session
 * again at the first attach, before anything is in the tree). Files the
 * tree maps later are probed while the process mapping them waits
 * (resume_paused()). The processes named are jobs from the start. */
static int attach_follow(struct target_many *m)
{
	struct trace_ctx *c = m->base.ctx;
	__u64 t0 = clock_ns(CLOCK_MONOTONIC);
	pid_t pids[ENV_MAX_PIDS];
	int n = follow_roots(m, pids), i, before;

	if (n < 0)
		return EXIT_RUNTIME;
	start_guard(m);
	/* a job of an interactive shell is not stopped at its exec: the
	 * runtimes installed are probed before it maps them */
	discover__installed(&m->disc);
	discover_user_probes(m);
	attach_new_files(m);
	before = seed_tree(m, pids, n);
	if (before < 0)
		return EXIT_RUNTIME;
	attach_new_files(m);
	name_roots(c, pids, n);
	for (i = 0; i < n; i++)
		if (pid_set_has(&m->seeded, pids[i]) && !start_job(m, pids[i], c->start_ns, 0, "?"))
			return EXIT_RUNTIME;
	say_following(m, pids, n, before, t0);
	warn_follow_cost(c->env);
	return 0;
}

static int many_prepare(struct target *tg)
{
	struct target_many *m = many_of(tg);
	const struct env *env = tg->ctx->env;

	raise_fd_limit();
	if (discover__init(&m->disc, env->classes, env->probes, env->nprobes,
			   env->all || env->tree))
		return EXIT_RUNTIME;
	return env->cmd ? launch(m) : 0;
}

static int many_attach(struct target *tg)
{
	const struct env *env = tg->ctx->env;

	tg->table = &many_of(tg)->disc.table;
	tg->every_process = env->tree || env->all;
	if (env->cmd)
		return attach_tree(many_of(tg));
	/* running processes produce records while the probes go in */
	tg->ctx->start_ns = clock_ns(CLOCK_MONOTONIC);
	if (env->follow)
		return attach_follow(many_of(tg));
	return env->all ? attach_all(many_of(tg)) : attach_pids(many_of(tg));
}

/* ---- records ------------------------------------------------------------------- */

/* -a: a process's first barrier or parallel region; following a tree: a
 * process of the tree calling any probed function. */
static int starts_job(const struct target_many *m, const struct sbt_event *e)
{
	int kind;

	if (e->type != SBT_EV_ENTER || e->probe >= SBT_MAX_PROBES)
		return 0;
	if (m->tree)
		return 1;
	kind = m->base.ctx->costs.infos[e->probe].kind;
	return kind == SBT_PK_BARRIER || kind == SBT_PK_TEAM_BARRIER || kind == SBT_PK_REGION;
}

/* A job, if --filter accepts it. Its threads start when it started (exec or
 * fork) during the session, else with the session. */
static void maybe_start_job(struct target_many *m, const struct sbt_event *e)
{
	struct proc_note *n = note_of(m, e->pid);
	__u64 session_start = m->base.ctx->start_ns;
	struct job *job;
	char comm[32];

	if (!n || n->ignored)
		return;
	/* a short-lived process may be gone by the time its first barrier is
	 * read: its name is in its exec record */
	if (!filter__accepts(&m->base.ctx->env->filter, e->pid) &&
	    (kill(e->pid, 0) == 0 || errno != ESRCH ||
	     !filter__accepts_gone(&m->base.ctx->env->filter, n->comm))) {
		n->ignored = 1;
		return;
	}
	snprintf(comm, sizeof(comm), "[%s]", n->comm[0] ? n->comm : "?");
	job = start_job(m, e->pid, n->start_ns > session_start ? n->start_ns : session_start,
			n->start_ns > session_start, n->cmdline[0] ? n->cmdline : comm);
	if (!job)
		return;
	if (!job->user) { /* gone already: named as it was */
		job->user = n->sym;
		n->sym = NULL;
	}
	/* a rescan due (it exec'd or loaded libraries since the last one)
	 * stays due: the note goes after it (many_rescan()) */
	if (!n->rescan)
		forget_proc(m, e->pid);
}

/* A process of the tree was forked (record e, its parent's pid in cost):
 * when it was born, and its names. One gone already ran its parent's
 * program: named as its parent, if only by the parent's job (the two may be
 * gone by the time their records are read). */
static void note_fork(struct target_many *m, const struct sbt_event *e)
{
	const struct job *parent = jobs__find(m->base.ctx->jobs, e->cost);
	struct proc_note *n = note_of(m, e->pid);

	note_names(m, e->pid, (pid_t)e->cost);
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
	if (e->tid == e->pid) /* following a tree: a process of the tree forked */
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
			trace_ctx__job_exec(job);
		return;
	}
	/* -a: a new program, a new job. Following a tree: a process is one
	 * job, whatever it runs (env, taskset, numactl exec the command) */
	if (job && !m->tree) {
		job->end_ns = e->ts;
		many_job_exited(&m->base, job);
	}
	note_names(m, e->pid, 0);
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
 * (resume_paused()), except one that cannot be (a job of an interactive
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
		resume_paused(m, 1);
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
	attach_new_files(m);
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
	symbolizer__free(job->user);
	job->user = NULL;
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
	char known[2048];

	if (!m->tree || env->force || jobs__nsynced(tg->ctx->jobs))
		return;
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
		resume_paused(m, 0);
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
