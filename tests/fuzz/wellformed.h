/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What the harnesses check in every document they make sbt-bpf write: a
 * report's JSON and a Chrome export are JSON (RFC 8259, UTF-8), an SVG is
 * well-formed XML 1.0, a text report holds no control character but tab and
 * newline (it goes to root's terminal). Written from the grammars, sharing
 * nothing with the writers they check. Each returns NULL when s[0..n) is
 * well-formed, else what is wrong, with its byte offset in *at.
 */
#ifndef SBT_WELLFORMED_H
#define SBT_WELLFORMED_H

#include <stddef.h>

const char *wf_json(const char *s, size_t n, size_t *at);
const char *wf_xml(const char *s, size_t n, size_t *at);
const char *wf_text(const char *s, size_t n, size_t *at);

#endif
