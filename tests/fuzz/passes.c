// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The trace harnesses' passes (tests/fuzz/passes.h), as user/cmd/cmd_report.c
 * and user/cmd/cmd_export.c run them. The three approximation models are
 * spread over the passes so that each input meets each. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analyses/export.h"
#include "analyses/replay.h"
#include "analyses/sync_report.h"
#include "tests/fuzz/fuzz.h"
#include "tests/fuzz/passes.h"
#include "tests/fuzz/wellformed.h"

/* What a pass keeps of its output for the check: a quadratic report of a
 * hostile trace can be gigabytes, for which there is no memory; past this it
 * is written on, not kept, not checked. */
#define CAPTURE_MAX (64u << 20)

/* An output kept in memory for its check. */
struct capture {
	FILE *f;
	char *buf;
	size_t len, cap;
	int over; /* more than CAPTURE_MAX was written */
};

static ssize_t keep(void *cookie, const char *p, size_t n)
{
	struct capture *c = cookie;
	char *b;

	if (c->over || n > CAPTURE_MAX - c->len) {
		c->over = 1;
		return (ssize_t)n;
	}
	if (c->len + n > c->cap) {
		c->cap = c->len + n > 2 * c->cap ? c->len + n : 2 * c->cap;
		if (c->cap > CAPTURE_MAX)
			c->cap = CAPTURE_MAX;
		b = realloc(c->buf, c->cap);
		if (!b)
			abort();
		c->buf = b;
	}
	memcpy(c->buf + c->len, p, n);
	c->len += n;
	return (ssize_t)n;
}

static FILE *capture_open(struct capture *c)
{
	*c = (struct capture){0};
	c->f = fopencookie(c, "w", (cookie_io_functions_t){.write = keep});
	if (!c->f)
		abort();
	return c->f;
}

/* Close c, check what was written with check, free it. */
static void capture_check(struct capture *c, const char *pass,
			  const char *(*check)(const char *, size_t, size_t *))
{
	const char *why;
	size_t at = 0;

	fclose(c->f);
	why = c->over ? NULL : check(c->buf ? c->buf : "", c->len, &at);
	if (why)
		fuzz_die_in(pass, why, c->buf, c->len, at);
	free(c->buf);
}

/* The trace of fd opened for one pass, as `report` or `export` (need_one:
 * the first process of a trace of several) opens it. */
static int open_pass(struct replay *rp, int fd, int model, int exit_order, int need_one)
{
	struct approx_opts a;
	__u32 pid = 0;

	approx_opts__init(&a);
	a.model = model;
	a.exit_order = exit_order;
	if (replay__open_fd(rp, fd, "fuzz.sbt", &a))
		return -1;
	if (need_one && rp->m->njobs > 1)
		pid = rp->m->jobs[0].pid;
	if (replay__select(rp, pid, need_one)) {
		replay__close(rp);
		return -1;
	}
	return 0;
}

/* --watch patterns: a file, a barrier's name, a function, and one that
 * matches nothing (warned about) */
static const char *const watch[] = {".c:", "barrier", "pthread_barrier_wait", "no-such-site"};

void pass_report(int fd, int format, unsigned int variant)
{
	static const int views[] = {REPORT_BOTH, REPORT_MEASURED_ONLY, REPORT_APPROXIMATED_ONLY};
	int json = format == REPORT_JSON, patterns = variant / 12 % 2;
	struct report_opts ro = {.format = format,
				 .view = views[variant % 3],
				 .phase_table = 1,
				 .episode_lines = !json,
				 .watch = patterns ? watch : NULL,
				 .nwatch = patterns ? sizeof(watch) / sizeof(watch[0]) : 0,
				 .watch_all = !patterns,
				 .warn_ns = 1,
				 .sort = json ? SYNC_SORT_COUNT : SYNC_SORT_HOLD,
				 .max_phases = variant / 3 % 2 ? 2 : 0};
	struct capture c;
	struct replay rp;

	/* JSON: a document per process of several (the jobs document) or the
	 * first one's (--pid) */
	if (open_pass(&rp, fd, json ? PH_MODEL_SM : PH_MODEL_MR,
		      json ? PH_EXIT_REVERSE : PH_EXIT_RANK, json && variant / 6 % 2))
		return;
	ro.out = capture_open(&c);
	/* hangs looked for in trace time, as live, after 1 ms */
	replay__report(&rp, &ro, json ? 0 : 1000000ULL);
	replay__close(&rp);
	capture_check(&c, json ? "report json" : "report text", json ? wf_json : wf_text);
}

static void to_exporter(void *ctx, const struct sbt_event *e, const struct phases *ph)
{
	exporter__record(ctx, e, phases__thread_approx(ph, e->tid));
}

/* Every record of rp through exporter x (o: its options). */
static void run_exporter(struct replay *rp, const struct export_opts *o)
{
	struct report_src src = replay__report_src(rp);
	struct phases_config pc = replay__phases_config(rp);
	struct phases *ph = NULL;
	struct exporter *x;
	char err[256];

	x = exporter__new(o, &src, err, sizeof(err));
	if (x)
		ph = phases__new(&pc, &exporter_phases_ops, x);
	if (ph) {
		if (exporter__wants_records(x)) {
			rp->on_record = to_exporter;
			rp->record_ctx = x;
		}
		exporter__begin(x);
		replay__run(rp, ph, 0, NULL, NULL);
		exporter__end(x, ph, &(struct export_drops){.total = rp->m->drops_total});
	}
	phases__free(ph);
	exporter__free(x);
}

static const char *const export_names[EXPORT_NFORMATS] = {
	[EXPORT_CHROME] = "export chrome",
	[EXPORT_CSV] = "export csv",
	[EXPORT_SVG] = "export svg",
	[EXPORT_OTF2] = "export otf2",
};

static const char *(*const export_checks[EXPORT_NFORMATS])(const char *, size_t, size_t *) = {
	[EXPORT_CHROME] = wf_json,
	[EXPORT_CSV] = wf_text,
	[EXPORT_SVG] = wf_xml,
};

void pass_export(int fd, int format, const char *dir, unsigned int variant)
{
	static const int views[] = {EXPORT_MEASURED | EXPORT_APPROXIMATED, EXPORT_MEASURED,
				    EXPORT_APPROXIMATED};
	char path[PATH_MAX];
	struct export_opts o = {.format = format,
				.views = views[variant % 3],
				.path = path,
				.width = variant / 3 % 2 ? 300 : 0,
				.keep_views = variant / 6 % 2};
	struct export_thread *threads;
	struct capture c;
	struct replay rp;

	if (open_pass(&rp, fd, PH_MODEL_TIME, PH_EXIT_RANK, 1))
		return;
	snprintf(path, sizeof(path), "%s/otf2", dir);
	threads = replay__export_threads(&rp, &o.nthreads);
	o.threads = threads;
	o.end_ns = rp.m->end_ns;
	if (export_checks[format])
		o.out = capture_open(&c);
	if (threads)
		run_exporter(&rp, &o);
	free(threads);
	replay__close(&rp);
	if (export_checks[format])
		capture_check(&c, export_names[format], export_checks[format]);
	else
		fuzz_remove_tree(path);
}
