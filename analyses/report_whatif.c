// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * --what-if (doc/design.md §5.7): the approximated run replayed as it was
 * and with each change asked, in the summary. A "balance" of every site is
 * followed by each site's alone, ranked, so that the report says which
 * barrier's imbalance costs most.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "lib/parse.h"
#include "analyses/report_impl.h"
#include "analyses/sim.h"

#define SITES_RANKED 8

/* The site balance=TEXT names: its id, else the first whose call site, name
 * or function contains TEXT. 0, or -1 when none does. */
static int resolve_site(struct report *r, struct sim_change *c)
{
	size_t i, n = phases__nsites(r->ph);
	uint64_t id = 0;
	int e = parse_u64(c->site_text, 0, UINT32_MAX, &id);

	if (e != -EINVAL) { /* a number: an id, or one out of range */
		c->site = (__u32)id;
		return !e && id < n ? 0 : -1;
	}
	for (i = 0; i < n; i++) {
		const struct ph_site *s = phases__site(r->ph, i);
		struct barrier_names bn;

		report__name_barrier(r, s->pid, s->call_site, s->object, s->probe, &bn);
		if (strstr(bn.where, c->site_text) || strstr(bn.name, c->site_text) ||
		    strstr(report__symbol(r, s->probe), c->site_text)) {
			c->site = (__u32)i;
			return 0;
		}
	}
	return -1;
}

/* The probes of the region function c->region names (a --probe FN:region,
 * a parallel region's runtime call), into c->probes. 0, or -1 when none. */
static int resolve_region(const struct report *r, struct sim_change *c)
{
	const struct phases_config *pc = &r->src.phases;
	int id, found = 0;

	for (id = 1; id < pc->nprobes && id < SBT_MAX_PROBES; id++)
		if (pc->probes[id].kind == SBT_PK_REGION &&
		    !strcmp(pc->probes[id].symbol, c->region)) {
			c->probes[id / 8] |= (unsigned char)(1u << (id % 8));
			found = 1;
		}
	return found ? 0 : -1;
}

static struct whatif_row *new_row(struct report *r)
{
	struct report_whatif *w = r->wi;

	return w->nrows < REPORT_WHATIF_ROWS ? memset(&w->rows[w->nrows++], 0, sizeof(w->rows[0]))
					     : NULL;
}

static void run_row(struct report *r, const struct sim_change *c, const char *name)
{
	struct whatif_row *row = new_row(r);
	struct sim_result res;

	if (!row)
		return;
	snprintf(row->name, sizeof(row->name), "%s", name);
	if (sim__run(r->sim, c, &res)) {
		row->stalled = 1;
		return;
	}
	row->predicted_ns = res.duration_ns;
	row->stalled = res.stalled;
}

static int by_phase_a_desc(const void *a, const void *b, void *ctx)
{
	const struct phases *p = ctx;
	__u64 x = phases__site(p, *(const size_t *)a)->phase_a_sum;
	__u64 y = phases__site(p, *(const size_t *)b)->phase_a_sum;

	return x > y ? -1 : x < y;
}

static int by_predicted(const void *a, const void *b)
{
	const struct whatif_row *x = a, *y = b;

	return x->predicted_ns < y->predicted_ns ? -1 : x->predicted_ns > y->predicted_ns;
}

/* Each site balanced alone, the sites holding the most approximated phase
 * time first (SITES_RANKED of them), ranked by the time they save. */
static void rank_sites(struct report *r)
{
	size_t i, n = phases__nsites(r->ph), *order = malloc(n * sizeof(*order));
	int first = r->wi->nrows;

	if (!order)
		return; /* no memory: no ranking */
	for (i = 0; i < n; i++)
		order[i] = i;
	qsort_r(order, n, sizeof(*order), by_phase_a_desc, (void *)r->ph);
	for (i = 0; i < n && i < SITES_RANKED; i++) {
		const struct ph_site *s = phases__site(r->ph, order[i]);
		struct sim_change c = {.kind = SIM_BALANCE, .site = (__u32)order[i]};
		struct barrier_names bn;
		char name[sizeof(((struct whatif_row *)0)->name)];

		report__name_barrier(r, s->pid, s->call_site, s->object, s->probe, &bn);
		snprintf(name, sizeof(name), "balance=%zu %s", order[i], bn.where);
		run_row(r, &c, name);
	}
	free(order);
	qsort(&r->wi->rows[first], r->wi->nrows - first, sizeof(r->wi->rows[0]), by_predicted);
}

static void run_change(struct report *r, struct sim_change c, const struct report_drops *d)
{
	struct whatif_row *row;
	char name[sizeof(((struct whatif_row *)0)->name)];

	if (c.kind == SIM_THREADS && !c.cpus)
		c.cpus = d && d->ncpus > 0 ? (__u32)d->ncpus : 1;
	sim_change__name(&c, name, sizeof(name));
	if ((c.kind == SIM_BALANCE && !c.any_site && resolve_site(r, &c)) ||
	    (c.region[0] && resolve_region(r, &c))) {
		row = new_row(r);
		if (row) {
			snprintf(row->name, sizeof(row->name), "%s", name);
			row->missing = c.region[0] ? "no region frame of that function (--probe "
						     "FN:region)"
						   : "no such barrier site";
		}
		return;
	}
	run_row(r, &c, name);
	if (c.kind == SIM_BALANCE && c.any_site && phases__nsites(r->ph) > 1)
		rank_sites(r);
}

