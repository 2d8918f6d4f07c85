// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "lib/utf8.h"
#include "lib/hmap.h"
#include "analyses/jobs.h"
#include "lib/json.h"

struct jobs {
	struct jobs_config c;
	struct hmap running; /* pid -> struct job * */
	struct job **all;
	size_t n, cap;
	int printed;	     /* job reports printed so far (JSON array separators) */
	size_t nsynced;	     /* jobs that called a probed function */
	struct job *live;    /* live_first: the job shown live */
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

	/* live_first: aside until it turns out to be the one to show live */
	int aside = j->c.separate || j->c.live_first;

	job->out = aside ? tmpfile() : j->c.ro.out;
	if (!job->out)
		return -errno;
	job->own_out = aside;
	ro.out = job->out;
	if (aside) {
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
	utf8_printable(job->command);
	if (job_open(j, job) || keep(j, job)) {
		job_free(job);
		return NULL;
	}
	return job;
}

static void copy_out(FILE *from, FILE *to);

/* live_first, text: the first job to reach a barrier (or parallel region)
 * is shown as a single process's report, from what it wrote aside so far
 * (hangs, at most: text is written at episodes and at the end). */
static void go_live(struct jobs *j, struct job *job)
{
	copy_out(job->out, j->c.ro.out);
	fclose(job->out);
	job->out = j->c.ro.out;
	job->own_out = 0;
	job->live = 1;
	j->live = job;
	report__redirect(job->report, &j->c.ro);
}

/* Entry e of job: the job synchronizes; the first to reach a barrier is
 * shown live (the lines of episodes are barriers'). */
static void synchronizes(struct jobs *j, struct job *job, const struct sbt_event *e)
{
	const struct phases_config *pc = &j->c.src.phases;
	int kind = e->probe < pc->nprobes ? pc->probes[e->probe].kind : 0;

	if (!job->synced) {
		job->synced = 1;
		j->nsynced++;
	}
	if (j->c.live_first && !j->live && j->c.ro.format == REPORT_TEXT &&
	    (kind == SBT_PK_BARRIER || kind == SBT_PK_TEAM_BARRIER || kind == SBT_PK_REGION))
		go_live(j, job);
}

struct job *jobs__feed(struct jobs *j, const struct sbt_event *e)
{
	struct job *job = jobs__find(j, e->pid);

	if (!job)
		return NULL;
	if (e->type == SBT_EV_ENTER && !job->live)
		synchronizes(j, job, e);
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

/* "=== pid N: COMMAND (exited after S s) ===", after a blank line when
 * something came before. */
static void print_heading(struct jobs *j, const struct job *job, int blank)
{
	FILE *out = j->c.ro.out;
	double secs = job->end_ns > job->start_ns ? (job->end_ns - job->start_ns) / 1e9 : 0;

	fprintf(out, "%s=== pid %u: %s", blank ? "\n" : "", job->pid, job->command);
	if (job->end_ns)
		fprintf(out, " (exited after %.3f s)", secs);
	fputs(" ===\n", out);
}

/* A job's report into the combined output: under a heading (text) or as
 * an element of the jobs array (JSON). */
static void print_separate(struct jobs *j, struct job *job)
{
	FILE *out = j->c.ro.out;

	if (!j->c.show_idle && !j->c.live_first && !job__active(job))
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
		print_heading(j, job, j->printed || j->live);
		copy_out(job->out, out);
	}
	j->printed++;
	fflush(out);
}

/* Print a job kept aside, under a heading or as a single process's report,
 * and close its file. */
static void print_aside(struct jobs *j, struct job *job, int heading)
{
	if (heading) {
		print_separate(j, job);
	} else {
		if (j->c.ro.before_output)
			j->c.ro.before_output(j->c.ro.hook_ctx);
		copy_out(job->out, j->c.ro.out);
	}
	fclose(job->out);
	job->out = NULL;
}

/* live_first: the report of a job that ended is printed now when it is one
 * of several (text), kept for the end when it may turn out to be the only
 * one, or dropped unheard when it never synchronized and others did. */
static void end_in_tree(struct jobs *j, struct job *job)
{
	if (job->live || !job->synced || j->c.ro.format != REPORT_TEXT)
		return;
	if (j->nsynced > 1 || j->live)
		print_aside(j, job, 1);
}

void jobs__end(struct jobs *j, struct job *job, const struct report_drops *d)
{
	if (job->ended)
		return;
	job->ended = 1;
	if (jobs__find(j, job->pid) == job)
		hmap_del(&j->running, job->pid, 0);
	/* a process of a tree that never synchronized, others did: no report
	 * (nor its warnings) */
	if (j->c.live_first && !job->synced && j->nsynced)
		return;
	/* the live job's summary among others': under a heading too */
	if (job->live && j->nsynced > 1) {
		if (j->c.ro.before_output)
			j->c.ro.before_output(j->c.ro.hook_ctx);
		print_heading(j, job, 1);
		j->printed++;
	}
	report__at_end(job->report);
	phases__finish(job->ph);
	report__end(job->report, d);
	if (j->c.separate)
		print_aside(j, job, 1);
	else if (j->c.live_first)
		end_in_tree(j, job);
}

/* live_first, at the end: the reports still aside. Several: under
 * headings (JSON: the jobs document); one: as a single process's. */
static void finish_tree(struct jobs *j)
{
	size_t i, n = 0;

	for (i = 0; i < j->n; i++)
		n += jobs__reported(j, j->all[i]);
	if (n > 1 && j->c.ro.format == REPORT_JSON)
		fputs("{\"schema\": 1, \"jobs\": [", j->c.ro.out);
	for (i = 0; i < j->n; i++)
		if (j->all[i]->out && j->all[i]->own_out && jobs__reported(j, j->all[i]))
			print_aside(j, j->all[i], n > 1);
	if (n > 1 && j->c.ro.format == REPORT_JSON)
		fputs("\n]}\n", j->c.ro.out);
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
	if (j->c.live_first)
		finish_tree(j);
	fflush(j->c.ro.out);
	if (j->c.separate || j->c.live_first)
		report_opts__warn_unmatched(&j->c.ro, j->watch_matched);
}

size_t jobs__count(const struct jobs *j)
{
	return j->n;
}

size_t jobs__nsynced(const struct jobs *j)
{
	return j->nsynced;
}

int jobs__reported(const struct jobs *j, const struct job *job)
{
	if (!j->c.live_first)
		return 1;
	return job->synced || (!j->nsynced && j->n && job == j->all[0]);
}

int jobs__reported_for_good(const struct jobs *j, const struct job *job)
{
	return !j->c.live_first || job->synced;
}

struct job *jobs__at(const struct jobs *j, size_t i)
{
	return i < j->n ? j->all[i] : NULL;
}
