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

unsigned int x86_insn__arg_reg(int n)
{
	/* rdi, rsi, rdx, rcx, r8, r9 */
	static const unsigned char regs[] = {7, 6, 2, 1, 8, 9};

	return n >= 1 && n <= 6 ? 1u << regs[n - 1] : 0;
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

/* Instructions a probe may be put past (x86_insn__entry_skip): register
 * moves, loads, arithmetic on registers, compares. How each is encoded: */
enum plain_form {
	P_NONE,	     /* not one */
	P_W_REG,     /* ModRM; writes its reg field */
	P_W_RM,	     /* ModRM; writes its rm field, a register only (no store) */
	P_FLAGS,     /* ModRM; writes the flags only (a compare, a test, a nop) */
	P_W_RAX,     /* no ModRM; writes rax */
	P_FLAGS_RAX, /* no ModRM; compares rax */
	P_W_OPREG,   /* no ModRM; writes the register in the opcode's low bits */
};

/* Immediate after the operands: none, 8 bits, 32 (16 with 0x66), or for
 * mov to a register 64 with REX.W. */
enum imm_size { I_0, I_8, I_Z, I_V };

struct plain_op {
	unsigned char form, imm;
};

/* One-byte opcodes, by form; a group opcode (0x80, 0x81, 0x83, 0xc7,
 * 0xf6, 0xf7) is told apart by its ModRM reg field in plain_group(). */
static const struct {
	const char *ops;
	struct plain_op p;
} ops1[] = {
	/* reg op= r/m: add, or, adc, sbb, and, sub, xor; mov, lea, movsxd */
	{"\x03\x0b\x13\x1b\x23\x2b\x33\x8b\x8d\x63", {P_W_REG, I_0}},
	/* r/m op= reg: the same operations, and mov */
	{"\x01\x09\x11\x19\x21\x29\x31\x89", {P_W_RM, I_0}},
	/* cmp, test */
	{"\x38\x39\x3a\x3b\x84\x85", {P_FLAGS, I_0}},
	/* rax op= imm: add, or, and, sub, xor */
	{"\x05\x0d\x25\x2d\x35", {P_W_RAX, I_Z}},
	/* cmp and test of al, of eax */
	{"\x3c\xa8", {P_FLAGS_RAX, I_8}},
	{"\x3d\xa9", {P_FLAGS_RAX, I_Z}},
	/* groups: arithmetic with an immediate, mov of one, test */
	{"\x80\x83\xf6", {P_W_RM, I_8}},
	{"\x81\xc7\xf7", {P_W_RM, I_Z}},
};

static struct plain_op plain_op1(unsigned char op)
{
	size_t i;

	if (op >= 0xb8 && op <= 0xbf) /* mov $imm, reg */
		return (struct plain_op){P_W_OPREG, I_V};
	for (i = 0; op && i < sizeof(ops1) / sizeof(ops1[0]); i++)
		if (strchr(ops1[i].ops, op))
			return ops1[i].p;
	return (struct plain_op){P_NONE, I_0};
}

/* Two-byte opcodes (0x0f op): movzx, movsx, the multi-byte nop. */
static struct plain_op plain_op2(unsigned char op)
{
	if (op == 0xb6 || op == 0xb7 || op == 0xbe || op == 0xbf)
		return (struct plain_op){P_W_REG, I_0};
	if (op == 0x1f)
		return (struct plain_op){P_FLAGS, I_0};
	return (struct plain_op){P_NONE, I_0};
}

/* A group opcode's operation, by its ModRM reg field: the compares and
 * tests write no register; mov (0xc7) only /0; test (0xf6, 0xf7) only /0
 * (the others, mul and div among them, write rdx:rax). */
static struct plain_op plain_group(unsigned char op, int reg, struct plain_op p)
{
	if (op == 0xc7)
		return reg == 0 ? p : (struct plain_op){P_NONE, I_0};
	if (op == 0xf6 || op == 0xf7)
		return reg == 0 ? (struct plain_op){P_FLAGS, p.imm}
				: (struct plain_op){P_NONE, I_0};
	if (op == 0x80 || op == 0x81 || op == 0x83)
		return reg == 7 ? (struct plain_op){P_FLAGS, p.imm} : p;
	return p;
}

/* The ModRM byte at b and what follows it (SIB, displacement): its length,
 * 0 if cut short. */
static size_t modrm_len(const unsigned char *b, size_t n)
{
	int mod, rm;
	size_t len = 1;

	if (n < 1)
		return 0;
	mod = b[0] >> 6;
	rm = b[0] & 7;
	if (mod != 3 && rm == 4) {
		if (n < 2)
			return 0;
		len++;
		if (mod == 0 && (b[1] & 7) == 5)
			len += 4; /* no base: disp32 */
	}
	if (mod == 1)
		len += 1;
	else if (mod == 2 || (mod == 0 && rm == 5))
		len += 4; /* disp32, or rip-relative */
	return len <= n ? len : 0;
}

static size_t imm_len(enum imm_size imm, int opsize16, int rex_w)
{
	switch (imm) {
	case I_8:
		return 1;
	case I_Z: /* REX.W outweighs 0x66 */
		return opsize16 && !rex_w ? 2 : 4;
	case I_V:
		return rex_w ? 8 : opsize16 ? 2 : 4;
	default:
		return 0;
	}
}

/* The registers an instruction of form p (opcode op, two-byte if two)
 * writes through its ModRM byte modrm, REX prefix rex (0: none); -1 if it
 * is not plain after all (a store; lea of a register, undefined). */
static long modrm_writes(struct plain_op p, unsigned char op, int two, int rex, unsigned char modrm)
{
	int mod = modrm >> 6, reg = ((modrm >> 3) & 7) | (rex & 4 ? 8 : 0);
	int rm = (modrm & 7) | (rex & 1 ? 8 : 0);

	if (p.form == P_W_RM && mod != 3)
		return -1;
	if (p.form == P_W_REG && op == 0x8d && !two && mod == 3)
		return -1;
	if (p.form == P_W_REG)
		return 1L << reg;
	if (p.form != P_W_RM)
		return 0;
	/* a byte register 4-7 with no REX is ah, ch, dh, bh: part of
	 * register 0-3 (0x80 is the only byte-writing form here) */
	if (op == 0x80 && !two && !rex && rm >= 4)
		return 1L << rm | 1L << (rm - 4);
	return 1L << rm;
}

size_t x86_insn__plain_len(const unsigned char *b, size_t n, unsigned int *writes)
{
	size_t i = 0, m = 0, len;
	int opsize16 = 0, rex = 0, two = 0;
	struct plain_op p;
	unsigned char op;
	long w = 0;

	*writes = 0;
	for (; i < n && (b[i] == 0x66 || b[i] == 0x64 || b[i] == 0x65); i++)
		opsize16 |= b[i] == 0x66;
	if (i < n && (b[i] & 0xf0) == 0x40)
		rex = b[i++];
	if (i < n && b[i] == 0x0f) {
		two = 1;
		i++;
	}
	if (i >= n)
		return 0;
	op = b[i++];
	p = two ? plain_op2(op) : plain_op1(op);
	if (p.form == P_W_REG || p.form == P_W_RM || p.form == P_FLAGS) {
		m = modrm_len(b + i, n - i);
		if (m && !two)
			p = plain_group(op, (b[i] >> 3) & 7, p);
		w = m && p.form != P_NONE ? modrm_writes(p, op, two, rex, b[i]) : -1;
	} else if (p.form == P_W_RAX) {
		w = 1L << X86_REG_RAX;
	} else if (p.form == P_W_OPREG) {
		w = 1L << ((op & 7) | (rex & 1 ? 8 : 0));
	}
	len = i + m + imm_len((enum imm_size)p.imm, opsize16, rex & 8);
	if (p.form == P_NONE || w < 0 || len > n || (w & X86_STACK_REGS))
		return 0;
	*writes = (unsigned int)w;
	return len;
}

void x86_insn__entry_skip(const unsigned char *b, size_t n, unsigned int keep,
			  struct x86_entry_skip *s)
{
	size_t off = x86_insn__is_endbr64(b, n) ? X86_ENDBR64_LEN : 0, len;
	unsigned int writes;
	int k;

	memset(s, 0, sizeof(*s));
	if (!off && (x86_insn__is_emulated(b, n) || x86_insn__is_nop5(b, n)))
		return; /* cheap already */
	if (off && x86_insn__endbr_skip(b, n)) {
		s->skip = off;
		return;
	}
	for (k = 0; k <= X86_SKIP_MAX_PLAIN; k++) {
		if (off)
			s->at[s->nat++] = (unsigned int)off;
		if (x86_insn__is_emulated(b + off, n - off) ||
		    x86_insn__is_nop5(b + off, n - off)) {
			s->skip = (unsigned int)off;
			s->checked = 1;
			return;
		}
		len = k < X86_SKIP_MAX_PLAIN ? x86_insn__plain_len(b + off, n - off, &writes) : 0;
		if (!len || (writes & keep))
			break;
		off += len;
	}
	memset(s, 0, sizeof(*s));
}

/* The signed 32-bit little-endian displacement at b. */
static uint64_t rel32(const unsigned char *b)
{
	return (uint64_t)(int64_t)(int32_t)((uint32_t)b[0] | (uint32_t)b[1] << 8 |
					    (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24);
}

/* The target of the direct branch the bytes at b would be (a jmp, jcc or
 * call with a relative displacement), at address at; 0 if none. */
static uint64_t branch_target(const unsigned char *b, size_t n, uint64_t at)
{
	if (n >= 5 && (b[0] == 0xe8 || b[0] == 0xe9))
		return at + 5 + rel32(b + 1);
	if (n >= 6 && b[0] == 0x0f && b[1] >= 0x80 && b[1] <= 0x8f)
		return at + 6 + rel32(b + 2);
	if (n >= 2 && (b[0] == 0xeb || (b[0] >= 0x70 && b[0] <= 0x7f)))
		return at + 2 + (uint64_t)(int64_t)(int8_t)b[1];
	return 0;
}

void x86_insn__mark_landings(const unsigned char *code, size_t len, uint64_t base, uint64_t lo,
			     uint64_t hi, unsigned char *bits)
{
	uint64_t t;
	size_t i;

	for (i = 0; i < len; i++) {
		t = branch_target(code + i, len - i, base + i);
		if (t >= lo && t < hi)
			bits[(t - lo) / 8] |= (unsigned char)(1u << ((t - lo) % 8));
	}
}
