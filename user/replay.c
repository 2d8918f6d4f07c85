// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "log.h"
#include "replay.h"

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

int replay__open(struct replay *r, const char *path, const struct approx_opts *a)
{
	char err[512];

	memset(r, 0, sizeof(*r));
	r->approx = *a;
	r->tf = tracefile__open(path, err, sizeof(err));
	if (!r->tf) {
		log_err("%s", err);
		return -EINVAL;
	}
	r->m = tracefile__meta(r->tf);
	r->infos = probe_index(r->m, &r->nprobes);
	r->names = load_names(r->m);
	r->sync = r->infos ? sync__new(r->infos, r->nprobes) : NULL;
	if (!r->infos || !r->names || !r->sync) {
		log_err("%s: %s", path, strerror(ENOMEM));
		replay__close(r);
		return -ENOMEM;
	}
	r->alpha_ok = r->m->alpha_enter && r->m->nalpha >= (__u32)r->nprobes;
	return 0;
}

void replay__close(struct replay *r)
{
	sync__free(r->sync);
	names__free(r->names);
	free(r->infos);
	if (r->tf)
		tracefile__close(r->tf);
	memset(r, 0, sizeof(*r));
}

struct phases_config replay__phases_config(const struct replay *r)
{
	return (struct phases_config){.probes = r->infos,
				      .nprobes = r->nprobes,
				      .start_ns = r->m->start_ns,
				      .sync = r->sync,
				      .ncounters = r->m->ncounters,
				      .alpha_enter = r->alpha_ok ? r->m->alpha_enter : NULL,
				      .alpha_exit = r->alpha_ok ? r->m->alpha_exit : NULL,
				      .alpha_counters = r->m->alpha_counters,
				      .model = r->approx.model,
				      .exit_order = r->approx.exit_order};
}

struct report_src replay__report_src(const struct replay *r)
{
	return (struct report_src){.probes = r->infos,
				   .nprobes = r->nprobes,
				   .names = r->names,
				   .start_ns = r->m->start_ns,
				   .realtime_offset_ns = r->m->realtime_offset_ns,
				   .command = r->m->command,
				   .kernel = r->m->kernel,
				   .sync = r->sync,
				   .counters = r->m->counters,
				   .ncounters = r->m->ncounters,
				   .alpha_enter = r->alpha_ok ? r->m->alpha_enter : NULL,
				   .alpha_exit = r->alpha_ok ? r->m->alpha_exit : NULL,
				   .alpha_counters = r->m->alpha_counters,
				   .model = r->approx.model,
				   .exit_order = r->approx.exit_order};
}

int replay__run(struct replay *r, struct phases *ph, __u64 hang_ns,
		void (*before_finish)(void *ctx), void *ctx)
{
	const struct tf_meta *m = r->m;
	struct sbt_event e;
	__u64 last_check = 0;
	__u32 i;
	int rc;

	for (i = 0; i < m->nthreads; i++)
		phases__add_thread(ph, m->threads[i].pid, m->threads[i].tid,
				   m->threads[i].start_ns ? m->threads[i].start_ns : m->start_ns);
	while ((rc = tracefile__next(r->tf, &e)) == 1) {
		phases__feed(ph, &e);
		if (r->on_record)
			r->on_record(r->record_ctx, &e, ph);
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

int replay__report(struct replay *rp, const struct report_opts *ro, __u64 hang_ns)
{
	const struct tf_meta *m = rp->m;
	struct report_src src = replay__report_src(rp);
	struct phases_config pc = replay__phases_config(rp);
	struct report_drops drops = {
		.total = m->drops_total, .per_cpu = m->drops_per_cpu, .ncpus = m->ncpus};
	struct report *r = report__new(ro, &src);
	struct phases *ph = r ? phases__new(&pc, &report_phases_ops, r) : NULL;
	int rc = -ENOMEM;

	if (ph) {
		report__attach(r, ph);
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
