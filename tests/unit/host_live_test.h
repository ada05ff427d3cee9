/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A live daemon in a thread of the test process, serving a socket in a fresh /tmp directory:
 * the tests whose VMM (runvm) joins a real `vsched host` (test_rt_unlocked.c, test_rt_place.c).
 */
#ifndef VSCHED_TESTS_HOST_LIVE_TEST_H
#define VSCHED_TESTS_HOST_LIVE_TEST_H

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "host/host.h"
#include "test.h"

struct live_daemon {
	struct host *h;
	int stop_fd;
	pthread_t thread;
	char dir[64], sock[128];
};

static inline void *live_daemon_serve(void *arg)
{
	struct live_daemon *d = arg;

	host_run(d->h, d->stop_fd);
	return NULL;
}

static inline void live_daemon_start(struct live_daemon *d, unsigned int nr_lanes)
{
	struct host_opts o = { .nr_lanes = nr_lanes };

	snprintf(d->dir, sizeof(d->dir), "/tmp/vsched-live-XXXXXX");
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(d->dir));
	snprintf(d->sock, sizeof(d->sock), "%s/host.sock", d->dir);
	CU_ASSERT_EQUAL_FATAL(host_create(&o, &d->h), 0);
	CU_ASSERT_EQUAL_FATAL(host_listen(d->h, d->sock), 0);
	d->stop_fd = eventfd(0, EFD_CLOEXEC);
	CU_ASSERT_FATAL(d->stop_fd >= 0);
	CU_ASSERT_EQUAL_FATAL(pthread_create(&d->thread, NULL, live_daemon_serve, d), 0);
}

/* The daemon gone: its VMMs see the hang-up and fall back. */
static inline void live_daemon_stop(struct live_daemon *d)
{
	CU_ASSERT_EQUAL(eventfd_write(d->stop_fd, 1), 0);
	pthread_join(d->thread, NULL);
	host_destroy(d->h);
	close(d->stop_fd);
	unlink(d->sock);
	rmdir(d->dir);
}

#endif
