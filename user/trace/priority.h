/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The drain thread's priority while tracing (--nice): low, so that the
 * job's threads keep their CPUs and sbt-bpf runs where they leave one idle,
 * and back to the normal priority while a ring fills up or a calibration
 * runs (doc/design.md §4, The drain's priority).
 */
#ifndef SBT_TRACE_PRIORITY_H
#define SBT_TRACE_PRIORITY_H

struct priority {
	int enabled;
	int low, normal; /* nice values */
	int is_low;
	int warned; /* a change was refused, said once */
};

/* Whether the drain should be at its low priority after a drain that found
 * its fullest ring fill_permille full, being low now or not: normal from a
 * quarter, low again below a sixteenth (hysteresis, so that a ring near a
 * bound does not switch it at every drain). */
int priority__wants_low(int is_low, int fill_permille);
/* Take the calling thread to nice `low` (enabled only when low >= 0). */
void priority__begin(struct priority *p, int low);
/* After a drain that found its fullest ring fill_permille full. */
void priority__adjust(struct priority *p, int fill_permille);
/* The normal priority until priority__adjust() lowers it again. */
void priority__raise(struct priority *p);

#endif
