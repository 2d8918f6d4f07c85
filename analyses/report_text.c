// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The report as text (doc/design.md §5.1, §6): SBT-style episode lines, a phase
 * table, watch blocks with the order of arrival, hang reports as they are
 * found, and the summary (loop-barrier sites, threads, efficiencies and wait
 * states, counters, locks, losses).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "analyses/counter_units.h"
#include "analyses/efficiency.h"
#include "analyses/forkjoin.h"
#include "analyses/report_impl.h"

#define PHASE_TABLE_MAX 1000

/* ---- episodes ---------------------------------------------------------------- */

static int watched(struct report *r, const char *where, const char *name, __u16 probe)
{
	int i, hit = r->o.watch_all;

	for (i = 0; i < r->o.nwatch && i < 64; i++)
		if (strstr(where, r->o.watch[i]) || strstr(name, r->o.watch[i]) ||
		    !strcmp(report__symbol(r, probe), r->o.watch[i])) {
			r->watch_matched |= 1ULL << i;
			hit = 1;
		}
	return hit;
}

static int line_allowed(struct report *r, __u64 ts)
{
	if (!r->o.max_lines_per_s)
		return 1;
	if (ts >= r->window_start + 1000000000ULL) {
		r->window_start = ts;
		r->window_lines = 0;
	}
	if (r->window_lines < r->o.max_lines_per_s) {
		r->window_lines++;
		return 1;
	}
	r->suppressed++;
	return 0;
}

/* What the numbers of an episode lack, after its line or row. */
static const char *episode_note(const struct ph_episode *ep)
{
	if (ep->partial)
		return ep->lost ? " [partial, records lost]" : " [partial: began before attach]";
	return ep->lost ? " [records lost]" : "";
}

static void print_episode_line(struct report *r, const struct ph_episode *ep,
			       struct barrier_names *bn)
{
	struct ph_episode_times m;
	__u64 b;
	int warn;

	ph_episode_times(ep, report__single_view(r), &m);
	b = m.barrier_ns;
	warn = r->o.warn_ns && b > r->o.warn_ns;

	if (!warn && !line_allowed(r, ep->last_arrive))
		return;
	report__episode_names(r, ep, bn);
	report__before_output(r);
	fprintf(r->o.out, "%s%s \"%s\" (barrier: %.3f ms", warn ? "SBT WARNING: " : "", bn->where,
		bn->name, ms(b));
	if (warn)
		fprintf(r->o.out, " > %.0f ms", ms(r->o.warn_ns));
	fprintf(r->o.out, ", phase %" PRIu64 ": %.3f ms, from start: %.3f s)%s\n",
		(uint64_t)ep->index, ms(m.phase_ns), sec(report__rel(r, m.last_arrive)),
		episode_note(ep));
}

/* LB: the phase's compute balance (doc/design.md §5.1); PE: its parallel
 * efficiency, of useful compute (§5.5). */
static void print_table_head(struct report *r, int both)
{
	fprintf(r->o.out, "%7s %4s %12s %12s", "phase", "thr", "phase ms", "barrier ms");
	if (both)
		fprintf(r->o.out, " %12s %12s", "~phase ms", "~barrier ms");
	fprintf(r->o.out, " %12s %6s %6s", "imbal ms", "LB", "PE");
	if (both)
		fprintf(r->o.out, " %6s", "~PE");
	fprintf(r->o.out, " %10s  %s\n", "critical", "site");
}

static void print_table_row(struct report *r, const struct ph_episode *ep, struct barrier_names *bn)
{
	struct ph_episode_times m, a;
	int both = report__both_views(r);
	struct eff e, ea;

	if (r->table_rows++ >= PHASE_TABLE_MAX)
		return;
	report__episode_names(r, ep, bn);
	report__before_output(r);
	if (r->table_rows == 1)
		print_table_head(r, both);
	ph_episode_times(ep, report__single_view(r), &m);
	ph_episode_times(ep, PH_APPROXIMATED, &a);
	eff_phase(ep, report__single_view(r), &e);
	fprintf(r->o.out, "%7" PRIu64 " %4u %12.3f %12.3f", (uint64_t)ep->index, ep->n,
		ms(m.phase_ns), ms(m.barrier_ns));
	if (both)
		fprintf(r->o.out, " %12.3f %12.3f", ms(a.phase_ns), ms(a.barrier_ns));
	fprintf(r->o.out, " %12.3f %6.2f %6.2f", ms(m.imbalance_ns), m.lb, e.parallel_efficiency);
	if (both) {
		eff_phase(ep, PH_APPROXIMATED, &ea);
		fprintf(r->o.out, " %6.2f", ea.parallel_efficiency);
	}
	fprintf(r->o.out, " %10u  %s \"%s\"%s\n", m.critical_tid, bn->where, bn->name,
		episode_note(ep));
}

