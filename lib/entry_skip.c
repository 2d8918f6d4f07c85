// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Where in an ELF file a function's entry probe goes (lib/entry_skip.h). */
#include <elf.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "lib/entry_skip.h"
#include "lib/x86_insn.h"
#include "sbt/events.h"

#if defined(__x86_64__)
/* Where the direct branches of one file land (x86_insn__mark_landings()):
 * a bit per address of the span of its executable segments, [lo, hi).
 * Built once per file, kept for the next function probed in it: a program
 * of many OpenMP regions has a body probed per region. */
struct landings {
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime, ctime;
	Elf64_Phdr *ph; /* its program headers, n of them */
	int n;
	uint64_t lo, hi;
	unsigned char *bits;
};

#define LANDINGS_CACHED 8
/* Code spans past this (512 MiB, a 64 MiB bitmap) are not marked: their
 * functions stay on their first instruction. */
#define LANDINGS_SPAN_MAX (1ULL << 29)
static struct landings cache[LANDINGS_CACHED];
static int cache_next; /* the entry replaced next */
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;

static int same_time(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec == b->tv_sec && a->tv_nsec == b->tv_nsec;
}

static int same_file(const struct landings *l, const struct stat *st)
{
	return l->bits && l->dev == st->st_dev && l->ino == st->st_ino && l->size == st->st_size &&
	       same_time(&l->mtime, &st->st_mtim) && same_time(&l->ctime, &st->st_ctim);
}

/* The x86-64 ELF file at fd's program headers (malloc'd, *n of them), all
 * within its size; NULL if it is no such file. */
static Elf64_Phdr *phdrs(int fd, uint64_t size, int *n)
{
	Elf64_Ehdr eh;
	Elf64_Phdr *ph;
	size_t len;

	if (pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_machine != EM_X86_64 || eh.e_phentsize != sizeof(*ph) || eh.e_phoff > size ||
	    eh.e_phnum > (size - eh.e_phoff) / sizeof(*ph))
		return NULL;
	len = (size_t)eh.e_phnum * sizeof(*ph);
	ph = malloc(len ? len : 1);
	if (ph && pread(fd, ph, len, (off_t)eh.e_phoff) != (ssize_t)len) {
		free(ph);
		return NULL;
	}
	*n = eh.e_phnum;
	return ph;
}

/* A loadable code segment wholly within the file's size. */
static int is_code(const Elf64_Phdr *ph, uint64_t size)
{
	return ph->p_type == PT_LOAD && (ph->p_flags & PF_X) && ph->p_filesz &&
	       ph->p_offset <= size && ph->p_filesz <= size - ph->p_offset &&
	       ph->p_vaddr <= UINT64_MAX - ph->p_filesz;
}

/* Segment ph's code, read (not mapped: a file truncated under us must not
 * raise SIGBUS), marked into l. */
static int mark_segment(struct landings *l, int fd, const Elf64_Phdr *ph)
{
	unsigned char *code = malloc(ph->p_filesz);

	if (!code || pread(fd, code, ph->p_filesz, (off_t)ph->p_offset) != (ssize_t)ph->p_filesz) {
		free(code);
		return -1;
	}
	x86_insn__mark_landings(code, ph->p_filesz, ph->p_vaddr, l->lo, l->hi, l->bits);
	free(code);
	return 0;
}

/* l's program headers, span and bits from the file at fd; -1 if it has no
 * code, or too much. */
static int build(struct landings *l, int fd, uint64_t size)
{
	const Elf64_Phdr *ph;
	int i, err = 0;

	ph = l->ph = phdrs(fd, size, &l->n);
	if (!ph)
		return -1;
	l->lo = UINT64_MAX;
	l->hi = 0;
	for (i = 0; i < l->n; i++)
		if (is_code(&ph[i], size)) {
			l->lo = ph[i].p_vaddr < l->lo ? ph[i].p_vaddr : l->lo;
			if (ph[i].p_vaddr + ph[i].p_filesz > l->hi)
				l->hi = ph[i].p_vaddr + ph[i].p_filesz;
		}
	if (l->lo >= l->hi || l->hi - l->lo > LANDINGS_SPAN_MAX ||
	    !(l->bits = calloc((l->hi - l->lo) / 8 + 1, 1)))
		err = -1;
	for (i = 0; !err && i < l->n; i++)
		if (is_code(&ph[i], size))
			err = mark_segment(l, fd, &ph[i]);
	return err;
}

