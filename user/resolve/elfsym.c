// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "lib/array.h"
#include "lib/infile.h"
#include "lib/parse.h"
#include "lib/proc.h"
#include "user/resolve/demangle.h"
#include "user/resolve/elfsym.h"

struct sym {
	char *name;	 /* without @version */
	uint64_t offset; /* file offset; 0 for an undefined symbol */
	int defined;
};

#define MAX_EXEC_SEGMENTS 8

/* An executable loadable segment: where code addresses lie in the file. */
struct segment {
	uint64_t vaddr, size, offset;
};

/* A defined data object (a global or static variable). */
struct obj {
	char *name;
	uint64_t vaddr, size;
};

struct elfsym {
	struct sym *syms;
	size_t n, cap;
	struct obj *objs;
	size_t nobjs, cap_objs;
	uint64_t load_vaddr; /* the first loadable segment's, page-aligned */
	int have_load;
	struct segment seg[MAX_EXEC_SEGMENTS];
	int nseg;
	unsigned char build_id[ELFSYM_BUILD_ID_MAX];
	int build_id_len;
};

static int add_sym(struct elfsym *es, const char *name, uint64_t offset, int defined)
{
	const char *at = strchr(name, '@');
	size_t len = at ? (size_t)(at - name) : strlen(name);
	struct sym *s;

	if (es->n == es->cap) {
		size_t cap = es->cap ? es->cap * 2 : 256;

		s = realloc(es->syms, cap * sizeof(*s));
		if (!s)
			return -ENOMEM;
		es->syms = s;
		es->cap = cap;
	}
	s = &es->syms[es->n];
	s->name = strndup(name, len);
	if (!s->name)
		return -ENOMEM;
	s->offset = offset;
	s->defined = defined;
	es->n++;
	return 0;
}

/* Virtual address to file offset, through the executable loadable segment
 * holding it (load_segments). */
static int vaddr_to_offset(const struct elfsym *es, uint64_t vaddr, uint64_t *off)
{
	int i;

	for (i = 0; i < es->nseg; i++)
		if (vaddr >= es->seg[i].vaddr && vaddr - es->seg[i].vaddr < es->seg[i].size) {
			*off = vaddr - es->seg[i].vaddr + es->seg[i].offset;
			return 0;
		}
	return -ENOENT;
}

/* A defined variable of a size a loop bound has (1 to 8 bytes). */
static int add_obj(struct elfsym *es, const char *name, const GElf_Sym *sym)
{
	struct obj *o;

	if (GELF_ST_TYPE(sym->st_info) != STT_OBJECT || sym->st_shndx == SHN_UNDEF ||
	    !sym->st_size || sym->st_size > 8 || !*name)
		return 0;
	if (array_reserve((void **)&es->objs, &es->cap_objs, es->nobjs + 1, sizeof(*es->objs)))
		return -ENOMEM;
	o = &es->objs[es->nobjs];
	o->name = strdup(name);
	if (!o->name)
		return -ENOMEM;
	o->vaddr = sym->st_value;
	o->size = sym->st_size;
	es->nobjs++;
	return 0;
}

/* Defined functions (not IFUNC resolvers: probing one would trace the
 * resolver, not the function) and undefined (imported) symbols. */
static int func_or_import(const GElf_Sym *sym)
{
	return GELF_ST_TYPE(sym->st_info) == STT_FUNC || sym->st_shndx == SHN_UNDEF;
}

static int load_table(struct elfsym *es, Elf *elf, Elf_Scn *scn, GElf_Shdr *sh)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t i, n;

	if (!data || !sh->sh_entsize)
		return 0;
	n = sh->sh_size / sh->sh_entsize;
	for (i = 0; i < n; i++) {
		GElf_Sym sym;
		const char *name;
		uint64_t off = 0;
		int defined, err;

		if (!gelf_getsym(data, i, &sym))
			continue;
		name = elf_strptr(elf, sh->sh_link, sym.st_name);
		if (name && (err = add_obj(es, name, &sym)))
			return err;
		if (!func_or_import(&sym))
			continue;
		/* a name that is all version ("@@GLIBC_2.2.5") names nothing */
		if (!name || !*name || *name == '@')
			continue;
		defined = sym.st_shndx != SHN_UNDEF && sym.st_value;
		if (defined && vaddr_to_offset(es, sym.st_value, &off))
			continue;
		err = add_sym(es, name, off, defined);
		if (err)
			return err;
	}
	return 0;
}

/* The GNU build-id note, if the file has one. */
static void load_build_id(struct elfsym *es, Elf_Scn *scn)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t off = 0, name_off, desc_off;
	GElf_Nhdr nh;

	while (data && (off = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
		if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 ||
		    memcmp((char *)data->d_buf + name_off, "GNU", 4) || !nh.n_descsz)
			continue;
		es->build_id_len =
			nh.n_descsz < ELFSYM_BUILD_ID_MAX ? (int)nh.n_descsz : ELFSYM_BUILD_ID_MAX;
		memcpy(es->build_id, (char *)data->d_buf + desc_off, es->build_id_len);
		return;
	}
}

static void load_segments(struct elfsym *es, Elf *elf)
{
	size_t i, n;

	if (elf_getphdrnum(elf, &n))
		return;
	for (i = 0; i < n && es->nseg < MAX_EXEC_SEGMENTS; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (!es->have_load) {
			es->load_vaddr = ph.p_vaddr & ~(uint64_t)0xfff;
			es->have_load = 1;
		}
		if (ph.p_flags & PF_X)
			es->seg[es->nseg++] =
				(struct segment){ph.p_vaddr, ph.p_filesz, ph.p_offset};
	}
}

