// SPDX-License-Identifier: GPL-2.0
/*
 * bench-host-preempt: what a preemption costs in host mode (`vsched host`, docs/host.md)
 * against the embedded core, as the holder's vCPU sees it: from the event that makes the core
 * take a holder's lane to the holder's vCPU leaving the guest (KVM_RUN returning, or the thread
 * backend's work loop seeing its kick).
 *
 * vCPU 0 sits in a cpu.idle group, vCPU 1 in its parent: when vCPU 1 becomes runnable while
 * vCPU 0 holds the one lane, the core takes the lane from vCPU 0 at once. The holder H runs a
 * vCPU (spin_vcpu.h: a real KVM vCPU on `jmp $`, or the thread backend's hog loop) until the
 * kick takes it out. The kick is vmm/kick.c's on both paths (immediate_exit, then a signal):
 *  in-process: thread A feeds the core under the tree's lock and kicks on the PREEMPT
 *              decision, as rt_preempt() does;
 *  host:       A sends RUNNABLE to a daemon (host/ in a child process); the daemon's core
 *              decides, writes the grant page and sends PREEMPT; the VMM's agent thread
 *              receives it and kicks, as rt_remote.c's agent does (through rt_preempt()).
 *  host, page: the same, and the holder's vCPU watches its grant page entry as the runtime
 *              makes the thread backend do (rt_page_watch()): the daemon's write takes it out,
 *              the agent kicks only if it applies the PREEMPT first (under the lock, as there).
 *              KVM cannot watch memory inside KVM_RUN: its vCPU needs the agent's kick, so the
 *              row is run on the thread backend only.
 *  host, kick: the daemon kicks H itself (HOST_HELLO_KICK, host/host_kick.c: the TID H
 *              reported, checked, signalled by its thread pidfd after the page write); H's
 *              handler is vmm/kick.c's (it sets H's immediate_exit) and H applies the PREEMPT
 *              from its entry on the way out, as rt_page_exit() (the thread backend also
 *              watches the entry, as in the runtime); the agent kicks only if it
 *              applies the PREEMPT first, as rt_remote.c.
 *  host, held: the daemon offers the held lane to the VM (HOST_HELLO_HELD: vCPU 1 would take
 *              it from the cpu.idle holder at once); A takes it with the CAS, as
 *              rt_offer_take(), and kicks H itself, as rt_preempt(); TOOK goes before A's
 *              next datagram. A round the offer was not there for asks by the socket (counted).
 * Both rows end where the vCPU experiences the preemption. Until 2026-12-04 they ended at the
 * kicker's store, so the kick's delivery (the signal to the other CPU and KVM's exit, paid on
 * both paths alike) was left out of both and the ratio was that of the decisions alone; the
 * "kick issued" columns still show that part.
 * The "vt" rows are the same paths for a preemption by virtual time, not by cpu.idle: vCPU 0 in
 * group lo (weight 100), vCPU 1 in group hi (weight 400), no cpu.idle group. Per round vCPU 0 is
 * granted; vCPU 1 wakes, is level with it and waits; 2 ms later it blocks again without having
 * run (owed what it waited); 200 us later it wakes (timed), behind vCPU 0 by more than min_run,
 * and takes the lane. In-process, vCPU 0's run time is reported before each of vCPU 1's events,
 * as the daemon charges a holder its wall time at each event (the core given the round's
 * planned times: vt_report()); in host mode vCPU 0's CPU time is reported (RAN) once it is out,
 * as its VMM does. `host, vt held`: the daemon offers the lane ahead (sched_wake_vt_lane(), one
 * lane); without it (`main`) every round asks by the socket. Under load a round's sleeps may
 * outlast vCPU 0's slice and the daemon hands vCPU 1 the lane before the timed wake: such a
 * round is not sampled, it is counted ("out before the timed wake"), and vCPU 0's grants are
 * counted (one a round, one more a stray: a claim the daemon did not honour would add one).
 * BENCH_PRE_SET=idle|vt runs one set of rows only. BENCH_PRE_LANES=2 runs the vt rows on two lanes:
 * a second VM ("other", one hog vCPU that holds lane 0 throughout, reporting its wall time every
 * millisecond as a running VMM does) beside the bench's VM, whose vCPU 0 holds lane 1 (H pinned to
 * CPU 1); in-process the same tree (/vm/lo, /vm/hi and /other at equal weights, vCPU 2 in
 * /other on lane 0). At equal VM weights the wake leaves "other" its whole lane, and the
 * daemon decides the preemption ahead on two lanes (sched_wake_vt_lane(), several lanes).
 * Idle-lane offers do not apply (the lane is held): the path is the same with them.
 * H is pinned to CPU 0, the one lane's CPU, as both runtimes pin a lane's holder.
 * Per round: vCPU 0 granted and inside its vCPU, then vCPU 1 runnable (timed until H is out),
 * then both blocked (0 first: its lane is not handed back). BENCH_PRE_ROUNDS overrides the
 * number of rounds (default 5000); BENCH_PRE_ACCEL=thread|kvm runs one backend only.
 */
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "host_daemon.h"
#include "spin_vcpu.h"
#include "vmm/kick.h"
#include "host/host.h"
#include "host/proto.h"
#include "sched/core.h"
#include "util/time.h"
#include "vsched.h"