static void drop(struct landings *l)
{
	free(l->bits);
	free(l->ph);
	memset(l, 0, sizeof(*l));
}

/* The landings of the file at fd, built if not cached; NULL if it cannot
 * tell. Called with cache_lock held. */
static const struct landings *landings_of(int fd, const struct stat *st)
{
	struct landings *l;
	int i;

	for (i = 0; i < LANDINGS_CACHED; i++)
		if (same_file(&cache[i], st))
			return &cache[i];
	l = &cache[cache_next];
	drop(l);
	if (build(l, fd, (uint64_t)st->st_size)) {
		drop(l);
		return NULL;
	}
	l->dev = st->st_dev;
	l->ino = st->st_ino;
	l->size = st->st_size;
	l->mtime = st->st_mtim;
	l->ctime = st->st_ctim;
	cache_next = (cache_next + 1) % LANDINGS_CACHED;
	return l;
}

/* The address of file offset off of l's file, by the code segment holding
 * it. */
static int vaddr_of(const struct landings *l, uint64_t off, uint64_t *va)
{
	int i;

	for (i = 0; i < l->n; i++)
		if (is_code(&l->ph[i], (uint64_t)l->size) && off >= l->ph[i].p_offset &&
		    off - l->ph[i].p_offset < l->ph[i].p_filesz) {
			*va = off - l->ph[i].p_offset + l->ph[i].p_vaddr;
			return 0;
		}
	return -1;
}

/* Whether a direct branch anywhere in the code of the ELF file at fd lands
 * on one of the instructions s names past the function at file offset fn;
 * 1 when it cannot tell. */
static int branch_lands(int fd, uint64_t fn, const struct x86_entry_skip *s)
{
	const struct landings *l;
	struct stat st;
	uint64_t va, t;
	int k, lands;

	if (fstat(fd, &st))
		return 1;
	pthread_mutex_lock(&cache_lock);
	l = landings_of(fd, &st);
	lands = !l || vaddr_of(l, fn, &va);
	for (k = 0; !lands && k < s->nat; k++) {
		t = va + s->at[k];
		lands = t < l->lo || t >= l->hi ||
			(l->bits[(t - l->lo) / 8] >> ((t - l->lo) % 8)) & 1;
	}
	pthread_mutex_unlock(&cache_lock);
	return lands;
}

unsigned int entry_skip__in_file(int fd, uint64_t offset, uint64_t span, unsigned int keep)
{
	const char *env = getenv("SBT_ENTRY_SKIP");
	unsigned char insn[X86_ENDBR64_LEN + (X86_SKIP_MAX_PLAIN + 1) * 15];
	struct x86_entry_skip s;
	ssize_t n;

	if (env && !strcmp(env, "0"))
		return 0;
	n = pread(fd, insn, sizeof(insn), (off_t)offset);
	if (n <= 0)
		return 0;
	/* nothing past the function's end: it may fall through into the next */
	if (span && (uint64_t)n > span)
		n = (ssize_t)span;
	x86_insn__entry_skip(insn, (size_t)n, keep, &s);
	if (s.checked && (!span || (env && !strcmp(env, "endbr")) || s.skip > SBT_ENTRY_SKIP_MAX ||
			  branch_lands(fd, offset, &s)))
		return 0;
	return s.skip;
}
#else
unsigned int entry_skip__in_file(int fd, uint64_t offset, uint64_t span, unsigned int keep)
{
	(void)fd, (void)offset, (void)span, (void)keep;
	return 0;
}
#endif
