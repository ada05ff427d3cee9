/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the runtime's grant page tests (test_rt_page.c, test_rt_ahead.c): one vCPU of a
 * runtime in host mode, its grant page entry writable here as the daemon writes it.
 */
#ifndef VSCHED_TESTS_RT_PAGE_RIG_H
#define VSCHED_TESTS_RT_PAGE_RIG_H

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "../../sched/runtime/rt.h"
#include "../../vmm/accel/thread.h"
#include "host/proto.h"
#include "test.h"
#include "vmm/vm.h"

struct page_rig {
	pthread_mutex_t lock;
	struct runtime rt;
	struct rt_vcpu v;
	struct vcpu vcpu;
	struct thread_vcpu t;
	struct host_grant *page;	/* the daemon's view: writable here */
};

/* The rig, its lock held (as the runtime's callers hold it). */
static inline void rig_init(struct page_rig *g)
{
	memset(g, 0, sizeof(*g));
	pthread_mutex_init(&g->lock, NULL);
	g->page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	CU_ASSERT_FATAL(g->page != MAP_FAILED);
	g->rt.lock = &g->lock;
	g->rt.v = &g->v;
	g->rt.nr_vcpus = 1;
	g->rt.nr_lanes = 1;
	g->rt.page = g->page;
	g->rt.page_len = 4096;
	g->v.rt = &g->rt;
	g->v.vcpu = &g->vcpu;
	g->t.vcpu = &g->vcpu;
	g->vcpu.run = &g->t.run;
	mutex_lock(&g->lock);
}

/* The vCPU thread: waits in rt_page_wait() until it is out of RT_WAITING. */
static inline void *rig_waiter(void *arg)
{
	struct page_rig *g = arg;

	mutex_lock(&g->lock);
	while (g->v.state == RT_WAITING)
		rt_page_wait(&g->rt, &g->v);
	mutex_unlock(&g->lock);
	return NULL;
}

/* host_page_write_at() as the daemon does it: seq odd, the fields, seq even. */
static inline void rig_write_cpu_at(struct page_rig *g, uint32_t lane, uint64_t cpu, uint64_t at)
{
	struct host_grant *e = &g->page[0];

	e->seq++;
	e->lane = lane;
	e->until = HOST_TIME_INF;
	e->cpu = cpu;
	e->at = at;
	__atomic_store_n(&e->seq, e->seq + 1, __ATOMIC_RELEASE);
}

static inline void rig_write_at(struct page_rig *g, uint32_t lane, uint64_t at)
{
	rig_write_cpu_at(g, lane, HOST_CPU_NONE, at);
}

/* host_page_write() as the daemon does it. */
static inline void rig_write(struct page_rig *g, uint32_t lane)
{
	rig_write_at(g, lane, 0);
}

/* vCPU 0's bit in the offer page: set while its thread waits on its entry (rt_page_wait()). */
static inline bool rig_parked(struct page_rig *g)
{
	return __atomic_load_n(&g->rt.offer->parked[0], __ATOMIC_SEQ_CST) & 1;
}

static inline void rig_done(struct page_rig *g)
{
	mutex_unlock(&g->lock);
	if (g->rt.offer)
		munmap(g->rt.offer, sizeof(struct host_offer));
	munmap(g->page, 4096);
	free(g->rt.lane_cpu);
}

#endif
