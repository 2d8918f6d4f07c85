// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* What x86 uprobes do with a probed instruction (lib/x86_insn.h), on the
 * bytes of real prologues. */
#include <string.h>
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

#define RDI (1u << 7)
#define RSI (1u << 6)

/* Plain instructions: their lengths and the registers they write, on
 * encodings the prologues of glibc and libgomp use. */
TEST(plain_instructions_and_the_registers_they_write)
{
	static const struct {
		unsigned char b[12];
		size_t n, len;
		unsigned int writes;
	} cases[] = {
		{{0x8b, 0x47, 0x10}, 3, 3, 1u << 0},		       /* mov 0x10(%rdi),%eax */
		{{0x89, 0xc2}, 2, 2, 1u << 2},			       /* mov %eax,%edx */
		{{0x81, 0xe2, 0x7f, 0x01, 0x00, 0x00}, 6, 6, 1u << 2}, /* and $0x17f,%edx */
		{{0x83, 0xe0, 0x7c}, 3, 3, 1u << 0},		       /* and $0x7c,%eax */
		{{0x48, 0x8b, 0x05, 0xbd, 0x9d, 0x03, 0x00}, 7, 7, 1u << 0}, /* mov rip-rel,%rax */
		{{0x64, 0x48, 0x8b, 0x78, 0x10}, 5, 5, RDI}, /* mov %fs:0x10(%rax),%rdi */
		{{0x48, 0x85, 0xff}, 3, 3, 0},		     /* test %rdi,%rdi */
		{{0x3d, 0xff, 0xff, 0xff, 0x7f}, 5, 5, 0},   /* cmp $0x7fffffff,%eax */
		{{0xbe, 0x01, 0x00, 0x00, 0x00}, 5, 5, RSI}, /* mov $1,%esi */
		{{0x49, 0xb8, 1, 2, 3, 4, 5, 6, 7, 8}, 10, 10, 1u << 8}, /* movabs $..,%r8 */
		{{0x66, 0xc7, 0xc0, 0x01, 0x00}, 5, 5, 1u << 0},	 /* mov $1,%ax */
		{{0x8b, 0x44, 0x24, 0x08}, 4, 4, 1u << 0},		 /* mov 0x8(%rsp),%eax */
		{{0x48, 0x8d, 0x47, 0x08}, 4, 4, 1u << 0},		 /* lea 0x8(%rdi),%rax */
		{{0x80, 0x3d, 1, 2, 3, 4, 0x00}, 7, 7, 0},		 /* cmpb $0,rip-rel */
		{{0x44, 0x0f, 0xb6, 0x47, 0x01}, 5, 5, 1u << 8},	 /* movzbl 1(%rdi),%r8d */
		{{0x66, 0x48, 0x81, 0xc0, 1, 2, 3, 4}, 8, 8, 1u << 0},	 /* REX.W outweighs 0x66 */
		{{0x80, 0x7f, 0x10, 0x00}, 4, 4, 0},			 /* cmpb $0,0x10(%rdi) */
		{{0x48, 0x89, 0x07}, 3, 0, 0},				 /* a store */
		{{0x48, 0x83, 0xec, 0x08}, 4, 0, 0},			 /* sub $8,%rsp */
		{{0x48, 0x89, 0xe5}, 3, 0, 0},				 /* mov %rsp,%rbp */
		{{0xf7, 0xe7}, 2, 0, 0},				 /* mul %edi */
		{{0x48, 0x8d, 0xc0}, 3, 0, 0},				 /* lea of a register */
		{{0x55}, 1, 0, 0},					 /* push: not plain */
		{{0x8b, 0x47}, 2, 0, 0},				 /* cut short */
		{{0xf0, 0xff, 0x07}, 3, 0, 0},				 /* lock incl */
	};
	unsigned int w;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		CHECK_EQ(x86_insn__plain_len(cases[i].b, cases[i].n, &w), cases[i].len);
		if (cases[i].len)
			CHECK_EQ(w, cases[i].writes);
	}
}

/* Probes past the prologue: onto the first emulated instruction after
 * plain ones that leave the entry record's registers alone, with the
 * instruction starts a branch must not land on. */
