/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Addresses of a live process to names (libdw): call sites to
 * "function (file:line)" when debug info exists, "function+0xoff" otherwise;
 * data addresses to the global variable holding them. */
#ifndef SBT_SYMBOLIZE_H
#define SBT_SYMBOLIZE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct symbolizer;

/* Load now what libdw loads the first time a file has no debug info of
 * its own (its debuginfod client, with libcurl and the TLS libraries):
 * some milliseconds of the tracer's CPU, better spent before the traced
 * program runs than in the middle of it. */
void symbolizer__warm(void);
/* NULL when the process cannot be read (it exited): callers fall back to
 * hexadecimal addresses. */
struct symbolizer *symbolizer__new(pid_t pid);
void symbolizer__free(struct symbolizer *s);
/* Name from what was read so far only: an address in no module known is
 * not looked for in the process's maps again (they are a later program's,
 * or a later state's, whose symbolizer names them: user/resolve/sym_timeline.h).
 * s may be NULL. */
void symbolizer__freeze(struct symbolizer *s);
/* Name the call site whose return address is ra. Always fills buf. */
void symbolizer__code(struct symbolizer *s, uint64_t ra, char *buf, size_t n);
/* Name the function starting at addr (its first line). Always fills buf. */
void symbolizer__function(struct symbolizer *s, uint64_t addr, char *buf, size_t n);
/* Name the variable at addr; -ENOENT (buf untouched) if there is none. */
int symbolizer__data(struct symbolizer *s, uint64_t addr, char *buf, size_t n);

#endif
