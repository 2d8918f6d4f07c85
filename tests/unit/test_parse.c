// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Strict number parsing of command-line values. */
#include <errno.h>
#include "lib/parse.h"
#include "unit.h"

TEST(u64_accepts_only_whole_numbers_in_range)
{
	uint64_t v = 7;

	CHECK_EQ(parse_u64("42", 0, 100, &v), 0);
	CHECK_EQ(v, 42);
	CHECK_EQ(parse_u64("18446744073709551615", 0, UINT64_MAX, &v), 0);
	CHECK_EQ(v, UINT64_MAX);
	v = 7;
	CHECK(parse_u64("", 0, 100, &v) == -EINVAL);
	CHECK(parse_u64(" 4", 0, 100, &v) == -EINVAL);
	CHECK(parse_u64("-4", 0, 100, &v) == -EINVAL);
	CHECK(parse_u64("+4", 0, 100, &v) == -EINVAL);
	CHECK(parse_u64("4x", 0, 100, &v) == -EINVAL);
	CHECK(parse_u64("0x10", 0, 100, &v) == -EINVAL);
	CHECK(parse_u64("101", 0, 100, &v) == -ERANGE);
	CHECK(parse_u64("18446744073709551616", 0, UINT64_MAX, &v) == -ERANGE);
	CHECK(parse_u64(NULL, 0, 100, &v) == -EINVAL);
	CHECK_EQ(v, 7); /* untouched on failure */
}

/* Found by fuzz_args (tests/fuzz/corpus/args): a malformed string was "out
 * of range" when its digits alone overflowed; it is no number at all. */
TEST(malformed_before_out_of_range)
{
	uint64_t v = 7;

	CHECK(parse_u64("6666666666666666666613x", 0, UINT64_MAX, &v) == -EINVAL);
	CHECK(parse_u64("66666666666666666666", 0, UINT64_MAX, &v) == -ERANGE);
	CHECK(parse_size("66666666666666666666KB", 0, UINT64_MAX, &v) == -EINVAL);
	CHECK(parse_size("66666666666666666666K", 0, UINT64_MAX, &v) == -ERANGE);
	CHECK(parse_seconds_ns("66666666666666666666.5s", UINT64_MAX, &v) == -EINVAL);
	CHECK(parse_seconds_ns("66666666666666666666.5", UINT64_MAX, &v) == -ERANGE);
	CHECK_EQ(v, 7);
}

TEST(int_range)
{
	int v = 0;

	CHECK_EQ(parse_int("1", 1, 10, &v), 0);
	CHECK_EQ(v, 1);
	CHECK(parse_int("0", 1, 10, &v) == -ERANGE);
	CHECK(parse_int("2147483648", 1, 2147483647, &v) == -ERANGE);
}

TEST(hex_addresses)
{
	uint64_t v = 7;

	CHECK_EQ(parse_hex_u64("0x401136", &v), 0);
	CHECK_EQ(v, 0x401136);
	CHECK_EQ(parse_hex_u64("0xFFFFFFFFFFFFFFFF", &v), 0);
	CHECK_EQ(v, UINT64_MAX);
	v = 7;
	CHECK_EQ(parse_hex_u64("0x10000000000000000", &v), -ERANGE);
	CHECK_EQ(parse_hex_u64("401136", &v), -EINVAL);
	CHECK_EQ(parse_hex_u64("0x", &v), -EINVAL);
	CHECK_EQ(parse_hex_u64("0x-1", &v), -EINVAL);
	CHECK_EQ(parse_hex_u64("0x12g", &v), -EINVAL);
	CHECK_EQ(parse_hex_u64("0x 12", &v), -EINVAL);
	CHECK_EQ(parse_hex_u64("spin_barrier", &v), -EINVAL);
	/* found by fuzz_args (tests/fuzz/corpus/args): strtoull takes a second
	 * prefix, so "0x0x1f" was 0x1f */
	v = 7;
	CHECK_EQ(parse_hex_u64("0x0x1f", &v), -EINVAL);
	CHECK_EQ(parse_hex_u64("0x0X1f", &v), -EINVAL);
	CHECK_EQ(v, 7);
	CHECK_EQ(v, 7);
}

TEST(seconds_with_fraction)
{
	uint64_t ns = 0;

	CHECK_EQ(parse_seconds_ns("1", UINT64_MAX, &ns), 0);
	CHECK_EQ(ns, 1000000000ULL);
	CHECK_EQ(parse_seconds_ns("0.25", UINT64_MAX, &ns), 0);
	CHECK_EQ(ns, 250000000ULL);
	CHECK_EQ(parse_seconds_ns("2.0000000019", UINT64_MAX, &ns), 0);
	CHECK_EQ(ns, 2000000001ULL); /* digits past ns are ignored, not rounded */
	CHECK(parse_seconds_ns("1.", UINT64_MAX, &ns) == -EINVAL);
	CHECK(parse_seconds_ns(".5", UINT64_MAX, &ns) == -EINVAL);
	CHECK(parse_seconds_ns("1s", UINT64_MAX, &ns) == -EINVAL);
	CHECK(parse_seconds_ns("11", 10000000000ULL, &ns) == -ERANGE);
}

TEST(sizes_with_suffix)
{
	uint64_t v = 0;

	CHECK_EQ(parse_size("4K", 1, UINT64_MAX, &v), 0);
	CHECK_EQ(v, 4096);
	CHECK_EQ(parse_size("16M", 1, UINT64_MAX, &v), 0);
	CHECK_EQ(v, 16ULL << 20);
	CHECK_EQ(parse_size("1g", 1, UINT64_MAX, &v), 0);
	CHECK_EQ(v, 1ULL << 30);
	CHECK(parse_size("4KB", 1, UINT64_MAX, &v) == -EINVAL);
	CHECK(parse_size("99999999999999999G", 1, UINT64_MAX, &v) == -ERANGE);
	CHECK(parse_size("2K", 4096, UINT64_MAX, &v) == -ERANGE);
}

TEST(plain_decimals)
{
	double v = -1;

	CHECK_EQ(parse_double("2", 0.001, 1000, &v), 0);
	CHECK(v == 2);
	CHECK_EQ(parse_double("1.5", 0.001, 1000, &v), 0);
	CHECK(v == 1.5);
	CHECK_EQ(parse_double("3.", 0.001, 1000, &v), 0);
	CHECK(v == 3);
	CHECK_EQ(parse_double("0", 0.001, 1000, &v), -ERANGE);
	CHECK_EQ(parse_double("1001", 0.001, 1000, &v), -ERANGE);
	CHECK(v == 3); /* untouched */
	CHECK_EQ(parse_double("", 0, 1, &v), -EINVAL);
	CHECK_EQ(parse_double(".5", 0, 1, &v), -EINVAL);
	CHECK_EQ(parse_double("-1", -2, 1, &v), -EINVAL);
	CHECK_EQ(parse_double("1e3", 0, 1e9, &v), -EINVAL);
	CHECK_EQ(parse_double("0x10", 0, 1e9, &v), -EINVAL);
	CHECK_EQ(parse_double("inf", 0, 1e9, &v), -EINVAL);
	CHECK_EQ(parse_double("nan", 0, 1e9, &v), -EINVAL);
	CHECK_EQ(parse_double("1.2.3", 0, 1e9, &v), -EINVAL);
	CHECK_EQ(parse_double("2 ", 0, 1e9, &v), -EINVAL);
	CHECK_EQ(parse_double(NULL, 0, 1e9, &v), -EINVAL);
}
