// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The trace file's metadata, put as the session finds it: what was put is
 * remembered, each call puts the difference (lib/tracefile.h says how
 * repeated sections combine). */
#include <inttypes.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include "lib/array.h"
#include "lib/hmap.h"
#include "sbt/version.h"
#include "user/trace/launch.h"
#include "user/trace/trace_meta.h"

/* A job or a thread as last put. */
struct put_job {
	__u64 end_ns, drops;
	int closed; /* ended, put so: changes no more */
	int put;    /* written at least once */
};

struct put_thread {
	__u64 start_ns, exit_ns;
	char comm[16];
};

struct trace_meta {
	int started, ended;
	int nprobes;	   /* probe ids put: 1 + the highest */
	__u32 ncals;	   /* calibrations put */
	size_t nsymbols;   /* names put, in insertion order */
	size_t first_open; /* jobs before it are closed */
	struct put_job *jobs;
	size_t njobs, cap_jobs;
	struct hmap threads; /* (job index, tid) -> struct put_thread */
	__u64 drops;
	__u64 *per_cpu;
	int ncpus;
};

struct trace_meta *trace_meta__new(void)
{
	struct trace_meta *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	hmap_init(&s->threads);
	s->ncpus = session__ncpus();
	s->per_cpu = calloc(s->ncpus > 0 ? s->ncpus : 1, sizeof(__u64));
	if (!s->per_cpu) {
		trace_meta__free(s);
		return NULL;
	}
	return s;
}

void trace_meta__free(struct trace_meta *s)
{
	if (!s)
		return;
	hmap_free_values(&s->threads);
	free(s->jobs);
	free(s->per_cpu);
	free(s);
}

/* The recording: at the start, then again at its end. */
static void fill_info(struct tf_meta *m, const struct target *tg, __u64 end_ns)
{
	const struct trace_ctx *c = tg->ctx;
	char kernel[512] = "", end[64] = "", inject[32] = "";
	struct utsname u;
	int ok = !uname(&u), ws;

	if (ok)
		snprintf(kernel, sizeof(kernel), "%s %s %s %s", u.sysname, u.release, u.version,
			 u.machine);
	m->kernel = strdup(kernel);
	m->host = strdup(ok ? u.nodename : "");
	m->command = strdup(c->command);
	m->clock = strdup("CLOCK_MONOTONIC");
	m->sbt_version = strdup(SBT_VERSION);
	m->start_ns = c->start_ns;
	m->end_ns = end_ns;
	m->realtime_offset_ns = c->realtime_offset_ns;
	/* how the launched command ended, when it did while traced */
	if (end_ns && tg->ops->ended && tg->ops->ended(tg, &ws))
		launch__describe_end(ws, end, sizeof(end));
	m->command_end = strdup(end);
	if (c->env->inject_ns)
		snprintf(inject, sizeof(inject), "%" PRIu64, (uint64_t)c->env->inject_ns);
	m->inject_delay_ns = strdup(inject);
	m->costs_source = strdup(c->costs.source ? c->costs.source : "");
	m->job_id = strdup(c->env->job_id ? c->env->job_id : "");
}

/* The names of the calibrated entries so far (a table each put carries). */
static int copy_names(struct tf_meta *m, const struct probe_costs *pc)
{
	__u32 i;

	if (m->cost_names)
		return 0;
	m->cost_names = calloc(pc->nnames + 1, sizeof(*m->cost_names));
	for (i = 0; m->cost_names && i < pc->nnames; i++)
		if (!(m->cost_names[m->ncost_names++] = strdup(pc->names[i])))
			return -ENOMEM;
	return m->cost_names ? 0 : -ENOMEM;
}

/* Calibrations taken since (doc/design.md §5.4), in the order taken. */
static unsigned int fill_calibrations(struct trace_meta *s, struct tf_meta *m,
				      const struct probe_costs *pc)
{
	__u32 i, first, n;

	if (pc->ncals <= s->ncals)
		return 0;
	first = pc->cals[s->ncals].first;
	n = pc->ncosts - first;
	m->calibrations = calloc(pc->ncals - s->ncals, sizeof(*m->calibrations));
	m->cal_costs = calloc(n + 1, sizeof(*m->cal_costs));
	if (!m->calibrations || !m->cal_costs || copy_names(m, pc))
		return 0;
	for (i = s->ncals; i < pc->ncals; i++) {
		m->calibrations[m->ncalibrations] = pc->cals[i];
		m->calibrations[m->ncalibrations++].first -= first;
	}
	memcpy(m->cal_costs, pc->costs + first, n * sizeof(*m->cal_costs));
	m->ncal_costs = n;
	s->ncals = pc->ncals;
	return TF_PUT(TF_SEC_CALIBRATION);
}

/* The entries probes first..n-1 (and the futex tracepoints, id 0, at the
 * start) are charged. */
