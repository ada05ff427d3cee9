// SPDX-License-Identifier: GPL-2.0
/*
 * Host mode's agent thread: it sleeps on the daemon's socket, applies what comes under the
 * lock (rt_remote_apply(), a PEER through rt_peer.c, a forwarded change through rt_remote_ctl.c
 * without the lock), asks a silent daemon whether it lives (rt_remote_live.c), and after a
 * loss dials again every RUNTIME_HOST_RETRY_NS, re-sending the subtree and the vCPUs' states.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "rt_remote.h"
#include "vmm/kick.h"
#include "util/file.h"

/*
 * Joined again: every vCPU that held a lane or ran in the fallback asks the new daemon for
 * one (kicked out of KVM_RUN meanwhile); the subtree goes first. Lock held.
 */
static void rt_remote_resume(struct runtime *rt)
{
	uint64_t now = rt_now();
	unsigned int i;

	rt_remote_config(rt);
	for (i = 0; i < rt->nr_vcpus; i++) {
		struct rt_vcpu *rv = &rt->v[i];

		if (rv->state == RT_RUNNING || rv->state == RT_LENT ||
		    (rv->state == RT_BLOCKED && rv->in_guest))
			rt_set_state(rv, RT_WAITING, now);
		rv->until = RT_INF;
		if (rv->tid > 0)
			rt_remote_event(rt, HOST_MSG_TID, i, (uint64_t)rv->tid, 0);
		if (rv->state != RT_WAITING)
			continue;
		rt_remote_event(rt, HOST_MSG_RUNNABLE, i, 0, 0);
		if (rv->in_guest)
			rt_kick(rv);
	}
	rt->fallback = false;
	fprintf(stderr, "vsched: joined the host scheduler again as %s\n", rt->remote->group);
	rt_poke_helper(rt, now);
}

/* Fallback: every RUNTIME_HOST_RETRY_NS, dial and join again. */
static void rt_remote_retry(struct runtime *rt)
{
	struct rt_remote *r = rt->remote;
	struct pollfd pfd = { .fd = r->wake_fd, .events = POLLIN };
	int fd, ret;

	poll(&pfd, 1, (int)(RUNTIME_HOST_RETRY_NS / 1000000));
	fd = rt_remote_dial(r->sock);
	if (fd < 0)
		return;
	mutex_lock(rt->lock);
	/* What the vCPUs inside KVM_RUN ran in the fallback is charged here, before the HELLO:
	 * the new daemon did not schedule it (its first RAN carried all of it: 0.64 s in t-host,
	 * and over HOST_RAN_MAX_NS a refusal as garbage). */
	rt_charge_running(rt, rt_now());
	ret = r->stop ? 0 : rt_remote_join(rt, fd);
	if (r->stop || ret) {
		/*
		 * A daemon that answers and refuses (another build, its slots taken, the VM's
		 * group there) is said once per refusal: it dialled on without a word.
		 */
		if (ret && ret != -ETIMEDOUT && ret != -EPROTO && ret != -EPIPE &&
		    ret != -ECONNRESET && ret != r->refused)
			fprintf(stderr, "vsched: the host scheduler refuses this VM (%s): still "
				"unscheduled, asking again every %u ms\n", strerror(-ret),
				(unsigned int)(RUNTIME_HOST_RETRY_NS / 1000000));
		r->refused = ret;
		close(fd);
		rt_unlock(rt);
		return;
	}
	r->refused = 0;
	rt_remote_resume(rt);
	rt_unlock(rt);
}

/*
 * Whether a thread of the daemon at the other end of fd waits for a CPU (R in its /proc stat):
 * late on a loaded host, not stuck (stopped: T; asleep with a PING unread: deadlocked). At load
 * 27 a live daemon missed the 300 ms and its VMs fell back and joined again as new groups.
 */
static bool rt_remote_daemon_runnable(int fd)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);
	char path[64], buf[512];
	struct dirent *d;
	bool r = false;
	DIR *dir;

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) || cred.pid <= 0)
		return false;
	snprintf(path, sizeof(path), "/proc/%d/task", (int)cred.pid);
	dir = opendir(path);
	if (!dir)
		return false;
	while (!r && (d = readdir(dir))) {
		if (d->d_name[0] < '1' || d->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%.16s/stat", (int)cred.pid, d->d_name);
		r = !file_read(path, buf, sizeof(buf)) && file_proc_state(buf) == 'R';
	}
	closedir(dir);
	return r;
}

