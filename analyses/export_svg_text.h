/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Text in the SVG (doc/design.md §6): names come from the traced program
 * (thread names, symbols), so they are escaped for XML, cut to the room
 * they have, and any byte that is not valid UTF-8 (or not allowed in XML)
 * becomes '?'. Widths are estimated at 0.6 em a character, the same
 * estimate the layout and its tests use.
 */
#ifndef SBT_EXPORT_SVG_TEXT_H
#define SBT_EXPORT_SVG_TEXT_H

#include <stddef.h>
#include <stdio.h>

/* Characters (code points; an invalid byte counts one) of s. */
size_t svg_text_len(const char *s);
/* Pixels that n characters take at font size fs, rounded up. */
int svg_text_px(size_t n, int fs);
/* Characters of font size fs that fit in px pixels. */
size_t svg_text_fit(int px, int fs);
/* Writes s, escaped, at most max characters: a longer s is cut and ends
 * in "…". Returns the characters written. */
size_t svg_text(FILE *f, const char *s, size_t max);

#endif
