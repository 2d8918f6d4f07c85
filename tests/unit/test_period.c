// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The period detector (analyses/period.h, doc/design.md §5.6) on synthetic
 * site sequences, with exact expected periods: exact, noisy, nested loops,
 * none. */
#include <stdlib.h>
#include "analyses/period.h"
#include "unit.h"

/* Feeds the letters of s ('A' is site 0) reps times, after prefix, then suffix. */
static void feed(struct period *d, const char *prefix, const char *s, int reps, const char *suffix)
{
	int i;

	for (; *prefix; prefix++)
		period__feed(d, *prefix - 'A');
	for (i = 0; i < reps; i++)
		for (const char *c = s; *c; c++)
			period__feed(d, *c - 'A');
	for (; *suffix; suffix++)
		period__feed(d, *suffix - 'A');
}

/* The detected period as letters, rotated to begin at its smallest. */
static const char *detected(const struct period *d)
{
	static char buf[PERIOD_MAX + 1];
	const __u32 *pat;
	__u32 n = period__get(d, &pat), i, lo = 0;

	for (i = 1; i < n; i++)
		if (pat[i] < pat[lo])
			lo = i;
	for (i = 0; i < n; i++)
		buf[i] = 'A' + pat[(lo + i) % n];
	buf[n] = 0;
	return buf;
}

TEST(exact_period)
{
	struct period d;

	period__init(&d);
	feed(&d, "", "ABCD", 10, "");
	CHECK_STR(detected(&d), "ABCD");
	period__free(&d);
}

TEST(exact_needs_three_repetitions)
{
	struct period d;

	period__init(&d);
	feed(&d, "", "ABCD", 2, "");
	CHECK_EQ(period__get(&d, &(const __u32 *){0}), 0);
	feed(&d, "", "ABCD", 1, "");
	CHECK_STR(detected(&d), "ABCD");
	period__free(&d);
}

/* An initialization prefix and a partial last iteration change nothing. */
TEST(prefix_and_suffix)
{
	struct period d;

	period__init(&d);
	feed(&d, "XYZXW", "BCDE", 20, "BC");
	CHECK_STR(detected(&d), "BCDE");
	period__free(&d);
}

/* An extra site in one iteration, and one missing in another. */
TEST(noisy)
{
	struct period d;
	int i;

	period__init(&d);
	for (i = 0; i < 30; i++)
		feed(&d, "", i == 7 ? "ABXCD" : i == 15 ? "ABD" : "ABCD", 1, "");
	CHECK_STR(detected(&d), "ABCD");
	period__free(&d);
}

/* Inner loops of a fixed count inside the outer one: the outer period. */
TEST(nested_fixed)
{
	struct period d;

	period__init(&d);
	feed(&d, "", "ABCBCBCD", 12, "");
	CHECK_STR(detected(&d), "ABCBCBCD");
	period__free(&d);
}

/* An inner loop of one site, run a varying number of times: one element. */
TEST(nested_varying_one_site)
{
	struct period d;
	static const char *const it[] = {"ABBBC", "ABC", "ABBBBBBC", "ABBC"};
	int i;

	period__init(&d);
	for (i = 0; i < 20; i++)
		feed(&d, "", it[i % 4], 1, "");
	CHECK_STR(detected(&d), "ABC");
	CHECK_EQ(d.raw, 5 * (5 + 3 + 8 + 4));
	CHECK_EQ(d.n, 20 * 3);
	period__free(&d);
}

/* Only one site: every episode is an iteration; no memory kept for it. */
TEST(one_site)
{
	struct period d;

	period__init(&d);
	feed(&d, "", "A", 5, "");
	CHECK_STR(detected(&d), "A");
	CHECK(d.w == NULL); /* no window for one site */
	period__free(&d);
}

/* An initialization at other sites, then a loop of one site: that site,
 * once it came PERIOD_REPS times in a row; twice is not enough. */
TEST(loop_of_one_site_after_an_initialization)
{
	struct period d;

	period__init(&d);
	feed(&d, "XY", "A", 2, "");
	CHECK_STR(detected(&d), "");
	feed(&d, "", "A", 1, "");
	CHECK_STR(detected(&d), "A");
	period__free(&d);
}

/* No repetition: none; a period longer than PERIOD_MAX: none. */
TEST(none)
{
	struct period d;
	__u32 i;
	const __u32 *pat;

	period__init(&d);
	feed(&d, "", "ABCDEFGHIJKLMNOPQRSTUVWXYZ", 1, "");
	CHECK_EQ(period__get(&d, &pat), 0);
	CHECK(pat == NULL);
	period__free(&d);
	period__init(&d);
	for (i = 0; i < 4 * (PERIOD_MAX + 1); i++)
		period__feed(&d, i % (PERIOD_MAX + 1));
	CHECK_EQ(period__get(&d, &pat), 0);
	period__free(&d);
	period__init(&d);
	for (i = 0; i < 4 * PERIOD_MAX; i++)
		period__feed(&d, i % PERIOD_MAX);
	CHECK_EQ(period__get(&d, &pat), PERIOD_MAX);
	period__free(&d);
}

/* An initialization loop repeated a few times is not the main loop. */
TEST(init_loop_then_main_loop)
{
	struct period d;

	period__init(&d);
	feed(&d, "", "XYZW", 3, "");
	feed(&d, "", "ABC", 50, "");
	CHECK_STR(detected(&d), "ABC");
	period__free(&d);
}
