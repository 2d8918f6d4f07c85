// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The program's outer iterations in the summary (doc/design.md §5.6): an
 * "Iterations" section in the text (per process with a period: its sites,
 * how many iterations, their time, trend and jitter, in the view shown and,
 * both views asked, the approximated one) and the JSON iterations{} object.
 */
#include <inttypes.h>
#include "analyses/iterations.h"
#include "analyses/report_impl.h"

/* Where the period's i-th site is. */
static void site_where(struct report *r, __u32 site, char *buf, size_t n)
{
	const struct ph_site *s = site < phases__nsites(r->ph) ? phases__site(r->ph, site) : NULL;

	if (s)
		report__site_where(r, s->pid, s->call_site, buf, n);
	else
		snprintf(buf, n, "?");
}

int report__iteration_now(const struct report *r, __u64 *count, double *mean_ns)
{
	struct it_result o;
	size_t i;

	for (i = 0; r->it && i < iterations__nprocs(r->it); i++)
		if (!iterations__result(r->it, i, &o)) {
			*count = o.count;
			*mean_ns = o.time[PH_MEASURED].mean_ns;
			return 0;
		}
	return -1;
}

static void text_times(struct report *r, const char *view, const struct it_summary *t)
{
	fprintf(r->o.out,
		"    %s: mean %.3f ms, min %.3f, max %.3f; trend %+.3f ms per iteration, "
		"jitter (cv) %.3f\n",
		view, t->mean_ns / 1e6, ms(t->min_ns), ms(t->max_ns), t->slope_ns / 1e6, t->cv);
}

static void text_process(struct report *r, const struct it_result *o)
{
	char where[NAME_MAX_LEN];
	__u32 i;

	fprintf(r->o.out,
		"    pid %u: period of %u site%s, %" PRIu64 " iterations (%" PRIu64 " timed)\n",
		o->pid, o->len, o->len == 1 ? "" : "s", (uint64_t)o->count,
		(uint64_t)o->time[0].timed);
	for (i = 0; i < o->len; i++) {
		site_where(r, o->sites[i], where, sizeof(where));
		fprintf(r->o.out, "      %u. %s\n", i + 1, where);
	}
	if (!o->time[0].timed)
		return;
	if (report__shows(r, PH_MEASURED))
		text_times(r, "measured", &o->time[PH_MEASURED]);
	if (report__shows(r, PH_APPROXIMATED))
		text_times(r, "approximated", &o->time[PH_APPROXIMATED]);
	report_text__team_speedup(r, o);
}

void report_text__iterations(struct report *r)
{
	struct it_result o;
	size_t i;
	int head = 0;

	for (i = 0; r->it && i < iterations__nprocs(r->it); i++) {
		if (iterations__result(r->it, i, &o))
			continue;
		if (!head++)
			fprintf(r->o.out, "Iterations (the period of the barrier sites' sequence; "
					  "times from phase start to phase start):\n");
		text_process(r, &o);
	}
}

static void json_times(struct json *j, const char *key, const struct it_summary *t)
{
	json_key(j, key);
	json_obj_begin(j);
	json_ku64(j, "timed", t->timed);
	json_kdouble(j, "mean_ms", t->mean_ns / 1e6);
	json_kdouble(j, "min_ms", ms(t->min_ns));
	json_kdouble(j, "max_ms", ms(t->max_ns));
	json_kdouble(j, "trend_ms_per_iteration", t->slope_ns / 1e6);
	json_kdouble(j, "jitter_cv", t->cv);
	json_obj_end(j);
}

static void json_process(struct report *r, const struct it_result *o)
{
	struct json *j = &r->json;
	char where[NAME_MAX_LEN];
	__u32 i;

	json_obj_begin(j);
	json_ku64(j, "pid", o->pid);
	json_key(j, "period");
	json_arr_begin(j);
	for (i = 0; i < o->len; i++)
		json_u64(j, o->sites[i]);
	json_arr_end(j);
	json_key(j, "period_where");
	json_arr_begin(j);
	for (i = 0; i < o->len; i++) {
		site_where(r, o->sites[i], where, sizeof(where));
		json_str(j, where);
	}
	json_arr_end(j);
	json_ku64(j, "count", o->count);
	json_times(j, "measured", &o->time[PH_MEASURED]);
	if (report__approx(r))
		json_times(j, "approximated", &o->time[PH_APPROXIMATED]);
	report_json__team_speedup(r, o);
	json_obj_end(j);
}

void report_json__iterations(struct report *r)
{
	struct json *j = &r->json;
	struct it_result o;
	size_t i;

	json_key(j, "iterations");
	json_obj_begin(j);
	json_ku64(j, "max_period", PERIOD_MAX);
	json_key(j, "processes");
	json_arr_begin(j);
	for (i = 0; r->it && i < iterations__nprocs(r->it); i++)
		if (!iterations__result(r->it, i, &o))
			json_process(r, &o);
	json_arr_end(j);
	json_obj_end(j);
}
