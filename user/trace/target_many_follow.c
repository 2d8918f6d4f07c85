// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Several processes (target_many.c), -p --follow: running processes and
 * the processes they start. Launch mode's tree (target_many_launch.c),
 * seeded with the running processes named and their descendants
 * (doc/design.md §4, Following running processes).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "lib/clock.h"
#include "lib/log.h"
#include "lib/proc.h"
#include "lib/words.h"
#include "user/resolve/discover.h"
#include "user/trace/target_many_impl.h"

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
		many__scan_pid(m, (pid_t)sl->k1);
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
		e = many__scan_pid(m, pid);
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
 * (many__resume_paused()). The processes named are jobs from the start. */
int many__attach_follow(struct target_many *m)
{
	struct trace_ctx *c = m->base.ctx;
	__u64 t0 = clock_ns(CLOCK_MONOTONIC);
	pid_t pids[ENV_MAX_PIDS];
	int n = follow_roots(m, pids), i, before;

	if (n < 0)
		return EXIT_RUNTIME;
	many__start_guard(m);
	/* a job of an interactive shell is not stopped at its exec: the
	 * runtimes installed are probed before it maps them */
	discover__installed(&m->disc);
	many__discover_user_probes(m);
	many__attach_new_files(m);
	before = seed_tree(m, pids, n);
	if (before < 0)
		return EXIT_RUNTIME;
	many__attach_new_files(m);
	name_roots(c, pids, n);
	for (i = 0; i < n; i++)
		if (pid_set_has(&m->seeded, pids[i]) &&
		    !many__start_job(m, pids[i], c->start_ns, 0, "?"))
			return EXIT_RUNTIME;
	say_following(m, pids, n, before, t0);
	warn_follow_cost(c->env);
	return 0;
}