struct pre {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool granted, done, stop;
	bool inside;		/* atomic: H is in its vCPU */
	struct spin_vcpu v;
	pthread_t h;
	uint64_t t0, tk, ta;	/* the event; the kick issued; the agent had the PREEMPT */
	uint64_t *samples, *kicks, *agents;
	unsigned int n, rounds;
	int fd;			/* host mode */
	bool watch;		/* host mode: H watches its grant page entry */
	bool held;		/* host mode: A takes the held lane's offer */
	bool dkick;		/* host mode: the daemon kicks H (HOST_HELLO_KICK) */
	bool vt;		/* the virtual-time round (below) */
	unsigned int lane;	/* vCPU 0's lane (and H's CPU): 1 with BENCH_PRE_LANES=2 */
	int ofd;		/* host mode, two lanes: VM "other"'s socket */
	bool timing;		/* lock: t0 set, H's next exit is this round's sample */
	unsigned int stray;	/* H out before the timed wake (a vt round's first wake) */
	unsigned int missed;	/* in-process: the timed wake did not take the lane */
	unsigned int grants;	/* host mode: GRANTs of vCPU 0 (one a round, one more a stray) */
	pid_t tid;		/* H's */
	struct host_offer *offer;
	uint64_t sent;		/* datagrams sent, as rt->sent */
	bool took_due;
	uint32_t took_gen, took_lane;
	unsigned int by_socket;	/* held rounds without an offer */
	const struct host_grant *page;
	uint32_t grant_seq;	/* the seq of vCPU 0's last GRANT */
	uint32_t applied;	/* the last decision applied (lock) */
	bool in_guest;		/* lock */
};

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t quant_of(struct pre *p, const uint64_t *x, unsigned int permille)
{
	return x[(size_t)p->n * permille / 1000];
}

static uint64_t quant(struct pre *p, unsigned int permille)
{
	return quant_of(p, p->samples, permille);
}

/* The deciding thread (A in-process, the agent in host mode): as rt_kick(). */
static void pre_kick(struct pre *p)
{
	p->tk = time_mono_ns();
	spin_vcpu_kick(&p->v, p->h);
}

