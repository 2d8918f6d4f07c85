// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Where in an ELF file a function's entry probe goes (lib/entry_skip.h). */
#include <elf.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "lib/entry_skip.h"
#include "lib/x86_insn.h"

/* The cookie carries at most this many bytes (include/sbt/events.h). */
#define SKIP_MAX 127

#if defined(__x86_64__)
/* Where the direct branches of one file land (x86_insn__mark_landings()):
 * a bit per address of the span of its executable segments, [lo, hi).
 * Built once per file, kept for the next function probed in it: a program
 * of many OpenMP regions has a body probed per region. */
struct landings {
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
	uint64_t lo, hi;
	unsigned char *bits;
};

#define LANDINGS_CACHED 8
static struct landings cache[LANDINGS_CACHED];
static int cache_next; /* the entry replaced next */
static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;

static int same_file(const struct landings *l, const struct stat *st)
{
	return l->bits && l->dev == st->st_dev && l->ino == st->st_ino && l->size == st->st_size &&
	       l->mtime.tv_sec == st->st_mtim.tv_sec && l->mtime.tv_nsec == st->st_mtim.tv_nsec;
}

/* The ELF header and program headers of the file mapped at map (size
 * bytes); NULL if it is no 64-bit ELF file. */
static const Elf64_Phdr *phdrs(const void *map, size_t size, int *n)
{
	const Elf64_Ehdr *eh = map;

	if (size < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_phoff + (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr) > size)
		return NULL;
	*n = eh->e_phnum;
	return (const Elf64_Phdr *)((const char *)map + eh->e_phoff);
}

static int is_code(const Elf64_Phdr *ph, size_t size)
{
	return ph->p_type == PT_LOAD && (ph->p_flags & PF_X) &&
	       ph->p_offset + ph->p_filesz <= size && ph->p_filesz;
}

/* l's span and bits from the file mapped at map; -1 if it has no code. */
static int build(struct landings *l, const void *map, size_t size)
{
	const Elf64_Phdr *ph;
	int i, n;

	ph = phdrs(map, size, &n);
	l->lo = UINT64_MAX;
	l->hi = 0;
	for (i = 0; ph && i < n; i++)
		if (is_code(&ph[i], size)) {
			l->lo = ph[i].p_vaddr < l->lo ? ph[i].p_vaddr : l->lo;
			if (ph[i].p_vaddr + ph[i].p_filesz > l->hi)
				l->hi = ph[i].p_vaddr + ph[i].p_filesz;
		}
	if (l->lo >= l->hi || l->hi - l->lo > (1ULL << 34))
		return -1;
	l->bits = calloc((l->hi - l->lo) / 8 + 1, 1);
	if (!l->bits)
		return -1;
	for (i = 0; i < n; i++)
		if (is_code(&ph[i], size))
			x86_insn__mark_landings((const unsigned char *)map + ph[i].p_offset,
						ph[i].p_filesz, ph[i].p_vaddr, l->lo, l->hi,
						l->bits);
	return 0;
}

/* The landings of the file at fd, built if not cached; NULL if it cannot
 * tell. Called with cache_lock held. */
static const struct landings *landings_of(int fd, const struct stat *st)
{
	struct landings *l;
	void *map;
	int i, err;

	for (i = 0; i < LANDINGS_CACHED; i++)
		if (same_file(&cache[i], st))
			return &cache[i];
	map = mmap(NULL, (size_t)st->st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED)
		return NULL;
	l = &cache[cache_next];
	free(l->bits);
	memset(l, 0, sizeof(*l));
	err = build(l, map, (size_t)st->st_size);
	munmap(map, (size_t)st->st_size);
	if (err)
		return NULL;
	l->dev = st->st_dev;
	l->ino = st->st_ino;
	l->size = st->st_size;
	l->mtime = st->st_mtim;
	cache_next = (cache_next + 1) % LANDINGS_CACHED;
	return l;
}

/* The address of file offset off, by the program header mapping it. */
static int vaddr_of(int fd, const struct stat *st, uint64_t off, uint64_t *va)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	int i;

	if (pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64)
		return -1;
	for (i = 0; i < eh.e_phnum; i++) {
		if (pread(fd, &ph, sizeof(ph), (off_t)(eh.e_phoff + (uint64_t)i * sizeof(ph))) !=
		    (ssize_t)sizeof(ph))
			return -1;
		if (ph.p_type == PT_LOAD && off >= ph.p_offset && off < ph.p_offset + ph.p_filesz &&
		    ph.p_offset + ph.p_filesz <= (uint64_t)st->st_size) {
			*va = off - ph.p_offset + ph.p_vaddr;
			return 0;
		}
	}
	return -1;
}

/* Whether a direct branch anywhere in the executable segments of the ELF
 * file at fd lands on one of the instructions s names past the function
 * at file offset fn; 1 when it cannot tell. */
static int branch_lands(int fd, uint64_t fn, const struct x86_entry_skip *s)
{
	const struct landings *l;
	struct stat st;
	uint64_t va, t;
	int k, lands = 1;

	if (fstat(fd, &st) || vaddr_of(fd, &st, fn, &va))
		return 1;
	pthread_mutex_lock(&cache_lock);
	l = landings_of(fd, &st);
	for (k = 0, lands = !l; l && k < s->nat && !lands; k++) {
		t = va + s->at[k];
		lands = t < l->lo || t >= l->hi ||
			(l->bits[(t - l->lo) / 8] >> ((t - l->lo) % 8)) & 1;
	}
	pthread_mutex_unlock(&cache_lock);
	return lands;
}

unsigned int entry_skip__in_file(int fd, uint64_t offset, unsigned int keep)
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
	x86_insn__entry_skip(insn, (size_t)n, keep, &s);
	if (s.checked &&
	    ((env && !strcmp(env, "endbr")) || s.skip > SKIP_MAX || branch_lands(fd, offset, &s)))
		return 0;
	return s.skip;
}
#else
unsigned int entry_skip__in_file(int fd, uint64_t offset, unsigned int keep)
{
	(void)fd, (void)offset, (void)keep;
	return 0;
}
#endif