/* The time of day of monotonic time ts. A trace file's times and offset may
 * be anything (a crafted file): a sum that does not fit, or falls before
 * 1970, is shown as "?" rather than overflowed into a made-up time. */
static void wall_clock(const struct report *r, __u64 ts, char *buf, size_t n)
{
	__s64 real;
	time_t secs;
	struct tm tm;

	/* exact: the builtin adds in infinite precision, then checks the fit */
	if (__builtin_add_overflow(ts, r->src.realtime_offset_ns, &real) || real < 0) {
		snprintf(buf, n, "?");
		return;
	}
	secs = real / 1000000000LL;
	if (!localtime_r(&secs, &tm)) {
		snprintf(buf, n, "?");
		return;
	}
	strftime(buf, n, "%H:%M:%S", &tm);
	snprintf(buf + strlen(buf), n - strlen(buf), ".%06lld",
		 (long long)(real % 1000000000LL) / 1000);
}

/* Arrival order in a view (the context: enum ph_view). */
static int by_arrival(const void *a, const void *b, void *view)
{
	__u64 x = ph_times(a, *(int *)view).arrive, y = ph_times(b, *(int *)view).arrive;

	return x < y ? -1 : x > y;
}

/* A counter's column heading, with its unit, right-aligned in width. */
static void print_counter_head(struct report *r, const struct sbt_counter_info *c, int width,
			       const char *mark)
{
	char head[SBT_COUNTER_NAME_MAX + 8];

	snprintf(head, sizeof(head), "%s%s%s", c->name, counter_text_unit(c), mark);
	fprintf(r->o.out, " %*s", width, head);
}

/* A counter's value in a column of width (a unit's fraction for times). */
static void print_counter_value(struct report *r, const struct sbt_counter_info *c, __u64 v,
				int width)
{
	if (counter_is_time(c))
		fprintf(r->o.out, " %*.3f", width, counter_text_value(c, v));
	else
		fprintf(r->o.out, " %*" PRIu64, width, (uint64_t)v);
}

static void print_watch_head(struct report *r, const struct ph_episode *ep, const char *where,
			     const char *name, int view)
{
	struct ph_episode_times m;
	struct eff e;
	int k;

	ph_episode_times(ep, view, &m);
	eff_phase(ep, view, &e);
	fprintf(r->o.out, "SBT barrier watch at %s \"%s\", phase %" PRIu64 "%s%s\n", where, name,
		(uint64_t)ep->index, view == PH_APPROXIMATED ? " (approximated)" : "",
		episode_note(ep));
	fprintf(r->o.out, "    Barrier time:  %.3f ms\n", ms(m.barrier_ns));
	fprintf(r->o.out, "    Phase time:    %.3f ms\n", ms(m.phase_ns));
	fprintf(r->o.out, "    Total time:    %.3f s\n", sec(report__rel(r, m.last_arrive)));
	fprintf(r->o.out, "    Imbalance:     %.3f ms lost (LB %.2f), critical thread %u\n",
		ms(m.imbalance_ns), m.lb, m.critical_tid);
	fprintf(r->o.out,
		"    Efficiency:    load balance %.3f, synchronization %.3f, parallel %.3f (of "
		"useful compute)\n",
		e.load_balance, e.sync_efficiency, e.parallel_efficiency);
	fprintf(r->o.out, "    Order of arrival:\n");
	fprintf(r->o.out, "    %10s %12s %12s %12s %12s %12s %12s  %-15s", "thread", "inter ms",
		"from start", "compute ms", "wait ms", "blocked ms", "lock/sem ms", "real time");
	for (k = 0; k < r->src.phases.ncounters; k++)
		print_counter_head(r, &r->src.counters[k], 16, "");
	fputc('\n', r->o.out);
}

/* Arrival a, after prev in the order of arrival. */
static void print_watch_row(struct report *r, const struct ph_arrival *a,
			    const struct ph_arrival *prev, int view)
{
	struct ph_times t = ph_times(a, view), p = ph_times(prev, view);
	char clock[32];
	int k;

	wall_clock(r, t.arrive, clock, sizeof(clock));
	fprintf(r->o.out, "    %10u %12.3f %11.6fs %12.3f %12.3f %12.3f %12.3f  %-15s", a->tid,
		ms(t.arrive - p.arrive), sec(report__rel(r, t.arrive)), ms(t.arrive - t.start),
		ms(t.depart ? t.depart - t.arrive : 0), ms(a->blocked_ns), ms(a->sync_wait_ns),
		clock);
	for (k = 0; k < r->src.phases.ncounters; k++) {
		if (a->ctr_valid) {
			print_counter_value(r, &r->src.counters[k], a->ctr[k], 15);
			fputs(a->ctr_scaled ? "~" : " ", r->o.out);
		} else
			fprintf(r->o.out, " %16s", "-");
	}
	fputc('\n', r->o.out);
}

