// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The report as one JSON document (doc/design.md §6; schema in README.md): the
 * counters and command, the phases as they complete (both views, counter
 * statistics across threads, efficiencies), then the summary: approximation,
 * calibration, regions, the run's efficiency, sites, threads, locks, hangs
 * and losses.
 */
#include <stdint.h>
#include <string.h>
#include "analyses/counter_units.h"
#include "analyses/report_impl.h"

/* ---- counters ------------------------------------------------------------------ */

static int counter_index(const struct report *r, const char *name)
{
	int k;

	for (k = 0; k < r->src.phases.ncounters; k++)
		if (!strcmp(r->src.counters[k].name, name) ||
		    (!strcmp(name, "cycles") && !strcmp(r->src.counters[k].name, "cpu-cycles")))
			return k;
	return -1;
}

/* "counters": {name: value, ...} of counter values v; null without them */
static void json_kcounters(struct json *j, const struct report *r, const __u64 *v)
{
	int k;

	json_key(j, "counters");
	if (!v) {
		json_null(j);
		return;
	}
	json_obj_begin(j);
	for (k = 0; k < r->src.phases.ncounters; k++)
		json_ku64(j, r->src.counters[k].name, v[k]);
	json_obj_end(j);
}

/* Sum/Min/Max/Avg of counter k across the threads of an episode; with
 * cycles at cyc (-1: none), IPC and CPI. */
static void json_counter_stats(struct json *j, const struct ph_episode *ep, int k, int cyc)
{
	__u64 sum = 0, min = UINT64_MAX, max = 0, c = 0;
	__u32 i, n;

	for (i = n = 0; i < ep->n; i++) {
		const struct ph_arrival *a = &ep->arr[i];

		if (!a->ctr_valid)
			continue;
		n++;
		sum += a->ctr[k];
		min = a->ctr[k] < min ? a->ctr[k] : min;
		max = a->ctr[k] > max ? a->ctr[k] : max;
	}
	json_obj_begin(j);
	json_ku64(j, "sum", sum);
	json_ku64(j, "min", n ? min : 0);
	json_ku64(j, "max", max);
	json_kdouble(j, "avg", n ? (double)sum / n : 0);
	json_ku64(j, "threads", n);
	if (cyc >= 0) {
		for (i = 0; i < ep->n; i++)
			c += ep->arr[i].ctr_valid ? ep->arr[i].ctr[cyc] : 0;
		json_kdouble(j, "ipc", c ? (double)sum / c : 0);
		json_kdouble(j, "cpi", sum ? (double)c / sum : 0);
	}
	json_obj_end(j);
}

static void json_phase_counters(struct json *j, const struct report *r, const struct ph_episode *ep)
{
	int k, cyc = counter_index(r, "cycles"), ins = counter_index(r, "instructions");

	json_key(j, "counters");
	json_obj_begin(j);
	for (k = 0; k < r->src.phases.ncounters; k++) {
		json_key(j, r->src.counters[k].name);
		json_counter_stats(j, ep, k, k == ins ? cyc : -1);
	}
	json_obj_end(j);
}

/* ---- phases -------------------------------------------------------------------- */

/* The timing keys of an episode in one view. */
static void json_episode_times(struct json *j, const struct report *r,
			       const struct ph_episode_times *m)
{
	json_ku64(j, "start_ns", report__rel(r, m->start));
	json_ku64(j, "end_ns", report__rel(r, m->last_arrive));
	json_ku64(j, "phase_ns", m->phase_ns);
	json_ku64(j, "barrier_ns", m->barrier_ns);
	json_ku64(j, "imbalance_ns", m->imbalance_ns);
	json_kdouble(j, "load_balance", m->lb);
	json_ku64(j, "critical_tid", m->critical_tid);
}

