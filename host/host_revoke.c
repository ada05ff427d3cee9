// SPDX-License-Identifier: GPL-2.0
/*
 * Revocation: a lane holder whose VMM stopped answering loses its lane.
 *
 * A VMM reports the CPU time of its vCPUs inside KVM_RUN at least every RT_REPORT_NS, and at
 * each slice end the daemon told it (GRANT, RETIME) its SCHED_FIFO helper sends TICK (with a
 * RAN) or applies the end the daemon published (then the core no longer has it on the lane).
 * While another vCPU waits, a holder whose VMM said nothing about it by answer_ns after that
 * end and whose thread /proc shows stopped (or gone), or one silent for grace_ns whatever its
 * state, loses the lane (blocked in the core, which hands the lane on) until its VMM speaks
 * again, and is told PREEMPT for when it does. One silent past that end whose thread is not
 * stopped is judged by its schedstat times over answer_ns more (host_revoke_judge()): asleep
 * or frozen, or running without a word, it loses the lane then; waiting for a CPU, it keeps
 * the grace.
 * The end is the one its VMM was told, not the core's `until`: a holder that reports nothing
 * looks owed to the core, which keeps it on its lane with a later one.
 */
#include <poll.h>
#include <string.h>

#include "internal.h"
#include "sched/core.h"

/* c's TICK at now: it answers the slice ends of its holders that have passed. */
void host_owe_tick(struct host *h, struct host_client *c, uint64_t now)
{
	unsigned int i;

	for (i = 0; i < c->nr_vcpus; i++) {
		struct host_slot *sl = &h->slot[c->slot[i]];

		if (sl->end_at && sl->end_at <= now && sl->last_heard < now)
			sl->last_heard = now;
	}
}

/* Holder v's slice end on lane l: the one its VMM was told, else the core's; 0: none. */
static uint64_t slot_end(struct host *h, unsigned int l, unsigned int v)
{
	uint64_t u = sched_lane_until(h->s, l);

	if (h->slot[v].end_at)
		return h->slot[v].end_at;
	return u == SCHED_TIME_NONE ? 0 : u;
}

/*
 * When the VMM of lane l's holder v is due to have spoken about it, HOST_TIME_INF: nothing it
 * owes. Its slice end (the one the daemon told it; else, granted otherwise, the core's), and
 * its report every HOST_REPORT_NS (a holder granted while nobody waited has no end), each
 * answer_ns late; the grace after it last spoke in any case. A check that found its thread
 * not stopped (checked_at) answers for it.
 */
uint64_t host_owe_due(struct host *h, unsigned int l, unsigned int v)
{
	const struct host_slot *sl = &h->slot[v];
	uint64_t t, end = slot_end(h, l, v), base;

	if (!sl->client)
		return HOST_TIME_INF;
	base = sl->last_heard > sl->checked_at ? sl->last_heard : sl->checked_at;
	t = sl->last_heard + h->grace_ns;
	/* Its times read since its last word: judged from them answer_ns later. */
	if (sl->times.vm_threads && sl->checked_at > sl->last_heard &&
	    sl->checked_at + h->answer_ns < t)
		t = sl->checked_at + h->answer_ns;
	if (end && base < end && end + h->answer_ns < t)
		t = end + h->answer_ns;
	if (base + HOST_REPORT_NS + h->answer_ns < t)
		t = base + HOST_REPORT_NS + h->answer_ns;
	return t;
}

/*
 * How late after its end (or, none, after it last spoke) holder v lost lane l: the worst kept,
 * and apart the worst of those judged by their times.
 */
static void host_revoke_late(struct host *h, unsigned int l, unsigned int v, uint64_t now,
			     bool judged)
{
	struct host_client *c = h->slot[v].client;
	uint64_t end = slot_end(h, l, v);

	if (!end || end > now)
		end = h->slot[v].last_heard;
	if (now - end > c->revoke_late_ns)
		c->revoke_late_ns = now - end;
	if (judged && now - end > c->judged_late_ns)
		c->judged_late_ns = now - end;
}

