// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "lib/array.h"
#include "lib/proc.h"
#include "user/resolve/demangle.h"
#include "user/resolve/symbolize.h"

/* Room for a demangled C++ name: the callers' buffers hold less. */
#define SYMBOL_NAME_MAX 512

/* Address ranges of one module's compilation units, for line lookups
 * libdwfl cannot do itself (see cu_line()). */
struct cu_range {
	Dwarf_Addr lo, hi; /* file addresses, [lo, hi) */
	Dwarf_Off die;	   /* the unit's DIE */
};

struct module_cus {
	Dwfl_Module *mod;
	Dwarf *dw;
	Dwarf_Addr bias;
	struct cu_range *r;
	size_t n, cap;
};

struct symbolizer {
	Dwfl *dwfl;
	pid_t pid;
	struct mapped_file *files; /* as the process mapped them when last read */
	int nfiles;
	struct module_cus *cus; /* one per module asked about */
	size_t ncus;
	int reported; /* libdwfl has read the process's modules once */
	int frozen;   /* its maps are not read again (symbolizer__freeze()) */
};

/* Separate debug files only from the system's directory: by default
 * libdwfl also looks beside the binary, in a directory its owner controls
 * (a FIFO there would hang us, a file truncated under libdwfl's mapping
 * would kill us: lib/infile.h). */
static char *debuginfo_path = "/usr/lib/debug";

/* The symbolizer whose files the callback below opens. libdwfl calls it
 * without a context of ours; symbolizers are used from one thread. */
static const struct symbolizer *opening;

/* The file the process maps by that name, opened as lib/proc.h says (the
 * name is our view of a file that may be in another mount namespace or
 * under a chroot; the process may have exited since). -1 when it cannot be
 * had. */
static int open_module_file(const struct symbolizer *s, const char *name)
{
	int i, fd = -1;

	for (i = 0; i < s->nfiles && fd < 0; i++)
		if (!strcmp(s->files[i].path, name))
			fd = proc__open_mapped(&s->files[i]);
	return fd < 0 ? -1 : fd;
}

/* A module's file as the process sees it, read (ELF_C_READ), never mapped:
 * lib/infile.h. The vDSO and other unnamed modules: libdwfl's own way. */
static int find_elf_of_process(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr base,
			       char **file_name, Elf **elfp)
{
	int fd;

	if (!name || name[0] != '/' || !opening)
		return dwfl_linux_proc_find_elf(mod, userdata, name, base, file_name, elfp);
	fd = open_module_file(opening, name);
	if (fd < 0)
		return -1;
	*elfp = elf_begin(fd, ELF_C_READ, NULL);
	*file_name = strdup(name);
	if (!*elfp || !*file_name) {
		elf_end(*elfp);
		*elfp = NULL;
		free(*file_name);
		*file_name = NULL;
		close(fd);
		return -1;
	}
	return fd;
}

static const Dwfl_Callbacks proc_callbacks = {
	.find_elf = find_elf_of_process,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.debuginfo_path = &debuginfo_path,
};

/* Files of the last read that the new one (files, n of them) lacks, kept
 * at its end: a process exiting or gone maps nothing, and modules libdwfl
 * still holds open their files lazily, by these entries. The new count, or
 * -ENOMEM. */
static int keep_old_files(const struct symbolizer *s, struct mapped_file **files, int n)
{
	struct mapped_file *all = realloc(*files, (n + s->nfiles) * sizeof(*all));
	int i, j, total = n;

	if (!all)
		return -ENOMEM;
	*files = all;
	for (i = 0; i < s->nfiles; i++) {
		for (j = 0; j < n && strcmp(all[j].path, s->files[i].path); j++)
			;
		if (j == n)
			all[total++] = s->files[i];
	}
	return total;
}

/* (Re)read the process's modules. A re-read adds to what was read before
 * (dwfl_report_begin_add), never takes away: one that finds the process
 * exiting (no maps) or gone must not forget the names it had. -ESRCH when
 * the process maps no file (exiting, a zombie) or is gone. */
static int report(struct symbolizer *s)
{
	struct mapped_file *files = NULL;
	int n = proc__mapped_files(s->pid, &files), rc;

	if (n > 0)
		n = keep_old_files(s, &files, n);
	if (n <= 0) {
		free(files);
		return n < 0 ? n : -ESRCH;
	}
	free(s->files);
	s->files = files;
	s->nfiles = n;
	opening = s;
	if (s->reported)
		dwfl_report_begin_add(s->dwfl);
	else
		dwfl_report_begin(s->dwfl);
	rc = dwfl_linux_proc_report(s->dwfl, s->pid) ? -ESRCH : 0;
	/* even after a failed read: the lookup table is rebuilt here */
	if (dwfl_report_end(s->dwfl, NULL, NULL))
		rc = -EINVAL;
	if (!rc)
		s->reported = 1;
	return rc;
}

