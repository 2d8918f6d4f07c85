/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Growable arrays: one way to make room, for every module that appends. */
#ifndef SBT_ARRAY_H
#define SBT_ARRAY_H

#include <stddef.h>

/* Room for n elements of sz bytes in *arr, whose capacity is *cap: doubled
 * (from about 64 bytes' worth, one element at least) until it fits; the new
 * room is zeroed. 0, or -ENOMEM with *arr
 * and *cap untouched. */
int array_reserve(void **arr, size_t *cap, size_t n, size_t sz);

/* A queue of sz-byte elements, oldest first: a ring whose room
 * array_reserve() makes (zero it to start; free(buf) to end). */
struct array_fifo {
	void *buf;
	size_t head, len, cap; /* in elements */
};

/* Append elem: 0; -E2BIG when the queue is full at max elements (0: no
 * bound), -ENOMEM without memory (the queue unchanged either way). */
int array_fifo_push(struct array_fifo *q, const void *elem, size_t sz, size_t max);
/* The oldest element into out, taken off: 1; 0 when the queue is empty. */
int array_fifo_pop(struct array_fifo *q, void *out, size_t sz);

/* qsort() comparators of uint32_t values (thread ids) and of uint64_t
 * values (times), ascending. */
int array_cmp_u32(const void *a, const void *b);
int array_cmp_u64(const void *a, const void *b);

#endif
