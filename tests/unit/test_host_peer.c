// SPDX-License-Identifier: GPL-2.0
/*
 * Offer pages shared between VMs (host/host_peer.c, sched/runtime/rt_peer.c, HOST_HELLO_PEER):
 * sealed against new writable mappings once their VMM mapped them, then sent read-only to the
 * other VMs that asked. What a hostile peer tries on the fd it got (write, a writable mapping,
 * a new writable open, mprotect, truncation, hole punching) fails; the owner's mapping made
 * before the seal still writes. The VMM's side refuses a page not so sealed.
 */
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../../sched/runtime/rt.h"
#include "host_peer_test.h"
#include "test.h"
#include "util/unixsock.h"
#include "vsched.h"

/* The next PEER datagram (others skipped): its arg, id, and fd (-1: none). false: none. */
static bool peer_recv(struct pvmm *p, uint32_t *arg, uint64_t *id, int *fd)
{
	char buf[1024], cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
	struct msghdr mh;
	struct cmsghdr *cm;
	struct host_ev m;
	ssize_t n;

	for (;;) {
		mh = (struct msghdr){ .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
				      .msg_controllen = sizeof(cbuf) };
		n = recvmsg(p->m.fd, &mh, MSG_DONTWAIT);
		if (n <= 0)
			return false;
		cm = CMSG_FIRSTHDR(&mh);
		*fd = -1;
		if (cm && cm->cmsg_type == SCM_RIGHTS)
			memcpy(fd, CMSG_DATA(cm), sizeof(int));
		if (n != sizeof(m)) {
			CU_ASSERT_EQUAL(*fd, -1);
			continue;
		}
		memcpy(&m, buf, sizeof(m));
		if (m.type != HOST_MSG_PEER) {
			CU_ASSERT_EQUAL(*fd, -1);	/* only a PEER carries an fd */
			continue;
		}
		*arg = m.arg;
		*id = m.a;
		return true;
	}
}

static void peer_leave(struct host *h, struct pvmm *p)
{
	close(p->offer_fd);
	ovmm_leave(h, &p->m);
}

/* Everything a peer may try on the read-only fd it got, and the owner's mapping. */
static void peer_attack(struct pvmm *owner, int fd)
{
	int seals = fcntl(fd, F_GET_SEALS), rw;
	char path[64];
	uint64_t one = 1;
	void *p;

	CU_ASSERT_EQUAL(seals & (F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_FUTURE_WRITE | F_SEAL_SEAL),
			F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_FUTURE_WRITE | F_SEAL_SEAL);
	CU_ASSERT_EQUAL(fcntl(fd, F_GETFL) & O_ACCMODE, O_RDONLY);
	CU_ASSERT_EQUAL(mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0), MAP_FAILED);
	CU_ASSERT_EQUAL(write(fd, &one, sizeof(one)), -1);
	CU_ASSERT_NOT_EQUAL(ftruncate(fd, 0), 0);
	CU_ASSERT_NOT_EQUAL(fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, 4096), 0);
	CU_ASSERT_EQUAL(fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE), -1);	/* F_SEAL_SEAL */
	/* A new open of the same memfd for writing: the seal holds there too. */
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	rw = open(path, O_RDWR);
	if (rw >= 0) {
		CU_ASSERT_EQUAL(write(rw, &one, sizeof(one)), -1);
		CU_ASSERT_EQUAL(mmap(NULL, 4096, PROT_WRITE, MAP_SHARED, rw, 0), MAP_FAILED);
		CU_ASSERT_NOT_EQUAL(ftruncate(rw, 0), 0);
		close(rw);
	}
	/* The read-only mapping cannot be made writable; it sees the owner's writes. */
	p = mmap(NULL, sizeof(struct host_offer), PROT_READ, MAP_SHARED, fd, 0);
	CU_ASSERT_FATAL(p != MAP_FAILED);
	CU_ASSERT_NOT_EQUAL(mprotect(p, 4096, PROT_READ | PROT_WRITE), 0);
	__atomic_store_n(&owner->m.o->pad[0], 0x5eed, __ATOMIC_RELEASE);
	CU_ASSERT_EQUAL(((const struct host_offer *)p)->pad[0], 0x5eed);
	CU_ASSERT_EQUAL(((const struct host_offer *)p)->word, offer_word(&owner->m));
	munmap(p, sizeof(struct host_offer));
	/* Not even the owner makes a new writable mapping after the seal. */
	CU_ASSERT_EQUAL(mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, owner->offer_fd, 0),
			MAP_FAILED);
}

