// SPDX-License-Identifier: GPL-2.0
/*
 * Host mode: the runtime's core is `vsched host` (host/, docs/host.md). rt_core.c hands every
 * event here, sent as one datagram (include/host/proto.h) without waiting; the daemon's
 * decisions come back to the agent thread (rt_remote_agent.c), which applies them under the
 * lock with the same rt_grant / rt_preempt / rt_set_until as the embedded core's. The VM's own
 * tree stays the source of truth for its subtree: it is sent whole at the join and after every
 * change.
 *
 * Datagrams are queued under the lock and sent once it is dropped (rt_outbox.c): a send wakes
 * the daemon, whose wake-up may preempt the sender, which then must hold nothing the VMM's other
 * vCPU threads need.
 *
 * When the daemon goes (it hung up, a send failed, it sent garbage), the runtime falls back to
 * the host kernel's scheduling, as the watchdog does, says so once, and the agent dials again
 * every RUNTIME_HOST_RETRY_NS; a new join re-sends the subtree and the vCPUs' states.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "rt_remote.h"
#include "sched/core.h"
#include "sched/group.h"
#include "util/unixsock.h"

/* A first join refused EEXIST is tried again this often, this far apart (1 s in all). */
#define RT_REMOTE_EXIST_TRIES	10
#define RT_REMOTE_EXIST_WAIT_US	100000

const char *runtime_host_group(struct runtime *rt)
{
	return rt->remote ? rt->remote->group : NULL;
}

/* The daemon is gone: the host kernel schedules until the agent joins again. Lock held. */
void rt_remote_lost(struct runtime *rt, const char *why)
{
	struct rt_remote *r = rt->remote;

	if (!r->joined)
		return;
	r->joined = false;
	shutdown(r->fd, SHUT_RDWR);	/* the agent's recv() ends; it closes the fd */
	rt_outbox_drop(&r->ob);
	if (!r->stop && r->started)	/* before, the join fails: the caller says so */
		fprintf(stderr, "vsched: host scheduler lost (%s): the host kernel schedules the "
			"vCPUs until it returns\n", why);
	rt_fallback(rt);	/* wakes the vCPU threads parked on the page first */
	rt_page_unmap(rt);
	rt_offer_unmap(rt);
	rt_peer_clear(rt);
	rt_xwait_changed(rt);	/* not on the pages unmapped */
}

static const char *rt_remote_why(int err)
{
	return err == -EAGAIN || err == -ENOBUFS ? "it stopped reading" : strerror(-err);
}

/* Queued; sent when the lock is dropped (rt_unlock()), in this order. Lock held. */
static void rt_remote_send(struct runtime *rt, const void *msg, size_t len)
{
	struct rt_remote *r = rt->remote;
	int err;

	if (!r->joined)
		return;
	rt_offer_flush(rt);	/* a TOOK not sent yet goes first */
	err = rt_outbox_put(&r->ob, msg, len);
	if (err)
		rt_remote_lost(rt, rt_remote_why(err));
	else
		rt->sent++;	/* queued is as good as in flight for an offer (rt_offer.c) */
	if (!err && !host_msg_is_report(*(const uint32_t *)msg)) {
		rt->sent_state++;	/* a report voids no handoff (rt_hand.c) */
		rt->state_queued = true;
	}
}

void rt_remote_flush(struct runtime *rt)
{
	struct rt_remote *r = rt->remote;
	uint64_t gen;
	int err = rt_outbox_send(&r->ob, &gen);

	if (!err)
		return;
	mutex_lock(rt->lock);
	if (r->joined && r->ob.gen == gen)	/* not a connection lost and replaced meanwhile */
		rt_remote_lost(rt, rt_remote_why(err));
	rt_unlock(rt);
}

void rt_unlock(struct runtime *rt)
{
	rt->state_queued = false;	/* sent below, or by the thread sending now */
	mutex_unlock(rt->lock);
	if (rt->remote)
		rt_remote_flush(rt);
}

/*
 * A report changes no VM's state, and every datagram wakes the daemon. The one of the exit
 * before a sleep, sent at once, woke it just before the holder claimed its handoff across VMs:
 * a daemon already running read the claim's TOOK at once and settled the offer before the
 * successor's thread had woken to take it (then granted by the page: two wake-ups). In
 * t-host-xhand (quiet machine) 569-765 of 771-815 claims per VM were so missed; held back to
 * the thread's next unlock, the report leaves with the TOOK (or the BLOCKED), and 45-76 were
 * (docs/host.md, "Handoffs across VMs").
 */
