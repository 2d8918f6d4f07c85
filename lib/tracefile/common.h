/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* What the .sbt writer and reader share: byte order, sizes, section
 * names, whole-buffer I/O. The format itself is described in lib/tracefile.h. */
#ifndef SBT_TRACEFILE_COMMON_H
#define SBT_TRACEFILE_COMMON_H

#define _FILE_OFFSET_BITS 64
#include <stddef.h>
#include <sys/types.h>
#include "lib/tracefile.h"

#define REC_SIZE ((__u64)sizeof(struct sbt_event))
/* Versions 1 and 2: the record without cost and flags. */
#define REC_SIZE_V2 40u

/* The record size of a format version (the header must say the same). */
static inline __u32 tf_record_size(__u32 version)
{
	return version < 3 ? REC_SIZE_V2 : (__u32)REC_SIZE;
}

/* Names of the known chunks, by tag (NULL: not a tag). */
#define TF_NSECTIONS (TF_SEC_PROBE_COSTS + 1) /* 1 + the highest known tag */
extern const char *const tf_section_names[TF_NSECTIONS];

/* Records and header fields between host and little-endian file order
 * (each an involution: it serves both directions). */
void tf_event_to_le(struct sbt_event *e);
void tf_header_to_le(struct tf_header *h);

/* Whole-buffer I/O through short counts and EINTR: write returns 0 or -errno, with the bytes
 * written in *done (NULL: not wanted); pread returns the count (short only at the end of the
 * file) or -errno. */
int tf_write_all(int fd, const void *buf, size_t len, size_t *done);
ssize_t tf_pread_all(int fd, void *buf, size_t len, off_t off);

#endif