/* The timing keys of one thread's arrival in one view. */
static void json_arrival_times(struct json *j, const struct report *r, const struct ph_arrival *a,
			       int view, const struct ph_episode_times *m)
{
	struct ph_times t = ph_times(a, view);

	json_ku64(j, "arrive_ns", report__rel(r, t.arrive));
	json_key(j, "depart_ns");
	if (t.depart)
		json_u64(j, report__rel(r, t.depart));
	else
		json_null(j);
	json_ku64(j, "compute_ns", t.arrive > t.start ? t.arrive - t.start : 0);
	json_ku64(j, "wait_ns", t.depart > t.arrive ? t.depart - t.arrive : 0);
	json_ku64(j, "late_wait_ns", m->last_arrive - t.arrive);
	json_ku64(j, "overhead_ns", t.depart > m->last_arrive ? t.depart - m->last_arrive : 0);
}

/* One thread of a phase; m and am: the episode's times in both views. */
static void json_arrival(struct report *r, const struct ph_arrival *a,
			 const struct ph_episode_times *m, const struct ph_episode_times *am)
{
	struct json *j = &r->json;

	json_obj_begin(j);
	json_ku64(j, "tid", a->tid);
	json_arrival_times(j, r, a, PH_MEASURED, m);
	json_ku64(j, "blocked_ns", a->blocked_ns);
	json_ku64(j, "spin_ns", ph_wait_ns(a) > a->blocked_ns ? ph_wait_ns(a) - a->blocked_ns : 0);
	json_ku64(j, "sync_wait_ns", a->sync_wait_ns);
	json_ku64(j, "useful_ns", ph_useful_ns(a));
	report_json__arrival_waits(j, a, PH_MEASURED, m);
	if (report__approx(r)) {
		json_ku64(j, "probe_overhead_ns", a->overhead_ns);
		json_ku64(j, "tracer_preempted_ns", a->preempted_ns);
		json_key(j, "approximated");
		json_obj_begin(j);
		json_arrival_times(j, r, a, PH_APPROXIMATED, am);
		report_json__arrival_waits(j, a, PH_APPROXIMATED, am);
		json_obj_end(j);
	}
	if (r->src.phases.ncounters) {
		/* no values: the window began before counting did */
		json_kcounters(j, r, a->ctr_valid ? a->ctr : NULL);
		json_key(j, "counters_estimated");
		json_u64(j, a->ctr_scaled);
	}
	json_obj_end(j);
}

static void json_phase(struct report *r, const struct ph_episode *ep)
{
	struct json *j = &r->json;
	struct ph_episode_times m, am;
	struct barrier_names bn = {.named = 0};
	__u32 i;

	if (r->o.max_phases && r->json_phases >= r->o.max_phases)
		return;
	r->json_phases++;
	report__episode_names(r, ep, &bn);
	ph_episode_times(ep, PH_MEASURED, &m);
	ph_episode_times(ep, PH_APPROXIMATED, &am);
	json_obj_begin(j);
	json_ku64(j, "index", ep->index);
	json_ku64(j, "site", ep->site);
	json_kstr(j, "call_site", bn.where);
	json_kstr(j, "name", bn.name);
	json_kstr(j, "symbol", report__symbol(r, ep->probe));
	json_kbool(j, "implicit", report__implicit(r, ep->probe));
	json_ku64(j, "pid", ep->pid);
	json_ku64(j, "object", ep->object);
	json_episode_times(j, r, &m);
	json_ku64(j, "lost", ep->lost);
	json_kbool(j, "partial", !!ep->partial);
	if (r->src.phases.ncounters)
		json_phase_counters(j, r, ep);
	if (report__approx(r)) {
		json_key(j, "approximated");
		json_obj_begin(j);
		json_episode_times(j, r, &am);
		if (ep->band_known) {
			json_ku64(j, "phase_ns_low", ep->band_lo);
			json_ku64(j, "phase_ns_high", ep->band_hi);
		}
		json_obj_end(j);
	}
	report_json__phase_eff(r, ep);
	json_key(j, "threads");
	json_arr_begin(j);
	for (i = 0; i < ep->n; i++)
		json_arrival(r, &ep->arr[i], &m, &am);
	json_arr_end(j);
	json_obj_end(j);
}

