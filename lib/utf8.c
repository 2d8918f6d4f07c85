// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include "lib/utf8.h"

int utf8_char_len(const unsigned char *p)
{
	int n, i;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		n = 2;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		n = 3;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		n = 4;
	else
		return 0;
	for (i = 1; i < n; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	if ((p[0] == 0xe0 && p[1] < 0xa0) || (p[0] == 0xed && p[1] >= 0xa0) ||
	    (p[0] == 0xf0 && p[1] < 0x90) || (p[0] == 0xf4 && p[1] >= 0x90))
		return 0;
	return n;
}

char *utf8_printable(char *s)
{
	unsigned char *p = (unsigned char *)s;
	int n;

	while (*p) {
		n = utf8_char_len(p);
		if (n == 1 && (*p < 0x20 || *p == 0x7f))
			n = 0;
		if (n == 2 && p[0] == 0xc2 && p[1] < 0xa0) {
			p[0] = p[1] = '?';
			p += 2;
			continue;
		}
		/* U+FFFE, U+FFFF: no character at all, and XML forbids them (an SVG
		 * holding one is no XML document) */
		if (n == 3 && p[0] == 0xef && p[1] == 0xbf && p[2] >= 0xbe) {
			p[0] = p[1] = p[2] = '?';
			p += 3;
			continue;
		}
		if (!n) {
			*p++ = '?';
			continue;
		}
		p += n;
	}
	return s;
}
