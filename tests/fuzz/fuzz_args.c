// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * libFuzzer harness: the command line. The input's first byte chooses what
 * reads the rest, NUL-separated words: the whole command line of `sbt-bpf`,
 * `record` or `top` (env__parse, argp in no-exit mode), or every option-value
 * parser on each word: numbers, seconds, sizes, -e events, --probe specs,
 * --trace classes, --filter, --format, --sort, near-miss words. The number
 * parsers are checked against reference ones written here from their
 * contracts (lib/parse.h); the others against what they promise.
 */
#include <argp.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analyses/export.h"
#include "analyses/sync_report.h"
#include "lib/log.h"
#include "lib/parse.h"
#include "lib/words.h"
#include "tests/fuzz/fuzz.h"
#include "user/bpf/counters.h"
#include "user/cmd/env_args.h"
#include "user/resolve/probes.h"

#define MAX_WORDS 64

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_init();
	return 0;
}

static void broken(const char *what, const char *word)
{
	fuzz_die_in(what, "breaks its contract", word, strlen(word), 0);
}

/* ---- reference parsers: what lib/parse.h promises ---- */

/* Digits (base 10 or 16) of s up to a character not one: -ERANGE past
 * UINT64_MAX, -EINVAL for none. */
static int ref_digits(const char **s, int base, uint64_t *v)
{
	const char *p = *s;
	int d;

	*v = 0;
	for (; *p; p++) {
		if (*p >= '0' && *p <= '9')
			d = *p - '0';
		else if (base == 16 && ((*p | 0x20) >= 'a' && (*p | 0x20) <= 'f'))
			d = (*p | 0x20) - 'a' + 10;
		else
			break;
		if (*v > (UINT64_MAX - d) / base)
			return -ERANGE;
		*v = *v * base + d;
	}
	if (p == *s)
		return -EINVAL;
	*s = p;
	return 0;
}

/* Whether s is all digits of its base from its start (the grammar: a
 * malformed string is -EINVAL whatever its size). */
static int all_digits(const char *s, int base)
{
	const char *set = base == 16 ? "0123456789abcdefABCDEF" : "0123456789";

	return *s && strspn(s, set) == strlen(s);
}

static int ref_u64(const char *s, uint64_t min, uint64_t max, uint64_t *v)
{
	if (!all_digits(s, 10))
		return -EINVAL;
	if (ref_digits(&s, 10, v))
		return -ERANGE;
	return *v < min || *v > max ? -ERANGE : 0;
}

static int ref_hex(const char *s, uint64_t *v)
{
	if (strncmp(s, "0x", 2) || !all_digits(s + 2, 16))
		return -EINVAL;
	s += 2;
	return ref_digits(&s, 16, v);
}

/* "S" or "S.F": nanoseconds, digits past the ninth of F ignored. */
static int ref_seconds(const char *s, uint64_t max, uint64_t *v)
{
	const char *dot = strchr(s, '.');
	char whole[4096];
	uint64_t w, frac = 0, scale = 100000000ULL;
	const char *p;

	snprintf(whole, sizeof(whole), "%.*s", dot ? (int)(dot - s) : (int)strlen(s), s);
	if (!all_digits(whole, 10) || (dot && !all_digits(dot + 1, 10)))
		return -EINVAL;
	p = whole;
	if (ref_digits(&p, 10, &w) || w > max / 1000000000ULL)
		return -ERANGE;
	for (p = dot ? dot + 1 : ""; *p && scale; p++, scale /= 10)
		frac += (uint64_t)(*p - '0') * scale;
	*v = w * 1000000000ULL + frac;
	return *v > max ? -ERANGE : 0;
}

static int ref_size(const char *s, uint64_t min, uint64_t max, uint64_t *v)
{
	size_t len = strlen(s);
	uint64_t mul = 1;
	char digits[4096];
	const char *p = digits;

	if (len && strchr("kKmMgG", s[len - 1])) {
		mul = 1ULL << (strchr("kK", s[len - 1]) ? 10 : strchr("mM", s[len - 1]) ? 20 : 30);
		len--;
	}
	snprintf(digits, sizeof(digits), "%.*s", (int)len, s);
	if (!all_digits(digits, 10))
		return -EINVAL;
	if (ref_digits(&p, 10, v) || *v > UINT64_MAX / mul)
		return -ERANGE;
	*v *= mul;
	return *v < min || *v > max ? -ERANGE : 0;
}

/* parse_X and its reference agree: same error, same value. */
#define SAME(what, word, got, got_v, want, want_v)                                                 \
	do {                                                                                       \
		if ((got) != (want) || (!(got) && (got_v) != (want_v)))                            \
			broken(what, word);                                                        \
	} while (0)

static void numbers(const char *w)
{
	uint64_t a = 0, b = 0;
	int i = 0, e;

	SAME("parse_u64", w, parse_u64(w, 0, UINT64_MAX, &a), a, ref_u64(w, 0, UINT64_MAX, &b), b);
	SAME("parse_u64 300..100000", w, parse_u64(w, 300, 100000, &a), a,
	     ref_u64(w, 300, 100000, &b), b);
	e = parse_int(w, 1, 10000, &i);
	SAME("parse_int 1..10000", w, e, (uint64_t)i, ref_u64(w, 1, 10000, &b), b);
	SAME("parse_hex_u64", w, parse_hex_u64(w, &a), a, ref_hex(w, &b), b);
	SAME("parse_seconds_ns", w, parse_seconds_ns(w, UINT64_MAX, &a), a,
	     ref_seconds(w, UINT64_MAX, &b), b);
	SAME("parse_seconds_ns 1 h", w, parse_seconds_ns(w, 3600000000000ULL, &a), a,
	     ref_seconds(w, 3600000000000ULL, &b), b);
	SAME("parse_size 4K..1G", w, parse_size(w, 4096, 1ULL << 30, &a), a,
	     ref_size(w, 4096, 1ULL << 30, &b), b);
	SAME("parse_size", w, parse_size(w, 0, UINT64_MAX, &a), a, ref_size(w, 0, UINT64_MAX, &b),
	     b);
}

