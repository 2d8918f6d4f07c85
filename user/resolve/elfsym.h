/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Function symbols of one ELF file (libelf): .symtab and .dynsym, with
 * version suffixes stripped, so that `pthread_barrier_wait@@GLIBC_2.34` and
 * `pthread_barrier_wait@GLIBC_2.2.5` are both found by their plain name
 * (libbpf 1.1 refuses to choose between them). Addresses are converted to
 * file offsets, which is what a uprobe attaches to.
 */
#ifndef SBT_ELFSYM_H
#define SBT_ELFSYM_H

#include <stdint.h>

#define ELFSYM_BUILD_ID_MAX 32

struct elfsym;

struct mapped_file;

/* Open path and load its symbols. NULL and a negative errno in *err when
 * the file cannot be read, is no regular file or is not ELF. The file is
 * read, never mapped (lib/infile.h). */
struct elfsym *elfsym__open(const char *path, int *err);
/* The same for a file a process maps (lib/proc.h: proc__open_mapped). */
struct elfsym *elfsym__open_mapped(const struct mapped_file *f, int *err);
/* The same from an open file, which stays open. */
struct elfsym *elfsym__from_fd(int fd, int *err);
void elfsym__close(struct elfsym *es);

/* File offsets of the distinct definitions of function `name` (all its
 * versions), at most max. Returns how many were found. A name "0xADDR" is
 * a code address of the file (nm, objdump): its one offset. A C++ name
 * ("Domain::advance", "Domain::advance(int, int)") is matched demangled:
 * without a parameter list, every overload. */
int elfsym__find(const struct elfsym *es, const char *name, uint64_t *offsets, int max);

/* Call fn(ctx, name, offset) for each defined function (a name with several
 * versions once per version), until fn returns non-zero: that value is
 * returned (0 when every function was seen). */
int elfsym__each_function(const struct elfsym *es,
			  int (*fn)(void *ctx, const char *name, uint64_t offset), void *ctx);

/* The bytes from offset to the first defined function after it (the span
 * of the one at offset, as far as the symbols tell); 0 if none follows. */
uint64_t elfsym__function_span(const struct elfsym *es, uint64_t offset);

/* Whether the file imports `name` (an undefined dynamic symbol): the file
 * calls the function through the dynamic linker. */
int elfsym__imports(const struct elfsym *es, const char *name);

/* A defined variable of 1 to 8 bytes named name (the first of several):
 * its link-time address and size. 0, or -ENOENT. */
int elfsym__object(const struct elfsym *es, const char *name, uint64_t *vaddr, uint64_t *size);
/* The first loadable segment's address, page-aligned: where the file's
 * mapping at offset 0 lies before relocation (a PIE's 0). */
uint64_t elfsym__load_vaddr(const struct elfsym *es);

/* The file's GNU build-id into buf (ELFSYM_BUILD_ID_MAX bytes); returns its
 * length, 0 when the file has none. */
int elfsym__build_id(const struct elfsym *es, unsigned char *buf);

#endif