static unsigned int fill_bindings(struct tf_meta *m, const struct probe_costs *pc, int first, int n)
{
	int id;

	m->cost_binds = calloc(n + 1, sizeof(*m->cost_binds));
	if (!m->cost_binds || copy_names(m, pc))
		return 0;
	for (id = first; id < n; id++)
		if (pc->bound[id])
			m->cost_binds[m->ncost_binds++] = (struct tf_cost_bind){
				.id = (__u16)id, .how = pc->how[id], .name = pc->bound[id] - 1};
	return m->ncost_binds ? TF_PUT(TF_SEC_PROBE_COSTS) : 0;
}

/* Probes found since (libraries loaded later: ids never move), and the costs of all. Id 0
 * is not a probe: not in the table. */
static unsigned int fill_probes(struct trace_meta *s, struct tf_meta *m,
				const struct probe_costs *pc)
{
	int first = s->nprobes > 1 ? s->nprobes : 1, n = pc->n;
	unsigned int put;

	if (n <= first)
		return 0;
	put = fill_bindings(m, pc, s->nprobes ? first : 0, n);
	m->probes = calloc(n - first, sizeof(*m->probes));
	m->alpha_enter = calloc(n, sizeof(__u64));
	m->alpha_exit = calloc(n, sizeof(__u64));
	if (!m->probes || !m->alpha_enter || !m->alpha_exit)
		return 0;
	memcpy(m->probes, pc->infos + first, (n - first) * sizeof(*m->probes));
	m->nprobes = n - first;
	memcpy(m->alpha_enter, pc->alpha_enter, n * sizeof(__u64));
	memcpy(m->alpha_exit, pc->alpha_exit, n * sizeof(__u64));
	m->nalpha = n;
	m->alpha_counters = pc->alpha_counters;
	s->nprobes = n;
	return put | TF_PUT(TF_SEC_PROBES) | TF_PUT(TF_SEC_ALPHA);
}

/* Names resolved since. */
static unsigned int fill_symbols(struct trace_meta *s, struct tf_meta *m, const struct names *names)
{
	size_t i, n = names__count(names);

	if (n <= s->nsymbols)
		return 0;
	m->symbols = calloc(n - s->nsymbols, sizeof(*m->symbols));
	for (i = s->nsymbols; m->symbols && i < n; i++) {
		struct tf_symbol *sym = &m->symbols[m->nsymbols];
		const char *name = names__at(names, i, &sym->pid, &sym->addr);

		sym->name = strdup(name);
		if (!sym->name)
			return 0;
		m->nsymbols++;
	}
	s->nsymbols = n;
	return m->symbols ? TF_PUT(TF_SEC_SYMBOLS) : 0;
}

/* Appends one (zeroed) entry to a table of the delta. */
static void *append(void **arr, __u32 *n, size_t *cap, size_t size)
{
	if (array_reserve(arr, cap, (size_t)*n + 1, size))
		return NULL;
	return (char *)*arr + (size_t)(*n)++ * size; /* zeroed by array_reserve() */
}

struct delta {
	struct tf_meta *m;
	size_t cap_threads, cap_jobs;
	int err;
};

/* Threads of job k new, started again (a reused id) or exited since. */
static void fill_threads(struct trace_meta *s, struct delta *d, const struct trace_ctx *c, size_t k)
{
	const struct phases *ph = jobs__at(c->jobs, k)->ph;
	size_t i;

	for (i = 0; !d->err && i < phases__nthreads(ph); i++) {
		const struct ph_thread *th = phases__thread(ph, i);
		const char *comm = names__comm(c->names, th->tid);
		struct put_thread *pt = hmap_get(&s->threads, k, th->tid), now = {0};
		struct tf_thread *tt;

		now.start_ns = th->start_unknown ? 0 : th->start_ns; /* 0: before the session */
		now.exit_ns = th->exit_ns;
		snprintf(now.comm, sizeof(now.comm), "%s", comm ? comm : "?");
		if (pt && !memcmp(pt, &now, sizeof(now)))
			continue;
		if (!pt)
			pt = hmap_put_new(&s->threads, k, th->tid, sizeof(*pt));
		tt = pt ? append((void **)&d->m->threads, &d->m->nthreads, &d->cap_threads,
				 sizeof(*tt))
			: NULL;
		if (!tt) {
			d->err = -ENOMEM;
			return;
		}
		*pt = now;
		*tt = (struct tf_thread){.pid = th->pid,
					 .tid = th->tid,
					 .start_ns = now.start_ns,
					 .exit_ns = now.exit_ns};
		memcpy(tt->comm, now.comm, sizeof(tt->comm));
	}
}

