// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Time ordering of per-CPU rings (lib/ordered.c): interleaved and
 * out-of-order input comes out sorted up to the horizon, ties in push
 * order; max and a failing callback stop the flush where they should; a
 * record older than one flushed is late. */
#include "lib/ordered.h"
#include "unit.h"

struct out {
	__u64 ts[64];
	__u32 tid[64];
	int n;
	int fail_at; /* the callback fails on this record (-1: never) */
};

static int take(void *ctx, const struct sbt_event *e)
{
	struct out *o = ctx;

	if (o->n == o->fail_at)
		return -5;
	o->ts[o->n] = e->ts;
	o->tid[o->n++] = e->tid;
	return 0;
}

/* A record of thread tid at ts, from ring tid % 2. */
static void push(struct ordered *o, __u64 ts, __u32 tid)
{
	struct sbt_event e = {.ts = ts, .tid = tid};

	CHECK_EQ(ordered__push(o, tid % 2, &e), 0);
}

/* Two rings' drains, interleaved in time, one with a small inversion. */
TEST(interleaved_rings_come_out_sorted_up_to_the_horizon)
{
	struct ordered *o = ordered__new(2);
	struct out out = {.fail_at = -1};

	push(o, 10, 1);
	push(o, 30, 1);
	push(o, 25, 1); /* preempted between its reserve and its clock read */
	push(o, 50, 1);
	push(o, 20, 2);
	push(o, 40, 2);
	CHECK_EQ(ordered__flush(o, 40, 100, take, &out), 5);
	CHECK_EQ(out.n, 5);
	CHECK_EQ(out.ts[0], 10);
	CHECK_EQ(out.ts[1], 20);
	CHECK_EQ(out.ts[2], 25);
	CHECK_EQ(out.ts[3], 30);
	CHECK_EQ(out.ts[4], 40);
	CHECK_EQ(ordered__len(o), 1);
	push(o, 45, 2);
	CHECK_EQ(ordered__flush(o, ~0ULL, 100, take, &out), 2);
	CHECK_EQ(out.ts[5], 45);
	CHECK_EQ(out.ts[6], 50);
	CHECK_EQ(ordered__late(o), 0);
	ordered__free(o);
}

TEST(ties_keep_push_order)
{
	struct ordered *o = ordered__new(2);
	struct out out = {.fail_at = -1};
	__u32 tid;

	for (tid = 1; tid <= 20; tid++)
		push(o, 7, tid); /* both rings, alternately */
	CHECK_EQ(ordered__flush(o, 7, 100, take, &out), 20);
	for (tid = 1; tid <= 20; tid++)
		CHECK_EQ(out.tid[tid - 1], tid);
	ordered__free(o);
}

TEST(max_and_a_failing_callback_stop_the_flush)
{
	struct ordered *o = ordered__new(2);
	struct out out = {.fail_at = 3};
	__u64 ts;

	for (ts = 10; ts >= 1; ts--)
		push(o, ts, 0); /* one ring, every record out of order */
	CHECK_EQ(ordered__flush(o, 100, 2, take, &out), 2);
	CHECK_EQ(out.ts[1], 2);
	CHECK_EQ(ordered__flush(o, 100, 100, take, &out), -5);
	CHECK_EQ(out.n, 3);
	CHECK_EQ(ordered__len(o), 7); /* the failed record is kept */
	out.fail_at = -1;
	CHECK_EQ(ordered__flush(o, 100, 100, take, &out), 7);
	CHECK_EQ(out.ts[3], 4);
	CHECK_EQ(out.ts[9], 10);
	ordered__free(o);
}

TEST(a_record_older_than_one_flushed_is_late)
{
	struct ordered *o = ordered__new(2);
	struct out out = {.fail_at = -1};

	push(o, 100, 1);
	CHECK_EQ(ordered__flush(o, 100, 10, take, &out), 1);
	push(o, 90, 2);
	push(o, 110, 2);
	CHECK_EQ(ordered__late(o), 1);
	CHECK_EQ(ordered__flush(o, 100, 10, take, &out), 1);
	CHECK_EQ(out.ts[1], 90);
	ordered__free(o);
}

/* A queue grows past its first allocation and wraps around its circle. */
TEST(long_interleaved_runs_stay_sorted)
{
	struct ordered *o = ordered__new(2);
	struct out out = {.fail_at = -1};
	__u64 ts, expect = 1;
	int bad = 0, round;

	for (round = 0; round < 20; round++) {
		for (ts = 1 + 1000 * (__u64)round; ts <= 1000 * (__u64)(round + 1); ts++)
			push(o, ts, (__u32)(ts % 3 == 0)); /* a third on ring 1 */
		while (ordered__len(o)) {
			out.n = 0;
			CHECK(ordered__flush(o, 1000 * (round + 1), 64, take, &out) > 0);
			for (int i = 0; i < out.n; i++)
				bad += out.ts[i] != expect++;
		}
	}
	CHECK_EQ(bad, 0);
	CHECK_EQ(expect, 20001);
	ordered__free(o);
}
