// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Probe costs over a session's time (analyses/alpha_series.h): the cost in
 * force at a time, entries a calibration left out, bindings, lookups in and
 * out of time order. */
#include <errno.h>
#include "analyses/alpha_series.h"
#include "unit.h"

static __u64 entry_at(const struct alpha_series *s, int e, __u64 ts, __u32 *hint)
{
	struct alpha_cost c = {0};

	CHECK(alpha_series__cost(s, e, ts, hint, &c));
	return c.entry_ns;
}

/* Three calibrations of two functions; the cost in force is the latest at
 * or before the time asked, the first before it. */
TEST(cost_in_force_at_a_time)
{
	static const char *const names[] = {"pthread_barrier_wait", "sem_wait"};
	const struct alpha_cost c1[] = {{700, 650}, {710, 640}}, c2[] = {{900, 800}, {950, 820}},
				c3[] = {{600, 500}, {620, 520}};
	struct alpha_series *s = alpha_series__new();
	struct alpha_cost c;
	__u32 hint = 0;
	int e;

	CHECK(s);
	CHECK_EQ(alpha_series__add(s, 1000, names, c1, NULL, 2), 0);
	CHECK_EQ(alpha_series__add(s, 5000, names, c2, NULL, 2), 0);
	CHECK_EQ(alpha_series__add(s, 9000, names, c3, NULL, 2), 0);
	CHECK_EQ(alpha_series__count(s), 3);
	CHECK_EQ(alpha_series__ts(s, 1), 5000);
	e = alpha_series__find(s, "sem_wait");
	CHECK_EQ(e, 1);
	CHECK_EQ(entry_at(s, e, 10, &hint), 710); /* before the first: the first */
	CHECK_EQ(entry_at(s, e, 1000, &hint), 710);
	CHECK_EQ(entry_at(s, e, 4999, &hint), 710);
	CHECK_EQ(entry_at(s, e, 5000, &hint), 950); /* at its time, it is in force */
	CHECK_EQ(entry_at(s, e, 8999, &hint), 950);
	CHECK_EQ(entry_at(s, e, 123456, &hint), 620);
	/* out of time order, and a hint from nowhere: the same answers */
	CHECK_EQ(entry_at(s, e, 1, &hint), 710);
	hint = 77;
	CHECK_EQ(entry_at(s, e, 6000, &hint), 950);
	CHECK_EQ(hint, 1);
	CHECK(alpha_series__cost(s, 0, 9000, &hint, &c));
	CHECK_EQ(c.exit_ns, 500);
	/* the range of each cost over the calibrations */
	CHECK_EQ(alpha_series__entry(s, 0).measured, 3);
	CHECK_EQ(alpha_series__entry(s, 0).min.entry_ns, 600);
	CHECK_EQ(alpha_series__entry(s, 0).max.entry_ns, 900);
	CHECK_EQ(alpha_series__entry(s, 0).min.exit_ns, 500);
	CHECK_EQ(alpha_series__entry(s, 0).max.exit_ns, 800);
	/* calibrations come in time order */
	CHECK_EQ(alpha_series__add(s, 8000, names, c1, NULL, 2), -EINVAL);
	CHECK_EQ(alpha_series__count(s), 3);
	alpha_series__free(s);
}

/* A calibration that leaves an entry out keeps its earlier value; an entry
 * first measured later holds its first value before it too; one never
 * measured has no cost. */
