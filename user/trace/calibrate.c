// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/futex.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include "lib/clock.h"
#include "lib/infile.h"
#include "lib/outfile.h"
#include "lib/proc.h"
#include "user/trace/calibrate.h"
#include "user/bpf/counters.h"
#include "lib/log.h"
#include "user/resolve/probes.h"
#include "user/bpf/session.h"
#include "user/resolve/elfsym.h"
#include "user/trace/shim_preload.h"

#define REP_NS 2000000.0 /* one repetition: calls for about 2 ms */
#define BATCH  32	 /* calls between clock reads */
#define REPS   5	 /* the minimum over repetitions is kept */

/* Private objects: nobody else ever waits on them, every call returns at
 * once, so the loops time the function and its probes only. */
static pthread_barrier_t cal_barrier;
static pthread_mutex_t cal_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cal_cond = PTHREAD_COND_INITIALIZER;
static sem_t cal_sem;
static void (*gomp_barrier)(void);
/* the probe shim's pthread_barrier_wait wrapper, called directly (the
 * library is loaded privately: it interposes nothing of ours) */
static int (*shim_barrier_wait)(pthread_barrier_t *);
static char shim_path[SBT_PATH_MAX];

static void run_barrier(int n)
{
	while (n--)
		pthread_barrier_wait(&cal_barrier);
}

static void run_mutex(int n)
{
	while (n--) {
		pthread_mutex_lock(&cal_mutex);
		pthread_mutex_unlock(&cal_mutex);
	}
}

static void run_sem(int n)
{
	while (n--) {
		sem_post(&cal_sem);
		sem_wait(&cal_sem);
	}
}

static void run_cond(int n)
{
	while (n--) {
		pthread_cond_signal(&cal_cond);
		pthread_cond_broadcast(&cal_cond);
	}
}

static void run_shim(int n)
{
	while (n--)
		shim_barrier_wait(&cal_barrier);
}