static void print_watch_block(struct report *r, const struct ph_episode *ep, const char *where,
			      const char *name)
{
	struct ph_arrival *order = malloc(ep->n * sizeof(*order));
	int view = report__single_view(r);
	__u32 i;

	if (!order)
		return;
	report__before_output(r);
	memcpy(order, ep->arr, ep->n * sizeof(*order));
	qsort_r(order, ep->n, sizeof(*order), by_arrival, &view);
	print_watch_head(r, ep, where, name, view);
	for (i = 0; i < ep->n; i++)
		print_watch_row(r, &order[i], &order[i ? i - 1 : 0], view);
	free(order);
}

static void text_episode(struct report *r, const struct ph_episode *ep)
{
	struct barrier_names bn = {.named = 0};

	if (r->o.episode_lines)
		print_episode_line(r, ep, &bn);
	if (r->o.phase_table)
		print_table_row(r, ep, &bn);
	if (!r->o.nwatch && !r->o.watch_all)
		return;
	report__episode_names(r, ep, &bn);
	if (watched(r, bn.where, bn.name, ep->probe))
		print_watch_block(r, ep, bn.where, bn.name);
}

/* " tid (comm)" of each thread listed, and how many more there were. */
static void print_tids(struct report *r, const __u32 *tids, int listed, __u64 n)
{
	int i;

	for (i = 0; i < listed; i++)
		fprintf(r->o.out, " %u (%s)", tids[i], report__comm(r, tids[i]));
	if (n > (__u64)listed)
		fprintf(r->o.out, " and %" PRIu64 " more", (uint64_t)(n - listed));
}

/* The missing threads, those that exited with the time they did. */
static void print_missing(struct report *r, const struct hang_note *h)
{
	int i;

	for (i = 0; i < h->listed_missing; i++) {
		fprintf(r->o.out, " %u (%s", h->missing[i], report__comm(r, h->missing[i]));
		if (h->missing_exit[i])
			fprintf(r->o.out, ", exited at %.3f s",
				sec(report__rel(r, h->missing_exit[i])));
		fputc(')', r->o.out);
	}
	if (h->nmissing > (__u32)h->listed_missing)
		fprintf(r->o.out, " and %" PRIu64 " more",
			(uint64_t)(h->nmissing - h->listed_missing));
}

static const char *hang_heading(const struct hang_note *h)
{
	if (h->nstopped)
		return h->at_end ? "STOPPED at end of trace" : "STOPPED";
	return h->at_end ? "UNRELEASED BARRIER at end of trace" : "HANG";
}

/* Not hung: threads of the process are stopped (the first few named). */
static void print_stopped(struct report *r, const struct hang_note *h)
{
	int listed = h->nstopped < PH_STOPPED_KEPT ? h->nstopped : PH_STOPPED_KEPT;

	fprintf(r->o.out, "    stopped:");
	print_tids(r, h->stopped, listed, h->nstopped);
	fprintf(r->o.out, " (SIGSTOP or a debugger: the barrier waits for them, it is not hung)\n");
}

static void text_hang(struct report *r, const struct hang_note *h)
{
	struct barrier_names bn;

	report__name_barrier(r, h->pid, h->call_site, h->object, h->probe, &bn);
	fprintf(r->o.out,
		"SBT %s: %s \"%s\" (pid %u): %u thread%s waiting since %.3f s, %u missing",
		hang_heading(h), bn.where, bn.name, h->pid, h->nwaiting,
		h->nwaiting == 1 ? "" : "s", sec(report__rel(r, h->since_ns)), h->nmissing);
	if (h->nstopped)
		fprintf(r->o.out, ", %d stopped", h->nstopped);
	fprintf(r->o.out, "\n    waiting:");
	print_tids(r, h->waiting, h->listed_waiting, h->nwaiting);
	fprintf(r->o.out, "\n    missing:");
	print_missing(r, h);
	fprintf(r->o.out, "%s\n", h->nmissing ? "" : " (none known)");
	if (h->nstopped)
		print_stopped(r, h);
	fflush(r->o.out);
}

/* ---- summary ------------------------------------------------------------------- */

/* Sites of one --probe barrier in one process: how many, how many had one
 * thread, and whether the note was said. */
