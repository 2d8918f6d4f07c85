/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What the libFuzzer harnesses share (tests/fuzz/README): an input as a file
 * (a memfd: no disk, no name in any directory) or a string, a directory of
 * their own for what can only be written as files (OTF2), and messages that
 * get through libFuzzer's -close_fd_mask (which silences sbt-bpf's own).
 */
#ifndef SBT_FUZZ_H
#define SBT_FUZZ_H

#include <stddef.h>
#include <stdint.h>

/* From LLVMFuzzerInitialize (before libFuzzer closes stderr): sbt-bpf's
 * warnings off, the harness's messages kept. */
void fuzz_init(void);
/* A memfd holding exactly data (one descriptor, reused for every input). */
int fuzz_file(const uint8_t *data, size_t size);
/* The input as a NUL-terminated string (to free). */
char *fuzz_string(const uint8_t *data, size_t size);
/* A directory under $TMPDIR (or /tmp) for this run, removed at exit. */
const char *fuzz_tmpdir(void);
/* Remove path and everything under it. */
void fuzz_remove_tree(const char *path);
/* A check failed: say so (pass, why, the document around byte at) and abort,
 * which libFuzzer reports as a crash and keeps the input of. */
__attribute__((noreturn)) void fuzz_die_in(const char *pass, const char *why, const char *doc,
					   size_t len, size_t at);

#endif
