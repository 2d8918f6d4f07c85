// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The synchronization tables as JSON arrays: locks[], semaphores[],
 * condvars[], futex[]; each object with the counts of its kind, its waits,
 * each thread's share and, but for futex words, its call sites.
 */
#include <inttypes.h>
#include <stdlib.h>
#include "analyses/sync_report_impl.h"

static const char *const kind_key[SYNC_NKINDS] = {"locks", "semaphores", "condvars", "futex"};

static void json_shares(struct json *j, const struct sync_obj *o)
{
	__u32 i;

	json_key(j, "threads");
	json_arr_begin(j);
	for (i = 0; i < o->nthreads; i++) {
		json_obj_begin(j);
		json_ku64(j, "tid", o->threads[i].tid);
		json_ku64(j, "count", o->threads[i].count);
		json_ku64(j, "wait_ns", o->threads[i].wait_ns);
		if (o->kind == SYNC_LOCK)
			json_ku64(j, "hold_ns", o->threads[i].hold_ns);
		if (o->kind != SYNC_FUTEX)
			json_ku64(j, "caused_wait_ns", o->threads[i].caused_ns);
		json_obj_end(j);
	}
	json_arr_end(j);
}

static void json_sites(struct json *j, const struct sync_report *sr, const struct sync_obj *o)
{
	__u32 i;

	json_key(j, "call_sites");
	json_arr_begin(j);
	for (i = 0; i < o->nsites; i++) {
		const char *w = sr->names ? names__get(sr->names, o->pid, o->sites[i].site) : NULL;
		char hex[32];

		snprintf(hex, sizeof(hex), "0x%" PRIx64, (uint64_t)o->sites[i].site);
		json_obj_begin(j);
		json_kstr(j, "call_site", w && *w ? w : hex);
		json_ku64(j, "count", o->sites[i].count);
		json_ku64(j, "wait_ns", o->sites[i].wait_ns);
		json_obj_end(j);
	}
	json_arr_end(j);
}

/* The counts that name what the object's kind does. */
static void json_kind_counts(struct json *j, const struct sync_obj *o)
{
	switch (o->kind) {
	case SYNC_LOCK:
		json_ku64(j, "acquisitions", o->count);
		json_ku64(j, "contended", o->contended);
		json_ku64(j, "try_failures", o->failed);
		json_ku64(j, "nested", o->nested); /* a recursive mutex locked by its holder */
		json_ku64(j, "hold_ns", o->hold_ns);
		json_ku64(j, "max_hold_ns", o->max_hold_ns);
		json_ku64(j, "holds", o->holds);
		break;
	case SYNC_SEM:
		json_ku64(j, "p", o->count);
		json_ku64(j, "v", o->posts);
		json_ku64(j, "p_blocked", o->contended);
		json_ku64(j, "p_nonblocked", o->count - o->contended);
		json_ku64(j, "try_failures", o->failed);
		json_ku64(j, "paired", o->paired);
		json_ku64(j, "initial_tokens", o->initial_tokens);
		json_ku64(j, "unconsumed_v", o->posts_q.len);
		json_ku64(j, "handoff_ns", o->handoff_ns);
		break;
	case SYNC_COND:
		json_ku64(j, "waits", o->count);
		json_ku64(j, "signals", o->posts);
		json_ku64(j, "broadcasts", o->broadcasts);
		break;
	case SYNC_FUTEX:
		json_ku64(j, "waits", o->count);
		json_ku64(j, "outside_waits", o->outside);
		json_ku64(j, "outside_wait_ns", o->outside_ns);
		json_ku64(j, "wakes", o->posts);
		json_ku64(j, "woken", o->broadcasts);
		/* pthread_join's waits: threads joined there, the last of them */
		json_ku64(j, "joined_threads", o->joined);
		if (o->joined)
			json_ku64(j, "joined_tid", o->joined_tid);
		break;
	}
}

static void json_object(struct json *j, const struct sync_report *sr, const struct sync_obj *o)
{
	char name[128];

	sync_report__object_name(sr, o, name, sizeof(name));
	json_obj_begin(j);
	json_ku64(j, "pid", o->pid);
	json_ku64(j, "object", o->addr);
	json_kstr(j, "symbol", name);
	json_kstr(j, "type", sync_report__family(sr, o));
	json_kind_counts(j, o);
	if (o->kind == SYNC_SEM || o->kind == SYNC_COND)
		json_kbool(j, "barrier", o->barrier); /* its waits are barrier time */
	if (o->kind == SYNC_COND) /* a barrier or not, unlocks unseen (condbar.h) */
		json_kbool(j, "same_broadcaster", o->same_broadcaster);
	json_ku64(j, "timeouts", o->timeouts);
	json_ku64(j, "errors", o->interrupted);
	json_ku64(j, "wait_ns", o->wait_ns);
	json_ku64(j, "max_wait_ns", o->max_wait_ns);
	json_ku64(j, "blocked_ns", o->blocked_ns);
	/* waits of other threads its holders, posters, signallers caused */
	if (o->kind != SYNC_FUTEX)
		json_ku64(j, "caused_wait_ns", o->caused_ns);
	json_shares(j, o);
	if (o->kind != SYNC_FUTEX)
		json_sites(j, sr, o);
	json_obj_end(j);
}

void sync_report__json(struct json *j, const struct sync_report *sr)
{
	size_t i, n;
	int k;

	for (k = 0; k < SYNC_NKINDS; k++) {
		const struct sync_obj **v = sr->sync ? sync_report__sorted(sr, k, &n) : NULL;

		if (!v)
			n = 0;
		json_key(j, kind_key[k]);
		json_arr_begin(j);
		for (i = 0; i < n; i++)
			json_object(j, sr, v[i]);
		json_arr_end(j);
		free(v);
	}
}
