// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* What counts as a valid UTF-8 character in target strings. */
#include "lib/utf8.h"
#include "unit.h"

#define U(s) ((const unsigned char *)(s))

TEST(valid_characters_by_length)
{
	CHECK_EQ(utf8_char_len(U("a")), 1);
	CHECK_EQ(utf8_char_len(U("\x01")), 1);		   /* control: the writers decide */
	CHECK_EQ(utf8_char_len(U("\xc3\xa9")), 2);	   /* é */
	CHECK_EQ(utf8_char_len(U("\xe2\x82\xac")), 3);	   /* € */
	CHECK_EQ(utf8_char_len(U("\xf0\x9f\x98\x80")), 4); /* U+1F600 */
}

TEST(invalid_sequences_are_zero)
{
	CHECK_EQ(utf8_char_len(U("\x80")), 0);		   /* continuation byte */
	CHECK_EQ(utf8_char_len(U("\xc0\xaf")), 0);	   /* overlong two-byte */
	CHECK_EQ(utf8_char_len(U("\xe0\x80\xaf")), 0);	   /* overlong three-byte */
	CHECK_EQ(utf8_char_len(U("\xed\xa0\x80")), 0);	   /* surrogate U+D800 */
	CHECK_EQ(utf8_char_len(U("\xf4\x90\x80\x80")), 0); /* beyond U+10FFFF */
	CHECK_EQ(utf8_char_len(U("\xc3")), 0);		   /* cut: NUL is no continuation */
	CHECK_EQ(utf8_char_len(U("\xff")), 0);
}

TEST(printable_replaces_controls_and_invalid_bytes)
{
	char esc[] = "\x1b]0;pwn\x07name",
	     del[] = "a\x7f"
		     "b",
	     c1[] = "x\xc2\x9b"
		    "2J",
	     bad[] = "\xff\xc3", ok[] = "caf\xc3\xa9 \xe2\x82\xac-1";

	CHECK_STR(utf8_printable(esc), "?]0;pwn?name");
	CHECK_STR(utf8_printable(del), "a?b");
	CHECK_STR(utf8_printable(c1), "x??2J"); /* U+009B, CSI */
	CHECK_STR(utf8_printable(bad), "??");
	CHECK_STR(utf8_printable(ok), "caf\xc3\xa9 \xe2\x82\xac-1");
}

/* Found with the trace fuzz harness's XML check (tests/fuzz/corpus/trace):
 * a thread named with U+FFFF made the SVG export malformed XML. */
TEST(printable_replaces_the_noncharacters_xml_forbids)
{
	char ffff[] = "a\xef\xbf\xbf"
		      "b",
	     fffe[] = "\xef\xbf\xbe", fffd[] = "\xef\xbf\xbd";

	CHECK_STR(utf8_printable(ffff), "a???b");
	CHECK_STR(utf8_printable(fffe), "???");
	CHECK_STR(utf8_printable(fffd), "\xef\xbf\xbd"); /* the replacement character stays */
}
