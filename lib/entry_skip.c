// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Where in an ELF file a function's entry probe goes (lib/entry_skip.h). */
#include <elf.h>
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
/* Whether a direct branch anywhere in the executable segments of the ELF
 * file at fd lands on one of the instructions s names past the function
 * at file offset fn (x86_insn__branch_lands); 1 when it cannot tell. */
static int branch_lands(int fd, uint64_t fn, const struct x86_entry_skip *s)
{
	uint64_t targets[X86_SKIP_MAX_PLAIN + 1];
	const Elf64_Phdr *ph;
	const Elf64_Ehdr *eh;
	int i, k, lands = 0, found = 0;
	struct stat st;
	void *map;

	if (fstat(fd, &st) || (size_t)st.st_size < sizeof(*eh))
		return 1;
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED)
		return 1;
	eh = map;
	ph = (const Elf64_Phdr *)((const char *)map + eh->e_phoff);
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_phoff + (uint64_t)eh->e_phnum * sizeof(*ph) > (uint64_t)st.st_size) {
		munmap(map, (size_t)st.st_size);
		return 1;
	}
	for (i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_LOAD && fn >= ph[i].p_offset &&
		    fn < ph[i].p_offset + ph[i].p_filesz) {
			for (k = 0; k < s->nat; k++)
				targets[k] = fn + s->at[k] - ph[i].p_offset + ph[i].p_vaddr;
			found = 1;
		}
	for (i = 0; found && i < eh->e_phnum && !lands; i++)
		if (ph[i].p_type == PT_LOAD && (ph[i].p_flags & PF_X) &&
		    ph[i].p_offset + ph[i].p_filesz <= (uint64_t)st.st_size)
			lands = x86_insn__branch_lands((const unsigned char *)map + ph[i].p_offset,
						       ph[i].p_filesz, ph[i].p_vaddr, targets,
						       s->nat);
	munmap(map, (size_t)st.st_size);
	return !found || lands;
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
