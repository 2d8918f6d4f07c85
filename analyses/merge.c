// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Nodes' traces of one job into one (analyses/merge.h; doc/design.md §5.8).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analyses/merge.h"
#include "analyses/mpi.h"
#include "analyses/names.h"
#include "lib/hmap.h"

/* A colliding id of node i becomes id | i << NODE_SHIFT: pids stay below
 * 2^22 (PID_MAX_LIMIT), so no real one is taken. */
#define NODE_SHIFT 22

struct input {
	struct tf_reader *r;
	const struct tf_meta *m;
	__u16 idmap[SBT_MAX_PROBES]; /* its probe id -> the merged one (0: none) */
	struct hmap remap;	     /* colliding pid or tid -> its new id */
	__s64 rt;		     /* realtime estimate: onto the first input's clock */
	struct clock_fit fit;
};

struct merger {
	const struct merge_opts *o;
	struct input *in;
	int n;
	struct sbt_probe_info *probes; /* the merged table, by id (symbol "": free) */
	__u32 nprobes;		       /* merged ids: 1 + the highest */
	char *err;
	size_t errlen;
};

static int fail(struct merger *mg, int e, const char *fmt, const char *what)
{
	snprintf(mg->err, mg->errlen, fmt, what);
	return e;
}

/* ---- ids and times ------------------------------------------------------------ */

static __u32 map_id(const struct input *in, __u32 id)
{
	size_t v;

	return hmap_get_index(&in->remap, id, 0, &v) ? (__u32)v : id;
}

static __u64 map_time(const struct input *in, __u64 ts)
{
	__u64 t = ts + (__u64)in->rt;

	return ts ? t + (__u64)clock_fit__at(&in->fit, t) : 0;
}

static int same_probe(const struct sbt_probe_info *a, const struct sbt_probe_info *b)
{
	return a->kind == b->kind && a->offset == b->offset && !strcmp(a->symbol, b->symbol) &&
	       !strcmp(a->object, b->object);
}

/* The merged id of probe p of input i: the first input's own, else the id
 * of the same probe an earlier input had (every node probes the same
 * functions of the same libraries), else a free one. 0 when none is left. */
static __u16 merged_id(struct merger *mg, int i, const struct sbt_probe_info *p)
{
	__u32 id;

	if (!i)
		return p->id;
	for (id = 1; id < mg->nprobes; id++)
		if (mg->probes[id].symbol[0] && same_probe(&mg->probes[id], p))
			return (__u16)id;
	for (id = 1; id < SBT_MAX_PROBES; id++)
		if (!mg->probes[id].symbol[0])
			return (__u16)id;
	return 0;
}

static int assign_probes(struct merger *mg, int i)
{
	struct input *in = &mg->in[i];
	__u32 k;

	for (k = 0; k < in->m->nprobes; k++) {
		const struct sbt_probe_info *p = &in->m->probes[k];
		__u16 id = p->id && p->id < SBT_MAX_PROBES ? merged_id(mg, i, p) : 0;

		if (!id)
			return -E2BIG;
		in->idmap[p->id] = id;
		if (!mg->probes[id].symbol[0]) {
			mg->probes[id] = *p;
			mg->probes[id].id = id;
		}
		if (id >= mg->nprobes)
			mg->nprobes = id + 1u;
	}
	return 0;
}

/* The ids (pids, tids) of input i that an earlier input has: renamed. */
static int assign_ids(struct merger *mg, struct hmap *taken, int i, __u32 *renamed)
{
	struct input *in = &mg->in[i];
	const struct tf_meta *m = in->m;
	__u32 k, n = m->nthreads + m->njobs;

	for (k = 0; k < n; k++) {
		__u32 id = k < m->nthreads ? m->threads[k].tid : m->jobs[k - m->nthreads].pid;
		size_t dummy;

		if (!hmap_get_index(taken, id, 0, &dummy) ||
		    hmap_get_index(&in->remap, id, 0, &dummy))
			continue;
		if (hmap_put_index(&in->remap, id, 0, id | (__u32)i << NODE_SHIFT))
			return -ENOMEM;
		(*renamed)++;
	}
	for (k = 0; k < n; k++) {
		__u32 id = k < m->nthreads ? m->threads[k].pid : m->jobs[k - m->nthreads].pid;
		__u32 tid = k < m->nthreads ? m->threads[k].tid : id;

		if (hmap_put_index(taken, id, 0, (size_t)i) ||
		    hmap_put_index(taken, tid, 0, (size_t)i))
			return -ENOMEM;
	}
	return 0;
}