/* A datagram of c's waits to be read (the daemon itself was late). */
static bool host_client_pending(const struct host_client *c)
{
	struct pollfd p = { .fd = c->fd, .events = POLLIN };

	return c->fd >= 0 && poll(&p, 1, 0) == 1 && (p.revents & POLLIN);
}

/* Why a silent holder whose thread is not stopped loses its lane (host_revoke_judge()). */
enum host_stuck {
	HOST_LATE,	/* none: it may be waiting for a CPU, or there is nothing to judge from */
	HOST_ASLEEP,	/* it did not run nor wait, and no thread of its VMM wants a CPU */
	HOST_RAN,	/* it ran answer_ns of CPU past its due without a word */
};

/*
 * Holder sl silent past its due, its thread not stopped (R, S, D): its times and its VMM's
 * threads' states now against its times read at the last check, answer_ns ago or more (none
 * since its last word: read now, judged at the next). A live VMM late on a loaded host has a
 * thread waiting on a runqueue (R: the holder, or the holder of a lock it sleeps on) or the
 * holder ran (a thread that leaves R has run: its times moved) and answers at once: it does
 * not sleep through answer_ns while none of its VMM's threads is in R, nor run answer_ns of
 * CPU without a word while its VMM says nothing at all (one that talks may be catching up:
 * t-host.sh's VMM, stopped and continued, lost a holder so once in 26 revocations before this
 * check) while none of its threads but the holder's is in R: any of them waiting for a CPU may
 * carry its word or have its new end unread: its helper or agent (at load 27 t-host.sh's live
 * c lost a holder so), or another vCPU's thread preempted while it sends the VMM's queue, which
 * every other thread leaves to it (rt_outbox.c; t-host-freeze.sh's live c lost a holder so, the
 * daemon reading nothing from it for 19-32 ms, its helper's report among what was queued).
 * A frozen VMM (a cgroup freezer) has no thread in R and no time moves. A thread that began or
 * ended meanwhile, or a reading that failed, tells nothing: the grace stands.
 */
static enum host_stuck host_revoke_judge(struct host *h, struct host_slot *sl, uint64_t now)
{
	const struct host_times *o = &sl->times;
	bool fresh = sl->checked_at > sl->last_heard;
	enum host_stuck why = HOST_LATE;
	struct host_times t;

	if (fresh && o->vm_threads && now < sl->checked_at + h->answer_ns)
		return HOST_LATE;	/* too soon: the reading kept */
	if (!fresh)
		sl->client->nr_owe_runnable++;
	sl->checked_at = now;
	host_dcpu_mark(h, sl->client);	/* the reading's CPU is the daemon's work for it */
	if (h->thread_times(sl->client, sl->vcpu, &t) || !t.vm_threads) {
		sl->times.vm_threads = 0;	/* none held: the next reading starts anew */
		return HOST_LATE;
	}
	if (!fresh || !o->vm_threads) {
		sl->run0 = t.run_ns;
		sl->read0 = sl->client->nr_read;
	} else if (t.vm_threads != o->vm_threads)
		;	/* a thread began or ended: judged from the next pair */
	else if (t.run_ns >= sl->run0 + h->answer_ns && sl->client->nr_read == sl->read0 &&
		 t.vm_runnable <= (t.state == 'R'))
		why = HOST_RAN;
	else if (!t.vm_runnable && t.run_ns == o->run_ns && t.wait_ns == o->wait_ns)
		why = HOST_ASLEEP;
	sl->times = t;
	/* Its word may have come, not read yet: the daemon's own wait for a CPU. */
	if (why != HOST_LATE && host_client_pending(sl->client))
		why = HOST_LATE;
	return why;
}

static void host_revoke_one(struct host *h, unsigned int v, uint64_t now)
{
	struct host_slot *sl = &h->slot[v];

	sched_vcpu_blocked(h->s, v, now);
	sl->revoked = true;
	sl->client->nr_revoked++;
	sl->client->nr_revokes++;
	host_dcpu_mark(h, sl->client);
}

