// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Amdahl's serial fraction from two runs (doc/design.md §5.6). */
#include <math.h>
#include "analyses/speedup.h"

/*
 * With R = t_a / t_b: R (f + (1 - f) / p_b) = f + (1 - f) / p_a, linear in
 * f: f (R - R / p_b - 1 + 1 / p_a) = 1 / p_a - R / p_b.
 */
double amdahl_serial(double t_a, unsigned int p_a, double t_b, unsigned int p_b)
{
	double r, den;

	if (!(t_a > 0) || !(t_b > 0) || !p_a || !p_b || p_a == p_b)
		return NAN;
	r = t_a / t_b;
	den = r - r / p_b - 1 + 1.0 / p_a;
	if (fabs(den) < 1e-12)
		return NAN;
	return (1.0 / p_a - r / p_b) / den;
}
