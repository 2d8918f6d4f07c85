/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The probe shim (doc/design.md §4, Probe shim): preloaded into a launched
 * command, it wraps the synchronization functions of one class. Each
 * wrapper calls the function it wraps and, around the call, two probe sites
 * of its own: functions whose first instruction is a 5-byte nop, which the
 * kernel turns into a call to a uprobe trampoline instead of a trap
 * (optimized uprobes). sbt-bpf finds them by name (sbt_enter_F, sbt_exit_F)
 * and attaches there instead of to F. With no tracer the sites cost a call
 * and a return each.
 *
 * The entry site gets the wrapped function's first four arguments in the
 * registers the function got them (the BPF entry program picks the ones
 * the probe's cookie names, as at F itself; none takes a fifth); the exit
 * site gets the return value and the return address in the program (the
 * call site). Both get, as their fifth argument, the time just before the
 * site and as their sixth the measured cost of the thread's previous site
 * hit (self-timing, below).
 *
 * Self-timing: when sbt-bpf launched the program (SBT_SHIM_TIMED_ENV=1), each
 * site call is timed with two CLOCK_MONOTONIC reads (vDSO, the clock of the
 * BPF records). What the hit added to the thread is the interval plus one
 * clock read: the interval holds the site and one read's worth of the two
 * reads (the end of the first, the start of the second), and both reads
 * are there only because of tracing. That cost is only known once the site
 * has returned, so it travels with the thread's next site hit into its
 * record (doc/design.md §4, Self-timed sites).
 *
 * Fork: the kernel's uprobe trampoline is a mapping of the process that a
 * fork does not copy (VM_DONTCOPY), while the sites it optimized, calls to
 * it, are copied with the text: a forked child calling one would jump into
 * nothing. A child's first wrapper call finds out (a flag in a page the
 * fork wiped) and, where a site is such a call, maps the library's text
 * again from its file, which gives it the kernel's breakpoints, those of
 * a library just loaded (shim/fork.c; doc/design.md §4, Probe shim and
 * fork). Where that fails (and in a signal handler that interrupts it),
 * the wrappers call no site.
 */
#ifndef SBT_SHIM_H
#define SBT_SHIM_H

#include <stdint.h>
#include <time.h>
#include "sbt/events.h"

#define SHIM_EXPORT __attribute__((visibility("default")))

/* The function that marks a library as the probe shim. */
#define SHIM_MARK "sbt_probes_shim_v1"

/* The sites of function F: global, typed as functions, 5-byte nop + ret;
 * their addresses in section sbt_sites, for a forked child (shim/fork.c). */
#define SHIM_SITES(F)                                                                              \
	__asm__(".text\n"                                                                          \
		".globl sbt_enter_" #F "\n"                                                        \
		".type sbt_enter_" #F ",@function\n"                                               \
		"sbt_enter_" #F ":\n"                                                              \
		"\t.byte 0x0f, 0x1f, 0x44, 0x00, 0x00\n"                                           \
		"\tret\n"                                                                          \
		".size sbt_enter_" #F ", . - sbt_enter_" #F "\n"                                   \
		".globl sbt_exit_" #F "\n"                                                         \
		".type sbt_exit_" #F ",@function\n"                                                \
		"sbt_exit_" #F ":\n"                                                               \
		"\t.byte 0x0f, 0x1f, 0x44, 0x00, 0x00\n"                                           \
		"\tret\n"                                                                          \
		".size sbt_exit_" #F ", . - sbt_exit_" #F "\n"                                     \
		".pushsection sbt_sites,\"aw\",@progbits\n"                                        \
		"\t.balign 8\n"                                                                    \
		"\t.quad sbt_enter_" #F ", sbt_exit_" #F "\n"                                      \
		".popsection\n");                                                                  \
	void sbt_enter_##F(uintptr_t, uintptr_t, uintptr_t, uintptr_t, uint64_t, uint64_t);        \
	void sbt_exit_##F(intptr_t, void *, uintptr_t, uintptr_t, uint64_t, uint64_t)

#define SHIM_A(x) ((uintptr_t)(x))

/* The function a wrapper stands for: the next definition after ours
 * (versioned where version is not NULL), or the one of the library that
 * defines it when that library was loaded with RTLD_LOCAL. Aborts with a
 * message when there is none: the program could not have called it. */
void *shim__real(const char *name, const char *version);

/* A wrapper's real function, found from section sbt_real (one pointer
 * each, so that nothing pads the entries apart): the library's
 * constructor looks them all up (shim/real.c), so that no program
 * thread's first call waits in the dynamic linker's lookup and its lock
 * (with several threads at their first barrier, one held the others
 * ~1 ms on a loaded VM, before any record). One the constructor could not
 * find (a library the program loads later) is looked up at its first call. */
struct shim_real {
	const char *name;
	const char *version;
	void *fn;
};

