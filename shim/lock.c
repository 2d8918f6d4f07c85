// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Probe shim, lock class (shim/shim.h): pthread mutexes, spin locks and
 * rwlocks (pthread_spin_lock, whose first instruction takes no uprobe, is
 * traced here), OpenMP locks and critical sections of both runtimes. */
#include <pthread.h>
#include <time.h>
#include "shim/shim.h"

typedef struct {
	void *p[4]; /* omp_lock_t and omp_nest_lock_t: opaque, passed by pointer */
} omp_lock_opaque;

void omp_set_lock(omp_lock_opaque *l);
void omp_unset_lock(omp_lock_opaque *l);
int omp_test_lock(omp_lock_opaque *l);
void omp_set_nest_lock(omp_lock_opaque *l);
void omp_unset_nest_lock(omp_lock_opaque *l);
int omp_test_nest_lock(omp_lock_opaque *l);
void GOMP_critical_start(void);
void GOMP_critical_end(void);
void GOMP_critical_name_start(void **pptr);
void GOMP_critical_name_end(void **pptr);
void GOMP_atomic_start(void);
void GOMP_atomic_end(void);
void __kmpc_critical(void *loc, int gtid, void *crit);
void __kmpc_critical_with_hint(void *loc, int gtid, void *crit, uintptr_t hint);
void __kmpc_end_critical(void *loc, int gtid, void *crit);

SHIM_SITES(pthread_mutex_lock);
SHIM_SITES(pthread_mutex_timedlock);
SHIM_SITES(pthread_mutex_trylock);
SHIM_SITES(pthread_mutex_unlock);
SHIM_SITES(pthread_spin_lock);
SHIM_SITES(pthread_spin_trylock);
SHIM_SITES(pthread_spin_unlock);
SHIM_SITES(pthread_rwlock_rdlock);
SHIM_SITES(pthread_rwlock_wrlock);
SHIM_SITES(pthread_rwlock_timedrdlock);
SHIM_SITES(pthread_rwlock_timedwrlock);
SHIM_SITES(pthread_rwlock_tryrdlock);
SHIM_SITES(pthread_rwlock_trywrlock);
SHIM_SITES(pthread_rwlock_unlock);
SHIM_SITES(omp_set_lock);
SHIM_SITES(omp_unset_lock);
SHIM_SITES(omp_test_lock);
SHIM_SITES(omp_set_nest_lock);
SHIM_SITES(omp_unset_nest_lock);
SHIM_SITES(omp_test_nest_lock);
SHIM_SITES(GOMP_critical_start);
SHIM_SITES(GOMP_critical_end);
SHIM_SITES(GOMP_critical_name_start);
SHIM_SITES(GOMP_critical_name_end);
SHIM_SITES(GOMP_atomic_start);
SHIM_SITES(GOMP_atomic_end);
SHIM_SITES(__kmpc_critical);
SHIM_SITES(__kmpc_critical_with_hint);
SHIM_SITES(__kmpc_end_critical);

/* A wrapper of a function of one pointer argument. */
#define WRAP1(ret, F, T)                                                                           \
	SHIM_EXPORT ret F(T a)                                                                     \
	{                                                                                          \
		return SHIM_CALL(F, NULL, a, 0, 0, 0, a);                                          \
	}
#define WRAP1_VOID(F, T)                                                                           \
	SHIM_EXPORT void F(T a)                                                                    \
	{                                                                                          \
		SHIM_CALL_VOID(F, NULL, a, 0, 0, 0, a);                                            \
	}
#define WRAP0_VOID(F)                                                                              \
	SHIM_EXPORT void F(void)                                                                   \
	{                                                                                          \
		SHIM_CALL_VOID(F, NULL, 0, 0, 0, 0);                                               \
	}

WRAP1(int, pthread_mutex_lock, pthread_mutex_t *)
WRAP1(int, pthread_mutex_trylock, pthread_mutex_t *)
WRAP1(int, pthread_mutex_unlock, pthread_mutex_t *)
WRAP1(int, pthread_spin_lock, pthread_spinlock_t *)
WRAP1(int, pthread_spin_trylock, pthread_spinlock_t *)
WRAP1(int, pthread_spin_unlock, pthread_spinlock_t *)
WRAP1(int, pthread_rwlock_rdlock, pthread_rwlock_t *)
WRAP1(int, pthread_rwlock_wrlock, pthread_rwlock_t *)
WRAP1(int, pthread_rwlock_tryrdlock, pthread_rwlock_t *)
WRAP1(int, pthread_rwlock_trywrlock, pthread_rwlock_t *)
WRAP1(int, pthread_rwlock_unlock, pthread_rwlock_t *)
WRAP1_VOID(omp_set_lock, omp_lock_opaque *)
WRAP1_VOID(omp_unset_lock, omp_lock_opaque *)
WRAP1(int, omp_test_lock, omp_lock_opaque *)
WRAP1_VOID(omp_set_nest_lock, omp_lock_opaque *)
WRAP1_VOID(omp_unset_nest_lock, omp_lock_opaque *)
WRAP1(int, omp_test_nest_lock, omp_lock_opaque *)
WRAP0_VOID(GOMP_critical_start)
WRAP0_VOID(GOMP_critical_end)
WRAP1_VOID(GOMP_critical_name_start, void **)
WRAP1_VOID(GOMP_critical_name_end, void **)
WRAP0_VOID(GOMP_atomic_start)
WRAP0_VOID(GOMP_atomic_end)

SHIM_EXPORT int pthread_mutex_timedlock(pthread_mutex_t *m, const struct timespec *t)
{
	return SHIM_CALL(pthread_mutex_timedlock, NULL, m, t, 0, 0, m, t);
}

SHIM_EXPORT int pthread_rwlock_timedrdlock(pthread_rwlock_t *l, const struct timespec *t)
{
	return SHIM_CALL(pthread_rwlock_timedrdlock, NULL, l, t, 0, 0, l, t);
}

SHIM_EXPORT int pthread_rwlock_timedwrlock(pthread_rwlock_t *l, const struct timespec *t)
{
	return SHIM_CALL(pthread_rwlock_timedwrlock, NULL, l, t, 0, 0, l, t);
}

SHIM_EXPORT void __kmpc_critical(void *loc, int gtid, void *crit)
{
	SHIM_CALL_VOID(__kmpc_critical, NULL, loc, gtid, crit, 0, loc, gtid, crit);
}

SHIM_EXPORT void __kmpc_critical_with_hint(void *loc, int gtid, void *crit, uintptr_t hint)
{
	SHIM_CALL_VOID(__kmpc_critical_with_hint, NULL, loc, gtid, crit, hint, loc, gtid, crit,
		       hint);
}

SHIM_EXPORT void __kmpc_end_critical(void *loc, int gtid, void *crit)
{
	SHIM_CALL_VOID(__kmpc_end_critical, NULL, loc, gtid, crit, 0, loc, gtid, crit);
}