/* ---- the other value parsers: what each promises ---- */

/* A ':' in s with no ':' beside it. */
static int lone_colon(const char *s)
{
	size_t i;

	for (i = 0; s[i]; i++)
		if (s[i] == ':' && s[i + 1] != ':' && (i == 0 || s[i - 1] != ':'))
			return 1;
	return 0;
}

static void probe_spec(const char *w)
{
	struct user_probe up;
	char err[256] = "", again[sizeof(up.binary) + sizeof(up.symbol) + 64];

	if (user_probe__parse(w, &up, err, sizeof(err))) {
		if (!err[0])
			broken("user_probe__parse: no message", w);
		return;
	}
	/* BINARY:SYMBOL:KIND, none empty, a ':' of the symbol only in a C++
	 * name's "::" */
	snprintf(again, sizeof(again), "%s:%s:", up.binary, up.symbol);
	if (!up.binary[0] || !up.symbol[0] || lone_colon(up.symbol) || !up.kind ||
	    strncmp(w, again, strlen(again)))
		broken("user_probe__parse", w);
}

static void events(const char *w)
{
	struct counter_set cs;
	char err[256] = "";
	int k;

	if (counters__parse(w, &cs, err, sizeof(err))) {
		if (!err[0])
			broken("counters__parse: no message", w);
		return;
	}
	if (cs.n < 1 || cs.n > SBT_MAX_COUNTERS)
		broken("counters__parse: count", w);
	for (k = 0; k < cs.n; k++)
		if (!memchr(cs.info[k].name, 0, sizeof(cs.info[k].name)) || !cs.info[k].name[0])
			broken("counters__parse: name", w);
}

static void filter(const char *w)
{
	struct env_filter f = {0};
	char err[256] = "";
	int k;

	/* values kept for the process's life: 64 filters, then "given too
	 * many times" (the text is parsed all the same) */
	if (env_filter__parse(&f, w, err, sizeof(err))) {
		if (!err[0])
			broken("env_filter__parse: no message", w);
		return;
	}
	if (f.ncomm > ENV_MAX_FILTER || f.ncgroup > ENV_MAX_FILTER || f.nuid > ENV_MAX_FILTER)
		broken("env_filter__parse: count", w);
	for (k = 0; k < f.ncomm; k++)
		if (!f.comm[k][0])
			broken("env_filter__parse: empty comm", w);
	for (k = 0; k < f.ncgroup; k++)
		if (!f.cgroup[k][0])
			broken("env_filter__parse: empty cgroup", w);
}

static void names(const char *w)
{
	static const char *const cands[] = {
		"pid",	 "all",	   "filter",	  "output",	    "probe",
		"trace", "events", "buffer-size", "drain-interval", "watch"};
	unsigned int classes = 0;
	char err[256] = "";
	size_t d = words__distance(w, "watch-all");

	if (trace_classes__parse(w, &classes, err, sizeof(err)) ? !err[0] : !classes)
		broken("trace_classes__parse", w);
	if (export_format__parse(w) >= EXPORT_NFORMATS)
		broken("export_format__parse", w);
	sync_sort__parse(w);
	/* a distance: symmetric, 0 to itself */
	if (d != words__distance("watch-all", w) || (strlen(w) < 64 && words__distance(w, w)))
		broken("words__distance", w);
	words__closest(w, cands, sizeof(cands) / sizeof(cands[0]), 2);
}

/* ---- whole command lines ---- */

static void command_line(int cmd, char **words, int n)
{
	char *argv[MAX_WORDS + 2];
	struct env *env = malloc(sizeof(*env));
	int i;

	if (!env)
		abort();
	argv[0] = "sbt-bpf";
	for (i = 0; i < n; i++)
		argv[i + 1] = words[i];
	argv[n + 1] = NULL;
	env__parse_flags(env, n + 1, argv, cmd, ARGP_NO_EXIT);
	free(env);
	log_set_level(LOG_QUIET); /* -v raises it */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text, *words[MAX_WORDS], *p;
	int n = 0, i, sel;

	if (!size)
		return 0;
	sel = data[0] % 4;
	text = fuzz_string(data + 1, size - 1);
	/* the words: the text split at each NUL ("a\0" is "a" and "") */
	for (p = text; p <= text + size - 1 && n < MAX_WORDS; p += strlen(p) + 1)
		words[n++] = p;
	if (sel < 3) {
		command_line(sel == 0 ? ENV_TRACE : sel == 1 ? ENV_RECORD : ENV_TOP, words, n);
	} else {
		for (i = 0; i < n; i++) {
			numbers(words[i]);
			probe_spec(words[i]);
			events(words[i]);
			filter(words[i]);
			names(words[i]);
		}
	}
	free(text);
	return 0;
}
