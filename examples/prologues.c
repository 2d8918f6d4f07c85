// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Functions whose first instructions a uprobe would single-step, written
 * in assembly so that their bytes are known: sbt-bpf probes a function past
 * its first plain instructions onto one the kernel emulates, unless a
 * branch lands past its first instruction (doc/design.md §5.4). Each
 * worker calls each function CALLS times; pl_loop runs a loop of LOOP
 * turns whose head is its second instruction; pl_falls runs on into
 * pl_next, which the workers also call through a pointer (no branch names
 * it). Prints how many calls each worker made: what the probes must count,
 * neither more nor fewer. */
#define _GNU_SOURCE
#include "workload.h"

/* pl_straight: mov, add, then a jmp the probe goes onto (5 bytes in).
 * pl_cet: endbr64, mov, test, then a je the probe goes onto (8 bytes in).
 * pl_loop: mov, then a sub its loop comes back to: probed at its start.
 * pl_falls: mov, add, then pl_next's push: probed at its start. */
__asm__(".text\n"
	".globl pl_straight\n.type pl_straight,@function\npl_straight:\n"
	"\tmov %edi, %eax\n\tadd $1, %eax\n\tjmp 1f\n1:\tret\n"
	".size pl_straight, . - pl_straight\n"
	".globl pl_cet\n.type pl_cet,@function\npl_cet:\n"
	"\t.byte 0xf3, 0x0f, 0x1e, 0xfa\n\tmov %edi, %eax\n\ttest %eax, %eax\n\tje 2f\n"
	"\tadd $1, %eax\n2:\tret\n"
	".size pl_cet, . - pl_cet\n"
	".globl pl_loop\n.type pl_loop,@function\npl_loop:\n"
	"\tmov %edi, %eax\n3:\tsub $1, %eax\n\tjne 3b\n\tret\n"
	".size pl_loop, . - pl_loop\n"
	".globl pl_falls\n.type pl_falls,@function\npl_falls:\n"
	"\tmov %edi, %eax\n\tadd $1, %eax\n"
	".size pl_falls, . - pl_falls\n"
	".globl pl_next\n.type pl_next,@function\npl_next:\n"
	"\tpush %rbx\n\tpop %rbx\n\tret\n"
	".size pl_next, . - pl_next\n");

int pl_straight(int x);
int pl_cet(int x);
int pl_loop(int turns);
int pl_falls(int x);
int pl_next(int x);

/* pl_next is reached through this only, as a function pointer table would */
static int (*volatile next_fn)(int) = pl_next;

static unsigned long nthreads = 2, ncalls = 1000, nturns = 5;

static void worker_main(unsigned int index)
{
	volatile int sink = 0;
	unsigned long i;

	for (i = 0; i < ncalls; i++) {
		sink += pl_straight((int)i);
		sink += pl_cet((int)i);
		sink += pl_loop((int)nturns);
		sink += pl_falls((int)i);
		sink += next_fn((int)i);
	}
	emit("thread %u tid %d calls %lu\n", index, (int)get_tid(), ncalls);
}

static void usage(FILE *f, const char *prog)
{
	fprintf(f,
		"Usage: %s [-t THREADS] [-c CALLS] [-l LOOP]\n"
		"Each worker calls pl_straight, pl_cet, pl_loop, pl_falls and pl_next\n"
		"CALLS times each; pl_loop loops LOOP times back to its second instruction.\n"
		"Example: %s -t 2 -c 1000 -l 5\n",
		prog, prog);
}

int main(int argc, char **argv)
{
	const struct wl_opt opts[] = {
		OPT_NUM('t', nthreads, 1, 64, 1),
		OPT_NUM('c', ncalls, 0, 100000000, 1),
		OPT_NUM('l', nturns, 1, 1000000, 1),
		{0},
	};
	uint64_t start;

	parse_options(argc, argv, opts, usage);
	start = begin_run(0);
	run_workers(nthreads, worker_main);
	end_run(start);
	return 0;
}
