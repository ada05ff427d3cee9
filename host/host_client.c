// SPDX-License-Identifier: GPL-2.0
/*
 * One VMM's messages. Everything that crosses the socket is checked here before it reaches the
 * core: the datagram's length against its type, every vCPU index, group index and path, every
 * setting and every amount of CPU time. A message that fails is garbage: the caller hangs up
 * and the VM leaves the tree; other VMs go on.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "internal.h"
#include "sched/core.h"
#include "sched/group.h"
#include "util/registry.h"
#include "util/unixsock.h"
#include "util/time.h"

static const size_t host_msg_size[HOST_MSG_MAX] = {
	[HOST_MSG_HELLO] = sizeof(struct host_hello),
	[HOST_MSG_GROUP] = sizeof(struct host_group_msg),
	[HOST_MSG_VCPU] = sizeof(struct host_ev),
	[HOST_MSG_COMMIT] = sizeof(struct host_ev),
	[HOST_MSG_RUNNABLE] = sizeof(struct host_ev),
	[HOST_MSG_BLOCKED] = sizeof(struct host_ev),
	[HOST_MSG_RAN] = sizeof(struct host_ev),
	[HOST_MSG_TICK] = sizeof(struct host_ev),
	[HOST_MSG_TID] = sizeof(struct host_ev),
	[HOST_MSG_PING] = sizeof(struct host_ev),
	[HOST_MSG_CTL_DONE] = sizeof(struct host_ev),
	[HOST_MSG_TOOK] = sizeof(struct host_ev),
	[HOST_MSG_OTHER] = sizeof(struct host_ev),
};

/* The peer's uid; none known (not a Unix socket peer) is nobody's: it may join nowhere. */
static uid_t host_client_peer_uid(int fd)
{
	struct ucred cr;
	socklen_t len = sizeof(cr);

	return getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) ? (uid_t)-1 : cr.uid;
}

void host_client_set_uid(struct host_client *c, uid_t uid)
{
	c->uid = uid;
}

int host_client_add(struct host *h, int fd, struct host_client **out)
{
	struct host_client *c = calloc(1, sizeof(*c));

	if (!c)
		return -ENOMEM;
	c->fd = fd;
	c->share_fd = -1;
	c->pin_unchecked = -1;
	c->uid = host_client_peer_uid(fd);
	host_kick_peer(c);
	c->start = c->peer_pid > 0 ? registry_pid_start(c->peer_pid) : 0;
	list_add_tail(&c->node, &h->clients);
	h->nr_clients++;
	*out = c;
	return 0;
}

void host_client_remove(struct host *h, struct host_client *c)
{
	host_offer_settle(h);
	host_offer_destroy(h, c);
	host_peer_leave(h, c);
	host_fwd_gone(h, c);
	host_tree_leave(h, c);
	host_dcpu_leave(h, c);
	host_drain(h);
	list_del(&c->node);
	h->nr_clients--;
	host_offer_make(h);
	if (c->fd >= 0)
		close(c->fd);
	host_page_destroy(c);
	host_kick_destroy(c);
	free(c->slot);
	free(c->batch);
	free(c->tree);
	free(c->vcpu_group);
	free(c);
}

const char *host_client_group(const struct host_client *c)
{
	return c->joined ? c->group : NULL;
}

/*
 * The answer to a HELLO; a join's carries the grant page's read-only fd (page_fd >= 0) and then
 * the offer page's (offer_fd >= 0, only with a grant page).
 */
static void host_welcome(struct host *h, struct host_client *c, int err, int page_fd,
			 int offer_fd)
{
	int fds[2] = { page_fd, offer_fd };
	struct host_welcome w = {
		.type = HOST_MSG_WELCOME, .version = HOST_PROTO_VERSION, .err = err,
		.nr_lanes = h->nr_lanes, .pid = getpid(),
	};
	struct host_client *o;

	list_for_each_entry(o, &h->clients, node)
		w.nr_vms += o->joined;
	if (!err && c->joined)
		memcpy(w.group, c->group, sizeof(w.group));
	if (page_fd < 0) {
		host_send(c, &w, sizeof(w));
		return;
	}
	errno = 0;
	if (unixsock_send_fds(c->fd, &w, sizeof(w), fds, offer_fd >= 0 ? 2 : 1,
			      MSG_DONTWAIT | MSG_NOSIGNAL) != sizeof(w))
		host_send_failed(c);
}

