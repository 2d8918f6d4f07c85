// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "lib/json.h"
#include "analyses/report.h"
#include "analyses/sync_report.h"

#define NAME_MAX_LEN	256
#define PHASE_TABLE_MAX 1000

struct hang_note {
	__u32 pid;
	__u64 object;
	__u16 probe;
	__u64 call_site;
	__u64 since_ns;
	int at_end;
	__u32 *waiting, *missing;
	int nwaiting, nmissing;
};

struct report {
	struct report_opts o;
	struct report_src src;
	const struct phases *ph;
	struct json json;
	struct hang_note *hangs;
	int nhangs;
	int at_end;
	/* episode-line rate limit, per second of trace time */
	__u64 window_start, window_lines, suppressed;
	__u64 table_rows;
};

struct report *report__new(const struct report_opts *o, const struct report_src *src)
{
	struct report *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->o = *o;
	r->src = *src;
	if (!r->o.out)
		r->o.out = stdout;
	json_init(&r->json, r->o.out, 1);
	return r;
}

void report__free(struct report *r)
{
	int i;

	if (!r)
		return;
	for (i = 0; i < r->nhangs; i++) {
		free(r->hangs[i].waiting);
		free(r->hangs[i].missing);
	}
	free(r->hangs);
	free(r);
}

void report__attach(struct report *r, const struct phases *p)
{
	r->ph = p;
}

void report__at_end(struct report *r)
{
	r->at_end = 1;
}

static void before_output(struct report *r)
{
	if (r->o.before_output)
		r->o.before_output(r->o.hook_ctx);
}

/* ---- names and times ----------------------------------------------------- */

void report__site_where(const struct report *r, __u32 pid, __u64 call_site, char *buf, size_t n)
{
	names__site(r->src.names, pid, call_site, buf, n);
}

static const char *probe_symbol(const struct report *r, __u16 probe)
{
	return probe < r->src.phases.nprobes ? r->src.phases.probes[probe].symbol : "?";
}

void report__barrier_name(const struct report *r, __u32 pid, __u64 object, __u16 probe, char *buf,
			  size_t n)
{
	names__object(r->src.names, pid, object, probe_symbol(r, probe), buf, n);
}

static const char *comm_of(const struct report *r, __u32 tid)
{
	const char *c = r->src.names ? names__comm(r->src.names, tid) : NULL;

	return c ? c : "?";
}

static double ms(__u64 ns)
{
	return ns / 1e6;
}

static double sec(__u64 ns)
{
	return ns / 1e9;
}

static __u64 rel(const struct report *r, __u64 ts)
{
	return ts > r->src.phases.start_ns ? ts - r->src.phases.start_ns : 0;
}

static void wall_clock(const struct report *r, __u64 ts, char *buf, size_t n)
{
	__s64 real = (__s64)ts + r->src.realtime_offset_ns;
	time_t secs = real / 1000000000LL;
	struct tm tm;

	if (!localtime_r(&secs, &tm)) {
		snprintf(buf, n, "?");
		return;
	}
	strftime(buf, n, "%H:%M:%S", &tm);
	snprintf(buf + strlen(buf), n - strlen(buf), ".%06lld",
		 (long long)(real % 1000000000LL) / 1000);
}

/* ---- episodes (text) ------------------------------------------------------ */

