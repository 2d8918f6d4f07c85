// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* A line through clock samples, robust to a few late ones (analyses/clock_fit.h). */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "analyses/clock_fit.h"

/* Samples closer in time than this give no drift worth fitting. */
#define SPAN_MIN_NS 1000000.0
/* Samples kept: residual within this many median residuals (and 1 us). */
#define OUTLIER_FACTOR 3.0
#define OUTLIER_FLOOR  1000.0

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, size_t n)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Least squares over the samples keep[] marks, into f (offset at t0, drift). */
static void fit_line(const __u64 *t, const __s64 *d, const char *keep, size_t n,
		     struct clock_fit *f, double *scratch)
{
	double st = 0, sd = 0, stt = 0, std = 0, m, lo = INFINITY, hi = -INFINITY;
	size_t i, k = 0;

	for (i = 0; i < n; i++) {
		double x = (double)(t[i] - f->t0), y = (double)d[i];

		if (!keep[i])
			continue;
		st += x;
		sd += y;
		stt += x * x;
		std += x * y;
		lo = x < lo ? x : lo;
		hi = x > hi ? x : hi;
		scratch[k++] = y;
	}
	f->used = k;
	m = (double)k;
	if (hi - lo < SPAN_MIN_NS || m * stt - st * st == 0) {
		f->offset_ns = median(scratch, k);
		f->drift = 0;
		return;
	}
	f->drift = (m * std - st * sd) / (m * stt - st * st);
	f->offset_ns = (sd - f->drift * st) / m;
}

static double residual(const struct clock_fit *f, __u64 t, __s64 d)
{
	return fabs((double)d - (f->offset_ns + f->drift * (double)(t - f->t0)));
}

int clock_fit(const __u64 *t, const __s64 *d, size_t n, struct clock_fit *out)
{
	double *scratch, cut;
	char *keep;
	size_t i;

	memset(out, 0, sizeof(*out));
	out->n = n;
	if (!n)
		return 0;
	scratch = malloc(n * sizeof(*scratch));
	keep = malloc(n);
	if (!scratch || !keep) {
		free(scratch);
		free(keep);
		return -ENOMEM;
	}
	out->t0 = t[0];
	for (i = 0; i < n; i++)
		out->t0 = t[i] < out->t0 ? t[i] : out->t0;
	memset(keep, 1, n);
	fit_line(t, d, keep, n, out, scratch);
	for (i = 0; i < n; i++)
		scratch[i] = residual(out, t[i], d[i]);
	cut = OUTLIER_FACTOR * median(scratch, n);
	cut = cut > OUTLIER_FLOOR ? cut : OUTLIER_FLOOR;
	for (i = 0; i < n; i++)
		keep[i] = residual(out, t[i], d[i]) <= cut;
	fit_line(t, d, keep, n, out, scratch);
	for (i = 0; i < n; i++)
		if (keep[i] && residual(out, t[i], d[i]) > out->residual_ns)
			out->residual_ns = residual(out, t[i], d[i]);
	free(scratch);
	free(keep);
	return 0;
}

__s64 clock_fit__at(const struct clock_fit *f, __u64 t)
{
	double dt = t >= f->t0 ? (double)(t - f->t0) : -(double)(f->t0 - t);

	return (__s64)llround(f->offset_ns + f->drift * dt);
}
