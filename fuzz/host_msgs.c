// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz target: what a VMM can send `vsched host` (host/, include/host/proto.h): datagrams on its
 * socket and writes in the offer page it maps read-write. A malicious or broken VMM must not
 * crash the daemon, corrupt the core or keep its slots after it leaves.
 *
 * The daemon runs as host_run() would, without its epoll: each VMM is one end of a socketpair,
 * and after every operation every daemon-side socket that is readable (a datagram, or the
 * shutdown() of a hang-up) goes through host_client_input(). The clock moves only by CLOCK.
 *
 * Input: the first byte picks the lanes (1-3) of a daemon with HM_SLOTS slots, then operations,
 * each one byte (low nibble: the operation, high nibble: the VMM, of HM_VMMS) and its fields
 * (u8, u16, u64 as struct fuzz_in reads them, fuzz/fuzz.h; a string is a u16 length then that
 * many bytes, copied into the field, unterminated if it fills it):
 *   0 CONNECT            a new connection in that VMM's place (if none)
 *   1 HELLO u16 nr_vcpus, u16 flags, u8 partition, settings (u64 shares, quota, period, burst,
 *       u8 idle/threaded/subtree bits): name "vmN", this process's pid, this version
 *   2 GROUP u16 index, string path, settings (id: index + 1)
 *   3 EV u8 type, u16 vcpu, u16 arg, u64 a, u64 b: a struct host_ev
 *   4 RAW u16 length (at most 1100), then the bytes: one datagram as is
 *   5 TID u16 vcpu: a live thread of this process (fuzz_stand_in(), takes the kick signal)
 *   6 STORE u16 index, u64 value: the offer page's 64-bit word index written (if mapped)
 *   7 CLAIM u16 vcpu: the offered lane claimed for vcpu by CAS, as rt_offer_take(), and
 *       its TOOK sent
 *   8 CLOSE              the VMM hangs up
 *   9 CLOCK u64          the clock forward (at most 10 s), then the daemon's timer
 *  10 TIMER              the daemon's timer
 *  11 WRITE u8 file, string value: a write in the daemon's tree to that VMM's VM group
 *  12 HAND u16 vcpu: a handoff offered claimed by its holder vcpu, as rt_hand_off(), and its
 *       TOOK sent; bit 15 set: the other VMMs' successors take it (XTAKE) before the TOOK;
 *       bit 14: no TOOK
 *  13 XTAKE u16 vcpu: a successor's offer (a lane another VMM claimed) taken for vcpu, as
 *       rt_xhand_take() (no TOOK)
 *  14 FWD u8 op, u8 path, u8 file, u8 value kind, string value, u8 perm, u64 dseq, u64 err:
 *       host_forward() (a FUSE thread's write, mkdir or rmdir in the daemon's directory) in a
 *       thread of its own; the VMM its CTL went to answers CTL_DONE with the CTL's seq + dseq
 *       and that errno, then (the forward still waiting) with the right seq
 *  15 PROC u8 state, u64 run, u64 wait, u8 threads: from here on what the daemon reads in
 *       /proc of every vCPU's thread (host_set_thread_times(), _state()): that state (of
 *       "RSDTtZX"), its times moved on by run and wait ns, its VMM's threads (bits 0-3), of
 *       them in R (bits 4-5; bit 6 unused); bit 7: the thread is gone (-ESRCH)
 * The first byte's bit 7 turns the daemon's preemption causes on (VSCHED_HOST_PRE_STATS).
 * At the end every VMM hangs up. HM_DEBUG set in the environment: each operation and each
 * datagram the daemon sent is printed (to read a finding).
 *
 * Invariants: no crash, leak or undefined behaviour; the daemon serves exactly the connections
 * not hung up on; what it sends is a known daemon-to-VMM message of its type's length, about a
 * vCPU and lane of that VM (GRANT, PREEMPT, RETIME, PIN), and the grant page's entries name a
 * lane or none; once every VMM left, every slot is free again.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "host/host.h"
#include "host/proto.h"
#include "host_msgs.h"
#include "util/time.h"
#include "vsched.h"

static uint64_t hm_now;
bool hm_debug;
/* PROC's reading of every vCPU's thread, and whether one was given (else /proc's). */
static struct host_times hm_times;
static int hm_times_err;

static uint64_t hm_clock(void)
{
	return hm_now;
}