static int watched(const struct report *r, const char *where, const char *name, __u16 probe)
{
	int i;

	if (r->o.watch_all)
		return 1;
	for (i = 0; i < r->o.nwatch; i++)
		if (strstr(where, r->o.watch[i]) || strstr(name, r->o.watch[i]) ||
		    !strcmp(probe_symbol(r, probe), r->o.watch[i]))
			return 1;
	return 0;
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

/* The probe costs are known: approximated values are reported. */
static int approx(const struct report *r)
{
	return r->src.phases.alpha_enter && r->src.phases.alpha_exit;
}

/* The view of outputs that show one: the approximated one only on request. */
static int single_view(const struct report *r)
{
	return approx(r) && r->o.view == REPORT_APPROXIMATED_ONLY ? PH_APPROXIMATED : PH_MEASURED;
}

/* Both views side by side. */
static int both_views(const struct report *r)
{
	return approx(r) && r->o.view == REPORT_BOTH;
}

static void print_episode_line(struct report *r, const struct ph_episode *ep, const char *where,
			       const char *name)
{
	struct ph_episode_times m;
	__u64 b;
	int warn;

	ph_episode_times(ep, single_view(r), &m);
	b = m.barrier_ns;
	warn = r->o.warn_ns && b > r->o.warn_ns;

	if (!warn && !line_allowed(r, ep->last_arrive))
		return;
	before_output(r);
	fprintf(r->o.out, "%s%s \"%s\" (barrier: %.3f ms", warn ? "SBT WARNING: " : "", where, name,
		ms(b));
	if (warn)
		fprintf(r->o.out, " > %.0f ms", ms(r->o.warn_ns));
	fprintf(r->o.out, ", phase %" PRIu64 ": %.3f s, from start: %.3f s)%s\n",
		(uint64_t)ep->index, sec(m.phase_ns), sec(rel(r, m.last_arrive)),
		ep->lost ? " [records lost]" : "");
}

static int by_arrival(const void *a, const void *b)
{
	const struct ph_arrival *x = a, *y = b;

	return x->arrive_ns < y->arrive_ns ? -1 : x->arrive_ns > y->arrive_ns;
}

static int by_arrival_a(const void *a, const void *b)
{
	const struct ph_arrival *x = a, *y = b;

	return x->ta_arrive < y->ta_arrive ? -1 : x->ta_arrive > y->ta_arrive;
}

static void print_watch_block(struct report *r, const struct ph_episode *ep, const char *where,
			      const char *name)
{
	struct ph_arrival *order = malloc(ep->n * sizeof(*order));
	int view = single_view(r), k;
	struct ph_episode_times m;
	char clock[32];
	__u32 i;

	if (!order)
		return;
	before_output(r);
	memcpy(order, ep->arr, ep->n * sizeof(*order));
	qsort(order, ep->n, sizeof(*order), view == PH_APPROXIMATED ? by_arrival_a : by_arrival);
	ph_episode_times(ep, view, &m);
	fprintf(r->o.out, "SBT barrier watch at %s \"%s\", phase %" PRIu64 "%s\n", where, name,
		(uint64_t)ep->index, view == PH_APPROXIMATED ? " (approximated)" : "");
	fprintf(r->o.out, "    Barrier time:  %.3f ms\n", ms(m.barrier_ns));
	fprintf(r->o.out, "    Phase time:    %.3f s\n", sec(m.phase_ns));
	fprintf(r->o.out, "    Total time:    %.3f s\n", sec(rel(r, m.last_arrive)));
	fprintf(r->o.out, "    Imbalance:     %.3f ms lost (LB %.2f), critical thread %u\n",
		ms(m.imbalance_ns), m.lb, m.critical_tid);
	fprintf(r->o.out, "    Order of arrival:\n");
	fprintf(r->o.out, "    %10s %12s %12s %12s %12s %12s %12s  %-15s", "thread", "inter ms",
		"from start", "compute ms", "wait ms", "blocked ms", "lock/sem ms", "real time");
	for (k = 0; k < r->src.phases.ncounters; k++)
		fprintf(r->o.out, " %16s", r->src.counters[k].name);
	fputc('\n', r->o.out);
	for (i = 0; i < ep->n; i++) {
		const struct ph_arrival *a = &order[i];
		struct ph_times t = ph_times(a, view), prev = ph_times(&order[i ? i - 1 : 0], view);

		wall_clock(r, t.arrive, clock, sizeof(clock));
		fprintf(r->o.out, "    %10u %12.3f %11.6fs %12.3f %12.3f %12.3f %12.3f  %-15s",
			a->tid, ms(t.arrive - prev.arrive), sec(rel(r, t.arrive)),
			ms(t.arrive - t.start), ms(t.depart ? t.depart - t.arrive : 0),
			ms(a->blocked_ns), ms(a->sync_wait_ns), clock);
		for (k = 0; k < r->src.phases.ncounters; k++) {
			if (a->ctr_valid)
				fprintf(r->o.out, " %15" PRIu64 "%s", (uint64_t)a->ctr[k],
					a->ctr_scaled ? "~" : " ");
			else
				fprintf(r->o.out, " %16s", "-");
		}
		fputc('\n', r->o.out);
	}
	free(order);
}

static void print_table_row(struct report *r, const struct ph_episode *ep, const char *where,
			    const char *name)
{
	struct ph_episode_times m, a;
	int both = both_views(r);

	if (r->table_rows++ >= PHASE_TABLE_MAX)
		return;
	before_output(r);
	if (r->table_rows == 1) {
		fprintf(r->o.out, "%7s %4s %12s %12s", "phase", "thr", "phase ms", "barrier ms");
		if (both)
			fprintf(r->o.out, " %12s %12s", "~phase ms", "~barrier ms");
		fprintf(r->o.out, " %12s %6s %10s  %s\n", "imbal ms", "LB", "critical", "site");
	}
	ph_episode_times(ep, single_view(r), &m);
	ph_episode_times(ep, PH_APPROXIMATED, &a);
	fprintf(r->o.out, "%7" PRIu64 " %4u %12.3f %12.3f", (uint64_t)ep->index, ep->n,
		ms(m.phase_ns), ms(m.barrier_ns));
	if (both)
		fprintf(r->o.out, " %12.3f %12.3f", ms(a.phase_ns), ms(a.barrier_ns));
	fprintf(r->o.out, " %12.3f %6.2f %10u  %s \"%s\"%s\n", ms(m.imbalance_ns), m.lb,
		m.critical_tid, where, name, ep->lost ? " [records lost]" : "");
}

/* Approximated duration of the traced run (first to last event). */
static __u64 traced_a_ns(const struct report *r)
{
	__u64 first = phases__first_ts(r->ph), last = phases__approx_last_ts(r->ph);

	return last > first ? last - first : 0;
}

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

/* {name: value, ...} of counter values v */
static void json_counter_values(struct json *j, const struct report *r, const __u64 *v)
{
	int k;

	json_obj_begin(j);
	for (k = 0; k < r->src.phases.ncounters; k++)
		json_ku64(j, r->src.counters[k].name, v[k]);
	json_obj_end(j);
}

/* Sum/Min/Max/Avg across the threads of an episode, per counter, and IPC. */
static void json_phase_counters(struct json *j, const struct report *r, const struct ph_episode *ep)
{
	int k, cyc = counter_index(r, "cycles"), ins = counter_index(r, "instructions");
	__u32 i, n;

	json_key(j, "counters");
	json_obj_begin(j);
	for (k = 0; k < r->src.phases.ncounters; k++) {
		__u64 sum = 0, min = UINT64_MAX, max = 0;

		for (i = n = 0; i < ep->n; i++) {
			const struct ph_arrival *a = &ep->arr[i];

			if (!a->ctr_valid)
				continue;
			n++;
			sum += a->ctr[k];
			min = a->ctr[k] < min ? a->ctr[k] : min;
			max = a->ctr[k] > max ? a->ctr[k] : max;
		}
		json_key(j, r->src.counters[k].name);
		json_obj_begin(j);
		json_ku64(j, "sum", sum);
		json_ku64(j, "min", n ? min : 0);
		json_ku64(j, "max", max);
		json_kdouble(j, "avg", n ? (double)sum / n : 0);
		json_ku64(j, "threads", n);
		if (k == ins && cyc >= 0) {
			__u64 c = 0;

			for (i = 0; i < ep->n; i++)
				c += ep->arr[i].ctr_valid ? ep->arr[i].ctr[cyc] : 0;
			json_kdouble(j, "ipc", c ? (double)sum / c : 0);
			json_kdouble(j, "cpi", sum ? (double)c / sum : 0);
		}
		json_obj_end(j);
	}
	json_obj_end(j);
}

/* ---- episodes (JSON) ------------------------------------------------------ */

/* The timing keys of an episode in one view. */
static void json_episode_times(struct json *j, const struct report *r,
			       const struct ph_episode_times *m)
{
	json_ku64(j, "start_ns", rel(r, m->start));
	json_ku64(j, "end_ns", rel(r, m->last_arrive));
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

	json_ku64(j, "arrive_ns", rel(r, t.arrive));
	json_key(j, "depart_ns");
	if (t.depart)
		json_u64(j, rel(r, t.depart));
	else
		json_null(j);
	json_ku64(j, "compute_ns", t.arrive > t.start ? t.arrive - t.start : 0);
	json_ku64(j, "wait_ns", t.depart > t.arrive ? t.depart - t.arrive : 0);
	json_ku64(j, "late_wait_ns", m->last_arrive - t.arrive);
	json_ku64(j, "overhead_ns", t.depart > m->last_arrive ? t.depart - m->last_arrive : 0);
}

static void json_phase(struct report *r, const struct ph_episode *ep, const char *where,
		       const char *name)
{
	struct json *j = &r->json;
	struct ph_episode_times m, am;
	__u32 i;

	ph_episode_times(ep, PH_MEASURED, &m);
	ph_episode_times(ep, PH_APPROXIMATED, &am);
	json_obj_begin(j);
	json_ku64(j, "index", ep->index);
	json_ku64(j, "site", ep->site);
	json_kstr(j, "call_site", where);
	json_kstr(j, "name", name);
	json_kstr(j, "symbol", probe_symbol(r, ep->probe));
	json_ku64(j, "pid", ep->pid);
	json_ku64(j, "object", ep->object);
	json_episode_times(j, r, &m);
	json_ku64(j, "lost", ep->lost);
	if (r->src.phases.ncounters)
		json_phase_counters(j, r, ep);
	if (approx(r)) {
		json_key(j, "approximated");
		json_obj_begin(j);
		json_episode_times(j, r, &am);
		json_obj_end(j);
	}
	json_key(j, "threads");
	json_arr_begin(j);
	for (i = 0; i < ep->n; i++) {
		const struct ph_arrival *a = &ep->arr[i];

		json_obj_begin(j);
		json_ku64(j, "tid", a->tid);
		json_arrival_times(j, r, a, PH_MEASURED, &m);
		json_ku64(j, "blocked_ns", a->blocked_ns);
		json_ku64(j, "spin_ns",
			  ph_wait_ns(a) > a->blocked_ns ? ph_wait_ns(a) - a->blocked_ns : 0);
		json_ku64(j, "sync_wait_ns", a->sync_wait_ns);
		json_ku64(j, "useful_ns", ph_useful_ns(a));
		if (approx(r)) {
			json_ku64(j, "probe_overhead_ns", a->overhead_ns);
			json_key(j, "approximated");
			json_obj_begin(j);
			json_arrival_times(j, r, a, PH_APPROXIMATED, &am);
			json_obj_end(j);
		}
		if (r->src.phases.ncounters) {
			json_key(j, "counters");
			if (a->ctr_valid)
				json_counter_values(j, r, a->ctr);
			else
				json_null(j); /* the window began before counting did */
			json_key(j, "counters_estimated");
			json_u64(j, a->ctr_scaled);
		}
		json_obj_end(j);
	}
	json_arr_end(j);
	json_obj_end(j);
}

static void on_episode(void *ctx, const struct ph_episode *ep)
{
	struct report *r = ctx;
	char where[NAME_MAX_LEN], name[NAME_MAX_LEN];

	if (!ep->n)
		return;
	report__site_where(r, ep->pid, ph_lowest_site(ep), where, sizeof(where));
	report__barrier_name(r, ep->pid, ep->object, ep->probe, name, sizeof(name));
	if (r->o.format == REPORT_JSON) {
		json_phase(r, ep, where, name);
		return;
	}
	if (r->o.episode_lines)
		print_episode_line(r, ep, where, name);
	if (r->o.phase_table)
		print_table_row(r, ep, where, name);
	if (watched(r, where, name, ep->probe))
		print_watch_block(r, ep, where, name);
}

/* ---- hangs ------------------------------------------------------------------ */

static __u32 *copy_tids(const __u32 *src, int n)
{
	__u32 *d = malloc((n ? n : 1) * sizeof(*d));

	if (d && n)
		memcpy(d, src, n * sizeof(*d));
	return d;
}

static void print_hang(struct report *r, const struct hang_note *h)
{
	char where[NAME_MAX_LEN], name[NAME_MAX_LEN];
	int i;

	report__site_where(r, h->pid, h->call_site, where, sizeof(where));
	report__barrier_name(r, h->pid, h->object, h->probe, name, sizeof(name));
	fprintf(r->o.out,
		"SBT %s: %s \"%s\" (pid %u): %d thread%s waiting since %.3f s, %d missing\n",
		h->at_end ? "UNRELEASED BARRIER at end of trace" : "HANG", where, name, h->pid,
		h->nwaiting, h->nwaiting == 1 ? "" : "s", sec(rel(r, h->since_ns)), h->nmissing);
	fprintf(r->o.out, "    waiting:");
	for (i = 0; i < h->nwaiting; i++)
		fprintf(r->o.out, " %u (%s)", h->waiting[i], comm_of(r, h->waiting[i]));
	fprintf(r->o.out, "\n    missing:");
	for (i = 0; i < h->nmissing; i++)
		fprintf(r->o.out, " %u (%s)", h->missing[i], comm_of(r, h->missing[i]));
	fprintf(r->o.out, "%s\n", h->nmissing ? "" : " (none known)");
	fflush(r->o.out);
}

static void on_hang(void *ctx, const struct ph_episode *ep, const __u32 *missing, int nmissing)
{
	struct report *r = ctx;
	struct hang_note *h, *hs = realloc(r->hangs, (r->nhangs + 1) * sizeof(*hs));
	__u32 i;

	if (!hs)
		return;
	r->hangs = hs;
	h = &hs[r->nhangs++];
	memset(h, 0, sizeof(*h));
	h->pid = ep->pid;
	h->object = ep->object;
	h->probe = ep->probe;
	h->call_site = ph_lowest_site(ep);
	h->since_ns = ep->first_arrive;
	h->at_end = r->at_end;
	h->waiting = malloc((ep->n ? ep->n : 1) * sizeof(__u32));
	h->missing = copy_tids(missing, nmissing);
	if (!h->waiting || !h->missing) {
		r->nhangs--;
		free(h->waiting);
		free(h->missing);
		return;
	}
	for (i = 0; i < ep->n; i++)
		h->waiting[i] = ep->arr[i].tid;
	h->nwaiting = ep->n;
	h->nmissing = nmissing;
	if (r->o.format == REPORT_TEXT) {
		before_output(r);
		print_hang(r, h);
	}
}

const struct phases_ops report_phases_ops = {
	.episode = on_episode,
	.hang = on_hang,
};

/* ---- document begin/end ------------------------------------------------------ */

void report__begin(struct report *r)
{
	struct json *j = &r->json;
	int k;

	if (r->o.format != REPORT_JSON)
		return;
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

static double site_sd(const struct ph_site *s)
{
	double mean, var;

	if (s->episodes < 2)
		return 0;
	mean = (double)s->barrier_sum / s->episodes;
	var = s->barrier_sumsq / s->episodes - mean * mean;
	return var > 0 ? sqrt(var) : 0;
}

static void text_sites(struct report *r)
{
	size_t i, n = phases__nsites(r->ph);
	__u32 k;

	for (i = 0; i < n; i++) {
		const struct ph_site *s = phases__site(r->ph, i);
		char where[NAME_MAX_LEN], name[NAME_MAX_LEN];

		report__site_where(r, s->pid, s->call_site, where, sizeof(where));
		report__barrier_name(r, s->pid, s->object, s->probe, name, sizeof(name));
		fprintf(r->o.out, "Loop barrier %s \"%s\" (pid %u): %" PRIu64 " episodes\n", where,
			name, s->pid, (uint64_t)s->episodes);
		fprintf(r->o.out,
			"    barrier time: total %.3f ms, min %.3f, mean %.3f, max %.3f, sd %.3f "
			"ms\n",
			ms(s->barrier_sum), ms(s->barrier_min), ms(s->barrier_sum / s->episodes),
			ms(s->barrier_max), site_sd(s) / 1e6);
		fprintf(r->o.out,
			"    phase time:   total %.3f s, min %.3f, mean %.3f, max %.3f ms\n",
			sec(s->phase_sum), ms(s->phase_min), ms(s->phase_sum / s->episodes),
			ms(s->phase_max));
		if (approx(r) && r->o.view != REPORT_MEASURED_ONLY)
			fprintf(r->o.out,
				"    approximated: barrier total %.3f ms, mean %.3f; phase total "
				"%.3f s, mean %.3f ms\n",
				ms(s->barrier_a_sum), ms(s->barrier_a_sum / s->episodes),
				sec(s->phase_a_sum), ms(s->phase_a_sum / s->episodes));
		fprintf(r->o.out, "    %10s %10s %14s\n", "thread", "episodes", "idle ms");
		for (k = 0; k < s->nidle; k++)
			fprintf(r->o.out, "    %10u %10" PRIu64 " %14.3f\n", s->idle[k].tid,
				(uint64_t)s->idle[k].episodes, ms(s->idle[k].idle_ns));
	}
}

static struct sync_report sync_view(const struct report *r)
{
	struct sync_report sr = {.sync = r->src.phases.sync,
				 .names = r->src.names,
				 .probes = r->src.phases.probes,
				 .nprobes = r->src.phases.nprobes,
				 .sort = r->o.sort,
				 .max_rows = 20};

	return sr;
}

static void text_threads(struct report *r)
{
	size_t i, n = phases__nthreads(r->ph);

	struct sync_report sr = sync_view(r);

	int only_a = single_view(r) == PH_APPROXIMATED, both = both_views(r);

	fprintf(r->o.out, "Threads%s:\n    %10s %10s %-16s %10s %14s %14s %14s",
		only_a ? " (approximated)" : "", "pid", "tid", "comm", "episodes", "compute ms",
		"barrier ms", "lock/sem ms");
	if (both)
		fprintf(r->o.out, " %14s %14s", "~compute ms", "~barrier ms");
	if (approx(r))
		fprintf(r->o.out, " %14s", "probe cost ms");
	fputc('\n', r->o.out);
	for (i = 0; i < n; i++) {
		const struct ph_thread *t = phases__thread(r->ph, i);

		fprintf(r->o.out, "    %10u %10u %-16s %10" PRIu64 " %14.3f %14.3f %14.3f", t->pid,
			t->tid, comm_of(r, t->tid), (uint64_t)t->episodes,
			ms(only_a ? t->compute_a_ns : t->compute_ns),
			ms(only_a ? t->wait_a_ns : t->wait_ns),
			ms(sync_report__thread_wait(&sr, t->tid)));
		if (both)
			fprintf(r->o.out, " %14.3f %14.3f", ms(t->compute_a_ns), ms(t->wait_a_ns));
		if (approx(r))
			fprintf(r->o.out, " %14.3f", ms(t->overhead_total));
		fputc('\n', r->o.out);
	}
}

static void text_counters(struct report *r)
{
	size_t i, n = phases__nthreads(r->ph);
	int k;

	if (!r->src.phases.ncounters)
		return;
	fprintf(r->o.out, "Counters per thread (sum of its phase windows):\n    %10s", "tid");
	for (k = 0; k < r->src.phases.ncounters; k++)
		fprintf(r->o.out, " %18s%s", r->src.counters[k].name,
			r->src.counters[k].flags & SBT_CTRF_FALLBACK ? "*" : " ");
	fputc('\n', r->o.out);
	for (i = 0; i < n; i++) {
		const struct ph_thread *t = phases__thread(r->ph, i);

		if (!t->episodes)
			continue;
		fprintf(r->o.out, "    %10u", t->tid);
		for (k = 0; k < r->src.phases.ncounters; k++)
			fprintf(r->o.out, " %18" PRIu64 " ", (uint64_t)t->ctr_total[k]);
		fputc('\n', r->o.out);
	}
	for (k = 0; k < r->src.phases.ncounters; k++)
		if (r->src.counters[k].flags & SBT_CTRF_FALLBACK) {
			fprintf(r->o.out, "    * counted instead of unavailable hardware events\n");
			break;
		}
}

static void text_drops(struct report *r, const struct report_drops *d)
{
	__u64 first[8], total = d ? d->total : 0, affected;
	int i;

	if (total < phases__lost(r->ph))
		total = phases__lost(r->ph);
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
	fprintf(r->o.out, "; raise --buffer-size\n");
}

static void text_regions(struct report *r, const struct ph_region_stats *reg)
{
	char where[NAME_MAX_LEN];
	__u32 i;

	fprintf(r->o.out, "Parallel regions: %" PRIu64 ", %.3f s in total\n", (uint64_t)reg->count,
		sec(reg->total_ns));
	for (i = 0; i < reg->nsites; i++) {
		const struct ph_region_site *rs = &reg->sites[i];

		report__site_where(r, rs->pid, rs->site, where, sizeof(where));
		fprintf(r->o.out,
			"    %s \"%s\": %" PRIu64 " regions, total %.3f ms, min %.3f, mean %.3f, "
			"max %.3f ms\n",
			where, probe_symbol(r, rs->probe), (uint64_t)rs->count, ms(rs->total_ns),
			ms(rs->min_ns), ms(rs->total_ns / rs->count), ms(rs->max_ns));
	}
}

/* The traced run: the target's first to its last event. */
static __u64 traced_ns(const struct report *r)
{
	return phases__last_ts(r->ph) - phases__first_ts(r->ph);
}

static const char *model_name(const struct report *r)
{
	switch (r->src.phases.model) {
	case PH_MODEL_SM:
		return r->src.phases.exit_order == PH_EXIT_REVERSE
			       ? "sarukkai-malony, reverse arrival order"
			       : "sarukkai-malony, measured exit order";
	case PH_MODEL_TIME:
		return "time-based only";
	default:
		return "malony-reed";
	}
}

static void text_approximation(struct report *r)
{
	const struct ph_violation *v;
	size_t i, n = phases__violation_list(&v, r->ph);

	fprintf(r->o.out,
		"Approximated (probe cost removed, model %s): %.3f s, %.1f %% of the measured "
		"time was probe overhead\n",
		model_name(r), sec(traced_a_ns(r)),
		100.0 * (traced_ns(r) - traced_a_ns(r)) / traced_ns(r));
	if (!phases__violations(r->ph, -1))
		return;
	fprintf(r->o.out, "Approximation repairs: %" PRIu64 "\n",
		(uint64_t)phases__violations(r->ph, -1));
	for (i = 0; i < n; i++)
		fprintf(r->o.out,
			"    %-18s pid %u tid %u object 0x%" PRIx64 " at %.6f s: moved %.3f us\n",
			ph_violation_name(v[i].kind), v[i].pid, v[i].tid, (uint64_t)v[i].object,
			sec(rel(r, v[i].ts)), v[i].shift / 1e3);
}

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
		json_ku64(j, "ts_ns", rel(r, v[i].ts));
		json_ku64(j, "shift_ns", v[i].shift);
		json_obj_end(j);
	}
	json_arr_end(j);
	json_obj_end(j);
}

