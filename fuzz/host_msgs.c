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
 * (u8/u16 little endian; a u64 is a count n then n bytes, n 0xff: UINT64_MAX; a string is a
 * u16 length then that many bytes, copied into the field, unterminated if it fills it):
 *   0 CONNECT            a new connection in that VMM's place (if none)
 *   1 HELLO u16 nr_vcpus, u16 flags, u8 partition, settings (u64 shares, quota, period, burst,
 *       u8 idle/threaded/subtree bits): name "vmN", this process's pid, this version
 *   2 GROUP u16 index, string path, settings
 *   3 EV u8 type, u16 vcpu, u16 arg, u64 a, u64 b: a struct host_ev
 *   4 RAW u16 length (at most 1100), then the bytes: one datagram as is
 *   5 TID u16 vcpu: a live thread of this process (a helper that takes the kick signal)
 *   6 STORE u16 index, u64 value: the offer page's 64-bit word index written (if mapped)
 *   7 CLAIM u16 vcpu: the offered lane claimed for vcpu by CAS, as rt_offer_take(), and
 *       its TOOK sent
 *   8 CLOSE              the VMM hangs up
 *   9 CLOCK u64          the clock forward (at most 10 s), then the daemon's timer
 *  10 TIMER              the daemon's timer
 *  11 WRITE u8 file, string value: a write in the daemon's tree to that VMM's VM group
 *  12 HAND u16 vcpu: a handoff offered claimed by its holder vcpu, as rt_hand_off(), and its
 *       TOOK sent
 *  13 XTAKE u16 vcpu: a successor's offer (a lane another VMM claimed) taken for vcpu, as
 *       rt_xhand_take() (no TOOK)
 * At the end every VMM hangs up. HM_DEBUG set in the environment: each operation and each
 * datagram the daemon sent is printed (to read a finding).
 *
 * Invariants: no crash, leak or undefined behaviour; the daemon serves exactly the connections
 * not hung up on; what it sends is a known daemon-to-VMM message of its type's length, about a
 * vCPU and lane of that VM (GRANT, PREEMPT, RETIME, PIN), and the grant page's entries name a
 * lane or none; once every VMM left, every slot is free again.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fuzz.h"
#include "host/host.h"
#include "host/proto.h"
#include "util/time.h"
#include "vsched.h"

#define HM_SLOTS	16
#define HM_VMMS		3
#define HM_OPS		256
#define HM_RAW_MAX	1100
#define HM_CLOCK_MAX	10000000000ULL

struct hm_vmm {
	bool live;			/* connected, not hung up on */
	int fd;				/* the VMM's end */
	int dfd;			/* the daemon's end (its client's fd) */
	struct host_client *c;
	unsigned int hello_vcpus;	/* nr_vcpus of the last HELLO sent */
	unsigned int nr_vcpus;		/* joined with, 0: not joined */
	const struct host_grant *page;
	struct host_offer *offer;
};

struct hm {
	struct host *h;
	unsigned int nr_lanes;
	struct hm_vmm vmm[HM_VMMS];
	const uint8_t *p, *end;
};

static uint64_t hm_now;
static bool hm_debug;

static uint64_t hm_clock(void)
{
	return hm_now;
}

static uint64_t hm_cpu_clock(void)
{
	return 0;
}

static pid_t hm_helper_tid;

static void hm_kick(int sig __unused)
{
}

/* The vCPU thread stand-in: kicks (the kick signal) and pins reach it, not the fuzzer. */
static void *hm_helper(void *arg __unused)
{
	__atomic_store_n(&hm_helper_tid, gettid(), __ATOMIC_RELEASE);
	for (;;)
		pause();
	return NULL;
}

static void hm_init_once(void)
{
	static bool done;
	pthread_t th;

	if (done)
		return;
	done = true;
	hm_debug = getenv("HM_DEBUG") != NULL;
	signal(SIGRTMIN + 1, hm_kick);
	if (pthread_create(&th, NULL, hm_helper, NULL))
		abort();
	while (!__atomic_load_n(&hm_helper_tid, __ATOMIC_ACQUIRE))
		usleep(100);
}

static bool hm_more(struct hm *f)
{
	return f->p < f->end;
}

