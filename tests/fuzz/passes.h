/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The passes of the trace harnesses over one input (a .sbt file on fd): what
 * `sbt-bpf report` and `sbt-bpf export` do with a file, with every block of
 * the report on. What a pass writes is kept in memory and checked
 * (wellformed.h): a malformed document aborts, like a crash, naming the pass.
 */
#ifndef SBT_FUZZ_PASSES_H
#define SBT_FUZZ_PASSES_H

/* `report` (REPORT_TEXT: a report per process of several; REPORT_JSON: that
 * or the first process's). variant picks among the options that change what
 * is written (the harness derives it from the input): the view (both,
 * measured, approximated), --watch-all or --watch patterns, every phase in
 * JSON or the first two. */
void pass_report(int fd, int format, unsigned int variant);
/* `export --format FORMAT` of the first process of several, its views,
 * width and --both chosen by variant; OTF2 writes its archive in dir
 * (removed after). */
void pass_export(int fd, int format, const char *dir, unsigned int variant);

#endif
