// SPDX-License-Identifier: GPL-2.0
/*
 * A handoff claimed by a holder that blocks (sched/runtime/rt_hand.c): the successor is granted
 * here, no BLOCKED is sent, and the claim's TOOK leaves with the releaser's unlock. Deferred to
 * the VMM's next datagram, it waited for the releaser's own next wake (it sends nothing while
 * it sleeps), and until the daemon read it the daemon offered this VM no held lane: that wake
 * went through the daemon (docs/host.md, "which preemptions still go through the daemon").
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../../sched/runtime/rt.h"
#include "../../sched/runtime/rt_remote.h"
#include "host/proto.h"
#include "test.h"

struct hand_rig {
	pthread_mutex_t lock;
	struct runtime rt;
	struct rt_vcpu v[2];
	struct rt_remote r;
	int fd[2];		/* [1]: the daemon's end */
};

/* One lane held by vCPU 0, vCPU 1 waiting and published as its successor (gen 7). */
static void rig_init(struct hand_rig *g)
{
	struct host_offer *o;
	unsigned int i;

	memset(g, 0, sizeof(*g));
	pthread_mutex_init(&g->lock, NULL);
	CU_ASSERT_EQUAL_FATAL(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, g->fd), 0);
	g->rt.lock = &g->lock;
	g->rt.v = g->v;
	g->rt.nr_vcpus = 2;
	g->rt.nr_lanes = 1;
	g->rt.offer_hand = true;
	g->rt.remote = &g->r;
	g->r.joined = true;
	g->r.fd = g->fd[0];
	rt_outbox_init(&g->r.ob, &g->lock);
	for (i = 0; i < 2; i++) {
		g->v[i].rt = &g->rt;
		g->v[i].id = i;
		pthread_cond_init(&g->v[i].cond, NULL);
	}
	o = mmap(NULL, sizeof(*o), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	CU_ASSERT_FATAL(o != MAP_FAILED);
	g->rt.offer = o;
	mutex_lock(&g->lock);
	rt_outbox_open(&g->r.ob, g->fd[0]);
	rt_set_state(&g->v[0], RT_BLOCKED, rt_now());
	rt_set_state(&g->v[0], RT_WAITING, rt_now());
	rt_set_state(&g->v[0], RT_RUNNING, rt_now());
	rt_set_state(&g->v[1], RT_BLOCKED, rt_now());
	rt_set_state(&g->v[1], RT_WAITING, rt_now());
	g->v[0].seq_applied = 4;
	g->v[1].seq_applied = 6;
	/* The daemon's handoff offer, as host_hand_make() writes it. */
	o->hand_succ = 1;
	o->hand_succ_seq = 6;
	o->hand_sent = 0;
	o->hand_slice = 0;
	for (i = 0; i < HOST_HAND_LANES; i++)
		o->hand[i].holder = HOST_OFFER_NONE;
	o->hand[0].holder = 0;
	o->hand[0].holder_seq = 4;
	o->hand[0].cpu = HOST_CPU_NONE;
	o->word = host_offer_word(7, HOST_OFFER_HAND, HOST_OFFER_FREE);
}

static void rig_done(struct hand_rig *g)
{
	rt_outbox_drop(&g->r.ob);
	rt_outbox_destroy(&g->r.ob);
	munmap(g->rt.offer, sizeof(struct host_offer));
	free(g->rt.lane_cpu);
	close(g->fd[0]);
	close(g->fd[1]);
}

static void test_rt_hand_took(void)
{
	struct hand_rig g;
	struct host_ev m;
	ssize_t n;

	rig_init(&g);
	/* vCPU 0 blocks (rt_leave_runnable()): it claims the handoff, vCPU 1 runs. */
	rt_set_state(&g.v[0], RT_BLOCKED, rt_now());
	rt_core_blocked(&g.rt, 0, rt_now(), true);
	CU_ASSERT_EQUAL(g.v[1].state, RT_RUNNING);
	CU_ASSERT_EQUAL(g.rt.st.handoffs, 1);
	CU_ASSERT_EQUAL(host_offer_vcpu(__atomic_load_n(&g.rt.offer->word, __ATOMIC_SEQ_CST)), 0);
	rt_unlock(&g.rt);
	/* At the releaser's unlock the daemon has the claim's TOOK, and nothing else. */
	n = recv(g.fd[1], &m, sizeof(m), MSG_DONTWAIT);
	CU_ASSERT_EQUAL(n, (ssize_t)sizeof(m));
	if (n == (ssize_t)sizeof(m)) {
		CU_ASSERT_EQUAL(m.type, HOST_MSG_TOOK);
		CU_ASSERT_EQUAL(m.vcpu, 0);
		CU_ASSERT_EQUAL(m.a, 7);
		CU_ASSERT_EQUAL(m.b, 0);
	}
	CU_ASSERT_EQUAL(recv(g.fd[1], &m, sizeof(m), MSG_DONTWAIT), -1);
	mutex_lock(&g.lock);
	CU_ASSERT_FALSE(g.rt.took_due);
	/* The next wake of vCPU 0 sends its RUNNABLE alone (no TOOK left to go first). */
	rt_set_state(&g.v[0], RT_WAITING, rt_now());
	rt_core_runnable(&g.rt, 0, rt_now());
	rt_unlock(&g.rt);
	CU_ASSERT_EQUAL(recv(g.fd[1], &m, sizeof(m), MSG_DONTWAIT), (ssize_t)sizeof(m));
	CU_ASSERT_EQUAL(m.type, HOST_MSG_RUNNABLE);
	CU_ASSERT_EQUAL(recv(g.fd[1], &m, sizeof(m), MSG_DONTWAIT), -1);
	mutex_lock(&g.lock);
	rig_done(&g);
	mutex_unlock(&g.lock);
}

static CU_TestInfo rt_hand_tests[] = {
	{ "a blocking holder's handoff claim sends its TOOK at the releaser's unlock",
	  test_rt_hand_took },
	CU_TEST_INFO_NULL,
};

TEST_SUITE("runtime/handoff", rt_hand_tests);
