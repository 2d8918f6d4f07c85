// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The core of the reports (doc/design.md §6): lifecycle, the phase analysis's
 * callbacks handed to the format chosen (report_text.c, report_json.c), and
 * the names, views and figures both formats show.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/array.h"
#include "analyses/iterations.h"
#include "analyses/report_impl.h"
#include "analyses/sim.h"
#include "lib/log.h"

struct report *report__new(const struct report_opts *o, const struct report_src *src)
{
	struct report *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->o = *o;
	r->src = *src;
	r->ops = o->format == REPORT_JSON ? &report_json_ops : &report_text_ops;
	if (!r->o.out)
		r->o.out = stdout;
	json_init(&r->json, r->o.out, 1);
	r->it = iterations__new(); /* NULL: no memory, no iterations reported */
	if (o->nwhat_if || o->critical_path) {
		/* NULL: no memory, said at the summary */
		r->sim = sim__new();
		r->wi = calloc(1, sizeof(*r->wi));
	}
	return r;
}

void report__free(struct report *r)
{
	if (!r)
		return;
	free(r->hangs);
	iterations__free(r->it);
	if (r->wi) {
		sim_path__free(&r->wi->path[PH_MEASURED]);
		sim_path__free(&r->wi->path[PH_APPROXIMATED]);
	}
	free(r->wi);
	sim__free(r->sim);
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

const char *report__command_end(const struct report *r)
{
	return r->command_end;
}

void report__set_command_end(struct report *r, const char *end)
{
	snprintf(r->command_end, sizeof(r->command_end), "%s", end ? end : "");
}

void report__before_output(struct report *r)
{
	if (r->o.before_output)
		r->o.before_output(r->o.hook_ctx);
}

void report__redirect(struct report *r, const struct report_opts *o)
{
	if (r->o.format != REPORT_TEXT)
		return; /* a JSON document is not moved in the middle */
	r->o.out = o->out ? o->out : stdout;
	r->o.episode_lines = o->episode_lines;
	r->o.before_output = o->before_output;
	r->o.hook_ctx = o->hook_ctx;
}

void report__begin(struct report *r)
{
	if (r->ops->begin)
		r->ops->begin(r);
}

/* A --watch that matched nothing is most likely misspelled: say so. */
void report_opts__warn_unmatched(const struct report_opts *o, __u64 matched)
{
	int i;

	if (o->format != REPORT_TEXT)
		return;
	for (i = 0; i < o->nwatch && i < 64; i++)
		if (!(matched & (1ULL << i)))
			log_warn(
				"--watch '%s' matched no barrier (a call site file:line, a barrier "
				"name or a function)",
				o->watch[i]);
}

void report__end(struct report *r, const struct report_drops *d)
{
	report_whatif__compute(r, d);
	if (r->o.summary_out)
		report__summarize(r, r->o.summary_out);
	report__before_output(r);
	r->ops->end(r, d);
	fflush(r->o.out);
	if (r->o.watch_matched)
		*r->o.watch_matched |= r->watch_matched;
	else
		report_opts__warn_unmatched(&r->o, r->watch_matched);
}

/* ---- names ------------------------------------------------------------------- */

void report__site_where(const struct report *r, __u32 pid, __u64 call_site, char *buf, size_t n)
{
	names__site(r->src.names, pid, call_site, buf, n);
}

const char *report_src__symbol(const struct report_src *s, __u16 probe)
{
	return probe < s->phases.nprobes ? s->phases.probes[probe].symbol : "?";
}

void report_src__object(const struct report_src *s, __u32 pid, __u64 object, __u16 probe, char *buf,
			size_t n)
{
	names__object(s->names, pid, object, report_src__symbol(s, probe), buf, n);
}

const char *report_src__comm(const struct report_src *s, __u32 tid, const char *unknown)
{
	const char *c = s->names ? names__comm(s->names, tid) : NULL;

	return c ? c : unknown;
}

void report__name_barrier(const struct report *r, __u32 pid, __u64 call_site, __u64 object,
			  __u16 probe, struct barrier_names *bn)
{
	report__site_where(r, pid, call_site, bn->where, sizeof(bn->where));
	report_src__object(&r->src, pid, object, probe, bn->name, sizeof(bn->name));
}

/* ---- the phase analysis's callbacks ----------------------------------------------- */

const struct barrier_names *
report__episode_names(const struct report *r, const struct ph_episode *ep, struct barrier_names *bn)
{
	if (!bn->named) {
		report__name_barrier(r, ep->pid, ph_lowest_site(ep), ep->object, ep->probe, bn);
		bn->named = 1;
	}
	return bn;
}

/* ep in the sequence of its process's sites (doc/design.md §5.6). */
static void note_iteration(struct report *r, const struct ph_episode *ep)
{
	struct ph_episode_times m, a;
	__u64 start[2];

	if (!r->it)
		return;
	ph_episode_times(ep, PH_MEASURED, &m);
	ph_episode_times(ep, PH_APPROXIMATED, &a);
	start[PH_MEASURED] = m.start;
	start[PH_APPROXIMATED] = a.start;
	iterations__episode(r->it, ep->pid, ep->site, start, ep->n, ep->partial);
}

static void on_episode(void *ctx, const struct ph_episode *ep)
{
	struct report *r = ctx;

	if (!ep->n)
		return;
	note_iteration(r, ep);
	if (r->sim)
		sim__episode(r->sim, ep);
	r->ops->episode(r, ep);
}

static void on_call(void *ctx, const struct ph_call *c)
{
	struct report *r = ctx;

	if (r->sim)
		sim__call(r->sim, c);
}

static void on_region(void *ctx, const struct ph_call *c)
{
	struct report *r = ctx;

	if (r->sim)
		sim__region(r->sim, c);
}

static void on_futex_wait(void *ctx, const struct ph_call *c)
{
	struct report *r = ctx;

	if (r->sim)
		sim__futex_wait(r->sim, c);
}

/* The note of ep's hang (m: the threads missing). */
static void note_hang(struct report *r, const struct ph_episode *ep, const struct ph_missing *m,
		      struct hang_note *h)
{
	int i;

	memset(h, 0, sizeof(*h));
	h->pid = ep->pid;
	h->object = ep->object;
	h->probe = ep->probe;
	h->call_site = ph_lowest_site(ep);
	h->since_ns = ep->first_arrive;
	h->at_end = r->at_end;
	h->nwaiting = ep->n;
	h->listed_waiting = ep->n < PH_HANG_LISTED ? (int)ep->n : PH_HANG_LISTED;
	for (i = 0; i < h->listed_waiting; i++)
		h->waiting[i] = ep->arr[i].tid;
	h->nmissing = m->n;
	h->listed_missing = m->listed;
	memcpy(h->missing, m->tids, m->listed * sizeof(*m->tids));
	/* a thread gone is the likeliest reason a barrier never completes */
	for (i = 0; i < m->listed; i++)
		h->missing_exit[i] = phases__thread_exit(r->ph, m->tids[i]);
}

/* The threads of the process seen stopped (phases__set_stopped()): the
 * barrier waits for a stopped process, it did not hang. */
static void note_stopped(struct report *r, struct hang_note *h)
{
	const __u32 *tids = NULL;
	int n = r->ph ? phases__stopped(r->ph, &tids) : 0;

	if (n > 0)
		memcpy(h->stopped, tids,
		       (n < PH_STOPPED_KEPT ? n : PH_STOPPED_KEPT) * sizeof(*tids));
	h->nstopped = n;
}

/* Kept for the summary while there is room (the first REPORT_HANGS_KEPT). */
static void keep_hang(struct report *r, const struct hang_note *h)
{
	r->hangs_total++;
	if (r->nhangs >= REPORT_HANGS_KEPT ||
	    array_reserve((void **)&r->hangs, &r->cap_hangs, r->nhangs + 1, sizeof(*h)))
		return;
	r->hangs[r->nhangs++] = *h;
}

static void on_hang(void *ctx, const struct ph_episode *ep, const struct ph_missing *m)
{
	struct report *r = ctx;
	struct hang_note h;

	note_hang(r, ep, m, &h);
	note_stopped(r, &h);
	keep_hang(r, &h);
	if (r->ops->hang) {
		report__before_output(r);
		r->ops->hang(r, &h);
	}
}

const struct phases_ops report_phases_ops = {
	.episode = on_episode,
	.hang = on_hang,
	.call = on_call,
	.futex_wait = on_futex_wait,
	.region = on_region,
};

/* ---- views and figures -------------------------------------------------------------- */

__u64 report__rel(const struct report *r, __u64 ts)
{
	return ts > r->src.phases.start_ns ? ts - r->src.phases.start_ns : 0;
}

__s64 report__rel_signed(const struct report *r, __u64 ts)
{
	return (__s64)(ts - r->src.phases.start_ns);
}

int report__approx(const struct report *r)
{
	return r->src.phases.alpha_enter && r->src.phases.alpha_exit;
}

const char *report__costs_source(const struct report *r)
{
	const char *s = r->src.costs_source;

	return s && *s ? s : "unknown";
}

int report__cost_entry_used(const struct report *r, size_t e)
{
	const struct phases_config *pc = &r->src.phases;
	int id;

	if (pc->alpha_counters && (int)e == alpha_series__counters(pc->alpha_series))
		return 1;
	for (id = 0; id < pc->nprobes; id++)
		if ((!id || pc->probes[id].kind) &&
		    alpha_series__entry_of(pc->alpha_series, id, NULL) == (int)e)
			return 1;
	return 0;
}

const char *report__borrowed(const struct report *r, __u16 probe, int *how)
{
	const struct phases_config *pc = &r->src.phases;
	int e = alpha_series__entry_of(pc->alpha_series, probe, how);

	/* a join is hit once per thread created: what it borrowed is no
	 * figure's doubt (and every threaded program would list it) */
	if (e < 0 || !probe || probe >= pc->nprobes || !pc->probes[probe].kind ||
	    pc->probes[probe].kind == SBT_PK_JOIN ||
	    (*how != ALPHA_BY_CLASS && *how != ALPHA_BY_FALLBACK))
		return NULL;
	return alpha_series__entry(pc->alpha_series, e).name;
}

const char *report__insn_class(int cls)
{
	static const char *const names[] = {"single-stepped", "emulated", "nop5", "not a uprobe"};

	return cls >= 0 && cls < 4 ? names[cls] : "unknown";
}

int report__single_view(const struct report *r)
{
	return report__approx(r) && r->o.view == REPORT_APPROXIMATED_ONLY ? PH_APPROXIMATED
									  : PH_MEASURED;
}

int report__shows(const struct report *r, int view)
{
	if (view == PH_APPROXIMATED)
		return report__approx(r) && r->o.view != REPORT_MEASURED_ONLY;
	return r->o.view != REPORT_APPROXIMATED_ONLY || !report__approx(r);
}

int report__both_views(const struct report *r)
{
	return report__approx(r) && r->o.view == REPORT_BOTH;
}

__u64 report__traced_ns(const struct report *r)
{
	return phases__last_ts(r->ph) - phases__first_ts(r->ph);
}

__u64 report__half_width(__u64 v, const struct ph_band *b)
{
	__u64 below = v > b->lo ? v - b->lo : 0, above = b->hi > v ? b->hi - v : 0;

	return below > above ? below : above;
}

__u64 report__traced_a_ns(const struct report *r)
{
	return phases__approx_duration(r->ph);
}

const char *report__model_name(const struct report *r)
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

double report__barrier_sd(const struct ph_site *s)
{
	double mean, var;

	if (s->episodes < 2)
		return 0;
	mean = (double)s->barrier_sum / s->episodes;
	var = s->barrier_sumsq / s->episodes - mean * mean;
	return var > 0 ? sqrt(var) : 0;
}

struct sync_report report__sync_view(const struct report *r)
{
	struct sync_report sr = {.sync = r->src.phases.sync,
				 .names = r->src.names,
				 .probes = r->src.phases.probes,
				 .nprobes = r->src.phases.nprobes,
				 .sort = r->o.sort,
				 .max_rows = 20};

	return sr;
}

__u64 report__drops_total(const struct report *r, const struct report_drops *d)
{
	__u64 total = d ? d->total : 0;

	return total < phases__lost(r->ph) ? phases__lost(r->ph) : total;
}
