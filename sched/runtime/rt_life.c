// SPDX-License-Identifier: GPL-2.0
/*
 * The runtime's life cycle: created on a VM (scheduling its own lanes, or the lanes `vsched host`
 * grants), started, destroyed; bound to the public API (its clock, change notices, unlock hook);
 * its stats.
 */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "rt.h"
#include "sched/core.h"
#include "util/compiler.h"
#include "vmm/vm.h"
#include "vsched.h"

static int rt_create(struct vm *vm, struct sched *s, pthread_mutex_t *lock, unsigned int nr_lanes,
		     unsigned int flags, const struct runtime_host *host, struct runtime **out)
{
	pthread_condattr_t ca;
	struct runtime *rt;
	unsigned int i;
	int err;

	if (!nr_lanes || vm->nr_vcpus != sched_nr_vcpus(s))
		return -EINVAL;
	err = rt_timer_init();
	if (err)
		return err;
	rt = calloc(1, sizeof(*rt));
	if (!rt)
		return -ENOMEM;
	rt->v = calloc(vm->nr_vcpus, sizeof(*rt->v));
	if (!rt->v) {
		free(rt);
		return -ENOMEM;
	}
	rt->vm = vm;
	rt->s = s;
	rt->lock = lock;
	rt->nr_lanes = nr_lanes;
	rt->unscheduled = flags & RUNTIME_UNSCHEDULED;
	rt->nr_vcpus = vm->nr_vcpus;
	rt->helper_at = rt->relook_at = rt->report_at = RT_INF;
	rt->last_grant = rt_now();
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	rt->epoll_fd = rt->poke_fd = -1;
	for (i = 0; i < rt->nr_vcpus; i++) {
		struct rt_vcpu *rv = &rt->v[i];

		rv->rt = rt;
		rv->vcpu = &vm->vcpus[i];
		rv->id = i;
		rv->until = RT_INF;
		rv->stat_fd = -1;
		rv->blocking_fd = -1;
		rv->switch_fd = rv->run_fd = -1;
		rv->cpu = -1;
		rv->lane = -1;
		pthread_cond_init(&rv->cond, &ca);
		vm->vcpus[i].sched = rv;
	}
	pthread_condattr_destroy(&ca);
	/* The process's mask, from the thread that makes the VM (the runtime's own get pinned). */
	err = sched_getaffinity(0, sizeof(rt->host_cpus), &rt->host_cpus) ? -errno : 0;
	rt_place_init(rt);
	if (!err)
		err = rt_watch_init(rt);
	if (!err && !rt->unscheduled && !(flags & RUNTIME_NO_PIN))
		err = rt_pin_init(rt);
	if (err) {
		runtime_destroy(rt);
		return err;
	}
	mutex_lock(lock);
	err = rt_core_create(rt);
	if (!err && host)
		err = rt_remote_create(rt, host);
	rt_unlock(rt);	/* the subtree goes to the daemon now */
	if (!err && host) {
		mutex_lock(lock);
		err = rt_remote_joined(rt) ? 0 : -EPIPE;
		rt_unlock(rt);
	}
	if (err) {
		runtime_destroy(rt);
		return err;
	}
	*out = rt;
	return 0;
}

int runtime_create(struct vm *vm, struct sched *s, pthread_mutex_t *lock, unsigned int nr_lanes,
		   unsigned int flags, struct runtime **out)
{
	return rt_create(vm, s, lock, nr_lanes, flags, NULL, out);
}

/* The daemon places the lanes (each GRANT names its CPU): no pinning or rotation of our own. */
int runtime_create_host(struct vm *vm, struct sched *s, pthread_mutex_t *lock, unsigned int flags,
			const struct runtime_host *host, struct runtime **out)
{
	struct runtime_host_info info;
	int err = runtime_host_probe(host->sock, RUNTIME_HOST_REPLY_MS, &info);

	if (err)
		return err;
	return rt_create(vm, s, lock, info.nr_lanes, (flags | RUNTIME_NO_PIN) & ~RUNTIME_UNSCHEDULED,
			 host, out);
}

int runtime_start(struct runtime *rt)
{
	int err;

	if (rt->unscheduled)
		return 0;
	err = rt_helper_start(rt);
	if (!err && rt->remote)
		err = rt_remote_start(rt);
	if (!err && rt->remote)
		err = rt_xwait_start(rt);
	return err;
}

void runtime_destroy(struct runtime *rt)
{
	unsigned int i;

	if (!rt)
		return;
	rt_xwait_stop(rt);
	rt_remote_stop(rt);
	rt_helper_stop(rt);
	mutex_lock(rt->lock);
	if (rt->core)
		rt_core_destroy(rt);
	rt_unlock(rt);
	for (i = 0; i < rt->nr_vcpus; i++) {
		pthread_cond_destroy(&rt->v[i].cond);
		if (rt->v[i].stat_fd >= 0)
			close(rt->v[i].stat_fd);
		rt_idle_close(&rt->v[i]);
		rt_watch_close(&rt->v[i]);
		rt_timer_delete(&rt->v[i]);
		rt->vm->vcpus[i].sched = NULL;
	}
	rt_watch_exit(rt);
	rt_pin_exit(rt);
	rt_remote_destroy(rt);
	free(rt->v);
	free(rt);
}

void runtime_clock_init(struct vsched *vs)
{
	vsched_lock(vs);
	sched_advance(vsched_sched(vs), rt_now());
	vsched_unlock(vs);
}

/* A group-tree change, after the public API let go of the lock: re-decide at once. */
static void rt_api_changed(struct vsched *vs __unused, enum vsched_event ev __unused,
				const char *path __unused, const char *file __unused, void *arg)
{
	struct runtime *rt = arg;
	uint64_t now;

	mutex_lock(rt->lock);
	now = rt_now();
	if (!rt_hands_off(rt)) {
		rt_core_config(rt, now);
		rt_poke_helper(rt, now);
	}
	rt_unlock(rt);
}

/* The public API's clock, called under the lock before every read and change. */
static uint64_t rt_api_clock(void *arg)
{
	struct runtime *rt = arg;
	uint64_t now = rt_now();

	assert_held(rt->lock);
	if (!rt_hands_off(rt))
		rt_charge_running(rt, now);
	return now;
}

/* After the public API let go of the lock: what its clock's reports queued goes out. */
static void rt_api_unlocked(void *arg)
{
	struct runtime *rt = arg;

	if (rt->remote)
		rt_remote_flush(rt);
}

void runtime_bind(struct runtime *rt, struct vsched *vs)
{
	vsched_set_notify(vs, rt_api_changed, rt);
	vsched_set_clock(vs, rt_api_clock, rt);
	vsched_set_unlocked(vs, rt_api_unlocked, rt);
}

void runtime_unbind(struct vsched *vs)
{
	vsched_set_notify(vs, NULL, NULL);
	vsched_set_clock(vs, NULL, NULL);
	vsched_set_unlocked(vs, NULL, NULL);
}

void runtime_get_stats(struct runtime *rt, struct runtime_stats *out)
{
	mutex_lock(rt->lock);
	*out = rt->st;
	out->fallback = rt->fallback;
	out->helper_cpu_ns = rt_helper_cpu_ns(rt);
	rt_unlock(rt);
}
