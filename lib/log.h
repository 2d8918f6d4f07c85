/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* One logging convention: messages go to stderr, prefixed with the program
 * name; errors are reported where they are detected, exit codes are decided
 * once, in main. */
#ifndef SBT_LOG_H
#define SBT_LOG_H

/* -v: info, -vv: debug (ours), -vvv: libbpf's debug output too */
enum log_level { LOG_QUIET = -1, LOG_WARN = 0, LOG_INFO = 1, LOG_DEBUG = 2, LOG_LIBBPF = 3 };

void log_set_level(int level);
int log_get_level(void);
void log_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Exit codes (doc/design.md §7). */
#define EXIT_OK	     0
#define EXIT_RUNTIME 1
#define EXIT_USAGE   2

#endif