void symbolizer__warm(void)
{
	Dwfl *d = dwfl_begin(&proc_callbacks);

	if (d) {
		dwfl_get_debuginfod_client(d); /* NULL without debuginfod: nothing to load */
		dwfl_end(d);
	}
}

struct symbolizer *symbolizer__new(pid_t pid)
{
	struct symbolizer *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->pid = pid;
	s->dwfl = dwfl_begin(&proc_callbacks);
	/* report() fails for an exiting process or a zombie too (no file
	 * mapped): as good as gone, a caller then names it from what it noted
	 * while the process was there */
	if (!s->dwfl || report(s)) {
		symbolizer__free(s);
		return NULL;
	}
	return s;
}

void symbolizer__free(struct symbolizer *s)
{
	if (!s)
		return;
	if (s->dwfl)
		dwfl_end(s->dwfl);
	for (size_t i = 0; i < s->ncus; i++)
		free(s->cus[i].r);
	free(s->cus);
	free(s->files);
	if (opening == s)
		opening = NULL;
	free(s);
}

void symbolizer__freeze(struct symbolizer *s)
{
	if (s)
		s->frozen = 1;
}

/* Module of addr; re-reads the process's modules once if a library was
 * loaded after we started (not once frozen: the maps are a later
 * program's). */
static Dwfl_Module *module_of(struct symbolizer *s, uint64_t addr)
{
	Dwfl_Module *mod;

	opening = s; /* libdwfl opens files lazily */
	mod = dwfl_addrmodule(s->dwfl, addr);

	if (!mod && !s->frozen && !report(s))
		mod = dwfl_addrmodule(s->dwfl, addr);
	return mod;
}

static int add_range(struct module_cus *m, Dwarf_Addr lo, Dwarf_Addr hi, Dwarf_Off die)
{
	if (hi <= lo)
		return 0;
	if (array_reserve((void **)&m->r, &m->cap, m->n + 1, sizeof(*m->r)))
		return -ENOMEM;
	m->r[m->n++] = (struct cu_range){lo, hi, die};
	return 0;
}

/* Every unit's address ranges (DW_AT_low_pc/high_pc or DW_AT_ranges, DWARF 4
 * and 5 forms alike: libdw reads them). */
