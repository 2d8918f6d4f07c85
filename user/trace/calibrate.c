// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
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
#include "lib/array.h"
#include "lib/clock.h"
#include "lib/infile.h"
#include "lib/outfile.h"
#include "lib/proc.h"
#include "lib/x86_insn.h"
#include "user/trace/calibrate.h"
#include "user/trace/class_refs.h"
#include "user/bpf/counters.h"
#include "lib/log.h"
#include "user/resolve/probes.h"
#include "user/bpf/session.h"
#include "user/resolve/elfsym.h"
#include "user/trace/hitters.h"
#include "user/trace/shim_preload.h"

#define REP_NS	 2000000.0 /* one repetition: calls for about 2 ms */
#define BATCH	 32	   /* calls between clock reads */
#define REPS	 5	   /* the minimum over repetitions is kept */
#define REPS_MAX 8
/*
 * A session's own calibrations. At its start and end (calibrator__measure)
 * each pass is run once, not twice as `calibrate` alternates them, with 3
 * repetitions of 2 ms, not 5: a function costs 3 passes x 6 ms, and the
 * least disturbed of 3 agrees with `calibrate` within 2 % here, spread over
 * 10 runs as much as its (±1-5 %, bench/RESULTS.md, issue 17), well inside
 * the ±15 % the VM's uprobe cost moves between runs. The default classes
 * under -- CMD (barrier, libgomp, semaphore, condvar, futex, shim site)
 * take ~0.11 s of calls, one BPF load and one detach: 0.3 s, where
 * `calibrate` takes 1.2 s. While tracing (calibrator__remeasure) the budget
 * is PERIODIC_NS of calls in all, split between the groups measured (3
 * passes, 6 repetitions each, 0.25 to 2 ms a repetition): the traced
 * threads may keep every CPU busy, and a short repetition is likelier to
 * run undisturbed than a long one. The links are removed in the
 * background: ~50 ms without a drain here, every 10 s by default.
 */
#define SESSION_REPS  3
#define PERIODIC_REPS 6
#define PERIODIC_NS   16000000.0
#define PERIODIC_MIN  250000.0

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

/* Our own functions of each class of first instruction (class_refs.h). */
static void run_xol(int n)
{
	while (n--)
		sbt_class_xol();
}

static void run_emulated(int n)
{
	while (n--)
		sbt_class_emulated();
}

static void run_nop5(int n)
{
	while (n--)
		sbt_class_nop5();
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
	const char *symbols[2]; /* the functions one iteration calls */
	unsigned int classes;	/* the classes (SBT_TRACE_*) that probe them */
};

/* The uprobe groups, then the futex tracepoints (timed in a pass of their
 * own, no uprobes) and the shim's sites (not return probes, so out of the
 * groups whose return costs are pooled). */
static const struct group groups[] = {
	{"barrier", run_barrier, {"pthread_barrier_wait"}, SBT_TRACE_BARRIER},
	{"mutex", run_mutex, {"pthread_mutex_lock", "pthread_mutex_unlock"}, SBT_TRACE_LOCK},
	{"semaphore", run_sem, {"sem_post", "sem_wait"}, SBT_TRACE_SEM},
	{"condvar", run_cond, {"pthread_cond_signal", "pthread_cond_broadcast"}, SBT_TRACE_COND},
	{"libgomp", run_gomp, {"GOMP_barrier"}, SBT_TRACE_BARRIER},
	{"single-stepped", run_xol, {"sbt_class_xol"}, 0},
	{"emulated", run_emulated, {"sbt_class_emulated"}, 0},
	{"nop5", run_nop5, {"sbt_class_nop5"}, 0},
	{"futex", run_futex, {CAL_FUTEX}, SBT_TRACE_FUTEX},
	{"shim", run_shim, {CAL_SHIM_SITE}, 0},
};

enum {
	G_BARRIER,
	G_MUTEX,
	G_SEM,
	G_COND,
	G_GOMP,
	G_XOL_REF, /* the class references: G_XOL_REF + enum insn_class */
	G_EMULATED_REF,
	G_NOP5_REF,
	NGROUPS,
	G_FUTEX = NGROUPS,
	G_SHIM,
	NTIMED
};
_Static_assert(G_EMULATED_REF == G_XOL_REF + INSN_EMULATED && G_NOP5_REF == G_XOL_REF + INSN_NOP5,
	       "a class's reference group follows its class");
#define ALL_GROUPS ((1u << NGROUPS) - 1)

