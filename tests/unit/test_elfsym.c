// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The ELF symbol reader (user/resolve/elfsym.h) on small ELF files written
 * here byte by byte: versioned names, code addresses, and the names a
 * hostile file can hold. */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>
#include "user/resolve/elfsym.h"
#include "user/resolve/probes.h"
#include "user/resolve/variable.h"
#include "unit.h"

#define VADDR	 0x400000ULL
#define TEXT_OFF 0x200
#define TEXT_LEN 0x100

struct img {
	unsigned char b[4096];
	size_t len;
};

static size_t put(struct img *im, const void *p, size_t n, size_t align)
{
	size_t at = (im->len + align - 1) & ~(align - 1);

	memcpy(im->b + at, p, n);
	im->len = at + n;
	return at;
}

/* A 64-bit executable whose .symtab defines a function per name, the k-th
 * at VADDR + TEXT_OFF + 16 k, in one executable segment (the whole file). */
static void write_elf(const char *path, const char *const *names, int n)
{
	struct img im = {.len = TEXT_OFF + TEXT_LEN};
	Elf64_Ehdr *eh = (Elf64_Ehdr *)im.b;
	Elf64_Phdr ph = {.p_type = PT_LOAD, .p_flags = PF_R | PF_X, .p_vaddr = VADDR};
	Elf64_Shdr sh[5] = {{0}};
	Elf64_Sym syms[16] = {{0}};
	char strtab[512] = "", shstr[] = "\0.text\0.symtab\0.strtab\0.shstrtab";
	size_t slen = 1, sym_at, str_at, shstr_at;
	int k, fd;

	for (k = 0; k < n; k++) {
		syms[k + 1] = (Elf64_Sym){.st_name = slen,
					  .st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC),
					  .st_shndx = 1,
					  .st_value = VADDR + TEXT_OFF + 16 * k,
					  .st_size = 16};
		slen += sprintf(strtab + slen, "%s", names[k]) + 1;
	}
	str_at = put(&im, strtab, slen, 1);
	sym_at = put(&im, syms, (n + 1) * sizeof(*syms), 8);
	shstr_at = put(&im, shstr, sizeof(shstr), 1);
	sh[1] = (Elf64_Shdr){1,
			     SHT_PROGBITS,
			     SHF_ALLOC | SHF_EXECINSTR,
			     VADDR + TEXT_OFF,
			     TEXT_OFF,
			     TEXT_LEN,
			     0,
			     0,
			     16,
			     0};
	sh[2] = (Elf64_Shdr){7, SHT_SYMTAB,   0, 0, sym_at, (n + 1) * sizeof(*syms), 3, 1,
			     8, sizeof(*syms)};
	sh[3] = (Elf64_Shdr){15, SHT_STRTAB, 0, 0, str_at, slen, 0, 0, 1, 0};
	sh[4] = (Elf64_Shdr){23, SHT_STRTAB, 0, 0, shstr_at, sizeof(shstr), 0, 0, 1, 0};
	*eh = (Elf64_Ehdr){.e_ident = {ELFMAG0, ELFMAG1, ELFMAG2, ELFMAG3, ELFCLASS64, ELFDATA2LSB,
				       EV_CURRENT},
			   .e_type = ET_EXEC,
			   .e_machine = EM_X86_64,
			   .e_version = EV_CURRENT,
			   .e_phoff = sizeof(*eh),
			   .e_ehsize = sizeof(*eh),
			   .e_phentsize = sizeof(ph),
			   .e_phnum = 1,
			   .e_shentsize = sizeof(Elf64_Shdr),
			   .e_shnum = 5,
			   .e_shstrndx = 4};
	eh->e_shoff = put(&im, sh, sizeof(sh), 8);
	ph.p_filesz = ph.p_memsz = im.len;
	memcpy(im.b + sizeof(*eh), &ph, sizeof(ph));
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	CHECK(fd >= 0 && write(fd, im.b, im.len) == (ssize_t)im.len);
	close(fd);
}