static uint64_t hm_cpu_clock(void)
{
	return 0;
}

static int hm_thread_times(const struct host_client *c, unsigned int vcpu, struct host_times *t)
{
	(void)c;
	(void)vcpu;
	*t = hm_times;
	return hm_times_err;
}

static char hm_thread_state(const struct host_client *c, unsigned int vcpu)
{
	(void)c;
	(void)vcpu;
	return hm_times.state;
}

static void hm_proc(struct hm *f)
{
	static const char states[] = "RSDTtZX";
	uint8_t bits;

	hm_times.state = states[fuzz_u8(&f->in) % (sizeof(states) - 1)];
	hm_times.run_ns += fuzz_u64(&f->in) % HM_CLOCK_MAX;
	hm_times.wait_ns += fuzz_u64(&f->in) % HM_CLOCK_MAX;
	bits = fuzz_u8(&f->in);
	hm_times.vm_threads = bits & 0xf;
	hm_times.vm_runnable = (bits >> 4) & 3;
	hm_times_err = bits & 0x80 ? -ESRCH : 0;
	host_set_thread_times(f->h, hm_thread_times);
	host_set_thread_state(f->h, hm_thread_state);
}

static void hm_init_once(void)
{
	static bool done;

	if (done)
		return;
	done = true;
	hm_debug = getenv("HM_DEBUG") != NULL;
	fuzz_stand_in();
}

/* A string field: up to size bytes copied, the rest NUL. */
static void hm_str(struct hm *f, char *dst, size_t size)
{
	size_t n = fuzz_u16(&f->in), i;

	memset(dst, 0, size);
	for (i = 0; i < n; i++) {
		uint8_t b = fuzz_u8(&f->in);

		if (i < size)
			dst[i] = (char)b;
	}
}

static struct host_settings hm_settings(struct hm *f)
{
	struct host_settings s = { .shares = fuzz_u64(&f->in) };
	uint8_t bits;

	s.quota_us = fuzz_u64(&f->in);
	s.period_us = fuzz_u64(&f->in);
	s.burst_us = fuzz_u64(&f->in);
	bits = fuzz_u8(&f->in);
	s.idle = bits & 3;
	s.threaded = (bits >> 2) & 3;
	s.subtree_cpu = (bits >> 4) & 3;
	return s;
}

static void hm_unmap(struct hm_vmm *v)
{
	if (v->page)
		munmap((void *)v->page, v->nr_vcpus * sizeof(*v->page));
	if (v->offer)
		munmap(v->offer, sizeof(*v->offer));
	v->page = NULL;
	v->offer = NULL;
}

/* The daemon hung up on v (its client is freed). */
static void hm_gone(struct hm_vmm *v)
{
	hm_unmap(v);
	if (v->fd >= 0)
		close(v->fd);
	memset(v, 0, sizeof(*v));
	v->fd = v->dfd = -1;
}

static void hm_connect(struct hm *f, struct hm_vmm *v)
{
	int sv[2];

	if (v->live || v->fd >= 0)
		return;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv))
		return;
	vsched_lock(host_vsched(f->h));
	FUZZ_CHECK(!host_client_add(f->h, sv[1], &v->c), "client not added");
	vsched_unlock(host_vsched(f->h));
	v->fd = sv[0];
	v->dfd = sv[1];
	v->live = true;
}

static unsigned int hm_nr_live(const struct hm *f)
{
	unsigned int i, n = 0;

	for (i = 0; i < HM_VMMS; i++)
		n += f->vmm[i].live;
	return n;
}