TEST(entries_left_out_and_measured_later)
{
	static const char *const all[] = {"pthread_barrier_wait", ALPHA_SYM_FUTEX},
				 *const some[] = {"pthread_barrier_wait"},
				 *const late[] = {ALPHA_SYM_COUNTERS};
	const struct alpha_cost a[] = {{700, 650}, {200, 200}}, b[] = {{800, 700}},
				l[] = {{300, 0}};
	const int cls[] = {1, 3};
	struct alpha_series *s = alpha_series__new();
	struct alpha_cost c;
	__u32 hint = 0;
	int futex, counters;

	CHECK_EQ(alpha_series__add(s, 100, all, a, cls, 2), 0);
	CHECK_EQ(alpha_series__add(s, 200, some, b, NULL, 1), 0);
	CHECK_EQ(alpha_series__add(s, 300, late, l, NULL, 1), 0);
	futex = alpha_series__find(s, ALPHA_SYM_FUTEX);
	counters = alpha_series__counters(s);
	CHECK_EQ(counters, alpha_series__find(s, ALPHA_SYM_COUNTERS));
	CHECK_EQ(entry_at(s, futex, 250, &hint), 200);
	CHECK_EQ(alpha_series__entry(s, futex).measured, 1);
	CHECK_EQ(alpha_series__entry(s, futex).cls, 3);
	hint = 0;
	CHECK_EQ(entry_at(s, counters, 150, &hint), 300);
	hint = 0;
	CHECK_EQ(entry_at(s, 0, 250, &hint), 800);
	/* bound, never measured: no cost (the fixed table's applies) */
	CHECK_EQ(alpha_series__bind(s, 5, "my_barrier", ALPHA_BY_NAME), 0);
	CHECK_EQ(alpha_series__cost(s, alpha_series__entry_of(s, 5, NULL), 250, &hint, &c), 0);
	CHECK_EQ(alpha_series__cost(s, -1, 250, &hint, &c), 0);
	alpha_series__free(s);
}

/* Probe ids bound to entries, how, and the limits. */
TEST(bindings)
{
	static const char *const names[] = {"pthread_mutex_lock", ALPHA_SYM_SHIM_SITE};
	const struct alpha_cost cost[] = {{9000, 650}, {600, 640}};
	struct alpha_series *s = alpha_series__new();
	char name[32];
	int how = -1, i;

	CHECK_EQ(alpha_series__add(s, 1, names, cost, NULL, 2), 0);
	CHECK_EQ(alpha_series__entry_of(s, 3, &how), -1);
	CHECK_EQ(alpha_series__bind(s, 3, "pthread_mutex_lock", ALPHA_BY_CLASS), 0);
	CHECK_EQ(alpha_series__bind(s, 4, ALPHA_SYM_SHIM_SITE, ALPHA_BY_SHIM), 0);
	CHECK_EQ(alpha_series__entry_of(s, 3, &how), 0);
	CHECK_EQ(how, ALPHA_BY_CLASS);
	CHECK_STR(alpha_how_name(how), "class");
	CHECK_EQ(alpha_series__entry_of(s, 4, &how), 1);
	CHECK_STR(alpha_how_name(how), "shim");
	/* bound again: the new binding */
	CHECK_EQ(alpha_series__bind(s, 3, ALPHA_SYM_SHIM_SITE, ALPHA_BY_SHIM), 0);
	CHECK_EQ(alpha_series__entry_of(s, 3, &how), 1);
	CHECK_EQ(alpha_series__bind(s, SBT_MAX_PROBES, "x", ALPHA_BY_NAME), -EINVAL);
	CHECK_EQ(alpha_series__bind(s, 1, "x", ALPHA_NONE), -EINVAL);
	CHECK_EQ(alpha_series__entry_of(NULL, 3, NULL), -1);
	/* a full series binds no more new names, keeps the old */
	for (i = 0; i < ALPHA_SERIES_MAX_ENTRIES; i++) {
		snprintf(name, sizeof(name), "f%d", i);
		alpha_series__bind(s, 10, name, ALPHA_BY_NAME);
	}
	CHECK_EQ(alpha_series__nentries(s), ALPHA_SERIES_MAX_ENTRIES);
	CHECK_EQ(alpha_series__bind(s, 11, "one more", ALPHA_BY_NAME), -ENOSPC);
	CHECK_EQ(alpha_series__entry_of(s, 11, NULL), -1);
	CHECK_EQ(alpha_series__bind(s, 11, "pthread_mutex_lock", ALPHA_BY_NAME), 0);
	alpha_series__free(s);
}

