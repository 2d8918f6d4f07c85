// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "lib/array.h"
#include "lib/clock.h"
#include "lib/log.h"
#include "user/trace/probe_costs.h"

/* The index of calibrated entry symbol in the names the trace file holds,
 * added if new; -1 when there is no room (a file holds TF_COST_NAMES_MAX). */
static int name_of(struct probe_costs *pc, const char *symbol)
{
	char **names;
	__u32 i;

	for (i = 0; i < pc->nnames; i++)
		if (!strcmp(pc->names[i], symbol))
			return (int)i;
	if (pc->nnames == TF_COST_NAMES_MAX)
		return -1;
	names = realloc(pc->names, (pc->nnames + 1) * sizeof(*names));
	if (!names)
		return -1;
	pc->names = names;
	names[pc->nnames] = strdup(symbol);
	return names[pc->nnames] ? (int)pc->nnames++ : -1;
}

/* A calibration taken at ts: into the series the analyses read, and into
 * what the trace file gets (trace_meta.c). */
static void note_calibration(struct probe_costs *pc, const struct calibration *c, __u64 ts)
{
	const char *names[CALIBRATION_MAX];
	struct alpha_cost cost[CALIBRATION_MAX];
	int cls[CALIBRATION_MAX], i, k = 0, at;
	__u32 first = pc->ncosts;

	if (!pc->series ||
	    array_reserve((void **)&pc->cals, &pc->cap_cals, pc->ncals + 1, sizeof(*pc->cals)) ||
	    array_reserve((void **)&pc->costs, &pc->cap_costs, (size_t)pc->ncosts + c->n,
			  sizeof(*pc->costs)))
		goto nomem;
	for (i = 0; i < c->n && i < CALIBRATION_MAX; i++) {
		if ((at = name_of(pc, c->a[i].symbol)) < 0)
			continue;
		names[k] = c->a[i].symbol;
		cost[k] = (struct alpha_cost){c->a[i].entry_ns, c->a[i].exit_ns};
		cls[k++] = c->a[i].cls;
		pc->costs[pc->ncosts++] = (struct tf_cost){.name = (__u32)at,
							   .cls = (__u32)c->a[i].cls,
							   .entry_ns = c->a[i].entry_ns,
							   .exit_ns = c->a[i].exit_ns};
	}
	if (alpha_series__add(pc->series, ts, names, cost, cls, k)) {
		pc->ncosts = first;
		goto nomem;
	}
	pc->cals[pc->ncals++] = (struct tf_calibration){.ts_ns = ts, .first = first, .n = k};
	return;
nomem:
	log_warn("out of memory: a calibration of the probe costs is left out");
}

/* The classes a session probes, and so calibrates. */
static struct cal_plan plan_of(const struct env *env, int ncounters)
{
	return (struct cal_plan){.classes = env->classes,
				 .user_probes = env->nprobes > 0,
				 .counters = ncounters > 0,
				 .shim = env->shim};
}

/* The session measures its costs (doc/design.md §5.4): only what it will
 * probe, with a BPF session of the calibrator's own kept for the
 * calibrations while tracing and at the end. */
static int calibrate_session(struct probe_costs *pc, const struct env *env, int ncounters,
			     char *err, size_t errlen)
{
	struct cal_plan plan = plan_of(env, ncounters);
	__u64 ts, t0 = clock_ns(CLOCK_MONOTONIC);
	int e = calibrator__new(&pc->calibrator, &plan, err, errlen);

	if (!e)
		e = calibrator__measure(pc->calibrator, &pc->cal, &ts, err, errlen);
	if (e) {
		calibrator__free(pc->calibrator);
		pc->calibrator = NULL;
		return e;
	}
	log_info("measured the probe costs in %.0f ms", (clock_ns(CLOCK_MONOTONIC) - t0) / 1e6);
	note_calibration(pc, &pc->cal, ts);
	pc->interval_ns = env->recalibrate_ns;
	pc->next_ns = ts + pc->interval_ns;
	pc->source = ALPHA_SOURCE_SESSION;
	return 0;
}

/* --no-calibrate (and top, which approximates nothing): the cache, or a
 * thorough measurement cached for the next time. */
static int calibrate_cached(struct probe_costs *pc, char *err, size_t errlen)
{
	int measured, e = calibration__get(&pc->cal, &measured, err, errlen);

	if (e)
		return e;
	if (measured)
		log_info("calibrated the probe costs (cached in %s)", CALIBRATION_CACHE);
	note_calibration(pc, &pc->cal, clock_ns(CLOCK_MONOTONIC));
	pc->source = measured ? ALPHA_SOURCE_MEASURED : ALPHA_SOURCE_CACHE;
	return 0;
}