static int host_hello(struct host *h, struct host_client *c, const struct host_hello *m)
{
	int ret, page_fd = -1, offer_fd = -1;

	if (c->joined)
		return -EPROTO;
	if (m->version != HOST_PROTO_VERSION) {
		host_welcome(h, c, -EPROTONOSUPPORT, -1, -1);
		return 1;
	}
	if (!m->nr_vcpus) {
		host_welcome(h, c, 0, -1, -1);
		return 1;
	}
	ret = strnlen(m->name, sizeof(m->name)) == sizeof(m->name) ? -ENAMETOOLONG :
	      registry_name_valid(m->name);
	if (!ret)
		ret = host_path_valid(m->partition, sizeof(m->partition), true);
	if (!ret && (m->nr_vcpus > HOST_MAX_VM_VCPUS || m->pid <= 0 ||
		     m->flags & ~(HOST_HELLO_PAGE | HOST_HELLO_OFFER | HOST_HELLO_HELD |
				  HOST_HELLO_KICK | HOST_HELLO_HAND | HOST_HELLO_PIN |
				  HOST_HELLO_PEER | HOST_HELLO_GUEST | HOST_HELLO_AHEAD)))
		ret = -EINVAL;
	if (!ret) {
		c->slot = calloc(m->nr_vcpus, sizeof(*c->slot));
		c->vcpu_group = calloc(m->nr_vcpus, sizeof(*c->vcpu_group));
		c->batch = calloc(HOST_MAX_GROUPS, sizeof(*c->batch));
		c->tree = calloc(HOST_MAX_GROUPS, sizeof(*c->tree));
		ret = c->slot && c->vcpu_group && c->batch && c->tree ? 0 : -ENOMEM;
	}
	if (!ret)
		ret = host_tree_join(h, c, m);
	/* Without a page (not asked for, no memfd sealing here) the socket carries every decision. */
	if (!ret && (m->flags & HOST_HELLO_PAGE) && host_page_create(c, &page_fd))
		page_fd = -1;
	/* Offers only beside a page: without one, no offer (the socket carries every RUNNABLE). */
	if (page_fd >= 0 && (m->flags & HOST_HELLO_OFFER) &&
	    host_offer_create(c, &offer_fd, m->flags & HOST_HELLO_PEER))
		offer_fd = -1;
	/* Its offer page shared with the other VMs once it mapped it (host_peer.c). */
	c->share = offer_fd >= 0 && (m->flags & HOST_HELLO_PEER);
	/* A held lane is offered only to a VMM that preempts its holder when it takes it. */
	c->offer_held = offer_fd >= 0 && (m->flags & HOST_HELLO_HELD);
	/* A handoff only to a VMM that hands its released lanes on (host_hand.c). */
	c->offer_hand = offer_fd >= 0 && (m->flags & HOST_HELLO_HAND);
	/*
	 * The daemon kicks a preempted holder only beside a page (the vCPU reads its PREEMPT
	 * there on the way out); without a peer pidfd (no pidfd_open) the agent kicks.
	 */
	if (page_fd >= 0 && (m->flags & HOST_HELLO_KICK) && host_kick_create(c) == -ENOMEM)
		ret = -ENOMEM;
	/* Pinned by the daemon only through the kicks' checked TIDs (host_pin()). */
	c->pin = c->kick_fd && (m->flags & HOST_HELLO_PIN);
	/* Its in-guest bits are in the offer page, and read only beside the daemon's own kicks. */
	c->guest = c->kick_fd && offer_fd >= 0 && (m->flags & HOST_HELLO_GUEST);
	/* Decisions ahead of a slice end need the page (the `at`) and the parked bits (offers). */
	c->ahead = offer_fd >= 0 && (m->flags & HOST_HELLO_AHEAD);
	c->other_at = c->other_joined = h->clock();	/* its other threads' CPU: from here */
	host_welcome(h, c, ret, page_fd, offer_fd);
	if (page_fd >= 0)
		close(page_fd);
	if (offer_fd >= 0)
		close(offer_fd);
	return ret ? 1 : 0;
}

