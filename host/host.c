// SPDX-License-Identifier: GPL-2.0
/*
 * The daemon's life cycle and event loop: one thread, one epoll set (the listening socket,
 * every VMM's socket, the timer, the stop fd). A hang-up (exit, crash, SIGKILL of a VMM: the
 * kernel closes its socket) removes the VM at once. The control directory's writes reach the
 * core through the public API; its change callback re-decides under the same lock.
 */
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "internal.h"
#include "sched/core.h"
#include "sched/group.h"
#include "util/compiler.h"
#include "util/debug.h"
#include "util/time.h"
#include "util/unixsock.h"
#include "vsched.h"

#define HOST_TAG_LISTEN		((void *)1)
#define HOST_TAG_TIMER		((void *)2)
#define HOST_TAG_STOP		((void *)3)

/* A write through the control directory (FUSE thread): decide again at once. */
static void host_changed(struct vsched *vs, enum vsched_event ev, const char *path,
			 const char *file, void *arg)
{
	struct host *h = arg;
	uint64_t now;

	vsched_lock(vs);
	host_offer_settle(h);
	/* A VM group's own setting: its VMM keeps it for a re-join. */
	if (ev == VSCHED_EV_WRITE)
		host_fwd_vmset(h, path, file);
	h->cause = HOST_PRE_TREE;
	h->cause_c = NULL;
	now = h->clock();
	sched_advance(h->s, now);
	host_charge_holders(h, now, UINT_MAX);
	sched_timer(h->s, now);
	host_drain(h);
	host_offer_make(h);
	vsched_unlock(vs);
}

/*
 * Lane i is the i-th CPU of the daemon's affinity mask, and every VMM pins the vCPU it grants
 * lane i there (the CPU travels in the GRANT). Floating, the host kernel woke granted threads
 * onto a CPU another holder used while the one just left idled until a load balance: host mode
 * gave the VMs 77 % of 2 CPUs with 8 hogs (docs/host.md). With more lanes than CPUs, they float.
 * The lanes move over these CPUs as an embedded runtime's do (host_rotate_due()).
 */
static int host_lanes_pin(struct host *h)
{
	unsigned int cpu, n = 0;
	cpu_set_t set;

	h->lane_cpu = calloc(h->nr_lanes, sizeof(*h->lane_cpu));
	if (!h->lane_cpu)
		return -ENOMEM;
	if (sched_getaffinity(0, sizeof(set), &set) || (unsigned int)CPU_COUNT(&set) < h->nr_lanes)
		CPU_ZERO(&set);
	for (cpu = 0; cpu < CPU_SETSIZE && n < h->nr_lanes; cpu++)
		if (CPU_ISSET(cpu, &set))
			h->lane_cpu[n++] = (int)cpu;
	while (n < h->nr_lanes)
		h->lane_cpu[n++] = -1;
	return 0;
}

/*
 * The daemon's thread off its lanes' CPUs, where its mask has CPUs no lane is pinned to: on a
 * lane's CPU, woken there by a holder's datagram (the TOOK of a claim across VMs), it preempted
 * that holder and settled the claim before the successor VM's waker, woken on an idle CPU, had
 * taken it (t-host-xhand, thread backend, quiet machine: a quarter of the runs missed most claims).
 */
void host_pin_daemon(struct host *h)
{
	unsigned int l;
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set))
		return;
	for (l = 0; l < h->nr_lanes; l++)
		if (h->lane_cpu[l] >= 0)
			CPU_CLR(h->lane_cpu[l], &set);
	if (CPU_COUNT(&set))
		sched_setaffinity(0, sizeof(set), &set);
}