static void read_cu_ranges(struct module_cus *m)
{
	Dwarf_Off off = 0, next;
	Dwarf_Addr base, lo, hi;
	size_t hsize;
	Dwarf_Die cu;
	ptrdiff_t it;

	while (dwarf_nextcu(m->dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		if (dwarf_offdie(m->dw, off + hsize, &cu)) {
			it = 0;
			while ((it = dwarf_ranges(&cu, it, &base, &lo, &hi)) > 0)
				if (add_range(m, lo, hi, off + hsize))
					return;
		}
		off = next;
	}
}

static struct module_cus *module_cus(struct symbolizer *s, Dwfl_Module *mod)
{
	struct module_cus *m;
	size_t i;

	for (i = 0; i < s->ncus; i++)
		if (s->cus[i].mod == mod)
			return &s->cus[i];
	m = realloc(s->cus, (s->ncus + 1) * sizeof(*m));
	if (!m)
		return NULL;
	s->cus = m;
	m = &s->cus[s->ncus++];
	memset(m, 0, sizeof(*m));
	m->mod = mod;
	m->dw = dwfl_module_getdwarf(mod, &m->bias);
	if (m->dw)
		read_cu_ranges(m);
	return m;
}

/* The next unit of m, from *i on, whose ranges hold a (an address less the
 * module's bias), into cu: 1; 0 when none is left. */
static int unit_at(const struct module_cus *m, Dwarf_Addr a, size_t *i, Dwarf_Die *cu)
{
	for (; *i < m->n; (*i)++)
		if (a >= m->r[*i].lo && a < m->r[*i].hi && dwarf_offdie(m->dw, m->r[*i].die, cu))
			return 1;
	return 0;
}

/*
 * The source line of pc when libdwfl finds none: elfutils 0.188 finds a
 * unit by .debug_aranges only, which clang does not emit (DWARF 4 or 5), so
 * look the unit up by its own ranges and ask libdw for its line table.
 */
static const char *cu_line(struct symbolizer *s, Dwfl_Module *mod, uint64_t pc, int *lineno)
{
	struct module_cus *m = module_cus(s, mod);
	Dwarf_Die cu;
	Dwarf_Line *line;
	size_t i;

	if (!m || !m->dw)
		return NULL;
	/* a unit without a line there: the next one holding pc */
	for (i = 0; unit_at(m, pc - m->bias, &i, &cu); i++) {
		line = dwarf_getsrc_die(&cu, pc - m->bias);
		if (line && !dwarf_lineno(line, lineno))
			return dwarf_linesrc(line, NULL, NULL);
	}
	return NULL;
}

/* The compilation unit holding pc (libdwfl's lookup, else by the units'
 * own ranges: cu_line()), with its bias. */
static Dwarf_Die *cu_of(struct symbolizer *s, Dwfl_Module *mod, uint64_t pc, Dwarf_Die *buf,
			Dwarf_Addr *bias)
{
	Dwarf_Die *cu = dwfl_module_addrdie(mod, pc, bias);
	struct module_cus *m;
	size_t i = 0;

	if (cu)
		return cu;
	m = module_cus(s, mod);
	if (!m || !m->dw)
		return NULL;
	*bias = m->bias;
	return unit_at(m, pc - m->bias, &i, buf) ? buf : NULL;
}

#define INLINE_DEPTH_MAX 16

/* The inlined instances holding pc below die (a unit, a function, a
 * block), outermost first, into chain[n..]: their number. A function or
 * block without pc is searched for functions nested in it (gcc nests an
 * OpenMP region's outlined function, main._omp_fn.0, in a block of its
 * parent's). */
static int inline_chain(Dwarf_Die *die, Dwarf_Addr pc, Dwarf_Die *chain, int n, int depth)
{
	Dwarf_Die child;
	int tag, k;

	if (depth > 64 || dwarf_child(die, &child))
		return n;
	do {
		tag = dwarf_tag(&child);
		if (tag != DW_TAG_subprogram && tag != DW_TAG_lexical_block &&
		    tag != DW_TAG_inlined_subroutine)
			continue;
		if (dwarf_haspc(&child, pc) <= 0) {
			if (tag == DW_TAG_inlined_subroutine)
				continue;
			k = inline_chain(&child, pc, chain, n, depth + 1);
			if (k > n)
				return k;
			continue;
		}
		if (tag == DW_TAG_inlined_subroutine && n < INLINE_DEPTH_MAX)
			chain[n++] = child;
		return inline_chain(&child, pc, chain, n, depth + 1);
	} while (!dwarf_siblingof(&child, &child));
	return n;
}

/* Inlined instance in's call position, if it is in the unit's own source
 * file (by name). */
static int call_in_unit(Dwarf_Die *cu, Dwarf_Die *in, const char *unit, const char **file,
			int *lineno)
{
	Dwarf_Attribute at;
	Dwarf_Word f, l;
	Dwarf_Files *files;
	size_t nfiles;
	const char *name;

	if (!dwarf_attr(in, DW_AT_call_file, &at) || dwarf_formudata(&at, &f) ||
	    !dwarf_attr(in, DW_AT_call_line, &at) || dwarf_formudata(&at, &l) || l == 0 ||
	    l > INT32_MAX || dwarf_getsrcfiles(cu, &files, &nfiles) || f >= nfiles)
		return 0;
	name = dwarf_filesrc(files, f, NULL, NULL);
	if (!name || strcmp(basename(name), unit))
		return 0;
	*file = name;
	*lineno = (int)l;
	return 1;
}

/*
 * A call the line table places in code inlined from another file (a
 * header's helper, a C++ template's: std::condition_variable::wait(lock,
 * pred)) is named at the innermost call, going out through the inlined
 * instances, made from the unit's own source file: the program's line,
 * not the library's. A line of the unit's file stays as it is.
 */
static void unit_line(struct symbolizer *s, Dwfl_Module *mod, uint64_t pc, const char **file,
		      int *lineno)
{
	Dwarf_Die buf, *cu, chain[INLINE_DEPTH_MAX];
	const char *name, *unit;
	Dwarf_Addr bias;
	int n;

	cu = cu_of(s, mod, pc, &buf, &bias);
	name = cu ? dwarf_diename(cu) : NULL;
	unit = name ? basename(name) : NULL;
	if (!unit || !strcmp(basename(*file), unit))
		return;
	n = inline_chain(cu, pc - bias, chain, 0, 0);
	while (n-- > 0)
		if (call_in_unit(cu, &chain[n], unit, file, lineno))
			return;
}

/* The code at pc, named as at pc + shift (a call site is named by its
 * return address, the call itself being looked up). */
static void name_code(struct symbolizer *s, uint64_t pc, int shift, char *buf, size_t n)
{
	uint64_t ra = pc + shift;
	Dwfl_Module *mod = s ? module_of(s, pc) : NULL;
	const char *fn = NULL, *file = NULL, *modname;
	char cxx[SYMBOL_NAME_MAX];
	GElf_Off off = 0;
	GElf_Sym sym;
	Dwfl_Line *line;
	Dwarf_Addr base;
	int lineno = 0;

	if (!mod) {
		snprintf(buf, n, "0x%" PRIx64, ra);
		return;
	}
	fn = dwfl_module_addrinfo(mod, pc, &off, &sym, NULL, NULL, NULL);
	fn = demangle(fn, cxx, sizeof(cxx));
	line = dwfl_module_getsrc(mod, pc);
	if (line)
		file = dwfl_lineinfo(line, NULL, &lineno, NULL, NULL, NULL);
	else
		file = cu_line(s, mod, pc, &lineno);
	if (fn && file)
		unit_line(s, mod, pc, &file, &lineno);
	if (fn && file)
		snprintf(buf, n, "%s (%s:%d)", fn, basename(file), lineno);
	else if (fn)
		snprintf(buf, n, "%s+0x%" PRIx64, fn, (uint64_t)off + shift);
	else {
		modname = dwfl_module_info(mod, NULL, &base, NULL, NULL, NULL, NULL, NULL);
		snprintf(buf, n, "%s+0x%" PRIx64, basename(modname ? modname : "?"), ra - base);
	}
}

void symbolizer__code(struct symbolizer *s, uint64_t ra, char *buf, size_t n)
{
	name_code(s, ra ? ra - 1 : 0, ra ? 1 : 0, buf, n);
}

void symbolizer__function(struct symbolizer *s, uint64_t addr, char *buf, size_t n)
{
	name_code(s, addr, 0, buf, n);
}

struct segment_search {
	uint64_t addr;
	Dwfl_Module *found;
};

/* dwfl_getmodules() callback: whether the module's file loads a segment
 * (its memory size: .bss included) over the address searched. */
static int holds_address(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr start,
			 void *arg)
{
	struct segment_search *q = arg;
	GElf_Addr bias;
	Elf *elf = dwfl_module_getelf(mod, &bias);
	GElf_Phdr ph;
	size_t n, i;

	if (!elf || elf_getphdrnum(elf, &n) || q->addr < bias)
		return DWARF_CB_OK;
	for (i = 0; i < n; i++)
		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD &&
		    q->addr - bias >= ph.p_vaddr && q->addr - bias - ph.p_vaddr < ph.p_memsz) {
			q->found = mod;
			return DWARF_CB_ABORT;
		}
	return DWARF_CB_OK;
}

