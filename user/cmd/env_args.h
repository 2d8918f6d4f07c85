/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The command line of the tracing commands into a struct env. */
#ifndef SBT_ENV_ARGS_H
#define SBT_ENV_ARGS_H

#include <stddef.h>
#include "user/trace/env.h"

/* Which command parses the options. */
enum env_cmd { ENV_TRACE, ENV_RECORD, ENV_TOP };

/* Parse argv of the tracing commands into env. Returns 0, or EXIT_USAGE after
 * printing what is wrong. `cmd` selects the command's options and help. */
int env__parse(struct env *env, int argc, char **argv, enum env_cmd cmd);
/* The same with argp's flags. ARGP_NO_EXIT (fuzzing): no exit on a usage error or
 * --help; argp then goes on past the error, so the result is not to be used. */
int env__parse_flags(struct env *env, int argc, char **argv, enum env_cmd cmd,
		     unsigned int argp_flags);
/* Parse one --filter argument ("comm=lu*,uid=1000,cgroup=/user.slice")
 * into f. 0, or -EINVAL with a message in err. */
int env_filter__parse(struct env_filter *f, const char *arg, char *err, size_t errlen);

#endif