/*
 * c's waiting vCPUs whose threads are stopped too (a SIGSTOP stops them all): revoked
 * with the holder. Left waiting, each was granted a lane in turn and held it its slice and the
 * answer time (t-host.sh's poll saw a stopped 4-vCPU VM beside a 2-vCPU one hold lanes for
 * 170-350 ms after SIGSTOP; the poll itself ~40 ms a read at that load).
 */
static void host_revoke_stopped(struct host *h, struct host_client *c, uint64_t now)
{
	unsigned int i;

	for (i = 0; i < c->nr_vcpus; i++) {
		unsigned int v = c->slot[i];

		if (!h->slot[v].revoked && sched_vcpu_is_runnable(h->s, v) &&
		    sched_vcpu_lane(h->s, v) < 0 && strchr("Tt", h->thread_state(c, i)))
			host_revoke_one(h, v, now);
	}
}

/*
 * While another vCPU waits, each holder whose VMM did not speak about it by its due
 * (host_owe_due()) loses its lane: blocked in the core, told PREEMPT (a stopped VMM reads it at
 * SIGCONT).
 */
void host_revoke_due(struct host *h, uint64_t now)
{
	bool revoked = false;
	unsigned int l;

	if (!host_someone_waits(h))
		return;
	for (l = 0; l < h->nr_lanes; l++) {
		struct host_ev m = { .type = HOST_MSG_PREEMPT };
		int v = sched_lane_vcpu(h->s, l);
		enum host_stuck why = HOST_LATE;
		struct host_slot *sl;

		if (v < 0 || now < host_owe_due(h, l, (unsigned int)v))
			continue;
		sl = &h->slot[v];
		/*
		 * Silent past its end, its thread not stopped (T, t) nor gone (X, Z): a loaded
		 * host, a thread between two steps, or a stuck VMM. Granted threads woke 5-15 ms
		 * late at load 12, their VMM unaware they ran (553 revocations in one t-host.sh),
		 * and some asleep (S: a grant from a later `at`, the runtime's lock): 5 more.
		 * Judged by its times; until then what it owed so far is answered.
		 */
		if (now < sl->last_heard + h->grace_ns &&
		    !strchr("TtXZ", h->thread_state(sl->client, sl->vcpu))) {
			why = host_revoke_judge(h, sl, now);
			if (why == HOST_LATE)
				continue;
		}
		host_revoke_late(h, l, (unsigned int)v, now, why != HOST_LATE);
		sl->client->nr_revokes_asleep += why == HOST_ASLEEP;
		sl->client->nr_revokes_ran += why == HOST_RAN;
		sl->client->nr_revokes_grace += now >= sl->last_heard + h->grace_ns;
		host_revoke_one(h, (unsigned int)v, now);
		host_revoke_stopped(h, sl->client, now);
		m.vcpu = sl->vcpu;
		m.seq = host_page_write(sl->client, sl->vcpu, HOST_LANE_NONE, HOST_TIME_INF,
					HOST_CPU_NONE);
		host_kick(sl->client, sl->vcpu);	/* a stopped VMM: delivered at SIGCONT */
		host_send(sl->client, &m, sizeof(m));
		revoked = true;
	}
	/*
	 * Only a revocation has decisions to drain: drained anyway, the timer's flush and re-arm
	 * (a timerfd_settime()) came before its own decision, 20 us of a slice end decided ahead.
	 */
	if (revoked)
		host_drain(h);
}

uint64_t host_client_revokes(const struct host_client *c)
{
	return c->nr_revokes;
}

void host_unrevoke(struct host *h, struct host_client *c, uint64_t now)
{
	unsigned int i;

	for (i = 0; i < c->nr_vcpus; i++) {
		struct host_slot *sl = &h->slot[c->slot[i]];

		if (!sl->revoked)
			continue;
		sl->revoked = false;
		sl->last_heard = now;
		sched_vcpu_runnable(h->s, c->slot[i], now);
	}
	c->nr_revoked = 0;
}
