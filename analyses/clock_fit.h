/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * One node's clock against another's, from events both saw at once
 * (doc/design.md §5.8, merging nodes): samples (t, d), d the correction that
 * brings the node's time t onto the reference clock, fitted by a line
 * d = offset + drift (t - t0) (least squares, then once more without the
 * samples beyond three times the median residual: a rank descheduled as a
 * barrier released). Pure arithmetic.
 */
#ifndef SBT_CLOCK_FIT_H
#define SBT_CLOCK_FIT_H

#include <stddef.h>
#include "sbt/events.h"

struct clock_fit {
	__u64 t0;	    /* the first sample's time */
	double offset_ns;   /* the correction at t0 */
	double drift;	    /* ns of correction per ns (1e-6: 1 ppm) */
	double residual_ns; /* the largest |residual| of the samples kept: the uncertainty */
	size_t n, used;	    /* samples given, and kept */
};

/* Fit samples (t[i], d[i]) (t ascending or not). n == 0: no correction; a
 * single sample or samples within 1 ms: an offset alone (their median).
 * 0, or -ENOMEM. */
int clock_fit(const __u64 *t, const __s64 *d, size_t n, struct clock_fit *out);
/* The correction at time t. */
__s64 clock_fit__at(const struct clock_fit *f, __u64 t);

#endif
