// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Well-formedness checks of the harnesses' outputs (tests/fuzz/wellformed.h). */
#include <stdint.h>
#include <string.h>
#include "tests/fuzz/wellformed.h"

#define MAX_DEPTH 256

struct doc {
	const unsigned char *s;
	size_t n, i;
	const char *err; /* the first error; later ones are not looked for */
	size_t at;
};

static int fail(struct doc *d, const char *why)
{
	if (!d->err) {
		d->err = why;
		d->at = d->i;
	}
	return -1;
}

static int peek(const struct doc *d)
{
	return d->i < d->n ? d->s[d->i] : -1;
}

static int eat(struct doc *d, const char *lit)
{
	size_t len = strlen(lit);

	if (d->n - d->i < len || memcmp(d->s + d->i, lit, len))
		return 0;
	d->i += len;
	return 1;
}

/* The code point of the UTF-8 sequence at d->i (advanced past it), or -1:
 * overlong forms, surrogates and values past U+10FFFF are not UTF-8. */
static int32_t utf8_next(struct doc *d)
{
	static const int32_t min[5] = {0, 0, 0x80, 0x800, 0x10000};
	const unsigned char *p = d->s + d->i;
	size_t left = d->n - d->i;
	int len, k;
	int32_t cp;

	if (p[0] < 0x80)
		len = 1, cp = p[0];
	else if ((p[0] & 0xe0) == 0xc0)
		len = 2, cp = p[0] & 0x1f;
	else if ((p[0] & 0xf0) == 0xe0)
		len = 3, cp = p[0] & 0x0f;
	else if ((p[0] & 0xf8) == 0xf0)
		len = 4, cp = p[0] & 0x07;
	else
		return fail(d, "invalid UTF-8 lead byte");
	if ((size_t)len > left)
		return fail(d, "UTF-8 sequence cut by the end");
	for (k = 1; k < len; k++) {
		if ((p[k] & 0xc0) != 0x80)
			return fail(d, "invalid UTF-8 continuation byte");
		cp = cp << 6 | (p[k] & 0x3f);
	}
	if (cp < min[len] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return fail(d, "overlong or out-of-range UTF-8");
	d->i += len;
	return cp;
}

/* ---- JSON ----------------------------------------------------------------- */

static int json_value(struct doc *d, int depth);

static void json_ws(struct doc *d)
{
	while (peek(d) == ' ' || peek(d) == '\t' || peek(d) == '\n' || peek(d) == '\r')
		d->i++;
}

static int digits(struct doc *d)
{
	size_t start = d->i;

	while (peek(d) >= '0' && peek(d) <= '9')
		d->i++;
	return d->i > start ? 0 : fail(d, "JSON number: digit expected");
}

static int json_number(struct doc *d)
{
	eat(d, "-");
	if (peek(d) == '0')
		d->i++;
	else if (digits(d))
		return -1;
	if (eat(d, ".") && digits(d))
		return -1;
	if (peek(d) == 'e' || peek(d) == 'E') {
		d->i++;
		if (peek(d) == '+' || peek(d) == '-')
			d->i++;
		return digits(d);
	}
	return 0;
}

static int json_escape(struct doc *d)
{
	int k;

	if (peek(d) >= 0 && strchr("\"\\/bfnrt", peek(d))) {
		d->i++;
		return 0;
	}
	if (!eat(d, "u"))
		return fail(d, "JSON string: invalid escape");
	for (k = 0; k < 4; k++, d->i++)
		if (peek(d) < 0 || !strchr("0123456789abcdefABCDEF", peek(d)))
			return fail(d, "JSON string: \\u needs 4 hex digits");
	return 0;
}

static int json_string(struct doc *d)
{
	if (!eat(d, "\""))
		return fail(d, "JSON: string expected");
	for (;;) {
		int c = peek(d);

		if (c < 0)
			return fail(d, "JSON string: not closed");
		if (c == '"') {
			d->i++;
			return 0;
		}
		if (c < 0x20)
			return fail(d, "JSON string: raw control character");
		if (c == '\\') {
			d->i++;
			if (json_escape(d))
				return -1;
		} else if (utf8_next(d) < 0) {
			return -1;
		}
	}
}

/* The members of an object (keyed) or the elements of an array, after the
 * opening bracket, up to and with the closing one. */
static int json_items(struct doc *d, int depth, int keyed, char close)
{
	json_ws(d);
	if (peek(d) == close) {
		d->i++;
		return 0;
	}
	for (;;) {
		json_ws(d);
		if (keyed && json_string(d))
			return -1;
		json_ws(d);
		if (keyed && !eat(d, ":"))
			return fail(d, "JSON object: ':' expected");
		if (json_value(d, depth + 1))
			return -1;
		json_ws(d);
		if (peek(d) == close) {
			d->i++;
			return 0;
		}
		if (!eat(d, ","))
			return fail(d, "JSON: ',' or closing bracket expected");
	}
}

static int json_value(struct doc *d, int depth)
{
	int c;

	json_ws(d);
	if (depth > MAX_DEPTH)
		return fail(d, "JSON: nested too deep");
	c = peek(d);
	if (c == '{' || c == '[') {
		d->i++;
		return json_items(d, depth, c == '{', c == '{' ? '}' : ']');
	}
	if (c == '"')
		return json_string(d);
	if (c == '-' || (c >= '0' && c <= '9'))
		return json_number(d);
	if (eat(d, "true") || eat(d, "false") || eat(d, "null"))
		return 0;
	return fail(d, "JSON: value expected");
}

const char *wf_json(const char *s, size_t n, size_t *at)
{
	struct doc d = {(const unsigned char *)s, n, 0, NULL, 0};

	if (!json_value(&d, 0)) {
		json_ws(&d);
		if (d.i < d.n)
			fail(&d, "JSON: bytes after the document");
	}
	*at = d.at;
	return d.err;
}

/* ---- XML ------------------------------------------------------------------ */

static int xml_char_ok(int32_t c)
{
	return c == 0x9 || c == 0xa || c == 0xd || (c >= 0x20 && c <= 0xd7ff) ||
	       (c >= 0xe000 && c <= 0xfffd) || (c >= 0x10000 && c <= 0x10ffff);
}

/* One character of content or of an attribute value (not '<'; '&' starts a
 * reference: the predefined entities or a character reference). */
static int xml_char(struct doc *d)
{
	int32_t c;

	if (peek(d) == '<')
		return fail(d, "XML: '<' in text or attribute value");
	if (peek(d) != '&') {
		c = utf8_next(d);
		return c < 0 ? -1 : xml_char_ok(c) ? 0 : fail(d, "XML: character not allowed");
	}
	d->i++;
	if (eat(d, "lt;") || eat(d, "gt;") || eat(d, "amp;") || eat(d, "quot;") || eat(d, "apos;"))
		return 0;
	if (eat(d, "#")) {
		int hex = eat(d, "x"), k = 0;
		int64_t v = 0;

		for (; peek(d) >= 0 &&
		       strchr(hex ? "0123456789abcdefABCDEF" : "0123456789", peek(d)) && k < 8;
		     k++, d->i++) {
			int ch = peek(d);

			v = v * (hex ? 16 : 10) + (ch <= '9' ? ch - '0' : (ch | 0x20) - 'a' + 10);
		}
		if (k && eat(d, ";") && xml_char_ok((int32_t)v))
			return 0;
	}
	return fail(d, "XML: invalid reference after '&'");
}

static int name_char(int c, int first)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':' ||
	       (!first && ((c >= '0' && c <= '9') || c == '-' || c == '.'));
}