static void test_peer_share(void)
{
	struct host *h = offer_host(1);
	struct pvmm a, b, n;
	uint64_t ida, idb, id;
	uint32_t arg;
	int fda, fdb, fd;

	peer_join(h, &a, "a", true);
	peer_join(h, &b, "b", true);
	/* Nobody spoke yet: nothing shared, both pages still open to a writable mapping. */
	CU_ASSERT_FALSE(peer_recv(&a, &arg, &id, &fd));
	CU_ASSERT_FALSE(peer_recv(&b, &arg, &id, &fd));
	CU_ASSERT_EQUAL(fcntl(a.offer_fd, F_GET_SEALS) & F_SEAL_FUTURE_WRITE, 0);
	CU_ASSERT_EQUAL(ovmm_ev(h, &a.m, HOST_MSG_COMMIT, 0, 0, 0), 0);
	CU_ASSERT_NOT_EQUAL(fcntl(a.offer_fd, F_GET_SEALS) & F_SEAL_FUTURE_WRITE, 0);
	CU_ASSERT_FALSE(peer_recv(&a, &arg, &id, &fd));	/* no peer sealed yet */
	CU_ASSERT_EQUAL(ovmm_ev(h, &b.m, HOST_MSG_COMMIT, 0, 0, 0), 0);
	CU_ASSERT_FATAL(peer_recv(&a, &arg, &idb, &fdb));
	CU_ASSERT_EQUAL(arg, 1);
	CU_ASSERT_FATAL(peer_recv(&b, &arg, &ida, &fda));
	CU_ASSERT_EQUAL(arg, 1);
	CU_ASSERT_FATAL(fda >= 0 && fdb >= 0);
	CU_ASSERT_NOT_EQUAL(ida, idb);
	peer_attack(&a, fda);
	peer_attack(&b, fdb);
	close(fda);
	close(fdb);
	/* A VMM that did not ask gets no page and its own goes to nobody. */
	peer_join(h, &n, "n", false);
	CU_ASSERT_EQUAL(ovmm_ev(h, &n.m, HOST_MSG_COMMIT, 0, 0, 0), 0);
	CU_ASSERT_FALSE(peer_recv(&n, &arg, &id, &fd));
	CU_ASSERT_FALSE(peer_recv(&a, &arg, &id, &fd));
	CU_ASSERT_FALSE(peer_recv(&b, &arg, &id, &fd));
	CU_ASSERT_FATAL(n.m.o != MAP_FAILED);
	/* a leaves: b is told, with no fd. */
	peer_leave(h, &a);
	CU_ASSERT_FATAL(peer_recv(&b, &arg, &id, &fd));
	CU_ASSERT_EQUAL(arg, 0);
	CU_ASSERT_EQUAL(id, ida);
	CU_ASSERT_EQUAL(fd, -1);
	/* A PEER from a VMM is garbage (daemon -> VMM only). */
	CU_ASSERT_NOT_EQUAL(ovmm_ev(h, &b.m, HOST_MSG_PEER, 0, 0, 0), 0);
	peer_leave(h, &b);
	peer_leave(h, &n);
	host_destroy(h);
}

/* The VMM's side: a peer page that is not sealed against writes and resizing is refused. */
static void test_peer_map(void)
{
	pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	struct runtime rt = { .lock = &lock };
	int fd = memfd_create("t", MFD_CLOEXEC | MFD_ALLOW_SEALING), ro;

	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_EQUAL_FATAL(ftruncate(fd, 4096), 0);
	mutex_lock(&lock);
	CU_ASSERT_EQUAL(rt_peer_add(&rt, 7, dup(fd)), -EPROTO);		/* no seal */
	CU_ASSERT_EQUAL(fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW), 0);
	CU_ASSERT_EQUAL(rt_peer_add(&rt, 7, dup(fd)), -EPROTO);		/* still writable */
	CU_ASSERT_EQUAL(fcntl(fd, F_ADD_SEALS, F_SEAL_FUTURE_WRITE), 0);
	CU_ASSERT_PTR_NULL(rt_peer_find(&rt, 7));
	ro = open("/dev/null", O_RDONLY);
	CU_ASSERT_EQUAL(rt_peer_add(&rt, 8, ro), -EPROTO);		/* no memfd */
	CU_ASSERT_EQUAL(rt_peer_add(&rt, 7, dup(fd)), 0);
	CU_ASSERT_PTR_NOT_NULL(rt_peer_find(&rt, 7));
	CU_ASSERT_PTR_NULL(rt_peer_find(&rt, 8));
	CU_ASSERT_EQUAL(rt_peer_add(&rt, 7, -1), 0);			/* it left */
	CU_ASSERT_PTR_NULL(rt_peer_find(&rt, 7));
	CU_ASSERT_EQUAL(rt_peer_add(&rt, 9, dup(fd)), 0);
	rt_peer_clear(&rt);
	CU_ASSERT_PTR_NULL(rt_peer_find(&rt, 9));
	mutex_unlock(&lock);
	close(fd);
}

