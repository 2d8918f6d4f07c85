/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* A minimal unit-test harness: each TEST registers itself; main runs them
 * all and prints one line per test and a closing "N passed, N failed". */
#ifndef SBT_UNIT_H
#define SBT_UNIT_H

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

struct unit_test {
	const char *name;
	void (*fn)(void);
};

#define UNIT_MAX 256
static struct unit_test unit_tests[UNIT_MAX];
static int unit_ntests, unit_failed_checks;

#define TEST(name)                                                                                 \
	static void name(void);                                                                    \
	__attribute__((constructor)) static void register_##name(void)                             \
	{                                                                                          \
		if (unit_ntests < UNIT_MAX)                                                        \
			unit_tests[unit_ntests++] = (struct unit_test){#name, name};               \
	}                                                                                          \
	static void name(void)

#define CHECK(cond)                                                                                \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			printf("    %s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond);        \
			unit_failed_checks++;                                                      \
		}                                                                                  \
	} while (0)

#define CHECK_EQ(a, b)                                                                             \
	do {                                                                                       \
		uint64_t _a = (uint64_t)(a), _b = (uint64_t)(b);                                   \
		if (_a != _b) {                                                                    \
			printf("    %s:%d: %s == %" PRIu64 ", expected %s == %" PRIu64 "\n",       \
			       __FILE__, __LINE__, #a, _a, #b, _b);                                \
			unit_failed_checks++;                                                      \
		}                                                                                  \
	} while (0)

#define CHECK_STR(a, b)                                                                            \
	do {                                                                                       \
		const char *_a = (a), *_b = (b);                                                   \
		if (!_a || strcmp(_a, _b)) {                                                       \
			printf("    %s:%d: %s == \"%s\", expected \"%s\"\n", __FILE__, __LINE__,   \
			       #a, _a ? _a : "(null)", _b);                                        \
			unit_failed_checks++;                                                      \
		}                                                                                  \
	} while (0)

int main(void)
{
	int i, passed = 0, failed = 0;

	for (i = 0; i < unit_ntests; i++) {
		int before = unit_failed_checks;

		unit_tests[i].fn();
		if (unit_failed_checks == before) {
			printf("ok %s\n", unit_tests[i].name);
			passed++;
		} else {
			printf("not ok %s\n", unit_tests[i].name);
			failed++;
		}
	}
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}

#endif