/* H: waits for its grant, runs its vCPU until kicked out, records the latency. */
static void *holder(void *arg)
{
	struct pre *p = arg;
	cpu_set_t lane;
	uint64_t t;

	/* On the lane's CPU, as both runtimes pin a holder (rt_pin.c; the daemon's lane 0). */
	CPU_ZERO(&lane);
	CPU_SET(p->lane, &lane);
	sched_setaffinity(0, sizeof(lane), &lane);
	kick_thread_run(p->v.run);	/* as vcpu_thread(): vcpu_kick_thread() */
	__atomic_store_n(&p->tid, gettid(), __ATOMIC_RELEASE);
	pthread_mutex_lock(&p->lock);
	for (;;) {
		while (!p->granted && !p->stop)
			pthread_cond_wait(&p->cond, &p->lock);
		if (p->stop)
			break;
		p->granted = false;
		p->applied = p->grant_seq;
		if (p->watch) {		/* rt_page_watch() */
			p->v.exit_val = p->grant_seq;
			p->v.exit_word = &p->page[0].seq;
		}
		p->in_guest = true;
		pthread_mutex_unlock(&p->lock);
		__atomic_store_n(&p->inside, true, __ATOMIC_RELEASE);
		for (;;) {
			if (spin_vcpu_run(&p->v))
				abort();
			t = time_mono_ns();
			pthread_mutex_lock(&p->lock);
			if ((p->watch || p->dkick) && p->page[0].seq != p->applied) {
				/* rt_page_exit() */
				p->applied = p->page[0].seq;
				p->tk = t;	/* no kick: left by itself */
				break;
			}
			if (p->applied != p->grant_seq)	/* the agent applied a PREEMPT */
				break;
			/*
			 * A kick left over from the last round: the agent applied its PREEMPT
			 * after the holder had left by the page and before it took the lock. The
			 * runtime's vCPU loop goes back in on such an exit; so does the bench
			 * (counted as a round, it hung the next one: main waited for `inside`).
			 */
			pthread_mutex_unlock(&p->lock);
		}
		__atomic_store_n(&p->inside, false, __ATOMIC_RELEASE);
		p->in_guest = false;
		/* Out before the timed wake (the daemon gave the lane to a vt round's first wake,
		 * under load): no sample; the round goes on when H is granted again. */
		if (!p->timing || p->n >= p->rounds) {
			p->stray++;
			continue;
		}
		p->timing = false;
		p->kicks[p->n] = p->tk - p->t0;
		p->agents[p->n] = p->ta > p->t0 ? p->ta - p->t0 : 0;
		p->samples[p->n++] = t - p->t0;
		p->done = true;
		pthread_cond_broadcast(&p->cond);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

static void signal_flag(struct pre *p, bool *flag)
{
	pthread_mutex_lock(&p->lock);
	*flag = true;
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
}

static void wait_flag(struct pre *p, bool *flag)
{
	pthread_mutex_lock(&p->lock);
	while (!*flag)
		pthread_cond_wait(&p->cond, &p->lock);
	*flag = false;
	pthread_mutex_unlock(&p->lock);
}

/* The holder granted and inside its vCPU for a while, as a vCPU in KVM_RUN is when preempted. */
static void wait_inside(struct pre *p)
{
	while (!__atomic_load_n(&p->inside, __ATOMIC_ACQUIRE))
		usleep(10);
	usleep(50);
}

/* The core's decisions applied as the runtime applies them; whether vCPU 0 was preempted. */
static bool drain(struct pre *p, struct sched *s)
{
	struct sched_decision d[8];
	bool pre = false;
	size_t n, k;

	while ((n = sched_take_decisions(s, d, 8)))
		for (k = 0; k < n; k++) {
			if (d[k].type == SCHED_RUN && d[k].vcpu == 0)
				signal_flag(p, &p->granted);
			if (d[k].type == SCHED_PREEMPT && d[k].vcpu == 0) {
				pre = true;
				/* Applied, as the agent applies a PREEMPT (the holder tells it
				 * from a kick left over from an earlier round). */
				pthread_mutex_lock(&p->lock);
				p->applied++;
				pre_kick(p);
				pthread_mutex_unlock(&p->lock);
			}
		}
	return pre;
}

/* The vt round's groups: lo (weight 100) for vCPU 0, hi (weight 400) for vCPU 1. */
static int vt_groups(struct vsched *vs)
{
	return vsched_mkdir_threaded(vs, "/lo") || vsched_mkdir_threaded(vs, "/hi") ||
	       vsched_write_str(vs, "/lo", "cpu.weight", "100") ||
	       vsched_write_str(vs, "/hi", "cpu.weight", "400") ||
	       vsched_assign(vs, "0", "/lo") || vsched_assign(vs, "1", "/hi");
}

/*
 * vCPU 0's run time from its grant at g to g + at, reported as its VMM's reports would (vt
 * round). The in-process core is given the round's times as planned (g + 50 us, g + 2.05 ms,
 * g + 2.25 ms), not as the sleeps came out under load: its decisions are the same every round
 * (a late first wake, past vCPU 0's min_run, would take the lane there at once), and the
 * daemon's are those of the same plan.
 */
static uint64_t vt_report(struct sched *s, uint64_t g, uint64_t at, uint64_t *charged)
{
	sched_vcpu_ran(s, 0, at - *charged, 0, g + at);
	*charged = at;
	return g + at;
}

/* Two lanes: the VM's groups below /vm, vCPU 2 in /other holding lane 0 throughout. */
static int vt_groups2(struct vsched *vs)
{
	return vsched_mkdir_threaded(vs, "/vm") ||
	       vsched_write_str(vs, "/vm", "cgroup.subtree_control", "+cpu") ||
	       vsched_mkdir_threaded(vs, "/vm/lo") || vsched_mkdir_threaded(vs, "/vm/hi") ||
	       vsched_write_str(vs, "/vm/lo", "cpu.weight", "100") ||
	       vsched_write_str(vs, "/vm/hi", "cpu.weight", "400") ||
	       vsched_assign(vs, "0", "/vm/lo") || vsched_assign(vs, "1", "/vm/hi") ||
	       vsched_mkdir_threaded(vs, "/other") || vsched_assign(vs, "2", "/other");
}

static int run_inprocess(struct pre *p)
{
	struct vsched *vs = vsched_create(p->lane + 1, p->lane ? 3 : 2);
	struct sched *s;
	unsigned int i;

	if (!vs || vsched_write_str(vs, "/", "cgroup.subtree_control", "+cpu") ||
	    (p->vt && p->lane ? vt_groups2(vs) : p->vt ? vt_groups(vs) :
	     vsched_mkdir_threaded(vs, "/idle") || vsched_write_str(vs, "/idle", "cpu.idle", "1") ||
	     vsched_assign(vs, "0", "/idle"))) {
		fprintf(stderr, "bench-host-preempt: cannot make the groups\n");
		return -1;
	}
	s = vsched_sched(vs);
	if (p->lane) {
		vsched_lock(vs);
		sched_vcpu_runnable(s, 2, time_mono_ns());
		drain(p, s);
		vsched_unlock(vs);
	}
	pthread_create(&p->h, NULL, holder, p);
	for (i = 0; i < p->rounds; i++) {
		uint64_t g, charged = 0;

		vsched_lock(vs);
		g = time_mono_ns();
		sched_vcpu_runnable(s, 0, g);
		drain(p, s);
		vsched_unlock(vs);
		wait_inside(p);
		if (p->vt) {
			vsched_lock(vs);
			sched_vcpu_runnable(s, 1, vt_report(s, g, 50000, &charged));
			drain(p, s);
			vsched_unlock(vs);
			usleep(2000);
			vsched_lock(vs);
			sched_vcpu_blocked(s, 1, vt_report(s, g, 2050000, &charged));
			drain(p, s);
			vsched_unlock(vs);
			usleep(200);
			wait_inside(p);
		}
		vsched_lock(vs);
		pthread_mutex_lock(&p->lock);
		p->timing = true;
		p->t0 = time_mono_ns();
		pthread_mutex_unlock(&p->lock);
		sched_vcpu_runnable(s, 1, p->vt ? vt_report(s, g, 2250000, &charged) : p->t0);
		if (!drain(p, s)) {
			/* Not taken at the wake (a vt round whose first wake came late, under
			 * load): no timer here to end it; H out, not sampled. */
			pthread_mutex_lock(&p->lock);
			p->timing = false;
			p->missed++;
			p->applied++;
			pre_kick(p);
			pthread_mutex_unlock(&p->lock);
			vsched_unlock(vs);
			while (__atomic_load_n(&p->inside, __ATOMIC_ACQUIRE)) {
				usleep(50);
				pthread_mutex_lock(&p->lock);
				p->applied++;
				pre_kick(p);
				pthread_mutex_unlock(&p->lock);
			}
		} else {
			vsched_unlock(vs);
			wait_flag(p, &p->done);
		}
		vsched_lock(vs);
		/* The preempted one first: blocking 1 first would hand 0 the lane again. */
		sched_vcpu_blocked(s, 0, time_mono_ns());
		sched_vcpu_blocked(s, 1, time_mono_ns());
		drain(p, s);
		vsched_unlock(vs);
	}
	signal_flag(p, &p->stop);
	pthread_join(p->h, NULL);
	vsched_destroy(vs);
	return 0;
}

/* The agent: GRANT of vCPU 0 wakes H; PREEMPT of vCPU 0 kicks it. */
static void *agent(void *arg)
{
	struct pre *p = arg;
	struct host_ev m;

	while (recv(p->fd, &m, sizeof(m), 0) == sizeof(m)) {
		if (m.type == HOST_MSG_PREEMPT && m.vcpu == 0)
			p->ta = time_mono_ns();
		if (m.type == HOST_MSG_GRANT && m.vcpu == 0) {
			pthread_mutex_lock(&p->lock);
			p->grants++;
			p->grant_seq = m.seq;
			pthread_mutex_unlock(&p->lock);
			signal_flag(p, &p->granted);
		}
		if (m.type == HOST_MSG_PREEMPT && m.vcpu == 0) {
			/* As rt_remote.c: applied under the lock unless the vCPU applied it. */
			pthread_mutex_lock(&p->lock);
			if ((int32_t)(m.seq - p->applied) > 0) {
				p->applied = m.seq;
				if (p->in_guest)
					pre_kick(p);
			}
			pthread_mutex_unlock(&p->lock);
		}
	}
	return NULL;
}

static void send_msg(struct pre *p, struct host_ev *m)
{
	if (send(p->fd, m, sizeof(*m), 0) != sizeof(*m))
		perror("bench-host-preempt: send");
	p->sent++;
}

/* As rt_remote_send(): a TOOK due goes first. */
static void send_ev_ab(struct pre *p, uint32_t type, uint32_t vcpu, uint32_t arg, uint64_t a,
		       uint64_t b)
{
	struct host_ev m = { .type = type, .vcpu = vcpu, .arg = arg, .a = a, .b = b };

	if (p->took_due) {
		struct host_ev t = { .type = HOST_MSG_TOOK, .vcpu = 1, .a = p->took_gen,
				     .b = p->took_lane };

		p->took_due = false;
		send_msg(p, &t);
	}
	send_msg(p, &m);
}

static void send_ev(struct pre *p, uint32_t type, uint32_t vcpu, uint32_t arg)
{
	send_ev_ab(p, type, vcpu, arg, 0, 0);
}

/* An offer of the held lane to vCPU 1 stands, made after every datagram sent. */
static bool offer_ready(struct pre *p)
{
	struct host_offer *o = p->offer;
	uint64_t w = __atomic_load_n(&o->word, __ATOMIC_ACQUIRE);

	return host_offer_lane(w) == p->lane && host_offer_vcpu(w) == HOST_OFFER_FREE &&
	       (__atomic_load_n(&o->eligible[0], __ATOMIC_ACQUIRE) & 2) &&
	       __atomic_load_n(&o->sent, __ATOMIC_ACQUIRE) == p->sent;
}

/*
 * vCPU 1 becomes runnable: the held lane's offer taken as rt_offer_take() takes it (vCPU 0
 * named as the holder, its grant applied, nothing in flight), H kicked as rt_preempt() does.
 * False: no offer to take; the caller asks by the socket.
 */
static bool take_held(struct pre *p)
{
	struct host_offer *o = p->offer;
	uint64_t w;
	bool ok;

	pthread_mutex_lock(&p->lock);
	w = __atomic_load_n(&o->word, __ATOMIC_ACQUIRE);
	ok = host_offer_lane(w) == p->lane && host_offer_vcpu(w) == HOST_OFFER_FREE &&
	     (__atomic_load_n(&o->eligible[0], __ATOMIC_ACQUIRE) & 2) &&
	     __atomic_load_n(&o->sent, __ATOMIC_ACQUIRE) == p->sent &&
	     __atomic_load_n(&o->holder, __ATOMIC_ACQUIRE) == 0 &&
	     __atomic_load_n(&o->holder_seq, __ATOMIC_ACQUIRE) == p->grant_seq &&
	     time_mono_ns() >= __atomic_load_n(&o->not_before, __ATOMIC_ACQUIRE) &&
	     p->applied == p->grant_seq &&
	     __atomic_compare_exchange_n(&o->word, &w, host_offer_word(host_offer_gen(w), p->lane, 1),
					 false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
	if (ok) {
		p->took_due = true;
		p->took_gen = host_offer_gen(w);
		p->took_lane = p->lane;
		p->applied = p->grant_seq + 1;	/* preempted here: no seq of the daemon's */
		pre_kick(p);
	}
	pthread_mutex_unlock(&p->lock);
	return ok;
}

/* The WELCOME and its grant page, mapped read-only as rt_page_map() maps it. */
static int recv_welcome(struct pre *p, struct host_welcome *w)
{
	char cbuf[CMSG_SPACE(2 * sizeof(int))];
	struct iovec iov = { .iov_base = w, .iov_len = sizeof(*w) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
			     .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *cm;
	void *pg;
	int fd;

	if (recvmsg(p->fd, &mh, 0) != sizeof(*w))
		return -1;
	cm = CMSG_FIRSTHDR(&mh);
	if (!cm || cm->cmsg_type != SCM_RIGHTS)
		return -1;
	memcpy(&fd, CMSG_DATA(cm), sizeof(fd));
	if (cm->cmsg_len == CMSG_LEN(2 * sizeof(int))) {
		int ofd;

		memcpy(&ofd, CMSG_DATA(cm) + sizeof(int), sizeof(ofd));
		pg = mmap(NULL, sizeof(struct host_offer), PROT_READ | PROT_WRITE, MAP_SHARED, ofd,
			  0);
		close(ofd);
		if (pg == MAP_FAILED) {
			close(fd);
			return -1;
		}
		p->offer = pg;
	}
	pg = mmap(NULL, 2 * sizeof(struct host_grant), PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (pg == MAP_FAILED)
		return -1;
	p->page = pg;
	return 0;
}

/*
 * VM "other": its datagrams (its one GRANT, RETIMEs) read and dropped, as its agent would, and
 * its holder's CPU time reported every millisecond, as a running VMM reports it: a holder
 * silent for long while someone waits is revoked by the daemon's grace.
 */
static void *other_vmm(void *arg)
{
	struct pre *p = arg;
	uint64_t last = time_mono_ns(), now;
	struct pollfd pf = { .fd = p->ofd, .events = POLLIN };
	char buf[256];

	for (;;) {
		if (poll(&pf, 1, 1) > 0 && recv(p->ofd, buf, sizeof(buf), 0) <= 0)
			return NULL;
		now = time_mono_ns();
		if (now - last >= 1000000) {
			struct host_ev m = { .type = HOST_MSG_RAN, .a = now - last };

			last = now;
			if (send(p->ofd, &m, sizeof(m), MSG_NOSIGNAL) != sizeof(m))
				return NULL;
		}
	}
}

/* Two lanes: VM "other" joins, its one vCPU runnable: it is granted lane 0 and keeps it. */
static int other_join(struct pre *p, const char *sock, pthread_t *t)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct host_hello hm = {
		.type = HOST_MSG_HELLO, .version = HOST_PROTO_VERSION, .pid = getpid(),
		.nr_vcpus = 1, .name = "other",
		.vm = { .quota_us = UINT64_MAX, .period_us = 100000, .subtree_cpu = 1 },
	};
	struct host_ev ev[3] = {
		{ .type = HOST_MSG_VCPU }, { .type = HOST_MSG_COMMIT },
		{ .type = HOST_MSG_RUNNABLE },
	};
	char buf[1024];
	unsigned int i;

	strcpy(sa.sun_path, sock);
	p->ofd = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	for (i = 0; i < 200 && connect(p->ofd, (struct sockaddr *)&sa, sizeof(sa)); i++)
		usleep(10000);
	if (i == 200 || send(p->ofd, &hm, sizeof(hm), 0) != sizeof(hm) ||
	    recv(p->ofd, buf, sizeof(buf), 0) != sizeof(struct host_welcome))
		return -1;
	for (i = 0; i < 3; i++)
		if (send(p->ofd, &ev[i], sizeof(ev[i]), 0) != sizeof(ev[i]))
			return -1;
	return pthread_create(t, NULL, other_vmm, p);
}

static int run_host(struct pre *p, const char *sock)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct host_hello hm = {
		.type = HOST_MSG_HELLO, .version = HOST_PROTO_VERSION, .pid = getpid(),
		.nr_vcpus = 2, .name = "bench", .flags = HOST_HELLO_PAGE,
		.vm = { .quota_us = UINT64_MAX, .period_us = 100000, .subtree_cpu = 1 },
	};
	struct host_group_msg gm = {
		.type = HOST_MSG_GROUP, .path = "idle",
		.set = { .shares = 1024, .quota_us = UINT64_MAX, .period_us = 100000, .idle = 1,
			 .threaded = 1 },
	};
	struct host_welcome w;
	pthread_t a, od;
	unsigned int i;

	struct host_group_msg lo = {
		.type = HOST_MSG_GROUP, .path = "lo",
		.set = { .shares = 1024, .quota_us = UINT64_MAX, .period_us = 100000,
			 .threaded = 1 },
	}, hi = lo;

	hi.index = 1;
	hi.set.shares = 4096;
	strcpy(hi.path, "hi");
	if (p->held)
		hm.flags |= HOST_HELLO_OFFER | HOST_HELLO_HELD;
	if (p->dkick)
		hm.flags |= HOST_HELLO_KICK;
	if (p->lane && other_join(p, sock, &od)) {
		fprintf(stderr, "bench-host-preempt: VM other cannot join the daemon at %s\n", sock);
		return -1;
	}
	strcpy(sa.sun_path, sock);
	p->fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	for (i = 0; i < 200 && connect(p->fd, (struct sockaddr *)&sa, sizeof(sa)); i++)
		usleep(10000);
	if (i == 200 || send(p->fd, &hm, sizeof(hm), 0) != sizeof(hm) ||
	    recv_welcome(p, &w) || w.err || (p->held && !p->offer) ||
	    (!p->vt && send(p->fd, &gm, sizeof(gm), 0) != sizeof(gm)) ||
	    (p->vt && (send(p->fd, &lo, sizeof(lo), 0) != sizeof(lo) ||
		       send(p->fd, &hi, sizeof(hi), 0) != sizeof(hi)))) {
		fprintf(stderr, "bench-host-preempt: cannot join the daemon at %s\n", sock);
		return -1;
	}
	p->sent = p->vt ? 2 : 1;	/* the GROUPs */
	send_ev(p, HOST_MSG_VCPU, 0, 1);
	send_ev(p, HOST_MSG_VCPU, 1, p->vt ? 2 : 0);
	send_ev(p, HOST_MSG_COMMIT, 0, 0);
	pthread_create(&a, NULL, agent, p);
	pthread_create(&p->h, NULL, holder, p);
	while (!__atomic_load_n(&p->tid, __ATOMIC_ACQUIRE))
		usleep(100);
	if (p->dkick) {		/* as rt_core_set_tid() */
		struct host_ev t = { .type = HOST_MSG_TID, .vcpu = 0, .a = (uint64_t)p->tid };

		send_msg(p, &t);
	}
	for (i = 0; i < p->rounds; i++) {
		uint64_t g = time_mono_ns();
		unsigned int k;

		send_ev(p, HOST_MSG_RUNNABLE, 0, 0);
		wait_inside(p);	/* granted, H in its vCPU */
		if (p->vt) {
			send_ev(p, HOST_MSG_RUNNABLE, 1, 0);
			usleep(2000);
			send_ev(p, HOST_MSG_BLOCKED, 1, 0);
			usleep(200);
			wait_inside(p);	/* granted again if it was out (stray) */
			/* The daemon's offer after the BLOCKED, given up to 1 ms more under load
			 * (untimed; without it the round asks by the socket, counted). */
			for (k = 0; p->held && k < 20 && !offer_ready(p); k++)
				usleep(50);
		}
		pthread_mutex_lock(&p->lock);
		p->timing = true;
		p->t0 = time_mono_ns();
		pthread_mutex_unlock(&p->lock);
		if (!p->held || !take_held(p)) {
			p->by_socket += p->held;
			send_ev(p, HOST_MSG_RUNNABLE, 1, 0);
		}
		wait_flag(p, &p->done);
		/*
		 * vt: vCPU 0's CPU time, as its VMM reports it when it leaves the guest. It pays
		 * back what the daemon charged it ahead (its wall time); without it that stood
		 * over the next round's charges (a holder's estimate is paid back only by
		 * reports), vCPU 1 was owed nothing there in some rounds, and the preemption
		 * came at the daemon's grace for a silent holder, 100 ms.
		 */
		if (p->vt)
			send_ev_ab(p, HOST_MSG_RAN, 0, 0, time_mono_ns() - g, 0);
		send_ev(p, HOST_MSG_BLOCKED, 0, 0);
		send_ev(p, HOST_MSG_BLOCKED, 1, 0);
	}
	/* A grant after the last round (a claim the daemon did not honour: its holder granted
	 * again) leaves H inside: out first. */
	usleep(1000);
	while (__atomic_load_n(&p->inside, __ATOMIC_ACQUIRE)) {
		pthread_mutex_lock(&p->lock);
		p->applied++;
		pre_kick(p);
		pthread_mutex_unlock(&p->lock);
		usleep(100);
	}
	signal_flag(p, &p->stop);
	pthread_join(p->h, NULL);
	shutdown(p->fd, SHUT_RDWR);
	pthread_join(a, NULL);
	close(p->fd);
	if (p->lane) {
		shutdown(p->ofd, SHUT_RDWR);
		pthread_join(od, NULL);
		close(p->ofd);
	}
	munmap((void *)p->page, 2 * sizeof(struct host_grant));
	if (p->offer)
		munmap(p->offer, sizeof(struct host_offer));
	return 0;
}

static int run_daemon(struct pre *p)
{
	char sock[64];
	pid_t pid = bench_daemon_start("preempt", sock, sizeof(sock));
	int ret = pid < 0 ? -1 : run_host(p, sock);

	bench_daemon_stop(pid, sock);
	return ret;
}

static struct pre *pre_new(unsigned int rounds, bool kvm)
{
	struct pre *p = calloc(1, sizeof(*p));

	if (!p || !(p->samples = calloc(rounds, sizeof(uint64_t))) ||
	    !(p->kicks = calloc(rounds, sizeof(uint64_t))) ||
	    !(p->agents = calloc(rounds, sizeof(uint64_t))))
		exit(1);
	if (spin_vcpu_init(&p->v, kvm)) {
		spin_vcpu_exit(&p->v);
		free(p->samples);
		free(p->kicks);
		free(p->agents);
		free(p);
		return NULL;
	}
	p->rounds = rounds;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->cond, NULL);
	return p;
}

static void pre_free(struct pre *p)
{
	spin_vcpu_exit(&p->v);
	free(p->samples);
	free(p->kicks);
	free(p->agents);
	free(p);
}

static void report(const char *accel, const char *what, struct pre *p)
{
	qsort(p->samples, p->n, sizeof(*p->samples), cmp_u64);
	uint64_t *in = malloc(p->n * sizeof(uint64_t)), *out = malloc(p->n * sizeof(uint64_t));
	unsigned int i, k = 0;

	/*
	 * Per hop, over the rounds the agent had the PREEMPT before the vCPU was out: event -> the
	 * agent has it (the daemon's wake-up and decision, the agent's wake-up), then -> vCPU out
	 * (the lock, the kick's signal, the exit).
	 */
	for (i = 0; in && out && i < p->n; i++)
		if (p->agents[i] && p->agents[i] < p->samples[i]) {
			in[k] = p->agents[i];
			out[k++] = p->samples[i] - p->agents[i];
		}
	if (k) {
		qsort(in, k, sizeof(*in), cmp_u64);
		qsort(out, k, sizeof(*out), cmp_u64);
		printf("%-6s %-10s per hop: event -> agent has the PREEMPT median %5.1f us;"
		       " agent -> vCPU out median %5.1f us (%u rounds)\n", accel, what,
		       in[k / 2] / 1e3, out[k / 2] / 1e3, k);
	}
	free(in);
	free(out);
	qsort(p->kicks, p->n, sizeof(*p->kicks), cmp_u64);
	printf("%-6s %-10s event -> vCPU out: median %6.1f us  p90 %6.1f us  p99 %6.1f us"
	       "  (kick issued: median %5.1f  p99 %5.1f us; %u rounds)\n", accel, what,
	       quant(p, 500) / 1e3, quant(p, 900) / 1e3, quant(p, 990) / 1e3,
	       quant_of(p, p->kicks, 500) / 1e3, quant_of(p, p->kicks, 990) / 1e3, p->n);
}

static void ratio(const char *accel, const char *what, struct pre *ho, struct pre *in)
{
	printf("%-6s %s / in-process, vCPU out (median): %.2f; (p90): %.2f; (p99): %.2f;"
	       " kick issued (median): %.1f\n", accel, what,
	       (double)quant(ho, 500) / quant(in, 500), (double)quant(ho, 900) / quant(in, 900),
	       (double)quant(ho, 990) / quant(in, 990),
	       (double)quant_of(ho, ho->kicks, 500) / quant_of(in, in->kicks, 500));
}

/*
 * The paths on one backend, in-process first; 1 if the backend cannot run here. The page row
 * only where the backend watches memory (thread).
 */
static int run_accel(bool kvm, unsigned int rounds)
{
	const char *name = kvm ? "kvm" : "thread";
	struct pre *in = pre_new(rounds, kvm), *ho = pre_new(rounds, kvm);
	struct pre *pg = kvm ? NULL : pre_new(rounds, kvm), *hd = pre_new(rounds, kvm);
	struct pre *dk = pre_new(rounds, kvm);
	int ret = 0;

	if (!in || !ho || !hd || !dk || (!kvm && !pg)) {
		printf("%-6s skipped: the backend cannot run here\n", name);
		ret = 1;
	} else {
		if (pg)
			pg->watch = true;
		hd->held = true;
		dk->dkick = true;
		dk->watch = !kvm;	/* the runtime's thread backend watches its entry too */
		if (run_inprocess(in) || run_daemon(ho) || (pg && run_daemon(pg)) || run_daemon(dk) ||
		    run_daemon(hd))
			ret = -1;
	}
	if (!ret) {
		report(name, "in-process", in);
		report(name, "host", ho);
		if (pg)
			report(name, "host, page", pg);
		report(name, "host, kick", dk);
		report(name, "host, held", hd);
		ratio(name, "host", ho, in);
		if (pg)
			ratio(name, "host, page", pg, in);
		ratio(name, "host, kick", dk, in);
		ratio(name, "host, held", hd, in);
		printf("%-6s host, held: %u of %u rounds asked by the socket (no offer to take)\n",
		       name, hd->by_socket, hd->n);
	}
	if (in)
		pre_free(in);
	if (ho)
		pre_free(ho);
	if (pg)
		pre_free(pg);
	if (hd)
		pre_free(hd);
	if (dk)
		pre_free(dk);
	return ret;
}

/* The vt rows on one backend: in-process, the daemon by the socket, the held lane's offer. */
static int run_accel_vt(bool kvm, unsigned int rounds)
{
	const char *name = kvm ? "kvm" : "thread";
	struct pre *in = pre_new(rounds, kvm), *ho = pre_new(rounds, kvm);
	struct pre *hd = pre_new(rounds, kvm);
	int ret = 0;

	if (!in || !ho || !hd) {
		printf("%-6s skipped: the backend cannot run here\n", name);
		ret = 1;
	} else {
		in->vt = ho->vt = hd->vt = true;
		in->lane = ho->lane = hd->lane = bench_daemon_lanes - 1;
		hd->held = true;
		if (run_inprocess(in) || run_daemon(ho) || run_daemon(hd))
			ret = -1;
	}
	if (!ret) {
		report(name, "in-process, vt", in);
		report(name, "host, vt", ho);
		report(name, "host, vt held", hd);
		ratio(name, "host, vt", ho, in);
		ratio(name, "host, vt held", hd, in);
		printf("%-6s host, vt held: %u of %u rounds asked by the socket (no offer to take)\n",
		       name, hd->by_socket, hd->n);
		printf("%-6s vCPU 0 granted: host %u, held %u times in %u rounds (and strays)\n",
		       name, ho->grants, hd->grants, hd->n);
		printf("%-6s vt rounds with the holder out before the timed wake (not sampled): "
		       "in-process %u, host %u, held %u; in-process not taken at the wake: %u\n",
		       name, in->stray - in->missed, ho->stray, hd->stray, in->missed);
	}
	if (in)
		pre_free(in);
	if (ho)
		pre_free(ho);
	if (hd)
		pre_free(hd);
	return ret;
}

static int run_set(bool kvm, unsigned int rounds, const char *set)
{
	int ret = 0, r;

	if (!set || !strcmp(set, "idle"))
		ret = run_accel(kvm, rounds);
	if (ret >= 0 && (!set || !strcmp(set, "vt"))) {
		r = run_accel_vt(kvm, rounds);
		ret = r < 0 ? r : ret;
	}
	return ret;
}

int main(void)
{
	const char *env = getenv("BENCH_PRE_ROUNDS"), *accel = getenv("BENCH_PRE_ACCEL");
	const char *set = getenv("BENCH_PRE_SET");
	unsigned int rounds = env ? (unsigned int)atoi(env) : 5000;

	if (!rounds)
		return 2;
	/* The vt rows on two lanes (above); the idle rows stay on one. */
	if (getenv("BENCH_PRE_LANES") && atoi(getenv("BENCH_PRE_LANES")) == 2) {
		bench_daemon_lanes = 2;
		set = "vt";
	}
	if ((!accel || !strcmp(accel, "thread")) && run_set(false, rounds, set) < 0)
		return 1;
	/* No /dev/kvm is no failure: the thread rows stand alone then. */
	if ((!accel || !strcmp(accel, "kvm")) && run_set(true, rounds, set) < 0)
		return 1;
	return 0;
}
