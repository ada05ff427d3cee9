// SPDX-License-Identifier: GPL-2.0
/*
 * Idle-lane offers: the common grant (a vCPU becomes runnable while a lane idles) without the
 * daemon's wake-up on its path (docs/host.md, "Offers").
 *
 * After each event, if a lane is idle and nobody waits, the daemon offers the first idle lane
 * (the one its core would fill first) to one VM: the one that last held that lane, else the
 * next in turn. The offer is a word in the VM's offer page (include/host/proto.h), with the
 * vCPUs the core would give the lane to (blocked, not revoked, nothing throttled on their
 * path) and how many of the VM's datagrams the daemon had read. A vCPU of that VM that becomes
 * runnable with nothing of its VM in flight takes the offer with a CAS, runs at once and sends
 * TOOK.
 *
 * Before anything reaches the core (a datagram, the timer, a write in the directory, a VM
 * leaving), the daemon revokes the offer with a CAS. Whoever wins the CAS wins: a claim that
 * won is then fed to the core as the RUNNABLE it stands for (the holders charged first, as for
 * a RUNNABLE read from the socket), so the core ends in the state the socket would have left
 * it in. The core then grants that vCPU the offered lane with no slice end, which it already
 * runs: nothing is sent. If it decides otherwise (another lane, a slice end, no lane: a
 * throttle meanwhile), that decision is sent as any other (GRANT), or PREEMPT if it got none.
 *
 * The page is the VMM's to write, so the daemon reads only the word, once, with the CAS, and
 * keeps its own copy of everything it offered. A word that is not this offer's (another gen or
 * lane, a vCPU out of range or not offered) is garbage, and so is a datagram from that VM other
 * than the claim's TOOK before it: the VM is hung up on, as for a bad datagram. No VM is offered
 * a lane while its TOOK is due. The memfd is sealed against resizing, so the
 * daemon's mapping cannot fault.
 *
 * A held lane is offered the same way when no lane is idle and nobody waits, to the VM of its
 * holder (HOST_HELLO_HELD), for the vCPUs of that VM that would take it from the holder at once if
 * they woke (sched_wake_takes_lane(): the core's cpu.idle rule, a fact of the tree, still true when
 * the offer is taken, from not_before on: the lanes before it past their holders' min_run, which
 * can defer it until then; or virtual time: the waker behind the holder by more than min_run after
 * the wake's new rates, from the holder's min_run end on, which nothing changes before the next
 * event on one lane, and on several only where every other holder keeps its whole lane and its
 * charges cannot bring the key under the margin). The taker preempts the holder itself, as the
 * VMM's own core would, so a preemption costs the kick alone (docs/host.md, "Latency:
 * preemptions"). The claim is honoured as any: the core then preempts the holder (sent as any
 * PREEMPT; the VMM applied it already and skips it) and grants the taker; if it kept the holder
 * after all, the holder is granted its lane again, as the VMM has let it go.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "internal.h"
#include "sched/core.h"
#include "util/compiler.h"

#define HOST_OFFER_SEALS	(F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL)
/* HOST_HELLO_PEER: sealed against writes once its VMM mapped it (host_peer.c) */
#define HOST_OFFER_SEALS_PEER	(F_SEAL_SHRINK | F_SEAL_GROW)
#define HOST_OFFER_LEN		4096
#define HOST_OFFER_WORDS	(HOST_MAX_VM_VCPUS / 64)

int host_offer_init(struct host *h)
{
	h->lane_last = calloc(h->nr_lanes, sizeof(*h->lane_last));
	return h->lane_last ? 0 : -ENOMEM;
}

void host_offer_exit(struct host *h)
{
	free(h->lane_last);
	h->lane_last = NULL;
}

/*
 * c's offer page; *fd (read-write) goes with the WELCOME, the caller closes it. With peer, the
 * page is not sealed yet against new writable mappings (its VMM has not mapped it): c keeps a
 * copy of the fd, for host_peer_seal().
 */