/* The document opens with the counters and the command; phases follow. */
static void json_begin(struct report *r)
{
	struct json *j = &r->json;
	int k;

	json_obj_begin(j);
	json_ku64(j, "schema", 1);
	json_key(j, "counters");
	json_arr_begin(j);
	for (k = 0; k < r->src.phases.ncounters; k++) {
		const struct sbt_counter_info *c = &r->src.counters[k];

		json_obj_begin(j);
		json_kstr(j, "name", c->name);
		json_kstr(j, "kind", c->flags & SBT_CTRF_HARDWARE ? "hardware" : "software");
		json_ku64(j, "type", c->type);
		json_ku64(j, "config", c->config);
		json_kstr(j, "unit", counter_raw_unit(c));
		json_key(j, "fallback");
		json_u64(j, !!(c->flags & SBT_CTRF_FALLBACK));
		json_obj_end(j);
	}
	json_arr_end(j);
	json_kstr(j, "command", r->src.command ? r->src.command : "");
	json_kstr(j, "kernel", r->src.kernel ? r->src.kernel : "");
	json_key(j, "phases");
	json_arr_begin(j);
}

/* ---- summary ------------------------------------------------------------------- */

static void json_violations(struct report *r)
{
	struct json *j = &r->json;
	const struct ph_violation *v;
	size_t i, n = phases__violation_list(&v, r->ph);
	int k;

	json_key(j, "repairs");
	json_obj_begin(j);
	json_ku64(j, "count", phases__violations(r->ph, -1));
	for (k = 0; k < PH_VIOL_NKINDS; k++)
		json_ku64(j, ph_violation_name(k), phases__violations(r->ph, k));
	json_key(j, "first");
	json_arr_begin(j);
	for (i = 0; i < n; i++) {
		json_obj_begin(j);
		json_kstr(j, "kind", ph_violation_name(v[i].kind));
		json_ku64(j, "pid", v[i].pid);
		json_ku64(j, "tid", v[i].tid);
		json_ku64(j, "object", v[i].object);
		json_ku64(j, "ts_ns", report__rel(r, v[i].ts));
		json_ku64(j, "shift_ns", v[i].shift);
		json_obj_end(j);
	}
	json_arr_end(j);
	json_obj_end(j);
}

/* Probe hits at self-timed sites (phases.h, struct ph_timed). */
static void json_measured_costs(struct report *r)
{
	const struct ph_timed *t = phases__timed(r->ph);
	struct json *j = &r->json;

	json_key(j, "measured_costs");
	json_obj_begin(j);
	json_ku64(j, "hits", t->hits);
	json_ku64(j, "measured_ns", t->measured_ns);
	json_ku64(j, "calibrated_ns", t->calibrated_ns);
	json_ku64(j, "refused", t->refused);
	json_obj_end(j);
}

/* sbt-bpf's own use of traced threads' CPUs (PREEMPTED records), charged. */
static void json_preempted(struct report *r)
{
	const struct ph_preempted *p = phases__preempted(r->ph);
	struct json *j = &r->json;

	json_key(j, "tracer_preempted");
	json_obj_begin(j);
	json_ku64(j, "count", p->count);
	json_ku64(j, "ns", p->ns);
	json_obj_end(j);
}

static void json_min_max(struct json *j, const char *key, __u64 min, __u64 max)
{
	json_key(j, key);
	json_obj_begin(j);
	json_ku64(j, "min", min);
	json_ku64(j, "max", max);
	json_obj_end(j);
}

/* Where the probe costs came from (doc/design.md §5.4): the session's
 * calibrations and their times (ns from the session start; the first is
 * before it), each entry charged with its range over them, and the probes
 * whose cost was borrowed. */
