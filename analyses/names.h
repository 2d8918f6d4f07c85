/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Names of addresses (call sites, barrier objects) per process, and of
 * threads. Filled by the live symbolizer or from a trace file; read by the
 * reports. */
#ifndef SBT_NAMES_H
#define SBT_NAMES_H

#include <stddef.h>
#include "sbt/events.h"

struct names;

struct names *names__new(void);
void names__free(struct names *n);
/* Name addr of process pid (copied). 0 or -ENOMEM. */
int names__set(struct names *n, __u32 pid, __u64 addr, const char *name);
/* The same for a new address, numbered: a name names__set_numbered() gave
 * another address of pid already is made "NAME #2", "NAME #3"... in the
 * order they are set; "" is not. For the call sites the reports list side
 * by side (barriers: two calls on one source line must not read alike). */
int names__set_numbered(struct names *n, __u32 pid, __u64 addr, const char *name);
/* NULL when unknown. */
const char *names__get(const struct names *n, __u32 pid, __u64 addr);
size_t names__count(const struct names *n);
/* The i-th name set, in insertion order. */
const char *names__at(const struct names *n, size_t i, __u32 *pid, __u64 *addr);

/* A call site for display: its name, else its address in hex. n may be
 * NULL. */
void names__site(const struct names *n, __u32 pid, __u64 addr, char *buf, size_t len);
/* A synchronization object for display: its name, else the function that
 * named it (symbol) and its address; a team barrier (object 0) by symbol. */
void names__object(const struct names *n, __u32 pid, __u64 object, const char *symbol, char *buf,
		   size_t len);

int names__set_comm(struct names *n, __u32 tid, const char *comm);
const char *names__comm(const struct names *n, __u32 tid);

#endif
