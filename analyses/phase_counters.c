// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Counter deltas per phase (doc/design.md §5.3): values at a thread's arrival less
 * those at its previous departure give the deltas of its compute window
 * (barrier waiting excluded, as SBT counted); values at a departure open
 * the next window. A thread counted since its first run in the session has
 * a known start (0) for phase 0 too.
 */
#include "analyses/phases_impl.h"

void phase_counters__record(struct phases *p, struct ph_thread *t, const struct sbt_event *e)
{
	__u32 k0 = SBT_CTR_INDEX(e->probe), j;
	__u64 v[2] = {e->obj, e->site};
	struct ph_arrival *a = NULL;

	if (t->ctr_target == CTR_ARRIVAL && t->waiting)
		a = &t->waiting->arr[t->waiting_idx];
	for (j = 0; j < 2 && k0 + j < (__u32)p->cfg.ncounters && k0 + j < SBT_MAX_COUNTERS; j++) {
		__u32 k = k0 + j;

		if (t->ctr_target == CTR_DEPARTURE) {
			t->ctr_depart[k] = v[j];
			t->ctr_depart_valid = 1;
		} else if (a && !a->partial &&
			   (t->ctr_depart_valid || (e->probe & SBT_CTR_SINCE_START))) {
			__u64 start = t->ctr_depart_valid ? t->ctr_depart[k] : 0;

			a->ctr[k] = v[j] > start ? v[j] - start : 0;
			a->ctr_valid = 1;
			a->ctr_scaled |= !!(e->probe & SBT_CTR_SCALED);
		}
	}
}