/*
 * The range a probe may be charged (the error band's costs): its own
 * entry's least and greatest over the calibrations; borrowed by class, over
 * the functions of that class; borrowed as the fallback, over every function
 * (pseudo-entries never count).
 */
TEST(range_of_a_probes_cost)
{
	static const char *const names[] = {"a", "b", "c", ALPHA_SYM_FUTEX};
	const struct alpha_cost m1[] = {{100, 50}, {50, 30}, {900, 900}, {1, 1}},
				m2[] = {{400, 150}, {60, 20}, {900, 900}, {5000, 5000}};
	const int cls[] = {2, 2, 0, -1};
	struct alpha_series *s = alpha_series__new();
	struct alpha_cost lo, hi;

	CHECK_EQ(alpha_series__add(s, 10, names, m1, cls, 4), 0);
	CHECK_EQ(alpha_series__add(s, 20, names, m2, cls, 4), 0);
	CHECK_EQ(alpha_series__bind(s, 1, "a", ALPHA_BY_NAME), 0);
	CHECK_EQ(alpha_series__bind(s, 2, "a", ALPHA_BY_CLASS), 0);
	CHECK_EQ(alpha_series__bind(s, 3, "a", ALPHA_BY_FALLBACK), 0);
	CHECK_EQ(alpha_series__bind(s, 5, ALPHA_SYM_FUTEX, ALPHA_BY_NAME), 0);
	CHECK_EQ(alpha_series__range(s, 1, &lo, &hi), 1);
	CHECK_EQ(lo.entry_ns, 100);
	CHECK_EQ(lo.exit_ns, 50);
	CHECK_EQ(hi.entry_ns, 400);
	CHECK_EQ(hi.exit_ns, 150);
	CHECK_EQ(alpha_series__range(s, 2, &lo, &hi), 1); /* a and b */
	CHECK_EQ(lo.entry_ns, 50);
	CHECK_EQ(lo.exit_ns, 20);
	CHECK_EQ(hi.entry_ns, 400);
	CHECK_EQ(hi.exit_ns, 150);
	CHECK_EQ(alpha_series__range(s, 3, &lo, &hi), 1); /* a, b and c */
	CHECK_EQ(lo.entry_ns, 50);
	CHECK_EQ(lo.exit_ns, 20);
	CHECK_EQ(hi.entry_ns, 900);
	CHECK_EQ(hi.exit_ns, 900);
	CHECK_EQ(alpha_series__range(s, 5, &lo, &hi), 1);
	CHECK_EQ(lo.entry_ns, 1);
	CHECK_EQ(hi.exit_ns, 5000);
	CHECK_EQ(alpha_series__range(s, 4, &lo, &hi), 0); /* not bound */
	CHECK_EQ(alpha_series__range(NULL, 1, &lo, &hi), 0);
	alpha_series__free(s);
}

/* Hits dearer with every CPU hitting: the greatest cost scaled by the
 * largest ratio above 1, the least by the smallest below 1 (none: 1). */
TEST(range_widened_by_the_all_cpus_ratio)
{
	static const char *const names[] = {"a", ALPHA_SYM_ALL_CPUS};
	const struct alpha_cost m1[] = {{100, 50}, {1500, 1000}}, m2[] = {{200, 60}, {900, 1000}};
	struct alpha_series *s = alpha_series__new();
	struct alpha_cost lo, hi;
	double least, greatest;

	alpha_series__all_cpus(s, &least, &greatest);
	CHECK(least == 1 && greatest == 1);
	CHECK_EQ(alpha_series__add(s, 10, names, m1, NULL, 2), 0);
	CHECK_EQ(alpha_series__bind(s, 1, "a", ALPHA_BY_NAME), 0);
	CHECK_EQ(alpha_series__range(s, 1, &lo, &hi), 1); /* x1 .. x1.5 */
	CHECK_EQ(lo.entry_ns, 100);
	CHECK_EQ(hi.entry_ns, 150);
	CHECK_EQ(hi.exit_ns, 75);
	CHECK_EQ(alpha_series__add(s, 20, names, m2, NULL, 2), 0); /* x0.9 .. x1.5 */
	alpha_series__all_cpus(s, &least, &greatest);
	CHECK(least == 0.9 && greatest == 1.5);
	CHECK_EQ(alpha_series__range(s, 1, &lo, &hi), 1);
	CHECK_EQ(lo.entry_ns, 90);
	CHECK_EQ(lo.exit_ns, 45);
	CHECK_EQ(hi.entry_ns, 300);
	CHECK_EQ(hi.exit_ns, 90);
	alpha_series__free(s);
}

