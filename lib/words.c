// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdint.h>
#include <string.h>
#include "lib/words.h"

#define WORD_MAX 64

size_t words__distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j, prev, cur, up;
	size_t row[WORD_MAX + 1];

	if (la >= WORD_MAX || lb >= WORD_MAX)
		return SIZE_MAX;
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		prev = row[0];
		row[0] = i;
		for (j = 1; j <= lb; j++) {
			up = row[j];
			cur = prev + (a[i - 1] != b[j - 1]);
			cur = up + 1 < cur ? up + 1 : cur;
			cur = row[j - 1] + 1 < cur ? row[j - 1] + 1 : cur;
			row[j] = cur;
			prev = up;
		}
	}
	return row[lb];
}

const char *words__closest(const char *word, const char *const *cands, size_t n,
			   size_t max_distance)
{
	const char *best = NULL;
	size_t i, d, best_d = SIZE_MAX;

	for (i = 0; i < n; i++) {
		d = words__distance(word, cands[i]);
		if (d <= max_distance && d < best_d) {
			best = cands[i];
			best_d = d;
		}
	}
	return best;
}
