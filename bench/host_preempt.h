/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bench-host-preempt's parts (bench/host_preempt.c says what it measures): the round's state,
 * the holder H and the statistics (host_preempt_holder.c), the in-process runs
 * (host_preempt_inproc.c), the daemon's (host_preempt_host.c).
 */
#ifndef VSCHED_BENCH_HOST_PREEMPT_H
#define VSCHED_BENCH_HOST_PREEMPT_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "spin_vcpu.h"

/*
 * The vt round's plan (bench/host_preempt.c): vCPU 1 wakes 50 us after vCPU 0's grant, waits
 * VT_WAIT_US, then is asleep VT_GAP_US. Its wait outlasts vCPU 0's turn, which the core ends
 * min_run (1 ms) after the grant while vCPU 1 waits: nothing here ends it (no VMM of the bench
 * sends the TICK of a slice end, and the daemon waits for one up to its grace, 100 ms).
 */
#define VT_WAIT_US	2000
#define VT_GAP_US	200
/* A host round with no preemption this long ends unsampled (host_preempt_host.c wait_round()) */
#define ROUND_STALL_MS	500
#define VT_BLOCK_NS	(50000ULL + VT_WAIT_US * 1000ULL)
#define VT_WAKE_NS	(VT_BLOCK_NS + VT_GAP_US * 1000ULL)

struct host_offer;
struct host_grant;

struct pre {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool granted, done, stop;
	bool inside;		/* atomic: H is in its vCPU */
	struct spin_vcpu v;
	pthread_t h;
	uint64_t t0, tk, ta;	/* the event; the kick issued; the agent had the PREEMPT */
	uint64_t *samples, *kicks, *agents;
	bool *aheads;		/* slice rounds: the sample's end was applied ahead */
	bool round_ahead;	/* lock: this round's end applied from the published entry */
	unsigned int n, rounds;
	int fd;			/* host mode */
	bool watch;		/* host mode: H watches its grant page entry */
	bool held;		/* host mode: A takes the held lane's offer */
	bool dkick;		/* host mode: the daemon kicks H (HOST_HELLO_KICK) */
	bool vt;		/* the virtual-time round (below) */
	bool slice;		/* the slice-end round (host_preempt.c) */
	bool ahead;		/* host mode: slice ends decided ahead (HOST_HELLO_AHEAD) */
	uint64_t ran_due;	/* ... the RAN of an end applied, sent once H is out */
	uint64_t until;		/* host mode, slice round: vCPU 0's slice end (its RETIME's) */
	unsigned int lane;	/* vCPU 0's lane (and H's CPU): 1 with BENCH_PRE_LANES=2 */
	int ofd;		/* host mode, two lanes: VM "other"'s socket */
	bool timing;		/* lock: t0 set, H's next exit is this round's sample */
	unsigned int stray;	/* H out before the timed wake (a vt round's first wake) */
	unsigned int early;	/* slice round: H out before the slice end it was timed from */
	unsigned int retimed;	/* host slice round: its end moved (RETIME) while timed */
	unsigned int unpaired;	/* slice rounds whose wait ended before H's exit (pre_wait_out()) */
	unsigned int kicks_here, kicks_all;	/* kicks from H's CPU (lane), all kicks */
	unsigned int missed;	/* in-process: the timed wake did not take the lane */
	unsigned int grants;	/* host mode: GRANTs of vCPU 0 (one a round, one more a stray) */
	pid_t tid;		/* H's */
	struct host_offer *offer;
	uint64_t sent;		/* datagrams sent, as rt->sent */
	bool took_due;
	uint32_t took_gen, took_lane;
	unsigned int by_socket;	/* held rounds without an offer */
	unsigned int stalled;	/* host mode: rounds ended with no preemption (wait_round()) */
	const struct host_grant *page;
	uint32_t grant_seq;	/* the seq of vCPU 0's last GRANT */
	uint32_t applied;	/* the last decision applied (lock) */
	bool in_guest;		/* lock */
};

/* host_preempt_holder.c */
struct pre *pre_new(unsigned int rounds, bool kvm);
void pre_free(struct pre *p);
void pre_kick(struct pre *p);
void *holder(void *arg);
void signal_flag(struct pre *p, bool *flag);
void wait_flag(struct pre *p, bool *flag);
bool wait_flag_ms(struct pre *p, bool *flag, unsigned int ms);
void wait_inside(struct pre *p);
unsigned int pre_exits(struct pre *p);
void pre_wait_out(struct pre *p, unsigned int before);
void report(const char *accel, const char *what, struct pre *p);
void ratio(const char *accel, const char *what, struct pre *ho, struct pre *in);

/* host_preempt_inproc.c: the rows' in-process runs */
int run_inprocess(struct pre *p);

/* host_preempt_host.c: the rows' runs against a daemon (host/ in a child process) */
int run_daemon(struct pre *p);

#endif
