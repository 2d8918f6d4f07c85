/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Functions of sbt-bpf's own, one per class of first instruction
 * (insn_class__of): the calibration probes them when no library function
 * of their class is measured, so that a function calibrated by no name of
 * its own (--probe, region bodies, tasks) is charged a cost measured on its
 * class in the session, never another class's (doc/design.md §5.4): the
 * calibrated library functions may all be of one class (on Debian most
 * begin with a push, emulated; with a CET glibc, an endbr64 and then a push,
 * probed past the endbr64, or a mov, single-stepped at ~10x the cost).
 */
#ifndef SBT_CLASS_REFS_H
#define SBT_CLASS_REFS_H

#include "user/resolve/probes.h"

/* The functions, by class: each does nothing and returns. */
void sbt_class_xol(void);
void sbt_class_emulated(void);
void sbt_class_nop5(void);

/* The references, one per enum insn_class in its order (calibrate.h). */
#define CLASS_REFS 3

/* The references our own executable's symbols name, as user probes of
 * kind SBT_PK_REGION, into up: how many. None when it was stripped. */
int class_refs__probes(struct user_probe up[CLASS_REFS]);

#endif
