// SPDX-License-Identifier: GPL-2.0
/* libvirt's vcpuN caps mirrored into vsched's leaves; see include/libvirt/libvirt_sync.h. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/inotify.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "libvirt/libvirt_sync.h"
#include "libvirt/qemu.h"
#include "libvirt/vcputhread.h"
#include "util/compiler.h"
#include "util/file.h"
#include "util/registry.h"

#define SYNC_SUBDIR	".libvirt-sync"
#define SYNC_MAX_VCPUS	1024

static int sync_read(const char *dir, const char *file, char *buf, size_t len)
{
	char p[PATH_MAX];
	int ret;

	snprintf(p, sizeof(p), "%s/%s", dir, file);
	ret = file_read(p, buf, len);
	if (!ret)
		buf[strcspn(buf, "\n")] = '\0';
	return ret;
}

static int sync_write(const char *dir, const char *file, const char *value)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/%s", dir, file);
	return file_write(p, value, strlen(value));
}

/* Copies src's cap files into dst where they differ; v1 goes through "unlimited" first. */
static int sync_copy(const char *src, const char *dst, enum fs_flavor fl)
{
	char q[32], p[32], dq[32], dp[32], max[64], dmax[64];
	int ret;

	if (fl == FS_V2) {
		ret = sync_read(src, "cpu.max", max, sizeof(max));
		if (ret || (!sync_read(dst, "cpu.max", dmax, sizeof(dmax)) && !strcmp(max, dmax)))
			return ret;
		return sync_write(dst, "cpu.max", max);
	}
	ret = sync_read(src, "cpu.cfs_quota_us", q, sizeof(q)) ?:
	      sync_read(src, "cpu.cfs_period_us", p, sizeof(p));
	if (ret)
		return ret;
	if (!sync_read(dst, "cpu.cfs_quota_us", dq, sizeof(dq)) &&
	    !sync_read(dst, "cpu.cfs_period_us", dp, sizeof(dp)) && !strcmp(q, dq) &&
	    !strcmp(p, dp))
		return 0;
	return sync_write(dst, "cpu.cfs_quota_us", "-1") ?:
	       sync_write(dst, "cpu.cfs_period_us", p) ?:
	       sync_write(dst, "cpu.cfs_quota_us", q);
}

/* vCPU n: libvirt's dir/vcpuN into the vsched leaf holding its thread, if it is in one. */
static int sync_vcpu(const struct libvirt_sync *s, unsigned int n, FILE *log)
{
	char src[PATH_MAX], cur[PATH_MAX], base[32];
	size_t len = strlen(s->dir);
	const char *slash;
	pid_t tid;
	int ret;

	snprintf(src, sizeof(src), "%s/vcpu%u", s->dir, n);
	snprintf(base, sizeof(base), "vcpu%u", n);
	ret = vcpu_thread_find(s->domain, s->pid, n, &tid, NULL);
	if (!ret)
		ret = qemu_task_cgroup(s->pid, tid, cur, sizeof(cur));
	if (ret)
		return ret;
	slash = strrchr(cur, '/');
	/* Only a leaf of ours: below the domain, called vcpuN, not libvirt's own group. */
	if (strncmp(cur, s->dir, len) || cur[len] != '/' || !strcmp(cur, src) ||
	    strcmp(slash + 1, base))
		return 0;
	ret = sync_copy(src, cur, s->flavor);
	if (ret && log)
		fprintf(log, "vsched: domain %s: copying the cap of %s to %s: %s\n", s->domain, src,
			cur, strerror(-ret));
	return ret;
}

/* libvirt's vCPU groups below dir: bit n set for vcpuN. */
static unsigned int sync_vcpus(const char *dir, unsigned char *have)
{
	struct dirent *e;
	unsigned int nr = 0;
	DIR *d = opendir(dir);

	memset(have, 0, SYNC_MAX_VCPUS);
	if (!d)
		return 0;
	while ((e = readdir(d))) {
		char *end;
		unsigned long n;

		if (strncmp(e->d_name, "vcpu", 4) || !e->d_name[4])
			continue;
		n = strtoul(e->d_name + 4, &end, 10);
		if (*end || n >= SYNC_MAX_VCPUS)
			continue;
		have[n] = 1;
		nr++;
	}
	closedir(d);
	return nr;
}

int libvirt_sync_once(const struct libvirt_sync *s, FILE *log)
{
	unsigned char have[SYNC_MAX_VCPUS];
	unsigned int n;
	int ret = 0, r;

	sync_vcpus(s->dir, have);
	for (n = 0; n < SYNC_MAX_VCPUS; n++)
		if (have[n] && (r = sync_vcpu(s, n, log)))
			ret = r;
	return ret;
}