void rt_unlock_exit(struct runtime *rt)
{
	if (!rt->remote || rt->state_queued) {
		rt_unlock(rt);
		return;
	}
	mutex_unlock(rt->lock);
}

bool rt_unlock_send(struct runtime *rt)
{
	assert_held(rt->lock);
	if (!rt->remote || !rt_outbox_pending(&rt->remote->ob))
		return false;
	rt_unlock(rt);
	mutex_lock(rt->lock);
	return true;
}

void rt_remote_event(struct runtime *rt, unsigned int type, unsigned int id, uint64_t a,
		     uint64_t b)
{
	struct host_ev m = { .type = type, .vcpu = id, .a = a, .b = b };

	assert_held(rt->lock);
	rt_remote_send(rt, &m, sizeof(m));
}

/*
 * A slice ended and its holders were charged: the daemon decides. Meanwhile each such holder
 * keeps its lane without a slice end, rather than coming back at once to ask again; a PREEMPT
 * or RETIME follows.
 */
void rt_remote_tick(struct runtime *rt, uint64_t now)
{
	unsigned int i;

	rt_remote_event(rt, HOST_MSG_TICK, 0, 0, 0);
	for (i = 0; i < rt->nr_vcpus; i++)
		if (rt->v[i].state == RT_RUNNING && rt->v[i].until <= now)
			rt->v[i].until = RT_INF;
}

static void rt_remote_settings(const struct group *g, struct host_settings *st)
{
	*st = (struct host_settings){
		.shares = g->shares, .quota_us = g->quota_us, .period_us = g->period_us,
		.burst_us = g->burst_us, .idle = g->idle, .threaded = g->type == GROUP_THREADED,
		.subtree_cpu = g->subtree_cpu,
	};
}

/* The groups below g, parents first, into gs (at most HOST_MAX_GROUPS). */
static void rt_remote_walk(struct group *g, struct group **gs, unsigned int *n)
{
	struct group *child;

	list_for_each_entry(child, &g->children, sibling) {
		if (*n == HOST_MAX_GROUPS)
			return;
		gs[(*n)++] = child;
		rt_remote_walk(child, gs, n);
	}
}

/* The whole subtree: GROUP per group, VCPU per vCPU, COMMIT. Lock held. */
void rt_remote_config(struct runtime *rt)
{
	struct group *gs[HOST_MAX_GROUPS];
	struct host_group_msg gm;
	unsigned int i, j, n = 0, sent = 0;
	char path[GROUP_PATH_MAX];

	assert_held(rt->lock);
	rt_remote_walk(sched_root(rt->s), gs, &n);
	for (i = 0; i < n; i++) {
		/* A path the protocol cannot carry leaves its group (and those below) out. */
		if (group_path(gs[i], path, sizeof(path)) < 0 ||
		    strlen(path + 1) >= sizeof(gm.path)) {
			gs[i] = NULL;
			continue;
		}
		memset(&gm, 0, sizeof(gm));
		gm.type = HOST_MSG_GROUP;
		gm.index = sent++;
		strcpy(gm.path, path + 1);
		gm.id = gs[i]->serial;	/* >= 1 below the root, new for a group made again */
		rt_remote_settings(gs[i], &gm.set);
		rt_remote_send(rt, &gm, sizeof(gm));
	}
	for (i = 0; i < rt->nr_vcpus; i++) {
		struct group *g = sched_vcpu(rt->s, i)->group;
		unsigned int idx = 0;

		for (j = 0, sent = 0; j < n; j++) {
			if (!gs[j])
				continue;
			sent++;
			if (gs[j] == g) {
				idx = sent;
				break;
			}
		}
		/* arg: the group's batch index + 1, 0 the VM group itself. */
		rt_remote_send(rt, &(struct host_ev){ .type = HOST_MSG_VCPU, .vcpu = i, .arg = idx },
			       sizeof(struct host_ev));
	}
	rt_remote_event(rt, HOST_MSG_COMMIT, 0, 0, 0);
}