static void json_costs(struct report *r)
{
	const struct alpha_series *s = r->src.phases.alpha_series;
	size_t e, k, n = alpha_series__count(s), borrowed = 0;
	struct json *j = &r->json;
	double least, greatest;
	int id, how;

	json_key(j, "costs");
	json_obj_begin(j);
	json_kstr(j, "source", report__costs_source(r));
	json_ku64(j, "calibrations", n);
	json_key(j, "at_ns");
	json_arr_begin(j);
	for (k = 0; k < n; k++)
		json_i64(j, (__s64)(alpha_series__ts(s, k) - r->src.phases.start_ns));
	json_arr_end(j);
	json_key(j, "entries");
	json_arr_begin(j);
	for (e = 0; e < alpha_series__nentries(s); e++) {
		struct alpha_entry_info in = alpha_series__entry(s, e);

		if (!in.measured || !report__cost_entry_used(r, e))
			continue;
		json_obj_begin(j);
		json_kstr(j, "symbol", in.name);
		json_kstr(j, "class", report__insn_class(in.cls));
		json_ku64(j, "calibrations", in.measured);
		json_min_max(j, "entry_ns", in.min.entry_ns, in.max.entry_ns);
		json_min_max(j, "exit_ns", in.min.exit_ns, in.max.exit_ns);
		json_obj_end(j);
	}
	json_arr_end(j);
	alpha_series__all_cpus(s, &least, &greatest);
	/* a hit's cost with every CPU hitting, over its cost alone (1: not
	 * measured) */
	json_kdouble(j, "all_cpus_ratio_min", least);
	json_kdouble(j, "all_cpus_ratio_max", greatest);
	/* the threads hitting at once in that measurement; 0: unknown, hits
	 * not charged by the hits beside them (doc/design.md §5.4) */
	json_ku64(j, "all_cpus_threads", alpha_series__all_cpus_threads(s));
	json_key(j, "borrowed");
	json_arr_begin(j);
	for (id = 1; id < r->src.phases.nprobes; id++) {
		const char *from = report__borrowed(r, id, &how);

		if (!from || borrowed++ >= REPORT_BORROWED_KEPT)
			continue;
		json_obj_begin(j);
		json_ku64(j, "probe", id);
		json_kstr(j, "symbol", r->src.phases.probes[id].symbol);
		json_kstr(j, "object", r->src.phases.probes[id].object);
		json_kstr(j, "from", from);
		json_kstr(j, "how", alpha_how_name(how));
		json_obj_end(j);
	}
	json_arr_end(j);
	json_ku64(j, "borrowed_count", borrowed);
	json_obj_end(j);
}

static void json_approximation(struct report *r)
{
	struct json *j = &r->json;
	struct ph_band band;
	__u64 ovh = 0;
	size_t i;

	for (i = 0; i < phases__nthreads(r->ph); i++)
		ovh += phases__thread(r->ph, i)->overhead_total;
	json_key(j, "approximated");
	json_obj_begin(j);
	json_ku64(j, "duration_ns", report__traced_a_ns(r));
	if (phases__band(r->ph, &band)) {
		/* the run approximated at the least and greatest costs measured */
		json_ku64(j, "duration_ns_low", band.lo);
		json_ku64(j, "duration_ns_high", band.hi);
	}
	json_kstr(j, "model", report__model_name(r));
	json_ku64(j, "probe_overhead_ns", ovh);
	json_ku64(j, "clamped_events", phases__clamped(r->ph));
	json_ku64(j, "counter_record_ns", r->src.phases.alpha_counters);
	json_ku64(j, "injected_delay_ns", r->src.phases.inject_ns);
	json_measured_costs(r);
	json_preempted(r);
	json_costs(r);
	json_violations(r);
	json_obj_end(j);
}

static void json_calibration(struct report *r)
{
	const struct phases_config *pc = &r->src.phases;
	struct json *j = &r->json;
	int k, e, how;

	json_key(j, "calibration");
	json_arr_begin(j);
	for (k = 0; k < pc->nprobes; k++) {
		/* id 0: the futex records' syscall tracepoints */
		if (!k && !pc->alpha_enter[0] && !pc->alpha_exit[0])
			continue;
		if (k && !pc->probes[k].kind)
			continue; /* an id not in use */
		json_obj_begin(j);
		json_ku64(j, "probe", k);
		json_kstr(j, "symbol", k ? pc->probes[k].symbol : "[futex-tracepoints]");
		/* the file probed: a library, or the probe shim standing in */
		json_kstr(j, "object", k ? pc->probes[k].object : "");
		json_ku64(j, "entry_ns", pc->alpha_enter[k]);
		json_ku64(j, "exit_ns", pc->alpha_exit[k]);
		/* the calibrated entry it is charged, and how it came by it */
		e = alpha_series__entry_of(pc->alpha_series, k, &how);
		if (e >= 0) {
			json_kstr(j, "cost_of", alpha_series__entry(pc->alpha_series, e).name);
			json_kstr(j, "how", alpha_how_name(how));
		}
		json_obj_end(j);
	}
	json_arr_end(j);
}