/* A record of input in as the merged trace holds it. */
static void map_record(const struct input *in, struct sbt_event *e)
{
	e->pid = map_id(in, e->pid);
	e->tid = map_id(in, e->tid);
	e->ts = map_time(in, e->ts);
	if ((e->type == SBT_EV_ENTER || e->type == SBT_EV_EXIT || e->type == SBT_EV_PROBE_ARMED) &&
	    e->probe)
		e->probe = e->probe < SBT_MAX_PROBES ? in->idmap[e->probe] : 0;
	/* a fork's record names the parent */
	if (e->type == SBT_EV_THREAD_START && !(e->flags & SBT_RF_COST) && e->cost)
		e->cost = map_id(in, e->cost);
}

/* ---- opening ------------------------------------------------------------------- */

static int open_inputs(struct merger *mg, struct merge_node *nodes)
{
	struct hmap taken;
	int i, err = 0;

	hmap_init(&taken);
	for (i = 0; i < mg->n && !err; i++) {
		struct input *in = &mg->in[i];

		hmap_init(&in->remap);
		in->r = tracefile__open(mg->o->inputs[i], mg->err, mg->errlen);
		if (!in->r) {
			err = errno ? -errno : -EINVAL;
			break;
		}
		in->m = tracefile__meta(in->r);
		if (assign_probes(mg, i))
			err = fail(mg, -E2BIG, "%s: too many distinct probes across the inputs",
				   mg->o->inputs[i]);
		if (!err && i && in->m->realtime_offset_ns && mg->in[0].m->realtime_offset_ns)
			in->rt = in->m->realtime_offset_ns - mg->in[0].m->realtime_offset_ns;
		if (!err)
			err = assign_ids(mg, &taken, i, &nodes[i].remapped);
		snprintf(nodes[i].host, sizeof(nodes[i].host), "%s", in->m->host);
		snprintf(nodes[i].job_id, sizeof(nodes[i].job_id), "%s", in->m->job_id);
		nodes[i].realtime_ns = in->rt;
	}
	hmap_free(&taken);
	return err;
}

/* ---- clocks from the episodes ----------------------------------------------------- */

/* The merged probe table and names, for the MPI analysis of the inputs. */
static int merged_probes(struct merger *mg, struct sbt_probe_info *probes, struct names *names)
{
	int i;
	__u32 k;

	memcpy(probes, mg->probes, mg->nprobes * sizeof(*probes));
	for (i = 0; i < mg->n; i++) {
		const struct input *in = &mg->in[i];

		for (k = 0; k < in->m->nsymbols; k++)
			if (names__set(names, map_id(in, in->m->symbols[k].pid),
				       in->m->symbols[k].addr, in->m->symbols[k].name))
				return -ENOMEM;
	}
	return 0;
}

/* Every input's records through the MPI analysis, on the realtime estimate. */
static int feed_all(struct merger *mg, struct mpi *mpi, struct hmap *node_of)
{
	struct sbt_event e;
	int i, got = 0;
	__u32 k;

	for (i = 0; i < mg->n; i++) {
		struct input *in = &mg->in[i];
		struct tf_reader *r = tracefile__open(mg->o->inputs[i], mg->err, mg->errlen);

		if (!r)
			return errno ? -errno : -EINVAL;
		for (k = 0; k < in->m->njobs; k++) {
			const struct tf_job *j = &in->m->jobs[k];

			if (hmap_put_index(node_of, map_id(in, j->pid), 0, (size_t)i) ||
			    (j->rank_id &&
			     mpi__set_rank(mpi, map_id(in, j->pid), (int)j->rank_id - 1,
					   j->host[0] ? j->host : in->m->host)))
				got = -ENOMEM;
		}
		while (!got && (got = tracefile__next(r, &e)) > 0) {
			map_record(in, &e);
			got = mpi__feed(mpi, &e, NULL); /* clocks, not the approximation */
		}
		tracefile__close(r);
		if (got < 0)
			return got;
	}
	return mpi__finish(mpi);
}