struct lone_sites {
	size_t n, lone;
	int said;
};

static int user_barrier(const struct sbt_probe_info *pi)
{
	return pi && pi->kind == SBT_PK_BARRIER && strcmp(pi->symbol, "pthread_barrier_wait");
}

/* A --probe barrier whose every site had one thread, several threads
 * calling it: its first argument differs per thread (a sense-reversing
 * barrier handed the thread's own flag), so it names no barrier they share:
 * said once per probe, with the way out (:team). One pass counts, one
 * says, in site order. */
static void text_lone_barriers(struct report *r)
{
	struct hmap by_probe; /* (pid, probe) -> struct lone_sites */
	struct lone_sites *l;
	size_t i;

	hmap_init(&by_probe);
	for (i = 0; i < phases__nsites(r->ph); i++) {
		const struct ph_site *s = phases__site(r->ph, i);

		if (!user_barrier(report__probe(r, s->probe)))
			continue;
		l = hmap_get(&by_probe, s->pid, s->probe);
		if (!l && !(l = hmap_put_new(&by_probe, s->pid, s->probe, sizeof(*l))))
			break; /* no memory: no note */
		l->n++;
		l->lone += s->nidle == 1;
	}
	for (i = 0; i < phases__nsites(r->ph); i++) {
		const struct ph_site *s = phases__site(r->ph, i);
		const char *sym = report__symbol(r, s->probe);

		l = hmap_get(&by_probe, s->pid, s->probe);
		if (!l || l->said || l->n < 2 || l->lone < l->n)
			continue;
		l->said = 1;
		fprintf(r->o.out,
			"    note: %s (pid %u): every one of its %zu objects had one thread: its "
			"first "
			"argument differs per thread (no barrier they share); a barrier of the "
			"calling "
			"threads' team: --probe FILE:%s:team\n",
			sym, s->pid, l->n, sym);
	}
	hmap_free_values(&by_probe);
}

static void text_site(struct report *r, const struct ph_site *s)
{
	/* a parallel region's implicit barrier: one episode per instance */
	int implicit = report__implicit(r, s->probe);
	const char *made_of = report__made_of(r, s->probe);
	struct barrier_names bn;
	__u32 k;

	report__name_barrier(r, s->pid, s->call_site, s->object, s->probe, &bn);
	fprintf(r->o.out, "%s barrier %s \"%s\"%s%s%s (pid %u): %" PRIu64 " %s\n",
		implicit ? "Region" : "Loop", bn.where, bn.name, made_of ? " (" : "",
		made_of ? made_of : "", made_of ? ")" : "", s->pid, (uint64_t)s->episodes,
		implicit ? "regions" : "episodes");
	/* only incomplete episodes there (the first one a thread was missing from,
	 * records lost): no times to give */
	if (!s->episodes)
		return;
	fprintf(r->o.out,
		"    barrier time: total %.3f ms, min %.3f, mean %.3f, max %.3f, sd %.3f ms\n",
		ms(s->barrier_sum), ms(s->barrier_min), ms(s->barrier_sum / s->episodes),
		ms(s->barrier_max), report__barrier_sd(s) / 1e6);
	fprintf(r->o.out, "    phase time:   total %.3f ms, min %.3f, mean %.3f, max %.3f ms\n",
		ms(s->phase_sum), ms(s->phase_min), ms(s->phase_sum / s->episodes),
		ms(s->phase_max));
	if (report__shows(r, PH_APPROXIMATED))
		fprintf(r->o.out,
			"    approximated: barrier total %.3f ms, mean %.3f; phase total %.3f ms, "
			"mean %.3f ms\n",
			ms(s->barrier_a_sum), ms(s->barrier_a_sum / s->episodes),
			ms(s->phase_a_sum), ms(s->phase_a_sum / s->episodes));
	fprintf(r->o.out, "    %10s %10s %14s\n", "thread", "episodes", "idle ms");
	for (k = 0; k < s->nidle; k++)
		fprintf(r->o.out, "    %10u %10" PRIu64 " %14.3f\n", s->idle[k].tid,
			(uint64_t)s->idle[k].episodes, ms(s->idle[k].idle_ns));
}

