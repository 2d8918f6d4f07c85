/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* --filter of -a: which processes become jobs (by name, uid, cgroup). */
#ifndef SBT_FILTER_H
#define SBT_FILTER_H

#include <sys/types.h>
#include "user/trace/env.h"

/* Whether process pid matches every key f gives (a key given several
 * times matches any of its values). A process that cannot be read does
 * not match a key that needs it. */
int filter__accepts(const struct env_filter *f, pid_t pid);
/* The same for a process that is gone, known by the name its records gave
 * (comm): only a filter of names alone can accept it. */
int filter__accepts_gone(const struct env_filter *f, const char *comm);

#endif
