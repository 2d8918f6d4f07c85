// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Parallel region frames (GOMP_parallel, __kmpc_fork_call, --probe :region),
 * per call site: count, total, min and max duration. A `parallel for` ends
 * in the runtime's join barrier, which no exported function shows, so the
 * region is the phase there.
 */
#include <stdlib.h>
#include "analyses/phases_impl.h"

void regions__done(struct phases *p, const struct sbt_event *e, __u64 ns, int unprobed)
{
	struct ph_region_stats *r = &p->regions;
	struct ph_region_site *rs;
	__u32 i;

	r->count++;
	r->total_ns += ns;
	for (i = 0; i < r->nsites; i++)
		if (r->sites[i].pid == e->pid && r->sites[i].site == e->site &&
		    r->sites[i].probe == e->probe)
			break;
	if (i == r->nsites) {
		rs = realloc(r->sites, (r->nsites + 1) * sizeof(*rs));
		if (!rs)
			return;
		r->sites = rs;
		rs[r->nsites++] = (struct ph_region_site){
			.pid = e->pid, .site = e->site, .probe = e->probe, .min_ns = UINT64_MAX};
	}
	rs = &r->sites[i];
	rs->count++;
	rs->unprobed += unprobed != 0;
	rs->total_ns += ns;
	rs->min_ns = ns < rs->min_ns ? ns : rs->min_ns;
	rs->max_ns = ns > rs->max_ns ? ns : rs->max_ns;
}
