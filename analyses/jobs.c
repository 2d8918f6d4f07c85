// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "lib/utf8.h"
#include "lib/hmap.h"
#include "analyses/jobs.h"
#include "analyses/mpi.h"
#include "analyses/mpi_report.h"
#include "lib/array.h"
#include "lib/json.h"
#include "lib/log.h"

/* Pids of the processes left out named in the error (the rest counted). */
#define LEFT_NAMED 8

struct jobs {
	struct jobs_config c;
	struct hmap running; /* pid -> struct job * */
	struct job **all;
	size_t n, cap;
	int printed;	      /* job reports printed so far (JSON array separators) */
	size_t nsynced;	      /* jobs that called a probed function */
	struct job *threaded; /* the first job that created a thread */
	struct job *live;     /* live_first: the job shown live */
	__u64 watch_matched;  /* --watch patterns some job's report matched */
	struct hmap left;     /* pids of processes left out (no memory to start them) */
	size_t nleft;
	__u32 left_named[LEFT_NAMED];
	size_t ncut; /* reports kept aside that ran out of memory */
	__u32 cut_named[LEFT_NAMED];
	struct job_aside **asides; /* every stream made, in that order */
	size_t nasides, cap_asides;
	struct job_aside *free_asides; /* those no job holds */
	struct mpi *mpi;	       /* across the jobs */
	int approximating;	       /* the MPI view's run is approximated too */
};

/* Episodes the text of the MPI view lists. */
#define MPI_EPISODES_SHOWN 5

/* A stream into memory holding a job's report kept aside, its buffer growing
 * from 256 bytes (open_memstream() starts each at 8 KB, for a report of one
 * or two, times every process of `record -a`). Streams are reused, never
 * closed before jobs__free(): glibc unlinks a closed FILE from its list of
 * every open one by walking that list, and closing the oldest of n open
 * streams walks all n (quadratic in processes). */
struct job_aside {
	FILE *f;
	char *buf;
	size_t len, cap;
	struct job_aside *next_free;
};

struct jobs *jobs__new(const struct jobs_config *c)
{
	struct jobs *j = calloc(1, sizeof(*j));

	if (!j)
		return NULL;
	j->c = *c;
	hmap_init(&j->running);
	hmap_init(&j->left);
	j->mpi = mpi__new(c->src.phases.probes, (__u32)c->src.phases.nprobes, c->src.names);
	j->approximating = c->src.phases.alpha_enter && c->src.phases.alpha_exit;
	if (!j->mpi) {
		free(j);
		return NULL;
	}
	return j;
}

static void aside_release(struct jobs *j, struct job *job);

static void job_free(struct jobs *j, struct job *job)
{
	phases__free(job->ph);
	report__free(job->report);
	sync__free(job->sync);
	aside_release(j, job);
	free(job);
}

void jobs__free(struct jobs *j)
{
	size_t i;

	if (!j)
		return;
	for (i = 0; i < j->n; i++)
		job_free(j, j->all[i]);
	/* the newest first: each at the head of glibc's list (struct job_aside) */
	for (i = j->nasides; i-- > 0;) {
		fclose(j->asides[i]->f);
		free(j->asides[i]);
	}
	free(j->asides);
	free(j->all);
	mpi__free(j->mpi);
	hmap_free(&j->running);
	hmap_free(&j->left);
	free(j);
}

struct job *jobs__find(const struct jobs *j, __u32 pid)
{
	return hmap_get(&j->running, pid, 0);
}

static int keep(struct jobs *j, struct job *job)
{
	if (array_reserve((void **)&j->all, &j->cap, j->n + 1, sizeof(*j->all)))
		return -ENOMEM;
	if (hmap_put(&j->running, job->pid, 0, job))
		return -ENOMEM;
	j->all[j->n++] = job;
	return 0;
}