static void text_threads(struct report *r)
{
	struct sync_report sr = report__sync_view(r);
	int only_a = report__single_view(r) == PH_APPROXIMATED, both = report__both_views(r);
	size_t i, n = phases__nthreads(r->ph);
	struct ph_band run, compute, end;
	int banded = phases__band(r->ph, &run);
	struct sync_waits waits;

	fprintf(r->o.out, "Threads%s:\n    %10s %10s %-16s %10s %14s %14s %14s",
		only_a ? " (approximated)" : "", "pid", "tid", "comm", "episodes", "compute ms",
		"barrier ms", "lock/sem ms");
	if (both)
		fprintf(r->o.out, " %14s %14s", "~compute ms", "~barrier ms");
	if (report__approx(r))
		fprintf(r->o.out, " %14s", "probe cost ms");
	if (banded)
		fprintf(r->o.out, " %14s", "~compute ± ms");
	fputc('\n', r->o.out);
	sync_waits__init(&waits, &sr);
	for (i = 0; i < n; i++) {
		const struct ph_thread *t = phases__thread(r->ph, i);

		fprintf(r->o.out, "    %10u %10u %-16s %10" PRIu64 " %14.3f %14.3f %14.3f", t->pid,
			t->tid, report__comm(r, t->tid), (uint64_t)t->episodes,
			ms(only_a ? t->compute_a_ns : t->compute_ns),
			ms(only_a ? t->wait_a_ns : t->wait_ns), ms(sync_waits__of(&waits, t->tid)));
		if (both)
			fprintf(r->o.out, " %14.3f %14.3f", ms(t->compute_a_ns), ms(t->wait_a_ns));
		if (report__approx(r))
			fprintf(r->o.out, " %14.3f", ms(t->overhead_total));
		if (banded && phases__thread_band(r->ph, t->tid, &compute, &end))
			fprintf(r->o.out, " %14.3f",
				ms(report__half_width(t->compute_a_ns, &compute)));
		fputc('\n', r->o.out);
	}
	sync_waits__free(&waits);
	/* the columns count barrier phases: a fork-join program's are zeros */
	if (!phases__completed(r->ph) && report__shows_fork_join(r))
		fprintf(r->o.out, "    (no barrier phase: the threads' lives are in the fork-join "
				  "steps below)\n");
}

static void text_counters(struct report *r)
{
	const struct sbt_counter_info *c = r->src.counters;
	size_t i, n = phases__nthreads(r->ph);
	int k;

	if (!r->src.phases.ncounters)
		return;
	fprintf(r->o.out, "Counters per thread (sum of its phase windows):\n    %10s", "tid");
	for (k = 0; k < r->src.phases.ncounters; k++)
		print_counter_head(r, &c[k], 19, c[k].flags & SBT_CTRF_FALLBACK ? "*" : " ");
	fputc('\n', r->o.out);
	for (i = 0; i < n; i++) {
		const struct ph_thread *t = phases__thread(r->ph, i);

		if (!t->episodes)
			continue;
		fprintf(r->o.out, "    %10u", t->tid);
		for (k = 0; k < r->src.phases.ncounters; k++) {
			print_counter_value(r, &c[k], t->ctr_total[k], 18);
			fputc(' ', r->o.out);
		}
		fputc('\n', r->o.out);
	}
	for (k = 0; k < r->src.phases.ncounters; k++)
		if (c[k].flags & SBT_CTRF_FALLBACK) {
			fprintf(r->o.out, "    * counted instead of unavailable hardware events\n");
			break;
		}
}

static void text_drops(struct report *r, const struct report_drops *d)
{
	__u64 first[8], total = report__drops_total(r, d), affected, missing;
	int i;

	if (!total) {
		fprintf(r->o.out, "No records lost.\n");
		return;
	}
	affected = phases__lost_phases(r->ph, first, 8);
	fprintf(r->o.out, "WARNING: %" PRIu64 " records lost (ring buffer full)", (uint64_t)total);
	if (affected) {
		fprintf(r->o.out, "; %" PRIu64 " phases affected:", (uint64_t)affected);
		for (i = 0; i < 8 && (__u64)i < affected; i++)
			fprintf(r->o.out, " %" PRIu64, (uint64_t)first[i]);
		if (affected > 8)
			fprintf(r->o.out, " ...");
	}
	missing = phases__missing_phases(r->ph);
	if (missing)
		fprintf(r->o.out, "; about %" PRIu64 " phases left no record", (uint64_t)missing);
	fprintf(r->o.out, "; raise --buffer-size\n");
}

static void text_regions(struct report *r, const struct ph_region_stats *reg)
{
	char where[NAME_MAX_LEN];
	__u32 i;

	fprintf(r->o.out, "Parallel regions: %" PRIu64 ", %.3f ms in total\n", (uint64_t)reg->count,
		ms(reg->total_ns));
	for (i = 0; i < reg->nsites; i++) {
		const struct ph_region_site *rs = &reg->sites[i];

		report__site_where(r, rs->pid, rs->site, where, sizeof(where));
		fprintf(r->o.out, "    %s \"%s\": %" PRIu64 " regions", where,
			report__symbol(r, rs->probe), (uint64_t)rs->count);
		if (rs->unprobed)
			fprintf(r->o.out, " (%" PRIu64 " before its body was probed)",
				(uint64_t)rs->unprobed);
		fprintf(r->o.out, ", total %.3f ms, min %.3f, mean %.3f, max %.3f ms\n",
			ms(rs->total_ns), ms(rs->min_ns), ms(rs->total_ns / rs->count),
			ms(rs->max_ns));
	}
}

