// SPDX-License-Identifier: GPL-2.0
/*
 * Mount lifecycle of a control directory: stale-mount cleanup, the FUSE session and the
 * threads that serve it, and a clean unmount at VMM exit.
 */
#include "ctl_fs.h"
#include <fuse_lowlevel.h>

#include <errno.h>
#include <poll.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "ctl/ctl.h"
#include "util/file.h"
#include "util/registry.h"
#include "util/time.h"

#define CTL_MAX_THREADS	8
#define CTL_JOIN_WAIT_S	3
#define FUSECTL_DIR	"/sys/fs/fuse/connections"

bool ctl_dir_is_stale(const char *dir)
{
	struct stat st;

	return stat(dir, &st) && errno == ENOTCONN;
}

int ctl_dir_clean(const char *dir)
{
	if (!ctl_dir_is_stale(dir))
		return 0;
	/* MNT_DETACH: the dead connection cannot answer, a plain umount could block. */
	if (umount2(dir, MNT_DETACH))
		return -errno;
	return ctl_dir_is_stale(dir) ? -EBUSY : 0;
}

/* True if dir is the root of a mount (another st_dev than its parent). */
static bool is_mount_point(const char *dir)
{
	char parent[PATH_MAX + 4];
	struct stat a, b;

	snprintf(parent, sizeof(parent), "%s/..", dir);
	if (stat(dir, &a) || stat(parent, &b))
		return false;
	return a.st_dev != b.st_dev || a.st_ino == b.st_ino;
}

static void *ctl_thread(void *arg)
{
	struct ctl *c = arg;
	struct fuse_loop_config *cfg = fuse_loop_cfg_create();

	if (cfg) {
		fuse_loop_cfg_set_max_threads(cfg, CTL_MAX_THREADS);
		fuse_loop_cfg_set_idle_threads(cfg, 2);
		fuse_loop_mt(c->fuse, cfg);
		fuse_loop_cfg_destroy(cfg);
	}
	pthread_mutex_lock(&c->lock);
	c->loop_done = true;
	pthread_cond_broadcast(&c->cond);
	pthread_mutex_unlock(&c->lock);
	return NULL;
}

int ctl_mount(struct vsched *vs, const char *dir, struct ctl **out)
{
	char *argv[] = { "vsched-ctl", "-o",
			 "allow_other,default_permissions,fsname=vsched,subtype=vsched", NULL };
	struct fuse_args args = FUSE_ARGS_INIT(3, argv);
	sigset_t all, old;
	struct stat st;
	struct ctl *c;
	int ret;

	if (!vs || !dir || !*dir)
		return -EINVAL;
	if (ctl_dir_is_stale(dir)) {
		ret = ctl_dir_clean(dir);
		if (ret)
			return ret;
	}
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->vs = vs;
	c->mount_time = time(NULL);
	pthread_mutex_init(&c->lock, NULL);
	pthread_cond_init(&c->cond, NULL);
	list_init(&c->files);
	ctl_attrs_init(c);
	if (!realpath(dir, c->dir)) {
		ret = file_mkdir_p(dir, 0755, &c->made_dirs);
		if (ret || !realpath(dir, c->dir)) {
			ret = ret ? ret : -errno;
			goto err_free;
		}
	}
	if (is_mount_point(c->dir)) {
		ret = -EBUSY;	/* a live file system is mounted there */
		goto err_rmdir;
	}

	c->fuse = fuse_new(&args, &ctl_fs_ops, sizeof(ctl_fs_ops), c);
	fuse_opt_free_args(&args);
	if (!c->fuse) {
		ret = -EINVAL;
		goto err_rmdir;
	}
	if (fuse_mount(c->fuse, c->dir)) {
		ret = -EIO;
		goto err_destroy;
	}
	/* The serving threads take no signals: SIGINT/SIGTERM belong to the VMM. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	vsched_set_events_fn(vs, ctl_fs_events, c);
	ret = -pthread_create(&c->thread, NULL, ctl_thread, c);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret)
		goto err_unmount;
	/* The connection number (for fusectl) is the mount's device minor. */
	if (!stat(c->dir, &st))
		c->dev = st.st_dev;
	*out = c;
	return 0;

err_unmount:
	vsched_set_events_fn(vs, NULL, NULL);
	fuse_unmount(c->fuse);
err_destroy:
	fuse_destroy(c->fuse);
err_rmdir:
	file_rmdir_made(c->dir, c->made_dirs);
err_free:
	ctl_attrs_free(c);
	pthread_cond_destroy(&c->cond);
	pthread_mutex_destroy(&c->lock);
	free(c);
	return ret;
}

const char *ctl_dir(const struct ctl *c)
{
	return c->dir;
}

void ctl_set_forward(struct ctl *c, ctl_forward_fn fn, void *arg)
{
	__atomic_store_n(&c->fwd_arg, arg, __ATOMIC_RELAXED);
	__atomic_store_n(&c->fwd, fn, __ATOMIC_RELEASE);
}

/*
 * A move is checked where it is made, by cgroup v2 delegation's rule with this directory's
 * owners and modes: the opener's permissions go with it (deleg.c, struct ctl_cred).
 */
