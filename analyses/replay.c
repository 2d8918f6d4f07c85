// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "analyses/jobs.h"
#include "lib/hmap.h"
#include "lib/log.h"
#include "analyses/export.h"
#include "analyses/replay.h"
#include "lib/parse.h"

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

/* --inject-delay of the recording (INFO inject_delay_ns): a value that is
 * not a number is taken as none (the ALPHA tables hold it anyway). */
static __u64 inject_of(const struct tf_meta *m)
{
	uint64_t ns = 0;

	return *m->inject_delay_ns && !parse_u64(m->inject_delay_ns, 0, UINT64_MAX, &ns) ? ns : 0;
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
				      .inject_ns = inject_of(r->m),
				      .model = r->approx.model,
				      .exit_order = r->approx.exit_order,
				      .error_band = r->approx.band};
}

/* The threads of job j's process: its MPI rank and host. */
static void name_rank(struct export_thread *t, int n, const struct tf_job *j)
{
	int k;

	for (k = 0; k < n; k++)
		if (t[k].pid == j->pid && j->rank_id) {
			t[k].rank_id = j->rank_id;
			if (j->host[0])
				t[k].host = j->host;
		}
}

struct export_thread *replay__export_threads(const struct replay *rp, int *n)
{
	const struct tf_meta *m = rp->m;
	struct export_thread *t = calloc(m->nthreads + 1, sizeof(*t));
	__u32 i;

