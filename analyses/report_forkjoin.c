// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Fork-join steps in the summary (analyses/forkjoin.h; doc/design.md §6): a
 * "Fork-join steps" section in the text, per creating thread, with its most
 * idle steps, and the JSON fork_join{} object.
 */
#include <inttypes.h>
#include <stdlib.h>
#include "analyses/forkjoin.h"
#include "analyses/report_impl.h"

static double step_balance(const struct fj_step *s)
{
	return s->run_max_ns ? (double)(s->run_sum_ns / s->threads) / (double)s->run_max_ns : 0.0;
}

/* Creators the text lists (the most idle first), and whose most idle steps
 * it shows; JSON has them all. */
#define FJ_CREATORS_SHOWN 8
#define FJ_WORST_SHOWN	  2

static __u64 creator_steps(const struct fj_creator *c)
{
	return c->steps + c->lone;
}

int report__has_fork_join(const struct report *r)
{
	const struct forkjoin *f = phases__forkjoin(r->ph);
	size_t i;

	for (i = 0; i < forkjoin__ncreators(f); i++)
		if (creator_steps(forkjoin__creator(f, i)))
			return 1;
	return 0;
}

int report__shows_fork_join(const struct report *r)
{
	const struct forkjoin *f = phases__forkjoin(r->ph);
	size_t i;

	/* with barrier phases, more than a thread pool's one step (an OpenMP
	 * runtime's workers, created once and never joined, are one step from
	 * their creation to the process's end) */
	if (!phases__completed(r->ph))
		return report__has_fork_join(r);
	for (i = 0; i < forkjoin__ncreators(f); i++)
		if (creator_steps(forkjoin__creator(f, i)) > 1)
			return 1;
	return 0;
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
			(uint64_t)s->index, report__rel_signed(r, s->start_ns) / 1e9, s->threads,
			ms(s->end_ns - s->start_ns), step_balance(s), ms(s->idle_ns), s->first_tid,
			s->last_tid);
	}
}

static void text_head(struct report *r)
{
	fprintf(r->o.out,
		"Fork-join steps (the threads one thread created between its joins, first creation "
		"to last exit;\n    idle: each thread's exit to its step's end; alone: steps of "
		"one thread, in no column but creator ms;\n    creator ms: its own time from its "
		"last creation to its first join):\n");
	fprintf(r->o.out, "    %10s %10s %8s %8s %12s %12s", "pid", "creator", "steps", "alone",
		"threads/step", "span ms");
	if (report__approx(r))
		fprintf(r->o.out, " %12s", "~span ms");
	fprintf(r->o.out, " %8s %12s %12s\n", "balance", "idle ms", "creator ms");
}

static void text_creator(struct report *r, const struct fj_creator *c)
{
	fprintf(r->o.out, "    %10u %10u %8" PRIu64 " %8" PRIu64 " %12.1f %12.3f", c->pid, c->tid,
		(uint64_t)c->steps, (uint64_t)c->lone,
		c->steps ? (double)c->threads / (double)c->steps : 0.0, ms(c->span_ns));
	if (report__approx(r))
		fprintf(r->o.out, " %12.3f", ms(c->span_a_ns));
	fprintf(r->o.out, " %8.3f %12.3f %12.3f\n", fj_creator_balance(c), ms(c->idle_ns),
		ms(c->creator_ns));
}

/* The creators with steps, the most idle first (then the most steps, then
 * the first seen). */
static int by_idle(const void *a, const void *b)
{
	const struct fj_creator *x = *(const struct fj_creator *const *)a;
	const struct fj_creator *y = *(const struct fj_creator *const *)b;

	if (x->idle_ns != y->idle_ns)
		return x->idle_ns < y->idle_ns ? 1 : -1;
	if (creator_steps(x) != creator_steps(y))
		return creator_steps(x) < creator_steps(y) ? 1 : -1;
	return 0;
}

static size_t sorted_creators(const struct forkjoin *f, const struct fj_creator ***out)
{
	size_t i, n = 0;
	const struct fj_creator **v = calloc(forkjoin__ncreators(f) + 1, sizeof(*v));

	*out = v;
	for (i = 0; v && i < forkjoin__ncreators(f); i++)
		if (creator_steps(forkjoin__creator(f, i)))
			v[n++] = forkjoin__creator(f, i);
	if (v)
		qsort(v, n, sizeof(*v), by_idle); /* ties: qsort is not stable, rare */
	return n;
}

static void text_more(struct report *r, const struct fj_creator **v, size_t n)
{
	__u64 steps = 0;
	size_t i;

	for (i = FJ_CREATORS_SHOWN; i < n; i++)
		steps += creator_steps(v[i]);
	fprintf(r->o.out,
		"    and %zu more creating threads, %" PRIu64 " steps (JSON fork_join lists "
		"them)\n",
		n - FJ_CREATORS_SHOWN, (uint64_t)steps);
}

void report_text__fork_join(struct report *r)
{
	const struct forkjoin *f = phases__forkjoin(r->ph);
	__u64 running = forkjoin__running(f);
	const struct fj_creator **v;
	size_t i, n;

	if (!report__shows_fork_join(r))
		return;
	n = sorted_creators(f, &v);
	if (!v)
		return;
	text_head(r);
	for (i = 0; i < n && i < FJ_CREATORS_SHOWN; i++)
		text_creator(r, v[i]);
	if (n > FJ_CREATORS_SHOWN)
		text_more(r, v, n);
	for (i = 0; i < n && i < FJ_WORST_SHOWN; i++)
		if (v[i]->nworst)
			text_worst(r, v[i]);
	if (running)
		fprintf(r->o.out,
			"    and %" PRIu64 " thread%s still running at the end (%s step not "
			"counted)\n",
			(uint64_t)running, running == 1 ? "" : "s", running == 1 ? "its" : "their");
	free(v);
}

static void json_step(struct report *r, const struct fj_step *s)
{
	struct json *j = &r->json;

	json_obj_begin(j);
	json_ku64(j, "index", s->index);
	/* an attach's first step may begin before the session start */
	json_ki64(j, "start_ns", report__rel_signed(r, s->start_ns));
	json_ki64(j, "end_ns", report__rel_signed(r, s->end_ns));
	json_ku64(j, "threads", s->threads);
	json_ku64(j, "run_sum_ns", s->run_sum_ns);
	json_ku64(j, "run_max_ns", s->run_max_ns);
	json_ku64(j, "idle_ns", s->idle_ns);
	json_kdouble(j, "balance", step_balance(s));
	json_ku64(j, "first_tid", s->first_tid);
	json_ku64(j, "last_tid", s->last_tid);
	json_ku64(j, "creator_ns", s->creator_ns);
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
	json_ku64(j, "creator_ns", c->creator_ns);
	json_ku64(j, "joins", c->joins);
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
		if (creator_steps(forkjoin__creator(f, i)))
			json_creator(r, forkjoin__creator(f, i));
	json_arr_end(j);
	json_obj_end(j);
}