static ssize_t aside_write(void *cookie, const char *buf, size_t n)
{
	struct job_aside *a = cookie;

	if (n > SIZE_MAX - a->len || array_reserve((void **)&a->buf, &a->cap, a->len + n, 1)) {
		errno = ENOMEM;
		return -1; /* the stream's error (ferror()) */
	}
	memcpy(a->buf + a->len, buf, n);
	a->len += n;
	return n;
}

/* A stream for the job's report, free or new. 0 or -ENOMEM. */
static int aside_take(struct jobs *j, struct job *job)
{
	struct job_aside *a = j->free_asides;

	if (a) {
		j->free_asides = a->next_free;
	} else {
		if (array_reserve((void **)&j->asides, &j->cap_asides, j->nasides + 1,
				  sizeof(*j->asides)))
			return -ENOMEM;
		a = calloc(1, sizeof(*a));
		if (!a)
			return -ENOMEM;
		a->f = fopencookie(a, "w", (cookie_io_functions_t){.write = aside_write});
		/* unbuffered: each write goes to the buffer, no stdio buffer per job */
		if (!a->f || setvbuf(a->f, NULL, _IONBF, 0)) {
			if (a->f)
				fclose(a->f);
			free(a);
			return -ENOMEM;
		}
		j->asides[j->nasides++] = a;
	}
	job->aside = a;
	job->out = a->f;
	return 0;
}

/* The job's stream is done with (printed, or never to be): its memory goes,
 * the stream is free for another job. */
static void aside_release(struct jobs *j, struct job *job)
{
	struct job_aside *a = job->aside;

	if (!a)
		return;
	free(a->buf);
	a->buf = NULL;
	a->len = a->cap = 0;
	clearerr(a->f);
	a->next_free = j->free_asides;
	j->free_asides = a;
	job->aside = NULL;
	if (job->out == a->f)
		job->out = NULL;
}