/* Probe id is charged entry symbol's costs (how: enum alpha_how). */
static void bind(struct probe_costs *pc, int id, const char *symbol, int how)
{
	int at = name_of(pc, symbol);

	if (at < 0 || alpha_series__bind(pc->series, id, symbol, how))
		return;
	pc->bound[id] = at + 1;
	pc->how[id] = how;
}

/* Probe id 0 is no uprobe: the futex records' tracepoints. */
static void load_calibration(struct probe_costs *pc, const struct env *env, int ncounters)
{
	const struct alpha *a;
	char err[512];
	int e;

	pc->series = alpha_series__new();
	if (!pc->series) {
		log_warn("calibration failed (out of memory): no approximation");
		pc->source = ALPHA_SOURCE_NONE;
		return;
	}
	e = env->no_calibrate || env->top ? calibrate_cached(pc, err, sizeof(err))
					  : calibrate_session(pc, env, ncounters, err, sizeof(err));
	if (e) {
		log_warn("calibration failed (%s): no approximation", err);
		pc->source = ALPHA_SOURCE_NONE;
		return;
	}
	pc->cal_ok = 1;
	a = calibration__find(&pc->cal, CAL_FUTEX);
	if (a && (env->classes & SBT_TRACE_FUTEX)) {
		pc->alpha_enter[0] = a->entry_ns;
		pc->alpha_exit[0] = a->exit_ns;
		bind(pc, 0, CAL_FUTEX, ALPHA_BY_NAME);
	}
	a = calibration__find(&pc->cal, CAL_COUNTERS);
	if (a && ncounters)
		pc->alpha_counters = a->entry_ns;
}

int probe_costs__init(struct probe_costs *pc, const struct env *env, int ncounters)
{
	memset(pc, 0, sizeof(*pc));
	pc->n = 1;
	pc->fixed_enter = env->alpha_enter;
	pc->fixed_exit = env->alpha_exit;
	pc->inject_ns = env->inject_ns;
	pc->source = ALPHA_SOURCE_FIXED;
	pc->infos = calloc(SBT_MAX_PROBES, sizeof(*pc->infos));
	pc->alpha_enter = calloc(SBT_MAX_PROBES, sizeof(__u64));
	pc->alpha_exit = calloc(SBT_MAX_PROBES, sizeof(__u64));
	pc->bound = calloc(SBT_MAX_PROBES, sizeof(*pc->bound));
	pc->how = calloc(SBT_MAX_PROBES, sizeof(*pc->how));
	pc->sites = calloc(SBT_MAX_PROBES, sizeof(*pc->sites));
	if (!pc->infos || !pc->alpha_enter || !pc->alpha_exit || !pc->bound || !pc->how ||
	    !pc->sites)
		return -ENOMEM;
	if (pc->fixed_enter < 0)
		load_calibration(pc, env, ncounters);
	return 0;
}

/* α of a probe: the calibrated cost of its function, else (a --probe
 * function) that of a calibrated function whose first instruction the
 * kernel handles the same way; *how says which (enum alpha_how). */
static const struct alpha *cost_of(const struct probe_costs *pc, const struct probe *p, int *how)
{
	const struct alpha *a = NULL;

	/* a shim site costs the same whatever the function it wraps */
	if (p->exit_offset && (a = calibration__find(&pc->cal, CAL_SHIM_SITE)))
		*how = ALPHA_BY_SHIM;
	else if ((a = calibration__find(&pc->cal, p->info.symbol)))
		*how = ALPHA_BY_NAME;
	else if ((a = calibration__for_class(&pc->cal,
					     insn_class__of(p->open_path, probe__entry_offset(p)))))
		*how = ALPHA_BY_CLASS;
	else if ((a = calibration__find(&pc->cal, "pthread_barrier_wait")))
		*how = ALPHA_BY_FALLBACK;
	return a;
}