static void text_end(struct report *r, const struct report_drops *d)
{
	const struct ph_region_stats *reg = phases__regions(r->ph);

	if (r->table_rows > PHASE_TABLE_MAX)
		fprintf(r->o.out, "(%" PRIu64 " more phases not shown; use --format json)\n",
			(uint64_t)(r->table_rows - PHASE_TABLE_MAX));
	fprintf(r->o.out,
		"\nSBT summary: %" PRIu64 " phases, %zu barrier site(s), %zu threads, "
		"%" PRIu64 " events in %.3f s\n",
		(uint64_t)phases__completed(r->ph), phases__nsites(r->ph), phases__nthreads(r->ph),
		(uint64_t)phases__events(r->ph), sec(traced_ns(r)));
	if (approx(r) && traced_ns(r))
		text_approximation(r);
	if (r->suppressed)
		fprintf(r->o.out,
			"(%" PRIu64 " episode lines not shown: more than %" PRIu64
			" per second; the summary counts them)\n",
			(uint64_t)r->suppressed, (uint64_t)r->o.max_lines_per_s);
	if (reg->count)
		text_regions(r, reg);
	text_sites(r);
	text_threads(r);
	text_counters(r);
	{
		struct sync_report sr = sync_view(r);

		sync_report__text(r->o.out, &sr);
	}
	if (phases__grouping_errors(r->ph))
		fprintf(r->o.out,
			"WARNING: %" PRIu64 " pthread_barrier_wait episodes without exactly one "
			"serial thread: episodes may be mis-grouped\n",
			(uint64_t)phases__grouping_errors(r->ph));
	text_drops(r, d);
}