/* The job's own analysis: the templates with its start and command. */
static int job_open(struct jobs *j, struct job *job)
{
	struct report_opts ro = j->c.ro;
	struct report_src src = j->c.src;

	/* live_first: aside until it turns out to be the one to show live.
	 * Aside in memory, not in a temporary file: a descriptor per process
	 * ran out at about a thousand processes (the process was left out),
	 * and a full /tmp cut reports short; a report grows with its process's
	 * records no faster than its analysis does. */
	int aside = j->c.separate || j->c.live_first;

	job->out = j->c.ro.out;
	if (aside && aside_take(j, job))
		return -ENOMEM;
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

/* A process that could not be analysed: counted once per pid, the first
 * ones named (jobs__end_all()). */
static void left_out(struct jobs *j, __u32 pid)
{
	size_t ix;

	if (hmap_get_index(&j->left, pid, 0, &ix))
		return;
	hmap_put_index(&j->left, pid, 0, 0); /* no memory: it may be counted twice */
	if (j->nleft < LEFT_NAMED)
		j->left_named[j->nleft] = pid;
	j->nleft++;
}

struct job *jobs__start(struct jobs *j, __u32 pid, __u64 start_ns, const char *command)
{
	struct job *job = calloc(1, sizeof(*job));

	if (!job) {
		left_out(j, pid);
		return NULL;
	}
	job->pid = pid;
	job->start_ns = start_ns;
	job->rank = -1;
	snprintf(job->command, sizeof(job->command), "%s", command ? command : "");
	utf8_printable(job->command);
	if (job_open(j, job) || keep(j, job)) {
		job_free(j, job);
		left_out(j, pid);
		return NULL;
	}
	return job;
}

static void copy_out(struct jobs *j, struct job *job, FILE *to);

/* live_first, text: the first job to reach a barrier (or parallel region)
 * is shown as a single process's report, from what it wrote aside so far
 * (hangs, at most: text is written at episodes and at the end). */
static void go_live(struct jobs *j, struct job *job)
{
	copy_out(j, job, j->c.ro.out);
	aside_release(j, job);
	job->out = j->c.ro.out;
	job->live = 1;
	j->live = job;
	report__redirect(job->report, &j->c.ro);
}

/* Entry e of job: the job synchronizes; the first to reach a barrier is
 * shown live (the lines of episodes are barriers'). A join is no
 * synchronization of its own: a launcher that joins a helper thread is not
 * a job to report beside the program it runs (the threads it creates make
 * it the one reported when no process synchronizes: jobs__reported()). */
static void synchronizes(struct jobs *j, struct job *job, const struct sbt_event *e)
{
	const struct phases_config *pc = &j->c.src.phases;
	int kind = e->probe < pc->nprobes ? pc->probes[e->probe].kind : 0;

	if (kind == SBT_PK_JOIN)
		return;
	if (!job->synced) {
		job->synced = 1;
		j->nsynced++;
	}
	if (j->c.live_first && !j->live && j->c.ro.format == REPORT_TEXT &&
	    (kind == SBT_PK_BARRIER || kind == SBT_PK_TEAM_BARRIER || kind == SBT_PK_REGION))
		go_live(j, job);
}

static __u64 record_cost(void *ph, const struct sbt_event *e)
{
	return phases__record_cost(ph, e);
}

struct job *jobs__feed(struct jobs *j, const struct sbt_event *e)
{
	struct job *job = jobs__find(j, e->pid);
	struct mpi_cost cost;

	if (!job)
		return NULL;
	if (e->type == SBT_EV_ENTER && !job->live)
		synchronizes(j, job, e);
	if (!j->threaded && e->type == SBT_EV_THREAD_START && e->tid != e->pid)
		j->threaded = job;
	phases__feed(job->ph, e);
	/* each hit's cost: the MPI view's run rebuilt across ranks removes it */
	cost = (struct mpi_cost){record_cost, job->ph};
	mpi__feed(j->mpi, e, j->approximating ? &cost : NULL);
	if (e->type == SBT_EV_THREAD_EXIT && e->probe)
		job->end_ns = e->ts;
	return job;
}

int jobs__set_rank(struct jobs *j, struct job *job, int rank, const char *host)
{
	job->rank = rank;
	return mpi__set_rank(j->mpi, job->pid, rank, host);
}

int job__active(const struct job *job)
{
	const struct ph_region_stats *rs = phases__regions(job->ph);

	return phases__completed(job->ph) > 0 || (rs && rs->count > 0) || phases__nsites(job->ph);
}

/* What the job wrote aside, to the output. A report that ran out of memory
 * aside goes out as far as it got, and counts (jobs__failed()). A failed
 * write to the output stays on it (ferror()): its owner's close reports it,
 * as for a single process's report. */
static void copy_out(struct jobs *j, struct job *job, FILE *to)
{
	const struct job_aside *a = job->aside;

	if (fflush(a->f) == EOF || ferror(a->f)) {
		if (j->ncut < LEFT_NAMED)
			j->cut_named[j->ncut] = job->pid;
		j->ncut++;
	}
	if (a->len && !ferror(to))
		fwrite(a->buf, 1, a->len, to);
}

/* "=== pid N: COMMAND (exited after S s) ===", after a blank line when
 * something came before. */
static void print_heading(struct jobs *j, const struct job *job, int blank)
{
	FILE *out = j->c.ro.out;
	double secs = job->end_ns > job->start_ns ? (job->end_ns - job->start_ns) / 1e9 : 0;

	fprintf(out, "%s=== pid %u", blank ? "\n" : "", job->pid);
	if (job->rank >= 0)
		fprintf(out, " (MPI rank %d)", job->rank);
	fprintf(out, ": %s", job->command);
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
		fprintf(out, ", \"start_ns\": %llu, \"end_ns\": %llu, ",
			(unsigned long long)job->start_ns, (unsigned long long)job->end_ns);
		if (job->rank >= 0)
			fprintf(out, "\"rank\": %d, ", job->rank);
		fputs("\"report\": ", out);
		copy_out(j, job, out);
		fputs("}", out);
	} else {
		print_heading(j, job, j->printed || j->live);
		copy_out(j, job, out);
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
		copy_out(j, job, j->c.ro.out);
	}
	aside_release(j, job);
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

/* The MPI view across the jobs, when processes called MPI: after the
 * jobs' reports (text), or closing the jobs document as its "mpi" member
 * (json_doc: the document is open, its jobs array written; it is closed
 * here). A single report (JSON) gets none: one rank is not a job of ranks. */
static void print_mpi(struct jobs *j, int json_doc)
{
	FILE *out = j->c.ro.out;
	int active = mpi__active(j->mpi) && !mpi__finish(j->mpi);

	if (j->c.ro.format == REPORT_JSON) {
		if (!json_doc)
			return;
		if (active) {
			struct json js;

			json_init(&js, out, 0);
			fputs("\n], \"mpi\": ", out);
			mpi_report__json(j->mpi, &js);
			fputs("}\n", out);
		} else {
			fputs("\n]}\n", out);
		}
		return;
	}
	if (active) {
		if (j->c.ro.before_output)
			j->c.ro.before_output(j->c.ro.hook_ctx);
		mpi_report__text(j->mpi, out, MPI_EPISODES_SHOWN);
	}
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
		if (j->all[i]->aside && jobs__reported(j, j->all[i]))
			print_aside(j, j->all[i], n > 1);
	print_mpi(j, n > 1);
}

/* "N NOUNs WHAT (out of memory): pids A, B, ... and M more". An error, not
 * a warning: the command fails (jobs__failed()), since a report missing
 * processes, or parts of theirs, is not the report of the trace, and a
 * script reading it must be able to tell (the rest is printed all the same). */
static void say_failed(const char *noun, const char *what, size_t n, const __u32 *named)
{
	char pids[LEFT_NAMED * 12 + 32];
	size_t i, len = 0;

	if (!n)
		return;
	for (i = 0; i < n && i < LEFT_NAMED; i++)
		len += snprintf(pids + len, sizeof(pids) - len, "%s%u", i ? ", " : "", named[i]);
	if (n > LEFT_NAMED)
		snprintf(pids + len, sizeof(pids) - len, " and %zu more", n - LEFT_NAMED);
	log_err("%zu %s%s %s (out of memory): pid%s %s", n, noun, n == 1 ? "" : "es", what,
		n == 1 ? "" : "s", pids);
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
	if (j->c.separate && !j->printed && j->c.ro.format != REPORT_JSON)
		fputs("no process synchronized at a barrier\n", j->c.ro.out);
	if (j->c.separate)
		print_mpi(j, 1);
	if (j->c.live_first)
		finish_tree(j);
	fflush(j->c.ro.out);
	if (j->c.separate || j->c.live_first)
		report_opts__warn_unmatched(&j->c.ro, j->watch_matched);
	say_failed("process", "left out of the report", j->nleft, j->left_named);
	say_failed("process", "with a report cut short", j->ncut, j->cut_named);
	if (mpi__failed(j->mpi))
		log_err("the MPI view across processes is incomplete (out of memory)");
}

int jobs__failed(const struct jobs *j)
{
	return j->nleft || j->ncut || mpi__failed(j->mpi) ? -ENOMEM : 0;
}

size_t jobs__count(const struct jobs *j)
{
	return j->n;
}

size_t jobs__nsynced(const struct jobs *j)
{
	return j->nsynced;
}

const struct job *jobs__threaded(const struct jobs *j)
{
	return j->threaded;
}

int jobs__reported(const struct jobs *j, const struct job *job)
{
	if (!j->c.live_first)
		return 1;
	/* none synchronized: the first that created threads (a fork-join
	 * program run by a script), else the first */
	if (job->synced)
		return 1;
	return !j->nsynced && j->n && job == (j->threaded ? j->threaded : j->all[0]);
}

int jobs__reported_for_good(const struct jobs *j, const struct job *job)
{
	return !j->c.live_first || job->synced;
}

struct job *jobs__at(const struct jobs *j, size_t i)
{
	return i < j->n ? j->all[i] : NULL;
}