/* The module of data at addr. libdwfl's module ranges end with the last
 * page mapped from the file, and a large .bss goes on in anonymous memory
 * past it (a barrier after a big static array, Fortran's COMMON blocks):
 * there the files' own segments tell. */
static Dwfl_Module *module_of_data(struct symbolizer *s, uint64_t addr)
{
	struct segment_search q = {addr, NULL};
	Dwfl_Module *mod = dwfl_addrmodule(s->dwfl, addr);

	if (mod)
		return mod;
	dwfl_getmodules(s->dwfl, holds_address, &q, 0);
	return q.found;
}

int symbolizer__data(struct symbolizer *s, uint64_t addr, char *buf, size_t n)
{
	Dwfl_Module *mod;
	const char *name;
	char cxx[SYMBOL_NAME_MAX];

	if (!s)
		return -ENOENT;
	opening = s;
	mod = module_of_data(s, addr);
	GElf_Off off = 0;
	GElf_Sym sym;

	if (!mod)
		return -ENOENT;
	name = dwfl_module_addrinfo(mod, addr, &off, &sym, NULL, NULL, NULL);
	if (!name || GELF_ST_TYPE(sym.st_info) != STT_OBJECT)
		return -ENOENT;
	name = demangle(name, cxx, sizeof(cxx));
	if (off)
		snprintf(buf, n, "%s+0x%" PRIx64, name, (uint64_t)off);
	else
		snprintf(buf, n, "%s", name);
	return 0;
}
