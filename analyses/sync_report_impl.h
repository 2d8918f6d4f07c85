/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Inside the synchronization tables (analyses/sync_report.h): what the text
 * (sync_report_text.c) and JSON (sync_report_json.c) writers share.
 */
#ifndef SBT_SYNC_REPORT_IMPL_H
#define SBT_SYNC_REPORT_IMPL_H

#include "analyses/sync_report.h"

/* The object's name from the debug info, or its address. */
void sync_report__object_name(const struct sync_report *sr, const struct sync_obj *o, char *buf,
			      size_t n);
/* Its family: futex, spinlock, rwlock, mutex, or its probe's symbol. */
const char *sync_report__family(const struct sync_report *sr, const struct sync_obj *o);
/* The objects of a kind in table order (locks: by sr->sort, others by
 * wait); *n of them. NULL (and *n 0) on no memory; the caller frees. */
const struct sync_obj **sync_report__sorted(const struct sync_report *sr, int kind, size_t *n);

#endif /* SBT_SYNC_REPORT_IMPL_H */
