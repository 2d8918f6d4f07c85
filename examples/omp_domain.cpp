// A C++ OpenMP code written the way LULESH-like proxy apps are: a Domain
// class whose methods hold the parallel loops (g++ outlines them as
// "Domain::advance(int, int) [clone ._omp_fn.0]", clang as .omp_outlined.
// functions), a loop with a reduction, a loop over the elements, and an
// explicit barrier each thread times itself around on CLOCK_MONOTONIC (the
// e2e tests' ground truth, the same lines as examples/omp_heat.F90 prints).
// Thread 0 works LATE_US more before that barrier, and in its last iteration
// of the reduction: each step has a known late thread at both. The
// reduction's loop is split in equal static chunks, one a thread, so that a
// thread knows its last iteration: it times its arrival there, and its
// departure after the construct (clang's libomp waits inside
// __kmpc_reduce/__kmpc_end_reduce, then at the loop's own __kmpc_barrier;
// gcc's libgomp at one GOMP_barrier).
//
// Usage: omp_domain [STEPS [SIZE [LATE_US]]]   (defaults 50 200000 1000)
// Prints "barrier_line L", "reduction_line L", per step and thread "phase K thread I tid T
// arrive_ns A depart_ns D" and "reduction K thread I tid T arrive_ns A
// depart_ns D", then "steps N size S threads P energy E" and "total_ns N".
#include <omp.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <vector>

#include "cxx_common.hpp"

static const char USAGE[] = "omp_domain [STEPS [SIZE [LATE_US]]]";

class Domain
{
      public:
	Domain(int size, int steps, int threads)
	    : e_(size, 1.0), p_(size, 0.0), q_(size, 0.0), threads_(threads),
	      arrive_(size_t(steps) * threads), depart_(size_t(steps) * threads),
	      red_arrive_(size_t(steps) * threads), red_depart_(size_t(steps) * threads),
	      tids_(threads)
	{
	}

	double advance(int steps, int late_us);
	void print(int steps) const;

      private:
	void spin(int us) const;

	std::vector<double> e_, p_, q_;
	int threads_, bar_line_ = 0, red_line_ = 0;
	std::vector<int64_t> arrive_, depart_, red_arrive_, red_depart_;
	std::vector<long> tids_;
};

void Domain::spin(int us) const
{
	int64_t until = example::now_ns() + int64_t(us) * 1000;

	while (example::now_ns() < until)
		;
}

double Domain::advance(int steps, int late_us)
{
	const long n = long(e_.size());
	const long chunk = n / threads_;
	double energy = 0;

#pragma omp parallel
	{
		const int me = omp_get_thread_num();

		tids_[me] = syscall(SYS_gettid);
		for (int s = 0; s < steps; s++) {
#pragma omp for
			for (long i = 1; i < n - 1; i++)
				p_[i] = 0.5 * e_[i] + 0.25 * (e_[i - 1] + e_[i + 1]);
			if (me == 0)
				red_line_ = __LINE__ + 1;
#pragma omp for reduction(+ : energy) schedule(static, chunk)
			for (long i = 0; i < chunk * threads_; i++) {
				q_[i] = p_[i] * p_[i];
				energy += q_[i];
				if (i == (me + 1) * chunk - 1) {
					if (me == 0)
						spin(late_us);
					red_arrive_[size_t(s) * threads_ + me] = example::now_ns();
				}
			}
			red_depart_[size_t(s) * threads_ + me] = example::now_ns();
			if (me == 0)
				spin(late_us);
			arrive_[size_t(s) * threads_ + me] = example::now_ns();
			if (me == 0)
				bar_line_ = __LINE__ + 1;
#pragma omp barrier
			depart_[size_t(s) * threads_ + me] = example::now_ns();
		}
	}
	return energy;
}

void Domain::print(int steps) const
{
	printf("barrier_line %d\nreduction_line %d\n", bar_line_, red_line_);
	for (int s = 0; s < steps; s++)
		for (int t = 0; t < threads_; t++) {
			size_t k = size_t(s) * threads_ + t;

			printf("phase %d thread %d tid %ld arrive_ns %lld depart_ns %lld\n", s, t,
			       tids_[t], (long long)arrive_[k], (long long)depart_[k]);
			printf("reduction %d thread %d tid %ld arrive_ns %lld depart_ns %lld\n", s,
			       t, tids_[t], (long long)red_arrive_[k], (long long)red_depart_[k]);
		}
}

int main(int argc, char **argv)
{
	const int steps = int(example::arg_or(argc, argv, 1, 50, 1, 100000, USAGE));
	const int size = int(example::arg_or(argc, argv, 2, 200000, 16, 100000000, USAGE));
	const int late_us = int(example::arg_or(argc, argv, 3, 1000, 0, 1000000, USAGE));
	const int threads = omp_get_max_threads();
	Domain d(size, steps, threads);
	int64_t t0 = example::now_ns();
	double energy = d.advance(steps, late_us);
	int64_t total = example::now_ns() - t0;

	d.print(steps);
	printf("steps %d size %d threads %d energy %.6g\n", steps, size, threads, energy);
	printf("total_ns %lld\n", (long long)total);
	return 0;
}