static struct elfsym *open_with(const char *const *names, int n)
{
	char path[] = "/tmp/sbt-elfsym-XXXXXX";
	int fd = mkstemp(path), err = 0;
	struct elfsym *es;

	CHECK(fd >= 0);
	close(fd);
	write_elf(path, names, n);
	es = elfsym__open(path, &err);
	CHECK(es != NULL);
	CHECK_EQ(err, 0);
	unlink(path);
	return es;
}

struct seen {
	char names[8][64];
	uint64_t offsets[8];
	int n;
};

static int note(void *ctx, const char *name, uint64_t offset)
{
	struct seen *s = ctx;

	if (s->n < 8) {
		snprintf(s->names[s->n], sizeof(s->names[0]), "%s", name);
		s->offsets[s->n] = offset;
	}
	s->n++;
	return 0;
}

TEST(versions_stripped_and_addresses_to_offsets)
{
	static const char *const names[] = {"work@@V2", "work@V1", "main"};
	struct elfsym *es = open_with(names, 3);
	uint64_t offs[4];
	struct seen s = {.n = 0};

	if (!es)
		return;
	CHECK_EQ(elfsym__find(es, "work", offs, 4), 2);
	CHECK_EQ(offs[0], TEXT_OFF);
	CHECK_EQ(offs[1], TEXT_OFF + 16);
	CHECK_EQ(elfsym__find(es, "main", offs, 4), 1);
	CHECK_EQ(offs[0], TEXT_OFF + 32);
	CHECK_EQ(elfsym__find(es, "0x400210", offs, 4), 1);
	CHECK_EQ(offs[0], TEXT_OFF + 16);
	CHECK_EQ(elfsym__find(es, "0x900000", offs, 4), 0); /* no code there */
	elfsym__each_function(es, note, &s);
	CHECK_EQ(s.n, 3);
	CHECK_STR(s.names[0], "work");
	CHECK_STR(s.names[1], "work");
	CHECK_STR(s.names[2], "main");
	/* where each function ends, as far as the symbols tell */
	CHECK_EQ(elfsym__function_span(es, TEXT_OFF), 16);
	CHECK_EQ(elfsym__function_span(es, TEXT_OFF + 20), 12);
	CHECK_EQ(elfsym__function_span(es, TEXT_OFF + 32), 0);
	elfsym__close(es);
}

/* Found by fuzz_elf (tests/fuzz/corpus/elf): a name that is all version
 * ("@@GLIBC_2.2.5", "@V") was kept as a function named "", which
 * elfsym__find("") then found. Such names are skipped. */
TEST(a_name_of_only_a_version_is_no_function)
{
	static const char *const names[] = {"@@GLIBC_2.2.5", "@V", "main"};
	struct elfsym *es = open_with(names, 3);
	uint64_t offs[4];
	struct seen s = {.n = 0};

	if (!es)
		return;
	elfsym__each_function(es, note, &s);
	CHECK_EQ(s.n, 1);
	CHECK_STR(s.names[0], "main");
	CHECK_EQ(elfsym__find(es, "", offs, 4), 0);
	elfsym__close(es);
}

/* C++ functions by the names their programmers write: demangled, with
 * or without the parameter list (without: every overload). */
