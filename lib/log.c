// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdarg.h>
#include <stdio.h>
#include "lib/log.h"

static int log_level = LOG_WARN;

void log_set_level(int level)
{
	log_level = level;
}

int log_get_level(void)
{
	return log_level;
}

static void vlog(const char *prefix, const char *fmt, va_list ap)
{
	fprintf(stderr, "sbt-bpf: %s", prefix);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void log_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog("error: ", fmt, ap);
	va_end(ap);
}

#define LOG_AT(name, level, prefix)                                                                \
	void name(const char *fmt, ...)                                                            \
	{                                                                                          \
		va_list ap;                                                                        \
		if (log_level < level)                                                             \
			return;                                                                    \
		va_start(ap, fmt);                                                                 \
		vlog(prefix, fmt, ap);                                                             \
		va_end(ap);                                                                        \
	}

LOG_AT(log_warn, LOG_WARN, "warning: ")
LOG_AT(log_info, LOG_INFO, "")
LOG_AT(log_debug, LOG_DEBUG, "debug: ")
