// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * report --baseline (doc/design.md §5.6): this run against another of the
 * same program, SelfAnalyzer's way: the speedup of the outer iteration (of
 * the whole run when either has none) and Amdahl's serial fraction for the
 * two thread counts, in both views.
 */
#include <inttypes.h>
#include <math.h>
#include "analyses/iterations.h"
#include "analyses/report_impl.h"

/* Threads that took part in barrier phases: the team the speedup is of. */
static unsigned int team(const struct phases *p)
{
	unsigned int n = 0;
	size_t i;

	for (i = 0; i < phases__nthreads(p); i++)
		n += phases__thread(p, i)->episodes > 0;
	return n;
}

void report__summarize(const struct report *r, struct run_summary *s)
{
	struct it_result o;
	size_t i;

	*s = (struct run_summary){.known = 1, .threads = team(r->ph)};
	s->run_ns[PH_MEASURED] = (double)report__traced_ns(r);
	s->run_ns[PH_APPROXIMATED] = (double)report__traced_a_ns(r);
	for (i = 0; r->it && i < iterations__nprocs(r->it); i++)
		if (!iterations__result(r->it, i, &o) && o.time[PH_MEASURED].timed) {
			s->iterations = 1;
			s->iteration_ns[PH_MEASURED] = o.time[PH_MEASURED].mean_ns;
			s->iteration_ns[PH_APPROXIMATED] = o.time[PH_APPROXIMATED].mean_ns;
			return;
		}
}

/* What the comparison is of: this run and the baseline, in view v, by
 * iteration when both have one, else by run. */
struct comparison {
	struct run_summary here;
	int by_iteration;
	double t_here[2], t_base[2];
};

static int compare(const struct report *r, struct comparison *c)
{
	const struct run_summary *b = r->o.baseline;
	int v;

	if (!b || !b->known)
		return -1;
	report__summarize(r, &c->here);
	c->by_iteration = c->here.iterations && b->iterations;
	for (v = PH_MEASURED; v <= PH_APPROXIMATED; v++) {
		c->t_here[v] = c->by_iteration ? c->here.iteration_ns[v] : c->here.run_ns[v];
		c->t_base[v] = c->by_iteration ? b->iteration_ns[v] : b->run_ns[v];
	}
	return 0;
}

static double ratio(double base, double here)
{
	return here > 0 ? base / here : NAN;
}

static void text_view(struct report *r, const struct comparison *c, int v, const char *name)
{
	const struct run_summary *b = r->o.baseline;
	double f = amdahl_serial(c->t_base[v], b->threads, c->t_here[v], c->here.threads);

	fprintf(r->o.out, "    %s: %.3f ms here, %.3f ms there: speedup %.3f", name,
		c->t_here[v] / 1e6, c->t_base[v] / 1e6, ratio(c->t_base[v], c->t_here[v]));
	if (isnan(f))
		fprintf(r->o.out, "\n");
	else
		fprintf(r->o.out, "; Amdahl serial fraction %.3f%s\n", f,
			f < 0	? " (super-linear)"
			: f > 1 ? " (a slowdown)"
				: "");
}

void report_text__baseline(struct report *r)
{
	struct comparison c;

	if (compare(r, &c))
		return;
	fprintf(r->o.out, "Against the baseline %s (%u threads; here %u), by %s:\n",
		r->o.baseline_name ? r->o.baseline_name : "", r->o.baseline->threads,
		c.here.threads, c.by_iteration ? "outer iteration" : "whole run");
	if (c.here.threads == r->o.baseline->threads)
		fprintf(r->o.out, "    the same thread count: no serial fraction to tell\n");
	text_view(r, &c, PH_MEASURED, "measured");
	if (report__approx(r))
		text_view(r, &c, PH_APPROXIMATED, "approximated");
}

static void json_view(struct report *r, const struct comparison *c, int v, const char *key)
{
	const struct run_summary *b = r->o.baseline;
	struct json *j = &r->json;
	double f = amdahl_serial(c->t_base[v], b->threads, c->t_here[v], c->here.threads);

	json_key(j, key);
	json_obj_begin(j);
	json_ku64(j, "here_ns", (__u64)c->t_here[v]);
	json_ku64(j, "baseline_ns", (__u64)c->t_base[v]);
	json_kdouble(j, "speedup", ratio(c->t_base[v], c->t_here[v]));
	if (!isnan(f))
		json_kdouble(j, "serial_fraction", f);
	json_obj_end(j);
}