/* The real function of wrapper F (a race at a first call looks it up
 * twice, with the same result). */
#define SHIM_REAL(F, ver)                                                                          \
	({                                                                                         \
		static struct shim_real real_slot_ = {#F, ver, 0};                                 \
		static struct shim_real *real_ref_ __attribute__((section("sbt_real"), used)) =    \
			&real_slot_;                                                               \
		void *f_ = __atomic_load_n(&real_slot_.fn, __ATOMIC_ACQUIRE);                      \
		if (!f_) {                                                                         \
			f_ = shim__real(#F, ver);                                                  \
			__atomic_store_n(&real_slot_.fn, f_, __ATOMIC_RELEASE);                    \
		}                                                                                  \
		(__typeof__(&F))f_;                                                                \
	})

/* Self-timing is on (read once, at load). */
extern int shim__timed __attribute__((visibility("hidden")));
/* The cost of one clock read, measured at load. */
extern uint64_t shim__clock_ns __attribute__((visibility("hidden")));
/* The thread's previous hit: a site argument (SBT_SITE_COST_KNOWN | ns), or 0. */
extern __thread uint64_t shim__prev
	__attribute__((visibility("hidden"), tls_model("initial-exec")));

/* Where the process's sites stand (shim/fork.c): SHIM_MM_READY in the
 * process that loaded the library and in a forked one whose sites were
 * checked; in a page that a fork wipes (0 in the child). */
#define SHIM_MM_READY 1
extern int *shim__mm __attribute__((visibility("hidden")));
/* The slow path: a forked process's first wrapper call checks its sites
 * (the other threads wait for it). Nonzero: the sites may be called. */
int shim__mm_settle(void) __attribute__((visibility("hidden")));
/* The library's constructor: the page, the fork handler. */
void shim__mm_init(void) __attribute__((visibility("hidden")));

/* Whether this call of a wrapper calls its sites. */
static inline int shim__sites_ok(void)
{
	return __builtin_expect(__atomic_load_n(shim__mm, __ATOMIC_ACQUIRE) == SHIM_MM_READY, 1) ||
	       shim__mm_settle();
}

/* CLOCK_MONOTONIC in ns (vDSO), inlined into the wrappers' hot path. */
static inline uint64_t shim__now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Call a site with its first four arguments, timed when self-timing is
 * on: the time just before it goes as its fifth argument (the record's
 * time: the hit is all after it), and the cost of the hit to the thread's
 * next site. */
#define SHIM_SITE(site, ...)                                                                       \
	do {                                                                                       \
		if (shim__timed) {                                                                 \
			uint64_t t0_ = shim__now(), d_;                                            \
			site(__VA_ARGS__, t0_, shim__prev);                                        \
			d_ = shim__now() - t0_ + shim__clock_ns;                                   \
			shim__prev = SBT_SITE_COST_KNOWN | (d_ > UINT32_MAX ? UINT32_MAX : d_);    \
		} else {                                                                           \
			site(__VA_ARGS__, 0, 0);                                                   \
		}                                                                                  \
	} while (0)

#define SHIM_ENTER(F, a1, a2, a3, a4)                                                              \
	SHIM_SITE(sbt_enter_##F, SHIM_A(a1), SHIM_A(a2), SHIM_A(a3), SHIM_A(a4))
#define SHIM_EXIT(F, r) SHIM_SITE(sbt_exit_##F, (intptr_t)(r), __builtin_return_address(0), 0, 0)

/* Wrapper body: enter site, the call, exit site (the call alone where
 * the process's sites may not be called: both sites or none). */
#define SHIM_CALL(F, version, a1, a2, a3, a4, ...)                                                 \
	({                                                                                         \
		__typeof__(&F) real_ = SHIM_REAL(F, version);                                      \
		__typeof__(real_(__VA_ARGS__)) r_;                                                 \
		if (shim__sites_ok()) {                                                            \
			SHIM_ENTER(F, a1, a2, a3, a4);                                             \
			r_ = real_(__VA_ARGS__);                                                   \
			SHIM_EXIT(F, r_);                                                          \
		} else {                                                                           \
			r_ = real_(__VA_ARGS__);                                                   \
		}                                                                                  \
		r_;                                                                                \
	})

/* The same for a function returning nothing. */
#define SHIM_CALL_VOID(F, version, a1, a2, a3, a4, ...)                                            \
	do {                                                                                       \
		__typeof__(&F) real_ = SHIM_REAL(F, version);                                      \
		if (shim__sites_ok()) {                                                            \
			SHIM_ENTER(F, a1, a2, a3, a4);                                             \
			real_(__VA_ARGS__);                                                        \
			SHIM_EXIT(F, 0);                                                           \
		} else {                                                                           \
			real_(__VA_ARGS__);                                                        \
		}                                                                                  \
	} while (0)

#endif
