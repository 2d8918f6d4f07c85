// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The MPI rank view and collective episodes, as text and JSON
 * (doc/design.md §5.8, §6).
 */
#include <inttypes.h>
#include <stdlib.h>
#include "analyses/mpi.h"
#include "analyses/mpi_report.h"
#include "lib/json.h"

static double ms(__u64 ns)
{
	return ns / 1e6;
}

static void rank_name(const struct mpi_rank_stats *r, char *buf, size_t n)
{
	if (r->rank >= 0)
		snprintf(buf, n, "%d", r->rank);
	else
		snprintf(buf, n, "?");
}

static void ranks_text(const struct mpi *m, FILE *f)
{
	size_t i;

	fprintf(f,
		"Ranks (ms; wait: in collectives, for the last rank to arrive, ~ approximated; "
		"late: episodes it\n    arrived at last; late sender: receives waiting for their "
		"send to begin; phases: between its\n    collectives, regions: OpenMP regions "
		"begun "
		"in them):\n");
	fprintf(f, "%6s %-16s %9s %8s %11s %11s %11s %11s %6s %11s %11s %7s %11s %8s\n", "rank",
		"host", "pid", "calls", "in MPI", "collective", "wait", "~wait", "late", "p2p",
		"late sender", "phases", "phase time", "regions");
	for (i = 0; i < mpi__nranks(m); i++) {
		const struct mpi_rank_stats *r = mpi__rank(m, i);
		char rk[16];

		rank_name(r, rk, sizeof(rk));
		fprintf(f,
			"%6s %-16s %9u %8" PRIu64 " %11.3f %11.3f %11.3f %11.3f %6" PRIu64
			" %11.3f %11.3f %7" PRIu64 " %11.3f %8" PRIu64 "\n",
			rk, r->host[0] ? r->host : "-", r->pid, (uint64_t)r->calls, ms(r->mpi_ns),
			ms(r->coll_ns), ms(r->coll_wait_ns), ms(r->coll_wait_a_ns),
			(uint64_t)r->late, ms(r->p2p_ns), ms(r->late_sender_ns),
			(uint64_t)r->phases, ms(r->phase_ns), (uint64_t)r->phase_regions);
	}
}

static void comms_text(const struct mpi *m, FILE *f)
{
	size_t i;

	fprintf(f, "Collectives by communicator (an episode: the k-th collective of each rank on "
		   "it):\n");
	fprintf(f, "%-48s %6s %9s %8s %11s %14s %13s\n", "communicator", "ranks", "episodes",
		"partial", "wait ms", "imbalance ms", "max imb. ms");
	for (i = 0; i < mpi__ncomms(m); i++) {
		const struct mpi_comm_stats *c = mpi__comm(m, i);

		fprintf(f, "%-48s %6u %9" PRIu64 " %8" PRIu64 " %11.3f %14.3f %13.3f\n", c->name,
			c->size, (uint64_t)c->episodes, (uint64_t)c->partial, ms(c->wait_ns),
			c->episodes ? ms(c->imbalance_ns) / c->episodes : 0,
			ms(c->max_imbalance_ns));
	}
}

static __u64 imbalance(const struct mpi_episode *e)
{
	return e->last_arrival_ns - e->first_arrival_ns;
}

static int cmp_imbalance(const void *a, const void *b)
{
	__u64 x = imbalance(*(const struct mpi_episode *const *)a),
	      y = imbalance(*(const struct mpi_episode *const *)b);

	return x > y ? -1 : x < y;
}

static void episodes_text(const struct mpi *m, FILE *f, size_t max)
{
	size_t i, n = mpi__nepisodes(m);
	const struct mpi_episode **by = malloc((n + 1) * sizeof(*by));

	if (!by || !n || !max) {
		free(by);
		return;
	}
	for (i = 0; i < n; i++)
		by[i] = mpi__episode(m, i);
	qsort(by, n, sizeof(*by), cmp_imbalance);
	fprintf(f, "Most imbalanced episodes (ms from the first arrival to the last):\n");
	fprintf(f, "%-48s %7s %-20s %6s %10s %12s %11s\n", "communicator", "episode", "call",
		"ranks", "late rank", "imbalance", "wait");
	for (i = 0; i < n && i < max; i++) {
		const struct mpi_episode *e = by[i];
		char rk[16];

		rank_name(mpi__rank(m, e->late_rank_ix), rk, sizeof(rk));
		fprintf(f, "%-48s %7u %-20s %6u %10s %12.3f %11.3f%s\n",
			mpi__comm(m, e->comm)->name, e->index, mpi__symbol(m, e->probe), e->nranks,
			rk, ms(imbalance(e)), ms(e->wait_ns),
			e->mixed ? "  (ranks called different collectives)" : "");
	}
	free(by);
}