/* The measured run replayed, and its critical path. 0, or why there is none. */
static int measured_path(struct report *r, struct sim_path *path)
{
	static const struct sim_change as_is = {.kind = SIM_AS_IS, .measured = 1};
	struct sim_result res;
	int e = sim__run(r->sim, &as_is, &res);

	return e ? e : sim__critical_path(r->sim, path, 0);
}

void report_whatif__compute(struct report *r, const struct report_drops *d)
{
	static const struct sim_change as_is = {.kind = SIM_AS_IS};
	struct report_whatif *w = r->wi;
	struct sim_result res;
	int i;

	if (!w)
		return; /* no memory: said where the results go */
	if (!r->sim) {
		w->err = -ENOMEM;
		return;
	}
	if (!report__approx(r)) {
		w->err = -ENODATA;
		return;
	}
	w->err = sim__finish(r->sim, r->ph);
	if (!w->err)
		w->err = sim__run(r->sim, &as_is, &res);
	if (w->err)
		return;
	w->as_is_ns = res.duration_ns;
	w->as_is_stalled = res.stalled;
	w->barges = res.lock_barges;
	/* of this replay: the changes' overwrite its state */
	if (r->o.critical_path) {
		w->path_err[PH_APPROXIMATED] =
			sim__critical_path(r->sim, &w->path[PH_APPROXIMATED], 0);
		w->path_err[PH_MEASURED] = measured_path(r, &w->path[PH_MEASURED]);
	}
	for (i = 0; i < r->o.nwhat_if; i++)
		if (r->o.what_if[i].kind != SIM_AS_IS)
			run_change(r, r->o.what_if[i], d);
}

int report_whatif__err(const struct report *r)
{
	return r->wi ? r->wi->err : -ENOMEM;
}

const char *report_whatif__why(int err)
{
	switch (err) {
	case -ENODATA:
		return "the trace has no probe costs: nothing is approximated to replay";
	case -E2BIG:
		return "the trace is too large to replay (more than 16 M calls and arrivals)";
	case -EDEADLK:
		return "the replay stalled (a wait nothing ended: a trace cut while a lock was "
		       "held)";
	default:
		return "out of memory";
	}
}

/* Predicted less the replay as is, in % of it (negative: it saves time). */
static double change_pct(const struct report_whatif *w, __u64 predicted)
{
	return w->as_is_ns ? 100.0 * ((double)predicted - (double)w->as_is_ns) / w->as_is_ns : 0;
}

void report_text__whatif(struct report *r)
{
	const struct report_whatif *w = r->wi;
	int i;

	if (!r->o.nwhat_if)
		return;
	fprintf(r->o.out, "What if (the approximated run replayed through its synchronization):\n");
	if (report_whatif__err(r)) {
		fprintf(r->o.out, "    not replayed: %s\n",
			report_whatif__why(report_whatif__err(r)));
		return;
	}
	fprintf(r->o.out,
		"    approximated %.3f ms, replayed as is %.3f ms%s (a lock taken back by its "
		"releaser before a woken waiter: %" PRIu64 " times)\n",
		ms(report__traced_a_ns(r)), ms(w->as_is_ns), w->as_is_stalled ? " (stalled)" : "",
		(uint64_t)w->barges);
	for (i = 0; i < w->nrows; i++) {
		const struct whatif_row *row = &w->rows[i];

		if (row->missing)
			fprintf(r->o.out, "    %-52s %s\n", row->name, row->missing);
		else if (row->stalled)
			fprintf(r->o.out, "    %-52s stalled (the change left a wait unmatched)\n",
				row->name);
		else
			fprintf(r->o.out, "    %-52s %12.3f ms  %+7.1f %%\n", row->name,
				ms(row->predicted_ns), change_pct(w, row->predicted_ns));
	}
}

void report_json__whatif(struct report *r)
{
	const struct report_whatif *w = r->wi;
	struct json *j = &r->json;
	int i;

	if (!r->o.nwhat_if)
		return;
	json_key(j, "what_if");
	json_obj_begin(j);
	if (report_whatif__err(r)) {
		json_kstr(j, "error", report_whatif__why(report_whatif__err(r)));
		json_obj_end(j);
		return;
	}
	json_ku64(j, "approximated_ns", report__traced_a_ns(r));
	json_ku64(j, "as_is_ns", w->as_is_ns);
	json_kbool(j, "as_is_stalled", w->as_is_stalled);
	json_ku64(j, "lock_barges", w->barges);
	json_key(j, "changes");
	json_arr_begin(j);
	for (i = 0; i < w->nrows; i++) {
		const struct whatif_row *row = &w->rows[i];

		json_obj_begin(j);
		json_kstr(j, "change", row->name);
		json_kbool(j, "site_found", !row->missing);
		if (row->missing)
			json_kstr(j, "missing", row->missing);
		json_kbool(j, "stalled", row->stalled);
		json_ku64(j, "predicted_ns", row->predicted_ns);
		json_kdouble(j, "change_pct",
			     row->missing || row->stalled ? 0 : change_pct(w, row->predicted_ns));
		json_obj_end(j);
	}
	json_arr_end(j);
	json_obj_end(j);
}