static void json_regions(struct report *r)
{
	const struct ph_region_stats *reg = phases__regions(r->ph);
	struct json *j = &r->json;
	char where[NAME_MAX_LEN];
	__u32 i;

	json_key(j, "regions");
	json_obj_begin(j);
	json_ku64(j, "count", reg->count);
	json_ku64(j, "total_ns", reg->total_ns);
	json_key(j, "sites");
	json_arr_begin(j);
	for (i = 0; i < reg->nsites; i++) {
		const struct ph_region_site *rs = &reg->sites[i];

		report__site_where(r, rs->pid, rs->site, where, sizeof(where));
		json_obj_begin(j);
		json_ku64(j, "pid", rs->pid);
		json_kstr(j, "call_site", where);
		json_kstr(j, "symbol", report__symbol(r, rs->probe));
		json_ku64(j, "count", rs->count);
		json_ku64(j, "unprobed", rs->unprobed);
		json_ku64(j, "total_ns", rs->total_ns);
		json_ku64(j, "min_ns", rs->min_ns);
		json_ku64(j, "max_ns", rs->max_ns);
		json_obj_end(j);
	}
	json_arr_end(j);
	json_obj_end(j);
}

/* A site's "made_of": what its episodes are found in. */
static const char *site_made_of(const struct report *r, __u16 probe)
{
	if (report__implicit(r, probe))
		return "parallel region";
	return report__made_of(r, probe) ? report__made_of(r, probe) : "barrier function";
}

static void json_site(struct report *r, const struct ph_site *s)
{
	struct json *j = &r->json;
	struct barrier_names bn;
	__u32 k;

	report__name_barrier(r, s->pid, s->call_site, s->object, s->probe, &bn);
	json_obj_begin(j);
	json_ku64(j, "id", s->id);
	json_ku64(j, "pid", s->pid);
	json_kstr(j, "symbol", report__symbol(r, s->probe));
	json_kbool(j, "implicit", report__implicit(r, s->probe));
	json_kstr(j, "made_of", site_made_of(r, s->probe));
	json_kstr(j, "call_site", bn.where);
	json_kstr(j, "name", bn.name);
	json_ku64(j, "object", s->object);
	json_ku64(j, "episodes", s->episodes);
	json_ku64(j, "barrier_ns", s->barrier_sum);
	/* no complete episode: no minimum (not the UINT64_MAX it starts from) */
	json_ku64(j, "barrier_min_ns", s->episodes ? s->barrier_min : 0);
	json_ku64(j, "barrier_max_ns", s->barrier_max);
	json_kdouble(j, "barrier_sd_ns", report__barrier_sd(s));
	json_ku64(j, "phase_ns", s->phase_sum);
	if (report__approx(r)) {
		json_key(j, "approximated");
		json_obj_begin(j);
		json_ku64(j, "barrier_ns", s->barrier_a_sum);
		json_ku64(j, "phase_ns", s->phase_a_sum);
		json_obj_end(j);
	}
	if (r->src.phases.ncounters)
		json_kcounters(j, r, s->ctr);
	report_json__site_eff(r, s);
	json_key(j, "threads");
	json_arr_begin(j);
	for (k = 0; k < s->nidle; k++) {
		json_obj_begin(j);
		json_ku64(j, "tid", s->idle[k].tid);
		json_ku64(j, "episodes", s->idle[k].episodes);
		json_ku64(j, "idle_ns", s->idle[k].idle_ns);
		json_obj_end(j);
	}
	json_arr_end(j);
	json_obj_end(j);
}