/* The run from the first collective's release to the last's, measured and
 * approximated across ranks. */
static void run_text(const struct mpi *m, FILE *f)
{
	const struct mpi_run *r = mpi__run(m);
	__u64 t = r->last_release_ns - r->first_release_ns;

	if (mpi__nepisodes(m) < 2)
		return;
	fprintf(f, "From the first collective's release to the last: %.3f ms measured", ms(t));
	if (r->approximated)
		fprintf(f,
			", %.3f ms approximated (each rank's probe cost removed, the collectives "
			"and receives rebuilt across ranks; %" PRIu64 " episode%s with another "
			"late rank)",
			ms(r->last_release_a_ns - r->first_release_a_ns),
			(uint64_t)r->episodes_changed, r->episodes_changed == 1 ? "" : "s");
	fputs("\n", f);
}

/* Episodes no communicator's members would make (doc/design.md §5.8). */
static void inconsistent_text(const struct mpi *m, FILE *f)
{
	size_t i;

	for (i = 0; i < mpi__ncomms(m); i++) {
		const struct mpi_comm_stats *c = mpi__comm(m, i);

		if (c->inconsistent)
			fprintf(f,
				"warning: %" PRIu64 " of the %" PRIu64
				" episodes of %s had a rank leave "
				"before the last arrived: its ranks are likely not one "
				"communicator "
				"(one made before the tracing, or by MPI_Comm_create from disjoint "
				"groups, is matched by the order each rank first used one)\n",
				(uint64_t)c->inconsistent, (uint64_t)c->episodes, c->name);
	}
}

void mpi_report__text(const struct mpi *m, FILE *f, size_t max_episodes)
{
	__u64 p2p = 0;
	size_t i;

	for (i = 0; i < mpi__nranks(m); i++)
		p2p += mpi__rank(m, i)->p2p;
	fprintf(f,
		"\n=== MPI: %zu ranks, %zu collective episodes on %zu communicator%s, %" PRIu64
		" point-to-point calls ===\n",
		mpi__nranks(m), mpi__nepisodes(m), mpi__ncomms(m), mpi__ncomms(m) == 1 ? "" : "s",
		(uint64_t)p2p);
	run_text(m, f);
	ranks_text(m, f);
	if (mpi__ncomms(m))
		comms_text(m, f);
	episodes_text(m, f, max_episodes);
	inconsistent_text(m, f);
	if (mpi__unmatched_recvs(m))
		fprintf(f,
			"%" PRIu64 " receives not paired with a send (a wildcard source, another "
			"communicator than MPI_COMM_WORLD, a rank not traced)\n",
			(uint64_t)mpi__unmatched_recvs(m));
}

static void rank_json(struct json *j, const struct mpi_rank_stats *r)
{
	json_obj_begin(j);
	json_ki64(j, "rank", r->rank);
	json_kstr(j, "host", r->host);
	json_ku64(j, "pid", r->pid);
	json_ku64(j, "calls", r->calls);
	json_ku64(j, "mpi_ns", r->mpi_ns);
	json_ku64(j, "collectives", r->colls);
	json_ku64(j, "collective_ns", r->coll_ns);
	json_ku64(j, "collective_wait_ns", r->coll_wait_ns);
	json_ku64(j, "collective_wait_a_ns", r->coll_wait_a_ns);
	json_ku64(j, "late", r->late);
	json_ku64(j, "p2p", r->p2p);
	json_ku64(j, "p2p_ns", r->p2p_ns);
	json_ku64(j, "late_sender_ns", r->late_sender_ns);
	json_ku64(j, "completion", r->completion);
	json_ku64(j, "completion_ns", r->completion_ns);
	json_ku64(j, "phases", r->phases);
	json_ku64(j, "phase_ns", r->phase_ns);
	json_ku64(j, "phase_regions", r->phase_regions);
	json_ku64(j, "first_ns", r->first_ns);
	json_ku64(j, "last_ns", r->last_ns);
	json_obj_end(j);
}

