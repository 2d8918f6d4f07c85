// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "lib/array.h"

/* The first room holds about this many bytes (one element at least): an
 * analysis may keep an array per thread or episode, millions of them in a
 * hostile trace, most holding one or two elements. */
#define FIRST_ROOM 64

int array_reserve(void **arr, size_t *cap, size_t n, size_t sz)
{
	size_t ncap = *cap ? *cap : (sz < FIRST_ROOM ? FIRST_ROOM / sz : 1);
	void *p;

	if (n <= *cap)
		return 0;
	while (ncap < n)
		ncap *= 2;
	p = realloc(*arr, ncap * sz);
	if (!p)
		return -ENOMEM;
	memset((char *)p + *cap * sz, 0, (ncap - *cap) * sz);
	*arr = p;
	*cap = ncap;
	return 0;
}

int array_fifo_push(struct array_fifo *q, const void *elem, size_t sz, size_t max)
{
	size_t old = q->cap;

	if (q->len == q->cap) {
		if (max && q->cap >= max)
			return -E2BIG;
		if (array_reserve(&q->buf, &q->cap, q->len + 1, sz))
			return -ENOMEM;
		/* the room at least doubled: the wrapped part, [0, head), goes
		 * after the rest, which keeps its place */
		memcpy((char *)q->buf + old * sz, q->buf, q->head * sz);
	}
	memcpy((char *)q->buf + (q->head + q->len++) % q->cap * sz, elem, sz);
	return 0;
}

int array_fifo_pop(struct array_fifo *q, void *out, size_t sz)
{
	if (!q->len)
		return 0;
	memcpy(out, (char *)q->buf + q->head * sz, sz);
	q->head = (q->head + 1) % q->cap;
	q->len--;
	return 1;
}

int array_cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

int array_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}