/* host_run()'s loop: every readable daemon-side socket read, until none is. */
static void hm_serve(struct hm *f)
{
	unsigned int i, round, nr;
	bool again = true;

	for (round = 0; again && round < 64; round++) {
		again = false;
		for (i = 0; i < HM_VMMS; i++) {
			struct hm_vmm *v = &f->vmm[i];
			struct pollfd p = { .fd = v->dfd, .events = POLLIN };

			if (!v->live || poll(&p, 1, 0) != 1)
				continue;
			again = true;
			vsched_lock(host_vsched(f->h));
			nr = host_nr_clients(f->h);
			vsched_unlock(host_vsched(f->h));
			host_client_input(f->h, v->c);
			vsched_lock(host_vsched(f->h));
			/* host_client_input() hangs up on v alone, if on anyone */
			if (host_nr_clients(f->h) != nr) {
				FUZZ_CHECK(host_nr_clients(f->h) == nr - 1, "%u clients left of %u",
					   host_nr_clients(f->h), nr);
				v->live = false;
			}
			vsched_unlock(host_vsched(f->h));
			if (!v->live) {
				hm_recv(f, v);
				hm_gone(v);
			}
		}
		for (i = 0; i < HM_VMMS; i++)
			if (f->vmm[i].live)
				hm_recv(f, &f->vmm[i]);
	}
	vsched_lock(host_vsched(f->h));
	FUZZ_CHECK(host_nr_clients(f->h) == hm_nr_live(f), "daemon serves %u, %u connected",
		   host_nr_clients(f->h), hm_nr_live(f));
	vsched_unlock(host_vsched(f->h));
	hm_check_pages(f);
}

static void hm_send(struct hm_vmm *v, const void *buf, size_t len)
{
	uint32_t type = 0;

	if (!v->live)
		return;
	if (len >= sizeof(type))
		memcpy(&type, buf, sizeof(type));
	if (type == HOST_MSG_HELLO && len == sizeof(struct host_hello))
		v->hello_vcpus = ((const struct host_hello *)buf)->nr_vcpus;
	send(v->fd, buf, len, MSG_DONTWAIT | MSG_NOSIGNAL);
}

static void hm_claim_took(struct hm_vmm *v, uint32_t gen, uint32_t lane, uint16_t vcpu)
{
	struct host_ev m = { .type = HOST_MSG_TOOK, .vcpu = vcpu, .a = gen, .b = lane };

	hm_send(v, &m, sizeof(m));
}

