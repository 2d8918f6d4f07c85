// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * --critical-path (doc/design.md §5.7): the replay's critical path, by thread
 * and by barrier site, in the text summary and as JSON critical_path{}.
 */
#include <inttypes.h>
#include "analyses/report_impl.h"

#define PATH_ROWS 10 /* text: threads and sites listed */

static double share(__u64 ns, __u64 total)
{
	return total ? 100.0 * (double)ns / (double)total : 0;
}

/* The site's call site and name, as the reports show them. */
static void site_names(struct report *r, __u32 id, struct barrier_names *bn)
{
	const struct ph_site *s = phases__site(r->ph, id);

	report__name_barrier(r, s->pid, s->call_site, s->object, s->probe, bn);
}

/* Why there is no path of view v (0: there is). */
static int path_error(const struct report *r, int v)
{
	if (report_whatif__err(r))
		return report_whatif__err(r);
	return r->wi->path_err[v];
}

static void text_path(struct report *r, const struct sim_path *p)
{
	struct barrier_names bn;
	size_t i;

	fprintf(r->o.out,
		"    %.3f ms: synchronization (releases, hand-offs, joins) %.1f %%, work outside "
		"barrier phases %.1f %%\n",
		ms(p->total_ns), share(p->sync_ns, p->total_ns), share(p->outside_ns, p->total_ns));
	if (p->total_ns)
		fprintf(r->o.out,
			"    the threads' work, %.3f ms, over it: %.2f, the speedup no thread "
			"count "
			"can pass\n",
			ms(p->work_ns), (double)p->work_ns / (double)p->total_ns);
	for (i = 0; i < p->nthreads && i < PATH_ROWS; i++)
		fprintf(r->o.out, "    thread %-10u %-16s %12.3f ms %6.1f %%\n", p->threads[i].id,
			report__comm(r, p->threads[i].id), ms(p->threads[i].ns),
			share(p->threads[i].ns, p->total_ns));
	for (i = 0; i < p->nsites && i < PATH_ROWS; i++) {
		site_names(r, p->sites[i].id, &bn);
		fprintf(r->o.out, "    site %-4u %12.3f ms %6.1f %%  %s \"%s\"\n", p->sites[i].id,
			ms(p->sites[i].ns), share(p->sites[i].ns, p->total_ns), bn.where, bn.name);
	}
	for (i = 0; i < p->nregions && i < PATH_ROWS; i++)
		fprintf(r->o.out, "    region %-25s %12.3f ms %6.1f %%\n",
			report__symbol(r, (__u16)p->regions[i].id), ms(p->regions[i].ns),
			share(p->regions[i].ns, p->total_ns));
}

void report_text__critical_path(struct report *r)
{
	static const char *const title[2] = {"measured", "approximated"};
	int v;

	if (!r->o.critical_path)
		return;
	for (v = PH_MEASURED; v <= PH_APPROXIMATED; v++) {
		if (!report__shows(r, v))
			continue;
		fprintf(r->o.out, "Critical path (of the %s run, replayed):\n", title[v]);
		if (path_error(r, v))
			fprintf(r->o.out, "    none: %s\n", report_whatif__why(path_error(r, v)));
		else
			text_path(r, &r->wi->path[v]);
	}
}

/* Its time in each phase it crossed, and the thread with most of it (the
 * first --phases of them, as the phases[] list). */
static void json_phases(struct report *r, const struct sim_path *p)
{
	struct json *j = &r->json;
	size_t i;

	json_key(j, "phases");
	json_arr_begin(j);
	for (i = 0; i < p->nphases && (!r->o.max_phases || i < r->o.max_phases); i++) {
		json_obj_begin(j);
		json_ku64(j, "index", p->phases[i].index);
		json_ku64(j, "ns", p->phases[i].ns);
		json_ku64(j, "tid", p->phases[i].tid);
		json_ku64(j, "tid_ns", p->phases[i].tid_ns);
		json_obj_end(j);
	}
	json_arr_end(j);
}

/* One view's path: its keys in the object open. */
static void json_path(struct report *r, const struct sim_path *p)
{
	struct json *j = &r->json;
	struct barrier_names bn;
	size_t i;

	json_ku64(j, "total_ns", p->total_ns);
	json_ku64(j, "sync_ns", p->sync_ns);
	json_ku64(j, "outside_phases_ns", p->outside_ns);
	json_ku64(j, "work_ns", p->work_ns);
	json_kdouble(j, "parallelism", p->total_ns ? (double)p->work_ns / (double)p->total_ns : 0);
	json_key(j, "threads");
	json_arr_begin(j);
	for (i = 0; i < p->nthreads; i++) {
		json_obj_begin(j);
		json_ku64(j, "tid", p->threads[i].id);
		json_ku64(j, "ns", p->threads[i].ns);
		json_obj_end(j);
	}
	json_arr_end(j);
	json_key(j, "sites");
	json_arr_begin(j);
	for (i = 0; i < p->nsites; i++) {
		site_names(r, p->sites[i].id, &bn);
		json_obj_begin(j);
		json_ku64(j, "site", p->sites[i].id);
		json_kstr(j, "call_site", bn.where);
		json_ku64(j, "ns", p->sites[i].ns);
		json_obj_end(j);
	}
	json_arr_end(j);
	json_phases(r, p);
	json_key(j, "regions");
	json_arr_begin(j);
	for (i = 0; i < p->nregions; i++) {
		json_obj_begin(j);
		json_kstr(j, "symbol", report__symbol(r, (__u16)p->regions[i].id));
		json_ku64(j, "ns", p->regions[i].ns);
		json_obj_end(j);
	}
	json_arr_end(j);
}

/* The approximated run's path at the top (the view the what-ifs replay), the
 * measured run's under "measured". */
void report_json__critical_path(struct report *r)
{
	struct json *j = &r->json;
	int v;

	if (!r->o.critical_path)
		return;
	json_key(j, "critical_path");
	json_obj_begin(j);
	v = report__approx(r) ? PH_APPROXIMATED : PH_MEASURED;
	if (path_error(r, v))
		json_kstr(j, "error", report_whatif__why(path_error(r, v)));
	else
		json_path(r, &r->wi->path[v]);
	if (v == PH_APPROXIMATED) {
		json_key(j, "measured");
		json_obj_begin(j);
		if (path_error(r, PH_MEASURED))
			json_kstr(j, "error", report_whatif__why(path_error(r, PH_MEASURED)));
		else
			json_path(r, &r->wi->path[PH_MEASURED]);
		json_obj_end(j);
	}
	json_obj_end(j);
}