/* The daemon was silent until its liveness was due: ask it, or give up on it. Lock held. */
static void rt_remote_live_check(struct runtime *rt)
{
	struct rt_remote *r = rt->remote;
	uint64_t now = rt_now();

	switch (rt_remote_live_due(&r->live, now)) {
	case RT_LIVE_PING:
		rt_remote_event(rt, HOST_MSG_PING, 0, now, 0);
		break;
	case RT_LIVE_LOST:
		if (rt_remote_daemon_runnable(r->fd) && rt_remote_live_wait_more(&r->live))
			break;
		rt_remote_lost(rt, "it stopped answering");
		break;
	case RT_LIVE_OK:
		break;
	}
}

/*
 * Whether fd has something to read (or hung up) before the daemon's liveness is due at
 * next: the agent sleeps until one or the other, never on a period of its own.
 */
static bool rt_remote_wait(int fd, uint64_t next)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	uint64_t now = rt_now(), ms = next > now ? (next - now + 999999) / 1000000 : 0;

	return poll(&pfd, 1, (int)(ms < INT_MAX ? ms : INT_MAX)) != 0;
}

static void *rt_remote_agent(void *arg)
{
	struct runtime *rt = arg;
	struct rt_remote *r = rt->remote;
	uint64_t next;
	char buf[1024];
	ssize_t n;
	int fd, ctl, pfd, bad;

	pthread_setname_np(pthread_self(), "vsched-host");
	rt_thread_boost();	/* as the helper: it takes the lock a granted vCPU waits for */
	rt_place_join(rt, RT_PLACE_AGENT);
	for (;;) {
		mutex_lock(rt->lock);
		fd = r->stop ? -2 : r->fd;
		next = rt_remote_live_next(&r->live);
		if (fd == -2)
			rt->place_tid[RT_PLACE_AGENT] = 0;	/* its TID may be another's next */
		rt_unlock(rt);
		if (fd == -2)
			return NULL;
		if (fd < 0) {
			rt_remote_retry(rt);
			continue;
		}
		if (!rt_remote_wait(fd, next)) {
			mutex_lock(rt->lock);
			if (r->fd == fd && r->joined)
				rt_remote_live_check(rt);
			rt_unlock(rt);
			continue;
		}
		n = rt_peer_recv(fd, buf, sizeof(buf), &pfd);
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
			continue;
		/* A forwarded change is applied without the lock (rt_remote_ctl.c). */
		ctl = n >= 4 && n <= (ssize_t)sizeof(buf) && pfd == -1 ?
		      rt_remote_ctl(rt, r->vs, buf, n) : 0;
		mutex_lock(rt->lock);
		if (n > 0)
			rt_remote_live_heard(&r->live, rt_now());
		bad = rt_remote_input(rt, buf, n, pfd, ctl != 0);
		if (n <= 0 || ctl < 0 || bad) {
			rt_remote_lost(rt, n < 0 ? strerror(errno) : n ? "it sent garbage" :
					   "it hung up");
			rt_outbox_close(&r->ob, fd);	/* not while a send uses it */
			r->fd = -1;
		}
		rt_unlock(rt);
	}
}

int rt_remote_start(struct runtime *rt)
{
	int err = pthread_create(&rt->remote->agent, NULL, rt_remote_agent, rt);

	if (err)
		return -err;
	rt->remote->started = true;
	return 0;
}

void rt_remote_stop(struct runtime *rt)
{
	struct rt_remote *r = rt->remote;

	if (!r || !r->started)
		return;
	mutex_lock(rt->lock);
	r->stop = true;
	if (r->fd >= 0)
		shutdown(r->fd, SHUT_RDWR);
	if (eventfd_write(r->wake_fd, 1))
		fprintf(stderr, "vsched: host agent: %s\n", strerror(errno));
	rt_unlock(rt);
	pthread_join(r->agent, NULL);
	r->started = false;
}