int host_create(const struct host_opts *o, struct host **out)
{
	unsigned int n = o->max_vcpus ? o->max_vcpus : HOST_MAX_VCPUS_DFL;
	struct host *h;

	if (!o->nr_lanes || n > 1024)
		return -EINVAL;
	h = calloc(1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	h->slot = calloc(n, sizeof(*h->slot));
	h->in_buf = calloc(HOST_INPUT_BATCH, sizeof(*h->in_buf));
	h->nr_lanes = o->nr_lanes;
	h->vs = h->slot && h->in_buf && !host_lanes_pin(h) && !host_offer_init(h) ?
		vsched_create(o->nr_lanes, n) : NULL;
	if (!h->vs) {
		host_offer_exit(h);
		free(h->lane_cpu);
		free(h->slot);
		free(h->in_buf);
		free(h);
		return -ENOMEM;
	}
	h->s = vsched_sched(h->vs);
	h->lock = vsched_mutex(h->vs);
	h->nr_slots = h->nr_free = n;
	h->grace_ns = o->grace_ns ? o->grace_ns : HOST_GRACE_NS;
	h->answer_ns = o->answer_ns ? o->answer_ns : HOST_ANSWER_NS;
	h->thread_state = host_kick_thread_state;
	h->thread_times = host_kick_thread_times;
	h->clock = time_mono_ns;
	h->cpu_clock = time_thread_ns;
	h->nr_host_cpus = sysconf(_SC_NPROCESSORS_ONLN) > 0 ?
			  (unsigned int)sysconf(_SC_NPROCESSORS_ONLN) : 1;
	h->pre_stats = getenv("VSCHED_HOST_PRE_STATS") != NULL;
	h->listen_fd = h->epoll_fd = h->timer_fd = -1;
	h->timer_at = HOST_TIME_INF;
	h->ahead_lead_ns = HOST_AHEAD_NS;
	list_init(&h->clients);
	list_init(&h->kept);
	pthread_mutex_init(&h->fwd_serial, NULL);
	pthread_mutex_init(&h->fwd_lock, NULL);
	pthread_cond_init(&h->fwd_cond, NULL);
	vsched_lock(h->vs);
	sched_advance(h->s, time_mono_ns());
	host_slice_init(h);
	vsched_unlock(h->vs);
	vsched_set_notify(h->vs, host_changed, h);
	*out = h;
	return 0;
}

void host_set_thread_state(struct host *h,
			   char (*fn)(const struct host_client *c, unsigned int vcpu))
{
	h->thread_state = fn;
}

void host_set_thread_times(struct host *h, int (*fn)(const struct host_client *c,
						      unsigned int vcpu, struct host_times *t))
{
	h->thread_times = fn;
}

void host_set_clock(struct host *h, uint64_t (*clock)(void))
{
	h->clock = clock;
}

struct vsched *host_vsched(struct host *h)
{
	return h->vs;
}

void host_destroy(struct host *h)
{
	struct host_client *c, *tmp;

	if (!h)
		return;
	vsched_set_notify(h->vs, NULL, NULL);
	vsched_lock(h->vs);
	list_for_each_entry_safe(c, tmp, &h->clients, node)
		host_client_remove(h, c);
	vsched_unlock(h->vs);
	if (h->listen_fd >= 0) {
		close(h->listen_fd);
		unlink(h->sock);
	}
	if (h->epoll_fd >= 0)
		close(h->epoll_fd);
	if (h->timer_fd >= 0)
		close(h->timer_fd);
	vsched_destroy(h->vs);
	host_offer_exit(h);
	free(h->lane_cpu);
	free(h->slot);
	free(h->in_buf);
	strv_free(&h->gone);
	host_owners_exit(h);
	free(h);
}

int host_listen(struct host *h, const char *sock)
{
	struct sockaddr_un sa;
	int fd, probe;

	fd = unixsock_open(sock, &sa);
	if (fd < 0)
		return fd;
	/* A daemon that answers there is live; a socket file nobody listens on is stale. */
	probe = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (probe >= 0 && !connect(probe, (struct sockaddr *)&sa, sizeof(sa))) {
		close(probe);
		close(fd);
		return -EADDRINUSE;
	}
	if (probe >= 0)
		close(probe);
	unlink(sock);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) || listen(fd, 64)) {
		int err = -errno;

		close(fd);
		return err;
	}
	h->listen_fd = fd;
	snprintf(h->sock, sizeof(h->sock), "%s", sock);
	return 0;
}

static int host_watch(struct host *h, int fd, void *tag)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = tag };

	return epoll_ctl(h->epoll_fd, EPOLL_CTL_ADD, fd, &ev) ? -errno : 0;
}

static void host_accept(struct host *h)
{
	struct host_client *c = NULL;
	int fd = accept4(h->listen_fd, NULL, NULL, SOCK_CLOEXEC);

	if (fd < 0)
		return;
	vsched_lock(h->vs);
	if (host_client_add(h, fd, &c) || host_watch(h, fd, c)) {
		if (c && c->fd == fd)
			host_client_remove(h, c);
		else
			close(fd);
	}
	vsched_unlock(h->vs);
	host_dcpu_end(h, NULL);		/* no VM's yet */
}