/* ts from the run's first event, as duration_ns counts. */
static __u64 from_first(const struct report *r, __u64 ts)
{
	__u64 first = phases__first_ts(r->ph);

	return ts > first ? ts - first : 0;
}

/* The thread's approximated compute and end, bounded (doc/design.md §5.4). */
static void json_thread_band(struct json *j, const struct report *r, const struct ph_thread *t)
{
	struct ph_band compute, end;

	if (!phases__thread_band(r->ph, t->tid, &compute, &end))
		return;
	json_ku64(j, "compute_ns_low", compute.lo);
	json_ku64(j, "compute_ns_high", compute.hi);
	json_ku64(j, "end_ns_low", end.lo);
	json_ku64(j, "end_ns_high", end.hi);
}

static void json_thread(struct report *r, const struct ph_thread *t, const struct sync_waits *waits)
{
	struct json *j = &r->json;

	json_obj_begin(j);
	json_ku64(j, "pid", t->pid);
	json_ku64(j, "tid", t->tid);
	json_kstr(j, "comm", report__comm(r, t->tid));
	json_ku64(j, "episodes", t->episodes);
	json_ku64(j, "compute_ns", t->compute_ns);
	json_ku64(j, "wait_ns", t->wait_ns);
	json_ku64(j, "sync_wait_ns", sync_waits__of(waits, t->tid));
	if (report__approx(r)) {
		/* the thread's latest event, from the run's first: where the
		 * approximation placed it beside where it was measured */
		json_ku64(j, "end_ns", from_first(r, t->tm_prev));
		json_ku64(j, "probe_overhead_ns", t->overhead_total);
		/* sbt-bpf's own use of the thread's CPU, charged too */
		json_ku64(j, "tracer_preempted_ns", t->preempted_total);
		json_key(j, "approximated");
		json_obj_begin(j);
		json_ku64(j, "compute_ns", t->compute_a_ns);
		json_ku64(j, "wait_ns", t->wait_a_ns);
		json_ku64(j, "end_ns", from_first(r, t->ta_prev));
		json_thread_band(j, r, t);
		json_obj_end(j);
	}
	if (r->src.phases.ncounters)
		json_kcounters(j, r, t->ctr_total);
	if (ph_thread_has_tasks(t)) {
		json_key(j, "tasks");
		json_obj_begin(j);
		json_ku64(j, "created", t->tasks_created);
		json_ku64(j, "ran", t->tasks_run);
		json_ku64(j, "waits", t->task_waits);
		json_ku64(j, "wait_ns", t->task_wait_ns);
		json_ku64(j, "run_in_waits_ns", t->task_run_ns);
		json_obj_end(j);
	}
	report_json__thread_eff(r, t, waits);
	json_obj_end(j);
}

static void json_tids(struct json *j, const char *key, const __u32 *tids, int n)
{
	int i;

	json_key(j, key);
	json_arr_begin(j);
	for (i = 0; i < n; i++)
		json_u64(j, tids[i]);
	json_arr_end(j);
}

/* The listed missing threads that had exited: tid and when. */
static void missing_exited(struct report *r, const struct hang_note *h)
{
	struct json *j = &r->json;
	int i;

	json_key(j, "missing_exited");
	json_arr_begin(j);
	for (i = 0; i < h->listed_missing; i++) {
		if (!h->missing_exit[i])
			continue;
		json_obj_begin(j);
		json_ku64(j, "tid", h->missing[i]);
		json_ku64(j, "exit_ns", report__rel(r, h->missing_exit[i]));
		json_obj_end(j);
	}
	json_arr_end(j);
}