	for (i = 0, *n = 0; t && i < m->nthreads; i++)
		if (!rp->pid || m->threads[i].pid == rp->pid)
			t[(*n)++] = (struct export_thread){m->threads[i].pid, m->threads[i].tid,
							   m->threads[i].comm, 0, m->host};
	for (i = 0; t && m->jobs && i < m->njobs; i++)
		name_rank(t, *n, &m->jobs[i]);
	return t;
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

/* Until when the trace (of r's job, if one) shows its process: the job's
 * end, else the recording's (0: not known). */
static __u64 recorded_until(const struct replay *r)
{
	if (r->job && r->job->end_ns)
		return r->job->end_ns;
	return r->m->end_ns;
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
	/* The recording went on after the last record (a hung job sends none):
	 * a hang is one until the job's end, or the recording's. */
	if (hang_ns && rc >= 0)
		phases__check_hangs(ph, recorded_until(r), hang_ns);
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

/* Each pid's JOBS and THREADS entries, found in O(1) per record: a record of
 * a process without a JOBS entry (one of a launched command's tree that never
 * synchronized) costs one lookup, and a job walks its own threads only, each
 * thread of the trace once (Bounds, doc/design.md 5.1). */
#define NONE UINT32_MAX

struct pid_entries {
	__u32 job;		  /* its next JOBS entry not started yet, or NONE */
	__u32 last_job;		  /* its last JOBS entry (building the chain) */
	__u32 thread, end_thread; /* its threads not given yet: by_start[thread, end_thread) */
	int skipping;		  /* its job could not be started: its records go, to its end */
};

struct thread_at {
	__u32 pid, ix; /* m->threads[ix] */
	__u64 start_ns;
};

struct job_index {
	struct hmap pids;	    /* pid -> struct pid_entries; pids with a JOBS entry */
	__u32 *next_job;	    /* a JOBS entry -> its pid's next one (JOBS order), or NONE */
	struct thread_at *by_start; /* their threads, by pid, then start, then table order */
};

static int by_pid_start(const void *a, const void *b)
{
	const struct thread_at *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	return x->ix < y->ix ? -1 : x->ix > y->ix;
}

static void job_index_free(struct job_index *x)
{
	hmap_free_values(&x->pids);
	free(x->next_job);
	free(x->by_start);
}

static int job_index_build(struct job_index *x, const struct tf_meta *m)
{
	struct pid_entries *p;
	__u32 i, n = 0;

	hmap_init(&x->pids);
	x->next_job = malloc(((size_t)m->njobs + 1) * sizeof(*x->next_job));
	x->by_start = malloc(((size_t)m->nthreads + 1) * sizeof(*x->by_start));
	if (!x->next_job || !x->by_start)
		return -ENOMEM;
	for (i = 0; i < m->njobs; i++) {
		x->next_job[i] = NONE;
		p = hmap_get(&x->pids, m->jobs[i].pid, 0);
		if (p) {
			x->next_job[p->last_job] = i;
		} else {
			p = hmap_put_new(&x->pids, m->jobs[i].pid, 0, sizeof(*p));
			if (!p)
				return -ENOMEM;
			p->job = i;
		}
		p->last_job = i;
	}
	for (i = 0; i < m->nthreads; i++)
		if (hmap_get(&x->pids, m->threads[i].pid, 0))
			x->by_start[n++] = (struct thread_at){.pid = m->threads[i].pid,
							      .ix = i,
							      .start_ns = m->threads[i].start_ns};
	qsort(x->by_start, n, sizeof(*x->by_start), by_pid_start);
	for (i = 0; i < n; i++) {
		p = hmap_get(&x->pids, x->by_start[i].pid, 0);
		if (!i || x->by_start[i - 1].pid != x->by_start[i].pid)
			p->thread = i;
		p->end_thread = i + 1;
	}
	return 0;
}

/* The record that ends a job: the exit of its last thread (jobs__feed()). */
static int ends_job(const struct sbt_event *e)
{
	return e->type == SBT_EV_THREAD_EXIT && e->probe;
}

/* The pid's next job of the trace (its JOBS entries in start order), with
 * its threads: those of the pid that started by the job's end, sorted by
 * start, each given to the first job whose life it overlaps (a pid's
 * processes follow one another; a thread belongs to one of them). NULL when
 * it has none left, or when it cannot be started (jobs counts it). */
static struct job *start_job(struct replay *rp, struct jobs *js, struct job_index *x,
			     struct pid_entries *p, __u32 pid)
{
	const struct tf_meta *m = rp->m;
	const struct tf_job *tj;
	struct job *job;

	if (p->job == NONE)
		return NULL;
	tj = &m->jobs[p->job];
	p->job = x->next_job[p->job];
	job = jobs__start(js, pid, tj->start_ns, tj->command);
	if (!job)
		return NULL;
	job->drops = tj->drops;
	/* the command, a job from the start: how it ended (a launch) */
	if (tj == &m->jobs[0])
		report__set_command_end(job->report, m->command_end);
	/* a failure is the MPI view's, said at the end (jobs__failed()) */
	if (tj->rank_id)
		jobs__set_rank(js, job, (int)(tj->rank_id - 1),
			       tj->host[0] ? tj->host : rp->m->host);
	for (; p->thread < p->end_thread; p->thread++) {
		const struct tf_thread *th = &m->threads[x->by_start[p->thread].ix];

		if (tj->end_ns && th->start_ns > tj->end_ns)
			break; /* and every thread after it: a later job's */
		if (!th->exit_ns || th->exit_ns >= tj->start_ns)
			phases__add_thread(job->ph, pid, th->tid, start_of(th, tj->start_ns));
	}
	return job;
}

/* The running job of the record's pid, started with its first record; NULL
 * when its process has no JOBS entry left, or its job could not be started
 * (left out then, with its records up to its end). */
static struct job *job_of(struct replay *rp, struct jobs *js, struct job_index *x,
			  const struct sbt_event *e)
{
	struct job *job = jobs__find(js, e->pid);
	struct pid_entries *p;

	if (job)
		return job;
	p = hmap_get(&x->pids, e->pid, 0);
	if (!p)
		return NULL;
	if (!p->skipping && !(job = start_job(rp, js, x, p, e->pid)) && p->job != NONE)
		p->skipping = 1;
	if (p->skipping && ends_job(e))
		p->skipping = 0;
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
	struct job_index x = {0};
	struct sbt_event e;
	struct job *job;
	__u64 last_check = 0;
	int rc = -ENOMEM;

	if (!js || job_index_build(&x, rp->m)) {
		log_err("%s", strerror(ENOMEM));
		goto out;
	}
	jobs__begin(js);
	while ((rc = tracefile__next(rp->tf, &e)) == 1) {
		job = job_of(rp, js, &x, &e);
		if (!job)
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
	/* the processes still running when the recording ended: hung until then */
	for (size_t i = 0; hang_ns && rc >= 0 && (job = jobs__at(js, i)); i++)
		if (!job->ended && job->ph)
			phases__check_hangs(job->ph, rp->m->end_ns, hang_ns);
	jobs__end_all(js, job_drops, NULL);
	if (rc < 0)
		log_err("reading records: %s", strerror(-rc));
	else
		rc = jobs__failed(js); /* processes left out: said, and the command fails */
out:
	jobs__free(js);
	job_index_free(&x);
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