/* Job k, when new or when its end or losses changed. */
static void fill_job(struct trace_meta *s, struct delta *d, const struct target *tg, size_t k,
		     int final)
{
	const struct job *job = jobs__at(tg->ctx->jobs, k);
	struct put_job now = {job->end_ns, final ? tg->ops->job_drops(tg, job) : job->drops, 0, 1};
	struct tf_job *tj;

	if (k < s->njobs && s->jobs[k].put && s->jobs[k].end_ns == now.end_ns &&
	    s->jobs[k].drops == now.drops)
		return;
	/* zeroed: jobs not put yet (-- CMD: not reported so far) read as such */
	if (array_reserve((void **)&s->jobs, &s->cap_jobs, k + 1, sizeof(*s->jobs))) {
		d->err = -ENOMEM;
		return;
	}
	tj = append((void **)&d->m->jobs, &d->m->njobs, &d->cap_jobs, sizeof(*tj));
	if (!tj || !(tj->command = strdup(job->command))) {
		d->err = -ENOMEM;
		return;
	}
	tj->pid = job->pid;
	tj->start_ns = job->start_ns;
	tj->end_ns = now.end_ns;
	tj->drops = now.drops;
	tj->rank_id = job->rank >= 0 ? (__u32)job->rank + 1 : 0;
	s->jobs[k] = now;
	if (k >= s->njobs)
		s->njobs = k + 1;
}

/* A job whose report is out changes no more: it is not looked at again, its threads are
 * forgotten. */
static void close_job(struct trace_meta *s, const struct trace_ctx *c, size_t k)
{
	const struct phases *ph = jobs__at(c->jobs, k)->ph;
	size_t i;

	for (i = 0; i < phases__nthreads(ph); i++)
		free(hmap_del(&s->threads, k, phases__thread(ph, i)->tid));
	s->jobs[k].closed = 1;
}

static unsigned int fill_jobs(struct trace_meta *s, struct tf_meta *m, const struct target *tg,
			      int final, int *err)
{
	const struct trace_ctx *c = tg->ctx;
	struct delta d = {.m = m};
	size_t k;

	for (k = s->first_open; !d.err && k < jobs__count(c->jobs); k++) {
		const struct job *job = jobs__at(c->jobs, k);

		if (k < s->njobs && s->jobs[k].closed)
			continue;
		/* -- CMD: processes of its tree that did not synchronize are no
		 * report's (their records are skipped by pid) */
		if (!(final ? jobs__reported(c->jobs, job) : jobs__reported_for_good(c->jobs, job)))
			continue;
		fill_job(s, &d, tg, k, final);
		fill_threads(s, &d, c, k);
		if (!d.err && k < s->njobs && jobs__at(c->jobs, k)->ended)
			close_job(s, c, k);
	}
	while (s->first_open < s->njobs && s->jobs[s->first_open].closed)
		s->first_open++;
	/* absent JOBS means a trace of one job: always put them (empty too) at the start */
	if (!m->jobs && !s->started)
		m->jobs = calloc(1, sizeof(*m->jobs));
	*err = d.err;
	return (m->jobs ? TF_PUT(TF_SEC_JOBS) : 0) | (m->nthreads ? TF_PUT(TF_SEC_THREADS) : 0);
}

/* The session's losses, when they changed (always at the end). */
static unsigned int fill_drops(struct trace_meta *s, struct tf_meta *m, struct session *ss,
			       int final)
{
	__u64 total = session__drops(ss, s->per_cpu, s->ncpus);

	if (total == s->drops && !final)
		return 0;
	s->drops = total;
	m->drops_total = total;
	m->drops_per_cpu = calloc(s->ncpus > 0 ? s->ncpus : 1, sizeof(__u64));
	if (!m->drops_per_cpu)
		return 0;
	memcpy(m->drops_per_cpu, s->per_cpu, s->ncpus * sizeof(__u64));
	m->ncpus = s->ncpus;
	return TF_PUT(TF_SEC_DROPS);
}

int trace_meta__put(struct trace_meta *s, struct tf_writer *w, const struct target *tg,
		    __u64 end_ns)
{
	const struct trace_ctx *c = tg->ctx;
	unsigned int mask = 0;
	struct tf_meta m = {0};
	int err = 0;

	if (s->ended)
		return 0;
	if (!s->started || end_ns) {
		fill_info(&m, tg, end_ns);
		mask |= TF_PUT(TF_SEC_INFO);
	}
	if (!s->started) {
		memcpy(m.counters, c->counters.info, sizeof(m.counters));
		m.ncounters = c->counters.n;
		mask |= TF_PUT(TF_SEC_COUNTERS);
	}
	mask |= fill_calibrations(s, &m, &c->costs);
	mask |= fill_probes(s, &m, &c->costs);
	mask |= fill_jobs(s, &m, tg, !!end_ns, &err);
	mask |= fill_symbols(s, &m, c->names);
	mask |= fill_drops(s, &m, c->session, !!end_ns);
	if (!err && mask)
		err = tracefile__put_meta(w, &m, mask);
	tf_meta_free(&m);
	s->started = 1;
	s->ended = !!end_ns;
	return err;
}