/*
 * A group of the batch: the next index, a valid relative path whose parent came before, an id
 * (not 0, another group's in the batch: -EINVAL; what owners go back to, host_owners.c).
 */
static int host_group(struct host_client *c, const struct host_group_msg *m)
{
	char parent[HOST_PATH_LEN];
	unsigned int i;
	char *slash;
	int ret;

	if (m->index != c->nr_batch || c->nr_batch >= HOST_MAX_GROUPS)
		return -EPROTO;
	ret = host_path_valid(m->path, sizeof(m->path), false);
	if (ret)
		return ret;
	ret = host_settings_valid(&m->set);
	if (ret)
		return ret;
	memcpy(parent, m->path, sizeof(parent));
	slash = strrchr(parent, '/');
	if (slash) {
		*slash = '\0';
		for (i = 0; i < c->nr_batch && strcmp(c->batch[i].path, parent); i++)
			;
		if (i == c->nr_batch)
			return -EINVAL;
	}
	if (!m->id)
		return -EINVAL;
	for (i = 0; i < c->nr_batch; i++)
		if (!strcmp(c->batch[i].path, m->path) || c->batch[i].id == m->id)
			return -EINVAL;
	c->batch[c->nr_batch++] = *m;
	return 0;
}

static int host_event(struct host *h, struct host_client *c, const struct host_ev *m)
{
	uint64_t now = h->clock();
	unsigned int slot;

	h->cause = HOST_PRE_TREE;	/* a COMMIT's moves; the events below say their own */
	h->cause_c = c;
	if (m->type == HOST_MSG_COMMIT) {
		int ret = host_tree_commit(h, c);
		struct host_group_msg *t = c->tree;

		/* The batch is the mirror now (its ids); the next is received in the old array. */
		c->tree = c->batch;
		c->nr_tree = c->nr_batch;
		c->batch = t;
		/* The first after a join: the owners kept for this VMM (a daemon's restart). */
		if (!c->owners_back && ret != -ENOENT && ret != -EINVAL)
			host_owners_back(h, c);
		c->nr_batch = 0;
		memset(c->vcpu_group, 0, c->nr_vcpus * sizeof(*c->vcpu_group));
		/* A batch the core refuses in part is the VMM's tree, not garbage: it stays. */
		return ret == -ENOENT || ret == -EINVAL ? -EPROTO : 0;
	}
	if (m->type == HOST_MSG_TICK) {
		h->cause = HOST_PRE_TICK;
		host_slice_tick(h, c, now);
		host_owe_tick(h, c, now);
		host_charge_holders(h, now, UINT_MAX);
		sched_timer(h->s, now);
		return 0;
	}
	if (m->type == HOST_MSG_CTL_DONE)
		return host_fwd_done(h, c, m);
	if (m->type == HOST_MSG_OTHER)
		return host_charge_other(h, c, m->a, m->b, now);
	if (m->type == HOST_MSG_PING) {
		host_send(c, &(struct host_ev){ .type = HOST_MSG_PONG, .a = m->a },
			  sizeof(struct host_ev));
		return 0;
	}
	if (m->vcpu >= c->nr_vcpus)
		return -ERANGE;
	slot = c->slot[m->vcpu];
	h->slot[slot].last_heard = now;
	host_ahead_heard(h, slot, now);
	switch (m->type) {
	case HOST_MSG_VCPU:
		if (m->arg > c->nr_batch)
			return -ERANGE;
		c->vcpu_group[m->vcpu] = m->arg;
		return 0;
	case HOST_MSG_RUNNABLE:
		h->cause = HOST_PRE_WAKE;
		if (h->pre_stats)
			host_pre_wake(h, slot, now);
		h->slot[slot].nr_waits++;
		host_charge_holders(h, now, UINT_MAX);
		return sched_vcpu_runnable(h->s, slot, now);
	case HOST_MSG_BLOCKED:
		h->cause = HOST_PRE_BLOCKED;
		host_slice_reported(h, slot, now);
		host_charge_holders(h, now, UINT_MAX);
		return sched_vcpu_blocked(h->s, slot, now);
	case HOST_MSG_RAN:
		if (!host_ran_count(h, slot, m->a, m->b, now))
			return -ERANGE;
		h->cause = HOST_PRE_RAN;
		host_slice_reported(h, slot, now);
		host_charge_holders(h, now, slot);
		return host_charge_report(h, slot, m->a, m->b, now);
	case HOST_MSG_TID:
		if (m->a > INT_MAX)
			return -ERANGE;
		if (host_kick_tid(c, m->vcpu, (pid_t)m->a))
			return -ESRCH;	/* not a live thread of this VMM: refused */
		sched_vcpu_set_tid(h->s, slot, (pid_t)m->a);
		return 0;
	case HOST_MSG_TOOK:
		return host_offer_took(c, m);
	}
	return -EPROTO;
}

