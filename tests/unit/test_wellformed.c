// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The fuzz harnesses' checks of their outputs (tests/fuzz/wellformed.h): the
 * golden exports pass; each kind of malformed document is caught where it
 * goes wrong. */
#include <stdlib.h>
#include "tests/fuzz/wellformed.h"
#include "unit.h"

static char *load(const char *name, size_t *n)
{
	char path[512];
	FILE *f;
	char *buf = malloc(1 << 20);

	snprintf(path, sizeof(path), "%s/%s", GOLDEN_DIR, name);
	f = fopen(path, "r");
	CHECK(f != NULL && buf != NULL);
	*n = f && buf ? fread(buf, 1, 1 << 20, f) : 0;
	if (f)
		fclose(f);
	return buf;
}

TEST(golden_exports_are_well_formed)
{
	size_t n, at = 0;
	char *s;

	s = load("export.chrome.json", &n);
	CHECK(n > 0);
	CHECK(wf_json(s, n, &at) == NULL);
	free(s);
	s = load("export.svg", &n);
	CHECK(n > 0);
	CHECK(wf_xml(s, n, &at) == NULL);
	CHECK(wf_text(s, n, &at) == NULL);
	free(s);
}

/* s must be rejected with message want at offset want_at. */
static void bad(const char *(*check)(const char *, size_t, size_t *), const char *s,
		const char *want, size_t want_at)
{
	size_t at = 99999;
	const char *got = check(s, strlen(s), &at);

	CHECK_STR(got, want);
	CHECK_EQ(at, want_at);
	if (!got || strcmp(got, want) || at != want_at)
		printf("    for '%s'\n", s);
}

static void good(const char *(*check)(const char *, size_t, size_t *), const char *s)
{
	size_t at;
	const char *got = check(s, strlen(s), &at);

	CHECK(got == NULL);
	if (got)
		printf("    '%s': %s at %zu\n", s, got, at);
}

TEST(json)
{
	good(wf_json, "{\"a\": [1, -0.5e+3, true, false, null, \"\\u00e9\\n\", {}], \"b\": []}\n");
	good(wf_json, "\"caf\xc3\xa9\"");
	bad(wf_json, "{\"a\": 1,}", "JSON: string expected", 8);
	bad(wf_json, "[1 2]", "JSON: ',' or closing bracket expected", 3);
	bad(wf_json, "[01]", "JSON: ',' or closing bracket expected", 2);
	bad(wf_json, "[1.]", "JSON number: digit expected", 3);
	bad(wf_json, "[nan]", "JSON: value expected", 1);
	bad(wf_json, "\"a\tb\"", "JSON string: raw control character", 2);
	bad(wf_json, "\"\\x\"", "JSON string: invalid escape", 2);
	bad(wf_json, "\"\\u12g4\"", "JSON string: \\u needs 4 hex digits", 5);
	bad(wf_json, "\"\xff\"", "invalid UTF-8 lead byte", 1);
	bad(wf_json, "\"\xc0\xaf\"", "overlong or out-of-range UTF-8", 1);
	bad(wf_json, "\"\xed\xa0\x80\"", "overlong or out-of-range UTF-8", 1);
	bad(wf_json, "\"abc", "JSON string: not closed", 4);
	bad(wf_json, "{} {}", "JSON: bytes after the document", 3);
	bad(wf_json, "", "JSON: value expected", 0);
}

TEST(xml)
{
	good(wf_xml, "<?xml version=\"1.0\"?>\n<!-- c -->\n<svg a=\"1\" b='&lt;&#233;&#x1F600;'>"
		     "<g><text>caf\xc3\xa9 &amp; co</text><rect/></g></svg>\n");
	bad(wf_xml, "<svg><g></svg>", "XML: end tag does not match the start tag", 13);
	bad(wf_xml, "<svg a=\"1\" a=\"2\"/>", "XML: attribute given twice", 12);
	bad(wf_xml, "<svg a=1/>", "XML: quoted attribute value expected", 7);
	bad(wf_xml, "<svg a=\"<\"/>", "XML: '<' in text or attribute value", 8);
	bad(wf_xml, "<svg>a & b</svg>", "XML: invalid reference after '&'", 8);
	bad(wf_xml, "<svg>&#0;</svg>", "XML: invalid reference after '&'", 9);
	bad(wf_xml, "<svg>\x1b[0m</svg>", "XML: character not allowed", 6);
	bad(wf_xml, "<svg>\xef\xbf\xbf</svg>", "XML: character not allowed", 8);
	bad(wf_xml, "<svg><!-- a -- b --></svg>", "XML: '--' inside a comment", 14);
	bad(wf_xml, "<svg>", "XML: element not closed", 5);
	bad(wf_xml, "<svg/><svg/>", "XML: content after the root element", 6);
	bad(wf_xml, "text", "XML: root element expected", 0);
	bad(wf_xml, "<svg a=\"1\"b=\"2\"/>", "XML: space or end of tag expected", 10);
}

TEST(text)
{
	good(wf_text, "Phase\t1: 3.2 ms caf\xc3\xa9\n");
	bad(wf_text, "name \x1b]0;pwn\x07\n", "text: control character", 5);
	bad(wf_text, "a\rb", "text: control character", 1);
	bad(wf_text,
	    "a\xc2\x9b"
	    "b",
	    "text: control character", 1);
	bad(wf_text, "a\xc3", "UTF-8 sequence cut by the end", 1);
}
