// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Fork-join steps in the summary (analyses/forkjoin.h; doc/design.md §6): a
 * "Fork-join steps" section in the text, per creating thread, with its most
 * idle steps, and the JSON fork_join{} object.
 */
#include <inttypes.h>
#include "analyses/forkjoin.h"
#include "analyses/report_impl.h"

static double step_balance(const struct fj_step *s)
{
	return s->run_max_ns ? (double)(s->run_sum_ns / s->threads) / (double)s->run_max_ns : 0.0;
}

int report__has_fork_join(const struct report *r)
{
	return forkjoin__steps(phases__forkjoin(r->ph)) > 0;
}

static void text_worst(struct report *r, const struct fj_creator *c)
{
	__u32 i;

	fprintf(r->o.out, "    most idle steps of %u:\n", c->tid);
	for (i = 0; i < c->nworst; i++) {
		const struct fj_step *s = &c->worst[i];

		fprintf(r->o.out,
			"      step %" PRIu64 " at %.3f s: %u threads over %.3f ms, balance %.3f, "
			"idle %.3f ms; first out %u, last out %u\n",
			(uint64_t)s->index, sec(report__rel(r, s->start_ns)), s->threads,
			ms(s->end_ns - s->start_ns), step_balance(s), ms(s->idle_ns), s->first_tid,
			s->last_tid);
	}
}

static void text_creator(struct report *r, const struct fj_creator *c)
{
	int approx = report__approx(r);

	fprintf(r->o.out, "    %10u %10u %8" PRIu64 " %12.1f %12.3f", c->pid, c->tid,
		(uint64_t)c->steps, (double)c->threads / (double)c->steps, ms(c->span_ns));
	if (approx)
		fprintf(r->o.out, " %12.3f", ms(c->span_a_ns));
	fprintf(r->o.out, " %8.3f %12.3f\n", fj_creator_balance(c), ms(c->idle_ns));
}

/* Worth a section: the run's phases, or more than its thread pool's one
 * step (an OpenMP runtime's workers, created once and never joined, are
 * one step from their creation to the process's end). */
static int text_worth_it(const struct report *r)
{
	const struct forkjoin *f = phases__forkjoin(r->ph);
	size_t i;

	if (!phases__completed(r->ph))
		return report__has_fork_join(r);
	for (i = 0; i < forkjoin__ncreators(f); i++)
		if (forkjoin__creator(f, i)->steps > 1)
			return 1;
	return 0;
}

void report_text__fork_join(struct report *r)
{
	const struct forkjoin *f = phases__forkjoin(r->ph);
	__u64 lone = 0, running = forkjoin__running(f);
	size_t i, n = forkjoin__ncreators(f);

	if (!text_worth_it(r))
		return;
	fprintf(r->o.out,
		"Fork-join steps (the threads one thread created between its joins, first creation "
		"to last exit;\n    idle: each thread's exit to its step's end):\n");
	fprintf(r->o.out, "    %10s %10s %8s %12s %12s", "pid", "creator", "steps", "threads/step",
		"span ms");
	if (report__approx(r))
		fprintf(r->o.out, " %12s", "~span ms");
	fprintf(r->o.out, " %8s %12s\n", "balance", "idle ms");
	for (i = 0; i < n; i++) {
		const struct fj_creator *c = forkjoin__creator(f, i);

		lone += c->lone;
		if (c->steps)
			text_creator(r, c);
	}
	for (i = 0; i < n; i++)
		if (forkjoin__creator(f, i)->steps)
			text_worst(r, forkjoin__creator(f, i));
	if (lone)
		fprintf(r->o.out, "    and %" PRIu64 " thread%s alone in its step (not counted)\n",
			(uint64_t)lone, lone == 1 ? "" : "s");
	if (running)
		fprintf(r->o.out,
			"    and %" PRIu64 " thread%s still running at the end (its step not "
			"counted)\n",
			(uint64_t)running, running == 1 ? "" : "s");
}

static void json_step(struct report *r, const struct fj_step *s)
{
	struct json *j = &r->json;

	json_obj_begin(j);
	json_ku64(j, "index", s->index);
	json_ku64(j, "start_ns", report__rel(r, s->start_ns));
	json_ku64(j, "end_ns", report__rel(r, s->end_ns));
	json_ku64(j, "threads", s->threads);
	json_ku64(j, "run_sum_ns", s->run_sum_ns);
	json_ku64(j, "run_max_ns", s->run_max_ns);
	json_ku64(j, "idle_ns", s->idle_ns);
	json_kdouble(j, "balance", step_balance(s));
	json_ku64(j, "first_tid", s->first_tid);
	json_ku64(j, "last_tid", s->last_tid);
	json_obj_end(j);
}

static void json_creator(struct report *r, const struct fj_creator *c)
{
	struct json *j = &r->json;
	__u32 i;

	json_obj_begin(j);
	json_ku64(j, "pid", c->pid);
	json_ku64(j, "tid", c->tid);
	json_ku64(j, "steps", c->steps);
	json_ku64(j, "lone", c->lone);
	json_ku64(j, "threads", c->threads);
	json_ku64(j, "span_ns", c->span_ns);
	if (report__approx(r))
		json_ku64(j, "span_a_ns", c->span_a_ns);
	json_ku64(j, "run_sum_ns", c->run_sum_ns);
	json_kdouble(j, "balance", fj_creator_balance(c));
	json_ku64(j, "idle_ns", c->idle_ns);
	json_key(j, "most_idle");
	json_arr_begin(j);
	for (i = 0; i < c->nworst; i++)
		json_step(r, &c->worst[i]);
	json_arr_end(j);
	json_obj_end(j);
}

void report_json__fork_join(struct report *r)
{
	const struct forkjoin *f = phases__forkjoin(r->ph);
	struct json *j = &r->json;
	size_t i;

	json_key(j, "fork_join");
	json_obj_begin(j);
	json_ku64(j, "steps", forkjoin__steps(f));
	json_ku64(j, "running_threads", forkjoin__running(f));
	json_key(j, "creators");
	json_arr_begin(j);
	for (i = 0; i < forkjoin__ncreators(f); i++)
		if (forkjoin__creator(f, i)->steps)
			json_creator(r, forkjoin__creator(f, i));
	json_arr_end(j);
	json_obj_end(j);
}