void report_json__baseline(struct report *r)
{
	struct json *j = &r->json;
	struct comparison c;

	if (compare(r, &c))
		return;
	json_key(j, "baseline");
	json_obj_begin(j);
	json_kstr(j, "trace", r->o.baseline_name ? r->o.baseline_name : "");
	json_ku64(j, "threads", r->o.baseline->threads);
	json_ku64(j, "here_threads", c.here.threads);
	json_kstr(j, "by", c.by_iteration ? "iteration" : "run");
	json_view(r, &c, PH_MEASURED, "measured");
	if (report__approx(r))
		json_view(r, &c, PH_APPROXIMATED, "approximated");
	json_obj_end(j);
}

/* ---- within one run: iterations by team size ------------------------------------ */

/* The teams with timed iterations, fewest and most threads: 0, or -1 when
 * there are not two. */
static int team_ends(const struct it_result *o, int v, const struct it_team_result **lo,
		     const struct it_team_result **hi)
{
	__u32 i;

	*lo = *hi = NULL;
	for (i = 0; i < o->nteams; i++) {
		const struct it_team_result *t = &o->teams[i];

		if (!t->time[v].timed)
			continue;
		if (!*lo || t->threads < (*lo)->threads)
			*lo = t;
		if (!*hi || t->threads > (*hi)->threads)
			*hi = t;
	}
	return *lo && *hi && *lo != *hi ? 0 : -1;
}

static void text_team_view(struct report *r, const struct it_result *o, int v, const char *name)
{
	const struct it_team_result *lo, *hi;
	double f;

	if (team_ends(o, v, &lo, &hi))
		return;
	f = amdahl_serial(lo->time[v].mean_ns, lo->threads, hi->time[v].mean_ns, hi->threads);
	fprintf(r->o.out, "      %s: %u -> %u threads, speedup %.3f", name, lo->threads,
		hi->threads, ratio(lo->time[v].mean_ns, hi->time[v].mean_ns));
	if (isnan(f))
		fprintf(r->o.out, "\n");
	else
		fprintf(r->o.out, "; Amdahl serial fraction %.3f\n", f);
}

void report_text__team_speedup(struct report *r, const struct it_result *o)
{
	__u32 i;

	if (!o->nteams)
		return;
	fprintf(r->o.out, "    by team size (the team of the episode that begins each):\n");
	for (i = 0; i < o->nteams; i++) {
		fprintf(r->o.out, "      %u threads: %" PRIu64 " timed, mean %.3f ms",
			o->teams[i].threads, (uint64_t)o->teams[i].time[PH_MEASURED].timed,
			o->teams[i].time[PH_MEASURED].mean_ns / 1e6);
		if (report__approx(r))
			fprintf(r->o.out, " (approximated %.3f)",
				o->teams[i].time[PH_APPROXIMATED].mean_ns / 1e6);
		fputc('\n', r->o.out);
	}
	text_team_view(r, o, PH_MEASURED, "measured");
	if (report__approx(r))
		text_team_view(r, o, PH_APPROXIMATED, "approximated");
}

static void json_team_view(struct json *j, const struct it_result *o, int v, const char *key)
{
	const struct it_team_result *lo, *hi;
	double f;

	if (team_ends(o, v, &lo, &hi))
		return;
	f = amdahl_serial(lo->time[v].mean_ns, lo->threads, hi->time[v].mean_ns, hi->threads);
	json_key(j, key);
	json_obj_begin(j);
	json_ku64(j, "from_threads", lo->threads);
	json_ku64(j, "to_threads", hi->threads);
	json_kdouble(j, "speedup", ratio(lo->time[v].mean_ns, hi->time[v].mean_ns));
	if (!isnan(f))
		json_kdouble(j, "serial_fraction", f);
	json_obj_end(j);
}

void report_json__team_speedup(struct report *r, const struct it_result *o)
{
	struct json *j = &r->json;
	__u32 i;

	if (!o->nteams)
		return;
	json_key(j, "by_threads");
	json_arr_begin(j);
	for (i = 0; i < o->nteams; i++) {
		json_obj_begin(j);
		json_ku64(j, "threads", o->teams[i].threads);
		json_ku64(j, "timed", o->teams[i].time[PH_MEASURED].timed);
		json_kdouble(j, "mean_ms", o->teams[i].time[PH_MEASURED].mean_ns / 1e6);
		if (report__approx(r))
			json_kdouble(j, "approximated_mean_ms",
				     o->teams[i].time[PH_APPROXIMATED].mean_ns / 1e6);
		json_obj_end(j);
	}
	json_arr_end(j);
	json_team_view(j, o, PH_MEASURED, "speedup_measured");
	if (report__approx(r))
		json_team_view(j, o, PH_APPROXIMATED, "speedup_approximated");
}
