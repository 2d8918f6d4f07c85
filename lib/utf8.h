/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Strings from traced programs (thread names, paths) are bytes: what is
 * valid UTF-8 in them, for the JSON and SVG writers. */
#ifndef SBT_UTF8_H
#define SBT_UTF8_H

/* Bytes of the valid UTF-8 character at p (1 for ASCII, control characters
 * included), or 0: not the start of one, an overlong form, a surrogate, or
 * beyond U+10FFFF. */
int utf8_char_len(const unsigned char *p);
/* s made safe to print to a terminal, in place: every control character
 * (C0, DEL, and C1 encoded as UTF-8), each byte of U+FFFE and U+FFFF, and
 * every byte that starts no valid UTF-8 character becomes '?', as ps shows
 * names. A thread name or a
 * command line of another user's process must not be able to send escape
 * sequences to root's terminal (or break the XML of an SVG). Returns s. */
char *utf8_printable(char *s);

#endif