int rt_remote_join(struct runtime *rt, int fd)
{
	struct rt_remote *r = rt->remote;
	bool page = rt_page_usable();
	struct host_hello m = { .nr_vcpus = rt->nr_vcpus, .vm = r->vm,
				.flags = page ? HOST_HELLO_PAGE | HOST_HELLO_OFFER |
						HOST_HELLO_HELD | HOST_HELLO_KICK |
						HOST_HELLO_HAND | HOST_HELLO_PIN |
						HOST_HELLO_PEER | HOST_HELLO_GUEST |
						HOST_HELLO_AHEAD : 0 };
	struct host_welcome w;
	int page_fd, offer_fd, ret;

	memcpy(m.name, r->name, sizeof(m.name));
	memcpy(m.partition, r->partition, sizeof(m.partition));
	ret = rt_remote_hello(fd, &m, RUNTIME_HOST_REPLY_MS, &w, &page_fd, &offer_fd);
	if (!ret && page)
		ret = rt_page_map(rt, page_fd);
	else if (page_fd >= 0)
		close(page_fd);
	/* Without a page no offer came; one that came and cannot be mapped is only not used. */
	if (!ret && page)
		rt_offer_map(rt, offer_fd);
	else if (offer_fd >= 0)
		close(offer_fd);
	rt->offer_held = rt->offer != NULL;
	rt->offer_hand = rt->offer != NULL;
	if (ret)
		return ret;
	rt->sent = 0;
	rt->sent_state = 0;
	rt->took_due = false;	/* the claim went with the old daemon */
	memcpy(r->group, w.group, sizeof(r->group));
	r->fd = fd;
	rt_outbox_open(&r->ob, fd);
	r->joined = true;
	rt_other_join(rt, rt_now());
	rt_remote_live_heard(&r->live, rt_now());
	rt_xwait_changed(rt);	/* on the new pages */
	return 0;
}

int rt_remote_create(struct runtime *rt, const struct runtime_host *host)
{
	struct rt_remote *r = calloc(1, sizeof(*r));
	int fd, ret = 0, i;

	assert_held(rt->lock);
	if (!r)
		return -ENOMEM;
	r->fd = -1;
	rt_outbox_init(&r->ob, rt->lock);
	r->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	snprintf(r->sock, sizeof(r->sock), "%s", host->sock);
	snprintf(r->name, sizeof(r->name), "%s", host->name);
	snprintf(r->partition, sizeof(r->partition), "%s", host->partition ? host->partition : "");
	r->vm = (struct host_settings){
		.shares = host->shares, .quota_us = host->quota_us ? host->quota_us : UINT64_MAX,
		.period_us = host->period_us ? host->period_us : CPU_PERIOD_DFL_US,
	};
	r->vs = host->vs;
	rt->remote = r;
	/*
	 * EEXIST: a group of the VM's name is in the tree. A VMM restarted as its predecessor
	 * died may find that one's group still there (its hang-up not read yet): a few tries.
	 */
	for (i = 0; i < RT_REMOTE_EXIST_TRIES; i++) {
		fd = r->wake_fd < 0 ? -errno : rt_remote_dial(r->sock);
		ret = fd < 0 ? fd : rt_remote_join(rt, fd);
		if (!ret)
			break;
		if (fd >= 0)
			close(fd);
		if (ret != -EEXIST)
			return ret;
		usleep(RT_REMOTE_EXIST_WAIT_US);
	}
	if (ret)
		return ret;
	rt_remote_config(rt);	/* sent when the caller drops the lock: it checks joined then */
	return r->joined ? 0 : -EPIPE;
}

bool rt_remote_joined(struct runtime *rt)
{
	assert_held(rt->lock);
	return rt->remote && rt->remote->joined;
}

/* VMSET: the VM group's settings written in the daemon's directory, for the next HELLO. */
static int rt_remote_vmset(struct runtime *rt, const void *buf)
{
	struct host_group_msg m;

	memcpy(&m, buf, sizeof(m));
	/* What the daemon's HELLO check (host_settings_valid()) takes, and cpu.max's ranges. */
	if (m.type != HOST_MSG_VMSET || m.path[0] || m.set.idle > 1 || m.set.threaded ||
	    (m.set.shares && (m.set.shares < 2 || m.set.shares > (1UL << 18))) ||
	    m.set.subtree_cpu ||
	    group_bandwidth_rule(m.set.quota_us, m.set.period_us, m.set.burst_us) != BW_OK)
		return -EPROTO;
	rt->remote->vm = m.set;
	return 0;
}

