// SPDX-License-Identifier: GPL-2.0
/*
 * BUG reports and the per-thread held-lock lists behind assert_held() (include/util/debug.h).
 * Built into every library; only -DVSCHED_DEBUG code calls the lock tracking.
 */
#include <stdio.h>
#include <stdlib.h>

#include "util/debug.h"

/* Locks one thread holds at once: the tree's lock plus a few of ctl/'s at most. */
#define LOCKDEP_MAX_HELD 8

static debug_bug_fn bug_hook;
static __thread const void *held[LOCKDEP_MAX_HELD];
static __thread unsigned int nr_held;

void debug_bug(const char *file, int line, const char *what)
{
	debug_bug_fn fn = __atomic_load_n(&bug_hook, __ATOMIC_ACQUIRE);

	if (fn) {
		fn(file, line, what);
		return;
	}
	fprintf(stderr, "vsched: BUG at %s:%d: %s\n", file, line, what);
	abort();
}

debug_bug_fn debug_set_bug_hook(debug_bug_fn fn)
{
	return __atomic_exchange_n(&bug_hook, fn, __ATOMIC_ACQ_REL);
}

bool lockdep_is_held(const void *lock)
{
	unsigned int i;

	for (i = 0; i < nr_held; i++)
		if (held[i] == lock)
			return true;
	return false;
}

void lockdep_acquire(const void *lock)
{
	if (lockdep_is_held(lock)) {
		debug_bug(__FILE__, __LINE__, "lock taken twice by one thread");
		return;
	}
	if (nr_held == LOCKDEP_MAX_HELD) {
		debug_bug(__FILE__, __LINE__, "too many locks held");
		return;
	}
	held[nr_held++] = lock;
}

/* Locks are released in any order: the last one moves into the gap. */
void lockdep_release(const void *lock)
{
	unsigned int i;

	for (i = 0; i < nr_held; i++)
		if (held[i] == lock) {
			held[i] = held[--nr_held];
			return;
		}
	debug_bug(__FILE__, __LINE__, "releasing a lock this thread does not hold");
}
