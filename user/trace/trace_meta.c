// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include "sbt/version.h"
#include "user/trace/launch.h"
#include "user/trace/trace_meta.h"

static void fill_info(struct tf_meta *m, const struct trace_ctx *c, __u64 end_ns)
{
	char kernel[512] = "";
	struct utsname u;
	int ok = !uname(&u);

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
}

/* The probe table and its costs; id 0 is not a probe: not in the table. */
static void fill_probes(struct tf_meta *m, const struct probe_costs *pc)
{
	int n = pc->n;

	m->probes = calloc(n, sizeof(*m->probes));
	if (m->probes) {
		memcpy(m->probes, pc->infos + 1, (n - 1) * sizeof(*m->probes));
		m->nprobes = n - 1;
	}
	m->alpha_enter = calloc(n, sizeof(__u64));
	m->alpha_exit = calloc(n, sizeof(__u64));
	if (m->alpha_enter && m->alpha_exit) {
		memcpy(m->alpha_enter, pc->alpha_enter, n * sizeof(__u64));
		memcpy(m->alpha_exit, pc->alpha_exit, n * sizeof(__u64));
		m->nalpha = n;
		m->alpha_counters = pc->alpha_counters;
	}
}

static void fill_symbols(struct tf_meta *m, const struct names *names)
{
	size_t i, n = names__count(names);

	m->symbols = calloc(n + 1, sizeof(*m->symbols));
	for (i = 0; m->symbols && i < n; i++) {
		const char *s = names__at(names, i, &m->symbols[i].pid, &m->symbols[i].addr);

		m->symbols[i].name = strdup(s);
		m->nsymbols++;
	}
}

static void fill_threads(struct tf_meta *m, const struct trace_ctx *c)
{
	size_t i, k, n = 0;

	for (k = 0; k < jobs__count(c->jobs); k++)
		n += phases__nthreads(jobs__at(c->jobs, k)->ph);
	m->threads = calloc(n + 1, sizeof(*m->threads));
	for (k = 0; m->threads && k < jobs__count(c->jobs); k++) {
		const struct phases *ph = jobs__at(c->jobs, k)->ph;

		for (i = 0; i < phases__nthreads(ph); i++) {
			const struct ph_thread *th = phases__thread(ph, i);
			const char *comm = names__comm(c->names, th->tid);
			struct tf_thread *tt = &m->threads[m->nthreads++];

			*tt = (struct tf_thread){.pid = th->pid,
						 .tid = th->tid,
						 .start_ns = th->start_ns,
						 .exit_ns = th->exit_ns};
			snprintf(tt->comm, sizeof(tt->comm), "%s", comm ? comm : "?");
		}
	}
}

static void fill_jobs(struct tf_meta *m, const struct target *tg)
{
	const struct jobs *jobs = tg->ctx->jobs;
	size_t k, n = jobs__count(jobs);

	m->jobs = calloc(n + 1, sizeof(*m->jobs));
	for (k = 0; m->jobs && k < n; k++) {
		const struct job *job = jobs__at(jobs, k);

		/* -- CMD: processes of its tree that did not synchronize are no
		 * report's (their records are skipped by pid) */
		if (!jobs__reported(jobs, job))
			continue;
		m->jobs[m->njobs] = (struct tf_job){.pid = job->pid,
						    .start_ns = job->start_ns,
						    .end_ns = job->end_ns,
						    .drops = tg->ops->job_drops(tg, job),
						    .command = strdup(job->command)};
		m->njobs++;
	}
}

/* How the launched command ended, when it did while traced. */
static void fill_command_end(struct tf_meta *m, const struct target *tg)
{
	char end[64] = "";
	int ws;

	if (tg->ops->ended && tg->ops->ended(tg, &ws))
		launch__describe_end(ws, end, sizeof(end));
	m->command_end = strdup(end);
}

void trace_meta__fill(struct tf_meta *m, const struct target *tg, __u64 end_ns,
		      const struct trace_losses *lost)
{
	const struct trace_ctx *c = tg->ctx;
	const struct counter_set *cs = &c->counters;

	memset(m, 0, sizeof(*m));
	fill_info(m, c, end_ns);
	fill_command_end(m, tg);
	fill_probes(m, &c->costs);
	fill_symbols(m, c->names);
	fill_threads(m, c);
	fill_jobs(m, tg);
	m->drops_per_cpu = calloc(lost->ncpus, sizeof(__u64));
	if (m->drops_per_cpu) {
		memcpy(m->drops_per_cpu, lost->per_cpu, lost->ncpus * sizeof(__u64));
		m->ncpus = lost->ncpus;
	}
	m->drops_total = lost->total;
	memcpy(m->counters, cs->info, sizeof(m->counters));
	m->ncounters = cs->n;
}
