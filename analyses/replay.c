// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "analyses/jobs.h"
#include "lib/log.h"
#include "analyses/replay.h"

/* The probe table indexed by id, as the analysis wants it. */
static struct sbt_probe_info *probe_index(const struct tf_meta *m, int *n)
{
	struct sbt_probe_info *infos;
	__u32 i;
	int max = 0;

	for (i = 0; i < m->nprobes; i++)
		if (m->probes[i].id + 1 > max)
			max = m->probes[i].id + 1;
	infos = calloc(max + 1, sizeof(*infos));
	if (!infos)
		return NULL;
	for (i = 0; i < m->nprobes; i++)
		infos[m->probes[i].id] = m->probes[i];
	*n = max;
	return infos;
}

static struct names *load_names(const struct tf_meta *m)
{
	struct names *n = names__new();
	__u32 i;

	for (i = 0; n && i < m->nsymbols; i++)
		names__set(n, m->symbols[i].pid, m->symbols[i].addr, m->symbols[i].name);
	for (i = 0; n && i < m->nthreads; i++)
		names__set_comm(n, m->threads[i].tid, m->threads[i].comm);
	return n;
}

struct cal_order {
	__u64 ts;
	__u32 k;
};

static int cmp_cal(const void *a, const void *b)
{
	const struct cal_order *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->k < y->k ? -1 : x->k > y->k;
}

/* The probe costs calibrated during the recording (doc/design.md §5.4), in
 * time order whatever the order written, and the entry each probe id is
 * charged. NULL when the trace has none (the ALPHA table alone, as traces
 * of older versions) or memory ran out. */
static struct alpha_series *load_costs(const struct tf_meta *m)
{
	const char *names[TF_COST_NAMES_MAX];
	struct alpha_cost cost[TF_COST_NAMES_MAX];
	int cls[TF_COST_NAMES_MAX];
	struct alpha_series *s;
	struct cal_order *order;
	__u32 i, j, n;

	if (!m->ncalibrations)
		return NULL;
	s = alpha_series__new();
	order = calloc(m->ncalibrations, sizeof(*order));
	for (i = 0; s && order && i < m->ncalibrations; i++)
		order[i] = (struct cal_order){m->calibrations[i].ts_ns, i};
	if (order)
		qsort(order, m->ncalibrations, sizeof(*order), cmp_cal);
	for (i = 0; s && order && i < m->ncalibrations; i++) {
		const struct tf_calibration *cal = &m->calibrations[order[i].k];

		for (j = n = 0; j < cal->n && n < TF_COST_NAMES_MAX; j++) {
			const struct tf_cost *c = &m->cal_costs[cal->first + j];

			names[n] = m->cost_names[c->name];
			cost[n] = (struct alpha_cost){c->entry_ns, c->exit_ns};
			cls[n++] = (int)c->cls;
		}
		if (alpha_series__add(s, cal->ts_ns, names, cost, cls, n)) {
			alpha_series__free(s);
			s = NULL;
		}
	}
	/* a binding the series refuses (an unknown way) leaves its probe the ALPHA cost */
	for (i = 0; s && order && i < m->ncost_binds; i++)
		alpha_series__bind(s, m->cost_binds[i].id, m->cost_names[m->cost_binds[i].name],
				   m->cost_binds[i].how);
	if (!order) {
		alpha_series__free(s);
		s = NULL;
	}
	free(order);
	return s;
}

/* The analysis's tables for the trace just opened in r->tf (NULL: the open
 * failed, err says why), named name in messages. */
static int replay_setup(struct replay *r, const char *name, const char *err)
{
	if (!r->tf) {
		log_err("%s", err);
		return -EINVAL;
	}
	r->m = tracefile__meta(r->tf);
	/* a recording killed or out of disk: its records up to the cut are worth reading */
	if (tracefile__cut(r->tf))
		log_warn("%s: trace was cut after %llu records (recording killed or disk full?): "
			 "reporting what is there",
			 name, (unsigned long long)tracefile__nrecords(r->tf));
	r->infos = probe_index(r->m, &r->nprobes);
	r->names = load_names(r->m);
	r->sync = r->infos ? sync__new(r->infos, r->nprobes) : NULL;
	if (!r->infos || !r->names || !r->sync) {
		log_err("%s: %s", name, strerror(ENOMEM));
		replay__close(r);
		return -ENOMEM;
	}
	r->alpha_ok = r->m->alpha_enter && r->m->nalpha >= (__u32)r->nprobes;
	r->costs = load_costs(r->m);
	if (r->m->ncalibrations && !r->costs) {
		log_err("%s: %s", name, strerror(ENOMEM));
		replay__close(r);
		return -ENOMEM;
	}
	return 0;
}

