/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What x86 uprobes do with a probed instruction (doc/design.md §5.4): the
 * kernel emulates a push, a call, a jmp and a jcc, turns a 5-byte nop into a
 * call to a trampoline (6.16+), and single-steps anything else out of line,
 * endbr64 included (10x dearer). Pure functions of the instruction's first
 * bytes b (n of them).
 */
#ifndef SBT_X86_INSN_H
#define SBT_X86_INSN_H

#include <stddef.h>
#include <stdint.h>

/* The length of endbr64, x86 CET's landing pad. */
#define X86_ENDBR64_LEN 4

int x86_insn__is_endbr64(const unsigned char *b, size_t n);
int x86_insn__is_nop5(const unsigned char *b, size_t n);
/* A push, call, jmp or jcc (emulated). */
int x86_insn__is_emulated(const unsigned char *b, size_t n);
/* How far past a function's first bytes its probe may go: X86_ENDBR64_LEN
 * past an endbr64 followed by a push, a jmp, a call or a 5-byte nop (the
 * entry's registers and stack are the same there, and no compiler branches
 * back to a prologue's push or a tail jump; a jcc could be a loop's head);
 * else 0. */
int x86_insn__endbr_skip(const unsigned char *b, size_t n);

/* General registers as ModRM and REX number them (bit n of a mask). */
#define X86_REG_RAX 0
#define X86_REG_RSP 4
#define X86_REG_RBP 5
/* The stack and frame pointers: no instruction a probe goes past may
 * write them (a return probe reads the return address at the stack
 * pointer; stack walks follow the frame pointer). */
#define X86_STACK_REGS (1u << X86_REG_RSP | 1u << X86_REG_RBP)

/* The register that carries integer argument n (1-6, the SysV ABI) as a
 * mask bit; 0 for others (on the stack). */
unsigned int x86_insn__arg_reg(int n);

/* The length of the instruction at b if it is "plain": a register move, a
 * load, arithmetic on a register, a compare or a test, with no store, no
 * branch, and no write of the stack or frame pointer; 0 otherwise. *writes
 * gets the registers it writes (the flags aside). */
size_t x86_insn__plain_len(const unsigned char *b, size_t n, unsigned int *writes);

/* How many plain instructions a probe may go past. */
#define X86_SKIP_MAX_PLAIN 6

/* Where a function's entry probe may go instead of its first instruction,
 * so that the kernel emulates the instruction it is on rather than
 * single-stepping it (doc/design.md §5.4, Probes past the prologue). */
struct x86_entry_skip {
	unsigned int skip; /* bytes past the function's start; 0: stay there */
	/* the skip holds only if no branch lands on any of at[]: the
	 * instructions past the first, up to the probed one */
	int checked;
	unsigned int at[X86_SKIP_MAX_PLAIN + 1];
	int nat;
};

/* Where the probe of the function whose first bytes are b (n of them) may
 * go: past its endbr64 onto a push, a jmp, a call or a 5-byte nop
 * (x86_insn__endbr_skip: no check needed); else past [an endbr64 and] up
 * to X86_SKIP_MAX_PLAIN plain instructions that write no register of keep
 * (those the entry record reads) onto a push, call, jmp, jcc or 5-byte
 * nop, `checked`: the caller must know no branch lands past the first
 * instruction, as a loop's would. A function whose first instruction is
 * cheap already stays. */
void x86_insn__entry_skip(const unsigned char *b, size_t n, unsigned int keep,
			  struct x86_entry_skip *s);

/* Marks in bits (bit t - lo for address t, lo <= t < hi) where a direct
 * branch in code (len bytes at address base) lands: any bytes that would
 * decode as a jmp, jcc or call with a relative displacement, wherever they
 * start, so a superset of the real ones (a false one only keeps a probe
 * where it was). Indirect branches (jump tables) are not seen. */
void x86_insn__mark_landings(const unsigned char *code, size_t len, uint64_t base, uint64_t lo,
			     uint64_t hi, unsigned char *bits);

#endif