/* Mean departure of node i's ranks in episode k: 1 when it has any. */
static int node_departure(const struct mpi *mpi, const struct hmap *node_of, size_t k, int i,
			  double *mean)
{
	double sum = 0;
	size_t j, r, n = 0, node;
	__u64 a, d;

	for (j = 0; j < mpi__episode(mpi, k)->nranks; j++) {
		mpi__episode_part(mpi, k, j, &r, &a, &d);
		if (hmap_get_index(node_of, mpi__rank(mpi, r)->pid, 0, &node) &&
		    node == (size_t)i) {
			sum += (double)d;
			n++;
		}
	}
	if (n)
		*mean = sum / n;
	return n > 0;
}

/* Samples of input i's correction (the first node's departures less its
 * own, episode by episode), fitted. */
static int fit_node(struct merger *mg, const struct mpi *mpi, const struct hmap *node_of, int i,
		    struct merge_node *node)
{
	size_t k, n = 0, ne = mpi__nepisodes(mpi);
	__u64 *t = malloc((ne + 1) * sizeof(*t));
	__s64 *d = malloc((ne + 1) * sizeof(*d));
	double ref, mine;
	int err;

	if (!t || !d) {
		free(t);
		free(d);
		return -ENOMEM;
	}
	for (k = 0; k < ne; k++) {
		const struct mpi_episode *e = mpi__episode(mpi, k);

		if (!mpi__synchronizing(mpi__symbol(mpi, e->probe)) ||
		    !node_departure(mpi, node_of, k, 0, &ref) ||
		    !node_departure(mpi, node_of, k, i, &mine))
			continue;
		t[n] = e->last_arrival_ns;
		d[n++] = (__s64)(ref - mine);
	}
	err = clock_fit(t, d, n, &mg->in[i].fit);
	node->episodes = n;
	free(t);
	free(d);
	return err;
}

static int align(struct merger *mg, struct merge_node *nodes)
{
	struct sbt_probe_info *probes = calloc(mg->nprobes, sizeof(*probes));
	struct names *names = names__new();
	struct mpi *mpi = NULL;
	struct hmap node_of;
	int i, err = -ENOMEM;

	hmap_init(&node_of);
	if (probes && names && !merged_probes(mg, probes, names))
		mpi = mpi__new(probes, mg->nprobes, names);
	if (mpi)
		err = feed_all(mg, mpi, &node_of);
	for (i = 1; i < mg->n && !err; i++)
		err = fit_node(mg, mpi, &node_of, i, &nodes[i]);
	for (i = 0; i < mg->n; i++)
		nodes[i].nranks = 0;
	for (i = 0; mpi && !err && (size_t)i < mpi__nranks(mpi); i++) {
		size_t node;

		if (mpi__rank(mpi, i)->rank >= 0 &&
		    hmap_get_index(&node_of, mpi__rank(mpi, i)->pid, 0, &node))
			nodes[node].nranks++;
	}
	hmap_free(&node_of);
	mpi__free(mpi);
	names__free(names);
	free(probes);
	if (err == -ENOMEM)
		snprintf(mg->err, mg->errlen, "out of memory aligning the nodes' clocks");
	return err;
}

/* ---- the merged metadata ------------------------------------------------------------ */

static char *dup0(const char *s)
{
	return strdup(s ? s : "");
}

static void *copy_array(const void *a, size_t n, size_t sz)
{
	void *c = malloc(n * sz + 1);

	if (c && n)
		memcpy(c, a, n * sz);
	return c;
}

/* INFO and the first input's costs and counters (the others' probes are
 * charged their first calibration, from ALPHA). */
