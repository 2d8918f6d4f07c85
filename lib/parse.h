/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Strict parsing of command-line numbers: the whole string must be a number in
 * range, or the call fails with -EINVAL / -ERANGE and leaves *out untouched. */
#ifndef SBT_PARSE_H
#define SBT_PARSE_H

#include <stdint.h>

int parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);
int parse_int(const char *s, int min, int max, int *out);
/* "0x" and hex digits only ("0x401136"). */
int parse_hex_u64(const char *s, uint64_t *out);
/* Seconds with an optional fraction ("1", "0.25"), returned in nanoseconds. */
int parse_seconds_ns(const char *s, uint64_t max_ns, uint64_t *out);
/* A plain decimal ("2", "1.5"; no sign, exponent, hex, inf or nan) in
 * [min, max]. */
int parse_double(const char *s, double min, double max, double *out);
/* Sizes with an optional K/M/G suffix (powers of 1024). */
int parse_size(const char *s, uint64_t min, uint64_t max, uint64_t *out);

#endif