/* Probe hits at self-timed sites: the cost charged was measured. */
static void text_measured_costs(struct report *r)
{
	const struct ph_timed *t = phases__timed(r->ph);

	if (!t->hits && !t->refused)
		return;
	if (!t->hits) { /* nothing measured to show */
		fprintf(r->o.out,
			"    %" PRIu64 " probe hits timed by the shim, all preempted: charged as "
			"calibrated\n",
			(uint64_t)t->refused);
		return;
	}
	fprintf(r->o.out,
		"    %" PRIu64 " probe hits timed by the shim: mean %.0f ns measured (calibration: "
		"%.0f ns)",
		(uint64_t)t->hits, (double)t->measured_ns / (double)t->hits,
		(double)t->calibrated_ns / (double)t->hits);
	if (t->refused)
		fprintf(r->o.out, "; %" PRIu64 " preempted, charged as calibrated",
			(uint64_t)t->refused);
	fputc('\n', r->o.out);
}

/* Where sbt-bpf itself took a traced thread's CPU: charged as perturbation. */
static void text_preempted(struct report *r)
{
	const struct ph_preempted *p = phases__preempted(r->ph);

	if (p->count)
		fprintf(r->o.out,
			"    sbt-bpf's own CPU: %" PRIu64 " time%s it took a traced thread's CPU, "
			"%.3f ms charged\n",
			(uint64_t)p->count, p->count == 1 ? "" : "s", ms(p->ns));
}

/* Seconds from the session start, before it too (a calibration at the start
 * was taken before it). */
static double rel_s(const struct report *r, __u64 ts)
{
	return (double)(__s64)(ts - r->src.phases.start_ns) / 1e9;
}

/* "a..b", or "a" when they are the same. */
static const char *range(char *buf, size_t n, __u64 a, __u64 b)
{
	if (a == b)
		snprintf(buf, n, "%" PRIu64, (uint64_t)a);
	else
		snprintf(buf, n, "%" PRIu64 "..%" PRIu64, (uint64_t)a, (uint64_t)b);
	return buf;
}

/* How much dearer a hit got with every CPU hitting (the band's widening). */
static void text_all_cpus(struct report *r)
{
	double least, greatest;

	if (alpha_series__find(r->src.phases.alpha_series, ALPHA_SYM_ALL_CPUS) < 0)
		return;
	alpha_series__all_cpus(r->src.phases.alpha_series, &least, &greatest);
	fprintf(r->o.out, "        with every CPU hitting probes at once: x%.2f..%.2f\n", least,
		greatest);
}

/* Probe id is a function an earlier probe is of too (a versioned duplicate:
 * pthread_cond_wait@GLIBC_2.2.5 and @@GLIBC_2.3.2), said once. */
static int same_function_before(const struct report *r, int id)
{
	const struct sbt_probe_info *p = &r->src.phases.probes[id];
	int k;

	for (k = 1; k < id; k++)
		if (!strcmp(r->src.phases.probes[k].symbol, p->symbol) &&
		    !strcmp(r->src.phases.probes[k].object, p->object))
			return 1;
	return 0;
}

/* Where the probe costs came from (doc/design.md §5.4), the costs charged
 * (their range over the session's calibrations), and the probes whose cost
 * was borrowed. */
