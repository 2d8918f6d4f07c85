// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "lib/hmap.h"
#include "analyses/jobs.h"
#include "lib/json.h"

struct jobs {
	struct jobs_config c;
	struct hmap running; /* pid -> struct job * */
	struct job **all;
	size_t n, cap;
	int printed;	     /* job reports printed so far (JSON array separators) */
	__u64 watch_matched; /* --watch patterns some job's report matched */
};

struct jobs *jobs__new(const struct jobs_config *c)
{
	struct jobs *j = calloc(1, sizeof(*j));

	if (!j)
		return NULL;
	j->c = *c;
	hmap_init(&j->running);
	return j;
}

static void job_free(struct job *job)
{
	phases__free(job->ph);
	report__free(job->report);
	sync__free(job->sync);
	if (job->out && job->own_out)
		fclose(job->out);
	free(job);
}

void jobs__free(struct jobs *j)
{
	size_t i;

	if (!j)
		return;
	for (i = 0; i < j->n; i++)
		job_free(j->all[i]);
	free(j->all);
	hmap_free(&j->running);
	free(j);
}

struct job *jobs__find(const struct jobs *j, __u32 pid)
{
	return hmap_get(&j->running, pid, 0);
}

static int keep(struct jobs *j, struct job *job)
{
	if (j->n == j->cap) {
		size_t cap = j->cap ? j->cap * 2 : 16;
		struct job **all = realloc(j->all, cap * sizeof(*all));

		if (!all)
			return -ENOMEM;
		j->all = all;
		j->cap = cap;
	}
	if (hmap_put(&j->running, job->pid, 0, job))
		return -ENOMEM;
	j->all[j->n++] = job;
	return 0;
}

/* The job's own analysis: the templates with its start and command. */
static int job_open(struct jobs *j, struct job *job)
{
	struct report_opts ro = j->c.ro;
	struct report_src src = j->c.src;

	job->out = j->c.separate ? tmpfile() : j->c.ro.out;
	if (!job->out)
		return -errno;
	job->own_out = j->c.separate;
	ro.out = job->out;
	if (j->c.separate) {
		ro.episode_lines = 0; /* lines of several jobs would interleave */
		ro.before_output = NULL;
		ro.watch_matched = &j->watch_matched; /* one warning, at the end */
	}
	src.phases.start_ns = job->start_ns;
	src.command = job->command;
	job->sync = sync__new(src.phases.probes, src.phases.nprobes);
	src.phases.sync = job->sync;
	job->report = job->sync ? report__new(&ro, &src) : NULL;
	job->ph = job->report ? phases__new(&src.phases, &report_phases_ops, job->report) : NULL;
	if (!job->ph)
		return -ENOMEM;
	report__attach(job->report, job->ph);
	report__begin(job->report);
	return 0;
}

struct job *jobs__start(struct jobs *j, __u32 pid, __u64 start_ns, const char *command)
{
	struct job *job = calloc(1, sizeof(*job));

	if (!job)
		return NULL;
	job->pid = pid;
	job->start_ns = start_ns;
	snprintf(job->command, sizeof(job->command), "%s", command ? command : "");
	if (job_open(j, job) || keep(j, job)) {
		job_free(job);
		return NULL;
	}
	return job;
}

struct job *jobs__feed(struct jobs *j, const struct sbt_event *e)
{
	struct job *job = jobs__find(j, e->pid);

	if (!job)
		return NULL;
	phases__feed(job->ph, e);
	if (e->type == SBT_EV_THREAD_EXIT && e->probe)
		job->end_ns = e->ts;
	return job;
}

int job__active(const struct job *job)
{
	const struct ph_region_stats *rs = phases__regions(job->ph);

	return phases__completed(job->ph) > 0 || (rs && rs->count > 0) || phases__nsites(job->ph);
}

static void copy_out(FILE *from, FILE *to)
{
	char buf[65536];
	size_t n;

	fflush(from);
	rewind(from);
	while ((n = fread(buf, 1, sizeof(buf), from)) > 0)
		fwrite(buf, 1, n, to);
}

/* A job's report into the combined output: under a heading (text) or as
 * an element of the jobs array (JSON). */
static void print_separate(struct jobs *j, struct job *job)
{
	FILE *out = j->c.ro.out;
	double secs = job->end_ns > job->start_ns ? (job->end_ns - job->start_ns) / 1e9 : 0;

	if (!j->c.show_idle && !job__active(job))
		return;
	if (j->c.ro.before_output)
		j->c.ro.before_output(j->c.ro.hook_ctx);
	if (j->c.ro.format == REPORT_JSON) {
		struct json js;

		json_init(&js, out, 0);
		fputs(j->printed ? ",\n" : "\n", out);
		fprintf(out, "{\"pid\": %u, \"command\": ", job->pid);
		json_str(&js, job->command);
		fprintf(out, ", \"start_ns\": %llu, \"end_ns\": %llu, \"report\": ",
			(unsigned long long)job->start_ns, (unsigned long long)job->end_ns);
		copy_out(job->out, out);
		fputs("}", out);
	} else {
		fprintf(out, "%s=== pid %u: %s", j->printed ? "\n" : "", job->pid, job->command);
		if (job->end_ns)
			fprintf(out, " (exited after %.3f s)", secs);
		fputs(" ===\n", out);
		copy_out(job->out, out);
	}
	j->printed++;
	fflush(out);
}

void jobs__end(struct jobs *j, struct job *job, const struct report_drops *d)
{
	if (job->ended)
		return;
	report__at_end(job->report);
	phases__finish(job->ph);
	report__end(job->report, d);
	job->ended = 1;
	if (jobs__find(j, job->pid) == job)
		hmap_del(&j->running, job->pid, 0);
	if (j->c.separate) {
		print_separate(j, job);
		fclose(job->out);
		job->out = NULL;
	}
}

void jobs__begin(struct jobs *j)
{
	if (j->c.separate && j->c.ro.format == REPORT_JSON)
		fputs("{\"schema\": 1, \"jobs\": [", j->c.ro.out);
}

void jobs__end_all(struct jobs *j,
		   void (*drops_of)(void *ctx, const struct job *job, struct report_drops *d),
		   void *ctx)
{
	struct report_drops d;
	size_t i;

	for (i = 0; i < j->n; i++) {
		memset(&d, 0, sizeof(d));
		if (drops_of)
			drops_of(ctx, j->all[i], &d);
		jobs__end(j, j->all[i], &d);
	}
	if (j->c.separate && j->c.ro.format == REPORT_JSON)
		fputs("\n]}\n", j->c.ro.out);
	else if (j->c.separate && !j->printed)
		fputs("no process synchronized at a barrier\n", j->c.ro.out);
	fflush(j->c.ro.out);
	if (j->c.separate)
		report_opts__warn_unmatched(&j->c.ro, j->watch_matched);
}

size_t jobs__count(const struct jobs *j)
{
	return j->n;
}

struct job *jobs__at(const struct jobs *j, size_t i)
{
	return i < j->n ? j->all[i] : NULL;
}
