// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Functions of our own, one per class of first instruction (class_refs.h). */
#include <stdio.h>
#include <unistd.h>
#include "user/resolve/elfsym.h"
#include "user/trace/class_refs.h"

/* Written in assembly: a compiler may begin a function with anything. */
#define CLASS_REF(name, first)                                                                     \
	".globl " #name "\n.type " #name ",@function\n" #name ":\n\t" first "\n\tret\n"            \
	".size " #name ", . - " #name "\n"

/* the single-stepped one begins as a CET function whose next instruction
 * is no push, and then returns: nothing a probe could go onto
 * (x86_insn__entry_skip), the class's usual member, which no kernel
 * emulates yet */
__asm__(".text\n" CLASS_REF(sbt_class_xol, ".byte 0xf3, 0x0f, 0x1e, 0xfa\n\txor %eax, %eax")
		CLASS_REF(sbt_class_emulated, "push %rbp\n\tpop %rbp")
			CLASS_REF(sbt_class_nop5, ".byte 0x0f, 0x1f, 0x44, 0x00, 0x00"));

/* in the order of enum insn_class */
static const char *const names[CLASS_REFS] = {"sbt_class_xol", "sbt_class_emulated",
					      "sbt_class_nop5"};

int class_refs__probes(struct user_probe up[CLASS_REFS])
{
	char exe[SBT_PATH_MAX];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	struct elfsym *es;
	uint64_t off;
	int cls, n = 0, e;

	if (len <= 0)
		return 0;
	exe[len] = '\0';
	es = elfsym__open(exe, &e);
	if (!es)
		return 0;
	for (cls = 0; cls < CLASS_REFS; cls++) {
		if (elfsym__find(es, names[cls], &off, 1) != 1)
			continue;
		snprintf(up[n].binary, sizeof(up[n].binary), "%s", exe);
		snprintf(up[n].symbol, sizeof(up[n].symbol), "%s", names[cls]);
		up[n++].kind = SBT_PK_REGION;
	}
	elfsym__close(es);
	return n;
}
