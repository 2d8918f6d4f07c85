/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* A helper from a header, inlined into its caller (test_symbolize.c): as a
 * library header's or a C++ template's code around a barrier call. */
#ifndef SBT_TEST_INLINE_HELPER_H
#define SBT_TEST_INLINE_HELPER_H

static inline __attribute__((always_inline)) void header_helper(void (*call)(void))
{
	call();
}

#endif
