// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "lib/array.h"
#include "user/resolve/symbolize.h"
#include "user/resolve/sym_timeline.h"

struct sym_era {
	uint64_t since_ns;
	struct symbolizer *s;
};

struct sym_timeline {
	struct sym_era *era; /* by since_ns, increasing */
	size_t n, cap;
};

struct sym_timeline *sym_timeline__new(void)
{
	return calloc(1, sizeof(struct sym_timeline));
}

void sym_timeline__free(struct sym_timeline *tl)
{
	size_t i;

	if (!tl)
		return;
	for (i = 0; i < tl->n; i++)
		symbolizer__free(tl->era[i].s);
	free(tl->era);
	free(tl);
}

int sym_timeline__add(struct sym_timeline *tl, uint64_t since_ns, struct symbolizer *s)
{
	if (tl->n && tl->era[tl->n - 1].since_ns >= since_ns) {
		symbolizer__free(s);
		return 0;
	}
	if (array_reserve((void **)&tl->era, &tl->cap, tl->n + 1, sizeof(*tl->era))) {
		symbolizer__free(s);
		return -ENOMEM;
	}
	if (tl->n)
		symbolizer__freeze(tl->era[tl->n - 1].s);
	tl->era[tl->n++] = (struct sym_era){since_ns, s};
	return 1;
}

struct symbolizer *sym_timeline__at(struct sym_timeline *tl, uint64_t ts_ns)
{
	size_t i = 0, k;

	if (!tl || !tl->n)
		return NULL;
	while (i + 1 < tl->n && tl->era[i + 1].since_ns <= ts_ns)
		i++;
	if (i) { /* eras before the one in force: no record of theirs is to come */
		for (k = 0; k < i; k++)
			symbolizer__free(tl->era[k].s);
		memmove(tl->era, tl->era + i, (tl->n - i) * sizeof(*tl->era));
		tl->n -= i;
	}
	return tl->era[0].s;
}

int sym_timeline__count(const struct sym_timeline *tl)
{
	return tl ? (int)tl->n : 0;
}
