// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * OTF2 archive (Score-P's format; read by Vampir, otf2-print): a location
 * per thread and view (measured, approximated), in a location group per
 * view and process; a region per probed function with its role (barrier,
 * critical section, function); Enter/Leave per call, ThreadAcquireLock and
 * ThreadReleaseLock for mutexes, Metric events for the counters (-e).
 * Events are written record by record, in each thread's own order, so the
 * per-location time order OTF2 requires holds (approximated times keep each
 * thread's order, doc/design.md §5.4). Built against Debian's
 * libopen-trace-format2-dev; without it the format says so.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analyses/export.h"
#include "lib/hmap.h"
#include "lib/log.h"

#ifndef HAVE_OTF2

static int init(struct exporter *x, char *err, size_t errlen)
{
	snprintf(err, errlen,
		 "this sbt-bpf was built without OTF2 (install libopen-trace-format2-dev and "
		 "rebuild)");
	return -1;
}

const struct export_format_ops export_otf2_ops = {.init = init};

#else

#include <otf2/otf2.h>

#define ARCHIVE_NAME	  "traces"
#define STACK_MAX	  16
#define VIEW_SHIFT	  32 /* location id: view << 32 | tid */
/* Threads given locations: the first seen. Each location is two files and
 * at least one 256 KiB chunk of OTF2's (its minimum) in memory: a hostile
 * trace naming millions of threads would take the disk's inodes and
 * gigabytes. The rest are counted and said. */
#define OTF2_MAX_THREADS  1024
/* Hosts of MPI ranks given system tree nodes of their own (the rest: the machine). */
#define OTF2_MAX_HOSTS	  256

struct location {
	__u32 pid, tid;
	int view;
	OTF2_EvtWriter *w;
	__u64 last_ts;
	__u16 stack[STACK_MAX];	    /* regions entered */
	__u64 stack_obj[STACK_MAX]; /* their first argument (a lock's address) */
	int depth;
	uint64_t events; /* counted when its writer is closed */
};

struct otf2 {
	OTF2_Archive *archive;
	struct hmap locations; /* (view, tid) -> struct location */
	struct location **loc_list;
	size_t nloc, cap;
	size_t nthreads;      /* threads with a location */
	struct hmap left_out; /* threads beyond OTF2_MAX_THREADS */
	struct hmap locks;    /* (pid, address) -> lock id + 2 */
	__u32 nlocks;
	__u32 (*lock_order)[2]; /* acquisitions per lock id, per view */
	__u32 cap_locks;
};

static struct otf2 *state(struct exporter *x)
{
	return x->state;
}

static OTF2_FlushType pre_flush(void *user, OTF2_FileType type, OTF2_LocationRef loc, void *cb,
				bool final)
{
	return OTF2_FLUSH;
}

static OTF2_TimeStamp post_flush(void *user, OTF2_FileType type, OTF2_LocationRef loc)
{
	return 0;
}

static const OTF2_FlushCallbacks flush_callbacks = {.otf2_pre_flush = pre_flush,
						    .otf2_post_flush = post_flush};

/* OTF2 keeps a writer's chunks in memory until told it cannot have more:
 * a few chunks per writer, then a failed allocation makes it flush them to
 * the file and free them, so memory does not grow with the trace. */
#define CHUNKS_PER_BUFFER 2
#define CHUNK_SIZE	  (256 << 10)

struct chunks {
	void *c[CHUNKS_PER_BUFFER];
	int n;
};

static void *chunk_alloc(void *user, OTF2_FileType type, OTF2_LocationRef loc, void **per_buffer,
			 uint64_t size)
{
	struct chunks *cs = *per_buffer;
	void *c;

	if (!cs) {
		cs = calloc(1, sizeof(*cs));
		if (!cs)
			return NULL;
		*per_buffer = cs;
	}
	if (cs->n == CHUNKS_PER_BUFFER)
		return NULL;
	c = malloc(size);
	if (c)
		cs->c[cs->n++] = c;
	return c;
}

static void chunk_free_all(void *user, OTF2_FileType type, OTF2_LocationRef loc, void **per_buffer,
			   bool final)
{
	struct chunks *cs = *per_buffer;
	int i;

	if (!cs)
		return;
	for (i = 0; i < cs->n; i++)
		free(cs->c[i]);
	cs->n = 0;
	if (final) {
		free(cs);
		*per_buffer = NULL;
	}
}

/* OTF2 reports its errors (a full disk, a file it cannot create) through
 * a callback, printing them by default: the first is kept for one message
 * and the export fails. */
static char otf2_error[256];

static OTF2_ErrorCode on_otf2_error(void *user, const char *file, uint64_t line,
				    const char *function, OTF2_ErrorCode code, const char *fmt,
				    va_list va)
{
	char msg[192];

	if (!otf2_error[0]) {
		vsnprintf(msg, sizeof(msg), fmt, va);
		snprintf(otf2_error, sizeof(otf2_error), "%s: %s", OTF2_Error_GetDescription(code),
			 msg);
	}
	return code;
}

static const OTF2_MemoryCallbacks memory_callbacks = {.otf2_allocate = chunk_alloc,
						      .otf2_free_all = chunk_free_all};

static int init(struct exporter *x, char *err, size_t errlen)
{
	struct otf2 *o = calloc(1, sizeof(*o));

	if (!o || !x->o.path) {
		snprintf(err, errlen, o ? "OTF2 needs an output directory" : "out of memory");
		free(o);
		return -1;
	}
	otf2_error[0] = '\0';
	OTF2_Error_RegisterCallback(on_otf2_error, NULL);
	o->archive = OTF2_Archive_Open(x->o.path, ARCHIVE_NAME, OTF2_FILEMODE_WRITE, CHUNK_SIZE,
				       CHUNK_SIZE, OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
	if (!o->archive) {
		snprintf(err, errlen, "%s: cannot create the OTF2 archive", x->o.path);
		free(o);
		return -1;
	}
	OTF2_Archive_SetFlushCallbacks(o->archive, &flush_callbacks, NULL);
	OTF2_Archive_SetMemoryCallbacks(o->archive, &memory_callbacks, NULL);
	OTF2_Archive_SetSerialCollectiveCallbacks(o->archive);
	OTF2_Archive_OpenEvtFiles(o->archive);
	hmap_init(&o->locations);
	hmap_init(&o->locks);
	hmap_init(&o->left_out);
	x->state = o;
	return 0;
}

static void fini(struct exporter *x)
{
	struct otf2 *o = state(x);
	size_t i;

	if (o->archive)
		OTF2_Archive_Close(o->archive);
	for (i = 0; i < o->nloc; i++)
		free(o->loc_list[i]);
	free(o->loc_list);
	free(o->lock_order);
	hmap_free(&o->locations);
	hmap_free(&o->locks);
	hmap_free(&o->left_out);
	free(o);
}

static OTF2_LocationRef location_ref(const struct location *l)
{
	return (OTF2_LocationRef)l->view << VIEW_SHIFT | l->tid;
}

static struct location *location(struct exporter *x, int view, __u32 pid, __u32 tid)
{
	struct otf2 *o = state(x);
	struct location *l = hmap_get(&o->locations, view, tid);
	int new_thread = !hmap_get(&o->locations, !view, tid);

	if (l)
		return l;
	if (new_thread && o->nthreads == OTF2_MAX_THREADS) {
		hmap_put_index(&o->left_out, tid, 0, 0);
		return NULL;
	}
	if (o->nloc == o->cap) {
		size_t cap = o->cap ? 2 * o->cap : 16;
		struct location **n = realloc(o->loc_list, cap * sizeof(*n));

		if (!n)
			return NULL;
		o->loc_list = n;
		o->cap = cap;
	}
	l = calloc(1, sizeof(*l));
	if (!l)
		return NULL;
	*l = (struct location){.pid = pid, .tid = tid, .view = view};
	l->w = OTF2_Archive_GetEvtWriter(o->archive, location_ref(l));
	if (!l->w || hmap_put(&o->locations, view, tid, l)) {
		free(l);
		return NULL;
	}
	o->nthreads += new_thread;
	o->loc_list[o->nloc++] = l;
	return l;
}

/* OTF2 wants each location's times in order and within the trace. */
static __u64 stamp(struct exporter *x, struct location *l, __u64 ts)
{
	if (ts < x->src.phases.start_ns)
		ts = x->src.phases.start_ns;
	if (ts < l->last_ts)
		ts = l->last_ts;
	l->last_ts = ts;
	return ts;
}

static __u32 lock_id(struct exporter *x, __u32 pid, __u64 addr)
{
	struct otf2 *o = state(x);
	uintptr_t v = (uintptr_t)hmap_get(&o->locks, pid, addr);

	if (v)
		return (__u32)(v - 2);
	if (o->nlocks == o->cap_locks) {
		__u32 cap = o->cap_locks ? 2 * o->cap_locks : 64;
		__u32(*n)[2] = realloc(o->lock_order, cap * sizeof(*n));

		if (!n)
			return 0;
		memset(n + o->cap_locks, 0, (cap - o->cap_locks) * sizeof(*n));
		o->lock_order = n;
		o->cap_locks = cap;
	}
	hmap_put(&o->locks, pid, addr, (void *)(uintptr_t)(o->nlocks + 2));
	return o->nlocks++;
}

static int kind_of(const struct exporter *x, __u16 probe)
{
	return probe < x->src.phases.nprobes ? x->src.phases.probes[probe].kind : 0;
}

static void enter(struct exporter *x, struct location *l, const struct sbt_event *e, __u64 ts)
{
	if (l->depth < STACK_MAX) {
		l->stack[l->depth] = e->probe;
		l->stack_obj[l->depth] = e->obj;
		OTF2_EvtWriter_Enter(l->w, NULL, ts, e->probe);
	}
	l->depth++;
	if (kind_of(x, e->probe) == SBT_PK_UNLOCK) {
		__u32 id = lock_id(x, e->pid, e->obj);

		OTF2_EvtWriter_ThreadReleaseLock(l->w, NULL, ts, OTF2_PARADIGM_PTHREAD, id,
						 state(x)->lock_order[id][l->view]);
	}
}

/* The return of the innermost call of that probe (calls entered before
 * the trace have none and are skipped); a lock acquired takes the address
 * its entry named. */
static void leave(struct exporter *x, struct location *l, const struct sbt_event *e, __u64 ts)
{
	int kind = kind_of(x, e->probe), d;
	__u64 lock = 0;

	for (d = (l->depth < STACK_MAX ? l->depth : STACK_MAX) - 1; d >= 0; d--)
		if (l->stack[d] == e->probe)
			break;
	if (d < 0)
		return;
	lock = l->stack_obj[d];
	while (l->depth > d) {
		l->depth--;
		if (l->depth < STACK_MAX)
			OTF2_EvtWriter_Leave(l->w, NULL, ts, l->stack[l->depth]);
	}
	if ((kind == SBT_PK_LOCK || kind == SBT_PK_TRYLOCK) && (int)e->obj == 0) {
		__u32 id = lock_id(x, e->pid, lock);

		OTF2_EvtWriter_ThreadAcquireLock(l->w, NULL, ts, OTF2_PARADIGM_PTHREAD, id,
						 ++state(x)->lock_order[id][l->view]);
	}
}

static void metric(struct exporter *x, struct location *l, const struct sbt_event *e, __u64 ts)
{
	__u32 k0 = SBT_CTR_INDEX(e->probe), j;
	__u64 v[2] = {e->obj, e->site};

	for (j = 0; j < 2 && k0 + j < (__u32)x->src.phases.ncounters; j++) {
		OTF2_Type type = OTF2_TYPE_UINT64;
		OTF2_MetricValue value = {.unsigned_int = v[j]};

		OTF2_EvtWriter_Metric(l->w, NULL, ts, k0 + j, 1, &type, &value);
	}
}

static void record_view(struct exporter *x, const struct sbt_event *e, int view, __u64 t)
{
	struct location *l = location(x, view, e->pid, e->tid);
	__u64 ts;

	if (!l)
		return;
	ts = stamp(x, l, t);
	switch (e->type) {
	case SBT_EV_ENTER:
		enter(x, l, e, ts);
		break;
	case SBT_EV_EXIT:
		leave(x, l, e, ts);
		break;
	case SBT_EV_COUNTERS:
		if (view == PH_MEASURED)
			metric(x, l, e, ts);
		break;
	}
}

static void record(struct exporter *x, const struct sbt_event *e, __u64 ta)
{
	if (e->type != SBT_EV_ENTER && e->type != SBT_EV_EXIT && e->type != SBT_EV_COUNTERS)
		return;
	if (e->type != SBT_EV_COUNTERS && kind_of(x, e->probe) == 0)
		return;
	if (x->o.views & EXPORT_MEASURED)
		record_view(x, e, PH_MEASURED, e->ts);
	if ((x->o.views & EXPORT_APPROXIMATED) && ta)
		record_view(x, e, PH_APPROXIMATED, ta);
}

/* ---- definitions ------------------------------------------------------------ */

struct defs {
	OTF2_GlobalDefWriter *w;
	OTF2_StringRef nstrings;
};

static OTF2_StringRef string(struct defs *d, const char *s)
{
	OTF2_GlobalDefWriter_WriteString(d->w, d->nstrings, s);
	return d->nstrings++;
}

static OTF2_RegionRole role_of(int kind)
{
	switch (kind) {
	case SBT_PK_BARRIER:
		return OTF2_REGION_ROLE_BARRIER;
	case SBT_PK_TEAM_BARRIER:
		return OTF2_REGION_ROLE_IMPLICIT_BARRIER;
	case SBT_PK_REGION:
		return OTF2_REGION_ROLE_PARALLEL;
	case SBT_PK_LOCK:
	case SBT_PK_TRYLOCK:
	case SBT_PK_UNLOCK:
		return OTF2_REGION_ROLE_CRITICAL;
	default:
		return OTF2_REGION_ROLE_FUNCTION;
	}
}

/* Region ids are probe ids; id 0 (no probe) is defined too, as OTF2 wants
 * dense definitions. */
static void def_regions(struct exporter *x, struct defs *d)
{
	OTF2_StringRef none = string(d, "(no probe)");
	int k;

	OTF2_GlobalDefWriter_WriteRegion(d->w, 0, none, none, none, OTF2_REGION_ROLE_UNKNOWN,
					 OTF2_PARADIGM_UNKNOWN, OTF2_REGION_FLAG_NONE, none, 0, 0);
	for (k = 1; k < x->src.phases.nprobes; k++) {
		const struct sbt_probe_info *p = &x->src.phases.probes[k];
		int omp = !strncmp(p->symbol, "GOMP_", 5) || !strncmp(p->symbol, "__kmpc_", 7);
		OTF2_StringRef name = string(d, p->symbol[0] ? p->symbol : "?");

		OTF2_GlobalDefWriter_WriteRegion(d->w, k, name, name, string(d, p->object),
						 role_of(p->kind),
						 omp ? OTF2_PARADIGM_OPENMP : OTF2_PARADIGM_PTHREAD,
						 OTF2_REGION_FLAG_NONE, string(d, p->object), 0, 0);
	}
}

static void def_metrics(struct exporter *x, struct defs *d)
{
	int k;

	for (k = 0; k < x->src.phases.ncounters; k++) {
		OTF2_MetricMemberRef m = k;

		OTF2_GlobalDefWriter_WriteMetricMember(
			d->w, m, string(d, x->src.counters[k].name),
			string(d, "perf_event counter"), OTF2_METRIC_TYPE_OTHER,
			OTF2_METRIC_ACCUMULATED_START, OTF2_TYPE_UINT64, OTF2_BASE_DECIMAL, 0,
			string(d, "#"));
		OTF2_GlobalDefWriter_WriteMetricClass(d->w, k, 1, &m, OTF2_METRIC_SYNCHRONOUS,
						      OTF2_RECORDER_KIND_CPU);
	}
}

/* The MPI rank and host of process pid (export_opts.threads): 1 when it is a rank. */
static int rank_of(const struct exporter *x, __u32 pid, int *rank, const char **host)
{
	int i;

	for (i = 0; i < x->o.nthreads; i++)
		if (x->o.threads[i].pid == pid && x->o.threads[i].rank_id) {
			*rank = (int)x->o.threads[i].rank_id - 1;
			*host = x->o.threads[i].host ? x->o.threads[i].host : "";
			return 1;
		}
	return 0;
}

/* A system tree node per host of the ranks under the machine (node 0), so
 * that Vampir and Scalasca group ranks by node: the node of host, made on
 * first use (hosts[] their names, *n of them). */
static OTF2_SystemTreeNodeRef host_node(struct defs *d, const char **hosts, size_t *n,
					const char *host)
{
	size_t i;

	for (i = 0; i < *n; i++)
		if (!strcmp(hosts[i], host))
			return (OTF2_SystemTreeNodeRef)(i + 1);
	if (*n == OTF2_MAX_HOSTS)
		return 0;
	hosts[*n] = host;
	OTF2_GlobalDefWriter_WriteSystemTreeNode(d->w, (OTF2_SystemTreeNodeRef)(*n + 1),
						 string(d, host[0] ? host : "node"),
						 string(d, "node"), 0);
	return (OTF2_SystemTreeNodeRef)(++*n);
}

/* A location group per view and process (named by its MPI rank when it is
 * one, on its host's system tree node), a location per thread. */
static void def_locations(struct exporter *x, struct defs *d)
{
	struct otf2 *o = state(x);
	struct hmap groups;
	OTF2_LocationGroupRef ngroups = 0;
	const char *hosts[OTF2_MAX_HOSTS], *host;
	size_t i, nhosts = 0;
	char name[160];
	int rank;

	hmap_init(&groups);
	for (i = 0; i < o->nloc; i++) {
		struct location *l = o->loc_list[i];
		uintptr_t g = (uintptr_t)hmap_get(&groups, l->view, l->pid);

		if (!g) {
			const char *view = l->view == PH_APPROXIMATED ? "approximated" : "measured";
			OTF2_SystemTreeNodeRef node = 0;

			if (rank_of(x, l->pid, &rank, &host)) {
				snprintf(name, sizeof(name), "%s: rank %d on %s: %s (pid %u)", view,
					 rank, host[0] ? host : "?", export__comm(x, l->pid),
					 l->pid);
				node = host_node(d, hosts, &nhosts, host);
			} else {
				snprintf(name, sizeof(name), "%s: %s (pid %u)", view,
					 export__comm(x, l->pid), l->pid);
			}
			OTF2_GlobalDefWriter_WriteLocationGroup(
				d->w, ngroups, string(d, name), OTF2_LOCATION_GROUP_TYPE_PROCESS,
				node, OTF2_UNDEFINED_LOCATION_GROUP);
			g = ++ngroups + 1;
			hmap_put(&groups, l->view, l->pid, (void *)g);
		}
		snprintf(name, sizeof(name), "%s %u", export__comm(x, l->tid), l->tid);
		OTF2_GlobalDefWriter_WriteLocation(d->w, location_ref(l), string(d, name),
						   OTF2_LOCATION_TYPE_CPU_THREAD, l->events, g - 2);
	}
	hmap_free(&groups);
}

/* Open calls are left at the trace's end; event files closed; then the
 * definitions, which need the event counts. */
static void end(struct exporter *x, const struct phases *p, const struct export_drops *dr)
{
	struct otf2 *o = state(x);
	__u64 t1 = x->o.end_ns > x->src.phases.start_ns ? x->o.end_ns : x->src.phases.start_ns;
	struct defs d = {0};
	size_t i;

	for (i = 0; i < o->nloc; i++) {
		struct location *l = o->loc_list[i];
		__u64 ts = l->last_ts > t1 ? l->last_ts : t1;

		while (l->depth > 0) {
			l->depth--;
			if (l->depth < STACK_MAX)
				OTF2_EvtWriter_Leave(l->w, NULL, ts, l->stack[l->depth]);
		}
		t1 = ts;
	}
	for (i = 0; i < o->nloc; i++) {
		OTF2_EvtWriter_GetNumberOfEvents(o->loc_list[i]->w, &o->loc_list[i]->events);
		OTF2_Archive_CloseEvtWriter(o->archive, o->loc_list[i]->w);
	}
	OTF2_Archive_CloseEvtFiles(o->archive);
	OTF2_Archive_OpenDefFiles(o->archive);
	for (i = 0; i < o->nloc; i++)
		OTF2_Archive_CloseDefWriter(
			o->archive,
			OTF2_Archive_GetDefWriter(o->archive, location_ref(o->loc_list[i])));
	OTF2_Archive_CloseDefFiles(o->archive);
	if (o->left_out.len)
		log_warn("OTF2: %zu threads beyond the first %d left out of the archive",
			 o->left_out.len, OTF2_MAX_THREADS);
	d.w = OTF2_Archive_GetGlobalDefWriter(o->archive);
	OTF2_GlobalDefWriter_WriteClockProperties(d.w, 1000000000, x->src.phases.start_ns,
						  t1 - x->src.phases.start_ns,
						  OTF2_UNDEFINED_TIMESTAMP);
	OTF2_GlobalDefWriter_WriteSystemTreeNode(d.w, 0, string(&d, "machine"), string(&d, "node"),
						 OTF2_UNDEFINED_SYSTEM_TREE_NODE);
	def_regions(x, &d);
	def_metrics(x, &d);
	def_locations(x, &d);
	OTF2_Archive_CloseGlobalDefWriter(o->archive, d.w);
	if (OTF2_Archive_Close(o->archive) != OTF2_SUCCESS || otf2_error[0]) {
		log_err("%s: cannot write the OTF2 archive%s%s", x->o.path,
			otf2_error[0] ? ": " : "", otf2_error);
		x->failed = 1;
	}
	o->archive = NULL;
}

const struct export_format_ops export_otf2_ops = {
	.init = init,
	.record = record,
	.end = end,
	.fini = fini,
};

#endif /* HAVE_OTF2 */