static int meta_head(const struct merger *mg, struct tf_meta *out)
{
	const struct tf_meta *m = mg->in[0].m;
	__u32 k;

	out->kernel = dup0(m->kernel);
	out->host = dup0(m->host);
	out->command = dup0(m->command);
	out->clock = dup0(m->clock);
	out->sbt_version = dup0(m->sbt_version);
	out->command_end = dup0(m->command_end);
	out->inject_delay_ns = dup0(m->inject_delay_ns);
	out->costs_source = dup0(m->costs_source);
	out->job_id = dup0(m->job_id);
	out->realtime_offset_ns = m->realtime_offset_ns;
	memcpy(out->counters, m->counters, sizeof(out->counters));
	out->ncounters = m->ncounters;
	out->alpha_counters = m->alpha_counters;
	out->cost_names = calloc(m->ncost_names + 1, sizeof(char *));
	for (k = 0; out->cost_names && k < m->ncost_names; k++)
		out->cost_names[out->ncost_names++] = dup0(m->cost_names[k]);
	out->calibrations = copy_array(m->calibrations, m->ncalibrations, sizeof(*m->calibrations));
	out->ncalibrations = m->ncalibrations;
	out->cal_costs = copy_array(m->cal_costs, m->ncal_costs, sizeof(*m->cal_costs));
	out->ncal_costs = m->ncal_costs;
	out->cost_binds = copy_array(m->cost_binds, m->ncost_binds, sizeof(*m->cost_binds));
	out->ncost_binds = m->ncost_binds;
	return out->cost_names && out->calibrations && out->cal_costs && out->cost_binds ? 0
											 : -ENOMEM;
}

static int meta_tables(const struct merger *mg, struct tf_meta *out)
{
	__u32 total_s = 0, total_t = 0, total_j = 0, k, id;
	int i;

	for (i = 0; i < mg->n; i++) {
		total_s += mg->in[i].m->nsymbols;
		total_t += mg->in[i].m->nthreads;
		total_j += mg->in[i].m->njobs;
	}
	out->probes = calloc(mg->nprobes + 1, sizeof(*out->probes));
	out->symbols = calloc(total_s + 1, sizeof(*out->symbols));
	out->threads = calloc(total_t + 1, sizeof(*out->threads));
	out->jobs = calloc(total_j + 1, sizeof(*out->jobs));
	out->alpha_enter = calloc(mg->nprobes, sizeof(__u64));
	out->alpha_exit = calloc(mg->nprobes, sizeof(__u64));
	if (!out->probes || !out->symbols || !out->threads || !out->jobs || !out->alpha_enter ||
	    !out->alpha_exit)
		return -ENOMEM;
	out->nalpha = mg->nprobes;
	for (id = 1; id < mg->nprobes; id++)
		if (mg->probes[id].symbol[0])
			out->probes[out->nprobes++] = mg->probes[id];
	/* a probe's cost: the first input's that has it (backwards: the first
	 * written last) */
	for (i = mg->n; i-- > 0;) {
		const struct input *in = &mg->in[i];
		const struct tf_meta *m = in->m;

		for (k = 0; m->alpha_enter && k < m->nalpha && k < SBT_MAX_PROBES; k++) {
			id = i ? in->idmap[k] : k;
			if (id && id < mg->nprobes) {
				out->alpha_enter[id] = m->alpha_enter[k];
				out->alpha_exit[id] = m->alpha_exit[k];
			}
		}
	}
	for (i = 0; i < mg->n; i++) {
		const struct input *in = &mg->in[i];
		const struct tf_meta *m = in->m;

		for (k = 0; k < m->nsymbols; k++) {
			struct tf_symbol *s = &out->symbols[out->nsymbols];

			*s = m->symbols[k];
			s->pid = map_id(in, s->pid);
			if (!(s->name = strdup(m->symbols[k].name)))
				return -ENOMEM;
			out->nsymbols++;
		}
		for (k = 0; k < m->nthreads; k++) {
			struct tf_thread *t = &out->threads[out->nthreads++];

			*t = m->threads[k];
			t->pid = map_id(in, t->pid);
			t->tid = map_id(in, t->tid);
			t->start_ns = map_time(in, t->start_ns);
			t->exit_ns = map_time(in, t->exit_ns);
		}
		for (k = 0; k < m->njobs; k++) {
			struct tf_job *j = &out->jobs[out->njobs];

			*j = m->jobs[k];
			j->pid = map_id(in, j->pid);
			j->start_ns = map_time(in, j->start_ns);
			j->end_ns = map_time(in, j->end_ns);
			if (!j->host[0])
				snprintf(j->host, sizeof(j->host), "%s", m->host);
			if (!(j->command = strdup(m->jobs[k].command)))
				return -ENOMEM;
			out->njobs++;
		}
		out->drops_total += m->drops_total;
	}
	return 0;
}

