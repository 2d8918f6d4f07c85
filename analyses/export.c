// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "analyses/export.h"
#include "analyses/names.h"

static const struct {
	const char *name;
	const struct export_format_ops *ops;
} formats[EXPORT_NFORMATS] = {
	[EXPORT_CHROME] = {"chrome", &export_chrome_ops},
	[EXPORT_CSV] = {"csv", &export_csv_ops},
	[EXPORT_SVG] = {"svg", &export_svg_ops},
	[EXPORT_OTF2] = {"otf2", &export_otf2_ops},
};

int export_format__parse(const char *name)
{
	int i;

	for (i = 0; i < EXPORT_NFORMATS; i++)
		if (!strcmp(name, formats[i].name))
			return i;
	return -1;
}

struct exporter *exporter__new(const struct export_opts *o, const struct report_src *src, char *err,
			       size_t errlen)
{
	struct exporter *x;

	if (o->format < 0 || o->format >= EXPORT_NFORMATS) {
		snprintf(err, errlen, "unknown export format");
		return NULL;
	}
	x = calloc(1, sizeof(*x));
	if (!x) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	x->o = *o;
	x->src = *src;
	x->ops = formats[o->format].ops;
	/* without probe costs there is no approximated view */
	if (!src->phases.alpha_enter || !src->phases.alpha_exit)
		x->o.views &= ~EXPORT_APPROXIMATED;
	if (!x->o.views)
		x->o.views = EXPORT_MEASURED;
	if (x->o.critical_path && (x->o.format == EXPORT_CHROME || x->o.format == EXPORT_SVG) &&
	    (x->o.views & EXPORT_APPROXIMATED))
		x->sim = sim__new(); /* NULL: no memory, said in the path's place */
	if (x->ops->init && x->ops->init(x, err, errlen)) {
		sim__free(x->sim);
		free(x);
		return NULL;
	}
	return x;
}

void exporter__free(struct exporter *x)
{
	if (!x)
		return;
	if (x->ops->fini)
		x->ops->fini(x);
	sim_path__free(&x->path);
	sim__free(x->sim);
	free(x);
}

void exporter__begin(struct exporter *x)
{
	if (x->ops->begin)
		x->ops->begin(x);
}

/* The replay as is and its critical path (doc/design.md §5.7). */
static void critical_path(struct exporter *x, const struct phases *p)
{
	static const struct sim_change as_is = {.kind = SIM_AS_IS};
	struct sim_result res;

	x->path_err = x->sim ? sim__finish(x->sim, p) : -ENOMEM;
	if (!x->path_err)
		x->path_err = sim__run(x->sim, &as_is, &res);
	if (!x->path_err)
		x->path_err = sim__critical_path(x->sim, &x->path, 1);
}

void exporter__end(struct exporter *x, const struct phases *p, const struct export_drops *d)
{
	if (x->o.critical_path)
		critical_path(x, p);
	if (x->ops->end)
		x->ops->end(x, p, d);
	if (x->o.out)
		fflush(x->o.out);
}

void exporter__record(struct exporter *x, const struct sbt_event *e, __u64 ta)
{
	if (x->ops->record)
		x->ops->record(x, e, ta);
}

int exporter__wants_records(const struct exporter *x)
{
	return x->ops->record != NULL;
}

static void on_episode(void *ctx, const struct ph_episode *ep)
{
	struct exporter *x = ctx;

	if (x->sim)
		sim__episode(x->sim, ep);
	if (ep->n && x->ops->episode)
		x->ops->episode(x, ep);
}

static void on_call(void *ctx, const struct ph_call *c)
{
	struct exporter *x = ctx;

	if (x->sim)
		sim__call(x->sim, c);
	if (x->ops->call)
		x->ops->call(x, c);
}

static void on_futex_wait(void *ctx, const struct ph_call *c)
{
	struct exporter *x = ctx;

	if (x->sim)
		sim__futex_wait(x->sim, c);
	if (x->ops->futex_wait)
		x->ops->futex_wait(x, c);
}

static void on_region(void *ctx, const struct ph_call *c)
{
	struct exporter *x = ctx;

	if (x->sim)
		sim__region(x->sim, c);
}

const struct phases_ops exporter_phases_ops = {
	.episode = on_episode,
	.call = on_call,
	.futex_wait = on_futex_wait,
	.region = on_region,
};

const char *export__symbol(const struct exporter *x, __u16 probe)
{
	return report_src__symbol(&x->src, probe);
}

void export__site(const struct exporter *x, const struct ph_episode *ep, char *buf, size_t n)
{
	names__site(x->src.names, ep->pid, ph_lowest_site(ep), buf, n);
}

void export__object(const struct exporter *x, __u32 pid, __u64 obj, __u16 probe, char *buf,
		    size_t n)
{
	report_src__object(&x->src, pid, obj, probe, buf, n);
}

const char *export__comm(const struct exporter *x, __u32 tid)
{
	return report_src__comm(&x->src, tid, "");
}
