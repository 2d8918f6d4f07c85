/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Strings from traced programs (thread names, paths) are bytes: what is
 * valid UTF-8 in them, for the JSON and SVG writers. */
#ifndef SBT_UTF8_H
#define SBT_UTF8_H

/* Bytes of the valid UTF-8 character at p (1 for ASCII, control characters
 * included), or 0: not the start of one, an overlong form, a surrogate, or
 * beyond U+10FFFF. */
int utf8_char_len(const unsigned char *p);

#endif
