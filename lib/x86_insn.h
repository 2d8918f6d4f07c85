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

#endif