/* Watches libvirt's cap files until QEMU exits. */
static void sync_watch(const struct libvirt_sync *s, FILE *log)
{
	static const char *const v1_files[] = { "cpu.cfs_quota_us", "cpu.cfs_period_us" };
	static const char *const v2_files[] = { "cpu.max" };
	const char *const *files = s->flavor == FS_V1 ? v1_files : v2_files;
	size_t nr_files = s->flavor == FS_V1 ? ARRAY_SIZE(v1_files) : ARRAY_SIZE(v2_files), k;
	unsigned char have[SYNC_MAX_VCPUS];
	int *wd_vcpu = calloc(SYNC_MAX_VCPUS * 2 + 8, sizeof(int));
	int ifd = inotify_init1(IN_CLOEXEC), pfd = (int)syscall(SYS_pidfd_open, s->pid, 0);
	unsigned int n;
	char p[PATH_MAX];

	if (!wd_vcpu || ifd < 0)
		goto out;
	sync_vcpus(s->dir, have);
	for (n = 0; n < SYNC_MAX_VCPUS; n++)
		for (k = 0; have[n] && k < nr_files; k++) {
			int wd;

			snprintf(p, sizeof(p), "%s/vcpu%u/%s", s->dir, n, files[k]);
			wd = inotify_add_watch(ifd, p, IN_MODIFY);
			if (wd >= 0 && wd < SYNC_MAX_VCPUS * 2 + 8)
				wd_vcpu[wd] = (int)n + 1;
		}
	/* Changes made before the watches existed. */
	libvirt_sync_once(s, log);
	for (;;) {
		struct pollfd fds[2] = { { ifd, POLLIN, 0 }, { pfd, POLLIN, 0 } };
		char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
		ssize_t len;
		char *e;

		/* Without a pidfd (kernel < 5.3), look for QEMU once a second. */
		if (poll(fds, pfd >= 0 ? 2 : 1, pfd >= 0 ? -1 : 1000) < 0 && errno != EINTR)
			break;
		if ((pfd >= 0 && fds[1].revents) || (pfd < 0 && kill(s->pid, 0)))
			break;
		if (!(fds[0].revents & POLLIN))
			continue;
		len = read(ifd, buf, sizeof(buf));
		for (e = buf; len > 0 && e < buf + len;) {
			const struct inotify_event *ev = (const void *)e;

			if (ev->wd >= 0 && ev->wd < SYNC_MAX_VCPUS * 2 + 8 && wd_vcpu[ev->wd])
				sync_vcpu(s, (unsigned int)wd_vcpu[ev->wd] - 1, log);
			e += sizeof(*ev) + ev->len;
		}
		if (log)
			fflush(log);
	}
out:
	free(wd_vcpu);
	if (ifd >= 0)
		close(ifd);
	if (pfd >= 0)
		close(pfd);
}

/*
 * The lock file holds the QEMU pid its holder serves: a holder for this QEMU means nothing to
 * do; one for an earlier QEMU of the same name is about to exit, so wait for it (2 s at most).
 * A holder removes the file when it exits, so a lock taken on a file no longer at path is
 * retried on the new one.
 */
static int sync_lock(const struct libvirt_sync *s, const char *path)
{
	struct timespec nap = { 0, 50000000 };
	struct stat a, b;
	char buf[32];
	int fd = -1, i;

	for (i = 0; i < 40; i++, nanosleep(&nap, NULL)) {
		if (fd < 0)
			fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
		if (fd < 0)
			return -1;
		if (flock(fd, LOCK_EX | LOCK_NB)) {
			if (!file_read(path, buf, sizeof(buf)) && atoi(buf) == s->pid)
				break;
			continue;
		}
		if (fstat(fd, &a) || stat(path, &b) || a.st_ino != b.st_ino) {
			close(fd);
			fd = -1;
			continue;
		}
		snprintf(buf, sizeof(buf), "%d\n", (int)s->pid);
		if (ftruncate(fd, 0) || pwrite(fd, buf, strlen(buf), 0) < 0)
			break;
		return fd;
	}
	if (fd >= 0)
		close(fd);
	return -1;
}

static void sync_daemon(const struct libvirt_sync *s)
{
	char dir[PATH_MAX], lock[PATH_MAX + 160], logp[PATH_MAX + 160];
	FILE *log;
	int fd;

	prctl(PR_SET_NAME, "vsched-sync");
	/* libvirt waits for the hook's stdout and stderr to close: let go of everything. */
	close_range(0, ~0U, 0);
	fd = open("/dev/null", O_RDWR);
	if (fd != 0 || dup2(fd, 1) != 1 || dup2(fd, 2) != 2)
		_exit(1);
	snprintf(dir, sizeof(dir), "%s/" SYNC_SUBDIR, registry_run_dir());
	if ((mkdir(registry_run_dir(), 0755) && errno != EEXIST) ||
	    (mkdir(dir, 0755) && errno != EEXIST))
		_exit(1);
	/* registry_name_valid(): a domain name has at most 128 bytes. */
	snprintf(lock, sizeof(lock), "%s/%s.lock", dir, s->domain);
	snprintf(logp, sizeof(logp), "%s/%s.log", dir, s->domain);
	if (sync_lock(s, lock) < 0)
		_exit(0);
	log = fopen(logp, "ae");
	sync_watch(s, log);
	/* Nothing to keep but what went wrong; the lock goes before it is let go. */
	if (log && !ftell(log))
		unlink(logp);
	if (log)
		fclose(log);
	unlink(lock);
	rmdir(dir);
	_exit(0);
}

int libvirt_sync_start(const struct libvirt_sync *s)
{
	pid_t child;
	int status;

	if (registry_name_valid(s->domain))
		return -EINVAL;
	child = fork();
	if (child < 0)
		return -errno;
	if (!child) {
		/* Twice, so the daemon is nobody's child and leaves no zombie. */
		setsid();
		if (fork() == 0)
			sync_daemon(s);
		_exit(0);
	}
	if (waitpid(child, &status, 0) < 0)
		return -errno;
	return 0;
}
