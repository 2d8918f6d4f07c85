// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Parallel region frames (GOMP_parallel, __kmpc_fork_call, --probe :region),
 * per call site: count, total, min and max duration. A `parallel for` ends
 * in the runtime's join barrier, which no exported function shows, so the
 * region is the phase there.
 */
#include "lib/array.h"
#include "analyses/phases_impl.h"

/* The site of e's region (NULL: no memory), found through (pid, probe,
 * call site): a completion costs the same however many sites came before
 * (a trace may give every region its own). */
static struct ph_region_site *region_site(struct phases *p, const struct sbt_event *e)
{
	struct ph_region_stats *r = &p->regions;
	__u64 key = (__u64)e->pid << 16 | e->probe;
	size_t ix;

	if (hmap_get_index(&p->region_ix, key, e->site, &ix))
		return &r->sites[ix];
	if (array_reserve((void **)&r->sites, &p->cap_region_sites, r->nsites + 1,
			  sizeof(*r->sites)) ||
	    hmap_put_index(&p->region_ix, key, e->site, r->nsites))
		return NULL;
	r->sites[r->nsites] = (struct ph_region_site){
		.pid = e->pid, .site = e->site, .probe = e->probe, .min_ns = UINT64_MAX};
	return &r->sites[r->nsites++];
}

void regions__done(struct phases *p, const struct sbt_event *e, __u64 ns, int unprobed)
{
	struct ph_region_site *rs;

	p->regions.count++;
	p->regions.total_ns += ns;
	rs = region_site(p, e);
	if (!rs)
		return;
	rs->count++;
	rs->unprobed += unprobed != 0;
	rs->total_ns += ns;
	rs->min_ns = ns < rs->min_ns ? ns : rs->min_ns;
	rs->max_ns = ns > rs->max_ns ? ns : rs->max_ns;
}
