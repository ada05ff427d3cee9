/* SPDX-License-Identifier: GPL-2.0 */
/* Helpers for tests that drive a VM's group tree through the public API (vsched.h). */
#ifndef VSCHED_TESTS_VS_TEST_H
#define VSCHED_TESTS_VS_TEST_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "test.h"
#include "vsched.h"

#define VS_PID		4000
#define VS_TID0		4001	/* vCPU i has TID VS_TID0 + i */

/* usage_usec of path's cpu.stat, or 0 if it cannot be read. */
static inline uint64_t vs_usage_usec(struct vsched *vs, const char *path)
{
	char buf[512], *p;

	if (vsched_read(vs, path, "cpu.stat", buf, sizeof(buf)) < 0)
		return 0;
	p = strstr(buf, "usage_usec ");
	return p ? strtoull(p + 11, NULL, 10) : 0;
}

/* A VM with nr vCPUs and their TIDs, "+cpu" on the root (as systemd sets it on a host). */
static inline struct vsched *vs_new(unsigned int nr)
{
	struct vsched *vs = vsched_create(2, nr);
	unsigned int i;

	if (!vs)
		return NULL;
	vsched_set_pid(vs, VS_PID);
	for (i = 0; i < nr; i++)
		vsched_set_vcpu_tid(vs, i, VS_TID0 + (pid_t)i);
	if (vsched_write_str(vs, "/", "cgroup.subtree_control", "+cpu")) {
		vsched_destroy(vs);
		return NULL;
	}
	return vs;
}

/* Reads path/file and compares it with want byte for byte; reports the difference. */
static inline int vs_read_is(struct vsched *vs, const char *path, const char *file,
			     const char *want, const char *where, int line)
{
	char buf[16384];
	ssize_t n = vsched_read(vs, path, file, buf, sizeof(buf));

	if (n < 0) {
		fprintf(stderr, "%s:%d: read %s/%s: %s\n", where, line, path, file, strerror((int)-n));
		return 0;
	}
	if ((size_t)n != strlen(want) || memcmp(buf, want, (size_t)n)) {
		fprintf(stderr, "%s:%d: read %s/%s: got \"%s\", want \"%s\"\n", where, line, path,
			file, buf, want);
		return 0;
	}
	return 1;
}

#define READ_IS(vs, path, file, want) \
	CU_ASSERT_TRUE(vs_read_is(vs, path, file, want, __FILE__, __LINE__))

/* Writes a C string; expects 0 or -errno and reports a mismatch. */
static inline int vs_write_is(struct vsched *vs, const char *path, const char *file,
			      const char *val, int want, const char *where, int line)
{
	int ret = vsched_write_str(vs, path, file, val);

	if (ret != want)
		fprintf(stderr, "%s:%d: write \"%s\" to %s/%s: got %d (%s), want %d\n", where, line,
			val, path, file, ret, ret ? strerror(-ret) : "ok", want);
	return ret == want;
}

#define WRITE_IS(vs, path, file, val, want) \
	CU_ASSERT_TRUE(vs_write_is(vs, path, file, val, want, __FILE__, __LINE__))
#define WRITE_OK(vs, path, file, val) WRITE_IS(vs, path, file, val, 0)

#endif
