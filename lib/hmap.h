/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* A small open-addressing hash map from a pair of u64 keys to a pointer.
 * Values are never NULL; deletion uses tombstones. */
#ifndef SBT_HMAP_H
#define SBT_HMAP_H

#include <stddef.h>
#include <stdint.h>

/* The deleted-slot marker: not a storable value (nor is NULL). */
#define HMAP_TOMB ((void *)1)

struct hmap_slot {
	uint64_t k1, k2;
	void *val; /* NULL: empty; HMAP_TOMB: deleted */
};

struct hmap {
	struct hmap_slot *slots;
	size_t cap;  /* power of two */
	size_t used; /* live + tombstones */
	size_t len;  /* live entries */
};

void hmap_init(struct hmap *m);
void hmap_free(struct hmap *m);
/* hmap_free() for a map whose values were malloc'ed: frees them too. */
void hmap_free_values(struct hmap *m);
void *hmap_get(const struct hmap *m, uint64_t k1, uint64_t k2);
/* Insert or replace. Returns 0, -ENOMEM, or -EINVAL for a value that is
 * not storable (NULL, HMAP_TOMB). */
int hmap_put(struct hmap *m, uint64_t k1, uint64_t k2, void *val);
/* A new value of size zeroed bytes put at (k1, k2), which must hold none
 * (the caller or hmap_free_values() frees it). NULL on no memory. */
void *hmap_put_new(struct hmap *m, uint64_t k1, uint64_t k2, size_t size);
void *hmap_del(struct hmap *m, uint64_t k1, uint64_t k2);
/* An index into an array of the caller's as the value (any size_t below
 * SIZE_MAX - 1; stored apart from NULL and HMAP_TOMB). put: 0 or -ENOMEM;
 * get: 1 and *ix when there is one, else 0. */
int hmap_put_index(struct hmap *m, uint64_t k1, uint64_t k2, size_t ix);
int hmap_get_index(const struct hmap *m, uint64_t k1, uint64_t k2, size_t *ix);
/* Iteration: the live entry at or after slot *pos (start at 0), with *pos
 * moved past it; NULL at the end. Entries may be deleted while iterating,
 * not inserted (an insertion may rehash).
 *   for (size_t pos = 0; (s = hmap_next(m, &pos));) use(s->k1, s->val); */
const struct hmap_slot *hmap_next(const struct hmap *m, size_t *pos);

#endif
