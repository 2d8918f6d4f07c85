// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "lib/clock.h"
#include "lib/log.h"
#include "lib/proc.h"
#include "user/trace/late_bodies.h"

/* A probe added while tracing: when it took effect for a process (or all). */
struct late_probe {
	__u64 armed_ns;
};

#define ALL_PROCESSES 0 /* armed's key for a probe attached for every process */

static char present; /* the value of the maps used as sets */
#define PRESENT ((void *)&present)

void late_bodies__init(struct late_bodies *lb)
{
	hmap_init(&lb->seen);
	hmap_init(&lb->late);
	hmap_init(&lb->armed);
}

void late_bodies__free(struct late_bodies *lb)
{
	hmap_free(&lb->seen);
	hmap_free(&lb->late);
	hmap_free_values(&lb->armed);
}

static void fill_armed(struct sbt_event *r, const struct sbt_event *e, int id, __u64 ts)
{
	memset(r, 0, sizeof(*r));
	r->type = SBT_EV_PROBE_ARMED;
	r->ts = ts;
	r->pid = r->tid = e->pid;
	r->obj = e->obj;
	r->probe = id;
}

/* Say once per process that its regions are probed as they come. */
static void tell(struct late_bodies *lb, const struct sbt_event *e, const char *path)
{
	if (hmap_get(&lb->seen, e->pid, 0) || hmap_put(&lb->seen, e->pid, 0, PRESENT))
		return;
	log_warn(
		"pid %u: %s: a region body not probed before it ran (the program is stripped, or "
		"it was mapped before sbt-bpf could probe it): each body is probed when its region "
		"first runs; instances before are regions, not barrier episodes",
		e->pid, path);
}

/* A body probe of t for process pid, added now unless there. id, 0 (not
 * possible: warned) or -ENOMEM. */
static int add_body(struct probe_table *t, const struct mapped_file *f, uint64_t offset,
		    const struct sbt_event *e)
{
	char name[64];
	int n;

	snprintf(name, sizeof(name), "region@0x%llx", (unsigned long long)offset);
	n = probes__add_body(t, name, f, offset, 0); /* a stripped program: no span known */
	if (n == -ENOMEM)
		return n;
	if (n < 0) {
		log_warn("pid %u: cannot probe the region body at 0x%llx in %s: %s", e->pid,
			 (unsigned long long)e->obj, f->path,
			 n == -E2BIG ? "too many probes" : "its first instruction takes no uprobe");
		return 0;
	}
	return probes__find(t, f->dev, f->inode, offset);
}

/* Attach probe id of t for pid (-1: every process) and note when. */
static int arm(struct late_bodies *lb, struct trace_ctx *c, struct probe_table *t, int id,
	       pid_t pid, __u64 *armed_ns)
{
	struct late_probe *lp;
	char err[512];

	probe_costs__set(&c->costs, &t->probes[id], id, 1);
	if (session__attach_probes(c->session, &t->probes[id], 1, pid, err, sizeof(err))) {
		log_warn("%s", err);
		return 0;
	}
	*armed_ns = clock_ns(CLOCK_MONOTONIC);
	lp = hmap_put_new(&lb->armed, pid < 0 ? ALL_PROCESSES : (uint64_t)pid, id, sizeof(*lp));
	if (!lp)
		return -ENOMEM;
	lp->armed_ns = *armed_ns;
	return 1;
}

int late_bodies__see(struct late_bodies *lb, struct trace_ctx *c, struct probe_table *t,
		     int every_process, const struct sbt_event *e, struct sbt_event *armed)
{
	const struct late_probe *lp;
	pid_t pid = every_process ? -1 : (pid_t)e->pid;
	struct mapped_file f;
	uint64_t offset;
	__u64 armed_ns;
	int id, rc;

	if (!e->obj || hmap_get(&lb->seen, e->pid, e->obj))
		return 0;
	if (hmap_put(&lb->seen, e->pid, e->obj, PRESENT))
		return -ENOMEM;
	if (proc__locate(e->pid, e->obj, &f, &offset))
		return 0; /* gone, or code of no file */
	id = probes__find(t, f.dev, f.inode, offset);
	if (id && !hmap_get(&lb->late, id, 0))
		return 0; /* probed from the start */
	lp = id ? hmap_get(&lb->armed, pid < 0 ? ALL_PROCESSES : (uint64_t)pid, id) : NULL;
	if (lp) { /* attached for every process already */
		fill_armed(armed, e, id, lp->armed_ns);
		return 1;
	}
	tell(lb, e, f.path);
	if (!id) {
		id = add_body(t, &f, offset, e);
		if (id <= 0 || hmap_put(&lb->late, id, 0, PRESENT))
			return id < 0 ? id : 0;
	}
	rc = arm(lb, c, t, id, pid, &armed_ns);
	if (rc <= 0)
		return rc;
	fill_armed(armed, e, id, armed_ns);
	return 1;
}
