// SPDX-License-Identifier: GPL-2.0
/*
 * The grant page of one VM (include/host/proto.h): a memfd the daemon maps read-write and
 * writes alone, one struct host_grant per vCPU. The VMM gets it with its WELCOME and can only
 * map it read-only: the memfd is sealed against writes through any new mapping or write(), and
 * against shrinking and growing, so no VMM can make the daemon's own mapping fault (a shrunk
 * memfd would SIGBUS the daemon's stores). The daemon never reads the page: each entry's seq
 * is kept in its own memory (c->seq) and only copied there.
 *
 * An entry is written seqlock-style (seq odd, the fields, seq even) and a grant then wakes the
 * futex on seq: the vCPU thread parked for that lane, with no other thread woken in between.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "internal.h"
#include "sched/core.h"

#define HOST_PAGE_SEALS	(F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_FUTURE_WRITE | F_SEAL_SEAL)

/* The VMM's end: a new read-only open file of the same memfd. */
static int host_page_ro_fd(int fd)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	return open(path, O_RDONLY | O_CLOEXEC);
}

/*
 * Makes c's page; *ro_fd is the read-only fd to pass with the WELCOME (the caller closes it).
 * A host without memfd sealing or /proc gets -errno: the VM then joins without a page and its
 * agent thread applies every decision (slower, the same decisions).
 */
int host_page_create(struct host_client *c, int *ro_fd)
{
	size_t len = c->nr_vcpus * sizeof(struct host_grant);
	unsigned int i;
	int fd, ret;

	len = (len + 4095) & ~(size_t)4095;
	c->seq = calloc(c->nr_vcpus, sizeof(*c->seq));
	if (!c->seq)
		return -ENOMEM;
	fd = memfd_create("vsched-grants", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		return -errno;
	ret = ftruncate(fd, (off_t)len) ? -errno : 0;
	if (!ret) {
		c->page = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (c->page == MAP_FAILED) {
			c->page = NULL;
			ret = -errno;
		}
	}
	if (!ret && fcntl(fd, F_ADD_SEALS, HOST_PAGE_SEALS))
		ret = -errno;
	if (!ret && (*ro_fd = host_page_ro_fd(fd)) < 0)
		ret = -errno;
	close(fd);
	if (ret) {
		host_page_destroy(c);
		return ret;
	}
	c->page_len = len;
	for (i = 0; i < c->nr_vcpus; i++)
		c->page[i] = (struct host_grant){ .lane = HOST_LANE_NONE, .until = HOST_TIME_INF,
						  .cpu = HOST_CPU_NONE };
	return 0;
}

void host_page_destroy(struct host_client *c)
{
	if (c->page)
		munmap(c->page, c->page_len);
	c->page = NULL;
	free(c->seq);
	c->seq = NULL;
}

/* The seq of vcpu's entry as it stands (0: no page). */
uint32_t host_page_seq(const struct host_client *c, unsigned int vcpu)
{
	return c->seq ? c->seq[vcpu] : 0;
}

/*
 * Vcpu's entry becomes the state a decision leaves it in; its new seq is returned, for the
 * message that follows. lane HOST_LANE_NONE: it holds none. A grant wakes the parked thread.
 */
uint32_t host_page_write(struct host_client *c, unsigned int vcpu, uint32_t lane, uint64_t until,
			 uint64_t cpu)
{
	return host_page_write_at(c, vcpu, lane, until, cpu, 0);
}

/* The entry written (seqlock); no wake-up. */
static uint32_t host_page_store(struct host_client *c, unsigned int vcpu, uint32_t lane,
				uint64_t until, uint64_t cpu, uint64_t at)
{
	struct host_grant *g;
	uint32_t seq;

	if (!c->seq)
		return 0;
	seq = c->seq[vcpu] += 2;
	if (!c->page)
		return seq;
	g = &c->page[vcpu];
	__atomic_store_n(&g->seq, seq - 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	__atomic_store_n(&g->lane, lane, __ATOMIC_RELAXED);
	__atomic_store_n(&g->until, until, __ATOMIC_RELAXED);
	__atomic_store_n(&g->cpu, cpu, __ATOMIC_RELAXED);
	__atomic_store_n(&g->at, at, __ATOMIC_RELAXED);
	__atomic_store_n(&g->seq, seq, __ATOMIC_RELEASE);
	return seq;
}

static void host_page_wake(struct host_client *c, unsigned int vcpu)
{
	if (c->page)
		syscall(SYS_futex, &c->page[vcpu].seq, FUTEX_WAKE, 1, NULL, NULL, 0);
}

/* A decision made ahead (host_ahead.c) holds from at; 0: at once. */
uint32_t host_page_write_at(struct host_client *c, unsigned int vcpu, uint32_t lane,
			    uint64_t until, uint64_t cpu, uint64_t at)
{
	uint32_t seq = host_page_store(c, vcpu, lane, until, cpu, at);

	if (lane != HOST_LANE_NONE)
		host_page_wake(c, vcpu);
	return seq;
}

/*
 * A grant, as host_page_write_at(), and *parked: whether vcpu's thread waits on its entry (the
 * VMM's bit, host_offer_parked()), read after the entry's write and before the futex wake-up.
 * Read after the wake-up, it was often clear already: the thread, woken (or awake and reading
 * its entry), had taken the grant and cleared its bit, so the GRANT went as a datagram too and
 * woke the agent to drop it (bench-host-latency's parked row: 1-2645 of 5000 rounds; a thread
 * that asks and waits at once: 95-97 %; now 0-1 of 5000). The order the bit's promise needs is
 * the entry before the bit; the wake-up may follow.
 */
uint32_t host_page_grant(struct host_client *c, unsigned int vcpu, uint32_t lane, uint64_t until,
			 uint64_t cpu, uint64_t at, bool *parked)
{
	uint32_t seq = host_page_store(c, vcpu, lane, until, cpu, at);

	*parked = host_offer_parked(c, vcpu);
	host_page_wake(c, vcpu);
	return seq;
}