int host_offer_create(struct host_client *c, int *fd, bool peer)
{
	void *p = MAP_FAILED;
	int ret = 0;

	c->offer_ok = calloc(HOST_OFFER_WORDS, sizeof(*c->offer_ok));
	if (!c->offer_ok)
		return -ENOMEM;
	*fd = memfd_create("vsched-offer", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (*fd < 0)
		return -errno;
	if (ftruncate(*fd, HOST_OFFER_LEN) ||
	    fcntl(*fd, F_ADD_SEALS, peer ? HOST_OFFER_SEALS_PEER : HOST_OFFER_SEALS))
		ret = -errno;
	if (!ret && peer && (c->share_fd = fcntl(*fd, F_DUPFD_CLOEXEC, 0)) < 0)
		ret = -errno;
	if (!ret)
		p = mmap(NULL, HOST_OFFER_LEN, PROT_READ | PROT_WRITE, MAP_SHARED, *fd, 0);
	if (!ret && p == MAP_FAILED)
		ret = -errno;
	if (ret) {
		close(*fd);
		*fd = -1;
		if (c->share_fd >= 0)
			close(c->share_fd);
		c->share_fd = -1;
		return ret;
	}
	c->offer = p;
	c->offer_holder = HOST_OFFER_NONE;
	__atomic_store_n(&c->offer->holder, HOST_OFFER_NONE, __ATOMIC_RELEASE);
	__atomic_store_n(&c->offer->word, host_offer_word(0, HOST_OFFER_NONE, HOST_OFFER_FREE),
			 __ATOMIC_RELEASE);
	return 0;
}

/* c leaves: nothing refers to it any more. The offer was settled first. */
void host_offer_destroy(struct host *h, struct host_client *c)
{
	unsigned int l;

	if (h->offer_to == c || h->xsucc_to == c) {
		h->offer_to = NULL;
		h->xsucc_to = NULL;
	}
	if (h->offer_rr == c)
		h->offer_rr = NULL;
	for (l = 0; l < h->nr_lanes && h->lane_last; l++)
		if (h->lane_last[l] == c)
			h->lane_last[l] = NULL;
	if (c->offer)
		munmap(c->offer, HOST_OFFER_LEN);
	c->offer = NULL;
	free(c->offer_ok);
	c->offer_ok = NULL;
}

/*
 * vcpu's bit in one of the VMM's per-vCPU bitmaps of its offer page, read after a full fence
 * (the entry's write before the bit's read).
 */
static bool host_offer_bit(const struct host_client *c, const uint64_t *words, unsigned int vcpu)
{
	if (vcpu >= c->nr_vcpus || vcpu >= HOST_MAX_VM_VCPUS)
		return false;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	return __atomic_load_n(&words[vcpu / 64], __ATOMIC_RELAXED) >> (vcpu % 64) & 1;
}

/*
 * Whether vcpu's thread waits on its grant page entry, by the VMM's bit (rt_page_wait()): a
 * grant just written there has then woken it, and its GRANT datagram would only wake the agent
 * to drop it. The bit is read after the entry was written, and the VMM sets it before it reads
 * the entry and clears it before it reads it again: either the thread sees the grant or the
 * daemon sees the bit clear and sends the datagram. A VMM that sets it falsely only keeps its
 * own vCPU off the lane it was granted, which the lane's revocation covers as any silence.
 */
bool host_offer_parked(const struct host_client *c, unsigned int vcpu)
{
	return c->offer && c->page && host_offer_bit(c, c->offer->parked, vcpu);
}

/*
 * HOST_HELLO_GUEST: whether vcpu's thread is inside the guest (or on its way in) by its VMM's
 * bit, read after its entry was written (full fences on both sides, as the parked bit). Set,
 * the thread reads the entry after it clears the bit on the way out. A VMM that sets it falsely
 * loses only its own vCPUs' PREEMPT datagrams. Lock held.
 */
bool host_offer_in_guest(const struct host_client *c, unsigned int vcpu)
{
	return c->guest && c->offer && host_offer_bit(c, c->offer->guest, vcpu);
}

static bool host_offer_ok(const struct host_client *c, unsigned int i)
{
	return c->offer_ok[i / 64] >> (i % 64) & 1;
}

/* The holder the VMM let go of keeps its lane after all: granted it again, as any grant. */
static void host_offer_regrant(struct host *h, struct host_client *c, unsigned int i,
			       unsigned int lane)
{
	struct host_ev m = { .type = HOST_MSG_GRANT, .vcpu = i, .arg = lane };
	uint64_t until = sched_lane_until(h->s, lane);

	m.a = until == SCHED_TIME_NONE ? HOST_TIME_INF : until;
	m.b = host_lane_cpu(h, lane);
	host_pin(c, i, m.b);
	m.seq = host_page_write(c, i, lane, m.a, m.b);
	host_pin_check(c);
	host_send(c, &m, sizeof(m));
	/* Stopped since it was taken: its wall time and silence on the lane start again now. */
	host_charge_granted(h, c->slot[i], sched_now(h->s));
	h->slot[c->slot[i]].last_heard = sched_now(h->s);
}

void host_offer_took_due(struct host_client *c, uint32_t vcpu, uint32_t gen, uint32_t lane)
{
	c->took_due = true;
	c->took_vcpu = vcpu;
	c->took_gen = gen;
	c->took_lane = lane;
}

/* The taker runs lane already, with a slice end the core did not give it (or none it gave). */
static void host_offer_retime(struct host *h, struct host_client *c, unsigned int taker,
			      const struct sched_decision *d)
{
	struct host_ev m = { .type = HOST_MSG_RETIME, .vcpu = taker, .arg = d->lane };

	m.a = d->until == SCHED_TIME_NONE ? HOST_TIME_INF : d->until;
	m.b = host_lane_cpu(h, d->lane);
	/* Not in the page (its entry would make a thread-backend vCPU leave the guest): the agent
	 * applies it to the grant its VMM holds, the entry's seq (rt_remote.c). */
	m.seq = host_page_seq(c, taker);
	host_send(c, &m, sizeof(m));
}

/*
 * A claim's event reached the core: its decisions out. c's vCPU taker (the VM's index) runs
 * lane already, with no slice end if taker_inf: granted that, nothing is news; granted it with
 * a slice end, that is sent as a RETIME if retime (else as a GRANT, which it is in the page
 * too); anything else (another lane, none) as any decision. victim (HOST_OFFER_NONE: none) is
 * a holder its VMM let go of: its PREEMPT is not kicked again, and a victim the core kept on a
 * lane is granted that lane again.
 */
void host_offer_apply(struct host *h, struct host_client *c, unsigned int taker,
		      unsigned int lane, bool taker_inf, bool retime, uint32_t victim)
{
	unsigned int slot = c->slot[taker];
	unsigned int vslot = victim == HOST_OFFER_NONE ? UINT_MAX : c->slot[victim];
	struct host_ev m = { .type = HOST_MSG_PREEMPT };
	bool granted = false, victim_told = false;
	struct sched_decision d[16];
	size_t n, k;

	while (sched_pending_decisions(h->s) && (n = sched_take_decisions(h->s, d, ARRAY_SIZE(d)))) {
		for (k = 0; k < n; k++) {
			/* Only a lane given or taken is news: the VMM let its grant go. */
			if (d[k].vcpu == vslot &&
			    (d[k].type == SCHED_RUN || d[k].type == SCHED_PREEMPT))
				victim_told = true;
			if (d[k].type == SCHED_RUN && d[k].vcpu == slot && d[k].lane == lane) {
				granted = true;
				/* What it took: it runs there already, nothing to tell. */
				if (d[k].until == SCHED_TIME_NONE && taker_inf) {
					host_charge_granted(h, slot, sched_now(h->s));
					continue;
				}
				if (retime) {
					host_charge_granted(h, slot, sched_now(h->s));
					h->slot[slot].last_heard = sched_now(h->s);
					host_offer_retime(h, c, taker, &d[k]);
					continue;
				}
			} else if (d[k].type == SCHED_RUN && d[k].vcpu == slot) {
				granted = true;
			}
			host_decide_kick(h, &d[k], d[k].vcpu != vslot);
		}
	}
	if (!granted) {
		/* The core keeps it waiting: told as a holder that lost its lane is. */
		m.vcpu = taker;
		m.seq = host_page_write(c, taker, HOST_LANE_NONE, HOST_TIME_INF, HOST_CPU_NONE);
		host_send(c, &m, sizeof(m));
	}
	/* The VMM preempted the holder when it took the lane: a holder the core kept is told so. */
	if (vslot != UINT_MAX && !victim_told && sched_vcpu_lane(h->s, vslot) >= 0)
		host_offer_regrant(h, c, victim, (unsigned int)sched_vcpu_lane(h->s, vslot));
	host_flush(h);
	host_arm(h);	/* the new holder's slice end, as after host_drain() */
}

/*
 * c's vCPU in word w took the offer: the RUNNABLE it stands for, fed to the core as
 * host_event() would, then the core's decisions. -EPROTO: w is not a claim of this offer.
 */
static int host_offer_honour(struct host *h, struct host_client *c, uint64_t w)
{
	uint32_t i = host_offer_vcpu(w), lane = h->offer_lane;
	unsigned int slot, victim = UINT_MAX;
	uint64_t now;

	if (host_offer_gen(w) != h->offer_gen || host_offer_lane(w) != lane ||
	    i >= c->nr_vcpus || !host_offer_ok(c, i))
		return -EPROTO;
	slot = c->slot[i];
	/* Offered while blocked; nothing but this VM's datagrams makes it runnable. */
	if (sched_vcpu_is_runnable(h->s, slot) || h->slot[slot].revoked)
		return -EPROTO;
	if (c->offer_holder != HOST_OFFER_NONE)
		victim = c->slot[c->offer_holder];
	host_offer_took_due(c, i, h->offer_gen, lane);
	now = h->clock();
	h->slot[slot].last_heard = now;
	/*
	 * A held lane's holder stopped when it was taken, some time before now: charged on to now
	 * it would pay twice for that time, which the taker ran and reports (charged above the
	 * lanes, host_charge_bound). Its reports charge it what it ran.
	 */
	host_charge_holders(h, now, victim);
	sched_vcpu_runnable(h->s, slot, now);
	host_offer_apply(h, c, i, lane, true, false, c->offer_holder);
	return 0;
}

struct host_client *host_offer_settle(struct host *h)
{
	struct host_client *c = h->offer_to;
	uint64_t w;

	if (!c)
		return NULL;
	h->offer_to = NULL;
	h->held_untaken = NULL;
	h->cause = HOST_PRE_OFFER;
	h->cause_c = c;
	if (h->xsucc_to) {
		struct host_client *b = h->xsucc_to;

		h->xsucc_to = NULL;
		return host_xhand_settle(h, c, b);
	}
	w = host_offer_word(h->offer_gen, h->offer_lane, HOST_OFFER_FREE);
	if (__atomic_compare_exchange_n(&c->offer->word, &w,
					host_offer_word(h->offer_gen, HOST_OFFER_NONE,
							HOST_OFFER_FREE),
					false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
		/* revoked: nobody took it */
		h->held_untaken = c->offer_holder != HOST_OFFER_NONE ? c : NULL;
		return NULL;
	}
	if (!(h->offer_lane == HOST_OFFER_HAND ? host_hand_honour(h, c, w) :
	      host_offer_honour(h, c, w)))
		return NULL;
	/* Garbage: the VM is hung up on (host_run() sees the hang-up); the lane stays idle. */
	c->garbage = true;
	c->dead = true;
	shutdown(c->fd, SHUT_RDWR);
	return c;
}

/* Offers lane (held by c's vCPU holder, or idle: HOST_OFFER_NONE) to c if the core would give
 * it to some vCPU of c's waking now. */
static bool host_offer_to(struct host *h, struct host_client *c, unsigned int lane,
			  uint32_t holder)
{
	struct host_offer *o = c->offer;
	unsigned int i, nw = (c->nr_vcpus + 63) / 64;
	uint64_t from, not_before = 0;
	bool any = false;

	if (!c->joined || c->dead || !o || c->nr_revoked || c->took_due)
		return false;
	for (i = 0; i < nw; i++)
		c->offer_ok[i] = 0;
	for (i = 0; i < c->nr_vcpus; i++) {
		unsigned int s = c->slot[i];

		if (sched_vcpu_is_runnable(h->s, s) || h->slot[s].revoked ||
		    sched_vcpu_throttled(h->s, s))
			continue;
		if (holder != HOST_OFFER_NONE) {
			if (sched_wake_takes_lane(h->s, s, &from) != (int)lane)
				continue;
			/* The lanes before it, or the holder's min_run end (virtual time, one
			 * lane): the latest of them for all. */
			if (from > not_before)
				not_before = from;
		}
		c->offer_ok[i / 64] |= 1ULL << (i % 64);
		any = true;
	}
	if (!any)
		return false;
	/* Released: a claim that read these after this gen's revocation fails its CAS. */
	for (i = 0; i < nw; i++)
		__atomic_store_n(&o->eligible[i], c->offer_ok[i], __ATOMIC_RELEASE);
	__atomic_store_n(&o->sent, c->nr_read, __ATOMIC_RELEASE);
	/* The lane's CPU of the moment: the lanes rotate (host_rotate_due()), never while an
	 * offer stands (settled first). */
	__atomic_store_n(&o->cpu, host_lane_cpu(h, lane), __ATOMIC_RELEASE);
	__atomic_store_n(&o->not_before, not_before, __ATOMIC_RELEASE);
	__atomic_store_n(&o->holder_seq, holder == HOST_OFFER_NONE ? 0 : host_page_seq(c, holder),
			 __ATOMIC_RELEASE);
	__atomic_store_n(&o->holder, holder, __ATOMIC_RELEASE);
	c->offer_holder = holder;
	h->offer_gen++;
	h->offer_lane = lane;
	h->offer_to = c;
	__atomic_store_n(&o->word, host_offer_word(h->offer_gen, lane, HOST_OFFER_FREE),
			 __ATOMIC_RELEASE);
	return true;
}

/* Every lane held, nobody waits: the first lane a vCPU of its holder's VM would take at once. */
static void host_offer_held(struct host *h)
{
	struct host_client *c;
	unsigned int l;
	int v;

	for (l = 0; l < h->nr_lanes && l < HOST_OFFER_NONE; l++) {
		v = sched_lane_vcpu(h->s, l);
		c = v >= 0 ? h->slot[v].client : NULL;
		/*
		 * After every event, the tree's walk per vCPU: any holder may be taken, by the
		 * cpu.idle rule or by virtual time (sched_wake_vt_lane(); on several lanes only
		 * where every other holder keeps its whole lane, checked before its fluid solve).
		 */
		if (c && c->offer_held && host_offer_to(h, c, l, h->slot[v].vcpu))
			return;
	}
}

void host_offer_make(struct host *h)
{
	unsigned int l, k, lane = UINT_MAX;
	struct host_client *c;
	struct list_head *p;
	int v;

	/* The core ahead of the clock (host_ahead.c): a lane it sees idle may still be held. */
	if (h->offer_to || host_ahead_holds_offers(h))
		return;
	for (l = 0; l < h->nr_lanes; l++) {
		v = sched_lane_vcpu(h->s, l);
		if (v >= 0 && h->slot[v].client)
			h->lane_last[l] = h->slot[v].client;
		else if (v < 0 && lane == UINT_MAX)
			lane = l;
	}
	if (host_someone_waits(h)) {
		host_hand_make(h);
		return;
	}
	if (lane == UINT_MAX) {
		host_offer_held(h);
		return;
	}
	if (lane >= HOST_OFFER_NONE)
		return;
	if (h->lane_last[lane] && host_offer_to(h, h->lane_last[lane], lane, HOST_OFFER_NONE))
		return;
	p = h->offer_rr ? &h->offer_rr->node : &h->clients;
	for (k = 0; k <= h->nr_clients; k++) {
		p = p->next;
		if (p == &h->clients)
			continue;
		c = list_entry(p, struct host_client, node);
		if (host_offer_to(h, c, lane, HOST_OFFER_NONE)) {
			h->offer_rr = c;
			return;
		}
	}
}

/* TOOK: the claim that host_offer_settle() honoured, no other. */
int host_offer_took(struct host_client *c, const struct host_ev *m)
{
	if (!c->took_due || m->vcpu != c->took_vcpu || m->a != c->took_gen ||
	    m->b != c->took_lane)
		return -EPROTO;
	c->took_due = false;
	return 0;
}
