/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Where in an ELF file a function's entry probe goes (doc/design.md §5.4,
 * Probes past the prologue): past its first instructions when the kernel
 * would single-step them and emulate the next (x86_insn__entry_skip), and
 * only if no direct branch in the file lands past its first instruction.
 */
#ifndef SBT_ENTRY_SKIP_H
#define SBT_ENTRY_SKIP_H

#include <stdint.h>

/* How many bytes past the function at file offset `offset` of the ELF file
 * open at fd its entry probe goes, the function spanning `span` bytes as
 * far as its symbols tell (0: unknown, as in a stripped file) and keep
 * being the registers its entry record reads (x86_insn__arg_reg() bits);
 * 0: on its first instruction, always off x86. Past plain instructions only
 * with its span known: a function may fall through into the next, which
 * other code may call indirectly. SBT_ENTRY_SKIP=0 in the environment: 0;
 * =endbr: past an endbr64 onto a push, jmp, call or 5-byte nop only
 * (bench/entry_skip.py compares the three). */
unsigned int entry_skip__in_file(int fd, uint64_t offset, uint64_t span, unsigned int keep);

#endif
