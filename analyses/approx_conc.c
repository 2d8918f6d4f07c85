// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Hits beside hits (doc/design.md §5.4): a probe hit may cost more while other
 * threads hit probes too (the kernel's uprobe paths are shared). The session
 * measures a barrier call's two hits alone and with a thread per CPU hitting
 * at once (ALPHA_SYM_ALL_CPUS, with how many threads); a hit is charged its
 * calibrated cost scaled between the two by how many other traced threads
 * were hitting probes around it: the sum of their duties (the share of their
 * time spent in hits, decayed over DUTY_TAU_NS), at most the measurement's.
 * The duties are one sum decayed as a whole, so a record costs O(1) however
 * many threads there are.
 */
#include <math.h>
#include "analyses/phases_impl.h"

/* How far back a thread's hits count: long beside a hit (~1 us), short
 * beside a phase. */
#define DUTY_TAU_NS 1000000.0

static double decayed(double v, __u64 from, __u64 to)
{
	return to > from ? v * exp(-(double)(to - from) / DUTY_TAU_NS) : v;
}

/* The all-CPUs entry and its threads, looked up again when the series
 * changed (-1 or 0 threads: nothing to scale). */
static void conc_entry(struct phases *p)
{
	__u64 g = alpha_series__generation(p->cfg.alpha_series) + 1;

	if (g == p->conc_gen)
		return;
	p->conc_gen = g;
	p->conc_entry = alpha_series__find(p->cfg.alpha_series, ALPHA_SYM_ALL_CPUS);
	p->conc_threads = alpha_series__all_cpus_threads(p->cfg.alpha_series);
}

/* The ratio in force at ts, as every cost is (the live analysis and report
 * of the file charge the same); none below 1, a hit made cheaper by others
 * hitting being noise, which the band carries (alpha_series__range()). */
static double conc_ratio(struct phases *p, __u64 ts)
{
	struct alpha_cost c;
	int e = p->conc_entry;

	if (e < 0 || !alpha_series__cost(p->cfg.alpha_series, e, ts, &p->alpha_hint[e], &c) ||
	    !c.exit_ns || c.entry_ns <= c.exit_ns)
		return 1;
	return (double)c.entry_ns / (double)c.exit_ns;
}

void approx_conc__at(struct phases *p, struct ph_thread *t, __u64 ts)
{
	double ratio, others;

	p->conc_k = 1;
	if (!p->cfg.alpha_series)
		return;
	conc_entry(p);
	if (p->conc_threads < 2 || (ratio = conc_ratio(p, ts)) == 1)
		return;
	others = decayed(p->duty_sum, p->duty_ts, ts) - decayed(t->duty, t->duty_ts, ts);
	p->conc_k = alpha_concurrency_factor(ratio, p->conc_threads, others);
}

void approx_conc__hit(struct phases *p, struct ph_thread *t, __u64 ts, __u64 ns)
{
	double d = (double)ns / DUTY_TAU_NS;

	/* no thread count (approx_conc__at() looked it up): nothing to scale */
	if (!p->cfg.alpha_series || p->conc_threads < 2)
		return;
	/* records come in time order but for stragglers: an older one adds
	 * to the sums undecayed */
	p->duty_sum = decayed(p->duty_sum, p->duty_ts, ts) + d;
	p->duty_ts = ts > p->duty_ts ? ts : p->duty_ts;
	t->duty = decayed(t->duty, t->duty_ts, ts) + d;
	t->duty_ts = ts > t->duty_ts ? ts : t->duty_ts;
}

/* ns times the factor in force */
__u64 approx_conc__scaled(const struct phases *p, __u64 ns)
{
	return p->conc_k == 1 ? ns : scaled_u64(ns, p->conc_k);
}