TEST(cxx_functions_found_by_their_demangled_names)
{
	static const char *const names[] = {"_ZN6Domain7advanceEii", "_ZN6Domain7advanceEd", "main",
					    "_ZN2ns3Bar4waitEv"};
	struct elfsym *es = open_with(names, 4);
	uint64_t offs[4];

	if (!es)
		return;
	CHECK_EQ(elfsym__find(es, "Domain::advance", offs, 4), 2);
	CHECK_EQ(offs[0], TEXT_OFF);
	CHECK_EQ(offs[1], TEXT_OFF + 16);
	CHECK_EQ(elfsym__find(es, "Domain::advance(int, int)", offs, 4), 1);
	CHECK_EQ(offs[0], TEXT_OFF);
	CHECK_EQ(elfsym__find(es, "Domain::advance(double)", offs, 4), 1);
	CHECK_EQ(offs[0], TEXT_OFF + 16);
	CHECK_EQ(elfsym__find(es, "ns::Bar::wait", offs, 4), 1);
	CHECK_EQ(offs[0], TEXT_OFF + 48);
	/* a prefix is no name; a C name is not looked for demangled */
	CHECK_EQ(elfsym__find(es, "Domain::adv", offs, 4), 0);
	CHECK_EQ(elfsym__find(es, "advance", offs, 4), 0);
	CHECK_EQ(elfsym__find(es, "_ZN6Domain7advanceEii", offs, 4), 1);
	elfsym__close(es);
}

static void parses_to(const char *arg, const char *binary, const char *symbol)
{
	struct user_probe up;
	char err[256];

	CHECK_EQ(user_probe__parse(arg, &up, err, sizeof(err)), 0);
	CHECK_STR(up.binary, binary);
	CHECK_STR(up.symbol, symbol);
}

/* BINARY:SYMBOL:KIND where a path may hold ':' and a C++ name "::". */
TEST(probe_arguments_with_cxx_names_and_colons_in_paths)
{
	struct user_probe up;
	char err[256];

	parses_to("./app:step:region", "./app", "step");
	parses_to("/opt/a:b/app:work:barrier", "/opt/a:b/app", "work");
	parses_to("./app:Domain::advance:barrier", "./app", "Domain::advance");
	parses_to("./app:ns::Bar::wait(int):team", "./app", "ns::Bar::wait(int)");
	parses_to("/opt/a:b/app:Foo::bar:barrier", "/opt/a:b/app", "Foo::bar");
	/* fuzz_args (tests/fuzz/corpus/args/probe-cxx-name-and-lone-colon): the
	 * binary ends at the last lone ':', the symbol holds "::" pairs only */
	parses_to("./app:0x401:31::::6:barrier", "./app:0x401", "31::::6");
	CHECK_EQ(user_probe__parse("./app:Foo::barrier", &up, err, sizeof(err)), -EINVAL);
	CHECK_EQ(user_probe__parse("nocolons", &up, err, sizeof(err)), -EINVAL);
	CHECK_EQ(user_probe__parse("./app::barrier", &up, err, sizeof(err)), -EINVAL);
	CHECK_EQ(user_probe__parse(":main:barrier", &up, err, sizeof(err)), -EINVAL);
}

/* Variables of this very test process, read from its memory as
 * --iterations SYMBOL reads a traced program's loop bound: the size each
 * has, its value now, and a name that is no variable. */
volatile unsigned long sbt_test_loop_bound = 1234;
static volatile unsigned int sbt_test_small = 77;

TEST(a_variable_of_a_running_process)
{
	struct variable v;
	char err[256];
	uint64_t x = 0;

	CHECK_EQ(variable__find(&v, getpid(), "sbt_test_loop_bound", err, sizeof(err)), 0);
	CHECK_EQ(v.size, sizeof(sbt_test_loop_bound));
	CHECK_EQ(variable__read(&v, &x), 0);
	CHECK_EQ(x, 1234);
	sbt_test_loop_bound = 99;
	CHECK_EQ(variable__read(&v, &x), 0);
	CHECK_EQ(x, 99);
	CHECK_EQ(variable__find(&v, getpid(), "sbt_test_small", err, sizeof(err)), 0);
	CHECK_EQ(v.size, 4);
	CHECK_EQ(variable__read(&v, &x), 0);
	CHECK_EQ(x, sbt_test_small);
	CHECK_EQ(variable__find(&v, getpid(), "no_such_variable", err, sizeof(err)), -ENOENT);
	CHECK(strstr(err, "no variable 'no_such_variable'") != NULL);
	/* a function is no variable */
	CHECK_EQ(variable__find(&v, getpid(), "main", err, sizeof(err)), -ENOENT);
}