/* A name: its start and length. */
static int xml_name(struct doc *d, size_t *start, size_t *len)
{
	*start = d->i;
	if (!name_char(peek(d), 1))
		return fail(d, "XML: name expected");
	while (name_char(peek(d), 0))
		d->i++;
	*len = d->i - *start;
	return 0;
}

static int xml_ws(struct doc *d)
{
	size_t start = d->i;

	while (peek(d) == ' ' || peek(d) == '\t' || peek(d) == '\n' || peek(d) == '\r')
		d->i++;
	return d->i > start;
}

/* An attribute value in quotes. */
static int xml_quoted(struct doc *d)
{
	int q = peek(d);

	if (q != '"' && q != '\'')
		return fail(d, "XML: quoted attribute value expected");
	d->i++;
	while (peek(d) != q) {
		if (peek(d) < 0)
			return fail(d, "XML: attribute value not closed");
		if (xml_char(d))
			return -1;
	}
	d->i++;
	return 0;
}

#define MAX_ATTRS 64

/* Attributes up to '>' or '/>': each once, each value quoted. 1 for an
 * empty element, 0 for a start tag. */
static int xml_attrs(struct doc *d)
{
	size_t name[MAX_ATTRS], len[MAX_ATTRS];
	int n = 0, k, sep;

	for (;;) {
		sep = xml_ws(d);
		if (eat(d, "/>"))
			return 1;
		if (eat(d, ">"))
			return 0;
		if (!sep || n == MAX_ATTRS)
			return fail(d, "XML: space or end of tag expected");
		if (xml_name(d, &name[n], &len[n]))
			return -1;
		for (k = 0; k < n; k++)
			if (len[k] == len[n] && !memcmp(d->s + name[k], d->s + name[n], len[n]))
				return fail(d, "XML: attribute given twice");
		n++;
		xml_ws(d);
		if (!eat(d, "="))
			return fail(d, "XML: '=' expected");
		xml_ws(d);
		if (xml_quoted(d))
			return -1;
	}
}

