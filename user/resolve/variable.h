/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A program's variable read from its running process (--iterations SYMBOL:
 * the loop's bound, doc/design.md §5.6): a defined variable of 1 to 8 bytes
 * of the main executable, at its link-time address moved by where the
 * process mapped the file.
 */
#ifndef SBT_VARIABLE_H
#define SBT_VARIABLE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct variable {
	pid_t pid;
	uint64_t addr, size;
};

/* Variable name of process pid's executable. 0, or a negative errno with a
 * message in err (-ENOENT: no such variable). */
int variable__find(struct variable *v, pid_t pid, const char *name, char *err, size_t n);
/* Its value now (unsigned, of its size). 0, or a negative errno. */
int variable__read(const struct variable *v, uint64_t *value);

#endif
