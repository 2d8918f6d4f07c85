/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* `sbt-bpf top`: the live table of the jobs of a running session, read
 * through the tracer's accessors only. */
#ifndef SBT_TOP_H
#define SBT_TOP_H

#include "user/trace/tracer.h"

struct top;

/* Takes the terminal (alternate screen, raw keys) when there is one. */
struct top *top__new(int interval_ms);
/* After every drain: redraws when the interval has passed, reads keys.
 * Returns 1 when the user asked to quit. */
int top__tick(struct top *tp, const struct tracer *t, __u64 now_ns);
/* Gives the terminal back. */
void top__free(struct top *tp);

#endif