static void host_hangup(struct host *h, struct host_client *c, const char *why)
{
	if (c->joined && c->offer_hand)
		fprintf(stderr, "vsched host: %s (pid %d) left: %s (handoffs: %llu, revoked %llu; "
			"from other VMs: %llu, revoked %llu, missed %llu)\n",
			c->group, (int)c->pid, why, (unsigned long long)c->nr_hands,
			(unsigned long long)c->nr_hands_revoked, (unsigned long long)c->nr_xhands,
			(unsigned long long)c->nr_xhands_revoked,
			(unsigned long long)c->nr_xhands_missed);
	else if (c->joined)
		fprintf(stderr, "vsched host: %s (pid %d) left: %s\n", c->group, (int)c->pid, why);
	if (c->joined)
		fprintf(stderr, "vsched host: %s: its threads other than vCPUs charged %llu us "
			"(%llu us refused); PREEMPTs left to the kick %llu; published ahead %llu "
			"(withdrawn %llu; enforced at the grace %llu; the daemon's lead %llu us, %llu of "
			"%llu runs late); silent past a slice end %llu (not stopped), "
			"revoked %llu (the latest %llu us after its end; at the grace %llu; asleep %llu, "
			"ran without a word %llu, the latest of them %llu us after its end)\n",
			c->group,
			(unsigned long long)c->other_ns / 1000,
			(unsigned long long)c->other_refused_ns / 1000,
			(unsigned long long)c->nr_preempts_quiet,
			(unsigned long long)c->nr_ahead_pre,
			(unsigned long long)c->nr_ahead_withdrawn,
			(unsigned long long)c->nr_ahead_late,
			(unsigned long long)h->ahead_lead_ns / 1000,
			(unsigned long long)h->nr_ahead_missed, (unsigned long long)h->nr_ahead_runs,
			(unsigned long long)c->nr_owe_runnable, (unsigned long long)c->nr_revokes,
			(unsigned long long)c->revoke_late_ns / 1000,
			(unsigned long long)c->nr_revokes_grace,
			(unsigned long long)c->nr_revokes_asleep,
			(unsigned long long)c->nr_revokes_ran,
			(unsigned long long)c->judged_late_ns / 1000);
	if (c->joined) {
		uint64_t reads, charges, none = host_dcpu_uncharged(h, &reads, &charges);

		fprintf(stderr, "vsched host: %s: the daemon's CPU charged to it %llu us; no VM's so "
			"far %llu us (its clock read %llu times, %llu group charges)\n", c->group,
			(unsigned long long)c->dcpu_ns / 1000, (unsigned long long)none / 1000,
			(unsigned long long)reads, (unsigned long long)charges);
	}
	if (c->joined && h->pre_stats)
		host_pre_log(c);
	epoll_ctl(h->epoll_fd, EPOLL_CTL_DEL, c->fd, NULL);
	host_client_remove(h, c);
}

/*
 * Up to HOST_INPUT_BATCH datagrams waiting on c's socket, in one system call (a datagram's
 * length, MSG_TRUNC: above the buffer is garbage; 0: the end). The batch ends where the socket
 * is empty, which recvmmsg() learns without a second call: read one by one, every wake-up paid
 * a recv() that found nothing (1.7 us here) after the decision's futex wake-up and before the
 * daemon slept, a grantee queued behind it on its CPU waiting (docs/host.md, "Latency: the
 * page, step by step"). -errno: nothing read (EAGAIN: nothing there).
 */
static int host_input_read(struct host *h, struct host_client *c, struct mmsghdr *mm)
{
	struct iovec iov[HOST_INPUT_BATCH];
	unsigned int i;
	int n;

	for (i = 0; i < HOST_INPUT_BATCH; i++) {
		iov[i] = (struct iovec){ .iov_base = h->in_buf[i], .iov_len = HOST_MSG_MAX_LEN };
		mm[i] = (struct mmsghdr){ .msg_hdr = { .msg_iov = &iov[i], .msg_iovlen = 1 } };
	}
	h->nr_input_reads++;
	n = recvmmsg(c->fd, mm, HOST_INPUT_BATCH, MSG_DONTWAIT | MSG_TRUNC, NULL);
	return n < 0 ? -errno : n;
}

/*
 * The datagrams waiting on c's socket, HOST_INPUT_BATCH at most: the socket is watched
 * level-triggered, so the rest is read at the next wake-up, after the timer and the other VMMs
 * ready then. Read to the end, a VMM that kept its socket full kept the daemon
 * from every other VM. Then a hang-up if it ended or sent garbage. The daemon's CPU for the
 * batch is c's (host_dcpu.c); a hang-up's, no VM's.
 */
void host_client_input(struct host *h, struct host_client *c)
{
	struct mmsghdr mm[HOST_INPUT_BATCH];
	const char *why = NULL;
	bool joined = c->joined;
	int nr, i, ret;
	size_t n;

	nr = host_input_read(h, c, mm);
	if (nr == -EAGAIN || nr == -EINTR)
		nr = 0;
	else if (nr <= 0)
		nr = 1, mm[0].msg_len = 0;	/* an error or the end: a hang-up, as a read of 0 */
	for (i = 0; i < nr; i++) {
		n = mm[i].msg_len;
		vsched_lock(h->vs);
		if (!n) {
			why = c->garbage ? "wrote garbage in its offer page; hung up on it" :
			      c->full ? "not reading its socket" : "hung up";
		} else {
			ret = n > HOST_MSG_MAX_LEN ? -EMSGSIZE : host_client_msg(h, c, h->in_buf[i], n);
			if (ret < 0)
				why = "sent garbage; hung up on it";
			else if (ret > 0)
				why = "done";
			else if (!joined && c->joined)
				fprintf(stderr, "vsched host: %s (pid %d) joined with %u vCPUs\n",
					c->group, (int)c->pid, c->nr_vcpus);
			joined = c->joined;
		}
		if (why) {
			host_hangup(h, c, why);
			vsched_unlock(h->vs);
			host_dcpu_end(h, NULL);
			return;
		}
		vsched_unlock(h->vs);
	}
	host_dcpu_end(h, c);
}