static int host_client_handle(struct host *h, struct host_client *c, const void *buf, size_t len)
{
	uint32_t type, version;
	int ret;

	if (len < sizeof(type))
		return -EPROTO;
	memcpy(&type, buf, sizeof(type));
	/*
	 * A VMM of another build: its HELLO may have another size, but leads with type and
	 * version in every version. Told so, where it was hung up on as garbage and its
	 * `vsched run` said "no host scheduler ...: Protocol error".
	 */
	if (type == HOST_MSG_HELLO && !c->joined && len >= 2 * sizeof(type) &&
	    (memcpy(&version, (const char *)buf + sizeof(type), sizeof(version)),
	     version != HOST_PROTO_VERSION)) {
		host_welcome(h, c, -EPROTONOSUPPORT, -1, -1);
		return 1;
	}
	if (!type || type >= HOST_MSG_MAX || !host_msg_size[type] || len != host_msg_size[type])
		return -EPROTO;
	if (type == HOST_MSG_HELLO)
		return host_hello(h, c, buf);
	if (!c->joined)
		return -EPROTO;
	/* Anything after the WELCOME: the VMM has mapped its offer page (host_peer.c). */
	if (c->share && !c->shared)
		host_peer_seal(h, c);
	c->nr_read++;	/* what an offer says the daemon has seen of this VM */
	/* A handoff's count: a report changes no one's state, so one in flight voids none. */
	if (!host_msg_is_report(type))
		c->nr_read_state++;
	/*
	 * A VMM that took an offer sends its TOOK before anything else; a report may come first,
	 * sent before a handoff's claim (its count leaves them out).
	 */
	if (c->took_due && type != HOST_MSG_TOOK && !host_msg_is_report(type))
		return -EPROTO;
	/* It speaks again: what was revoked while it was silent competes again. */
	if (c->nr_revoked)
		host_unrevoke(h, c, h->clock());
	if (type == HOST_MSG_GROUP) {
		struct host_group_msg m;

		memcpy(&m, buf, sizeof(m));
		ret = host_group(c, &m);
	} else {
		struct host_ev m;

		memcpy(&m, buf, sizeof(m));
		ret = host_event(h, c, &m);
	}
	host_drain(h);
	return ret;
}

/* The offer is settled before the datagram reaches the core, and made again after it. */
int host_client_msg(struct host *h, struct host_client *c, const void *buf, size_t len)
{
	int ret;

	if (host_offer_settle(h) == c)
		return -EPROTO;
	ret = host_client_handle(h, c, buf, len);
	host_offer_make(h);
	return ret;
}

unsigned int host_nr_clients(const struct host *h)
{
	return h->nr_clients;
}

unsigned int host_free_slots(const struct host *h)
{
	return h->nr_free;
}