static void json_hang(struct report *r, const struct hang_note *h)
{
	struct json *j = &r->json;
	struct barrier_names bn;

	report__name_barrier(r, h->pid, h->call_site, h->object, h->probe, &bn);
	json_obj_begin(j);
	json_ku64(j, "pid", h->pid);
	json_kstr(j, "call_site", bn.where);
	json_kstr(j, "name", bn.name);
	json_ku64(j, "since_ns", report__rel(r, h->since_ns));
	json_key(j, "at_end");
	json_u64(j, h->at_end);
	/* the first PH_HANG_LISTED of each, and how many */
	json_tids(j, "waiting", h->waiting, h->listed_waiting);
	json_ku64(j, "waiting_threads", h->nwaiting);
	json_tids(j, "missing", h->missing, h->listed_missing);
	json_ku64(j, "missing_threads", h->nmissing);
	missing_exited(r, h);
	/* not a hang: threads of the process were stopped (the first few) */
	json_tids(j, "stopped", h->stopped,
		  h->nstopped < PH_STOPPED_KEPT ? h->nstopped : PH_STOPPED_KEPT);
	json_ku64(j, "stopped_threads", h->nstopped);
	json_obj_end(j);
}

static void json_drops(struct report *r, const struct report_drops *d)
{
	struct json *j = &r->json;
	__u64 first[16], affected = phases__lost_phases(r->ph, first, 16);
	int i;

	json_key(j, "drops");
	json_obj_begin(j);
	json_ku64(j, "total", report__drops_total(r, d));
	json_ku64(j, "affected_phases", affected);
	json_ku64(j, "missing_phases", phases__missing_phases(r->ph));
	json_key(j, "first_affected");
	json_arr_begin(j);
	for (i = 0; i < 16 && (__u64)i < affected; i++)
		json_u64(j, first[i]);
	json_arr_end(j);
	json_key(j, "per_cpu");
	json_arr_begin(j);
	for (i = 0; d && i < d->ncpus; i++)
		json_u64(j, d->per_cpu[i]);
	json_arr_end(j);
	json_obj_end(j);
}

/* The run's efficiency, the sites, threads and hangs arrays. */
static void json_lists(struct report *r)
{
	struct sync_report sr = report__sync_view(r);
	struct json *j = &r->json;
	struct sync_waits waits;
	size_t i;

	sync_waits__init(&waits, &sr);
	report_json__run_eff(r, &waits);
	json_key(j, "sites");
	json_arr_begin(j);
	for (i = 0; i < phases__nsites(r->ph); i++)
		json_site(r, phases__site(r->ph, i));
	json_arr_end(j);
	json_key(j, "threads");
	json_arr_begin(j);
	for (i = 0; i < phases__nthreads(r->ph); i++)
		json_thread(r, phases__thread(r->ph, i), &waits);
	sync_waits__free(&waits);
	json_arr_end(j);
	sync_report__json(j, &sr);
	/* the first REPORT_HANGS_KEPT, and how many */
	json_key(j, "hangs");
	json_arr_begin(j);
	for (i = 0; i < r->nhangs; i++)
		json_hang(r, &r->hangs[i]);
	json_arr_end(j);
	json_ku64(j, "hang_count", r->hangs_total);
	report_json__fork_join(r);
	report_json__iterations(r);
	report_json__baseline(r);
	report_json__critical_path(r);
	report_json__whatif(r);
}

static void json_end(struct report *r, const struct report_drops *d)
{
	struct json *j = &r->json;

	json_arr_end(j); /* phases */
	if (r->command_end[0])
		json_kstr(j, "command_end", r->command_end);
	json_ku64(j, "phase_count", phases__completed(r->ph));
	json_ku64(j, "phases_listed", r->json_phases);
	json_ku64(j, "partial_phases", phases__partial(r->ph));
	json_ku64(j, "duration_ns", report__traced_ns(r));
	if (report__approx(r)) {
		json_approximation(r);
		json_calibration(r);
	}
	json_ku64(j, "events", phases__events(r->ph));
	json_ku64(j, "grouping_errors", phases__grouping_errors(r->ph));
	json_ku64(j, "concurrent_forks", phases__concurrent_forks(r->ph));
	json_ku64(j, "out_of_order", phases__out_of_order(r->ph));
	json_regions(r);
	json_lists(r);
	json_drops(r, d);
	json_obj_end(j);
}

const struct report_format_ops report_json_ops = {
	.begin = json_begin,
	.episode = json_phase,
	.end = json_end,
};
