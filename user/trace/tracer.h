/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A tracing session (live tracing, `record`, `top`): open it for the
 * options in env (targets found, probes attached, jobs started), run the
 * drain loop until the targets are gone, --duration passes, a signal
 * arrives or the caller's tick says stop, then finish (detach, drain the
 * rest, every job's report, the trace file). Presenters (top) read what a
 * running session knows through the accessors at the end.
 */
#ifndef SBT_TRACER_H
#define SBT_TRACER_H

#include "analyses/jobs.h"
#include "analyses/names.h"
#include "user/trace/env.h"

struct tracer;

/* Everything up to the moment the targets run: privileges, counters,
 * probe costs, the target, the BPF session, the jobs. env must outlive the
 * tracer. EXIT_* code; *out is set on success and always to be freed with
 * tracer__free(). */
int tracer__open(const struct env *env, struct tracer **out);
/* Called after every drain with the time; returns 1 to stop. */
typedef int (*tracer_tick_fn)(void *ctx, const struct tracer *t, __u64 now_ns);
/* Let a launched command run, then drain records until the session ends.
 * EXIT_* code. */
int tracer__run(struct tracer *t, tracer_tick_fn tick, void *ctx);
/* Detach, drain what is left, end every job (their reports), write the
 * trace file. EXIT_* code. */
int tracer__finish(struct tracer *t);
void tracer__free(struct tracer *t);

/* What a running session knows. */
const struct jobs *tracer__jobs(const struct tracer *t);
const struct names *tracer__names(const struct tracer *t);
/* Records lost: all of them, and those of one job. */
__u64 tracer__lost(const struct tracer *t);
__u64 tracer__job_lost(const struct tracer *t, const struct job *job);
/* Records analysed and phases completed, over every job. */
__u64 tracer__events(const struct tracer *t, __u64 *phases);
/* Several processes are traced (-p PID,PID..., -a), or synchronized (-- CMD
 * and the processes it started). */
int tracer__several(const struct tracer *t);
/* Processes the reports cover (-- CMD: those that synchronized). */
size_t tracer__njobs(const struct tracer *t);
/* 1 and the wait status of the launched command (-- CMD) once it ended;
 * 0 otherwise (still running, or attached with -p / -a). */
int tracer__target_ended(const struct tracer *t, int *wstatus);

#endif
