// SPDX-License-Identifier: GPL-2.0
/*
 * Offer pages shared between VMs (HOST_HELLO_PEER, docs/host.md "Handoffs across VMs"): the
 * first part of handing a lane to a vCPU of another VM. The releasing VMM writes its claim in
 * its own offer word; the successor's VMM must read that word, and its parked thread wait on it.
 * So every VM that asked gets a read-only fd of every other such VM's offer page.
 *
 * What keeps each word's writers to two (its own VMM, the daemon's CAS): the memfd is sealed
 * with F_SEAL_FUTURE_WRITE once its VMM mapped it read-write (the mappings made before stay
 * writable; none can be made after, not through a new open of /proc/<pid>/fd either, and
 * write() and hole punching fail), and against shrinking and growing from the start, so no
 * peer can make the daemon's mapping or the owner's fault. The VMM maps its page while it
 * reads the WELCOME, before it sends anything: its first datagram after the join tells the
 * daemon it is mapped. Only then is its fd sent to the others (a VM whose page cannot be
 * sealed is not shared; it keeps its own handoffs). Ids are the daemon's, never reused while it
 * runs: a PEER of a VM that left names one no new VM has.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "internal.h"
#include "util/unixsock.h"

#define HOST_PEER_SEALS	(F_SEAL_FUTURE_WRITE | F_SEAL_SEAL)

void host_send_fd(struct host_client *c, const void *msg, size_t len, int fd)
{
	if (fd < 0) {
		host_send(c, msg, len);
		return;
	}
	host_flush_client(c);		/* after the decisions queued before it */
	if (c->dead)
		return;
	errno = 0;
	if (unixsock_send_fds(c->fd, msg, len, &fd, 1, MSG_DONTWAIT | MSG_NOSIGNAL) !=
	    (ssize_t)len)
		host_send_failed(c);
}

/* The read-only end of memfd fd: a new open file of it (a dup would share the write mode). */
static int host_peer_ro_fd(int fd)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	return open(path, O_RDONLY | O_CLOEXEC);
}

static void host_peer_send(struct host_client *to, const struct host_client *c, bool add)
{
	struct host_ev m = { .type = HOST_MSG_PEER, .arg = add, .a = c->share_id };

	host_send_fd(to, &m, sizeof(m), add ? c->share_fd : -1);
}

void host_peer_seal(struct host *h, struct host_client *c)
{
	struct host_client *o;
	int ro;

	if (!c->share || c->shared || c->share_fd < 0)
		return;
	ro = fcntl(c->share_fd, F_ADD_SEALS, HOST_PEER_SEALS) ? -1 : host_peer_ro_fd(c->share_fd);
	close(c->share_fd);
	c->share_fd = ro;
	if (ro < 0) {
		c->share = false;	/* not shared: a writable fd must never leave */
		return;
	}
	c->shared = true;
	c->share_id = ++h->share_next;
	list_for_each_entry(o, &h->clients, node) {
		if (o == c || !o->shared || o->dead)
			continue;
		host_peer_send(o, c, true);
		host_peer_send(c, o, true);
	}
}

/* c leaves: the others unmap its page (their mapping would keep the memfd alive). */
void host_peer_leave(struct host *h, struct host_client *c)
{
	struct host_client *o;

	if (c->shared)
		list_for_each_entry(o, &h->clients, node)
			if (o != c && o->shared && !o->dead)
				host_peer_send(o, c, false);
	c->shared = c->share = false;
	if (c->share_fd >= 0)
		close(c->share_fd);
	c->share_fd = -1;
}