static uint8_t hm_u8(struct hm *f)
{
	return f->p < f->end ? *f->p++ : 0;
}

static uint16_t hm_u16(struct hm *f)
{
	uint16_t lo = hm_u8(f);

	return lo | (uint16_t)(hm_u8(f) << 8);
}

static uint64_t hm_u64(struct hm *f)
{
	uint8_t n = hm_u8(f);
	uint64_t v = 0;
	unsigned int i;

	if (n == 0xff)
		return UINT64_MAX;
	for (i = 0; i < n % 9; i++)
		v |= (uint64_t)hm_u8(f) << (8 * i);
	return v;
}

/* A string field: up to size bytes copied, the rest NUL. */
static void hm_str(struct hm *f, char *dst, size_t size)
{
	size_t n = hm_u16(f), i;

	memset(dst, 0, size);
	for (i = 0; i < n; i++) {
		uint8_t b = hm_u8(f);

		if (i < size)
			dst[i] = (char)b;
	}
}

static struct host_settings hm_settings(struct hm *f)
{
	struct host_settings s = { .shares = hm_u64(f) };
	uint8_t bits;

	s.quota_us = hm_u64(f);
	s.period_us = hm_u64(f);
	s.burst_us = hm_u64(f);
	bits = hm_u8(f);
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

/* What the daemon sent v: checked, fds mapped (WELCOME) or closed (PEER). */
static void hm_recv(struct hm *f, struct hm_vmm *v)
{
	char buf[2048], cbuf[CMSG_SPACE(4 * sizeof(int))];
	int fds[4], nr_fds;
	ssize_t n;

	for (;;) {
		struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
				     .msg_controllen = sizeof(cbuf) };
		struct cmsghdr *cm;
		struct host_welcome w;
		struct host_ev ev;
		uint32_t type;
		int i;

		n = recvmsg(v->fd, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
		if (n <= 0)
			return;
		nr_fds = 0;
		for (cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm))
			if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS) {
				nr_fds = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
				FUZZ_CHECK(nr_fds <= 4, "%d fds", nr_fds);
				memcpy(fds, CMSG_DATA(cm), nr_fds * sizeof(int));
			}
		FUZZ_CHECK(!(mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC)), "truncated datagram");
		FUZZ_CHECK(n >= 4, "datagram of %zd bytes", n);
		memcpy(&type, buf, sizeof(type));
		if (hm_debug && n == sizeof(struct host_ev)) {
			memcpy(&ev, buf, sizeof(ev));
			fprintf(stderr, "hm: vmm%u <- type %u vcpu %u arg %u a %llu b %llu\n",
				(unsigned int)(v - f->vmm), type, ev.vcpu, ev.arg,
				(unsigned long long)ev.a, (unsigned long long)ev.b);
		} else if (hm_debug) {
			fprintf(stderr, "hm: vmm%u <- type %u (%zd bytes, %d fds)\n",
				(unsigned int)(v - f->vmm), type, n, nr_fds);
		}
		if (type == HOST_MSG_WELCOME) {
			FUZZ_CHECK(n == sizeof(w), "WELCOME of %zd bytes", n);
			memcpy(&w, buf, sizeof(w));
			FUZZ_CHECK(w.nr_lanes == f->nr_lanes, "WELCOME with %u lanes", w.nr_lanes);
			FUZZ_CHECK(w.err <= 0 && w.err >= -HOST_ERRNO_MAX, "WELCOME err %d", w.err);
			FUZZ_CHECK(!nr_fds || !w.err, "fds with a refusal (%d)", w.err);
			if (!w.err && v->hello_vcpus && !v->nr_vcpus) {
				v->nr_vcpus = v->hello_vcpus;
				FUZZ_CHECK(w.group[0] == '/' &&
					   strnlen(w.group, sizeof(w.group)) < sizeof(w.group),
					   "joined without a group");
			}
			if (nr_fds >= 1 && v->nr_vcpus && !v->page) {
				void *m = mmap(NULL, v->nr_vcpus * sizeof(*v->page), PROT_READ,
					       MAP_SHARED, fds[0], 0);

				v->page = m == MAP_FAILED ? NULL : m;
			}
			if (nr_fds >= 2 && v->nr_vcpus && !v->offer) {
				void *m = mmap(NULL, sizeof(*v->offer), PROT_READ | PROT_WRITE,
					       MAP_SHARED, fds[1], 0);

				v->offer = m == MAP_FAILED ? NULL : m;
			}
		} else if (type == HOST_MSG_CTL) {
			FUZZ_CHECK(n == sizeof(struct host_ctl_msg), "CTL of %zd bytes", n);
		} else if (type == HOST_MSG_VMSET) {
			FUZZ_CHECK(n == sizeof(struct host_group_msg), "VMSET of %zd bytes", n);
		} else {
			FUZZ_CHECK(type == HOST_MSG_GRANT || type == HOST_MSG_PREEMPT ||
				   type == HOST_MSG_RETIME || type == HOST_MSG_PONG ||
				   type == HOST_MSG_PIN || type == HOST_MSG_PEER,
				   "daemon sent type %u", type);
			FUZZ_CHECK(n == sizeof(ev), "type %u of %zd bytes", type, n);
			memcpy(&ev, buf, sizeof(ev));
			FUZZ_CHECK(type == HOST_MSG_PONG || type == HOST_MSG_PEER ||
				   ev.vcpu < v->nr_vcpus, "type %u for vCPU %u of %u", type,
				   ev.vcpu, v->nr_vcpus);
			FUZZ_CHECK((type != HOST_MSG_GRANT && type != HOST_MSG_PIN) ||
				   ev.arg < f->nr_lanes, "type %u of lane %u", type, ev.arg);
		}
		for (i = 0; i < nr_fds; i++)
			close(fds[i]);
	}
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
	for (i = 0; i < HM_VMMS; i++) {
		const struct hm_vmm *v = &f->vmm[i];
		unsigned int k;

		for (k = 0; v->page && k < v->nr_vcpus; k++) {
			const struct host_grant *g = &v->page[k];

			FUZZ_CHECK(!(g->seq & 1), "vCPU %u's entry written (seq %u)", k, g->seq);
			FUZZ_CHECK(g->lane == HOST_LANE_NONE || g->lane < f->nr_lanes,
				   "vCPU %u's entry holds lane %u", k, g->lane);
		}
	}
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

