/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The passes of the trace harnesses over one input (a .sbt file on fd): what
 * `sbt-bpf report` and `sbt-bpf export` do with a file, with every block of
 * the report on. What a pass writes is kept in memory and checked
 * (wellformed.h): a malformed document aborts, like a crash, naming the pass.
 */
#ifndef SBT_FUZZ_PASSES_H
#define SBT_FUZZ_PASSES_H

/* `report` (REPORT_TEXT: a report per process; REPORT_JSON: the first
 * process of several). variant picks among the options that change what is
 * written: the view (both, measured, approximated), every phase or the
 * first two in JSON (the harness derives it from the input). */
void pass_report(int fd, int format, unsigned int variant);
/* `export --format FORMAT` of the first process of several; OTF2 writes its
 * archive in dir (removed after). */
void pass_export(int fd, int format, const char *dir);

#endif
