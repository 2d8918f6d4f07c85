// A C++ team of std::threads synchronized the way C++ codes without
// OpenMP often are: a barrier class made of a std::mutex and a
// std::condition_variable (generation count, cv.wait with a predicate,
// notify_all by the last arrival). Thread i works (1 + i) units a step, so
// the last thread is always the late one: a load imbalance that stays.
// Every thread times its own barrier calls on CLOCK_MONOTONIC, from just
// after it holds the mutex (its arrival) to the return of its wait or
// notify (the e2e tests' ground truth, in examples/omp_heat.F90's lines).
//
// Usage: cxx_team [THREADS [STEPS [UNIT_US]]]   (defaults 3 20 500)
// Prints per step and thread "phase K thread I tid T arrive_ns A depart_ns
// D", then "threads N steps S" and "total_ns N".
#include <sys/syscall.h>
#include <unistd.h>

#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <mutex>
#include <thread>
#include <vector>

#include "cxx_common.hpp"

static const char USAGE[] = "cxx_team [THREADS [STEPS [UNIT_US]]]";

namespace
{

void work(int64_t us)
{
	int64_t until = example::now_ns() + us * 1000;

	while (example::now_ns() < until)
		;
}

} // namespace

namespace solver
{

class Barrier
{
      public:
	explicit Barrier(int n) : n_(n)
	{
	}

	// Returns when all n have called it; *arrive is when this one held the
	// mutex.
	void wait(int64_t *arrive)
	{
		std::unique_lock<std::mutex> lock(m_);
		const unsigned long gen = gen_;

		*arrive = example::now_ns();
		if (++count_ == n_) {
			count_ = 0;
			gen_++;
			cv_.notify_all();
			return;
		}
		cv_.wait(lock, [&] { return gen != gen_; });
	}

      private:
	std::mutex m_;
	std::condition_variable cv_;
	int n_, count_ = 0;
	unsigned long gen_ = 0;
};

} // namespace solver

int main(int argc, char **argv)
{
	const int nthreads = int(example::arg_or(argc, argv, 1, 3, 2, 64, USAGE));
	const int steps = int(example::arg_or(argc, argv, 2, 20, 1, 100000, USAGE));
	const int unit_us = int(example::arg_or(argc, argv, 3, 500, 0, 1000000, USAGE));
	std::vector<int64_t> arrive(size_t(steps) * nthreads), depart(arrive.size());
	std::vector<long> tids(nthreads);
	std::vector<std::thread> team;
	solver::Barrier barrier(nthreads);
	const int64_t t0 = example::now_ns();

	for (int i = 0; i < nthreads; i++)
		team.emplace_back([&, i] {
			tids[i] = syscall(SYS_gettid);
			for (int s = 0; s < steps; s++) {
				const size_t k = size_t(s) * nthreads + i;

				work(int64_t(unit_us) * (1 + i));
				barrier.wait(&arrive[k]);
				depart[k] = example::now_ns();
			}
		});
	for (auto &t : team)
		t.join();
	const int64_t total = example::now_ns() - t0;

	for (int s = 0; s < steps; s++)
		for (int i = 0; i < nthreads; i++)
			printf("phase %d thread %d tid %ld arrive_ns %lld depart_ns %lld\n", s, i,
			       tids[i], (long long)arrive[size_t(s) * nthreads + i],
			       (long long)depart[size_t(s) * nthreads + i]);
	printf("threads %d steps %d\n", nthreads, steps);
	printf("total_ns %lld\n", (long long)total);
	return 0;
}
