// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* What x86 uprobes do with a probed instruction (lib/x86_insn.h). */
#include <string.h>
#include "lib/x86_insn.h"

int x86_insn__is_endbr64(const unsigned char *b, size_t n)
{
	static const unsigned char endbr64[X86_ENDBR64_LEN] = {0xf3, 0x0f, 0x1e, 0xfa};

	return n >= sizeof(endbr64) && !memcmp(b, endbr64, sizeof(endbr64));
}

int x86_insn__is_nop5(const unsigned char *b, size_t n)
{
	static const unsigned char nop5[5] = {0x0f, 0x1f, 0x44, 0x00, 0x00};

	return n >= sizeof(nop5) && !memcmp(b, nop5, sizeof(nop5));
}

static int is_push(const unsigned char *b, size_t n)
{
	return (n >= 1 && b[0] >= 0x50 && b[0] <= 0x57) ||
	       (n >= 2 && b[0] == 0x41 && b[1] >= 0x50 && b[1] <= 0x57);
}

/* call rel32, jmp rel32, jmp rel8 */
static int is_call_or_jmp(const unsigned char *b, size_t n)
{
	return n >= 1 && (b[0] == 0xe8 || b[0] == 0xe9 || b[0] == 0xeb);
}

static int is_jcc(const unsigned char *b, size_t n)
{
	return (n >= 1 && b[0] >= 0x70 && b[0] <= 0x7f) ||
	       (n >= 2 && b[0] == 0x0f && b[1] >= 0x80 && b[1] <= 0x8f);
}

int x86_insn__is_emulated(const unsigned char *b, size_t n)
{
	return is_push(b, n) || is_call_or_jmp(b, n) || is_jcc(b, n);
}

int x86_insn__endbr_skip(const unsigned char *b, size_t n)
{
	const unsigned char *next = b + X86_ENDBR64_LEN;
	size_t left = n > X86_ENDBR64_LEN ? n - X86_ENDBR64_LEN : 0;

	if (!x86_insn__is_endbr64(b, n) || !left)
		return 0;
	return is_push(next, left) || is_call_or_jmp(next, left) || x86_insn__is_nop5(next, left)
		       ? X86_ENDBR64_LEN
		       : 0;
}