uint64_t host_nr_input_reads(const struct host *h)
{
	return h->nr_input_reads;
}

/*
 * The daemon's timer. The daemon's CPU each VM is owed is charged first (a pool it dries is
 * thrown out at this instant, below); the tick's own goes to the VMs its decisions are for.
 */
void host_timer(struct host *h)
{
	uint64_t now, armed, end;

	vsched_lock(h->vs);
	armed = h->timer_at;
	end = host_ahead_armed(h, armed);	/* the slice end it woke to decide ahead, if any */
	host_dcpu_begin(h);
	host_offer_settle(h);
	now = h->clock();
	h->timer_at = HOST_TIME_INF;
	h->cause = HOST_PRE_TIMER;
	h->cause_c = NULL;
	host_rotate_due(h, now);
	host_dcpu_charge(h, now);
	/*
	 * A move of the lanes alone decides nothing: it charges no holder (one halted in KVM_RUN,
	 * reporting no CPU time, would be charged its wall time every move).
	 */
	if (host_decision_due(h, now)) {
		host_charge_holders(h, now, UINT_MAX);
		host_revoke_due(h, now);
		host_ahead_enforce(h, now);
		/* A slice end due within the lead: decided at it, published ahead. */
		if (!host_ahead_run(h, now))
			sched_timer(h->s, now);
	}
	host_drain(h);
	if (end != HOST_TIME_INF)
		host_ahead_learn(h, armed, end);
	host_offer_make(h);
	host_dcpu_end(h, NULL);
	vsched_unlock(h->vs);
}

static void host_tick(struct host *h)
{
	uint64_t exp;

	if (read(h->timer_fd, &exp, sizeof(exp)) < 0 && errno != EAGAIN)
		return;
	host_timer(h);
}

void host_set_gone(struct host *h, void (*fn)(void *arg, const char *path), void *arg)
{
	vsched_lock(h->vs);
	h->gone_fn = fn;
	h->gone_arg = arg;
	vsched_unlock(h->vs);
}

void host_gone(struct host *h, struct group *g)
{
	char path[GROUP_PATH_MAX];

	if (h->gone_fn && group_path(g, path, sizeof(path)) >= 0)
		strv_push(&h->gone, path);	/* -ENOMEM: that removal goes untold */
}

/* The groups removed during the events just handled, told without the tree's lock. */
static void host_gone_flush(struct host *h)
{
	struct strv gone;
	size_t i;

	vsched_lock(h->vs);
	gone = h->gone;
	h->gone = (struct strv){ 0 };
	vsched_unlock(h->vs);
	for (i = 0; i < gone.nr; i++)
		h->gone_fn(h->gone_arg, gone.v[i]);
	strv_free(&gone);
}

int host_run(struct host *h, int stop_fd)
{
	struct epoll_event ev[16];
	int i, n, ret;

	h->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
	h->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (h->epoll_fd < 0 || h->timer_fd < 0)
		return -errno;
	ret = host_watch(h, h->listen_fd, HOST_TAG_LISTEN) ?:
	      host_watch(h, h->timer_fd, HOST_TAG_TIMER) ?:
	      host_watch(h, stop_fd, HOST_TAG_STOP);
	if (ret)
		return ret;
	vsched_lock(h->vs);
	host_arm(h);
	vsched_unlock(h->vs);
	h->dcpu_last = h->cpu_clock();	/* this thread's: units are measured from here */
	for (;;) {
		n = epoll_wait(h->epoll_fd, ev, ARRAY_SIZE(ev), -1);
		if (n < 0 && errno != EINTR)
			return -errno;
		for (i = 0; i < n; i++) {
			void *tag = ev[i].data.ptr;

			if (tag == HOST_TAG_STOP)
				return 0;
			if (tag == HOST_TAG_LISTEN)
				host_accept(h);
			else if (tag == HOST_TAG_TIMER)
				host_tick(h);
			else
				host_client_input(h, tag);
		}
		if (h->gone_fn)
			host_gone_flush(h);
		if (h->attrs_due.nr)	/* a racy peek: set under the lock by this thread */
			host_attrs_flush(h);
	}
}