TEST(a_probe_past_plain_instructions_onto_an_emulated_one)
{
	/* glibc 2.36's pthread_mutex_lock: mov, mov, and, and, jne */
	static const unsigned char lock[] = {0x8b, 0x47, 0x10, 0x89, 0xc2, 0x81, 0xe2,
					     0x7f, 0x01, 0x00, 0x00, 0x83, 0xe0, 0x7c,
					     0x0f, 0x85, 0xac, 0x00, 0x00, 0x00};
	/* pthread_mutex_unlock: mov $1,%esi; jmp */
	static const unsigned char unlock[] = {0xbe, 0x01, 0x00, 0x00, 0x00,
					       0xe9, 0xf6, 0xfe, 0xff, 0xff};
	/* libgomp's GOMP_barrier: endbr64, mov, mov %fs:..,%rdi, test, je */
	static const unsigned char gomp[] = {0xf3, 0x0f, 0x1e, 0xfa, 0x48, 0x8b, 0x05,
					     0xbd, 0x9d, 0x03, 0x00, 0x64, 0x48, 0x8b,
					     0x78, 0x10, 0x48, 0x85, 0xff, 0x74, 0x0b};
	static const unsigned char endbr_jcc[] = {0xf3, 0x0f, 0x1e, 0xfa, 0x74, 0x05};
	static const unsigned char endbr_push[] = {0xf3, 0x0f, 0x1e, 0xfa, 0x55};
	static const unsigned char push[] = {0x55, 0x48, 0x89, 0xe5};
	static const unsigned char ret[] = {0x31, 0xc0, 0xc3};
	/* seven plain instructions, then a jmp: too far */
	static const unsigned char far[] = {0x31, 0xc0, 0x31, 0xc0, 0x31, 0xc0, 0x31, 0xc0,
					    0x31, 0xc0, 0x31, 0xc0, 0x31, 0xc0, 0xeb, 0x00};
	struct x86_entry_skip s;

	x86_insn__entry_skip(lock, sizeof(lock), RDI | RSI, &s);
	CHECK_EQ(s.skip, 14u);
	CHECK(s.checked);
	CHECK_EQ(s.nat, 4);
	CHECK_EQ(s.at[0], 3u);
	CHECK_EQ(s.at[1], 5u);
	CHECK_EQ(s.at[2], 11u);
	CHECK_EQ(s.at[3], 14u);
	x86_insn__entry_skip(lock, 15, RDI | RSI, &s); /* the jne cut short */
	CHECK_EQ(s.skip, 0u);

	x86_insn__entry_skip(unlock, sizeof(unlock), RDI | RSI, &s); /* site: %rsi */
	CHECK_EQ(s.skip, 0u);
	x86_insn__entry_skip(unlock, sizeof(unlock), RDI, &s);
	CHECK_EQ(s.skip, 5u);
	CHECK_EQ(s.nat, 1);

	x86_insn__entry_skip(gomp, sizeof(gomp), 0, &s);
	CHECK_EQ(s.skip, 19u);
	CHECK(s.checked);
	CHECK_EQ(s.nat, 4);
	CHECK_EQ(s.at[0], 4u);
	CHECK_EQ(s.at[3], 19u);
	x86_insn__entry_skip(gomp, sizeof(gomp), RDI, &s);
	CHECK_EQ(s.skip, 0u);
	CHECK_EQ(s.nat, 0);

	x86_insn__entry_skip(endbr_jcc, sizeof(endbr_jcc), RDI, &s);
	CHECK_EQ(s.skip, 4u);
	CHECK(s.checked);
	x86_insn__entry_skip(endbr_push, sizeof(endbr_push), RDI, &s);
	CHECK_EQ(s.skip, 4u);
	CHECK(!s.checked);
	x86_insn__entry_skip(push, sizeof(push), RDI, &s);
	CHECK_EQ(s.skip, 0u);
	x86_insn__entry_skip(ret, sizeof(ret), RDI, &s);
	CHECK_EQ(s.skip, 0u);
	x86_insn__entry_skip(far, sizeof(far), RDI, &s);
	CHECK_EQ(s.skip, 0u);
	x86_insn__entry_skip(far + 2, sizeof(far) - 2, RDI, &s);
	CHECK_EQ(s.skip, 12u);
	CHECK_EQ(x86_insn__arg_reg(1), RDI);
	CHECK_EQ(x86_insn__arg_reg(6), 1u << 9);
	CHECK_EQ(x86_insn__arg_reg(7), 0u);
}

/* A branch lands on an instruction start, by rel8 or rel32, backward or
 * forward; bytes that are no branch's land nowhere marked. */
TEST(branches_that_land_on_a_prologue)
{
	/* at 0x1000: mov $1,%eax; sub $1,%eax (0x1005); jne 0x1005; ret;
	 * then call 0x1008 (at 0x100b) */
	static const unsigned char code[] = {0xb8, 0x01, 0x00, 0x00, 0x00, 0x83, 0xe8, 0x01,
					     0x75, 0xfb, 0xc3, 0xe8, 0xf8, 0xff, 0xff, 0xff};
	unsigned char bits[2] = {0}, some[1] = {0};

	x86_insn__mark_landings(code, sizeof(code), 0x1000, 0x1000, 0x1010, bits);
	CHECK(bits[0] & 1u << 5);    /* the loop's head */
	CHECK(bits[1] & 1u);	     /* the call's target, 0x1008 */
	CHECK(!(bits[1] & 1u << 2)); /* the ret */
	CHECK(!(bits[0] & 1u << 1)); /* inside the mov */
	/* without the call, its target is no landing; outside [lo, hi) none is marked */
	memset(bits, 0, sizeof(bits));
	x86_insn__mark_landings(code, 10, 0x1000, 0x1000, 0x1010, bits);
	CHECK(!(bits[1] & 1u << 0));
	CHECK(bits[0] & 1u << 5);
	x86_insn__mark_landings(code, sizeof(code), 0x1000, 0x1006, 0x100e, some);
	CHECK_EQ(some[0], 1u << 2); /* 0x1008 only */
}