static void text_costs(struct report *r)
{
	const struct alpha_series *s = r->src.phases.alpha_series;
	const char *src = report__costs_source(r);
	size_t e, n = alpha_series__count(s), borrowed = 0;
	char a[48], b[48];
	int id, how;

	if (!strcmp(src, ALPHA_SOURCE_FIXED)) {
		fprintf(r->o.out, "    Probe costs: fixed (--alpha)\n");
		return;
	}
	fprintf(r->o.out, "    Probe costs (entry + return ns): ");
	if (!strcmp(src, ALPHA_SOURCE_SESSION) && n == 1)
		fprintf(r->o.out, "measured by the session at %.3f s\n",
			rel_s(r, alpha_series__ts(s, 0)));
	else if (!strcmp(src, ALPHA_SOURCE_SESSION) && n)
		fprintf(r->o.out, "measured by the session %zu times, %s %.3f %s %.3f s\n", n,
			n > 2 ? "from" : "at", rel_s(r, alpha_series__ts(s, 0)),
			n > 2 ? "to" : "and", rel_s(r, alpha_series__ts(s, n - 1)));
	else if (!strcmp(src, ALPHA_SOURCE_CACHE))
		fprintf(r->o.out, "from the calibration cache (--no-calibrate)\n");
	else if (!strcmp(src, ALPHA_SOURCE_MEASURED))
		fprintf(r->o.out, "measured and cached (--no-calibrate, no valid cache)\n");
	else if (!strcmp(src, ALPHA_SOURCE_NONE))
		fprintf(r->o.out, "none, the calibration failed (nothing removed)\n");
	else
		fprintf(r->o.out, "as recorded (the trace does not say how they were obtained)\n");
	for (e = 0; e < alpha_series__nentries(s); e++) {
		struct alpha_entry_info in = alpha_series__entry(s, e);

		if (!in.measured || !report__cost_entry_used(r, e))
			continue;
		fprintf(r->o.out, "        %-24s %s + %s\n", in.name,
			range(a, sizeof(a), in.min.entry_ns, in.max.entry_ns),
			range(b, sizeof(b), in.min.exit_ns, in.max.exit_ns));
	}
	text_all_cpus(r);
	for (id = 1; id < r->src.phases.nprobes; id++) {
		const char *from = report__borrowed(r, id, &how);
		const struct sbt_probe_info *p = &r->src.phases.probes[id];
		const char *obj;

		if (!from || same_function_before(r, id) || borrowed++ >= REPORT_BORROWED_KEPT)
			continue;
		obj = strrchr(p->object, '/');
		fprintf(r->o.out, "        %s (%s): %s's cost, %s\n", p->symbol,
			obj ? obj + 1 : p->object, from,
			how == ALPHA_BY_CLASS ? "its probed instruction is of the same class"
					      : "no function of its probed instruction's class "
						"was calibrated");
	}
	if (borrowed > REPORT_BORROWED_KEPT)
		fprintf(r->o.out, "        and %zu more probes with a borrowed cost\n",
			borrowed - REPORT_BORROWED_KEPT);
}

static void text_approximation(struct report *r)
{
	__u64 traced = report__traced_ns(r), traced_a = report__traced_a_ns(r);
	const struct ph_violation *v;
	size_t i, n = phases__violation_list(&v, r->ph);

	/* a band of microseconds is not lost in rounding under 10 s */
	int prec = traced_a < 10 * 1000000000ULL ? 6 : 3;
	struct ph_band band;
	char pm[64] = "";

	if (phases__band(r->ph, &band))
		snprintf(pm, sizeof(pm), " ± %.*f", prec, sec(report__half_width(traced_a, &band)));
	fprintf(r->o.out,
		"Approximated (probe cost removed, model %s): %.*f%s s, %.1f %% of the measured "
		"time was probe overhead\n",
		report__model_name(r), pm[0] ? prec : 3, sec(traced_a), pm,
		traced ? 100.0 * ((double)traced - (double)traced_a) / (double)traced : 0.0);
	if (pm[0])
		fprintf(r->o.out,
			"    between %.*f and %.*f s: the greatest probe costs measured with every "
			"hand-off as fast as its object's fastest, and the least costs\n",
			prec, sec(band.lo), prec, sec(band.hi));
	if (r->src.phases.inject_ns)
		fprintf(r->o.out,
			"    each probe hit spun %" PRIu64 " ns more (--inject-delay), charged\n",
			(uint64_t)r->src.phases.inject_ns);
	text_measured_costs(r);
	text_preempted(r);
	text_costs(r);
	if (!phases__violations(r->ph, -1))
		return;
	fprintf(r->o.out, "Approximation repairs: %" PRIu64 "\n",
		(uint64_t)phases__violations(r->ph, -1));
	for (i = 0; i < n; i++)
		fprintf(r->o.out,
			"    %-18s pid %u tid %u object 0x%" PRIx64 " at %.6f s: moved %.3f us\n",
			ph_violation_name(v[i].kind), v[i].pid, v[i].tid, (uint64_t)v[i].object,
			sec(report__rel(r, v[i].ts)), v[i].shift / 1e3);
}

/* Threads that ran the whole time without a barrier phase, nor fork-join
 * steps between them (one step at most per creating thread): their
 * barrier, if any, is one sbt-bpf does not know (a spin loop on a
 * counter, a library's own). */
