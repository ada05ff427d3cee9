// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz target: the VMM's side of host mode (sched/runtime/rt_xhand.c, rt_page.c, rt_peer.c,
 * rt_remote.c) fed what other processes write: above all a PEER VM's offer page, which another,
 * possibly malicious, VMM writes and this VMM reads (rt_xhand_take() and friends), and the
 * daemon's grant page entries and datagrams (trusted more, but checked like a message).
 *
 * The runtime is a rig as in tests/unit/rt_page_rig.h: a VMM in host mode (not joined: nothing is
 * sent) with 1-4 vCPUs and 1-4 of the daemon's lanes, no vCPU thread (fuzz_stand_in() is each
 * vCPU's tid, so pins reach it), no waker. Its grant page and its own offer page are writable
 * here, as the daemon writes them; each of FP_PEERS peers' pages is a sealed memfd the VMM maps
 * read-only through a PEER datagram (rt_peer_msg()), written here through a mapping made before
 * the seals, as that peer's VMM writes its own page.
 *
 * Input: the first byte picks the vCPUs (bits 0-1, +1) and lanes (bits 2-3, +1), then
 * operations, one byte each (value % FP_NR_OPS) and their fields (u8, u16, u32, u64 as struct
 * fuzz_in reads them, fuzz/fuzz.h):
 *   0 PSTORE u8 peer, u16 index, u64: the peer's page's 64-bit word index written
 *   1 PCLAIM u8 peer, u8 dgen, u8 lane, u16 vcpu: the peer's word: this VM's gen + dgen - 128,
 *       that lane (0xff: the offer's none) and vCPU, and its FUTEX_WAKE
 *   2 XSUCC u8 peer, u8 vcpu, u8 held, u64 slice: the daemon publishes vcpu as the successor
 *       of that peer's lanes (bit l of held: the peer holds lane l), as host_xhand_make() does
 *   3 OSTORE u16 index, u64: this VM's offer page's word index written (the daemon's garbage)
 *   4 ENTRY u8 vcpu, u8 lane, u8 cpu, u64 until, u64 at: the daemon writes vcpu's grant page
 *       entry (lane 0xff: none; cpu 0xff: none, bit 7: pinned, else bits 0-6; an odd seq left
 *       when bit 6 of lane is set: a daemon stopped mid-write)
 *   5 DGRAM u8 type, u16 vcpu, u16 arg, u32 seq, u64 a, u64 b: a struct host_ev through
 *       rt_remote_apply(), as the agent applies it
 *   6 RAW u16 length (at most FP_RAW_MAX), bytes: one datagram through rt_remote_apply(),
 *       rt_peer_is_msg() and rt_peer_msg() (no fd)
 *   7 STATE u8 vcpu: BLOCKED -> WAITING; WAITING or RUNNING -> BLOCKED (a release)
 *   8 TAKE u8 vcpu: rt_xhand_take()
 *   9 PARK u8 vcpu: rt_xhand_park() then rt_xhand_unpark() (its wait woken at once)
 *  10 APPLY u8 vcpu, u8 how: rt_page_apply(), rt_page_exit(), or a park and its end
 *  11 SENT u8: this VMM's datagrams sent (+1) or its TOOK due (toggled)
 *  12 PEER u8 peer: the peer leaves (a PEER without fd) or, gone, comes back (a PEER with a new
 *       fd of the same page)
 *  13 WATCH: rt_xhand_succ() and rt_xhand_watch()
 *  14 RECV u8 fds, u16 length (at most FP_RAW_MAX), bytes: one datagram through a socket, as
 *       the agent reads and dispatches it (rt_peer_recv(), rt_remote_input()), with fds & 3
 *       fds: the first a peer's page if the datagram is a PEER naming that peer, else
 *       /dev/null (op byte 0xff only: the ops above keep the committed corpus's meaning)
 *
 * Invariants: no crash, leak, undefined behaviour or unbounded loop (libFuzzer's timeout); a
 * running vCPU runs on one of the daemon's lanes that the daemon named for it (a grant page
 * entry, a GRANT or PIN) or that it took as the published successor of a peer; a take (this
 * VM's word moved from the successor's side) is of the gen published for that vCPU and names a
 * lane the peer holds, so a peer's forged claim costs only the forger (while the daemon writes
 * nothing but well-formed sides: after an OSTORE only the bounds are checked); the VMM never
 * waits on memory but a mapped peer's word, at most RT_XWAIT_WATCH_MAX times per gen; a
 * datagram received leaves no fd open.
 * FP_DEBUG set in the environment prints each operation.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "util/unixsock.h"
#include "vmm/vm.h"
#include "vmm_peer.h"

static bool fp_debug;

static const uint32_t fp_peer_id[FP_PEERS] = { 7, 9 };

static struct rt_vcpu *fp_vcpu(struct fp *f, uint8_t b)
{
	return &f->v[b % f->rt.nr_vcpus];
}

/* A PEER datagram, as the agent hands it on (rt_remote_agent.c). */
static int fp_peer_msg(struct fp *f, unsigned int i, bool add)
{
	struct host_ev m = { .type = HOST_MSG_PEER, .a = fp_peer_id[i], .arg = add };
	int fd = -1, ret;

	if (add && (fd = fcntl(f->peer[i].memfd, F_DUPFD_CLOEXEC, 0)) < 0)
		abort();
	ret = rt_peer_msg(&f->rt, &m, sizeof(m), fd);
	FUZZ_CHECK(!ret, "PEER %u refused: %d", fp_peer_id[i], ret);
	f->peer[i].known = add;
	return ret;
}

static void fp_peer_make(struct fp *f, unsigned int i)
{
	struct fp_peer *p = &f->peer[i];

	p->memfd = memfd_create("fp-peer", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (p->memfd < 0 || ftruncate(p->memfd, FP_PAGE))
		abort();
	p->w = mmap(NULL, FP_PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, p->memfd, 0);
	if (p->w == MAP_FAILED || fcntl(p->memfd, F_ADD_SEALS, FP_SEALS))
		abort();
	p->w->word = host_offer_word(0, HOST_OFFER_NONE, HOST_OFFER_FREE);
	fp_peer_msg(f, i, true);
}

static void fp_init(struct fp *f, uint8_t shape)
{
	unsigned int i;

	memset(f, 0, sizeof(*f));
	pthread_mutex_init(&f->lock, NULL);
	f->page = mmap(NULL, FP_PAGE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	f->offer = mmap(NULL, FP_PAGE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (f->page == MAP_FAILED || f->offer == MAP_FAILED)
		abort();
	f->rt.lock = &f->lock;
	f->rt.v = f->v;
	f->rt.nr_vcpus = 1 + (shape & 3);
	f->rt.nr_lanes = 1 + ((shape >> 2) & 3);
	f->rt.page = f->page;
	f->rt.page_len = FP_PAGE;
	f->rt.offer = f->offer;
	f->rt.poke_fd = -1;
	f->offer->word = host_offer_word(0, HOST_OFFER_NONE, HOST_OFFER_FREE);
	for (i = 0; i < FP_VCPUS; i++) {
		f->v[i].rt = &f->rt;
		f->v[i].id = i;
		f->v[i].vcpu = &f->vcpu[i];
		f->v[i].tid = fuzz_stand_in();
		f->v[i].lane = -1;
		f->v[i].cpu = -1;
		f->t[i].vcpu = &f->vcpu[i];
		f->vcpu[i].run = &f->t[i].run;
		pthread_cond_init(&f->v[i].cond, NULL);
		f->page[i].lane = HOST_LANE_NONE;
		f->page[i].until = HOST_TIME_INF;
		f->page[i].cpu = HOST_CPU_NONE;
	}
	f->remote.fd = -1;
	rt_outbox_init(&f->remote.ob, &f->lock);
	f->rt.remote = &f->remote;	/* not joined: nothing is sent */
	mutex_lock(&f->lock);
	for (i = 0; i < f->rt.nr_vcpus; i++) {
		rt_set_state(&f->v[i], RT_BLOCKED, rt_now());
		rt_set_state(&f->v[i], RT_WAITING, rt_now());
	}
	for (i = 0; i < FP_PEERS; i++)
		fp_peer_make(f, i);
}

static void fp_done(struct fp *f)
{
	unsigned int i;

	rt_peer_clear(&f->rt);
	mutex_unlock(&f->lock);
	f->rt.remote = NULL;
	rt_outbox_destroy(&f->remote.ob);
	for (i = 0; i < FP_PEERS; i++) {
		munmap(f->peer[i].w, FP_PAGE);
		close(f->peer[i].memfd);
	}
	for (i = 0; i < FP_VCPUS; i++)
		pthread_cond_destroy(&f->v[i].cond);
	munmap(f->page, FP_PAGE);
	munmap(f->offer, FP_PAGE);
	free(f->rt.lane_cpu);
	pthread_mutex_destroy(&f->lock);
}

/* host_xhand_make(): the side's fields, then this VM's word, then the peer's. */
static void fp_xsucc(struct fp *f)
{
	unsigned int i = fuzz_u8(&f->in) % FP_PEERS, l;
	struct rt_vcpu *rv = fp_vcpu(f, fuzz_u8(&f->in));
	uint8_t held = fuzz_u8(&f->in);
	uint64_t slice = fuzz_u64(&f->in);
	struct host_offer *o = f->offer;
	uint32_t gen = host_offer_gen(o->word) + 1;

	for (l = 0; l < HOST_HAND_LANES; l++)
		o->x_cpu[l] = l < f->rt.nr_lanes && (held >> l & 1) ? l : HOST_CPU_XNONE;
	o->x_peer = fp_peer_id[i];
	o->x_succ = rv->id;
	o->x_succ_seq = rv->seq_applied;
	o->x_sent = f->rt.sent_state;
	o->x_slice = slice % (2ULL * NSEC_PER_SEC);
	__atomic_store_n(&o->word, host_offer_word(gen, HOST_OFFER_XSUCC, HOST_OFFER_FREE),
			 __ATOMIC_RELEASE);
	f->peer[i].w->hand_succ = HOST_HAND_XVM;
	__atomic_store_n(&f->peer[i].w->word,
			 host_offer_word(gen, HOST_OFFER_HAND, HOST_OFFER_FREE), __ATOMIC_RELEASE);
	f->side = (struct fp_side){ .on = true, .gen = gen, .vcpu = rv->id, .peer = fp_peer_id[i],
				    .held = held & ((1u << f->rt.nr_lanes) - 1) };
}

/* The daemon's write of an entry (host_page_write_at()): seq odd, the fields, seq even. */
static void fp_entry(struct fp *f)
{
	struct rt_vcpu *rv = fp_vcpu(f, fuzz_u8(&f->in));
	uint8_t lane = fuzz_u8(&f->in), cpu = fuzz_u8(&f->in);
	uint64_t until = fuzz_u64(&f->in), at = fuzz_u64(&f->in);
	struct host_grant *e = &f->page[rv->id];
	uint32_t seq = e->seq | 1;

	__atomic_store_n(&e->seq, seq, __ATOMIC_RELEASE);
	e->lane = lane == 0xff ? HOST_LANE_NONE : lane & 0x3f;
	e->cpu = cpu == 0xff ? HOST_CPU_NONE : (cpu & 0x3f) | (cpu & 0x80 ? HOST_CPU_PINNED : 0);
	e->until = until;
	e->at = at;
	if (e->lane < 64)
		f->named[rv->id] |= 1ULL << e->lane;
	if (!(lane & 0x40) || lane == 0xff)
		__atomic_store_n(&e->seq, seq + 1, __ATOMIC_RELEASE);
}

static void fp_dgram(struct fp *f)
{
	struct host_ev m = { .type = fuzz_u8(&f->in), .vcpu = fuzz_u16(&f->in),
			     .arg = fuzz_u16(&f->in) };
	int ret;

	m.seq = fuzz_u32(&f->in);
	m.a = fuzz_u64(&f->in);
	m.b = fuzz_u64(&f->in);
	if ((m.type == HOST_MSG_GRANT || m.type == HOST_MSG_PIN) && m.vcpu < f->rt.nr_vcpus &&
	    m.arg < 64)
		f->named[m.vcpu] |= 1ULL << m.arg;
	ret = rt_remote_apply(&f->rt, &m, sizeof(m));
	FUZZ_CHECK(ret == 0 || ret == -EPROTO, "rt_remote_apply: %d", ret);
}

static void fp_raw(struct fp *f)
{
	char buf[FP_RAW_MAX];
	size_t n = fuzz_u16(&f->in) % (FP_RAW_MAX + 1), i;
	int ret;

	for (i = 0; i < n; i++)
		buf[i] = (char)fuzz_u8(&f->in);
	/* Only a whole struct host_ev can be a GRANT or PIN: fp_dgram() drives those. */
	if (n != sizeof(struct host_ev)) {
		ret = rt_remote_apply(&f->rt, buf, (ssize_t)n);
		FUZZ_CHECK(ret == 0 || ret == -EPROTO, "rt_remote_apply: %d", ret);
	}
	if (rt_peer_is_msg(buf, (ssize_t)n)) {
		ret = rt_peer_msg(&f->rt, buf, (ssize_t)n, -1);
		FUZZ_CHECK(ret == 0 || ret == -EPROTO, "rt_peer_msg: %d", ret);
		for (i = 0; i < FP_PEERS; i++)
			f->peer[i].known = rt_peer_find(&f->rt, fp_peer_id[i]) != NULL;
	}
}

/* A datagram with nr fds (the first fd0) on sock. */
static void fp_send(int sock, const char *buf, size_t n, int fd0, unsigned int nr)
{
	int fds[3] = { fd0, fd0, fd0 };

	if (unixsock_send_fds(sock, buf, n, fds, nr, MSG_DONTWAIT) < 0)
		abort();
}

/* The lowest fd free: a received fd left open takes it. */
static int fp_free_fd(void)
{
	int fd = fcntl(0, F_DUPFD_CLOEXEC, 0);

	if (fd >= 0)
		close(fd);
	return fd;
}

static void fp_recv(struct fp *f)
{
	static int sv[2] = { -1, -1 }, null_fd = -1;
	uint8_t how = fuzz_u8(&f->in);
	size_t n = fuzz_u16(&f->in) % (FP_RAW_MAX + 1), i;
	char buf[1024];	/* the agent's */
	struct host_ev m;
	int fd0, pfd, ret, free_fd;
	ssize_t got;

	if (sv[0] < 0 && (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) ||
			  (null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC)) < 0))
		abort();
	for (i = 0; i < n; i++)
		buf[i] = (char)fuzz_u8(&f->in);
	fd0 = null_fd;
	memcpy(&m, buf, sizeof(m));
	if (n == sizeof(m) && m.type == HOST_MSG_PEER)
		for (i = 0; i < FP_PEERS; i++)
			if (m.a == fp_peer_id[i])
				fd0 = f->peer[i].memfd;
	if (n == sizeof(m) && (m.type == HOST_MSG_GRANT || m.type == HOST_MSG_PIN) &&
	    m.vcpu < f->rt.nr_vcpus && m.arg < 64)
		f->named[m.vcpu] |= 1ULL << m.arg;
	free_fd = fp_free_fd();
	fp_send(sv[0], buf, n, fd0, how & 3);
	got = rt_peer_recv(sv[1], buf, sizeof(buf), &pfd);
	FUZZ_CHECK(got == (ssize_t)n, "received %zd of %zu bytes", got, n);
	FUZZ_CHECK((how & 3) == 1 ? pfd >= 0 : pfd == ((how & 3) ? -2 : -1),
		   "%u fds received as %d", how & 3, pfd);
	ret = rt_remote_input(&f->rt, buf, got, pfd, false);
	FUZZ_CHECK(ret == 0 || ret == -EPROTO, "rt_remote_input: %d", ret);
	FUZZ_CHECK(fp_free_fd() == free_fd, "an fd left open: %d free, %d before", fp_free_fd(),
		   free_fd);
	for (i = 0; i < FP_PEERS; i++)
		f->peer[i].known = rt_peer_find(&f->rt, fp_peer_id[i]) != NULL;
}

static void fp_state(struct fp *f)
{
	struct rt_vcpu *rv = fp_vcpu(f, fuzz_u8(&f->in));
	uint64_t now = rt_now();

	if (rv->state == RT_BLOCKED) {
		rt_set_state(rv, RT_WAITING, now);
	} else if (rv->state == RT_WAITING || rv->state == RT_RUNNING) {
		rt_set_state(rv, RT_BLOCKED, now);
		rv->until = RT_INF;
	}
}

static void fp_park(struct fp *f)
{
	struct rt_vcpu *rv = fp_vcpu(f, fuzz_u8(&f->in));
	struct futex_waitv fw[RT_XHAND_PARK_MAX];
	uint32_t gen = host_offer_gen(f->offer->word);
	unsigned int n;

	if (rv->state != RT_WAITING)
		return;
	rt_page_park(&f->rt, rv);
	n = rt_xhand_park(&f->rt, rv, fw);
	FUZZ_CHECK(n <= RT_XHAND_PARK_MAX, "rt_xhand_park: %u waits", n);
	if (gen != f->park_gen) {
		f->park_gen = gen;
		f->parks = 0;
	}
	if (n) {
		fp_check_watch(f, fw);
		FUZZ_CHECK(++f->parks <= RT_XWAIT_WATCH_MAX, "%u parks on a peer's word in gen %u",
			   f->parks, gen);
	}
	rt_xhand_unpark(&f->rt, rv);
	rt_page_park_end(&f->rt, rv);
}

static void fp_apply(struct fp *f)
{
	struct rt_vcpu *rv = fp_vcpu(f, fuzz_u8(&f->in));
	uint32_t seq;

	switch (fuzz_u8(&f->in) % 3) {
	case 0:
		rt_page_apply(&f->rt, rv, &seq);
		break;
	case 1:
		rt_page_exit(&f->rt, rv);
		break;
	default:
		if (rv->state == RT_WAITING) {
			rt_page_park(&f->rt, rv);
			rt_page_park_end(&f->rt, rv);
		}
	}
}

static void fp_watch(struct fp *f)
{
	struct futex_waitv fw;
	struct rt_vcpu *rv = rt_xhand_succ(&f->rt);

	FUZZ_CHECK(!rv || (rv >= f->v && rv < f->v + f->rt.nr_vcpus && rv->state == RT_WAITING),
		   "rt_xhand_succ: not a waiting vCPU of this VM");
	if (rt_xhand_watch(&f->rt, &fw))
		fp_check_watch(f, &fw);
}

static void fp_op(struct fp *f, uint8_t op)
{
	unsigned int i;
	uint64_t v;
	uint16_t idx;

	switch (op) {
	case 0:
		i = fuzz_u8(&f->in) % FP_PEERS;
		idx = fuzz_u16(&f->in) % (sizeof(struct host_offer) / 8);
		v = fuzz_u64(&f->in);
		__atomic_store_n((uint64_t *)f->peer[i].w + idx, v, __ATOMIC_RELEASE);
		break;
	case 1: {
		uint32_t gen, lane;
		uint16_t vcpu;

		i = fuzz_u8(&f->in) % FP_PEERS;
		gen = host_offer_gen(f->offer->word) + fuzz_u8(&f->in) - 128;
		lane = fuzz_u8(&f->in);
		vcpu = fuzz_u16(&f->in);
		__atomic_store_n(&f->peer[i].w->word,
				 host_offer_word(gen, lane == 0xff ? HOST_OFFER_NONE : lane, vcpu),
				 __ATOMIC_SEQ_CST);
		syscall(SYS_futex, host_offer_futex(f->peer[i].w), FUTEX_WAKE, 1, NULL, NULL, 0);
		break;
	}
	case 2:
		fp_xsucc(f);
		break;
	case 3:
		idx = fuzz_u16(&f->in) % (sizeof(struct host_offer) / 8);
		v = fuzz_u64(&f->in);
		__atomic_store_n((uint64_t *)f->offer + idx, v, __ATOMIC_RELEASE);
		f->garbage = true;
		break;
	case 4:
		fp_entry(f);
		break;
	case 5:
		fp_dgram(f);
		break;
	case 6:
		fp_raw(f);
		break;
	case 7:
		fp_state(f);
		break;
	case 8:
		rt_xhand_take(&f->rt, fp_vcpu(f, fuzz_u8(&f->in)));
		break;
	case 9:
		fp_park(f);
		break;
	case 10:
		fp_apply(f);
		break;
	case 11:
		if ((v = fuzz_u8(&f->in)) & 1)
			f->rt.took_due = !f->rt.took_due;
		else
			f->rt.sent_state++;
		break;
	case 12:
		i = fuzz_u8(&f->in) % FP_PEERS;
		fp_peer_msg(f, i, !f->peer[i].known);
		break;
	case 13:
		fp_watch(f);
		break;
	default:
		fp_recv(f);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fp *f;
	unsigned int n;

	if (!size)
		return 0;
	fp_debug = getenv("FP_DEBUG") != NULL;
	f = malloc(sizeof(*f));
	if (!f)
		return 0;
	fp_init(f, data[0]);
	f->in = (struct fuzz_in){ data + 1, data + size };
	for (n = 0; n < FP_OPS && fuzz_more(&f->in); n++) {
		uint8_t b = fuzz_u8(&f->in), op = b == 0xff ? FP_RECV : b % FP_NR_OPS;
		uint64_t w0 = f->offer->word, takes0 = f->rt.st.xhandoffs;

		if (fp_debug)
			fp_print(f, n, op);
		fp_op(f, op);
		fp_check_take(f, w0, takes0);
		fp_check_lanes(f);
	}
	if (fp_debug)
		fprintf(stderr, "takes %llu (parked %llu), grants %llu\n",
			(unsigned long long)f->rt.st.xhandoffs,
			(unsigned long long)f->rt.st.xhandoffs_parked,
			(unsigned long long)f->rt.st.grants);
	fp_done(f);
	free(f);
	return 0;
}
