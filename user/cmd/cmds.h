/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Subcommands; each returns the process exit code (log.h). */
#ifndef SBT_CMDS_H
#define SBT_CMDS_H

/* cmd: 0 live tracing, 1 record, 2 top (enum env_cmd) */
int cmd_trace(int argc, char **argv, int cmd);
int cmd_report(int argc, char **argv);
int cmd_calibrate(int argc, char **argv);
int cmd_export(int argc, char **argv);

#endif