/* The threads the all-CPUs ratio was measured with, from the entry's class
 * (an older trace's class alone: unknown). */
TEST(all_cpus_threads_from_the_entry_class)
{
	static const char *const names[] = {ALPHA_SYM_ALL_CPUS};
	const struct alpha_cost m[] = {{1500, 1000}};
	const int four[] = {ALPHA_ALL_CPUS_CLS + 4}, old[] = {ALPHA_ALL_CPUS_CLS};
	struct alpha_series *s = alpha_series__new();

	CHECK_EQ(alpha_series__all_cpus_threads(s), 0);
	CHECK_EQ(alpha_series__add(s, 10, names, m, four, 1), 0);
	CHECK_EQ(alpha_series__all_cpus_threads(s), 4);
	CHECK_EQ(alpha_series__add(s, 30, names, m, old, 1), 0);
	CHECK_EQ(alpha_series__all_cpus_threads(s), 0);
	alpha_series__free(s);
}

/* A hostile trace's all-CPUs ratio (entry over return) past what scaling a
 * cost by it can hold in a __u64 (the trace harness found the conversion,
 * undefined behaviour, under clang's UBSan: corpus trace/all-cpus-ratio-huge.sbt):
 * the greatest cost saturates. */
TEST(range_by_a_ratio_past_u64_saturates)
{
	static const char *const names[] = {"a", ALPHA_SYM_ALL_CPUS};
	const struct alpha_cost m[] = {{1000000, 50}, {UINT64_MAX, 1}};
	struct alpha_series *s = alpha_series__new();
	struct alpha_cost lo, hi;

	CHECK_EQ(alpha_series__add(s, 10, names, m, NULL, 2), 0);
	CHECK_EQ(alpha_series__bind(s, 1, "a", ALPHA_BY_NAME), 0);
	CHECK_EQ(alpha_series__range(s, 1, &lo, &hi), 1);
	CHECK_EQ(lo.entry_ns, 1000000);
	CHECK_EQ(hi.entry_ns, UINT64_MAX);
	CHECK_EQ(hi.exit_ns, UINT64_MAX);
	alpha_series__free(s);
}

/* Records in time order: each lookup lands on the hint or the next one. */
TEST(lookups_in_time_order_follow_the_hint)
{
	static const char *const names[] = {"f"};
	struct alpha_series *s = alpha_series__new();
	struct alpha_cost c;
	__u32 hint = 0;
	__u64 k, ts;

	for (k = 0; k < 1000; k++) {
		c = (struct alpha_cost){k, k};
		CHECK_EQ(alpha_series__add(s, 10 * k, names, &c, NULL, 1), 0);
	}
	for (ts = 0; ts < 10000; ts += 3) {
		CHECK_EQ(entry_at(s, 0, ts, &hint), ts / 10);
		CHECK_EQ(hint, ts / 10);
	}
	/* an entry named twice in one calibration: the first counts */
	{
		static const char *const twice[] = {"g", "g"};
		const struct alpha_cost two[] = {{1, 1}, {2, 2}};

		CHECK_EQ(alpha_series__add(s, 20000, twice, two, NULL, 2), 0);
		hint = 0;
		CHECK_EQ(entry_at(s, alpha_series__find(s, "g"), 20000, &hint), 1);
		CHECK_EQ(alpha_series__entry(s, alpha_series__find(s, "g")).measured, 1);
	}
	alpha_series__free(s);
}
