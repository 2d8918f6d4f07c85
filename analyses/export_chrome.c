// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Chrome trace-event JSON (chrome://tracing, ui.perfetto.dev): one process
 * per view and traced pid, one track per thread; per barrier episode a
 * compute and a wait slice per thread, flows from the last arriver to the
 * threads it released; lock/semaphore/condvar waits and lock holds as
 * slices, flows from a V to the P it satisfied; counter deltas as counter
 * tracks, and each phase's efficiencies on its site's counter track; futex
 * waits outside probed calls (joins, hand-made locks and barriers) as wait
 * slices; OpenMP region and task bodies and task waits as begin/end slices
 * of their thread. Times are exact: integer ns written as us with three
 * decimals.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "analyses/efficiency.h"
#include "analyses/export.h"
#include "lib/hmap.h"
#include "lib/json.h"

#define NAME_LEN 256
/* The approximated view's processes and threads: ids beyond pid_max. */
#define APPROX_ID_OFFSET (1u << 22)

struct hold {
	__u64 t[2]; /* acquisition time per view */
};

struct chrome {
	struct json j;
	__u64 flow_id;
	struct hmap holds;     /* (tid, lock) -> struct hold */
	struct hmap processes; /* (view, pid) -> named already */
	struct hmap open;      /* (tid, probe) -> __u64: its body/wait slices begun */
};

static struct chrome *state(struct exporter *x)
{
	return x->state;
}

static int view_index(int view)
{
	return view == PH_APPROXIMATED;
}

static __u32 view_id(__u32 id, int view)
{
	return view == PH_APPROXIMATED ? id + APPROX_ID_OFFSET : id;
}

static int init(struct exporter *x, char *err, size_t errlen)
{
	struct chrome *c = calloc(1, sizeof(*c));

	if (!c) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	json_init(&c->j, x->o.out, 0);
	hmap_init(&c->holds);
	hmap_init(&c->processes);
	hmap_init(&c->open);
	x->state = c;
	return 0;
}

static void fini(struct exporter *x)
{
	struct chrome *c = state(x);

	hmap_free_values(&c->holds);
	hmap_free(&c->processes);
	hmap_free_values(&c->open);
	free(c);
}

/* Common fields of an event; the caller adds the rest and closes it. */
static void event(struct exporter *x, const char *ph, const char *name, const char *cat, int view,
		  __u32 pid, __u32 tid, __u64 ts)
{
	struct json *j = &state(x)->j;

	fputc('\n', x->o.out);
	json_obj_begin(j);
	json_kstr(j, "ph", ph);
	json_kstr(j, "name", name);
	if (cat)
		json_kstr(j, "cat", cat);
	json_ku64(j, "pid", view_id(pid, view));
	json_ku64(j, "tid", view_id(tid, view));
	json_kfixed3(j, "ts", (int64_t)(ts - x->src.phases.start_ns));
}

static void metadata(struct exporter *x, const char *what, int view, __u32 pid, __u32 tid,
		     const char *name)
{
	struct json *j = &state(x)->j;

	event(x, "M", what, NULL, view, pid, tid, x->src.phases.start_ns);
	json_key(j, "args");
	json_obj_begin(j);
	json_kstr(j, "name", name);
	json_obj_end(j);
	json_obj_end(j);
}

/* The process track of pid in a view, named on first use. */
static void process(struct exporter *x, int view, __u32 pid)
{
	struct chrome *c = state(x);
	char name[NAME_LEN];

	static char named;

	if (hmap_get(&c->processes, view, pid))
		return;
	hmap_put(&c->processes, view, pid, &named);
	if (*export__comm(x, pid))
		snprintf(name, sizeof(name), "%s: %s (pid %u)",
			 view == PH_APPROXIMATED ? "approximated" : "measured",
			 export__comm(x, pid), pid);
	else
		snprintf(name, sizeof(name), "%s: process %u",
			 view == PH_APPROXIMATED ? "approximated" : "measured", pid);
	metadata(x, "process_name", view, pid, 0, name);
}

/* A complete slice; args: the phase (ep: its index, and whether it is
 * partial) when ep is not NULL. */
static void slice(struct exporter *x, int view, __u32 pid, __u32 tid, const char *name,
		  const char *cat, __u64 t0, __u64 t1, const struct ph_episode *ep)
{
	struct json *j = &state(x)->j;

	if (t1 < t0)
		t1 = t0;
	process(x, view, pid);
	event(x, "X", name, cat, view, pid, tid, t0);
	json_kfixed3(j, "dur", (int64_t)(t1 - t0));
	if (ep) {
		json_key(j, "args");
		json_obj_begin(j);
		json_ku64(j, "phase", ep->index);
		if (ep->partial)
			json_kbool(j, "partial", 1);
		json_obj_end(j);
	}
	json_obj_end(j);
}

