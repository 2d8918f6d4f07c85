/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Subcommands; each returns the process exit code (lib/log.h). */
#ifndef SBT_CMDS_H
#define SBT_CMDS_H

#include "user/cmd/env_args.h"

/* Live tracing, record and top: the same session with other outputs. */
int cmd_trace(int argc, char **argv, enum env_cmd cmd);
int cmd_report(int argc, char **argv);
int cmd_calibrate(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_merge(int argc, char **argv);

#endif
