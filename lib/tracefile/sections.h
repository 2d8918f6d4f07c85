/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The reader's side of the metadata sections (lib/tracefile.h): each one
 * parsed from a hostile buffer into a tf_meta, and how sections repeated
 * along a stream combine. */
#ifndef SBT_TRACEFILE_SECTIONS_H
#define SBT_TRACEFILE_SECTIONS_H

#include <stdbool.h>
#include "lib/hmap.h"
#include "lib/tracefile/common.h"

/* Where the reader reports its failure: "path: reason" into err. */
struct rctx {
	const char *path;
	char *err;
	size_t errlen;
};

/* Formats the reason; returns -errnum for the caller to pass up. */
__attribute__((format(printf, 3, 4))) int tf_fail(const struct rctx *rc, int errnum,
						  const char *fmt, ...);

/* A tf_meta as its sections come. */
struct tf_sections {
	struct tf_meta *m;
	bool once;			/* version 1: each section at most once */
	bool seen[TF_NSECTIONS];	/* for `once` */
	__u8 probe_ids[SBT_MAX_PROBES]; /* ids taken: unique across the file */
	/* (pid, tid, start) and (pid, start) -> index + 2 (hmap keeps 0 and 1) */
	struct hmap threads, jobs;
	size_t cap_probes, cap_symbols, cap_threads, cap_jobs; /* entries allocated */
	size_t cap_cost_names, cap_calibrations, cap_cal_costs, cap_cost_binds;
	__u32 bind_at[SBT_MAX_PROBES]; /* probe id -> its PROBE_COSTS entry + 1 */
};

void tf_sections__init(struct tf_sections *s, struct tf_meta *m, bool once);
/* Section tag's payload p[0..len) into the meta. Unknown tags are skipped.
 * 0 or -errno, the reason in rc. */
int tf_sections__parse(struct tf_sections *s, const struct rctx *rc, __u32 tag, const __u8 *p,
		       size_t len);
/* Every section read: the meta's strings made non-NULL. 0 or -ENOMEM. */
int tf_sections__end(struct tf_sections *s, const struct rctx *rc);
/* Frees the parser's own state (not the meta). */
void tf_sections__free(struct tf_sections *s);

#endif
