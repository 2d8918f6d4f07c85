// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/utf8.h"
#include "lib/hmap.h"
#include "analyses/names.h"

struct name {
	__u32 pid;
	__u64 addr;
	char *str;
};

struct names {
	struct hmap addrs;  /* (pid, addr) -> struct name */
	struct hmap comms;  /* (tid, 0) -> char * */
	struct hmap labels; /* (pid, hash of a name) -> how many addresses have it */
	struct name **list;
	size_t n, cap;
};

struct names *names__new(void)
{
	struct names *n = calloc(1, sizeof(*n));

	if (n) {
		hmap_init(&n->addrs);
		hmap_init(&n->comms);
		hmap_init(&n->labels);
	}
	return n;
}

void names__free(struct names *n)
{
	size_t i;

	if (!n)
		return;
	for (i = 0; i < n->n; i++) {
		free(n->list[i]->str);
		free(n->list[i]);
	}
	free(n->list);
	hmap_free(&n->addrs);
	hmap_free_values(&n->comms);
	hmap_free_values(&n->labels);
	free(n);
}

/* FNV-1a: names are compared by hash (64 bits: two names of one process
 * that differ and hash alike would only lose a suffix). */
static __u64 name_hash(const char *s)
{
	__u64 h = 0xcbf29ce484222325ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return h;
}

/* A copy of str for a new address of pid: "NAME #k" when k-1 addresses of
 * pid were given that name by names__set_numbered() already. "" (looked up,
 * no name) stays as it is. NULL: no memory. */
static char *numbered_copy(struct names *n, __u32 pid, const char *str)
{
	__u64 h = name_hash(str);
	unsigned *uses = str[0] ? hmap_get(&n->labels, pid, h) : NULL;
	size_t len = strlen(str) + 16;
	char *copy = malloc(len);

	if (!copy)
		return NULL;
	if (uses)
		snprintf(copy, len, "%s #%u", str, ++*uses);
	else
		snprintf(copy, len, "%s", str);
	if (!str[0] || uses)
		return copy;
	uses = malloc(sizeof(*uses));
	if (!uses || hmap_put(&n->labels, pid, h, uses)) {
		free(uses); /* no suffixes for this name: not worth failing for */
		return copy;
	}
	*uses = 1;
	return copy;
}

/* Name addr of pid: copy is the name, already allocated (freed here on
 * failure). */
static int set_copy(struct names *n, __u32 pid, __u64 addr, char *copy)
{
	struct name *nm = hmap_get(&n->addrs, pid, addr);

	if (!copy)
		return -ENOMEM;
	utf8_printable(copy); /* a hostile ELF's symbol names */
	if (nm) {
		free(nm->str);
		nm->str = copy;
		return 0;
	}
	if (n->n == n->cap) {
		size_t cap = n->cap ? n->cap * 2 : 64;
		struct name **l = realloc(n->list, cap * sizeof(*l));

		if (!l)
			goto oom;
		n->list = l;
		n->cap = cap;
	}
	nm = hmap_put_new(&n->addrs, pid, addr, sizeof(*nm));
	if (!nm)
		goto oom;
	*nm = (struct name){pid, addr, copy};
	n->list[n->n++] = nm;
	return 0;
oom:
	free(copy);
	return -ENOMEM;
}

int names__set(struct names *n, __u32 pid, __u64 addr, const char *str)
{
	return set_copy(n, pid, addr, strdup(str));
}

int names__set_numbered(struct names *n, __u32 pid, __u64 addr, const char *str)
{
	if (hmap_get(&n->addrs, pid, addr))
		return names__set(n, pid, addr, str);
	return set_copy(n, pid, addr, numbered_copy(n, pid, str));
}

const char *names__get(const struct names *n, __u32 pid, __u64 addr)
{
	struct name *nm = hmap_get(&n->addrs, pid, addr);

	return nm ? nm->str : NULL;
}

size_t names__count(const struct names *n)
{
	return n->n;
}

const char *names__at(const struct names *n, size_t i, __u32 *pid, __u64 *addr)
{
	if (i >= n->n)
		return NULL;
	*pid = n->list[i]->pid;
	*addr = n->list[i]->addr;
	return n->list[i]->str;
}

int names__set_comm(struct names *n, __u32 tid, const char *comm)
{
	char *old = hmap_get(&n->comms, tid, 0), *copy = strdup(comm);

	if (!copy || hmap_put(&n->comms, tid, 0, utf8_printable(copy))) {
		free(copy);
		return -ENOMEM;
	}
	free(old);
	return 0;
}

const char *names__comm(const struct names *n, __u32 tid)
{
	return hmap_get(&n->comms, tid, 0);
}

void names__site(const struct names *n, __u32 pid, __u64 addr, char *buf, size_t len)
{
	const char *s = n ? names__get(n, pid, addr) : NULL;

	if (s)
		snprintf(buf, len, "%s", s);
	else
		snprintf(buf, len, "0x%" PRIx64, (uint64_t)addr);
}

void names__object(const struct names *n, __u32 pid, __u64 object, const char *symbol, char *buf,
		   size_t len)
{
	const char *s = object && n ? names__get(n, pid, object) : NULL;

	if (s && *s)
		snprintf(buf, len, "%s", s);
	else if (object)
		snprintf(buf, len, "%s 0x%" PRIx64, symbol, (uint64_t)object);
	else
		snprintf(buf, len, "%s", symbol);
}
