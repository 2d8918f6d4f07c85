// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "lib/parse.h"

/* The digits at s, to *v and *end (strtoull accepts leading blanks and a
 * minus sign; we accept neither). *big: more than UINT64_MAX, said by the
 * caller only once the whole string is known to be well-formed ("1e99x" is
 * no number at all, not one out of range). */
static int parse_digits(const char *s, char **end, uint64_t *v, int *big)
{
	if (!s || !isdigit((unsigned char)s[0]))
		return -EINVAL;
	errno = 0;
	*v = strtoull(s, end, 10);
	*big = errno == ERANGE;
	return 0;
}

int parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	char *end;
	uint64_t v;
	int big, err = parse_digits(s, &end, &v, &big);

	if (err)
		return err;
	if (*end)
		return -EINVAL;
	if (big || v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

int parse_hex_u64(const char *s, uint64_t *out)
{
	uint64_t v;

	/* hex digits only: strtoull would take a second "0x" ("0x0x1f") */
	if (!s || strncmp(s, "0x", 2) || !s[2] ||
	    strspn(s + 2, "0123456789abcdefABCDEF") != strlen(s + 2))
		return -EINVAL;
	errno = 0;
	v = strtoull(s + 2, NULL, 16);
	if (errno == ERANGE)
		return -ERANGE;
	*out = v;
	return 0;
}

int parse_int(const char *s, int min, int max, int *out)
{
	uint64_t v;
	int err = parse_u64(s, 0, INT_MAX, &v);

	if (err)
		return err;
	if ((int)v < min || (int)v > max)
		return -ERANGE;
	*out = (int)v;
	return 0;
}

int parse_seconds_ns(const char *s, uint64_t max_ns, uint64_t *out)
{
	uint64_t whole, frac = 0, scale = 1000000000ULL;
	char *end;
	int big, err = parse_digits(s, &end, &whole, &big);

	if (err)
		return err;
	if (*end == '.') {
		const char *p = end + 1;

		if (!isdigit((unsigned char)*p))
			return -EINVAL;
		for (; isdigit((unsigned char)*p); p++) {
			if (scale > 1) {
				scale /= 10;
				frac += (uint64_t)(*p - '0') * scale;
			}
		}
		end = (char *)p;
	}
	if (*end)
		return -EINVAL;
	if (big || whole > max_ns / 1000000000ULL)
		return -ERANGE;
	whole = whole * 1000000000ULL + frac;
	if (whole > max_ns)
		return -ERANGE;
	*out = whole;
	return 0;
}

int parse_size(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	uint64_t v, mul = 1;
	char *end;
	int big, err = parse_digits(s, &end, &v, &big);

	if (err)
		return err;
	switch (*end) {
	case '\0':
		break;
	case 'k':
	case 'K':
		mul = 1ULL << 10;
		end++;
		break;
	case 'm':
	case 'M':
		mul = 1ULL << 20;
		end++;
		break;
	case 'g':
	case 'G':
		mul = 1ULL << 30;
		end++;
		break;
	default:
		return -EINVAL;
	}
	if (*end)
		return -EINVAL;
	if (big || v > UINT64_MAX / mul)
		return -ERANGE;
	v *= mul;
	if (v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

int parse_double(const char *s, double min, double max, double *out)
{
	size_t whole, frac = 0;
	char *end;
	double v;

	if (!s)
		return -EINVAL;
	whole = strspn(s, "0123456789");
	if (s[whole] == '.')
		frac = strspn(s + whole + 1, "0123456789");
	/* digits, and a point only between digits or after them */
	if (!whole || s[whole + (s[whole] == '.' ? 1 + frac : 0)])
		return -EINVAL;
	v = strtod(s, &end);
	if (*end)
		return -EINVAL;
	if (!(v >= min && v <= max))
		return -ERANGE;
	*out = v;
	return 0;
}