int replay__open(struct replay *r, const char *path, const struct approx_opts *a)
{
	char err[512];

	memset(r, 0, sizeof(*r));
	r->approx = *a;
	r->tf = tracefile__open(path, err, sizeof(err));
	return replay_setup(r, path, err);
}

int replay__open_fd(struct replay *r, int fd, const char *name, const struct approx_opts *a)
{
	char err[512];

	memset(r, 0, sizeof(*r));
	r->approx = *a;
	r->tf = tracefile__open_fd(fd, name, err, sizeof(err));
	return replay_setup(r, name, err);
}

void replay__close(struct replay *r)
{
	sync__free(r->sync);
	alpha_series__free(r->costs);
	names__free(r->names);
	free(r->infos);
	if (r->tf)
		tracefile__close(r->tf);
	memset(r, 0, sizeof(*r));
}

static int has_pid(const struct tf_meta *m, __u32 pid)
{
	__u32 i;

	for (i = 0; i < m->njobs; i++)
		if (m->jobs[i].pid == pid)
			return 1;
	for (i = 0; !m->jobs && i < m->nthreads; i++)
		if (m->threads[i].pid == pid)
			return 1;
	return 0;
}

static void list_jobs(const struct tf_meta *m, char *buf, size_t n)
{
	size_t len = 0;
	__u32 i;

	buf[0] = 0;
	for (i = 0; i < m->njobs && len < n; i++)
		len += snprintf(buf + len, n - len, "\n  %u  %s", m->jobs[i].pid,
				m->jobs[i].command);
}

int replay__select(struct replay *r, __u32 pid, int need_one)
{
	const struct tf_meta *m = r->m;
	char list[4096];
	__u32 i;

	if (pid && !has_pid(m, pid)) {
		list_jobs(m, list, sizeof(list));
		log_err("the trace holds no process %u%s%s", pid, list[0] ? "; it holds:" : "",
			list);
		return -EINVAL;
	}
	if (!pid && need_one && m->njobs > 1) {
		list_jobs(m, list, sizeof(list));
		log_err("the trace holds %u processes: choose one with --pid PID:%s", m->njobs,
			list);
		return -EINVAL;
	}
	/* a trace of one process may hold records of others (a launched
	 * command's tree: processes that did not synchronize) */
	r->pid = pid ? pid : m->njobs == 1 ? m->jobs[0].pid : 0;
	r->job = m->njobs == 1 ? &m->jobs[0] : NULL;
	for (i = 0; pid && i < m->njobs; i++)
		if (m->jobs[i].pid == pid) {
			r->job = &m->jobs[i];
			break;
		}
	return 0;
}

struct phases_config replay__phases_config(const struct replay *r)
{
	return (struct phases_config){.probes = r->infos,
				      .nprobes = r->nprobes,
				      .start_ns = r->job ? r->job->start_ns : r->m->start_ns,
				      .sync = r->sync,
				      .ncounters = r->m->ncounters,
				      .alpha_enter = r->alpha_ok ? r->m->alpha_enter : NULL,
				      .alpha_exit = r->alpha_ok ? r->m->alpha_exit : NULL,
				      .alpha_counters = r->m->alpha_counters,
				      .alpha_series = r->costs,
				      .model = r->approx.model,
				      .exit_order = r->approx.exit_order};
}

struct report_src replay__report_src(const struct replay *r)
{
	return (struct report_src){.phases = replay__phases_config(r),
				   .names = r->names,
				   .realtime_offset_ns = r->m->realtime_offset_ns,
				   .command = r->job ? r->job->command : r->m->command,
				   .kernel = r->m->kernel,
				   .costs_source = r->m->costs_source,
				   .counters = r->m->counters};
}

/* A thread's start for the analysis: no earlier than its job's; 0 (it ran
 * before the recording) stays 0. */
static __u64 start_of(const struct tf_thread *th, __u64 job_start)
{
	if (!th->start_ns)
		return 0;
	return th->start_ns > job_start ? th->start_ns : job_start;
}