/* v's offer word from w to a claim of lane by vcpu; TOOK sent if took. */
static void hm_claim(struct hm_vmm *v, uint64_t w, uint32_t lane, uint16_t vcpu, bool took)
{
	struct host_ev m = { .type = HOST_MSG_TOOK, .vcpu = vcpu, .a = host_offer_gen(w),
			     .b = lane };

	if (__atomic_compare_exchange_n(&v->offer->word, &w,
					host_offer_word(host_offer_gen(w), lane, vcpu), false,
					__ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST) && took)
		hm_send(v, &m, sizeof(m));
}

static void hm_hand(struct hm_vmm *v, uint16_t vcpu)
{
	unsigned int l;
	uint64_t w;

	if (!v->offer)
		return;
	w = __atomic_load_n(&v->offer->word, __ATOMIC_ACQUIRE);
	if (host_offer_lane(w) != HOST_OFFER_HAND || host_offer_vcpu(w) != HOST_OFFER_FREE)
		return;
	for (l = 0; l < HOST_HAND_LANES; l++)
		if (__atomic_load_n(&v->offer->hand[l].holder, __ATOMIC_RELAXED) == vcpu) {
			hm_claim(v, w, l, vcpu, true);
			return;
		}
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
		    host_offer_vcpu(pw) != HOST_OFFER_FREE && host_offer_lane(pw) < HOST_HAND_LANES) {
			hm_claim(v, w, host_offer_lane(pw), vcpu, false);
			return;
		}
	}
}

static const char *const hm_partitions[] = {
	"", "/", "/machine", "/machine/vm0", "/a/b", "machine", "/../x", "/machine/", "//a",
	"/machine/vm0/a", "/m/cpu.max", "/a b",
};

static const char *const hm_files[] = {
	"cpu.weight", "cpu.max", "cpu.max.burst", "cpu.idle", "cpu.weight.nice",
	"cgroup.subtree_control", "cgroup.type", "vsched.vcpus",
};