/* A futex call that wakes nobody: a syscall through the tracepoints. */
static void run_futex(int n)
{
	static int word;

	while (n--)
		syscall(SYS_futex, &word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

/* Outside a parallel region GOMP_barrier has no team and returns at once. */
static void run_gomp(int n)
{
	while (n--)
		gomp_barrier();
}

struct group {
	const char *name;
	void (*run)(int n);
	const char *symbols[2];	   /* the functions one iteration calls */
	double plain, entry, both; /* ns per iteration */
};

static struct group groups[] = {
	{.name = "barrier", .run = run_barrier, .symbols = {"pthread_barrier_wait"}},
	{.name = "mutex",
	 .run = run_mutex,
	 .symbols = {"pthread_mutex_lock", "pthread_mutex_unlock"}},
	{.name = "semaphore", .run = run_sem, .symbols = {"sem_post", "sem_wait"}},
	{.name = "condvar",
	 .run = run_cond,
	 .symbols = {"pthread_cond_signal", "pthread_cond_broadcast"}},
	{.name = "libgomp", .run = run_gomp, .symbols = {"GOMP_barrier"}},
};

#define NGROUPS (sizeof(groups) / sizeof(groups[0]))

/* The syscall tracepoints, timed in a pass of their own (no uprobes). */
static struct group futex_group = {.name = "futex", .run = run_futex, .symbols = {CAL_FUTEX}};
/* The shim's sites: not return probes, so out of the groups whose return
 * costs are pooled. */
static struct group shim_group = {.name = "shim", .run = run_shim, .symbols = {CAL_SHIM_SITE}};

static double now_ns(void)
{
	return (double)clock_ns(CLOCK_MONOTONIC);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* ns per iteration of g: the minimum over REPS repetitions (the least
 * disturbed), or their median with SBT_CALIBRATE_STAT=median (an
 * experiment: bench/RESULTS.md compares the two). */
static double time_group(const struct group *g)
{
	const char *stat = getenv("SBT_CALIBRATE_STAT");
	double t[REPS];
	int r;

	for (r = 0; r < REPS; r++) {
		double t0 = now_ns(), d;
		long calls = 0;

		/* a time budget, not a call count: single-stepped probes make a
		 * call 50x dearer, and calibration must stay under 2 s */
		do {
			g->run(BATCH);
			calls += BATCH;
			d = now_ns() - t0;
		} while (d < REP_NS);
		t[r] = d / calls;
	}
	qsort(t, REPS, sizeof(t[0]), cmp_double);
	return stat && !strcmp(stat, "median") ? t[REPS / 2] : t[0];
}

static int discard(void *ctx, const struct sbt_event *e)
{
	return 0;
}

static int group_available(const struct group *g)
{
	return g->run != run_gomp || gomp_barrier;
}

/* Time group g in pass `pass`, then empty the ring buffers. */
static void time_one(struct session *s, struct group *g, int pass)
{
	double t = time_group(g);

	/* passes are repeated: keep the least disturbed of each kind */
	if (pass == 0)
		g->plain = t;
	else if (pass == 1)
		g->entry = g->entry && g->entry < t ? g->entry : t;
	else
		g->both = g->both && g->both < t ? g->both : t;
	if (s)
		session__drain(s, 0, discard, NULL);
}

/* Time every group with the session's probes in place. */
static void time_all(struct session *s, int pass)
{
	size_t i;

	for (i = 0; i < NGROUPS; i++)
		if (group_available(&groups[i]))
			time_one(s, &groups[i], pass);
	if (pass == 0 && shim_barrier_wait)
		time_one(s, &shim_group, pass);
}

/* The shim's sites of pthread_barrier_wait as probe p (entry_only: the
 * entry site alone). 0, or -ENOENT when the shim is not loaded. */
static int shim_probe(struct probe *p, int entry_only)
{
	uint64_t enter, exit;
	struct elfsym *es;
	int e, n;

	if (!shim_barrier_wait || !(es = elfsym__open(shim_path, &e)))
		return -ENOENT;
	n = probes__shim_sites(es, "pthread_barrier_wait", &enter, &exit);
	elfsym__close(es);
	if (!n)
		return -ENOENT;
	memset(p, 0, sizeof(*p));
	p->info.kind = SBT_PK_BARRIER;
	p->info.offset = enter;
	p->exit_offset = exit;
	p->entry_only = entry_only;
	snprintf(p->info.symbol, sizeof(p->info.symbol), "%s", CAL_SHIM_SITE);
	snprintf(p->info.object, sizeof(p->info.object), "%s", shim_path);
	snprintf(p->open_path, sizeof(p->open_path), "%s", shim_path);
	return 0;
}

/* The probe shim, loaded privately, when it is installed. */
static void load_shim(void)
{
	char err[256];
	void *h;

	shim_barrier_wait = NULL;
	if (shim_preload__find(SBT_TRACE_BARRIER, shim_path, sizeof(shim_path), err, sizeof(err)) <=
	    0)
		return;
	h = dlopen(shim_path, RTLD_NOW | RTLD_LOCAL);
	if (h)
		shim_barrier_wait = (int (*)(pthread_barrier_t *))dlsym(h, "pthread_barrier_wait");
}

static int wanted(const char *symbol)
{
	size_t i;

	for (i = 0; i < NGROUPS; i++)
		if (group_available(&groups[i]) &&
		    (!strcmp(groups[i].symbols[0], symbol) ||
		     (groups[i].symbols[1] && !strcmp(groups[i].symbols[1], symbol))))
			return 1;
	return 0;
}

/* Our own process's probes on the calibration functions only, ids dense. */
static int own_probes(struct probe_table *t, int entry_only, char *err, size_t errlen)
{
	struct probe_table all;
	int i, e;

	e = probes__resolve(getpid(), SBT_TRACE_ALL & ~SBT_TRACE_FUTEX, NULL, 0, &all, err, errlen);
	if (e)
		return e;
	memset(t, 0, sizeof(*t));
	t->probes = calloc(all.n + 1, sizeof(*t->probes));
	if (!t->probes) {
		probes__free(&all);
		return -ENOMEM;
	}
	t->n = 1;
	for (i = 1; i < all.n; i++) {
		if (!wanted(all.probes[i].info.symbol))
			continue;
		t->probes[t->n] = all.probes[i];
		t->probes[t->n].info.id = t->n;
		t->probes[t->n].entry_only = entry_only;
		t->n++;
	}
	probes__free(&all);
	return 0;
}

/* The shim's sites alone: its wrapper calls the real pthread_barrier_wait,
 * whose own probes must not be there to be counted in. */
static int shim_probes(struct probe_table *t, int entry_only)
{
	memset(t, 0, sizeof(*t));
	t->probes = calloc(2, sizeof(*t->probes));
	if (!t->probes)
		return -ENOMEM;
	t->n = 1;
	if (!shim_probe(&t->probes[1], entry_only))
		t->probes[1].info.id = t->n++;
	return 0;
}

/* The barrier group timed with both probes and two counters read at each
 * hit (a counter record per hit). */
static double counters_time;

/* One pass with probes attached: 1 = entry probes only, 2 = both; 3 =
 * the futex tracepoints only; 4 = both, and counters; 5 and 6 = the shim's
 * entry site, both sites. */
static int probed_pass(int pass, char *err, size_t errlen)
{
	struct session_opts so = {
		.ringbuf_bytes = 16 << 20, .single_target = getpid(), .futex = pass == 3};
	struct counter_set cs = {0};
	struct probe_table t = {0};
	struct session *s;
	int e;

	if (pass == 4) {
		if (counters__parse("task-clock,page-faults", &cs, err, errlen) ||
		    counters__open(&cs, err, errlen))
			return -EINVAL;
		so.counters = &cs;
	}

	e = pass >= 5 ? shim_probes(&t, pass == 5) : own_probes(&t, pass == 1, err, errlen);
	if (!e && pass == 3)
		t.n = 1; /* no uprobes */
	s = e ? NULL : session__open(&so, err, errlen);
	if (!e && !s)
		e = -EINVAL;
	if (!e)
		e = session__attach(s, &t, getpid(), err, errlen);
	if (!e && pass == 4) {
		counters_time = time_group(&groups[0]);
		session__drain(s, 0, discard, NULL);
	} else if (!e && pass == 3) {
		futex_group.both = time_group(&futex_group);
		session__drain(s, 0, discard, NULL);
	} else if (!e && pass >= 5) {
		time_one(s, &shim_group, pass - 4);
	} else if (!e) {
		time_all(s, pass);
	}
	if (s)
		session__close(s);
	probes__free(&t);
	counters__close(&cs);
	return e;
}

static void identity(struct calibration *c)
{
	struct utsname u;

	snprintf(c->kernel, sizeof(c->kernel), "%s", uname(&u) ? "?" : u.release);
	proc__cpu_model(c->cpu, sizeof(c->cpu));
}

static void add_alpha(struct calibration *c, const char *symbol, double entry, double exit, int cls)
{
	struct alpha *a;

	if (c->n == CALIBRATION_MAX)
		return;
	a = &c->a[c->n++];
	snprintf(a->symbol, sizeof(a->symbol), "%s", symbol);
	a->entry_ns = entry > 0 ? (__u64)(entry + 0.5) : 0;
	a->exit_ns = exit > 0 ? (__u64)(exit + 0.5) : 0;
	a->cls = cls >= 0 && cls <= INSN_NCLASSES ? cls : INSN_XOL;
}

/* x86 uprobes emulate push, call, jmp and jcc, and (6.16+) turn a 5-byte
 * nop into a call to a trampoline; anything else (endbr64 included) is
 * single-stepped out of line. */
int insn_class__of(const char *path, __u64 offset)
{
	static const unsigned char nop5[] = {0x0f, 0x1f, 0x44, 0x00, 0x00};
	unsigned char b[5] = {0};
	ssize_t n = infile__read_at(path, offset, b, sizeof(b));

	if (n < 2)
		return INSN_XOL;
	if (n == 5 && !memcmp(b, nop5, 5))
		return INSN_NOP5;
	if ((b[0] >= 0x50 && b[0] <= 0x57) || (b[0] == 0x41 && b[1] >= 0x50 && b[1] <= 0x57) ||
	    b[0] == 0xe8 || b[0] == 0xe9 || b[0] == 0xeb || (b[0] >= 0x70 && b[0] <= 0x7f) ||
	    (b[0] == 0x0f && b[1] >= 0x80 && b[1] <= 0x8f))
		return INSN_EMULATED;
	return INSN_XOL;
}

const struct alpha *calibration__for_class(const struct calibration *c, int cls)
{
	int i;

	for (i = 0; i < c->n; i++)
		if (c->a[i].cls == cls)
			return &c->a[i];
	return NULL;
}

/* The class of a calibrated symbol, from where our own probes put it. */
static int class_of_symbol(const struct probe_table *t, const char *symbol)
{
	int i;

	for (i = 1; i < t->n; i++)
		if (!strcmp(t->probes[i].info.symbol, symbol))
			return insn_class__of(t->probes[i].open_path, t->probes[i].info.offset);
	return INSN_XOL;
}

static int cmp_u64(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return x < y ? -1 : x > y;
}

/* Every return probe goes through the same trampoline, whatever the
 * function: one cost for all, the median of the groups' estimates (each is
 * the difference of two passes measured apart, so noisy). The pair cost
 * (both probes vs none, one difference) is the steadier number: each
 * function keeps it whole, entry = pair - return. */
static void common_return_cost(struct calibration *c)
{
	__u64 v[CALIBRATION_MAX], ret, min_pair = UINT64_MAX;
	int i;

	if (!c->n)
		return;
	for (i = 0; i < c->n; i++)
		v[i] = c->a[i].exit_ns < c->a[i].entry_ns ? c->a[i].exit_ns : c->a[i].entry_ns;
	qsort(v, c->n, sizeof(v[0]), cmp_u64);
	ret = v[c->n / 2];
	/* An emulated entry hit and a return hit both trap once and run one
	 * program: a return cost near 0 or near the cheapest pair's whole cost
	 * is the noise of two passes measured apart; split that pair evenly. */
	for (i = 0; i < c->n; i++)
		min_pair = c->a[i].entry_ns < min_pair ? c->a[i].entry_ns : min_pair;
	if (ret * 10 > min_pair * 9 || ret * 10 < min_pair)
		ret = min_pair / 2;
	for (i = 0; i < c->n; i++) {
		__u64 pair = c->a[i].entry_ns;

		c->a[i].exit_ns = ret < pair ? ret : pair;
		c->a[i].entry_ns = pair - c->a[i].exit_ns;
	}
}

/* A two-function group measures the sum of two entry costs; when the two
 * first instructions are handled differently (sem_wait is emulated,
 * sem_post single-stepped), give the one of the class measured alone in a
 * one-function group that class's cost, and the other the rest. */
static void split_mixed_pairs(struct calibration *c)
{
	int i;

	for (i = 0; i + 1 < c->n; i++) {
		struct alpha *x = &c->a[i], *y = &c->a[i + 1];
		const struct alpha *ref;
		__u64 sum = x->entry_ns * 2;
		size_t g;

		for (g = 0; g < NGROUPS; g++)
			if (groups[g].symbols[1] && !strcmp(groups[g].symbols[0], x->symbol) &&
			    !strcmp(groups[g].symbols[1], y->symbol))
				break;
		if (g == NGROUPS || x->cls == y->cls)
			continue;
		ref = calibration__find(c, "pthread_barrier_wait");
		if (!ref || (ref->cls != x->cls && ref->cls != y->cls) || ref->entry_ns > sum)
			continue;
		if (ref->cls == x->cls) {
			x->entry_ns = ref->entry_ns;
			y->entry_ns = sum - ref->entry_ns;
		} else {
			y->entry_ns = ref->entry_ns;
			x->entry_ns = sum - ref->entry_ns;
		}
		i++;
	}
}

int calibration__measure(struct calibration *c, char *err, size_t errlen)
{
	void *gomp = dlopen("libgomp.so.1", RTLD_NOW);
	struct probe_table own;
	size_t i;
	int e, k;

	memset(c, 0, sizeof(*c));
	identity(c);
	gomp_barrier = gomp ? (void (*)(void))dlsym(gomp, "GOMP_barrier") : NULL;
	load_shim();
	pthread_barrier_init(&cal_barrier, NULL, 1);
	sem_init(&cal_sem, 0, 0);
	time_all(NULL, 0);
	futex_group.plain = time_group(&futex_group);
	for (i = 0; i < NGROUPS; i++)
		groups[i].entry = groups[i].both = 0;
	shim_group.entry = shim_group.both = 0;
	/* entry-only and both-probes passes alternate twice: the VM's noise
	 * moves between passes, and the return cost is their difference */
	e = probed_pass(1, err, errlen);
	if (!e)
		e = probed_pass(2, err, errlen);
	if (!e)
		e = probed_pass(1, err, errlen);
	if (!e)
		e = probed_pass(2, err, errlen);
	if (!e)
		e = probed_pass(3, err, errlen);
	if (!e)
		e = probed_pass(4, err, errlen);
	/* the shim's sites, in passes of their own, alternating too */
	for (k = 0; !e && shim_barrier_wait && k < 4; k++)
		e = probed_pass(5 + k % 2, err, errlen);
	if (!e)
		e = own_probes(&own, 0, err, errlen);
	for (i = 0; !e && i < NGROUPS; i++) {
		const struct group *g = &groups[i];
		int nsym = g->symbols[1] ? 2 : 1;

		if (!group_available(g))
			continue;
		/* the functions of a group are assumed to cost the same; the
		 * entry field holds the whole pair cost until common_return_cost()
		 * splits it */
		for (k = 0; k < nsym; k++)
			add_alpha(c, g->symbols[k], (g->both - g->plain) / nsym,
				  (g->both - g->entry) / nsym,
				  class_of_symbol(&own, g->symbols[k]));
	}
	if (!e) {
		common_return_cost(c);
		split_mixed_pairs(c);
		probes__free(&own);
		/* sys_enter and sys_exit run the same kind of program: half each */
		add_alpha(c, CAL_FUTEX, (futex_group.both - futex_group.plain) / 2,
			  (futex_group.both - futex_group.plain) / 2, INSN_NCLASSES);
		/* a record at the entry and one at the return of each call */
		add_alpha(c, CAL_COUNTERS, (counters_time - groups[0].both) / 2, 0, INSN_NCLASSES);
		if (shim_barrier_wait)
			add_alpha(c, CAL_SHIM_SITE, shim_group.entry - shim_group.plain,
				  shim_group.both - shim_group.entry, INSN_NOP5);
	}
	pthread_barrier_destroy(&cal_barrier);
	sem_destroy(&cal_sem);
	return e;
}

const struct alpha *calibration__find(const struct calibration *c, const char *symbol)
{
	int i;

	for (i = 0; i < c->n; i++)
		if (!strcmp(c->a[i].symbol, symbol))
			return &c->a[i];
	return NULL;
}

int calibration__save(const struct calibration *c, const char *path)
{
	char tmp[512], *slash;
	FILE *f;
	int i, err;

	/* the cache's directory, private to root */
	snprintf(tmp, sizeof(tmp), "%s", path);
	slash = strrchr(tmp, '/');
	if (slash && slash != tmp) {
		*slash = '\0';
		outfile__private_dir(tmp);
	}
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = outfile__fopen(tmp);
	if (!f)
		return -errno;
	fprintf(f, "# sbt-bpf calibration: probe cost per hit, ns\nkernel %s\ncpu %s\n", c->kernel,
		c->cpu);
	for (i = 0; i < c->n; i++)
		fprintf(f, "alpha %s %llu %llu %d\n", c->a[i].symbol,
			(unsigned long long)c->a[i].entry_ns, (unsigned long long)c->a[i].exit_ns,
			c->a[i].cls);
	err = outfile__close(f);
	if (!err && rename(tmp, path))
		err = -errno;
	if (err)
		unlink(tmp); /* no half-written cache left beside the good one */
	return err;
}

static int shim_installed(void)
{
	char path[4096], err[256];

	return shim_preload__find(SBT_TRACE_BARRIER, path, sizeof(path), err, sizeof(err)) > 0;
}

int calibration__load(struct calibration *c, const char *path)
{
	struct calibration here;
	char line[512], sym[SBT_SYMBOL_MAX];
	unsigned long long en, ex;
	int cls;
	FILE *f = fopen(path, "re");

	if (!f)
		return -ENOENT;
	memset(c, 0, sizeof(*c));
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (!strncmp(line, "kernel ", 7))
			snprintf(c->kernel, sizeof(c->kernel), "%.127s", line + 7);
		else if (!strncmp(line, "cpu ", 4))
			snprintf(c->cpu, sizeof(c->cpu), "%.127s", line + 4);
		else if (sscanf(line, "alpha %127s %llu %llu %d", sym, &en, &ex, &cls) == 4 &&
			 c->n < CALIBRATION_MAX)
			add_alpha(c, sym, en, ex, cls);
	}
	fclose(f);
	identity(&here);
	if (!c->n)
		return -EINVAL;
	if (!calibration__find(c, CAL_FUTEX) || !calibration__find(c, CAL_COUNTERS))
		return -ESTALE; /* made by an older version */
	if (!calibration__find(c, CAL_SHIM_SITE) && shim_installed())
		return -ESTALE; /* made before the shim was there */
	if (strcmp(here.kernel, c->kernel) || strcmp(here.cpu, c->cpu))
		return -ESTALE;
	return 0;
}

int calibration__get(struct calibration *c, int *measured, char *err, size_t errlen)
{
	int e;

	*measured = 0;
	if (!calibration__load(c, CALIBRATION_CACHE))
		return 0;
	e = calibration__measure(c, err, errlen);
	if (e)
		return e;
	*measured = 1;
	if (calibration__save(c, CALIBRATION_CACHE))
		log_warn("cannot save the calibration to %s: %s", CALIBRATION_CACHE,
			 strerror(errno));
	return 0;
}
