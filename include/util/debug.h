/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Debug checks: BUG_ON() for states that must never happen, and lockdep-style lock tracking so
 * that "called with the lock held" is checked rather than only written down. Compiled in with
 * -DVSCHED_DEBUG (the ASan build and the unit tests), out of the release build, where every
 * macro below costs nothing.
 *
 * Tracking: each thread keeps the locks it holds, taken with mutex_lock() and released by
 * mutex_unlock() and the condition waits below (which drop the lock while they sleep), as the
 * kernel's lockdep keeps a task's held_locks. assert_held(lock) checks that the calling thread
 * owns lock. A lock taken with plain pthread_mutex_lock() is unknown to it.
 */
#ifndef VSCHED_UTIL_DEBUG_H
#define VSCHED_UTIL_DEBUG_H

#include <pthread.h>
#include <stdbool.h>
#include <time.h>

/* A BUG: "vsched: BUG at file:line: what" on stderr and abort(), unless a hook is set. */
void debug_bug(const char *file, int line, const char *what);

/*
 * For tests: BUGs go to fn, which records them, and execution goes on past the check; NULL
 * restores abort(). Returns the previous hook.
 */
typedef void (*debug_bug_fn)(const char *file, int line, const char *what);
debug_bug_fn debug_set_bug_hook(debug_bug_fn fn);

/* The calling thread's held locks (util/debug.c); used through the wrappers below. */
void lockdep_acquire(const void *lock);
void lockdep_release(const void *lock);
bool lockdep_is_held(const void *lock);

#ifdef VSCHED_DEBUG
#define BUG_ON(cond)                                                     \
	do {                                                             \
		if (__builtin_expect(!!(cond), 0))                       \
			debug_bug(__FILE__, __LINE__, #cond);            \
	} while (0)
#define assert_held(lock)	BUG_ON(!lockdep_is_held(lock))
#define lockdep_acquired(lock)	lockdep_acquire(lock)
#define lockdep_released(lock)	lockdep_release(lock)
#else
#define BUG_ON(cond)		do { (void)sizeof(!(cond)); } while (0)
#define assert_held(lock)	do { (void)sizeof(lock); } while (0)
#define lockdep_acquired(lock)	do { (void)sizeof(lock); } while (0)
#define lockdep_released(lock)	do { (void)sizeof(lock); } while (0)
#endif

static inline void mutex_lock(pthread_mutex_t *m)
{
	pthread_mutex_lock(m);
	lockdep_acquired(m);
}

static inline void mutex_unlock(pthread_mutex_t *m)
{
	lockdep_released(m);
	pthread_mutex_unlock(m);
}

static inline int mutex_cond_wait(pthread_cond_t *c, pthread_mutex_t *m)
{
	int ret;

	lockdep_released(m);
	ret = pthread_cond_wait(c, m);
	lockdep_acquired(m);
	return ret;
}

static inline int mutex_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m,
				       const struct timespec *abstime)
{
	int ret;

	lockdep_released(m);
	ret = pthread_cond_timedwait(c, m, abstime);
	lockdep_acquired(m);
	return ret;
}

#endif
