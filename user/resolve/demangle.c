// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* C++ names demangled by the C++ runtime's own demangler (user/resolve/demangle.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "user/resolve/demangle.h"

/* libstdc++'s demangler; its header (cxxabi.h) is C++. */
char *__cxa_demangle(const char *mangled, char *out, size_t *len, int *status);

/* The names come from the traced program's files, which their owner may
 * have crafted: the demangler's work grows with a name's length and
 * nesting (its recursion is bounded, its time less so), and no real
 * function's mangled name comes near this. Longer ones stay as they are. */
#define DEMANGLE_MAX_IN 2048

const char *demangle(const char *sym, char *buf, size_t n)
{
	char *d;
	int status = -1;

	if (!sym || !n || strncmp(sym, "_Z", 2) || strlen(sym) > DEMANGLE_MAX_IN)
		return sym;
	d = __cxa_demangle(sym, NULL, NULL, &status);
	if (!d || status) {
		free(d);
		return sym;
	}
	snprintf(buf, n, "%s", d);
	free(d);
	return buf;
}
