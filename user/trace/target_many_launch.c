// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Several processes (target_many.c), -- CMD: the command and its process
 * tree. The command is held at its entry point while the files it maps are
 * probed; the probe shim in use (its libraries preloaded, a process found
 * without it given plain uprobes, its sites hit once before the command
 * runs); the guard that continues stopped processes if sbt-bpf is killed;
 * the processes of a followed tree (-- CMD, -p --follow) resumed once the
 * files they mapped are probed.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/clock.h"
#include "lib/log.h"
#include "lib/proc.h"
#include "lib/words.h"
#include "user/resolve/discover.h"
#include "user/trace/guard.h"
#include "user/trace/launch.h"
#include "user/trace/shim_preload.h"
#include "user/trace/target_many_impl.h"

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
 * that many__scan_pid() just found it mapping). Called while the process is held
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
int many__launch(struct target_many *m)
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
void many__start_guard(struct target_many *m)
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
			offs[k++] = probe__entry_offset(p);
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

/* The programs that start MPI jobs: Open MPI's (mpirun, orterun, its
 * daemon orted; PRRTE's for Open MPI 5), MPICH's Hydra (mpiexec.hydra and
 * its proxy), Slurm's srun. They load plugins by the dozen and call no probed
 * function there; Open MPI's forwards every SIGCONT to its job and prints a
 * line for it. So they are stopped at their execs, not at their loads. */
static const char *const launchers[] = {
	"mpirun",	   "mpiexec",	      "orterun",       "orted",	       "prterun",
	"prted",	   "mpiexec.hydra",   "mpiexec.mpich", "mpirun.mpich", "mpirun.openmpi",
	"mpiexec.openmpi", "hydra_pmi_proxy", "srun",
};

/* A launcher of the tree (by the name its program gave the process) is not
 * stopped at its library loads from now on. */
static void unpause_launcher(struct target_many *m, pid_t pid)
{
	char comm[32];
	size_t i;

	if (proc__comm(pid, 0, comm, sizeof(comm)))
		return;
	for (i = 0; i < sizeof(launchers) / sizeof(launchers[0]); i++)
		if (!strncmp(comm, launchers[i], 15)) { /* a comm holds 15 characters */
			session__never_pause(m->base.ctx->session, pid);
			return;
		}
}

/* Probes in every file the command maps, for every process; the BPF side
 * keeps the command's tree. Files the tree maps later are probed while the
 * process mapping them waits (many__resume_paused()). The command is a job from
 * the start, whether it synchronizes or runs others that do. */
int many__attach_tree(struct target_many *m)
{
	struct trace_ctx *c = m->base.ctx;
	__u64 t0 = clock_ns(CLOCK_MONOTONIC);
	int n;

	many__start_guard(m);
	n = many__scan_pid(m, m->cmd);
	if (n < 0 && n != -E2BIG) {
		log_err("cannot read the mappings of '%s': %s", c->command, strerror(-n));
		return EXIT_RUNTIME;
	}
	check_shim_loaded(m, m->cmd, n);
	many__attach_new_files(m);
	prepay_sites(m);
	unpause_launcher(m, m->cmd);
	if (session__follow(c->session, m->cmd)) {
		log_err("pid %d: cannot follow it", (int)m->cmd);
		return EXIT_RUNTIME;
	}
	/* the command runs only once released */
	c->start_ns = clock_ns(CLOCK_MONOTONIC);
	if (!trace_ctx__start_job(c, m->cmd, c->start_ns, 1, c->command, &m->pending, NULL))
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
void many__resume_paused(struct target_many *m, int probe)
{
	struct session *session = m->base.ctx->session;
	pid_t pids[256];
	int n, i, found;

	do {
		n = session__take_paused(session, pids, 256);
		for (i = 0; probe && i < n; i++) {
			found = many__scan_pid(m, pids[i]);
			/* it stands still: what it maps now names its records
			 * from now on, the earlier ones (before its exec) are
			 * named from what was read before */
			many__note_names(m, pids[i], 0, trace_ctx__now(m->base.ctx), "stopped");
			check_shim_loaded(m, pids[i], found);
			unpause_launcher(m, pids[i]);
		}
		if (probe)
			many__attach_new_files(m);
		for (i = 0; i < n; i++)
			kill(pids[i], SIGCONT);
		session__resumed(session, pids, n);
	} while (n == 256);
}
