// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <string.h>
#include "analyses/export_svg_text.h"
#include "lib/utf8.h"

/* Bytes of the valid UTF-8 character at s (allowed in XML), or 0. */
static int char_bytes(const unsigned char *s)
{
	if (s[0] < 0x20 && s[0] != '\t' && s[0] != '\n')
		return 0;
	return utf8_char_len(s);
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