/* A flow arrow from (tid0, t0) to the slice of tid1 around t1. */
static void flow(struct exporter *x, int view, __u32 pid, __u32 tid0, __u64 t0, __u32 tid1,
		 __u64 t1, const char *name)
{
	struct chrome *c = state(x);
	__u64 id = ++c->flow_id;

	event(x, "s", name, "flow", view, pid, tid0, t0);
	json_ku64(&c->j, "id", id);
	json_obj_end(&c->j);
	event(x, "f", name, "flow", view, pid, tid1, t1);
	json_ku64(&c->j, "id", id);
	json_kstr(&c->j, "bp", "e");
	json_obj_end(&c->j);
}

static void counters(struct exporter *x, const struct ph_episode *ep, const struct ph_arrival *a)
{
	struct json *j = &state(x)->j;
	char name[NAME_LEN];
	int k;

	for (k = 0; a->ctr_valid && k < x->src.phases.ncounters; k++) {
		snprintf(name, sizeof(name), "%s (tid %u)", x->src.counters[k].name, a->tid);
		event(x, "C", name, "counters", PH_MEASURED, ep->pid, a->tid, a->arrive_ns);
		json_key(j, "args");
		json_obj_begin(j);
		json_ku64(j, "delta", a->ctr[k]);
		json_obj_end(j);
		json_obj_end(j);
	}
}

/* The phase's efficiencies (doc/design.md §5.5) on its site's counter track,
 * from the phase's start: one value each until the next phase of the site. */
static void efficiency(struct exporter *x, const struct ph_episode *ep, int view, __u64 start,
		       const char *site)
{
	struct json *j = &state(x)->j;
	char name[NAME_LEN + 16];
	struct eff e;

	eff_phase(ep, view, &e);
	snprintf(name, sizeof(name), "efficiency %s", site);
	event(x, "C", name, "efficiency", view, ep->pid, ep->pid, start);
	json_key(j, "args");
	json_obj_begin(j);
	json_kdouble(j, "load_balance", e.load_balance);
	json_kdouble(j, "sync_efficiency", e.sync_efficiency);
	json_kdouble(j, "parallel_efficiency", e.parallel_efficiency);
	json_obj_end(j);
	json_obj_end(j);
}

static void episode_view(struct exporter *x, const struct ph_episode *ep, int view,
			 const char *barrier, const char *site)
{
	struct ph_episode_times m;
	__u32 i;

	ph_episode_times(ep, view, &m);
	efficiency(x, ep, view, m.start, site);
	for (i = 0; i < ep->n; i++) {
		struct ph_times t = ph_times(&ep->arr[i], view);
		__u32 tid = ep->arr[i].tid;

		slice(x, view, ep->pid, tid, "compute", "phase", t.start, t.arrive, ep);
		if (!t.depart)
			continue;
		slice(x, view, ep->pid, tid, barrier, "barrier", t.arrive, t.depart, ep);
		if (tid != m.critical_tid)
			flow(x, view, ep->pid, m.critical_tid, m.last_arrive, tid, t.depart,
			     "release");
	}
}

static void episode(struct exporter *x, const struct ph_episode *ep)
{
	char site[NAME_LEN], obj[NAME_LEN], barrier[2 * NAME_LEN + 16];
	__u32 i;

	export__site(x, ep, site, sizeof(site));
	export__object(x, ep->pid, ep->object, ep->probe, obj, sizeof(obj));
	snprintf(barrier, sizeof(barrier), "barrier %s at %s", obj, site);
	if (x->o.views & EXPORT_MEASURED)
		episode_view(x, ep, PH_MEASURED, barrier, site);
	if (x->o.views & EXPORT_APPROXIMATED)
		episode_view(x, ep, PH_APPROXIMATED, barrier, site);
	for (i = 0; i < ep->n && x->src.phases.ncounters; i++)
		counters(x, ep, &ep->arr[i]);
}

static int is_wait(int kind)
{
	return kind == SBT_PK_LOCK || kind == SBT_PK_TRYLOCK || kind == SBT_PK_SEM_WAIT ||
	       kind == SBT_PK_SEM_TRYWAIT || kind == SBT_PK_COND_WAIT;
}

