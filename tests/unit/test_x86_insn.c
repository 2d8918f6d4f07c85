// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* What x86 uprobes do with a probed instruction (lib/x86_insn.h), on the
 * bytes of real prologues. */
#include "lib/x86_insn.h"
#include "unit.h"

/* A probe goes past a function's endbr64 onto a push, a jmp, a call or a
 * 5-byte nop (emulated or called out to), never onto anything else, nor
 * past anything but an endbr64. */
TEST(a_probe_past_endbr64_only_onto_a_cheaper_instruction)
{
	static const struct {
		unsigned char b[9];
		size_t n;
		int skip;
	} cases[] = {
		{{0xf3, 0x0f, 0x1e, 0xfa, 0x41, 0x56}, 6, 4},			/* push %r14 */
		{{0xf3, 0x0f, 0x1e, 0xfa, 0x55, 0x48}, 6, 4},			/* push %rbp */
		{{0xf3, 0x0f, 0x1e, 0xfa, 0xe9, 0x00}, 6, 4},			/* jmp rel32 */
		{{0xf3, 0x0f, 0x1e, 0xfa, 0xeb, 0x10}, 6, 4},			/* jmp rel8 */
		{{0xf3, 0x0f, 0x1e, 0xfa, 0xe8, 0x00}, 6, 4},			/* call */
		{{0xf3, 0x0f, 0x1e, 0xfa, 0x0f, 0x1f, 0x44, 0x00, 0x00}, 9, 4}, /* nop5 */
		{{0xf3, 0x0f, 0x1e, 0xfa, 0x0f, 0x1f, 0x44, 0x00}, 8, 0},	/* nop5 cut short */
		{{0xf3, 0x0f, 0x1e, 0xfa, 0x48, 0x8b}, 6, 0}, /* mov: single-stepped */
		{{0xf3, 0x0f, 0x1e, 0xfa, 0x31, 0xc0}, 6, 0}, /* xor */
		{{0xf3, 0x0f, 0x1e, 0xfa, 0x41, 0x89}, 6, 0}, /* mov with REX.B */
		{{0xf3, 0x0f, 0x1e, 0xfa, 0x74, 0x05}, 6, 0}, /* jcc: a loop's head */
		{{0xf3, 0x0f, 0x1e, 0xfb, 0x55, 0x48}, 6, 0}, /* endbr32 */
		{{0x55, 0x48, 0x89, 0xe5, 0x41, 0x56}, 6, 0}, /* no endbr64 */
		{{0xf3, 0x0f, 0x1e, 0xfa, 0x55}, 5, 4},	      /* push, 1 byte */
		{{0xf3, 0x0f, 0x1e, 0xfa}, 4, 0},	      /* endbr64 alone */
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		CHECK_EQ(x86_insn__endbr_skip(cases[i].b, cases[i].n), cases[i].skip);
}

TEST(instruction_classes)
{
	static const unsigned char push[] = {0x41, 0x57}, call[] = {0xe8, 0, 0, 0, 0},
				   jne[] = {0x0f, 0x85, 0, 0, 0, 0}, mov[] = {0x48, 0x89, 0xf8},
				   nop5[] = {0x0f, 0x1f, 0x44, 0x00, 0x00},
				   endbr[] = {0xf3, 0x0f, 0x1e, 0xfa};

	CHECK(x86_insn__is_emulated(push, sizeof(push)));
	CHECK(x86_insn__is_emulated(call, sizeof(call)));
	CHECK(x86_insn__is_emulated(jne, sizeof(jne)));
	CHECK(!x86_insn__is_emulated(mov, sizeof(mov)));
	CHECK(!x86_insn__is_emulated(endbr, sizeof(endbr)));
	CHECK(x86_insn__is_nop5(nop5, sizeof(nop5)));
	CHECK(!x86_insn__is_nop5(nop5, 4));
	CHECK(x86_insn__is_endbr64(endbr, sizeof(endbr)));
	CHECK(!x86_insn__is_endbr64(endbr, 3));
}
