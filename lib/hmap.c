// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include "lib/hmap.h"

static uint64_t mix(uint64_t k1, uint64_t k2)
{
	uint64_t h = k1 * 0x9e3779b97f4a7c15ULL ^ (k2 + 0x632be59bd9b4e019ULL);

	h ^= h >> 31;
	h *= 0xbf58476d1ce4e5b9ULL;
	return h ^ (h >> 29);
}

void hmap_init(struct hmap *m)
{
	m->slots = NULL;
	m->cap = m->used = m->len = 0;
}

void hmap_free(struct hmap *m)
{
	free(m->slots);
	hmap_init(m);
}

void hmap_free_values(struct hmap *m)
{
	const struct hmap_slot *s;
	size_t pos = 0;

	while ((s = hmap_next(m, &pos)))
		free(s->val);
	hmap_free(m);
}

const struct hmap_slot *hmap_next(const struct hmap *m, size_t *pos)
{
	for (; *pos < m->cap; (*pos)++)
		if (m->slots[*pos].val && m->slots[*pos].val != HMAP_TOMB)
			return &m->slots[(*pos)++];
	return NULL;
}

static struct hmap_slot *find(const struct hmap *m, uint64_t k1, uint64_t k2)
{
	size_t i;

	if (!m->cap)
		return NULL;
	for (i = mix(k1, k2) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
		struct hmap_slot *s = &m->slots[i];

		if (!s->val)
			return NULL;
		if (s->val != HMAP_TOMB && s->k1 == k1 && s->k2 == k2)
			return s;
	}
}

void *hmap_get(const struct hmap *m, uint64_t k1, uint64_t k2)
{
	struct hmap_slot *s = find(m, k1, k2);

	return s ? s->val : NULL;
}

static void insert_new(struct hmap *m, uint64_t k1, uint64_t k2, void *val)
{
	size_t i;

	for (i = mix(k1, k2) & (m->cap - 1); m->slots[i].val; i = (i + 1) & (m->cap - 1))
		if (m->slots[i].val == HMAP_TOMB)
			break;
	if (!m->slots[i].val)
		m->used++;
	m->slots[i] = (struct hmap_slot){k1, k2, val};
	m->len++;
}

static int grow(struct hmap *m)
{
	struct hmap old = *m;
	size_t i, cap = m->cap ? m->cap * 2 : 64;

	/* Rehash at the same size when most of the load is tombstones. */
	if (m->len * 4 < m->cap)
		cap = m->cap;
	m->slots = calloc(cap, sizeof(*m->slots));
	if (!m->slots) {
		*m = old;
		return -ENOMEM;
	}
	m->cap = cap;
	m->used = m->len = 0;
	for (i = 0; i < old.cap; i++)
		if (old.slots[i].val && old.slots[i].val != HMAP_TOMB)
			insert_new(m, old.slots[i].k1, old.slots[i].k2, old.slots[i].val);
	free(old.slots);
	return 0;
}

int hmap_put(struct hmap *m, uint64_t k1, uint64_t k2, void *val)
{
	struct hmap_slot *s;

	/* stored, either would read as an empty or deleted slot: the entry
	 * would be lost without a word (hmap_put_index() stores small values) */
	if (val == NULL || val == HMAP_TOMB)
		return -EINVAL;
	s = find(m, k1, k2);
	if (s) {
		s->val = val;
		return 0;
	}
	if ((m->used + 1) * 4 > m->cap * 3 && grow(m))
		return -ENOMEM;
	insert_new(m, k1, k2, val);
	return 0;
}

void *hmap_put_new(struct hmap *m, uint64_t k1, uint64_t k2, size_t size)
{
	void *val = calloc(1, size);

	if (val && hmap_put(m, k1, k2, val)) {
		free(val);
		return NULL;
	}
	return val;
}

void *hmap_del(struct hmap *m, uint64_t k1, uint64_t k2)
{
	struct hmap_slot *s = find(m, k1, k2);
	void *val;

	if (!s)
		return NULL;
	val = s->val;
	s->val = HMAP_TOMB;
	m->len--;
	return val;
}

int hmap_put_index(struct hmap *m, uint64_t k1, uint64_t k2, size_t ix)
{
	return hmap_put(m, k1, k2, (void *)(uintptr_t)(ix + 2));
}

int hmap_get_index(const struct hmap *m, uint64_t k1, uint64_t k2, size_t *ix)
{
	uintptr_t v = (uintptr_t)hmap_get(m, k1, k2);

	if (!v)
		return 0;
	*ix = v - 2;
	return 1;
}