int ctl_forward(struct ctl *c, enum ctl_fwd_op op, const char *group, const char *file,
		const char *buf, size_t len, const struct ctl_cred *cr)
{
	ctl_forward_fn fn = __atomic_load_n(&c->fwd, __ATOMIC_ACQUIRE);
	struct vsched_move_perm p = { NULL, 0 };
	int ret;

	if (!fn)
		return 1;
	if (op == CTL_FWD_WRITE && cr && vsched_file_moves_vcpus(file)) {
		ret = ctl_deleg_perm(c, group, cr, &p);
		if (ret)
			return ret;
	}
	ret = fn(op, group, file, buf, len, p.may ? &p : NULL,
		 __atomic_load_n(&c->fwd_arg, __ATOMIC_RELAXED));
	free((void *)p.may);
	return ret;
}

/* Waits up to CTL_JOIN_WAIT_S for the loop to end; false if it did not. */
static bool wait_loop_done(struct ctl *c)
{
	uint64_t end = time_now_on(CLOCK_REALTIME) + CTL_JOIN_WAIT_S * NSEC_PER_SEC;
	struct timespec ts = time_ns_to_ts(end);
	bool done;

	pthread_mutex_lock(&c->lock);
	while (!c->loop_done)
		if (pthread_cond_timedwait(&c->cond, &c->lock, &ts) == ETIMEDOUT)
			break;
	done = c->loop_done;
	pthread_mutex_unlock(&c->lock);
	return done;
}

/* Severs the FUSE connection through fusectl, mounting fusectl if needed. */
static void abort_connection(struct ctl *c)
{
	char path[96];
	FILE *f;

	snprintf(path, sizeof(path), FUSECTL_DIR "/%u/abort", minor(c->dev));
	if (access(path, W_OK))
		mount("fusectl", FUSECTL_DIR, "fusectl", 0, NULL);
	f = fopen(path, "we");
	if (f) {
		fputs("1", f);
		fclose(f);
	}
}

/* True if the session's /dev/fuse descriptor reports the connection gone (POLLERR). */
static bool connection_gone(struct ctl *c)
{
	struct pollfd pfd = { fuse_session_fd(fuse_get_session(c->fuse)), 0, 0 };

	return poll(&pfd, 1, 0) == 1 && (pfd.revents & POLLERR);
}

void ctl_unmount(struct ctl *c)
{
	if (!c)
		return;
	vsched_set_events_fn(c->vs, NULL, NULL);
	fuse_exit(c->fuse);
	/*
	 * Sever the connection through fusectl: the loop's blocked reads of /dev/fuse return at
	 * once, even while a process keeps a file open or its cwd inside. Without fusectl, a lazy
	 * unmount does it as soon as the mount has no users.
	 */
	if (c->dev)
		abort_connection(c);
	if (!wait_loop_done(c)) {
		umount2(c->dir, MNT_DETACH);
		wait_loop_done(c);
	}
	if (!c->loop_done) {
		/* Cannot happen short of a kernel without fusectl: leave the threads be. */
		pthread_detach(c->thread);
		return;
	}
	pthread_join(c->thread, NULL);
	/*
	 * fuse_unmount() closes the session's descriptor and unmounts, except when the descriptor
	 * shows POLLERR (then it assumes the mount is gone): detach it ourselves in that case.
	 */
	if (connection_gone(c)) {
		fuse_unmount(c->fuse);
		umount2(c->dir, MNT_DETACH);
	} else {
		fuse_unmount(c->fuse);
	}
	fuse_destroy(c->fuse);
	ctl_fs_release_all(c);
	ctl_attrs_free(c);
	file_rmdir_made(c->dir, c->made_dirs);
	pthread_cond_destroy(&c->cond);
	pthread_mutex_destroy(&c->lock);
	free(c);
}

int ctl_vm_start(struct vsched *vs, const char *name, const char *dir, struct ctl **out)
{
	char dflt[PATH_MAX], stale[PATH_MAX] = "";
	int ret;

	*out = NULL;
	if (!dir) {
		ret = registry_default_dir(name, dflt, sizeof(dflt));
		if (ret)
			return ret;
		dir = dflt;
	}
	/*
	 * Claim the name with no directory yet: `vsched list` shows the directory only once it is
	 * mounted (a reader that found it listed earlier read a stale or empty mount point).
	 */
	ret = registry_register(name, "", stale, sizeof(stale));
	/* The previous VMM of this name died without cleaning up. */
	if (stale[0])
		ctl_dir_clean(stale);
	if (ret || !*dir)
		return ret;
	ret = ctl_mount(vs, dir, out);
	if (ret) {
		registry_unregister(name);
		return ret;
	}
	/* Now the directory answers: record the canonical path the mount ended up on. */
	ret = registry_register(name, ctl_dir(*out), NULL, 0);
	if (ret) {
		ctl_vm_stop(name, *out);
		*out = NULL;
	}
	return ret;
}

void ctl_vm_stop(const char *name, struct ctl *c)
{
	char dflt[PATH_MAX], canon[PATH_MAX];
	bool is_dflt;

	/* The default directory is vsched's own, even if a dead VMM of this name made it. */
	is_dflt = c && !registry_default_dir(name, dflt, sizeof(dflt)) && realpath(dflt, canon) &&
		  !strcmp(canon, ctl_dir(c));
	ctl_unmount(c);
	if (is_dflt)
		rmdir(dflt);
	registry_unregister(name);
}
