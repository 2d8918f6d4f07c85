// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* CSV: one row per phase and thread, every measured and approximated metric,
 * the phase's efficiencies on each of its rows (columns documented in
 * README.md). RFC 4180 quoting. */
#include <inttypes.h>
#include <string.h>
#include "analyses/efficiency.h"
#include "analyses/export.h"

#define NAME_LEN 256

static void field(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\n\r")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static void begin(struct exporter *x)
{
	FILE *f = x->o.out;
	int k;

	fputs("phase,pid,tid,comm,site,barrier,critical,partial,start_ns,arrive_ns,depart_ns,"
	      "compute_ns,"
	      "wait_ns,late_wait_ns,blocked_ns,sync_wait_ns,useful_ns,probe_overhead_ns,"
	      "tracer_preempted_ns,"
	      "a_start_ns,a_arrive_ns,a_depart_ns,a_compute_ns,a_wait_ns,a_late_wait_ns,"
	      "late_start_ns,lock_wait_ns,sem_wait_ns,cond_wait_ns,task_wait_ns,"
	      "load_balance,sync_efficiency,parallel_efficiency,"
	      "a_sync_wait_ns,a_useful_ns,a_late_start_ns,"
	      "a_load_balance,a_sync_efficiency,a_parallel_efficiency,"
	      "a_phase_ns,a_phase_ns_low,a_phase_ns_high",
	      f);
	for (k = 0; k < x->src.phases.ncounters; k++) {
		fputc(',', f);
		field(f, x->src.counters[k].name);
	}
	fputc('\n', f);
}

static __u64 rel(const struct exporter *x, __u64 ts)
{
	return ts > x->src.phases.start_ns ? ts - x->src.phases.start_ns : 0;
}

/* start, arrive, depart (empty when unseen), compute, wait, late wait */
static void times(struct exporter *x, const struct ph_arrival *a, int view,
		  const struct ph_episode_times *m)
{
	struct ph_times t = ph_times(a, view);
	FILE *f = x->o.out;

	fprintf(f, ",%" PRIu64 ",%" PRIu64 ",", (uint64_t)rel(x, t.start),
		(uint64_t)rel(x, t.arrive));
	if (t.depart)
		fprintf(f, "%" PRIu64, (uint64_t)rel(x, t.depart));
	fprintf(f, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64, (uint64_t)(t.arrive - t.start),
		(uint64_t)(t.depart > t.arrive ? t.depart - t.arrive : 0),
		(uint64_t)(m->last_arrive - t.arrive));
}

/* The phase's efficiencies (doc/design.md §5.5), on each of its rows. */
static void efficiency(FILE *f, const struct eff *e)
{
	fprintf(f, ",%.6g,%.6g,%.6g", e->load_balance, e->sync_efficiency, e->parallel_efficiency);
}

/* Wait states of arrival a in the measured view: late start, waits by kind;
 * the phase's efficiencies. */
static void waits(FILE *f, const struct ph_arrival *a, const struct ph_episode_times *m,
		  const struct eff *e)
{
	int k;

	fprintf(f, ",%" PRIu64, (uint64_t)(a->start_ns > m->start ? a->start_ns - m->start : 0));
	for (k = 0; k < PH_WAIT_NKINDS; k++)
		fprintf(f, ",%" PRIu64, (uint64_t)a->waits.ns[k]);
	efficiency(f, e);
}

/* The approximated ones: sync wait, useful, late start; efficiencies. */
static void waits_a(FILE *f, const struct ph_arrival *a, const struct ph_episode_times *am,
		    const struct eff *e)
{
	__u64 sum = 0;
	int k;

	for (k = 0; k < PH_WAIT_NKINDS; k++)
		sum += a->waits_a.ns[k];
	fprintf(f, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64, (uint64_t)sum,
		(uint64_t)ph_useful(a, PH_APPROXIMATED),
		(uint64_t)(a->ta_start > am->start ? a->ta_start - am->start : 0));
	efficiency(f, e);
}

/* The phase's approximated span and its error band (empty: no band). */
static void phase_band(FILE *f, const struct ph_episode *ep, const struct ph_episode_times *am)
{
	fprintf(f, ",%" PRIu64 ",", (uint64_t)am->phase_ns);
	if (ep->band_known)
		fprintf(f, "%" PRIu64 ",%" PRIu64, (uint64_t)ep->band_lo, (uint64_t)ep->band_hi);
	else
		fputc(',', f);
}

static void episode(struct exporter *x, const struct ph_episode *ep)
{
	char site[NAME_LEN], obj[NAME_LEN];
	struct ph_episode_times m, am;
	FILE *f = x->o.out;
	struct eff e, ea;
	__u32 i;
	int k;

	export__site(x, ep, site, sizeof(site));
	export__object(x, ep->pid, ep->object, ep->probe, obj, sizeof(obj));
	ph_episode_times(ep, PH_MEASURED, &m);
	ph_episode_times(ep, PH_APPROXIMATED, &am);
	eff_phase(ep, PH_MEASURED, &e);
	eff_phase(ep, PH_APPROXIMATED, &ea);
	for (i = 0; i < ep->n; i++) {
		const struct ph_arrival *a = &ep->arr[i];

		fprintf(f, "%" PRIu64 ",%u,%u,", (uint64_t)ep->index, ep->pid, a->tid);
		field(f, export__comm(x, a->tid));
		fputc(',', f);
		field(f, site);
		fputc(',', f);
		field(f, obj);
		fprintf(f, ",%d,%d", a->tid == m.critical_tid, !!ep->partial);
		times(x, a, PH_MEASURED, &m);
		fprintf(f, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64,
			(uint64_t)a->blocked_ns, (uint64_t)a->sync_wait_ns,
			(uint64_t)ph_useful_ns(a), (uint64_t)a->overhead_ns,
			(uint64_t)a->preempted_ns);
		if (x->o.views & EXPORT_APPROXIMATED)
			times(x, a, PH_APPROXIMATED, &am);
		else
			fputs(",,,,,,", f);
		waits(f, a, &m, &e);
		if (x->o.views & EXPORT_APPROXIMATED) {
			waits_a(f, a, &am, &ea);
			phase_band(f, ep, &am);
		} else {
			fputs(",,,,,,,,,", f);
		}
		for (k = 0; k < x->src.phases.ncounters; k++) {
			fputc(',', f);
			if (a->ctr_valid)
				fprintf(f, "%" PRIu64, (uint64_t)a->ctr[k]);
		}
		fputc('\n', f);
	}
}

const struct export_format_ops export_csv_ops = {.begin = begin, .episode = episode};