static int merged_meta(const struct merger *mg, struct tf_meta *out)
{
	int i, err;

	memset(out, 0, sizeof(*out));
	err = meta_head(mg, out);
	if (!err)
		err = meta_tables(mg, out);
	for (i = 0; !err && i < mg->n; i++) {
		__u64 s = map_time(&mg->in[i], mg->in[i].m->start_ns);
		__u64 e = map_time(&mg->in[i], mg->in[i].m->end_ns);

		out->start_ns = !i || s < out->start_ns ? s : out->start_ns;
		out->end_ns = e > out->end_ns ? e : out->end_ns;
	}
	return err;
}

/* ---- the records, in time order ------------------------------------------------------ */

struct head {
	struct sbt_event e;
	int live;
};

static int next_head(const struct input *in, struct head *h)
{
	int got = tracefile__next(in->r, &h->e);

	h->live = got > 0;
	if (h->live)
		map_record(in, &h->e);
	return got < 0 ? got : 0;
}

static int write_records(struct merger *mg, struct tf_writer *w, struct merge_node *nodes)
{
	struct head *h = calloc(mg->n, sizeof(*h));
	int i, best, err = h ? 0 : -ENOMEM;

	for (i = 0; i < mg->n && !err; i++)
		err = next_head(&mg->in[i], &h[i]);
	while (!err) {
		for (best = -1, i = 0; i < mg->n; i++)
			if (h[i].live && (best < 0 || h[i].e.ts < h[best].e.ts))
				best = i;
		if (best < 0)
			break;
		err = tracefile__write(w, &h[best].e, 1);
		nodes[best].records++;
		if (!err)
			err = next_head(&mg->in[best], &h[best]);
	}
	free(h);
	return err;
}

static int write_output(struct merger *mg, struct merge_node *nodes)
{
	struct tf_writer *w;
	struct tf_meta meta;
	int err = merged_meta(mg, &meta);

	if (err) {
		tf_meta_free(&meta);
		return fail(mg, err, "%s", "out of memory merging the metadata");
	}
	w = tracefile__create(mg->o->output);
	if (!w) {
		err = -errno;
		tf_meta_free(&meta);
		snprintf(mg->err, mg->errlen, "%s: %s", mg->o->output, strerror(-err));
		return err;
	}
	err = tracefile__put_meta(w, &meta, TF_PUT_META);
	if (!err)
		err = write_records(mg, w, nodes);
	/* every section is in already: appended again, probes would repeat */
	if (!err)
		err = tracefile__finish(w, NULL);
	else
		tracefile__finish(w, NULL);
	tf_meta_free(&meta);
	if (err)
		snprintf(mg->err, mg->errlen, "%s: %s", mg->o->output, strerror(-err));
	return err;
}

int merge__run(const struct merge_opts *o, struct merge_node *nodes, char *err, size_t errlen)
{
	struct merger mg = {.o = o, .n = o->ninputs, .err = err, .errlen = errlen};
	int i, e;

	memset(nodes, 0, o->ninputs * sizeof(*nodes));
	if (o->ninputs < 1 || o->ninputs > MERGE_MAX_INPUTS) {
		snprintf(err, errlen, "merge: 1 to %d traces", MERGE_MAX_INPUTS);
		return -EINVAL;
	}
	mg.in = calloc(o->ninputs, sizeof(*mg.in));
	mg.probes = calloc(SBT_MAX_PROBES, sizeof(*mg.probes));
	mg.nprobes = 1;
	if (!mg.in || !mg.probes) {
		free(mg.in);
		free(mg.probes);
		return fail(&mg, -ENOMEM, "%s", "out of memory");
	}
	e = open_inputs(&mg, nodes);
	if (!e && o->align && mg.n > 1)
		e = align(&mg, nodes);
	for (i = 0; i < mg.n; i++)
		nodes[i].fit = mg.in[i].fit;
	if (!e)
		e = write_output(&mg, nodes);
	for (i = 0; i < mg.n; i++) {
		if (mg.in[i].r)
			tracefile__close(mg.in[i].r);
		hmap_free(&mg.in[i].remap);
	}
	free(mg.in);
	free(mg.probes);
	return e;
}