int replay__run(struct replay *r, struct phases *ph, __u64 hang_ns,
		void (*before_finish)(void *ctx), void *ctx)
{
	const struct tf_meta *m = r->m;
	struct sbt_event e;
	__u64 last_check = 0;
	__u32 i;
	int rc;

	__u64 start = r->job ? r->job->start_ns : m->start_ns;

	for (i = 0; i < m->nthreads; i++)
		if (!r->pid || m->threads[i].pid == r->pid)
			phases__add_thread(ph, m->threads[i].pid, m->threads[i].tid,
					   start_of(&m->threads[i], start));
	if (r->on_record)
		phases__on_record(ph, r->on_record, r->record_ctx);
	while ((rc = tracefile__next(r->tf, &e)) == 1) {
		if (r->pid && e.pid != r->pid)
			continue;
		phases__feed(ph, &e);
		/* Hangs in trace time, checked every 10 ms of it. */
		if (hang_ns && e.ts > last_check + 10000000ULL) {
			phases__check_hangs(ph, e.ts, hang_ns);
			last_check = e.ts;
		}
	}
	if (before_finish)
		before_finish(ctx);
	phases__finish(ph);
	if (rc < 0)
		log_err("reading records: %s", strerror(-rc));
	return rc < 0 ? rc : 0;
}

static void at_end(void *ctx)
{
	report__at_end(ctx);
}

/* The next job of the trace for pid (JOBS entries in start order), with
 * its threads. */
static struct job *start_job(struct replay *rp, struct jobs *js, __u32 pid, char *used)
{
	const struct tf_meta *m = rp->m;
	const struct tf_job *tj = NULL;
	struct job *job;
	__u32 i;

	for (i = 0; i < m->njobs && !tj; i++)
		if (m->jobs[i].pid == pid && !used[i]) {
			used[i] = 1;
			tj = &m->jobs[i];
		}
	if (!tj)
		return NULL;
	job = jobs__start(js, pid, tj->start_ns, tj->command);
	if (!job)
		return NULL;
	job->drops = tj->drops;
	for (i = 0; i < m->nthreads; i++) {
		const struct tf_thread *th = &m->threads[i];

		if (th->pid == pid && (!tj->end_ns || th->start_ns <= tj->end_ns) &&
		    (!th->exit_ns || th->exit_ns >= tj->start_ns))
			phases__add_thread(job->ph, pid, th->tid, start_of(th, tj->start_ns));
	}
	return job;
}

static void job_drops(void *ctx, const struct job *job, struct report_drops *d)
{
	(void)ctx;
	d->total = job->drops;
}

/* A report per process of the trace. */
static int report_jobs(struct replay *rp, const struct report_opts *ro, __u64 hang_ns)
{
	struct jobs_config c = {
		.ro = *ro, .src = replay__report_src(rp), .separate = 1, .show_idle = 1};
	struct jobs *js = jobs__new(&c);
	char *used = calloc(rp->m->njobs + 1, 1);
	struct sbt_event e;
	struct job *job;
	__u64 last_check = 0;
	int rc = -ENOMEM;

	if (!js || !used)
		goto out;
	jobs__begin(js);
	while ((rc = tracefile__next(rp->tf, &e)) == 1) {
		job = jobs__find(js, e.pid);
		if (!job && !(job = start_job(rp, js, e.pid, used)))
			continue;
		jobs__feed(js, &e);
		/* hangs in trace time, checked every 10 ms of it */
		if (hang_ns && e.ts > last_check + 10000000ULL) {
			phases__check_hangs(job->ph, e.ts, hang_ns);
			last_check = e.ts;
		}
		if (job->end_ns)
			jobs__end(js, job, &(struct report_drops){.total = job->drops});
	}
	jobs__end_all(js, job_drops, NULL);
	if (rc < 0)
		log_err("reading records: %s", strerror(-rc));
out:
	jobs__free(js);
	free(used);
	return rc < 0 ? rc : 0;
}

int replay__report(struct replay *rp, const struct report_opts *ro, __u64 hang_ns)
{
	const struct tf_meta *m = rp->m;
	struct report_src src = replay__report_src(rp);
	struct report_drops drops = {
		.total = m->drops_total, .per_cpu = m->drops_per_cpu, .ncpus = m->ncpus};
	struct report *r;
	struct phases *ph;
	int rc = -ENOMEM;

	if (m->njobs > 1 && !rp->pid)
		return report_jobs(rp, ro, hang_ns);
	if (rp->pid && m->njobs > 1) /* one process of several: its own losses */
		drops = (struct report_drops){.total = rp->job->drops};
	r = report__new(ro, &src);
	ph = r ? phases__new(&src.phases, &report_phases_ops, r) : NULL;

	if (ph) {
		report__attach(r, ph);
		report__set_command_end(r, m->command_end);
		report__begin(r);
		rc = replay__run(rp, ph, hang_ns, at_end, r);
		report__end(r, &drops);
	} else {
		log_err("%s", strerror(ENOMEM));
	}
	phases__free(ph);
	report__free(r);
	return rc;
}