static int load(struct elfsym *es, Elf *elf)
{
	Elf_Scn *scn = NULL;
	int err;

	load_segments(es, elf);

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh))
			return -EINVAL;
		if (sh.sh_type == SHT_NOTE && !es->build_id_len)
			load_build_id(es, scn);
		if (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM)
			continue;
		err = load_table(es, elf, scn, &sh);
		if (err)
			return err;
	}
	return 0;
}

struct elfsym *elfsym__from_fd(int fd, int *err)
{
	struct elfsym *es;
	Elf *elf;

	if (elf_version(EV_CURRENT) == EV_NONE) {
		*err = -EINVAL;
		return NULL;
	}
	/* ELF_C_READ: pread, never mmap (lib/infile.h: a file truncated
	 * under a mapping raises SIGBUS in its reader). libelf checks every
	 * section against the file's size. */
	elf = elf_begin(fd, ELF_C_READ, NULL);
	es = calloc(1, sizeof(*es));
	if (!elf || elf_kind(elf) != ELF_K_ELF || !es) {
		*err = es ? -ENOEXEC : -ENOMEM;
		free(es);
		es = NULL;
	} else {
		*err = load(es, elf);
		if (*err) {
			elfsym__close(es);
			es = NULL;
		}
	}
	if (elf)
		elf_end(elf);
	return es;
}

static struct elfsym *from_fd_closing(int fd, int *err)
{
	struct elfsym *es;

	if (fd < 0) {
		*err = fd;
		return NULL;
	}
	es = elfsym__from_fd(fd, err);
	close(fd);
	return es;
}

struct elfsym *elfsym__open(const char *path, int *err)
{
	return from_fd_closing(infile__open(path, 0), err);
}

struct elfsym *elfsym__open_mapped(const struct mapped_file *f, int *err)
{
	return from_fd_closing(proc__open_mapped(f), err);
}

void elfsym__close(struct elfsym *es)
{
	size_t i;

	if (!es)
		return;
	for (i = 0; i < es->n; i++)
		free(es->syms[i].name);
	for (i = 0; i < es->nobjs; i++)
		free(es->objs[i].name);
	free(es->objs);
	free(es->syms);
	free(es);
}

/* "0x401136": a code address as nm and objdump print it (for stripped
 * binaries), to its file offset. 1 and *off, or 0 when name is no address
 * or the address is not in an executable segment. */
static int find_address(const struct elfsym *es, const char *name, uint64_t *off)
{
	uint64_t vaddr;

	return !parse_hex_u64(name, &vaddr) && !vaddr_to_offset(es, vaddr, off);
}

/* A name as a C++ programmer writes it ("ns::Class::method", with or
 * without its parameter list): no C symbol has ':' or '(' in it. */
static int cxx_name(const char *name)
{
	return strstr(name, "::") || strchr(name, '(');
}

/* Whether mangled symbol sym is the C++ function name: its demangled name,
 * or that name without the parameter list (every overload). */
static int cxx_match(const char *sym, const char *name)
{
	char buf[1024];
	const char *d = demangle(sym, buf, sizeof(buf));
	size_t len = strlen(name);

	if (d == sym)
		return 0;
	return !strcmp(d, name) || (!strncmp(d, name, len) && d[len] == '(');
}

int elfsym__find(const struct elfsym *es, const char *name, uint64_t *offsets, int max)
{
	int n = 0, k, dup, cxx = cxx_name(name);
	size_t i;

	if (max > 0 && find_address(es, name, &offsets[0]))
		return 1;

	for (i = 0; i < es->n && n < max; i++) {
		const struct sym *s = &es->syms[i];

		if (!s->defined || (strcmp(s->name, name) && !(cxx && cxx_match(s->name, name))))
			continue;
		for (dup = 0, k = 0; k < n; k++)
			dup |= offsets[k] == s->offset;
		if (!dup)
			offsets[n++] = s->offset;
	}
	return n;
}

int elfsym__each_function(const struct elfsym *es,
			  int (*fn)(void *ctx, const char *name, uint64_t offset), void *ctx)
{
	size_t i;
	int rc;

	for (i = 0; i < es->n; i++)
		if (es->syms[i].defined && (rc = fn(ctx, es->syms[i].name, es->syms[i].offset)))
			return rc;
	return 0;
}

uint64_t elfsym__function_span(const struct elfsym *es, uint64_t offset)
{
	uint64_t next = UINT64_MAX;
	size_t i;

	for (i = 0; i < es->n; i++)
		if (es->syms[i].defined && es->syms[i].offset > offset && es->syms[i].offset < next)
			next = es->syms[i].offset;
	return next == UINT64_MAX ? 0 : next - offset;
}

int elfsym__imports(const struct elfsym *es, const char *name)
{
	size_t i;

	for (i = 0; i < es->n; i++)
		if (!es->syms[i].defined && !strcmp(es->syms[i].name, name))
			return 1;
	return 0;
}

int elfsym__build_id(const struct elfsym *es, unsigned char *buf)
{
	memcpy(buf, es->build_id, es->build_id_len);
	return es->build_id_len;
}

int elfsym__object(const struct elfsym *es, const char *name, uint64_t *vaddr, uint64_t *size)
{
	size_t i;

	for (i = 0; i < es->nobjs; i++)
		if (!strcmp(es->objs[i].name, name)) {
			*vaddr = es->objs[i].vaddr;
			*size = es->objs[i].size;
			return 0;
		}
	return -ENOENT;
}

uint64_t elfsym__load_vaddr(const struct elfsym *es)
{
	return es->load_vaddr;
}