/* ns per iteration of each group without probes, with entry probes, with
 * both, and of the barrier group with both and two counters read at each
 * hit (a counter record per hit). */
struct timing {
	double plain, entry, both;
};
struct cal_run {
	struct timing t[NTIMED];
	double counters_time;
	/* the barrier group with a thread per other CPU calling it too
	 * (hitters.h): without probes and with both; 0: not timed */
	double all_plain, all_both;
	int all_threads; /* the threads that called it at once, the timing one's included */
};

static double now_ns(void)
{
	return (double)clock_ns(CLOCK_MONOTONIC);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int discard(void *ctx, const struct sbt_event *e)
{
	return 0;
}

/* ns per iteration of g: the minimum over reps repetitions of rep_ns each
 * (the least disturbed), or their median with SBT_CALIBRATE_STAT=median (an
 * experiment: bench/RESULTS.md compares the two). Between repetitions, the
 * records of session s are thrown away (a ring never fills: a failed
 * reservation would cost less than a traced hit). */
static double time_group(const struct group *g, int reps, double rep_ns, struct session *s)
{
	const char *stat = getenv("SBT_CALIBRATE_STAT");
	double t[REPS_MAX];
	int r;

	for (r = 0; r < reps && r < REPS_MAX; r++) {
		double t0 = now_ns(), d;
		long calls = 0;

		/* a time budget, not a call count: single-stepped probes make a
		 * call 50x dearer, and calibration must stay under 2 s */
		do {
			g->run(BATCH);
			calls += BATCH;
			d = now_ns() - t0;
		} while (d < rep_ns);
		t[r] = d / calls;
		if (s)
			session__drain(s, 0, discard, NULL);
	}
	qsort(t, r, sizeof(t[0]), cmp_double);
	return stat && !strcmp(stat, "median") ? t[r / 2] : t[0];
}

/* The barrier group timed with every other CPU hitting it too (the
 * threads calling it at once into *threads), the less disturbed of two
 * passes: the ratio it gives scales what hits are charged (approx_conc.c),
 * and one pass moved it 0.84-1.29 on a VM where it is 1; 0 when there is
 * no other CPU. */
static double time_all_cpus(int reps, struct session *s, int *threads)
{
	struct hitters h;
	double t, u;

	if (!hitters__start(&h))
		return 0;
	*threads = h.n + 1;
	t = time_group(&groups[G_BARRIER], reps, REP_NS, s);
	u = time_group(&groups[G_BARRIER], reps, REP_NS, s);
	hitters__stop(&h);
	return u < t ? u : t;
}

/* The class references our executable's symbols name (class_refs.h), as
 * user probes, and a bit per class found. */
static struct user_probe class_refs[CLASS_REFS];
_Static_assert(CLASS_REFS == INSN_NCLASSES, "a reference per class");
static int nclass_refs;
static unsigned int class_refs_found;

static int group_available(int g)
{
	if (g >= G_XOL_REF && g < G_XOL_REF + INSN_NCLASSES)
		return !!(class_refs_found & 1u << (g - G_XOL_REF));
	return (g != G_GOMP || gomp_barrier) && (g != G_SHIM || shim_barrier_wait);
}

/* Time group g in pass kind (0 plain, 1 entry probes, 2 both): passes are
 * repeated, the least disturbed of each kind is kept. */
static void time_one(struct cal_run *r, int g, int kind, int reps, double rep_ns, struct session *s)
{
	double t = time_group(&groups[g], reps, rep_ns, s);
	struct timing *tm = &r->t[g];

	if (kind == 0)
		tm->plain = t;
	else if (kind == 1)
		tm->entry = tm->entry && tm->entry < t ? tm->entry : t;
	else
		tm->both = tm->both && tm->both < t ? tm->both : t;
}

/* Time every group of mask with the session's probes in place. */
static void time_groups(struct cal_run *r, unsigned int mask, int kind, int reps, double rep_ns,
			struct session *s)
{
	int g;

	for (g = 0; g < NGROUPS; g++)
		if ((mask & 1u << g) && group_available(g))
			time_one(r, g, kind, reps, rep_ns, s);
}

/* The shim's sites of pthread_barrier_wait as probe p (entry_only: the
 * entry site alone). 0, or -ENOENT when the shim is not loaded. */
static int shim_probe(struct probe *p, int entry_only)
{
	uint64_t enter, exit;
	struct elfsym *es;
	struct stat st;
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
	if (!stat(shim_path, &st)) {
		p->dev = proc__dev_of(st.st_dev);
		p->ino = st.st_ino;
	}
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

/* The objects the groups call, and the runtimes whose functions they are. */
static void objects_init(int shim)
{
	void *gomp = dlopen("libgomp.so.1", RTLD_NOW);
	int i, g;

	nclass_refs = class_refs__probes(class_refs);
	class_refs_found = 0;
	for (i = 0; i < nclass_refs; i++)
		for (g = G_XOL_REF; g < G_XOL_REF + INSN_NCLASSES; g++)
			if (!strcmp(class_refs[i].symbol, groups[g].symbols[0]))
				class_refs_found |= 1u << (g - G_XOL_REF);
	gomp_barrier = gomp ? (void (*)(void))dlsym(gomp, "GOMP_barrier") : NULL;
	if (shim)
		load_shim();
	else
		shim_barrier_wait = NULL;
	pthread_barrier_init(&cal_barrier, NULL, 1);
	sem_init(&cal_sem, 0, 0);
}

static void objects_destroy(void)
{
	pthread_barrier_destroy(&cal_barrier);
	sem_destroy(&cal_sem);
}

/* The group of mask that calls symbol, or -1. */
static int group_of(const char *symbol, unsigned int mask)
{
	int g;

	for (g = 0; g < NGROUPS; g++)
		if ((mask & 1u << g) && group_available(g) &&
		    (!strcmp(groups[g].symbols[0], symbol) ||
		     (groups[g].symbols[1] && !strcmp(groups[g].symbols[1], symbol))))
			return g;
	return -1;
}

/* Our own process's probes on the functions of mask's groups, ids dense,
 * entry_only or return_only as asked. */
static int own_probes(struct probe_table *t, unsigned int mask, int entry_only, int return_only,
		      char *err, size_t errlen)
{
	struct probe_table all;
	int i, e;

	e = probes__resolve(getpid(), SBT_TRACE_ALL & ~SBT_TRACE_FUTEX, class_refs, nclass_refs,
			    &all, err, errlen);
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
		if (group_of(all.probes[i].info.symbol, mask) < 0)
			continue;
		t->probes[t->n] = all.probes[i];
		t->probes[t->n].info.id = t->n;
		t->probes[t->n].entry_only = entry_only;
		t->probes[t->n].return_only = return_only;
		t->n++;
	}
	probes__free(&all);
	return 0;
}

/* The probes of t on the functions of mask's groups, ids dense, entry or
 * return only as asked (into sub, which the caller frees). */
static int sub_table(const struct probe_table *t, unsigned int mask, int entry_only,
		     int return_only, struct probe_table *sub)
{
	int i;

	memset(sub, 0, sizeof(*sub));
	sub->probes = calloc(t->n + 1, sizeof(*sub->probes));
	if (!sub->probes)
		return -ENOMEM;
	sub->n = 1;
	for (i = 1; i < t->n; i++) {
		if (group_of(t->probes[i].info.symbol, mask) < 0)
			continue;
		sub->probes[sub->n] = t->probes[i];
		sub->probes[sub->n].info.id = sub->n;
		sub->probes[sub->n].entry_only = entry_only;
		sub->probes[sub->n].return_only = return_only;
		sub->n++;
	}
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

/* The barrier group with both probes and two counters read at each hit,
 * in a session of its own (the counters are read by every barrier probe of
 * a session that has them). */
static int counters_pass(struct cal_run *r, const struct probe_table *own, int reps, char *err,
			 size_t errlen)
{
	struct session_opts so = {.ringbuf_bytes = 16 << 20, .single_target = getpid()};
	struct counter_set cs = {0};
	struct probe_table t = {0};
	struct session *s = NULL;
	int e;

	if (counters__parse("task-clock,page-faults", &cs, err, errlen) ||
	    counters__open(&cs, err, errlen))
		return -EINVAL;
	so.counters = &cs;
	e = sub_table(own, 1u << G_BARRIER, 0, 0, &t);
	s = e ? NULL : session__open(&so, err, errlen);
	if (!e && !s)
		e = -EINVAL;
	if (!e)
		e = session__attach(s, &t, getpid(), err, errlen);
	if (!e)
		r->counters_time = time_group(&groups[G_BARRIER], reps, REP_NS, s);
	session__close(s);
	probes__free(&t);
	counters__close(&cs);
	return e;
}

/* One pass of `calibrate` with probes attached, in a session of its own: 1 =
 * entry probes only, 2 = both; 3 = the futex tracepoints only; 4 = both,
 * and counters; 5 and 6 = the shim's entry site, both sites. */
static int probed_pass(struct cal_run *r, int pass, char *err, size_t errlen)
{
	struct session_opts so = {
		.ringbuf_bytes = 16 << 20, .single_target = getpid(), .futex = pass == 3};
	struct probe_table t = {0};
	struct session *s;
	int e;

	if (pass == 4) {
		e = own_probes(&t, ALL_GROUPS, 0, 0, err, errlen);
		if (!e)
			e = counters_pass(r, &t, REPS, err, errlen);
		probes__free(&t);
		return e;
	}
	e = pass >= 5 ? shim_probes(&t, pass == 5)
		      : own_probes(&t, ALL_GROUPS, pass == 1, 0, err, errlen);
	if (!e && pass == 3)
		t.n = 1; /* no uprobes */
	s = e ? NULL : session__open(&so, err, errlen);
	if (!e && !s)
		e = -EINVAL;
	if (!e)
		e = session__attach(s, &t, getpid(), err, errlen);
	if (!e && pass == 3)
		r->t[G_FUTEX].both = time_group(&groups[G_FUTEX], REPS, REP_NS, s);
	else if (!e && pass >= 5)
		time_one(r, G_SHIM, pass - 4, REPS, REP_NS, s);
	else if (!e)
		time_groups(r, ALL_GROUPS, pass, REPS, REP_NS, s);
	if (s)
		session__close(s);
	probes__free(&t);
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
	/* the all-CPUs entry's class carries its thread count (alpha_series.h) */
	a->cls = cls >= 0 && (cls <= INSN_NCLASSES || !strcmp(symbol, CAL_ALL_CPUS)) ? cls
										     : INSN_XOL;
}

/* The class of the instruction (lib/x86_insn.h). */
int insn_class__of(const char *path, __u64 offset)
{
	unsigned char b[5] = {0};
	ssize_t n = infile__read_at(path, offset, b, sizeof(b));

	if (n < 2)
		return INSN_XOL;
	if (x86_insn__is_nop5(b, (size_t)n))
		return INSN_NOP5;
	return x86_insn__is_emulated(b, (size_t)n) ? INSN_EMULATED : INSN_XOL;
}

const struct alpha *calibration__for_class(const struct calibration *c, int cls)
{
	int i;

	for (i = 0; i < c->n; i++)
		if (c->a[i].cls == cls)
			return &c->a[i];
	return NULL;
}

/* Our own (first) probe on symbol, or NULL. */
static const struct probe *own_probe(const struct probe_table *t, const char *symbol)
{
	int i;

	for (i = 1; i < t->n; i++)
		if (!strcmp(t->probes[i].info.symbol, symbol))
			return &t->probes[i];
	return NULL;
}

/* The class of a calibrated symbol, from where our own probes put it. */
static int class_of_symbol(const struct probe_table *t, const char *symbol)
{
	const struct probe *p = own_probe(t, symbol);

	return p ? insn_class__of(p->open_path, probe__entry_offset(p)) : INSN_XOL;
}

/* How far past their first instruction our own probes put c's functions. */
static void mark_entry_skip(struct calibration *c, const struct probe_table *own)
{
	const struct probe *p;
	int i;

	for (i = 0; i < c->n; i++)
		if ((p = own_probe(own, c->a[i].symbol)))
			c->a[i].entry_skip = (int)p->entry_skip;
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
	qsort(v, c->n, sizeof(v[0]), array_cmp_u64);
	ret = v[c->n / 2];
	/* An emulated entry hit and a return hit both trap once and run one
	 * program: a return cost near 0 or near the cheapest such pair's whole
	 * cost is the noise of two passes measured apart; split that pair
	 * evenly. (A single-stepped entry costs ~13 returns: no such check
	 * without an emulated function, as in a calibration while tracing that
	 * measured single-stepped ones alone.) */
	for (i = 0; i < c->n; i++)
		if (c->a[i].cls == INSN_EMULATED)
			min_pair = c->a[i].entry_ns < min_pair ? c->a[i].entry_ns : min_pair;
	if (min_pair != UINT64_MAX && (ret * 10 > min_pair * 9 || ret * 10 < min_pair))
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
 * one-function group that class's cost, and the other the rest. Without
 * that reference in c (a calibration while tracing that could not measure
 * it), split the sum as prev, the last full calibration, split it. */
static void split_mixed_pairs(struct calibration *c, const struct calibration *prev)
{
	int i;

	for (i = 0; i + 1 < c->n; i++) {
		struct alpha *x = &c->a[i], *y = &c->a[i + 1];
		const struct alpha *ref, *px, *py;
		__u64 sum = x->entry_ns * 2;
		int g;

		for (g = 0; g < NGROUPS; g++)
			if (groups[g].symbols[1] && !strcmp(groups[g].symbols[0], x->symbol) &&
			    !strcmp(groups[g].symbols[1], y->symbol))
				break;
		if (g == NGROUPS || x->cls == y->cls)
			continue;
		ref = calibration__find(c, "pthread_barrier_wait");
		if (!ref && prev && (px = calibration__find(prev, x->symbol)) &&
		    (py = calibration__find(prev, y->symbol)) && px->entry_ns + py->entry_ns) {
			x->entry_ns =
				(__u64)((double)sum * px->entry_ns / (px->entry_ns + py->entry_ns) +
					0.5);
			y->entry_ns = sum - x->entry_ns;
			i++;
			continue;
		}
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

/* The costs of run r: each function of mask's groups, its class from
 * where our own probes put it, then the pseudo-entries measured (futex,
 * counters, shim). prev: how pairs split without their reference. */
static void fill_table(struct calibration *c, const struct cal_run *r, unsigned int mask,
		       unsigned int pseudo, const struct probe_table *own,
		       const struct calibration *prev)
{
	int g, k;

	for (g = 0; g < NGROUPS; g++) {
		const struct timing *t = &r->t[g];
		int nsym = groups[g].symbols[1] ? 2 : 1;

		/* a group timed with no probe of ours measured nothing */
		if (!(mask & 1u << g) || !group_available(g) ||
		    !own_probe(own, groups[g].symbols[0]))
			continue;
		/* the functions of a group are assumed to cost the same; the
		 * entry field holds the whole pair cost until common_return_cost()
		 * splits it */
		for (k = 0; k < nsym; k++)
			add_alpha(c, groups[g].symbols[k], (t->both - t->plain) / nsym,
				  (t->both - t->entry) / nsym,
				  class_of_symbol(own, groups[g].symbols[k]));
	}
	mark_entry_skip(c, own);
	common_return_cost(c);
	split_mixed_pairs(c, prev);
	/* sys_enter and sys_exit run the same kind of program: half each */
	if (pseudo & 1u << G_FUTEX)
		add_alpha(c, CAL_FUTEX, (r->t[G_FUTEX].both - r->t[G_FUTEX].plain) / 2,
			  (r->t[G_FUTEX].both - r->t[G_FUTEX].plain) / 2, INSN_NCLASSES);
	/* a record at the entry and one at the return of each call */
	if (pseudo & 1u << NTIMED)
		add_alpha(c, CAL_COUNTERS, (r->counters_time - r->t[G_BARRIER].both) / 2, 0,
			  INSN_NCLASSES);
	if ((pseudo & 1u << G_SHIM) && shim_barrier_wait)
		add_alpha(c, CAL_SHIM_SITE, r->t[G_SHIM].entry - r->t[G_SHIM].plain,
			  r->t[G_SHIM].both - r->t[G_SHIM].entry, INSN_NOP5);
	/* a barrier call's entry and return hits, with every CPU hitting and
	 * alone, and how many threads hit at once (alpha_series.h,
	 * ALPHA_SYM_ALL_CPUS) */
	if (r->all_both && r->all_plain && r->t[G_BARRIER].both > r->t[G_BARRIER].plain)
		add_alpha(c, CAL_ALL_CPUS, r->all_both - r->all_plain,
			  r->t[G_BARRIER].both - r->t[G_BARRIER].plain,
			  ALPHA_ALL_CPUS_CLS + r->all_threads);
}

#define PSEUDO_COUNTERS (1u << NTIMED)

int calibration__measure(struct calibration *c, char *err, size_t errlen)
{
	struct cal_run r = {0};
	struct probe_table own;
	int e, k;

	memset(c, 0, sizeof(*c));
	identity(c);
	objects_init(1);
	time_groups(&r, ALL_GROUPS, 0, REPS, REP_NS, NULL);
	if (shim_barrier_wait)
		time_one(&r, G_SHIM, 0, REPS, REP_NS, NULL);
	time_one(&r, G_FUTEX, 0, REPS, REP_NS, NULL);
	/* entry-only and both-probes passes alternate twice: the VM's noise
	 * moves between passes, and the return cost is their difference */
	e = probed_pass(&r, 1, err, errlen);
	if (!e)
		e = probed_pass(&r, 2, err, errlen);
	if (!e)
		e = probed_pass(&r, 1, err, errlen);
	if (!e)
		e = probed_pass(&r, 2, err, errlen);
	if (!e)
		e = probed_pass(&r, 3, err, errlen);
	if (!e)
		e = probed_pass(&r, 4, err, errlen);
	/* the shim's sites, in passes of their own, alternating too */
	for (k = 0; !e && shim_barrier_wait && k < 4; k++)
		e = probed_pass(&r, 5 + k % 2, err, errlen);
	if (!e)
		e = own_probes(&own, ALL_GROUPS, 0, 0, err, errlen);
	if (!e) {
		fill_table(c, &r, ALL_GROUPS, 1u << G_FUTEX | PSEUDO_COUNTERS | 1u << G_SHIM, &own,
			   NULL);
		probes__free(&own);
	}
	objects_destroy();
	return e;
}

/* ---- a tracing session's calibrations ------------------------------------------ */

struct calibrator {
	unsigned int mask;	 /* the groups measured */
	unsigned int pseudo;	 /* and the pseudo-entries: futex, counters, shim */
	struct probe_table own;	 /* our probes on the groups' functions */
	struct probe shim_site;	 /* the shim's pthread_barrier_wait sites */
	struct session *s;	 /* kept between calibrations, with no link between them */
	struct calibration prev; /* and its costs: how pairs split */
	int have_last;
	/* the links of the last calibration while tracing being removed (each
	 * removal waits for RCU grace periods, ~0.1 s here: the tracer drains
	 * meanwhile) */
	pthread_t detacher;
	int detaching;
};

static void *detach_thread(void *s)
{
	session__detach(s);
	return NULL;
}

/* The calibration's links go in the background; our own calls to the
 * functions still pay them until then, which nothing of ours times. */
static void detach_later(struct calibrator *cal)
{
	sigset_t all, old;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old); /* signals stay with the tracer's thread */
	cal->detaching = !pthread_create(&cal->detacher, NULL, detach_thread, cal->s);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!cal->detaching)
		session__detach(cal->s);
}

/* The links of the calibration before are gone. */
static void settle(struct calibrator *cal)
{
	if (cal->detaching)
		pthread_join(cal->detacher, NULL);
	cal->detaching = 0;
}

/* The instruction classes of the functions of mask's groups (bit per class). */
static unsigned int classes_of(const struct probe_table *own, unsigned int mask)
{
	unsigned int cls = 0;
	int i, g;

	for (i = 1; i < own->n; i++) {
		g = group_of(own->probes[i].info.symbol, mask);
		if (g >= 0)
			cls |= 1u << insn_class__of(own->probes[i].open_path,
						    probe__entry_offset(&own->probes[i]));
	}
	return cls;
}

/* The groups a plan needs: those of its classes; then, since functions not
 * calibrated by name (--probe, region frames and bodies, trylocks, timed
 * waits, tasks) are charged by the class of their first instruction, a
 * group of each class some available group has and none chosen has. */
static unsigned int groups_for(const struct cal_plan *plan, const struct probe_table *all)
{
	unsigned int mask = 0, have, want;
	int g;

	for (g = 0; g < NGROUPS; g++)
		if ((groups[g].classes & plan->classes) && group_available(g))
			mask |= 1u << g;
	if (plan->counters)
		mask |= 1u << G_BARRIER; /* a counter record's cost is measured on it */
	if (!(plan->classes & ~SBT_TRACE_FUTEX) && !plan->user_probes)
		return mask;
	/* the reference a two-function group's sum is split by */
	if (mask & (1u << G_MUTEX | 1u << G_SEM | 1u << G_COND))
		mask |= 1u << G_BARRIER;
	have = classes_of(all, mask);
	want = classes_of(all, ALL_GROUPS) & ~have;
	for (g = 0; g < NGROUPS && want; g++) {
		unsigned int cls = classes_of(all, 1u << g);

		if (group_available(g) && (cls & want)) {
			mask |= 1u << g;
			want &= ~cls;
		}
	}
	return mask;
}

int calibrator__new(struct calibrator **out, const struct cal_plan *plan, char *err, size_t errlen)
{
	struct session_opts so = {.ringbuf_bytes = 4 << 20,
				  .single_target = getpid(),
				  .futex = !!(plan->classes & SBT_TRACE_FUTEX),
				  .calibration = 1};
	struct calibrator *cal = calloc(1, sizeof(*cal));
	struct probe_table all;
	int e;

	*out = cal;
	if (!cal) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	objects_init(plan->shim);
	e = own_probes(&all, ALL_GROUPS, 0, 0, err, errlen);
	if (e)
		return e;
	cal->mask = groups_for(plan, &all);
	e = sub_table(&all, cal->mask, 0, 0, &cal->own);
	probes__free(&all);
	if (e) {
		snprintf(err, errlen, "out of memory");
		return e;
	}
	cal->pseudo = (so.futex ? 1u << G_FUTEX : 0) | (plan->counters ? PSEUDO_COUNTERS : 0);
	if (plan->shim && !shim_probe(&cal->shim_site, 0))
		cal->pseudo |= 1u << G_SHIM;
	cal->s = session__open(&so, err, errlen);
	return cal->s ? 0 : -EINVAL;
}

/* Attach probes t (a copy with entry_only / return_only as asked). */
static int attach_as(struct calibrator *cal, const struct probe_table *t, unsigned int mask,
		     int entry_only, int return_only, char *err, size_t errlen)
{
	struct probe_table sub;
	int e = sub_table(t, mask, entry_only, return_only, &sub);

	if (!e)
		e = session__attach(cal->s, &sub, getpid(), err, errlen);
	probes__free(&sub);
	return e;
}

static int attach_shim(struct calibrator *cal, int entry_only, int return_only, char *err,
		       size_t errlen)
{
	struct probe p = cal->shim_site;

	p.info.id = 1;
	p.entry_only = entry_only;
	p.return_only = return_only;
	return session__attach_probes(cal->s, &p, 1, getpid(), err, errlen);
}

int calibrator__measure(struct calibrator *cal, struct calibration *c, __u64 *ts, char *err,
			size_t errlen)
{
	struct cal_run r = {0};
	int e = 0;

	settle(cal);
	memset(c, 0, sizeof(*c));
	identity(c);
	*ts = clock_ns(CLOCK_MONOTONIC);
	time_groups(&r, cal->mask, 0, SESSION_REPS, REP_NS, NULL);
	if (cal->mask & 1u << G_BARRIER)
		r.all_plain = time_all_cpus(SESSION_REPS, NULL, &r.all_threads);
	if (cal->pseudo & 1u << G_FUTEX)
		time_one(&r, G_FUTEX, 0, SESSION_REPS, REP_NS, NULL);
	/* the shim's sites first: its wrapper calls the real
	 * pthread_barrier_wait, whose probes are not attached yet */
	if (cal->pseudo & 1u << G_SHIM) {
		time_one(&r, G_SHIM, 0, SESSION_REPS, REP_NS, NULL);
		e = attach_shim(cal, 1, 0, err, errlen);
		if (!e)
			time_one(&r, G_SHIM, 1, SESSION_REPS, REP_NS, cal->s);
		if (!e)
			e = attach_shim(cal, 0, 1, err, errlen);
		if (!e)
			time_one(&r, G_SHIM, 2, SESSION_REPS, REP_NS, cal->s);
	}
	/* entry probes, then the return probes added to them */
	if (!e && cal->mask)
		e = attach_as(cal, &cal->own, cal->mask, 1, 0, err, errlen);
	if (!e)
		time_groups(&r, cal->mask, 1, SESSION_REPS, REP_NS, cal->s);
	if (!e && cal->mask)
		e = attach_as(cal, &cal->own, cal->mask, 0, 1, err, errlen);
	if (!e)
		time_groups(&r, cal->mask, 2, SESSION_REPS, REP_NS, cal->s);
	if (!e && r.all_plain)
		r.all_both = time_all_cpus(SESSION_REPS, cal->s, &r.all_threads);
	if (!e && (cal->pseudo & 1u << G_FUTEX))
		e = session__attach_futex(cal->s, err, errlen);
	if (!e && (cal->pseudo & 1u << G_FUTEX))
		r.t[G_FUTEX].both = time_group(&groups[G_FUTEX], SESSION_REPS, REP_NS, cal->s);
	/* removed before the tracing session attaches its own: removed in the
	 * background, they held its attach up to 0.7 s (0.3-0.4 s otherwise) */
	session__detach(cal->s);
	if (!e && (cal->pseudo & PSEUDO_COUNTERS))
		e = counters_pass(&r, &cal->own, SESSION_REPS, err, errlen);
	if (e)
		return e;
	fill_table(c, &r, cal->mask, cal->pseudo, &cal->own, cal->have_last ? &cal->prev : NULL);
	cal->prev = *c;
	cal->have_last = 1;
	return 0;
}

int calibrator__remeasure(struct calibrator *cal, cal_probed_fn probed, void *ctx,
			  struct calibration *c, __u64 *ts, char *err, size_t errlen)
{
	struct cal_run r;
	unsigned int mask;
	double rep_ns;
	int i, g, n = 0, e;

	if (!cal->have_last)
		return -ENOENT;
	settle(cal);
	/* the groups none of whose functions the tracing session probes here */
	mask = cal->mask;
	for (i = 1; i < cal->own.n; i++) {
		const struct probe *p = &cal->own.probes[i];

		g = group_of(p->info.symbol, cal->mask);
		if (g >= 0 && probed(ctx, p->dev, p->ino, p->info.offset, 0))
			mask &= ~(1u << g);
	}
	for (g = 0; g < NGROUPS; g++)
		n += !!(mask & 1u << g);
	if (!n)
		return -ENOENT;
	rep_ns = PERIODIC_NS / (n * 3 * PERIODIC_REPS);
	rep_ns = rep_ns < PERIODIC_MIN ? PERIODIC_MIN : rep_ns > REP_NS ? REP_NS : rep_ns;
	memset(c, 0, sizeof(*c));
	memset(&r, 0, sizeof(r));
	*ts = clock_ns(CLOCK_MONOTONIC);
	/* the plain costs again, under what the tracing session adds to every
	 * call (its syscall tracepoints: pthread_barrier_wait makes a futex
	 * call) */
	time_groups(&r, mask, 0, PERIODIC_REPS, rep_ns, NULL);
	e = attach_as(cal, &cal->own, mask, 1, 0, err, errlen);
	if (!e)
		time_groups(&r, mask, 1, PERIODIC_REPS, rep_ns, cal->s);
	if (!e)
		e = attach_as(cal, &cal->own, mask, 0, 1, err, errlen);
	if (!e)
		time_groups(&r, mask, 2, PERIODIC_REPS, rep_ns, cal->s);
	detach_later(cal);
	if (e)
		return e;
	fill_table(c, &r, mask, 0, &cal->own, &cal->prev);
	return 0;
}

void calibrator__free(struct calibrator *cal)
{
	if (!cal)
		return;
	settle(cal);
	session__close(cal->s);
	probes__free(&cal->own);
	objects_destroy();
	free(cal);
}

const struct alpha *calibration__find(const struct calibration *c, const char *symbol)
{
	int i;

	for (i = 0; i < c->n; i++)
		if (!strcmp(c->a[i].symbol, symbol))
			return &c->a[i];
	return NULL;
}

/* The cache's format: 2 since probes go past endbr64 and the classes have
 * references of their own, 3 since they go past plain instructions too (a
 * cache of before charges a function the cost of an instruction no longer
 * probed); its 5th field is how many bytes past the function's first. */
#define CACHE_FORMAT 3

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
	fprintf(f, "# sbt-bpf calibration: probe cost per hit, ns\nformat %d\nkernel %s\ncpu %s\n",
		CACHE_FORMAT, c->kernel, c->cpu);
	for (i = 0; i < c->n; i++)
		fprintf(f, "alpha %s %llu %llu %d %d\n", c->a[i].symbol,
			(unsigned long long)c->a[i].entry_ns, (unsigned long long)c->a[i].exit_ns,
			c->a[i].cls, c->a[i].entry_skip);
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
	int cls, skip, k, format = 1;
	FILE *f = fopen(path, "re");

	if (!f)
		return -ENOENT;
	memset(c, 0, sizeof(*c));
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (sscanf(line, "format %d", &format) == 1)
			continue;
		if (!strncmp(line, "kernel ", 7))
			snprintf(c->kernel, sizeof(c->kernel), "%.127s", line + 7);
		else if (!strncmp(line, "cpu ", 4))
			snprintf(c->cpu, sizeof(c->cpu), "%.127s", line + 4);
		else if ((k = sscanf(line, "alpha %127s %llu %llu %d %d", sym, &en, &ex, &cls,
				     &skip)) >= 4 &&
			 c->n < CALIBRATION_MAX) {
			add_alpha(c, sym, en, ex, cls);
			c->a[c->n - 1].entry_skip = k == 5 && skip > 0 ? skip : 0;
		}
	}
	fclose(f);
	identity(&here);
	if (!c->n)
		return -EINVAL;
	if (format != CACHE_FORMAT || !calibration__find(c, CAL_FUTEX) ||
	    !calibration__find(c, CAL_COUNTERS))
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