/* v's offer word from w to a claim of lane by vcpu; TOOK sent if took. Whether it claimed. */
static bool hm_claim(struct hm_vmm *v, uint64_t w, uint32_t lane, uint16_t vcpu, bool took)
{
	if (!__atomic_compare_exchange_n(&v->offer->word, &w,
					 host_offer_word(host_offer_gen(w), lane, vcpu), false,
					 __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
		return false;
	if (took)
		hm_claim_took(v, host_offer_gen(w), lane, vcpu);
	return true;
}

/* The lane a peer (another VMM here) claimed in its word of v's gen. */
static void hm_xtake(struct hm *f, struct hm_vmm *v, uint16_t vcpu)
{
	unsigned int i;
	uint64_t w, pw;

	if (!v->offer)
		return;
	w = __atomic_load_n(&v->offer->word, __ATOMIC_ACQUIRE);
	if (host_offer_lane(w) != HOST_OFFER_XSUCC || host_offer_vcpu(w) != HOST_OFFER_FREE)
		return;
	for (i = 0; i < HM_VMMS; i++) {
		if (&f->vmm[i] == v || !f->vmm[i].offer)
			continue;
		pw = __atomic_load_n(&f->vmm[i].offer->word, __ATOMIC_ACQUIRE);
		if (host_offer_gen(pw) == host_offer_gen(w) &&
		    host_offer_vcpu(pw) != HOST_OFFER_FREE &&
		    host_offer_lane(pw) < HOST_HAND_LANES) {
			hm_claim(v, w, host_offer_lane(pw), vcpu, false);
			return;
		}
	}
}

/*
 * v's holder vcpu claims its handoff; bit 15 of vcpu: every other VMM whose successor's side
 * is of that gen takes it first for its published successor (x_succ), as its waker thread
 * does before the daemon reads the TOOK (else the daemon settles the offer untaken); bit 14:
 * no TOOK sent (the daemon settles at v's next event).
 */
static void hm_hand(struct hm *f, struct hm_vmm *v, uint16_t vcpu)
{
	bool xtake = vcpu & 0x8000, took = !(vcpu & 0x4000);
	unsigned int l, i;
	uint64_t w;

	vcpu &= 0x3fff;
	if (!v->offer)
		return;
	w = __atomic_load_n(&v->offer->word, __ATOMIC_ACQUIRE);
	if (host_offer_lane(w) != HOST_OFFER_HAND || host_offer_vcpu(w) != HOST_OFFER_FREE)
		return;
	for (l = 0; l < HOST_HAND_LANES; l++)
		if (__atomic_load_n(&v->offer->hand[l].holder, __ATOMIC_RELAXED) == vcpu)
			break;
	if (l == HOST_HAND_LANES || !hm_claim(v, w, l, vcpu, took && !xtake) || !xtake)
		return;
	for (i = 0; i < HM_VMMS; i++)
		if (&f->vmm[i] != v && f->vmm[i].offer)
			hm_xtake(f, &f->vmm[i],
				 (uint16_t)__atomic_load_n(&f->vmm[i].offer->x_succ,
							   __ATOMIC_RELAXED));
	if (took)
		hm_claim_took(v, host_offer_gen(w), l, vcpu);
}

static const char *const hm_partitions[] = {
	"", "/", "/machine", "/machine/vm0", "/a/b", "machine", "/../x", "/machine/", "//a",
	"/machine/vm0/a", "/m/cpu.max", "/a b",
};

static const char *const hm_files[] = {
	"cpu.weight", "cpu.max", "cpu.max.burst", "cpu.idle", "cpu.weight.nice",
	"cgroup.subtree_control", "cgroup.type", "vsched.vcpus",
};

static const char *const hm_fwd_paths[] = {
	"/machine/vm#", "/machine/vm#/a", "/machine/vm#/a/b", "/machine", "/",
	"/machine/vm#/cpu.max", "machine/vm#", "/machine/vm#/", "/machine/vm#/../x",
	"/machine/vm#2", "/a/b",
};	/* # is the VMM's number */

static const char *const hm_fwd_files[] = {
	"cgroup.threads", "cgroup.procs", "vsched.vcpus", "cpu.weight", "cpu.max", "cpu.idle",
	"cgroup.subtree_control", "cgroup.type", "nosuch", NULL,
};

struct hm_fwd {
	struct host *h;
	unsigned int op;
	char path[64];
	const char *file;
	char buf[64];
	size_t len;
	bool perm;
	int ret;
	int done_fd;	/* written once host_forward() returned */
};

static void *hm_fwd_thread(void *arg)
{
	static const bool may[HOST_PATH_LEN] = { true, true, false, true };
	struct vsched_move_perm perm = { .may = may, .nr = 4 };
	struct hm_fwd *w = arg;

	w->ret = host_forward(w->h, w->op, w->path, w->file, w->buf, w->len,
			      w->perm ? &perm : NULL);
	if (write(w->done_fd, "", 1) != 1)
		abort();
	return NULL;
}

/* The VMM the CTL went to, if one did. */
static struct hm_vmm *hm_ctl_owner(struct hm *f)
{
	unsigned int i;

	for (i = 0; i < HM_VMMS; i++)
		if (f->vmm[i].live && f->vmm[i].ctl_seq)
			return &f->vmm[i];
	return NULL;
}

static void hm_ctl_done(struct hm *f, struct hm_vmm *v, uint64_t seq, uint64_t err)
{
	struct host_ev m = { .type = HOST_MSG_CTL_DONE, .a = seq, .b = err };

	hm_send(v, &m, sizeof(m));
	hm_serve(f);
}

/* host_forward() as a FUSE thread calls it; the VMMs answer here, the thread waits there. */
static void hm_forward(struct hm *f, unsigned int vi)
{
	struct hm_fwd w = { .h = f->h };
	struct hm_vmm *owner;
	uint64_t dseq, err, seq;
	unsigned int i, kind;
	const char *path;
	int tries, done[2];
	bool answered;
	pthread_t t;

	w.op = fuzz_u8(&f->in) % (HOST_CTL_MAX + 1);
	path = hm_fwd_paths[fuzz_u8(&f->in) % ARRAY_SIZE(hm_fwd_paths)];
	w.file = hm_fwd_files[fuzz_u8(&f->in) % ARRAY_SIZE(hm_fwd_files)];
	kind = fuzz_u8(&f->in);
	hm_str(f, w.buf, sizeof(w.buf) - 1);
	w.perm = fuzz_u8(&f->in) & 1;
	dseq = fuzz_u64(&f->in);
	err = fuzz_u64(&f->in);
	for (i = 0; path[i] && i < sizeof(w.path) - 1; i++)
		w.path[i] = path[i] == '#' ? (char)('0' + vi) : path[i];
	/* The value: as given, this process's stand-in thread (a vCPU's TID), or a slot. */
	if (kind % 3 == 1)
		snprintf(w.buf, sizeof(w.buf), "%d", (int)fuzz_stand_in());
	else if (kind % 3 == 2)
		snprintf(w.buf, sizeof(w.buf), "%u", kind / 3 % HM_SLOTS);
	w.len = strlen(w.buf);
	for (i = 0; i < HM_VMMS; i++)
		f->vmm[i].ctl_seq = 0;
	f->fwd_path = w.path;
	if (pipe2(done, O_CLOEXEC))
		return;
	w.done_fd = done[1];
	if (pthread_create(&t, NULL, hm_fwd_thread, &w)) {
		close(done[0]);
		close(done[1]);
		return;
	}
	/* The CTL is sent before the forward waits: it returned, or a VMM has the CTL. */
	for (tries = 0; tries < 100 && !hm_ctl_owner(f); tries++) {
		struct pollfd p[HM_VMMS + 1] = { { .fd = done[0], .events = POLLIN } };

		for (i = 0; i < HM_VMMS; i++)
			p[i + 1] = (struct pollfd){ .fd = f->vmm[i].live ? f->vmm[i].fd : -1,
						    .events = POLLIN };
		if (poll(p, HM_VMMS + 1, 100) > 0 && p[0].revents)
			break;
		for (i = 0; i < HM_VMMS; i++)
			if (f->vmm[i].live)
				hm_recv(f, &f->vmm[i]);
	}
	owner = hm_ctl_owner(f);
	seq = owner ? owner->ctl_seq : 0;
	answered = owner && !dseq && err <= HOST_ERRNO_MAX;
	if (owner)
		hm_ctl_done(f, owner, seq + dseq, err);
	/* Not the answer (or a refused one, the VMM hung up on): the right one, late or not. */
	if (owner && owner->live && !answered)
		hm_ctl_done(f, owner, seq, 0);
	pthread_join(t, NULL);
	close(done[0]);
	close(done[1]);
	f->fwd_path = NULL;
	if (hm_debug)
		fprintf(stderr, "hm: forward %u %s %s '%s': %d\n", w.op, w.path,
			w.file ? w.file : "(none)", w.buf, w.ret);
	FUZZ_CHECK(w.ret <= 1 && w.ret >= -HOST_ERRNO_MAX, "forward: %d", w.ret);
	FUZZ_CHECK(!answered || !owner->live || w.ret == -(int)err,
		   "forward answered %d: %d", -(int)err, w.ret);
}

static void hm_op(struct hm *f)
{
	uint8_t b = fuzz_u8(&f->in);
	struct hm_vmm *v = &f->vmm[(b >> 4) % HM_VMMS];
	unsigned int vi = (unsigned int)(v - f->vmm);

	if (hm_debug)
		fprintf(stderr, "hm: vmm%u op %u%s\n", vi, b & 0xf,
			v->live ? "" : " (not connected)");

	switch (b & 0xf) {
	case 0:
		hm_connect(f, v);
		break;
	case 1: {
		struct host_hello m = { .type = HOST_MSG_HELLO, .version = HOST_PROTO_VERSION,
					.pid = getpid() };

		m.nr_vcpus = fuzz_u16(&f->in);
		m.flags = fuzz_u16(&f->in);
		snprintf(m.partition, sizeof(m.partition), "%s",
			 hm_partitions[fuzz_u8(&f->in) % ARRAY_SIZE(hm_partitions)]);
		m.vm = hm_settings(f);
		snprintf(m.name, sizeof(m.name), "vm%u", vi);
		hm_send(v, &m, sizeof(m));
		break;
	}
	case 2: {
		struct host_group_msg m = { .type = HOST_MSG_GROUP, .index = fuzz_u16(&f->in) };

		hm_str(f, m.path, sizeof(m.path));
		m.set = hm_settings(f);
		m.id = m.index + 1;	/* a VMM's (the corpus had none); RAW sends any */
		hm_send(v, &m, sizeof(m));
		break;
	}
	case 3: {
		struct host_ev m = { .type = fuzz_u8(&f->in) };

		m.vcpu = fuzz_u16(&f->in);
		m.arg = fuzz_u16(&f->in);
		m.a = fuzz_u64(&f->in);
		m.b = fuzz_u64(&f->in);
		hm_send(v, &m, sizeof(m));
		break;
	}
	case 4: {
		static uint8_t raw[HM_RAW_MAX];
		size_t n = fuzz_u16(&f->in) % (HM_RAW_MAX + 1), i;

		for (i = 0; i < n; i++)
			raw[i] = fuzz_u8(&f->in);
		if (n)	/* a datagram of 0 bytes reads as the end */
			hm_send(v, raw, n);
		break;
	}
	case 5: {
		struct host_ev m = { .type = HOST_MSG_TID, .vcpu = fuzz_u16(&f->in),
				     .a = fuzz_stand_in() };

		hm_send(v, &m, sizeof(m));
		break;
	}
	case 6: {
		unsigned int i = fuzz_u16(&f->in) % (sizeof(struct host_offer) / 8);
		uint64_t val = fuzz_u64(&f->in);

		if (v->offer)
			__atomic_store_n((uint64_t *)v->offer + i, val, __ATOMIC_RELEASE);
		break;
	}
	case 7: {
		uint16_t vcpu = fuzz_u16(&f->in);
		uint64_t w;

		if (!v->offer)
			break;
		w = __atomic_load_n(&v->offer->word, __ATOMIC_ACQUIRE);
		if (host_offer_lane(w) != HOST_OFFER_NONE && host_offer_vcpu(w) == HOST_OFFER_FREE)
			hm_claim(v, w, host_offer_lane(w), vcpu, true);
		break;
	}
	case 12:
		hm_hand(f, v, fuzz_u16(&f->in));
		break;
	case 13:
		hm_xtake(f, v, fuzz_u16(&f->in));
		break;
	case 14:
		hm_forward(f, vi);
		break;
	case 15:
		hm_proc(f);
		break;
	case 8:
		if (v->live)
			shutdown(v->fd, SHUT_RDWR);
		break;
	case 9:
		hm_now += fuzz_u64(&f->in) % (HM_CLOCK_MAX + 1);
		host_timer(f->h);
		break;
	case 10:
		host_timer(f->h);
		break;
	case 11: {
		const char *file = hm_files[fuzz_u8(&f->in) % ARRAY_SIZE(hm_files)];
		char path[64], val[64];

		hm_str(f, val, sizeof(val) - 1);
		val[sizeof(val) - 1] = '\0';
		snprintf(path, sizeof(path), "/machine/vm%u", vi);
		vsched_write(host_vsched(f->h), path, file, val, strlen(val));
		break;
	}
	}
	hm_serve(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct host_opts o = { .max_vcpus = HM_SLOTS };
	struct hm f = { .in = { data, data + size } };
	unsigned int i, nr;
	cpu_set_t cpus;
	uint8_t b;

	hm_init_once();
	b = fuzz_u8(&f.in);
	f.nr_lanes = o.nr_lanes = 1 + b % 3;
	if (b & 0x80)
		setenv("VSCHED_HOST_PRE_STATS", "1", 1);
	else
		unsetenv("VSCHED_HOST_PRE_STATS");
	memset(&hm_times, 0, sizeof(hm_times));
	hm_times_err = 0;
	if (sched_getaffinity(0, sizeof(cpus), &cpus))
		CPU_ZERO(&cpus);
	FUZZ_CHECK(!host_create(&o, &f.h), "no daemon");
	/* After the core's first reading: behind it, the daemon holds every offer back. */
	hm_now = time_mono_ns();
	host_set_clock(f.h, hm_clock);
	host_set_cpu_clock(f.h, hm_cpu_clock);
	for (i = 0; i < HM_VMMS; i++)
		f.vmm[i].fd = f.vmm[i].dfd = -1;
	for (nr = 0; nr < HM_OPS && fuzz_more(&f.in); nr++)
		hm_op(&f);
	for (i = 0; i < HM_VMMS; i++)
		if (f.vmm[i].live)
			shutdown(f.vmm[i].fd, SHUT_RDWR);
	hm_serve(&f);
	vsched_lock(host_vsched(f.h));
	FUZZ_CHECK(host_nr_clients(f.h) == 0, "%u clients after every hang-up",
		   host_nr_clients(f.h));
	FUZZ_CHECK(host_free_slots(f.h) == HM_SLOTS, "%u of %u slots free after every hang-up",
		   host_free_slots(f.h), HM_SLOTS);
	vsched_unlock(host_vsched(f.h));
	host_destroy(f.h);
	if (CPU_COUNT(&cpus))
		sched_setaffinity(0, sizeof(cpus), &cpus);
	return 0;
}
