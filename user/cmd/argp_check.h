/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Misspelled long options, caught before argp sees them, with a
 * did-you-mean (argp itself only says "unrecognized option"). */
#ifndef SBT_ARGP_CHECK_H
#define SBT_ARGP_CHECK_H

#include <argp.h>

/* 0 if every long option in argv (up to "--") is one of argp's (its
 * children's, and argp's own --help, --usage, --version), or an unambiguous
 * prefix of one; else prints the error with the nearest option and returns
 * EXIT_USAGE. */
int argp_check_options(const struct argp *argp, int argc, char **argv);

#endif
