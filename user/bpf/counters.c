// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "lib/words.h"
#include "user/bpf/counters.h"
#include "lib/parse.h"

struct named_event {
	const char *name;
	__u32 type;
	__u64 config;
};

static const struct named_event named[] = {
	{"cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES},
	{"cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES},
	{"instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS},
	{"cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES},
	{"cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES},
	{"branch-instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS},
	{"branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS},
	{"branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES},
	{"bus-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES},
	{"stalled-cycles-frontend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND},
	{"stalled-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND},
	{"ref-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES},
	{"task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK},
	{"cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK},
	{"page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS},
	{"faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS},
	{"minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN},
	{"major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ},
	{"context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES},
	{"cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES},
	{"cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS},
	{"migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS},
};

#define NNAMED (sizeof(named) / sizeof(named[0]))

/* Counted when the machine has none of the hardware events asked for. */
static const char *const fallback[] = {"task-clock", "page-faults", "context-switches",
				       "cpu-migrations"};

static int set_named(struct sbt_counter_info *c, const char *name)
{
	size_t i;

	for (i = 0; i < NNAMED; i++) {
		if (!strcmp(name, named[i].name)) {
			snprintf(c->name, sizeof(c->name), "%s", name);
			c->type = named[i].type;
			c->config = named[i].config;
			c->flags = c->type == PERF_TYPE_HARDWARE ? SBT_CTRF_HARDWARE : 0;
			return 0;
		}
	}
	return -ENOENT;
}

/* rNNNN: a raw PMU event code in hexadecimal. */
static int set_raw(struct sbt_counter_info *c, const char *name)
{
	char hex[40];
	uint64_t config;

	if (name[0] != 'r' || !name[1] || strlen(name) > 20)
		return -ENOENT;
	snprintf(hex, sizeof(hex), "0x%s", name + 1); /* strict: no sign, no space */
	if (parse_hex_u64(hex, &config))
		return -ENOENT;
	c->config = config;
	snprintf(c->name, sizeof(c->name), "%s", name);
	c->type = PERF_TYPE_RAW;
	c->flags = SBT_CTRF_HARDWARE;
	return 0;
}

/* PMU/config=0x3c/ (config only; terms other than config= are refused). */
static int set_pmu(struct sbt_counter_info *c, const char *name)
{
	char pmu[64], path[128], value[32];
	const char *slash = strchr(name, '/'), *cfg;
	uint64_t type, config;
	size_t len;
	FILE *f;
	int ok;

	if (!slash || slash == name || (size_t)(slash - name) >= sizeof(pmu) ||
	    name[strlen(name) - 1] != '/')
		return -ENOENT;
	snprintf(pmu, sizeof(pmu), "%.*s", (int)(slash - name), name);
	cfg = slash + 1;
	if (strncmp(cfg, "config=", 7))
		return -EINVAL;
	len = strlen(cfg + 7) - 1; /* the value, without the closing '/' */
	if (len >= sizeof(value))
		return -EINVAL;
	snprintf(value, sizeof(value), "%.*s", (int)len, cfg + 7);
	if (strncmp(value, "0x", 2) ? parse_u64(value, 0, UINT64_MAX, &config)
				    : parse_hex_u64(value, &config))
		return -EINVAL;
	c->config = config;
	snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/type", pmu);
	f = fopen(path, "re");
	if (!f)
		return -ENODEV;
	ok = fscanf(f, "%" SCNu64, &type) == 1;
	fclose(f);
	if (!ok)
		return -ENODEV;
	snprintf(c->name, sizeof(c->name), "%s", name);
	c->type = type;
	c->flags = SBT_CTRF_HARDWARE;
	return 0;
}

/* What is wrong with event tok (e: set_*()'s error), into err. */
static void say_bad_event(const char *tok, int e, char *err, size_t errlen)
{
	const char *names[sizeof(named) / sizeof(*named)], *near;
	size_t i, pmu = strcspn(tok, "/");

	if (e == -ENODEV) {
		snprintf(err, errlen,
			 "-e: '%s': no PMU '%.*s' on this machine "
			 "(/sys/bus/event_source/devices; sbt-bpf --list-events)",
			 tok, (int)pmu, tok);
		return;
	}
	if (e == -EINVAL) {
		snprintf(err, errlen, "-e: '%s': only PMU/config=VALUE/ is understood", tok);
		return;
	}
	for (i = 0; i < sizeof(named) / sizeof(*named); i++)
		names[i] = named[i].name;
	near = words__closest(tok, names, sizeof(named) / sizeof(*named), 2);
	if (near)
		snprintf(err, errlen, "-e: unknown event '%s'; did you mean '%s'?", tok, near);
	else
		snprintf(err, errlen, "-e: unknown event '%s' (sbt-bpf --list-events)", tok);
}

int counters__parse(const char *list, struct counter_set *cs, char *err, size_t errlen)
{
	char buf[512], *tok, *save = NULL;
	int e;

	memset(cs, 0, sizeof(*cs));
	snprintf(buf, sizeof(buf), "%s", list);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		struct sbt_counter_info *c = &cs->info[cs->n];

		if (cs->n == SBT_MAX_COUNTERS) {
			snprintf(err, errlen, "-e: at most %d events", SBT_MAX_COUNTERS);
			return -EINVAL;
		}
		e = set_named(c, tok);
		if (e == -ENOENT)
			e = set_raw(c, tok);
		if (e == -ENOENT)
			e = set_pmu(c, tok);
		if (e) {
			say_bad_event(tok, e, err, errlen);
			return -EINVAL;
		}
		cs->n++;
	}
	if (!cs->n) {
		snprintf(err, errlen, "-e: no event given");
		return -EINVAL;
	}
	return 0;
}

static int perf_open(const struct sbt_counter_info *c, int cpu)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = c->type;
	a.config = c->config;
	a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	return syscall(__NR_perf_event_open, &a, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

/* Whether the counter opens on CPU 0 (or the first CPU that takes one). */
static int available(const struct sbt_counter_info *c)
{
	int fd = perf_open(c, 0);

	if (fd < 0)
		return 0;
	close(fd);
	return 1;
}

static void add_notice(struct counter_set *cs, const char *fmt, const char *what)
{
	size_t len = strlen(cs->notice);

	snprintf(cs->notice + len, sizeof(cs->notice) - len, fmt, len ? "; " : "", what);
}

/* Drop what this machine cannot count; fall back to software events when
 * nothing is left. */
static void settle_events(struct counter_set *cs)
{
	int i, j, dropped = 0;
	size_t k;

	for (i = j = 0; i < cs->n; i++) {
		if (available(&cs->info[i])) {
			cs->info[j++] = cs->info[i];
		} else {
			add_notice(cs, "%s%s: not supported on this machine (no hardware PMU?)",
				   cs->info[i].name);
			dropped++;
		}
	}
	cs->n = j;
	if (cs->n || !dropped)
		return;
	for (k = 0; k < sizeof(fallback) / sizeof(fallback[0]) && cs->n < SBT_MAX_COUNTERS; k++) {
		set_named(&cs->info[cs->n], fallback[k]);
		cs->info[cs->n++].flags |= SBT_CTRF_FALLBACK;
	}
	add_notice(cs, "%s%s",
		   "counting the software events task-clock, page-faults, "
		   "context-switches, cpu-migrations instead");
}

int counters__open(struct counter_set *cs, char *err, size_t errlen)
{
	int k, cpu, opened;

	settle_events(cs);
	cs->ncpus = libbpf_num_possible_cpus();
	if (cs->ncpus <= 0)
		cs->ncpus = 1;
	cs->fds = malloc(sizeof(int) * (cs->n ? cs->n : 1) * cs->ncpus);
	if (!cs->fds)
		return -ENOMEM;
	for (k = 0; k < (cs->n ? cs->n : 1) * cs->ncpus; k++)
		cs->fds[k] = -1; /* counters__close() closes only what was opened */
	for (k = 0; k < cs->n; k++) {
		for (cpu = opened = 0; cpu < cs->ncpus; cpu++) {
			int fd = perf_open(&cs->info[k], cpu);

			cs->fds[k * cs->ncpus + cpu] = fd; /* -1 on an offline CPU */
			opened += fd >= 0;
		}
		if (!opened) {
			snprintf(err, errlen, "-e %s: cannot open the counter: %s",
				 cs->info[k].name, strerror(errno));
			return -errno;
		}
	}
	return 0;
}

void counters__close(struct counter_set *cs)
{
	int i;

	for (i = 0; cs->fds && i < cs->n * cs->ncpus; i++)
		if (cs->fds[i] >= 0)
			close(cs->fds[i]);
	free(cs->fds);
	cs->fds = NULL;
}

void counters__list(FILE *f)
{
	size_t i;

	fprintf(f, "%-26s %-9s %s\n", "event", "type", "on this machine");
	for (i = 0; i < NNAMED; i++) {
		struct sbt_counter_info c;

		set_named(&c, named[i].name);
		fprintf(f, "%-26s %-9s %s\n", named[i].name,
			named[i].type == PERF_TYPE_HARDWARE ? "hardware" : "software",
			available(&c) ? "yes" : "no");
	}
	fprintf(f, "%-26s %-9s %s\n", "rNNNN", "raw", "raw PMU event code (hex)");
	fprintf(f, "%-26s %-9s %s\n", "PMU/config=VALUE/", "pmu",
		"e.g. cpu/config=0x3c/ (PMUs: /sys/bus/event_source/devices)");
}
