// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "lib/log.h"
#include "user/trace/probe_costs.h"

/* Probe id 0 is no uprobe: the futex records' tracepoints. */
static void load_calibration(struct probe_costs *pc, const struct env *env, int ncounters)
{
	const struct alpha *a;
	char err[512];
	int measured;

	if (calibration__get(&pc->cal, &measured, err, sizeof(err))) {
		log_warn("calibration failed (%s): no approximation", err);
		return;
	}
	pc->cal_ok = 1;
	if (measured)
		log_info("calibrated the probe costs (cached in %s)", CALIBRATION_CACHE);
	a = calibration__find(&pc->cal, CAL_FUTEX);
	if (a && (env->classes & SBT_TRACE_FUTEX)) {
		pc->alpha_enter[0] = a->entry_ns;
		pc->alpha_exit[0] = a->exit_ns;
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
	pc->infos = calloc(SBT_MAX_PROBES, sizeof(*pc->infos));
	pc->alpha_enter = calloc(SBT_MAX_PROBES, sizeof(__u64));
	pc->alpha_exit = calloc(SBT_MAX_PROBES, sizeof(__u64));
	if (!pc->infos || !pc->alpha_enter || !pc->alpha_exit)
		return -ENOMEM;
	if (pc->fixed_enter < 0)
		load_calibration(pc, env, ncounters);
	return 0;
}

/* α of a probe: the calibrated cost of its function, else (a --probe
 * function) that of a calibrated function whose first instruction the
 * kernel handles the same way. */
static void cost_of(const struct probe_costs *pc, const struct probe *p, __u64 *enter, __u64 *exit)
{
	const struct alpha *a;

	if (pc->fixed_enter >= 0) {
		*enter = pc->fixed_enter;
		*exit = pc->fixed_exit;
		return;
	}
	if (!pc->cal_ok)
		return;
	/* a shim site costs the same whatever the function it wraps */
	a = p->exit_offset ? calibration__find(&pc->cal, CAL_SHIM_SITE) : NULL;
	if (!a)
		a = calibration__find(&pc->cal, p->info.symbol);
	if (!a)
		a = calibration__for_class(&pc->cal, insn_class__of(p->open_path, p->info.offset));
	if (!a)
		a = calibration__find(&pc->cal, "pthread_barrier_wait");
	*enter = a ? a->entry_ns : 0;
	*exit = a ? a->exit_ns : 0;
}

void probe_costs__set(struct probe_costs *pc, const struct probe *p, int first, int n)
{
	int i, id;

	for (i = 0; i < n && (id = first + i) < SBT_MAX_PROBES; i++) {
		pc->infos[id] = p[i].info;
		cost_of(pc, &p[i], &pc->alpha_enter[id], &pc->alpha_exit[id]);
		/* every uprobe hit spins that much more (bpf/sync.bpf.c) */
		pc->alpha_enter[id] += pc->inject_ns;
		pc->alpha_exit[id] += pc->inject_ns;
		if (id >= pc->n)
			pc->n = id + 1;
	}
}

void probe_costs__free(struct probe_costs *pc)
{
	free(pc->infos);
	free(pc->alpha_enter);
	free(pc->alpha_exit);
	memset(pc, 0, sizeof(*pc));
}