static void comm_json(struct json *j, const struct mpi_comm_stats *c)
{
	json_obj_begin(j);
	json_kstr(j, "name", c->name);
	json_ku64(j, "ranks", c->size);
	json_ku64(j, "episodes", c->episodes);
	json_ku64(j, "partial", c->partial);
	json_ku64(j, "inconsistent", c->inconsistent);
	json_ku64(j, "wait_ns", c->wait_ns);
	json_ku64(j, "imbalance_ns", c->imbalance_ns);
	json_ku64(j, "max_imbalance_ns", c->max_imbalance_ns);
	json_obj_end(j);
}

static void episode_json(struct json *j, const struct mpi *m, size_t i)
{
	const struct mpi_episode *e = mpi__episode(m, i);
	const struct mpi_rank_stats *late = mpi__rank(m, e->late_rank_ix);
	__u64 a, d;
	size_t r, k;

	json_obj_begin(j);
	json_kstr(j, "communicator", mpi__comm(m, e->comm)->name);
	json_ku64(j, "index", e->index);
	json_kstr(j, "call", mpi__symbol(m, e->probe));
	json_ku64(j, "ranks", e->nranks);
	json_ki64(j, "late_rank", late->rank);
	json_ku64(j, "late_pid", late->pid);
	json_ku64(j, "first_arrival_ns", e->first_arrival_ns);
	json_ku64(j, "last_arrival_ns", e->last_arrival_ns);
	json_ku64(j, "last_departure_ns", e->last_departure_ns);
	json_ku64(j, "wait_ns", e->wait_ns);
	if (mpi__run(m)->approximated) {
		json_ku64(j, "last_arrival_a_ns", e->last_arrival_a_ns);
		json_ki64(j, "late_rank_a", mpi__rank(m, e->late_rank_a_ix)->rank);
		json_ku64(j, "wait_a_ns", e->wait_a_ns);
	}
	json_kbool(j, "mixed", e->mixed);
	json_kbool(j, "inconsistent", e->inconsistent);
	json_key(j, "arrivals");
	json_arr_begin(j);
	for (k = 0; k < e->nranks; k++) {
		mpi__episode_part(m, i, k, &r, &a, &d);
		json_obj_begin(j);
		json_ki64(j, "rank", mpi__rank(m, r)->rank);
		json_ku64(j, "pid", mpi__rank(m, r)->pid);
		json_ku64(j, "arrival_ns", a);
		json_ku64(j, "departure_ns", d);
		json_ku64(j, "wait_ns", e->last_arrival_ns - a);
		json_obj_end(j);
	}
	json_arr_end(j);
	json_obj_end(j);
}

static void run_json(struct json *j, const struct mpi_run *r)
{
	json_key(j, "run");
	json_obj_begin(j);
	json_ku64(j, "first_release_ns", r->first_release_ns);
	json_ku64(j, "last_release_ns", r->last_release_ns);
	json_kbool(j, "approximated", r->approximated);
	if (r->approximated) {
		json_ku64(j, "first_release_a_ns", r->first_release_a_ns);
		json_ku64(j, "last_release_a_ns", r->last_release_a_ns);
		json_ku64(j, "episodes_changed", r->episodes_changed);
	}
	json_obj_end(j);
}

void mpi_report__json(const struct mpi *m, struct json *j)
{
	size_t i;

	json_obj_begin(j);
	json_key(j, "ranks");
	json_arr_begin(j);
	for (i = 0; i < mpi__nranks(m); i++)
		rank_json(j, mpi__rank(m, i));
	json_arr_end(j);
	json_key(j, "communicators");
	json_arr_begin(j);
	for (i = 0; i < mpi__ncomms(m); i++)
		comm_json(j, mpi__comm(m, i));
	json_arr_end(j);
	json_ku64(j, "unmatched_receives", mpi__unmatched_recvs(m));
	run_json(j, mpi__run(m));
	json_key(j, "episodes");
	json_arr_begin(j);
	for (i = 0; i < mpi__nepisodes(m); i++)
		episode_json(j, m, i);
	json_arr_end(j);
	json_obj_end(j);
}