static void text_no_barrier_hint(struct report *r)
{
	const struct forkjoin *f = phases__forkjoin(r->ph);
	size_t i;

	if (phases__completed(r->ph) || phases__nthreads(r->ph) < 2)
		return;
	for (i = 0; i < forkjoin__ncreators(f); i++)
		if (forkjoin__creator(f, i)->steps > 1)
			return;
	fprintf(r->o.out, "(no barrier phase: a barrier the program makes itself, other than "
			  "pthread_barrier_wait, a mutex and a condvar or semaphores, is declared "
			  "with --probe BINARY:SYMBOL:barrier)\n");
}

/* Counts and notes before the sections. */
static void text_headline(struct report *r)
{
	if (r->table_rows > PHASE_TABLE_MAX)
		fprintf(r->o.out,
			"(%" PRIu64
			" more phases not shown; --format json --phases all lists every "
			"one)\n",
			(uint64_t)(r->table_rows - PHASE_TABLE_MAX));
	fprintf(r->o.out, "\nSBT summary: %" PRIu64 " phases", (uint64_t)phases__completed(r->ph));
	if (phases__partial(r->ph))
		fprintf(r->o.out,
			" (%" PRIu64 " partial: began before attach, not in the statistics)",
			(uint64_t)phases__partial(r->ph));
	fprintf(r->o.out, ", %zu barrier site(s), %zu threads, %" PRIu64 " events in %.3f s\n",
		phases__nsites(r->ph), phases__nthreads(r->ph), (uint64_t)phases__events(r->ph),
		sec(report__traced_ns(r)));
	if (r->command_end[0])
		fprintf(r->o.out, "Command: %s\n", r->command_end);
	text_no_barrier_hint(r);
	if (report__approx(r) && report__traced_ns(r))
		text_approximation(r);
	if (r->suppressed)
		fprintf(r->o.out,
			"(%" PRIu64 " episode lines not shown: more than %" PRIu64
			" per second; the summary counts them)\n",
			(uint64_t)r->suppressed, (uint64_t)r->o.max_lines_per_s);
}

/* OpenMP tasks per thread, when any were created or waited for. */
static void text_tasks(struct report *r)
{
	size_t i, n = phases__nthreads(r->ph);
	int any = 0;

	for (i = 0; i < n && !any; i++)
		any = ph_thread_has_tasks(phases__thread(r->ph, i));
	if (!any)
		return;
	fprintf(r->o.out, "Tasks:\n    %10s %10s %10s %10s %14s %16s\n", "tid", "created", "ran",
		"waits", "wait ms", "ran in waits ms");
	for (i = 0; i < n; i++) {
		const struct ph_thread *t = phases__thread(r->ph, i);

		if (ph_thread_has_tasks(t))
			fprintf(r->o.out,
				"    %10u %10" PRIu64 " %10" PRIu64 " %10" PRIu64
				" %14.3f %16.3f\n",
				t->tid, (uint64_t)t->tasks_created, (uint64_t)t->tasks_run,
				(uint64_t)t->task_waits, ms(t->task_wait_ns), ms(t->task_run_ns));
	}
}

static void text_end(struct report *r, const struct report_drops *d)
{
	const struct ph_region_stats *reg = phases__regions(r->ph);
	struct sync_report sr = report__sync_view(r);
	size_t i;

	text_headline(r);
	if (reg->count)
		text_regions(r, reg);
	for (i = 0; i < phases__nsites(r->ph); i++)
		text_site(r, phases__site(r->ph, i));
	text_lone_barriers(r);
	text_threads(r);
	report_text__efficiency(r);
	report_text__fork_join(r);
	report_text__iterations(r);
	report_text__baseline(r);
	report_text__critical_path(r);
	report_text__whatif(r);
	text_tasks(r);
	text_counters(r);
	sync_report__text(r->o.out, &sr);
	if (phases__grouping_errors(r->ph))
		fprintf(r->o.out,
			"WARNING: %" PRIu64 " pthread_barrier_wait episodes without exactly one "
			"serial thread: episodes may be mis-grouped\n",
			(uint64_t)phases__grouping_errors(r->ph));
	if (phases__concurrent_forks(r->ph))
		fprintf(r->o.out,
			"WARNING: %" PRIu64 " workers' shares of a parallel region began while "
			"two teams ran it (regions started by several threads at once, or nested "
			"active levels): their implicit barriers may mix the teams' threads\n",
			(uint64_t)phases__concurrent_forks(r->ph));
	if (phases__out_of_order(r->ph))
		fprintf(r->o.out,
			"WARNING: %" PRIu64 " records came after later ones: times around them "
			"may be off\n",
			(uint64_t)phases__out_of_order(r->ph));
	text_drops(r, d);
}

const struct report_format_ops report_text_ops = {
	.episode = text_episode,
	.hang = text_hang,
	.end = text_end,
};