static void json_sites(struct report *r)
{
	struct json *j = &r->json;
	size_t i, n = phases__nsites(r->ph);
	__u32 k;

	json_key(j, "sites");
	json_arr_begin(j);
	for (i = 0; i < n; i++) {
		const struct ph_site *s = phases__site(r->ph, i);
		char where[NAME_MAX_LEN], name[NAME_MAX_LEN];

		report__site_where(r, s->pid, s->call_site, where, sizeof(where));
		report__barrier_name(r, s->pid, s->object, s->probe, name, sizeof(name));
		json_obj_begin(j);
		json_ku64(j, "id", s->id);
		json_ku64(j, "pid", s->pid);
		json_kstr(j, "symbol", probe_symbol(r, s->probe));
		json_kstr(j, "call_site", where);
		json_kstr(j, "name", name);
		json_ku64(j, "object", s->object);
		json_ku64(j, "episodes", s->episodes);
		json_ku64(j, "barrier_ns", s->barrier_sum);
		json_ku64(j, "barrier_min_ns", s->barrier_min);
		json_ku64(j, "barrier_max_ns", s->barrier_max);
		json_kdouble(j, "barrier_sd_ns", site_sd(s));
		json_ku64(j, "phase_ns", s->phase_sum);
		if (approx(r)) {
			json_key(j, "approximated");
			json_obj_begin(j);
			json_ku64(j, "barrier_ns", s->barrier_a_sum);
			json_ku64(j, "phase_ns", s->phase_a_sum);
			json_obj_end(j);
		}
		if (r->src.phases.ncounters) {
			json_key(j, "counters");
			json_counter_values(j, r, s->ctr);
		}
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
	json_arr_end(j);
}

static void json_threads(struct report *r)
{
	struct sync_report sr = sync_view(r);
	struct json *j = &r->json;
	size_t i, n = phases__nthreads(r->ph);

	json_key(j, "threads");
	json_arr_begin(j);
	for (i = 0; i < n; i++) {
		const struct ph_thread *t = phases__thread(r->ph, i);

		json_obj_begin(j);
		json_ku64(j, "pid", t->pid);
		json_ku64(j, "tid", t->tid);
		json_kstr(j, "comm", comm_of(r, t->tid));
		json_ku64(j, "episodes", t->episodes);
		json_ku64(j, "compute_ns", t->compute_ns);
		json_ku64(j, "wait_ns", t->wait_ns);
		json_ku64(j, "sync_wait_ns", sync_report__thread_wait(&sr, t->tid));
		if (approx(r)) {
			json_ku64(j, "probe_overhead_ns", t->overhead_total);
			json_key(j, "approximated");
			json_obj_begin(j);
			json_ku64(j, "compute_ns", t->compute_a_ns);
			json_ku64(j, "wait_ns", t->wait_a_ns);
			json_obj_end(j);
		}
		if (r->src.phases.ncounters) {
			json_key(j, "counters");
			json_counter_values(j, r, t->ctr_total);
		}
		json_obj_end(j);
	}
	json_arr_end(j);
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

static void json_hangs(struct report *r)
{
	struct json *j = &r->json;
	int i;

	json_key(j, "hangs");
	json_arr_begin(j);
	for (i = 0; i < r->nhangs; i++) {
		const struct hang_note *h = &r->hangs[i];
		char where[NAME_MAX_LEN], name[NAME_MAX_LEN];

		report__site_where(r, h->pid, h->call_site, where, sizeof(where));
		report__barrier_name(r, h->pid, h->object, h->probe, name, sizeof(name));
		json_obj_begin(j);
		json_ku64(j, "pid", h->pid);
		json_kstr(j, "call_site", where);
		json_kstr(j, "name", name);
		json_ku64(j, "since_ns", rel(r, h->since_ns));
		json_key(j, "at_end");
		json_u64(j, h->at_end);
		json_tids(j, "waiting", h->waiting, h->nwaiting);
		json_tids(j, "missing", h->missing, h->nmissing);
		json_obj_end(j);
	}
	json_arr_end(j);
}

static void json_drops(struct report *r, const struct report_drops *d)
{
	struct json *j = &r->json;
	__u64 first[16], affected = phases__lost_phases(r->ph, first, 16), total = d ? d->total : 0;
	int i;

	if (total < phases__lost(r->ph))
		total = phases__lost(r->ph);
	json_key(j, "drops");
	json_obj_begin(j);
	json_ku64(j, "total", total);
	json_ku64(j, "affected_phases", affected);
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

static void json_end(struct report *r, const struct report_drops *d)
{
	struct json *j = &r->json;
	const struct ph_region_stats *reg = phases__regions(r->ph);

	json_arr_end(j); /* phases */
	json_ku64(j, "phase_count", phases__completed(r->ph));
	json_ku64(j, "duration_ns", traced_ns(r));
	if (approx(r)) {
		int k;

		__u64 ovh = 0;
		size_t i;

		for (i = 0; i < phases__nthreads(r->ph); i++)
			ovh += phases__thread(r->ph, i)->overhead_total;
		json_key(j, "approximated");
		json_obj_begin(j);
		json_ku64(j, "duration_ns", traced_a_ns(r));
		json_kstr(j, "model", model_name(r));
		json_ku64(j, "probe_overhead_ns", ovh);
		json_ku64(j, "clamped_events", phases__clamped(r->ph));
		json_ku64(j, "counter_record_ns", r->src.phases.alpha_counters);
		json_violations(r);
		json_obj_end(j);
		json_key(j, "calibration");
		json_arr_begin(j);
		for (k = 0; k < r->src.phases.nprobes; k++) {
			/* id 0: the futex records' syscall tracepoints */
			if (!k && !r->src.phases.alpha_enter[0] && !r->src.phases.alpha_exit[0])
				continue;
			if (k && !r->src.phases.probes[k].kind)
				continue; /* an id not in use */
			json_obj_begin(j);
			json_ku64(j, "probe", k);
			json_kstr(j, "symbol",
				  k ? r->src.phases.probes[k].symbol : "[futex-tracepoints]");
			json_ku64(j, "entry_ns", r->src.phases.alpha_enter[k]);
			json_ku64(j, "exit_ns", r->src.phases.alpha_exit[k]);
			json_obj_end(j);
		}
		json_arr_end(j);
	}
	json_ku64(j, "events", phases__events(r->ph));
	json_ku64(j, "grouping_errors", phases__grouping_errors(r->ph));
	json_key(j, "regions");
	json_obj_begin(j);
	json_ku64(j, "count", reg->count);
	json_ku64(j, "total_ns", reg->total_ns);
	json_key(j, "sites");
	json_arr_begin(j);
	for (__u32 i = 0; i < reg->nsites; i++) {
		const struct ph_region_site *rs = &reg->sites[i];
		char where[NAME_MAX_LEN];

		report__site_where(r, rs->pid, rs->site, where, sizeof(where));
		json_obj_begin(j);
		json_ku64(j, "pid", rs->pid);
		json_kstr(j, "call_site", where);
		json_kstr(j, "symbol", probe_symbol(r, rs->probe));
		json_ku64(j, "count", rs->count);
		json_ku64(j, "total_ns", rs->total_ns);
		json_ku64(j, "min_ns", rs->min_ns);
		json_ku64(j, "max_ns", rs->max_ns);
		json_obj_end(j);
	}
	json_arr_end(j);
	json_obj_end(j);
	json_sites(r);
	json_threads(r);
	{
		struct sync_report sr = sync_view(r);

		sync_report__json(&r->json, &sr);
	}
	json_hangs(r);
	json_drops(r, d);
	json_obj_end(j);
}

void report__end(struct report *r, const struct report_drops *d)
{
	before_output(r);
	if (r->o.format == REPORT_JSON)
		json_end(r, d);
	else
		text_end(r, d);
	fflush(r->o.out);
}