/* Characters up to the end mark of a comment or a processing instruction. */
static int xml_until(struct doc *d, const char *end, int no_dashes)
{
	int32_t c;

	while (!eat(d, end)) {
		if (no_dashes && eat(d, "--"))
			return fail(d, "XML: '--' inside a comment");
		if (peek(d) < 0)
			return fail(d, "XML: comment or processing instruction not closed");
		c = utf8_next(d);
		if (c < 0)
			return -1;
		if (!xml_char_ok(c))
			return fail(d, "XML: character not allowed");
	}
	return 0;
}

/* Spaces, comments and processing instructions (the XML declaration among
 * them), where the grammar allows them. */
static int xml_misc(struct doc *d)
{
	for (;;) {
		xml_ws(d);
		if (eat(d, "<!--")) {
			if (xml_until(d, "-->", 1))
				return -1;
		} else if (eat(d, "<?")) {
			if (xml_until(d, "?>", 0))
				return -1;
		} else {
			return 0;
		}
	}
}

/* The end tag of the element open at depth (its name at name, len). */
static int xml_end_tag(struct doc *d, size_t name, size_t len)
{
	size_t s, l;

	if (xml_name(d, &s, &l))
		return -1;
	if (l != len || memcmp(d->s + s, d->s + name, l))
		return fail(d, "XML: end tag does not match the start tag");
	xml_ws(d);
	return eat(d, ">") ? 0 : fail(d, "XML: '>' expected");
}

/* The root element and everything in it. */
static int xml_element(struct doc *d)
{
	size_t name[MAX_DEPTH], len[MAX_DEPTH];
	int depth = 0, empty;

	for (;;) {
		if (eat(d, "<!--")) {
			if (xml_until(d, "-->", 1))
				return -1;
		} else if (eat(d, "<?")) {
			if (xml_until(d, "?>", 0))
				return -1;
		} else if (depth && eat(d, "</")) {
			depth--;
			if (xml_end_tag(d, name[depth], len[depth]))
				return -1;
			if (!depth)
				return 0;
		} else if (eat(d, "<")) {
			if (depth == MAX_DEPTH)
				return fail(d, "XML: nested too deep");
			if (xml_name(d, &name[depth], &len[depth]))
				return -1;
			empty = xml_attrs(d);
			if (empty < 0)
				return -1;
			if (!empty)
				depth++;
			if (!depth)
				return 0;
		} else if (!depth) {
			return fail(d, "XML: root element expected");
		} else if (peek(d) < 0) {
			return fail(d, "XML: element not closed");
		} else if (eat(d, "]]>")) {
			return fail(d, "XML: ']]>' in text");
		} else if (xml_char(d)) {
			return -1;
		}
	}
}

const char *wf_xml(const char *s, size_t n, size_t *at)
{
	struct doc d = {(const unsigned char *)s, n, 0, NULL, 0};

	if (!xml_misc(&d) && !xml_element(&d) && !xml_misc(&d) && d.i < d.n)
		fail(&d, "XML: content after the root element");
	*at = d.at;
	return d.err;
}

/* ---- text ------------------------------------------------------------------- */

const char *wf_text(const char *s, size_t n, size_t *at)
{
	struct doc d = {(const unsigned char *)s, n, 0, NULL, 0};
	size_t start;
	int32_t c;

	while (d.i < d.n) {
		start = d.i;
		c = utf8_next(&d);
		if (c < 0)
			break;
		/* C0 and C1 controls: a terminal acts on them (escape sequences) */
		if ((c < 0x20 && c != '\n' && c != '\t') || (c >= 0x7f && c < 0xa0)) {
			d.i = start;
			fail(&d, "text: control character");
			break;
		}
	}
	*at = d.at;
	return d.err;
}