/* The fds this process has open. */
static unsigned int open_fds(void)
{
	unsigned int n = 0;
	struct dirent *e;
	DIR *d = opendir("/proc/self/fd");

	CU_ASSERT_FATAL(d != NULL);
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n - 1;	/* the directory's own */
}

/* A datagram with nr copies of fd (SCM_RIGHTS) on sv[0]. */
static void send_fds(int sock, int fd, unsigned int nr)
{
	struct host_ev m = { .type = HOST_MSG_PEER, .arg = 1, .a = 7 };
	int fds[4] = { fd, fd, fd, fd };

	CU_ASSERT_EQUAL(unixsock_send_fds(sock, &m, sizeof(m), fds, nr, 0), (ssize_t)sizeof(m));
}

/*
 * The agent's receive: one fd passed on, none, or garbage (-2) for more, with every fd that
 * came closed (two fit the control buffer: the second was left open, an fd leaked a datagram).
 */
static void test_peer_recv_fds(void)
{
	unsigned int nr, before;
	int sv[2], fd, pfd;
	char buf[256];

	CU_ASSERT_EQUAL_FATAL(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv), 0);
	fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	CU_ASSERT_FATAL(fd >= 0);
	for (nr = 0; nr <= 4; nr++) {
		before = open_fds();
		send_fds(sv[0], fd, nr);
		CU_ASSERT_EQUAL(rt_peer_recv(sv[1], buf, sizeof(buf), &pfd),
				(ssize_t)sizeof(struct host_ev));
		if (nr == 1) {
			CU_ASSERT(pfd >= 0 && pfd != fd);
			if (pfd >= 0)
				close(pfd);
		} else {
			CU_ASSERT_EQUAL(pfd, nr ? -2 : -1);
		}
		CU_ASSERT_EQUAL(open_fds(), before);
	}
	close(fd);
	close(sv[0]);
	close(sv[1]);
}

/* A PEER refused closes the fd it came with, whatever is wrong with it (its size too). */
static void test_peer_msg_garbage_fd(void)
{
	pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	struct runtime rt = { .lock = &lock };
	struct host_ev m = { .type = HOST_MSG_PEER, .arg = 1, .a = 7 };
	struct host_ev bad[] = { m, m, m };
	unsigned int before = open_fds(), i;
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);

	CU_ASSERT_FATAL(fd >= 0);
	bad[1].arg = 2;
	bad[2].a = 1ULL << 32;
	mutex_lock(&lock);
	CU_ASSERT_EQUAL(rt_peer_msg(&rt, &m, sizeof(m) - 1, dup(fd)), -EPROTO);
	CU_ASSERT_EQUAL(rt_peer_msg(&rt, &m, sizeof(m) + 4, dup(fd)), -EPROTO);
	for (i = 1; i < ARRAY_SIZE(bad); i++)
		CU_ASSERT_EQUAL(rt_peer_msg(&rt, &bad[i], sizeof(m), dup(fd)), -EPROTO);
	mutex_unlock(&lock);
	close(fd);
	CU_ASSERT_EQUAL(open_fds(), before);
}

static CU_TestInfo host_peer_tests[] = {
	{ "offer pages sealed once mapped, shared read-only with peers", test_peer_share },
	{ "a peer page not sealed against writes is refused", test_peer_map },
	{ "a datagram of more than one fd closes them all", test_peer_recv_fds },
	{ "a PEER refused closes its fd, one of the wrong size too", test_peer_msg_garbage_fd },
	CU_TEST_INFO_NULL,
};

TEST_SUITE("host_peer", host_peer_tests);
