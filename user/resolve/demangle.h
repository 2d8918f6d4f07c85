/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* C++ names as their programmers read them: "_Z4stepRK6Domaini._omp_fn.0"
 * is "step(Domain const&, int) [clone ._omp_fn.0]". */
#ifndef SBT_DEMANGLE_H
#define SBT_DEMANGLE_H

#include <stddef.h>

/* sym demangled into buf (n bytes, truncated if need be) and buf returned;
 * sym itself when it is not a C++ name (a C or Fortran one), does not
 * demangle, or is longer than the demangler is trusted with. */
const char *demangle(const char *sym, char *buf, size_t n);

#endif
