// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The symbolizer (user/resolve/symbolize.h) on a child of this test: the
 * names it could give while the child ran stay given once the child is a
 * zombie or reaped, even after a lookup that made it read the maps again
 * (no root needed: a child's maps are its parent's to read); across its
 * exec, each record named from the program it ran then
 * (user/resolve/sym_timeline.h). A call made inside an inlined header
 * helper named at the program's line. And C++ names demangled
 * (user/resolve/demangle.h). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include "lib/proc.h"
#include "user/resolve/demangle.h"
#include "user/resolve/sym_timeline.h"
#include "user/resolve/symbolize.h"
#include "inline_helper.h"
#include "unit.h"

/* A global of this executable: the child, a fork, has it at the same
 * address. */
long symbolize_test_global[4];

static pid_t start_child(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		pause();
		_exit(0);
	}
	return pid;
}

/* The child's maps are there: the fork returned after its mm was set. */
static struct symbolizer *symbolizer_of(pid_t pid)
{
	struct symbolizer *s = symbolizer__new(pid);

	CHECK(s != NULL);
	return s;
}

static int names_global(struct symbolizer *s)
{
	char buf[256] = "";

	return symbolizer__data(s, (uintptr_t)&symbolize_test_global[1], buf, sizeof(buf)) == 0 &&
	       !strcmp(buf, "symbolize_test_global+0x8");
}

/* Code in no file the symbolizer knows (a library loaded since, it
 * supposes): the lookup reads the maps again. Heap memory is such code. */
static void look_up_heap(struct symbolizer *s)
{
	char buf[256] = "";
	void *heap = malloc(64);

	symbolizer__code(s, (uintptr_t)heap, buf, sizeof(buf));
	CHECK(buf[0] == '0' && buf[1] == 'x');
	CHECK_EQ(symbolizer__data(s, (uintptr_t)heap, buf, sizeof(buf)), -ENOENT);
	free(heap);
}

TEST(names_survive_the_child_becoming_a_zombie)
{
	pid_t pid = start_child();
	struct symbolizer *s;
	siginfo_t si;

	CHECK(pid > 0);
	s = symbolizer_of(pid);
	kill(pid, SIGKILL);
	/* a zombie (not reaped): its maps read empty */
	CHECK_EQ(waitid(P_PID, pid, &si, WEXITED | WNOWAIT), 0);
	CHECK(proc__gone(pid));
	look_up_heap(s);
	CHECK(names_global(s));
	waitpid(pid, NULL, 0);
	look_up_heap(s);
	CHECK(names_global(s));
	symbolizer__free(s);
}

TEST(names_survive_the_child_being_reaped)
{
	pid_t pid = start_child();
	struct symbolizer *s;

	CHECK(pid > 0);
	s = symbolizer_of(pid);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	look_up_heap(s);
	CHECK(names_global(s));
	symbolizer__free(s);
}

/* Past the pages mapped from the file: a big array's .bss goes on in
 * anonymous memory, and what follows it is named from the file's
 * segments. */
static struct {
	char pad[8 << 20];
	long tail;
} symbolize_test_bss;

TEST(data_past_the_file_backed_pages_is_named)
{
	pid_t pid = start_child();
	struct symbolizer *s;
	char buf[256] = "";

	CHECK(pid > 0);
	s = symbolizer_of(pid);
	CHECK_EQ(symbolizer__data(s, (uintptr_t)&symbolize_test_bss.tail, buf, sizeof(buf)), 0);
	CHECK_STR(buf, "symbolize_test_bss+0x800000");
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	symbolizer__free(s);
}

TEST(a_process_that_is_gone_has_no_symbolizer)
{
	pid_t pid = start_child();

	CHECK(pid > 0);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	CHECK(symbolizer__new(pid) == NULL);
}

/* A child that execs sleep once told to (a byte on *go). */
static pid_t start_execing_child(int *go)
{
	int p[2];
	pid_t pid;
	char c;

	if (pipe(p))
		return -1;
	pid = fork();
	if (pid == 0) {
		close(p[1]);
		if (read(p[0], &c, 1) == 1)
			execl("/bin/sleep", "sleep", "30", (char *)NULL);
		_exit(1);
	}
	close(p[0]);
	*go = p[1];
	return pid;
}

/* The start of the child's mapping of path's code (0: none yet). */
static uint64_t code_of(pid_t pid, const char *name)
{
	char path[64], line[512];
	unsigned long long lo = 0, hi;
	char perms[8];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx-%llx %7s", &lo, &hi, perms) == 3 && perms[2] == 'x' &&
		    strstr(line, name))
			break;
		else
			lo = 0;
	if (f)
		fclose(f);
	return lo;
}

/* Until the child runs sleep: its code is mapped. */
static uint64_t wait_for_exec(pid_t pid)
{
	uint64_t code = 0;
	int i;

	for (i = 0; i < 2000 && !(code = code_of(pid, "/sleep")); i++)
		usleep(1000);
	return code;
}

static int is_hex(const char *s)
{
	return s[0] == '0' && s[1] == 'x';
}