static void hm_op(struct hm *f)
{
	uint8_t b = hm_u8(f);
	struct hm_vmm *v = &f->vmm[(b >> 4) % HM_VMMS];
	unsigned int vi = (unsigned int)(v - f->vmm);

	if (hm_debug)
		fprintf(stderr, "hm: vmm%u op %u%s\n", vi, b & 0xf, v->live ? "" : " (not connected)");

	switch (b & 0xf) {
	case 0:
		hm_connect(f, v);
		break;
	case 1: {
		struct host_hello m = { .type = HOST_MSG_HELLO, .version = HOST_PROTO_VERSION,
					.pid = getpid() };

		m.nr_vcpus = hm_u16(f);
		m.flags = hm_u16(f);
		snprintf(m.partition, sizeof(m.partition), "%s",
			 hm_partitions[hm_u8(f) % ARRAY_SIZE(hm_partitions)]);
		m.vm = hm_settings(f);
		snprintf(m.name, sizeof(m.name), "vm%u", vi);
		hm_send(v, &m, sizeof(m));
		break;
	}
	case 2: {
		struct host_group_msg m = { .type = HOST_MSG_GROUP, .index = hm_u16(f) };

		hm_str(f, m.path, sizeof(m.path));
		m.set = hm_settings(f);
		hm_send(v, &m, sizeof(m));
		break;
	}
	case 3: {
		struct host_ev m = { .type = hm_u8(f) };

		m.vcpu = hm_u16(f);
		m.arg = hm_u16(f);
		m.a = hm_u64(f);
		m.b = hm_u64(f);
		hm_send(v, &m, sizeof(m));
		break;
	}
	case 4: {
		static uint8_t raw[HM_RAW_MAX];
		size_t n = hm_u16(f) % (HM_RAW_MAX + 1), i;

		for (i = 0; i < n; i++)
			raw[i] = hm_u8(f);
		if (n)	/* a datagram of 0 bytes reads as the end */
			hm_send(v, raw, n);
		break;
	}
	case 5: {
		struct host_ev m = { .type = HOST_MSG_TID, .vcpu = hm_u16(f), .a = hm_helper_tid };

		hm_send(v, &m, sizeof(m));
		break;
	}
	case 6: {
		unsigned int i = hm_u16(f) % (sizeof(struct host_offer) / 8);
		uint64_t val = hm_u64(f);

		if (v->offer)
			__atomic_store_n((uint64_t *)v->offer + i, val, __ATOMIC_RELEASE);
		break;
	}
	case 7: {
		uint16_t vcpu = hm_u16(f);
		uint64_t w;

		if (!v->offer)
			break;
		w = __atomic_load_n(&v->offer->word, __ATOMIC_ACQUIRE);
		if (host_offer_lane(w) != HOST_OFFER_NONE && host_offer_vcpu(w) == HOST_OFFER_FREE)
			hm_claim(v, w, host_offer_lane(w), vcpu, true);
		break;
	}
	case 12:
		hm_hand(v, hm_u16(f));
		break;
	case 13:
		hm_xtake(f, v, hm_u16(f));
		break;
	case 8:
		if (v->live)
			shutdown(v->fd, SHUT_RDWR);
		break;
	case 9:
		hm_now += hm_u64(f) % (HM_CLOCK_MAX + 1);
		host_timer(f->h);
		break;
	case 10:
		host_timer(f->h);
		break;
	case 11: {
		const char *file = hm_files[hm_u8(f) % ARRAY_SIZE(hm_files)];
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
	struct hm f = { .p = data, .end = data + size };
	unsigned int i, nr;
	cpu_set_t cpus;

	hm_init_once();
	f.nr_lanes = o.nr_lanes = 1 + hm_u8(&f) % 3;
	if (sched_getaffinity(0, sizeof(cpus), &cpus))
		CPU_ZERO(&cpus);
	FUZZ_CHECK(!host_create(&o, &f.h), "no daemon");
	/* After the core's first reading: behind it, the daemon holds every offer back. */
	hm_now = time_mono_ns();
	host_set_clock(f.h, hm_clock);
	host_set_cpu_clock(f.h, hm_cpu_clock);
	for (i = 0; i < HM_VMMS; i++)
		f.vmm[i].fd = f.vmm[i].dfd = -1;
	for (nr = 0; nr < HM_OPS && hm_more(&f); nr++)
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
