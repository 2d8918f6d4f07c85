// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <string.h>
#include "analyses/export_svg_text.h"

/* Bytes of the valid UTF-8 character at s (allowed in XML), or 0. */
static int char_bytes(const unsigned char *s)
{
	int n, i;

	if (s[0] < 0x80)
		return s[0] >= 0x20 || s[0] == '\t' || s[0] == '\n' ? 1 : 0;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4;
	else
		return 0;
	for (i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	/* overlong three- and four-byte forms, surrogates, beyond U+10FFFF */
	if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] >= 0xa0) ||
	    (s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] >= 0x90))
		return 0;
	return n;
}

size_t svg_text_len(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = 0;
	int b;

	for (; *p; n++, p += b ? b : 1)
		b = char_bytes(p);
	return n;
}

int svg_text_px(size_t n, int fs)
{
	return (int)((n * fs * 6 + 9) / 10);
}

size_t svg_text_fit(int px, int fs)
{
	return px > 0 ? (size_t)px * 10 / ((size_t)fs * 6) : 0;
}

static void put_char(FILE *f, const unsigned char *p, int b)
{
	if (!b)
		fputc('?', f);
	else if (*p == '&')
		fputs("&amp;", f);
	else if (*p == '<')
		fputs("&lt;", f);
	else if (*p == '>')
		fputs("&gt;", f);
	else if (*p == '"')
		fputs("&quot;", f);
	else
		fwrite(p, 1, b, f);
}

size_t svg_text(FILE *f, const char *s, size_t max)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = svg_text_len(s), keep = n > max ? (max ? max - 1 : 0) : n, i;
	int b;

	for (i = 0; i < keep; i++, p += b ? b : 1) {
		b = char_bytes(p);
		put_char(f, p, b);
	}
	if (n > max && max)
		fputs("…", f);
	return n > max ? max : n;
}
