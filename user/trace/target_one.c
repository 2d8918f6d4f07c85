// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * One running process: -p PID. Its probes are resolved from its own
 * mappings and attached with its pid, so that other processes mapping the
 * same libraries pay nothing (doc/design.md §4). A launched command is
 * target_many's (it follows the command's children).
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
#include "user/trace/target.h"

struct target_one {
	struct target base;
	struct probe_table probes;
	int exited; /* the exit of its last thread was seen */
};

static struct target_one *one_of(struct target *tg)
{
	return (struct target_one *)tg;
}

/* Says why process pid cannot be traced, if it cannot: 1. */
static int refused(pid_t pid)
{
	const char *why = proc__untraceable(pid);

	if (why)
		log_err("process %d %s", (int)pid, why);
	return why != NULL;
}

static int find_process(struct target_one *o)
{
	struct trace_ctx *c = o->base.ctx;
	pid_t pid = c->env->pid, tgid;

	if (kill(pid, 0) && errno == ESRCH) {
		log_err("no such process: %d", (int)pid);
		return EXIT_RUNTIME;
	}
	if (refused(pid))
		return EXIT_RUNTIME;
	tgid = proc__tgid(pid);
	if (tgid > 0 && tgid != pid) {
		log_warn("%d is a thread of process %d: tracing the process", (int)pid, (int)tgid);
		pid = tgid;
		if (refused(pid))
			return EXIT_RUNTIME;
	}
	o->base.pid = pid;
	proc__cmdline(pid, c->command, sizeof(c->command));
	return 0;
}

static int resolve_probes(struct target_one *o)
{
	struct trace_ctx *c = o->base.ctx;
	const struct env *env = c->env;
	char err[1024], known[2048];

	if (probes__resolve(o->base.pid, env->classes, env->probes, env->nprobes, &o->probes, err,
			    sizeof(err))) {
		log_err("%s", err);
		return EXIT_RUNTIME;
	}
	if (!o->probes.used && o->probes.files_denied) {
		log_err("process %d (%s): its files cannot be opened (permission denied): tracing "
			"another user's process takes CAP_SYS_PTRACE besides CAP_BPF and "
			"CAP_PERFMON, or root",
			(int)o->base.pid, c->command);
		return EXIT_RUNTIME;
	}
	if (!o->probes.used && !env->force) {
		probes__known(env->classes, known, sizeof(known));
		log_err("process %d (%s) calls none of the functions sbt-bpf traces.\n"
			"  searched %d mapped objects for: %s\n"
			"  declare the program's own barrier with --probe BINARY:SYMBOL:barrier "
			"(or :team, :lock, ...), widen --trace, or use --force to trace anyway\n"
			"  a shell or a job script: --follow traces the processes it starts",
			(int)o->base.pid, c->command, o->probes.files_searched, known);
		return EXIT_RUNTIME;
	}
	probes__warn_unprobeable(&o->probes);
	probe_costs__set(&c->costs, o->probes.probes + 1, 1, o->probes.n - 1);
	return 0;
}

static int one_prepare(struct target *tg)
{
	struct target_one *o = one_of(tg);
	int rc = find_process(o);

	return rc ? rc : resolve_probes(o);
}

static int one_attach(struct target *tg)
{
	struct target_one *o = one_of(tg);
	struct trace_ctx *c = tg->ctx;
	__u64 t0 = clock_ns(CLOCK_MONOTONIC), t1;
	char err[512] = "";

	if (session__add_target(c->session, tg->pid) ||
	    session__attach(c->session, &o->probes, tg->pid, err, sizeof(err))) {
		log_err("%s", err[0] ? err : "cannot add the target to the BPF filter");
		return EXIT_RUNTIME;
	}
	t1 = clock_ns(CLOCK_MONOTONIC);
	tg->table = &o->probes;
	/* a running process produces records while the probes go in: its
	 * session starts before them */
	c->start_ns = t0;
	if (!trace_ctx__start_job(c, tg->pid, c->start_ns, 0, c->command, NULL, NULL))
		return EXIT_RUNTIME;
	fprintf(stderr,
		"sbt-bpf: tracing pid %d (%s): %d probe%s in %d object%s, attached in %.1f ms; "
		"Ctrl-C to stop\n",
		(int)tg->pid, c->command, o->probes.n - 1, words__plural(o->probes.n - 1),
		o->probes.files_searched, words__plural(o->probes.files_searched), (t1 - t0) / 1e6);
	return 0;
}

static int one_release(struct target *tg)
{
	return 0;
}

/* The process exec'd: the same job, named from the new program. It
 * started a process: not traced, and said so. */
static int one_record(struct target *tg, const struct sbt_event *e)
{
	struct job *job;

	if (e->type == SBT_EV_FORK) {
		trace_ctx__unfollowed(tg->ctx, e);
		return 1;
	}
	if (e->type != SBT_EV_EXEC)
		return 0;
	job = jobs__find(tg->ctx->jobs, e->pid);
	if (job)
		trace_ctx__job_exec(tg->ctx, job, e->ts);
	return 1;
}

static void one_job_exited(struct target *tg, struct job *job)
{
	one_of(tg)->exited = 1;
}

static __u64 one_job_drops(const struct target *tg, const struct job *job)
{
	return session__drops(tg->ctx->session, NULL, 0);
}

static int one_gone(struct target *tg)
{
	return one_of(tg)->exited || proc__gone(tg->pid);
}

static void one_free(struct target *tg)
{
	struct target_one *o = one_of(tg);

	probes__free(&o->probes);
	free(o);
}

static const struct target_ops one_ops = {
	.prepare = one_prepare,
	.attach = one_attach,
	.release = one_release,
	.record = one_record,
	.job_exited = one_job_exited,
	.job_drops = one_job_drops,
	.gone = one_gone,
	.free = one_free,
};

struct target *target_one__new(struct trace_ctx *ctx)
{
	struct target_one *o = calloc(1, sizeof(*o));

	if (!o)
		return NULL;
	o->base = (struct target){.ops = &one_ops, .ctx = ctx};
	return &o->base;
}