/* The daemon's answer to a vCPU event. 0, or -EPROTO for anything out of range. */
int rt_remote_apply(struct runtime *rt, const void *buf, ssize_t n)
{
	struct rt_vcpu *rv;
	struct host_ev m;
	uint64_t until;
	int cpu;

	if (n == sizeof(struct host_group_msg))
		return rt_remote_vmset(rt, buf);
	if (n != sizeof(m))
		return -EPROTO;
	memcpy(&m, buf, sizeof(m));
	if (m.type == HOST_MSG_PONG)	/* liveness only: any datagram counts (rt_remote_live.c) */
		return 0;
	if (m.vcpu >= rt->nr_vcpus || (m.b != HOST_CPU_NONE && m.b >= CPU_SETSIZE) ||
	    ((m.type == HOST_MSG_GRANT || m.type == HOST_MSG_PIN) && m.arg >= rt->nr_lanes))
		return -EPROTO;
	rv = &rt->v[m.vcpu];
	cpu = m.b == HOST_CPU_NONE ? -1 : (int)m.b;	/* GRANT, PIN: the lane's host CPU */
	/* The lanes moved over the daemon's CPUs: no decision, not in the grant page. */
	if (m.type == HOST_MSG_PIN)
		return rt_pin_moved(rt, rv, m.arg, cpu) == -ENOMEM ? -ENOMEM : 0;
	if (m.type < HOST_MSG_GRANT || m.type > HOST_MSG_RETIME)
		return -EPROTO;
	until = m.a == HOST_TIME_INF ? RT_INF : m.a;
	if (m.type == HOST_MSG_GRANT)
		rt->st.grant_msgs++;	/* the agent woke for it, whoever applies it */
	/*
	 * The vCPU thread took it from the grant page already, or the page moved past it. A RETIME
	 * is not in the page: it changes the grant of its seq, only while that one is applied; a
	 * grant that went by the page alone and is not taken yet takes it when it is.
	 */
	if (rt->page && m.type == HOST_MSG_RETIME && m.seq != rv->seq_applied) {
		rt_page_retime(rv, m.seq, until);
		return 0;
	}
	if (rt->page && m.type != HOST_MSG_RETIME && !rt_page_newer(rv, m.seq))
		return 0;
	/* Made ahead of a slice end: a PREEMPT at its a, a GRANT from its entry's at. */
	if (rt->page && (m.type == HOST_MSG_PREEMPT ?
			 rt_ahead_defer(rt, rv, m.seq, HOST_LANE_NONE, m.a) :
			 m.type == HOST_MSG_GRANT && rt_ahead_grant_msg(rt, rv, m.seq)))
		return 0;
	rv->seq_applied = m.seq;
	switch (m.type) {
	case HOST_MSG_GRANT:
		/* b: the lane's host CPU, pinned as embedded lanes are (rt_pin.c). */
		if (rt_pin_host(rt, m.arg, cpu) == -ENOMEM)
			return -ENOMEM;
		rt_grant(rt, m.vcpu, m.arg, until);
		break;
	case HOST_MSG_PREEMPT:
		rt_preempt(rt, m.vcpu);
		break;
	case HOST_MSG_RETIME:
		rt_set_until(rt, m.vcpu, until);
		break;
	}
	rt_poke_helper(rt, rt_now());
	return 0;
}

int rt_remote_input(struct runtime *rt, const char *buf, ssize_t n, int pfd, bool applied)
{
	/* Only a PEER carries an fd (rt_peer_msg() takes it over). */
	if (n > 0 && rt_peer_is_msg(buf, n))
		return pfd == -2 ? -EPROTO : rt_peer_msg(rt, buf, n, pfd);
	if (pfd >= 0)
		close(pfd);
	if (pfd != -1)
		return -EPROTO;
	return !applied && n > 0 ? rt_remote_apply(rt, buf, n) : 0;
}

void rt_remote_destroy(struct runtime *rt)
{
	struct rt_remote *r = rt->remote;

	if (!r)
		return;
	if (r->fd >= 0)
		rt_outbox_close(&r->ob, r->fd);
	if (r->wake_fd >= 0)
		close(r->wake_fd);
	rt_outbox_destroy(&r->ob);
	rt_page_free(rt);
	rt_offer_unmap(rt);
	rt_peer_clear(rt);
	free(r);
	rt->remote = NULL;
}
