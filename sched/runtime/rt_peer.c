// SPDX-License-Identifier: GPL-2.0
/*
 * Host mode: the other VMs' offer pages (HOST_HELLO_PEER, host/host_peer.c), the VMM's side.
 * A handoff across VMs has the successor's thread read the releasing VM's claim in that VM's
 * own offer word, so the daemon sends every VM that asked a read-only fd of every other's page
 * (PEER), and a PEER without fd when one leaves.
 *
 * Mapped read-only, and only if the memfd is sealed against writes through any new mapping or
 * write() and against shrinking and growing: a peer page that could shrink would fault this
 * VMM's reads (SIGBUS), and one this VMM could write would give a page two writers. A page
 * that is not so sealed is refused (the daemon sends none such: the one that did is lost).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host/proto.h"
#include "rt.h"

#define RT_PEER_SEALS	(F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_FUTURE_WRITE)

static void rt_peer_unmap(struct rt_peer *p)
{
	munmap((void *)p->o, sizeof(struct host_offer));
}

static int rt_peer_map(int fd, const struct host_offer **o)
{
	struct stat st;
	int seals = fcntl(fd, F_GET_SEALS);
	void *p;

	if (seals < 0 || (seals & RT_PEER_SEALS) != RT_PEER_SEALS || fstat(fd, &st) ||
	    (size_t)st.st_size < sizeof(struct host_offer))
		return -EPROTO;
	p = mmap(NULL, sizeof(struct host_offer), PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return -errno;
	*o = p;
	return 0;
}

int rt_peer_add(struct runtime *rt, uint32_t id, int fd)
{
	const struct host_offer *o = NULL;
	unsigned int i;
	int ret = 0;

	assert_held(rt->lock);
	for (i = 0; i < rt->nr_peers && rt->peer[i].id != id; i++)
		;
	if (i < rt->nr_peers) {		/* a page replaced, or the peer left */
		rt_peer_unmap(&rt->peer[i]);
		rt->peer[i] = rt->peer[--rt->nr_peers];
	}
	if (fd < 0)
		return 0;
	if (!rt->peer)
		rt->peer = calloc(RT_PEERS_MAX, sizeof(*rt->peer));
	if (!rt->peer)
		ret = -ENOMEM;
	else if (rt->nr_peers == RT_PEERS_MAX)
		ret = 0;	/* more VMs than this: the rest hand on through the daemon */
	else if (!(ret = rt_peer_map(fd, &o)))
		rt->peer[rt->nr_peers++] = (struct rt_peer){ .id = id, .o = o };
	close(fd);
	return ret;
}

const struct host_offer *rt_peer_find(const struct runtime *rt, uint32_t id)
{
	unsigned int i;

	for (i = 0; i < rt->nr_peers; i++)
		if (rt->peer[i].id == id)
			return rt->peer[i].o;
	return NULL;
}

/* The daemon is gone (its ids with it) or the VM ends. */
void rt_peer_clear(struct runtime *rt)
{
	while (rt->nr_peers)
		rt_peer_unmap(&rt->peer[--rt->nr_peers]);
	free(rt->peer);
	rt->peer = NULL;
}
