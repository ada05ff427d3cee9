// SPDX-License-Identifier: GPL-2.0
/*
 * Host mode's datagrams to the daemon, queued under the VMM's lock and sent after it is dropped
 * (rt_outbox.h says why). The queue has its own small lock, held for a copy and never across a
 * send, so a sender preempted by the daemon's wake-up holds nothing another vCPU thread needs;
 * a batch goes out in one sendmmsg(), so the daemon, woken by the first datagram, finds the
 * rest there (a RAN and its TICK) when the sender is not preempted inside the call.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "rt_outbox.h"
#include "util/debug.h"

#define RT_OUTBOX_BATCH	64	/* datagrams per sendmmsg() */

void rt_outbox_init(struct rt_outbox *ob, const pthread_mutex_t *outer)
{
	memset(ob, 0, sizeof(*ob));
	pthread_mutex_init(&ob->lock, NULL);
	ob->outer = outer;
	ob->fd = ob->sending_fd = ob->close_fd = -1;
}

void rt_outbox_destroy(struct rt_outbox *ob)
{
	if (ob->close_fd >= 0)
		close(ob->close_fd);
	free(ob->q);
	free(ob->spare);
	pthread_mutex_destroy(&ob->lock);
}

void rt_outbox_open(struct rt_outbox *ob, int fd)
{
	BUG_ON(ob->outer && !lockdep_is_held(ob->outer));
	pthread_mutex_lock(&ob->lock);
	ob->fd = fd;
	ob->gen++;
	__atomic_store_n(&ob->len, 0, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&ob->lock);
}

void rt_outbox_drop(struct rt_outbox *ob)
{
	BUG_ON(ob->outer && !lockdep_is_held(ob->outer));
	pthread_mutex_lock(&ob->lock);
	ob->fd = -1;
	__atomic_store_n(&ob->len, 0, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&ob->lock);
}

int rt_outbox_put(struct rt_outbox *ob, const void *msg, size_t len)
{
	uint32_t l = (uint32_t)len;
	size_t need;
	int ret = 0;

	BUG_ON(ob->outer && !lockdep_is_held(ob->outer));
	pthread_mutex_lock(&ob->lock);
	need = ob->len + sizeof(l) + len;
	if (ob->fd < 0) {
		goto out;	/* no connection: nothing to send it on */
	} else if (need > RT_OUTBOX_MAX) {
		ret = -ENOBUFS;
		goto out;
	} else if (need > ob->cap) {
		size_t cap = ob->cap ? ob->cap : 4096;
		unsigned char *q;

		while (cap < need)
			cap *= 2;
		q = realloc(ob->q, cap);
		if (!q) {
			ret = -ENOMEM;
			goto out;
		}
		ob->q = q;
		ob->cap = cap;
	}
	memcpy(ob->q + ob->len, &l, sizeof(l));
	memcpy(ob->q + ob->len + sizeof(l), msg, len);
	__atomic_store_n(&ob->len, need, __ATOMIC_RELAXED);
out:
	pthread_mutex_unlock(&ob->lock);
	return ret;
}

bool rt_outbox_pending(struct rt_outbox *ob)
{
	bool pending;

	pthread_mutex_lock(&ob->lock);
	pending = ob->len && !ob->sending;
	pthread_mutex_unlock(&ob->lock);
	return pending;
}

/* Every datagram of b (n bytes of records) on fd, in order. 0 or -errno. */
static int rt_outbox_write(int fd, const unsigned char *b, size_t n)
{
	struct mmsghdr mm[RT_OUTBOX_BATCH];
	struct iovec iov[RT_OUTBOX_BATCH];
	size_t off = 0;

	while (off < n) {
		unsigned int k, done = 0;
		uint32_t l;
		int sent;

		for (k = 0; k < RT_OUTBOX_BATCH && off < n; k++) {
			memcpy(&l, b + off, sizeof(l));
			iov[k] = (struct iovec){ .iov_base = (void *)(b + off + sizeof(l)), .iov_len = l };
			mm[k] = (struct mmsghdr){ .msg_hdr = { .msg_iov = &iov[k], .msg_iovlen = 1 } };
			off += sizeof(l) + l;
		}
		while (done < k) {
			/* Never waits: a daemon that cannot take a datagram now is treated as gone. */
			sent = sendmmsg(fd, mm + done, k - done, MSG_DONTWAIT | MSG_NOSIGNAL);
			if (sent < 0 && errno == EINTR)
				continue;
			if (sent < 0)
				return -errno;
			for (; sent > 0; sent--, done++)
				if (mm[done].msg_len != iov[done].iov_len)
					return -EMSGSIZE;
		}
	}
	return 0;
}

int rt_outbox_send(struct rt_outbox *ob, uint64_t *gen)
{
	unsigned char *b;
	size_t n, cap;
	uint64_t g;
	int fd, ret = 0;

	BUG_ON(ob->outer && lockdep_is_held(ob->outer));
	/* Nothing this thread queued is left (it would see its own store): the common case. */
	if (!__atomic_load_n(&ob->len, __ATOMIC_RELAXED))
		return 0;
	pthread_mutex_lock(&ob->lock);
	if (ob->sending) {
		pthread_mutex_unlock(&ob->lock);
		return 0;	/* the sender looks again before it stops */
	}
	ob->sending = true;
	while (!ret && ob->len && ob->fd >= 0) {
		/* The batch out; the spare buffer takes what is queued meanwhile. */
		b = ob->q;
		n = ob->len;
		cap = ob->cap;
		ob->q = ob->spare;
		ob->cap = ob->spare_cap;
		ob->spare = NULL;
		ob->spare_cap = 0;
		__atomic_store_n(&ob->len, 0, __ATOMIC_RELAXED);
		fd = ob->sending_fd = ob->fd;
		g = ob->gen;
		pthread_mutex_unlock(&ob->lock);

		ret = rt_outbox_write(fd, b, n);

		pthread_mutex_lock(&ob->lock);
		ob->spare = b;
		ob->spare_cap = cap;
		ob->sending_fd = -1;
		if (ob->close_fd >= 0) {
			close(ob->close_fd);	/* its connection's last batch is out */
			ob->close_fd = -1;
		}
		if (ret && ob->gen == g) {
			/* The rest of this connection's queue is not sent after a hole. */
			ob->fd = -1;
			__atomic_store_n(&ob->len, 0, __ATOMIC_RELAXED);
		}
		if (ret)
			*gen = g;
	}
	ob->sending = false;
	pthread_mutex_unlock(&ob->lock);
	return ret;
}

void rt_outbox_close(struct rt_outbox *ob, int fd)
{
	pthread_mutex_lock(&ob->lock);
	if (ob->fd == fd) {
		ob->fd = -1;
		__atomic_store_n(&ob->len, 0, __ATOMIC_RELAXED);
	}
	if (fd == ob->sending_fd) {
		ob->close_fd = fd;
		fd = -1;
	}
	pthread_mutex_unlock(&ob->lock);
	if (fd >= 0)
		close(fd);
}