static void call_view(struct exporter *x, const struct ph_call *c, int view, const char *obj)
{
	int v = view_index(view);
	__u64 t0 = v ? c->enter_a : c->enter_ns, t1 = v ? c->exit_a : c->exit_ns;
	struct hold *h = hmap_get(&state(x)->holds, c->tid, c->obj);
	char name[NAME_LEN + 16];

	if (is_wait(c->kind) && (int)c->retval == 0) {
		snprintf(name, sizeof(name), "wait %s", obj);
		slice(x, view, c->pid, c->tid, name, "sync", t0, t1, NULL);
		if (c->v_tid && c->v_ns)
			flow(x, view, c->pid, c->v_tid, v ? c->v_a : c->v_ns, c->tid, t1, "post");
	} else if (c->kind == SBT_PK_UNLOCK && h && h->t[v]) {
		snprintf(name, sizeof(name), "hold %s", obj);
		slice(x, view, c->pid, c->tid, name, "sync", h->t[v], t0, NULL);
		h->t[v] = 0;
	}
}

/* Where a lock was taken, for the hold slice its unlock closes. */
static void note_hold(struct exporter *x, const struct ph_call *c)
{
	struct chrome *s = state(x);
	struct hold *h = hmap_get(&s->holds, c->tid, c->obj);

	if (!h && !(h = hmap_put_new(&s->holds, c->tid, c->obj, sizeof(*h))))
		return;
	h->t[0] = c->exit_ns;
	h->t[1] = c->exit_a;
}

static void call(struct exporter *x, const struct ph_call *c)
{
	char obj[NAME_LEN];

	export__object(x, c->pid, c->obj, c->probe, obj, sizeof(obj));
	if (x->o.views & EXPORT_MEASURED)
		call_view(x, c, PH_MEASURED, obj);
	if (x->o.views & EXPORT_APPROXIMATED)
		call_view(x, c, PH_APPROXIMATED, obj);
	if ((c->kind == SBT_PK_LOCK || c->kind == SBT_PK_TRYLOCK) && (int)c->retval == 0)
		note_hold(x, c);
}

/* Bodies (a region's share, a task) and task waits nest in their thread's
 * calls as the records come: begin and end events, in each view. An end
 * whose begin the trace lacks (entered before the session) is left out. */
static int body_or_task_wait(const struct exporter *x, __u16 probe)
{
	int kind = probe < x->src.phases.nprobes ? x->src.phases.probes[probe].kind : 0;

	return kind == SBT_PK_REGION_BODY || kind == SBT_PK_TASK_WAIT;
}

static void record(struct exporter *x, const struct sbt_event *e, __u64 ta)
{
	struct chrome *c = state(x);
	int begin = e->type == SBT_EV_ENTER, v;
	const char *ph = begin ? "B" : "E";
	__u64 *open;

	if ((!begin && e->type != SBT_EV_EXIT) || !body_or_task_wait(x, e->probe))
		return;
	open = hmap_get(&c->open, e->tid, e->probe);
	if (!begin && (!open || !*open))
		return;
	if (!open && !(open = hmap_put_new(&c->open, e->tid, e->probe, sizeof(*open))))
		return; /* no memory: not drawn */
	*open += begin ? 1 : -1;
	for (v = PH_MEASURED; v <= PH_APPROXIMATED; v++) {
		__u64 ts = v == PH_MEASURED ? e->ts : ta;

		/* no approximated time: not in that view */
		if (!(x->o.views & (v == PH_MEASURED ? EXPORT_MEASURED : EXPORT_APPROXIMATED)) ||
		    (v == PH_APPROXIMATED && !ts))
			continue;
		process(x, v, e->pid);
		event(x, ph, x->src.phases.probes[e->probe].symbol, "task", v, e->pid, e->tid, ts);
		json_obj_end(&c->j);
	}
}

/* A futex wait outside probed calls: the time its thread was blocked, in
 * each view (a join's approximated return is the joined exit's, model 7). */
static void futex_wait(struct exporter *x, const struct ph_call *c)
{
	char obj[NAME_LEN], name[NAME_LEN + 16];

	names__object(x->src.names, c->pid, c->obj, "futex", obj, sizeof(obj));
	snprintf(name, sizeof(name), "wait %s", obj);
	if (x->o.views & EXPORT_MEASURED)
		slice(x, PH_MEASURED, c->pid, c->tid, name, "sync", c->enter_ns, c->exit_ns, NULL);
	if (x->o.views & EXPORT_APPROXIMATED)
		slice(x, PH_APPROXIMATED, c->pid, c->tid, name, "sync", c->enter_a, c->exit_a,
		      NULL);
}