void probe_costs__set(struct probe_costs *pc, const struct probe *p, int first, int n)
{
	const struct alpha *a;
	int i, id, how = ALPHA_NONE;

	for (i = 0; i < n && (id = first + i) < SBT_MAX_PROBES; i++) {
		pc->infos[id] = p[i].info;
		pc->sites[id] =
			(struct probe_site){p[i].dev, p[i].ino, p[i].info.offset, p[i].exit_offset};
		if (pc->fixed_enter >= 0) {
			pc->alpha_enter[id] = pc->fixed_enter;
			pc->alpha_exit[id] = pc->fixed_exit;
		} else if (pc->cal_ok && (a = cost_of(pc, &p[i], &how))) {
			pc->alpha_enter[id] = a->entry_ns;
			pc->alpha_exit[id] = a->exit_ns;
			bind(pc, id, a->symbol, how);
		}
		/* every uprobe hit spins that much more (bpf/sync.bpf.c) */
		pc->alpha_enter[id] += pc->inject_ns;
		pc->alpha_exit[id] += pc->inject_ns;
		if (id >= pc->n)
			pc->n = id + 1;
	}
}

/* Whether the tracing session probes the instruction at offset of file
 * (dev, ino), in any process: a uprobe belongs to the file, and a hit runs
 * every consumer of it, whatever process each attached for (the pid only
 * decides which processes get the breakpoint). Our calls to it, with our
 * probe there, would run the session's programs and return probes too, and
 * be measured with them. */
static int probed_here(void *ctx, __u64 dev, __u64 ino, __u64 offset, __u64 exit_offset)
{
	const struct probe_costs *pc = ctx;
	int id;

	for (id = 1; id < pc->n; id++) {
		const struct probe_site *s = &pc->sites[id];

		if (s->ino == ino && s->dev == dev &&
		    (s->offset == offset || (exit_offset && s->exit_offset == exit_offset)))
			return 1;
	}
	return 0;
}

/* Off the CPUs in busy while calibrating, when we may run on another one:
 * our old mask into *old, 1 when it was changed. */
static int move_off(const cpu_set_t *busy, cpu_set_t *old)
{
	cpu_set_t free;

	if (!busy || pthread_getaffinity_np(pthread_self(), sizeof(*old), old))
		return 0;
	CPU_AND(&free, old, old);
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, busy))
			CPU_CLR(cpu, &free);
	if (!CPU_COUNT(&free) || CPU_EQUAL(&free, old))
		return 0;
	return !pthread_setaffinity_np(pthread_self(), sizeof(free), &free);
}

int probe_costs__due(const struct probe_costs *pc, __u64 now)
{
	return pc->calibrator && pc->interval_ns && now >= pc->next_ns;
}

int probe_costs__recalibrate(struct probe_costs *pc, __u64 now, const cpu_set_t *busy)
{
	struct calibration c;
	char err[512];
	cpu_set_t old;
	__u64 ts, end;
	int e, moved;

	if (!probe_costs__due(pc, now))
		return 0;
	moved = move_off(busy, &old);
	e = calibrator__remeasure(pc->calibrator, probed_here, pc, &c, &ts, err, sizeof(err));
	if (moved)
		pthread_setaffinity_np(pthread_self(), sizeof(old), &old);
	end = clock_ns(CLOCK_MONOTONIC);
	pc->next_ns = end + pc->interval_ns;
	if (!e)
		log_info("measured the probe costs of %d functions again in %.1f ms%s", c.n,
			 (end - now) / 1e6, moved ? ", off the traced processes' CPUs" : "");
	if (e == -ENOENT && !pc->told++)
		log_info(
			"the probe costs are measured at the start and the end only: the session "
			"probes every function calibrated, and a calibration's calls would run its "
			"probes too");
	else if (e && !pc->told++)
		log_warn("measuring the probe costs while tracing failed (%s): they are measured "
			 "at the start and the end only",
			 err);
	if (e) {
		pc->interval_ns = 0;
		return 0;
	}
	note_calibration(pc, &c, ts);
	return 1;
}

void probe_costs__finish(struct probe_costs *pc)
{
	struct calibration c;
	char err[512];
	__u64 ts;

	if (!pc->calibrator)
		return;
	if (calibrator__measure(pc->calibrator, &c, &ts, err, sizeof(err)))
		log_warn("the probe costs could not be measured at the end (%s)", err);
	else
		note_calibration(pc, &c, ts);
	calibrator__free(pc->calibrator);
	pc->calibrator = NULL;
}

void probe_costs__free(struct probe_costs *pc)
{
	__u32 i;

	calibrator__free(pc->calibrator);
	alpha_series__free(pc->series);
	for (i = 0; i < pc->nnames; i++)
		free(pc->names[i]);
	free(pc->names);
	free(pc->cals);
	free(pc->costs);
	free(pc->bound);
	free(pc->how);
	free(pc->sites);
	free(pc->infos);
	free(pc->alpha_enter);
	free(pc->alpha_exit);
	memset(pc, 0, sizeof(*pc));
}
