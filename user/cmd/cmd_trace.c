// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Live tracing (`sbt-bpf -p PID`, `sbt-bpf -- CMD`, `-a`), `sbt-bpf record`
 * and `sbt-bpf top`: the options, then a tracing session (user/trace). */
#include <stdio.h>
#include <sys/wait.h>
#include "lib/log.h"
#include "user/bpf/counters.h"
#include "user/cmd/cmds.h"
#include "user/cmd/env_args.h"
#include "user/cmd/top.h"
#include "user/trace/launch.h"
#include "user/trace/tracer.h"

static int top_tick(void *ctx, const struct tracer *t, __u64 now_ns)
{
	return top__tick(ctx, t, now_ns);
}

/* The session, with top's table redrawn after each drain when asked. */
static int run(const struct env *env, struct tracer *t)
{
	struct top *top = NULL;
	int rc;

	if (env->top && !(top = top__new(env->interval_ms)))
		return EXIT_RUNTIME;
	rc = tracer__run(t, top ? top_tick : NULL, top);
	/* the terminal back before the reports print */
	top__free(top);
	return rc;
}

/* What `record` says of what it recorded: on stderr, the target's stdout is
 * its own. */
static void print_recorded(const struct tracer *t)
{
	__u64 phases, events = tracer__events(t, &phases);
	size_t njobs = tracer__njobs(t);

	fprintf(stderr, "sbt-bpf: recorded %llu events, %llu phases, %llu lost",
		(unsigned long long)events, (unsigned long long)phases,
		(unsigned long long)tracer__lost(t));
	if (tracer__several(t))
		fprintf(stderr, ", %zu process%s", njobs, njobs == 1 ? "" : "es");
	fputc('\n', stderr);
}

/* A launched command that failed or was killed: say so, and exit as it did
 * (a shell's convention, as time(1) and strace do): 128 + signal, or its
 * status. 0 when it succeeded or is not ours. */
static int command_status(const struct tracer *t)
{
	char end[64];
	int ws;

	if (!tracer__target_ended(t, &ws) || (WIFEXITED(ws) && !WEXITSTATUS(ws)))
		return EXIT_OK;
	launch__describe_end(ws, end, sizeof(end));
	log_warn("the command %s%s", WIFSIGNALED(ws) ? "was " : "", end);
	return WIFSIGNALED(ws) ? 128 + WTERMSIG(ws) : WEXITSTATUS(ws);
}

int cmd_trace(int argc, char **argv, enum env_cmd cmd)
{
	struct tracer *t = NULL;
	struct env env;
	int rc;

	rc = env__parse(&env, argc, argv, cmd);
	if (rc)
		return rc;
	if (env.list_events) {
		counters__list(stdout);
		return EXIT_OK;
	}
	rc = tracer__open(&env, &t);
	if (!rc)
		rc = run(&env, t);
	if (!rc) {
		rc = tracer__finish(t);
		/* a trace that could not be written said so: what it holds, not this */
		if (env.record && !rc)
			print_recorded(t);
		if (!rc)
			rc = command_status(t);
	}
	tracer__free(t);
	return rc;
}