TEST(records_before_an_exec_named_from_the_old_program_after_from_the_new)
{
	struct sym_timeline *tl = sym_timeline__new();
	struct symbolizer *old, *now;
	char buf[256] = "";
	uint64_t sleep_code;
	int go = -1;
	pid_t pid = start_execing_child(&go);

	CHECK(pid > 0 && tl);
	old = symbolizer_of(pid);
	CHECK_EQ(sym_timeline__add(tl, 0, old), 1);
	CHECK(write(go, "x", 1) == 1);
	sleep_code = wait_for_exec(pid);
	CHECK(sleep_code != 0);
	/* read at its exec, at time 100: the records from 100 on */
	CHECK_EQ(sym_timeline__add(tl, 100, symbolizer_of(pid)), 1);
	/* a read made later for an earlier time (an exec record read after a
	 * stop): not used */
	CHECK_EQ(sym_timeline__add(tl, 100, symbolizer__new(pid)), 0);
	CHECK_EQ(sym_timeline__add(tl, 50, NULL), 0);
	CHECK_EQ(sym_timeline__count(tl), 2);

	/* a record of time 99, read after the exec: the old program's names */
	CHECK(sym_timeline__at(tl, 99) == old);
	CHECK(names_global(old));
	symbolizer__function(old, (uintptr_t)start_execing_child, buf, sizeof(buf));
	CHECK(!strncmp(buf, "start_execing_child", 19));
	/* frozen: the new program's code is not looked for in the maps, which
	 * are no longer its program's */
	symbolizer__function(old, sleep_code, buf, sizeof(buf));
	CHECK(is_hex(buf));
	CHECK_EQ(sym_timeline__count(tl), 2);

	/* time 100 on: the new program's; the old symbolizer is gone */
	now = sym_timeline__at(tl, 100);
	CHECK(now != NULL && now != old);
	CHECK_EQ(sym_timeline__count(tl), 1);
	symbolizer__function(now, sleep_code, buf, sizeof(buf));
	CHECK(!is_hex(buf));
	CHECK(!names_global(now));
	/* a late record, older than the first held: named by it */
	CHECK(sym_timeline__at(tl, 10) == now);

	/* gone since: its records from then on by address */
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	CHECK_EQ(sym_timeline__add(tl, 200, symbolizer__new(pid)), 1);
	CHECK(sym_timeline__at(tl, 150) == now);
	CHECK(sym_timeline__at(tl, 250) == NULL);
	CHECK_EQ(sym_timeline__count(tl), 1);
	CHECK(sym_timeline__at(NULL, 0) == NULL);
	close(go);
	sym_timeline__free(tl);
}

/* Calls made inside inlined helpers, as a barrier call inside a header's
 * or a template's code: their return addresses. */
static void *inlined_ra;

static __attribute__((noinline)) void record_return(void)
{
	inlined_ra = __builtin_return_address(0);
	__asm__ volatile("" ::: "memory");
}

static int same_file_call_line;

static inline __attribute__((always_inline)) void same_file_helper(void)
{
	same_file_call_line = __LINE__ + 1;
	record_return();
}

static __attribute__((noinline)) int calls_header_helper(void)
{
	int line = __LINE__ + 1;
	header_helper(record_return);
	return line;
}

static __attribute__((noinline)) int calls_same_file_helper(void)
{
	same_file_helper();
	return same_file_call_line; /* no tail call: the return address is here */
}

/* The line table has the header's line at a call made in its helper; the
 * site is named by the line of this file that calls the helper. A helper
 * of this file keeps its own line. */
TEST(a_call_inside_an_inlined_header_helper_is_named_at_the_programs_line)
{
	struct symbolizer *s = symbolizer_of(getpid());
	char buf[256] = "", want[256];

	snprintf(want, sizeof(want), "calls_header_helper (test_symbolize.c:%d)",
		 calls_header_helper());
	symbolizer__code(s, (uintptr_t)inlined_ra, buf, sizeof(buf));
	CHECK_STR(buf, want);
	snprintf(want, sizeof(want), "calls_same_file_helper (test_symbolize.c:%d)",
		 calls_same_file_helper());
	symbolizer__code(s, (uintptr_t)inlined_ra, buf, sizeof(buf));
	CHECK_STR(buf, want);
	symbolizer__free(s);
}

TEST(cxx_names_demangled_others_kept)
{
	char buf[128], small[12], big[3000];
	const char *c = "GOMP_barrier", *bad = "_Zx1y";

	CHECK_STR(demangle("_Z4stepRK6Domaini._omp_fn.0", buf, sizeof(buf)),
		  "step(Domain const&, int) [clone ._omp_fn.0]");
	CHECK_STR(demangle("_ZZNSt8__detail18__waiter_pool_base6_S_forEPKvE3__w", buf, sizeof(buf)),
		  "std::__detail::__waiter_pool_base::_S_for(void const*)::__w");
	/* C, Fortran, not a name at all: as they are, the same pointer */
	CHECK(demangle(c, buf, sizeof(buf)) == c);
	CHECK(demangle(bad, buf, sizeof(buf)) == bad);
	CHECK(demangle(NULL, buf, sizeof(buf)) == NULL);
	CHECK_STR(demangle("main__._omp_fn.0", buf, sizeof(buf)), "main__._omp_fn.0");
	/* cut to the room given */
	CHECK_STR(demangle("_Z4stepRK6Domaini", small, sizeof(small)), "step(Domain");
	/* longer than the demangler is trusted with: kept */
	memset(big, 'A', sizeof(big) - 1);
	big[sizeof(big) - 1] = 0;
	memcpy(big, "_Z4step", 7);
	CHECK(demangle(big, buf, sizeof(buf)) == big);
}
