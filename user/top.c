// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdlib.h>
#include "tracer.h"

struct top {
	int interval_ms;
};

struct top *top__new(int interval_ms)
{
	struct top *tp = calloc(1, sizeof(*tp));

	if (tp)
		tp->interval_ms = interval_ms;
	return tp;
}

int top__tick(struct top *tp, struct tracer *t, __u64 now_ns)
{
	(void)tp;
	(void)t;
	(void)now_ns;
	return 0;
}

void top__free(struct top *tp)
{
	free(tp);
}
