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

/* A thread id, or else a region function's name (up to 63 characters) into
 * c->region. 0 or -EINVAL. */
static int tid_or_region(const char *s, struct sim_change *c, int region_ok)
{
	uint64_t t;

	if (*s >= '0' && *s <= '9')
		return parse_u64(s, 1, UINT32_MAX, &t) ? -EINVAL : (c->tid = (__u32)t, 0);
	if (!region_ok || !*s || strlen(s) >= sizeof(c->region))
		return -EINVAL;
	snprintf(c->region, sizeof(c->region), "%s", s);
	return 0;
}

static int parse_speedup(const char *v, struct sim_change *c, char *err, size_t n)
{
	const char *f;
	char who[80];

	split(v, who, sizeof(who), &f);
	if (!f || tid_or_region(who, c, 1) || parse_double(f, 0.001, 1000, &c->factor)) {
		snprintf(err, n,
			 "speedup=TID:F or speedup=REGION:F wants a thread id or a region function "
			 "and a factor (0.001..1000): '%s'",
			 v);
		return -EINVAL;
	}
	return 0;
}

/* move=REGION:FROM[:TO]. */
static int parse_move(const char *v, struct sim_change *c, char *err, size_t n)
{
	const char *rest, *to;
	char region[80], from[32];
	uint64_t t = 0;

	split(v, region, sizeof(region), &rest);
	if (rest)
		split(rest, from, sizeof(from), &to);
	if (!rest || (*region >= '0' && *region <= '9') || tid_or_region(region, c, 1) ||
	    tid_or_region(from, c, 0) || (to && parse_u64(to, 1, UINT32_MAX, &t))) {
		snprintf(err, n,
			 "move=REGION:FROM[:TO] wants a region function and thread ids: '%s'", v);
		return -EINVAL;
	}
	c->to = (__u32)t;
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
	if (len == 4 && !strncmp(spec, "move", 4) && v) {
		c->kind = SIM_MOVE;
		return parse_move(v, c, err, n);
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
		if (c->region[0])
			snprintf(buf, n, "speedup=%s:%g", c->region, c->factor);
		else
			snprintf(buf, n, "speedup=%u:%g", c->tid, c->factor);
		return;
	case SIM_MOVE:
		if (c->to)
			snprintf(buf, n, "move=%s:%u:%u", c->region, c->tid, c->to);
		else
			snprintf(buf, n, "move=%s:%u", c->region, c->tid);
		return;
	case SIM_THREADS:
		snprintf(buf, n, "threads=%u:%u", c->threads, c->cpus);
		return;
	default:
		snprintf(buf, n, "as-is");
	}
}