static void begin(struct exporter *x)
{
	struct json *j = &state(x)->j;

	json_obj_begin(j);
	json_kstr(j, "displayTimeUnit", "ns");
	json_key(j, "traceEvents");
	json_arr_begin(j);
}

static void thread_names(struct exporter *x, const struct phases *p)
{
	char name[NAME_LEN];
	size_t i;
	int v;

	for (i = 0; i < phases__nthreads(p); i++) {
		const struct ph_thread *t = phases__thread(p, i);

		snprintf(name, sizeof(name), "%s %u", export__comm(x, t->tid), t->tid);
		for (v = PH_MEASURED; v <= PH_APPROXIMATED; v++)
			if (x->o.views & (v == PH_MEASURED ? EXPORT_MEASURED : EXPORT_APPROXIMATED))
				metadata(x, "thread_name", v, t->pid, t->tid, name);
	}
}

static void other_data(struct exporter *x, const struct phases *p, const struct export_drops *d)
{
	struct json *j = &state(x)->j;
	struct ph_band band;
	int k;

	json_key(j, "otherData");
	json_obj_begin(j);
	json_kstr(j, "generator", "sbt-bpf export");
	json_kstr(j, "command", x->src.command ? x->src.command : "");
	json_kstr(j, "kernel", x->src.kernel ? x->src.kernel : "");
	json_ku64(j, "records_lost", d ? d->total : 0);
	json_ku64(j, "phases", phases__completed(p));
	if (phases__band(p, &band)) {
		/* the approximated run and its error band (doc/design.md §5.4) */
		json_key(j, "approximated");
		json_obj_begin(j);
		json_ku64(j, "duration_ns", phases__approx_duration(p));
		json_ku64(j, "duration_ns_low", band.lo);
		json_ku64(j, "duration_ns_high", band.hi);
		json_obj_end(j);
	}
	if (x->src.phases.alpha_enter) {
		json_key(j, "calibration");
		json_arr_begin(j);
		for (k = 1; k < x->src.phases.nprobes; k++) {
			if (!x->src.phases.probes[k].kind)
				continue; /* an id not in use */
			json_obj_begin(j);
			json_kstr(j, "symbol", x->src.phases.probes[k].symbol);
			json_ku64(j, "entry_ns", x->src.phases.alpha_enter[k]);
			json_ku64(j, "exit_ns", x->src.phases.alpha_exit[k]);
			json_obj_end(j);
		}
		json_arr_end(j);
	}
	json_obj_end(j);
}

/* The approximated run's critical path (--critical-path): a process of its
 * own in the approximated view, a slice per stretch, named after its thread
 * (doc/design.md §5.7). */
static void critical_path(struct exporter *x)
{
	const struct sim_path *p = &x->path;
	char name[NAME_LEN];
	size_t i;

	if (!x->o.critical_path || !(x->o.views & EXPORT_APPROXIMATED))
		return;
	if (x->path_err) {
		snprintf(name, sizeof(name), "approximated: critical path (none: %s)",
			 x->path_err == -EDEADLK ? "the replay stalled" : strerror(-x->path_err));
		metadata(x, "process_name", PH_APPROXIMATED, 0, 0, name);
		return;
	}
	metadata(x, "process_name", PH_APPROXIMATED, 0, 0,
		 "approximated: critical path (replayed)");
	for (i = 0; i < p->nsegs; i++) {
		const struct sim_segment *s = &p->segs[i];

		if (s->tid)
			snprintf(name, sizeof(name), "%s %u", export__comm(x, s->tid), s->tid);
		else
			snprintf(name, sizeof(name), "synchronization");
		event(x, "X", name, "critical_path", PH_APPROXIMATED, 0, 1, s->from);
		json_kfixed3(&state(x)->j, "dur", (int64_t)(s->to - s->from));
		json_obj_end(&state(x)->j);
	}
}

static void end(struct exporter *x, const struct phases *p, const struct export_drops *d)
{
	struct json *j = &state(x)->j;

	critical_path(x);
	thread_names(x, p);
	fputc('\n', x->o.out);
	json_arr_end(j);
	other_data(x, p, d);
	json_obj_end(j);
}

const struct export_format_ops export_chrome_ops = {
	.init = init,
	.begin = begin,
	.episode = episode,
	.call = call,
	.futex_wait = futex_wait,
	.record = record,
	.end = end,
	.fini = fini,
};
