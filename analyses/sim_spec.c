// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* --what-if SPEC (doc/design.md §5.7): what a replay changes, parsed strictly. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "lib/parse.h"
#include "analyses/sim.h"

/* "A:B" split at its colon into a (in buf) and b; b NULL without one. */
static const char *split(const char *s, char *buf, size_t n, const char **b)
{
	const char *colon = strchr(s, ':');
	size_t len = colon ? (size_t)(colon - s) : strlen(s);

	snprintf(buf, n, "%.*s", (int)(len < n ? len : n - 1), s);
	*b = colon ? colon + 1 : NULL;
	return buf;
}

static int parse_speedup(const char *v, struct sim_change *c, char *err, size_t n)
{
	const char *f;
	char tid[32];
	uint64_t t;

	split(v, tid, sizeof(tid), &f);
	if (!f || parse_u64(tid, 1, UINT32_MAX, &t) || parse_double(f, 0.001, 1000, &c->factor)) {
		snprintf(err, n, "speedup=TID:F wants a thread id and a factor (0.001..1000): '%s'",
			 v);
		return -EINVAL;
	}
	c->tid = (__u32)t;
	return 0;
}

static int parse_threads(const char *v, struct sim_change *c, char *err, size_t n)
{
	const char *cpus;
	char num[32];
	uint64_t t, k = 0;

	split(v, num, sizeof(num), &cpus);
	if (parse_u64(num, 1, 65536, &t) || (cpus && parse_u64(cpus, 1, 65536, &k))) {
		snprintf(err, n, "threads=N[:CPUS] wants 1..65536 for each: '%s'", v);
		return -EINVAL;
	}
	c->threads = (__u32)t;
	c->cpus = (__u32)k;
	return 0;
}

static int parse_balance(const char *v, struct sim_change *c, char *err, size_t n)
{
	c->any_site = !v;
	if (!v)
		return 0;
	if (!*v || strlen(v) >= sizeof(c->site_text)) {
		snprintf(err, n,
			 "balance=SITE wants a site id or up to %zu characters of its call "
			 "site",
			 sizeof(c->site_text) - 1);
		return -EINVAL;
	}
	snprintf(c->site_text, sizeof(c->site_text), "%s", v);
	return 0;
}

int sim_change__parse(const char *spec, struct sim_change *c, char *err, size_t n)
{
	const char *eq = strchr(spec, '=');
	size_t len = eq ? (size_t)(eq - spec) : strlen(spec);
	const char *v = eq ? eq + 1 : NULL;

	memset(c, 0, sizeof(*c));
	if (len == 5 && !strncmp(spec, "as-is", 5) && !v) {
		c->kind = SIM_AS_IS;
		return 0;
	}
	if (len == 7 && !strncmp(spec, "balance", 7)) {
		c->kind = SIM_BALANCE;
		return parse_balance(v, c, err, n);
	}
	if (len == 7 && !strncmp(spec, "speedup", 7) && v) {
		c->kind = SIM_SPEEDUP;
		return parse_speedup(v, c, err, n);
	}
	if (len == 7 && !strncmp(spec, "threads", 7) && v) {
		c->kind = SIM_THREADS;
		return parse_threads(v, c, err, n);
	}
	snprintf(err, n, "unknown --what-if '%s': %s", spec, SIM_SPEC_HELP);
	return -EINVAL;
}

void sim_change__name(const struct sim_change *c, char *buf, size_t n)
{
	switch (c->kind) {
	case SIM_BALANCE:
		if (c->any_site)
			snprintf(buf, n, "balance");
		else
			snprintf(buf, n, "balance=%s", c->site_text);
		return;
	case SIM_SPEEDUP:
		snprintf(buf, n, "speedup=%u:%g", c->tid, c->factor);
		return;
	case SIM_THREADS:
		snprintf(buf, n, "threads=%u:%u", c->threads, c->cpus);
		return;
	default:
		snprintf(buf, n, "as-is");
	}
}
