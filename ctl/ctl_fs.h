/* SPDX-License-Identifier: GPL-2.0 */
/* Private to ctl/: the mounted instance and the FUSE operations that serve it. */
#ifndef VSCHED_CTL_FS_H
#define VSCHED_CTL_FS_H

#define FUSE_USE_VERSION 312
#include <fuse.h>

#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <sys/types.h>
#include <time.h>

#include "util/list.h"

struct vsched;

struct ctl {
	struct vsched *vs;
	struct fuse *fuse;
	pthread_t thread;
	char dir[PATH_MAX];
	bool created_dir;	/* ctl_mount made dir, so ctl_unmount removes it */
	dev_t dev;		/* of the mount: its minor is the fusectl connection number */
	time_t mount_time;	/* shown as every node's timestamps */

	pthread_mutex_t lock;	/* guards loop_done and files */
	pthread_cond_t cond;
	bool loop_done;
	struct list_head files;	/* open handles; freed at unmount if never released */
};

extern const struct fuse_operations ctl_fs_ops;
/* Frees the handles a severed connection never released (after the loop has ended). */
void ctl_fs_release_all(struct ctl *c);
int ctl_mkdir_p(const char *dir, mode_t mode, bool *created);

/* Delegation (deleg.c): the owner of file name; *uid and *gid come in as the group's. */
void ctl_file_owner(struct vsched *vs, const char *group, const char *name, uid_t *uid,
		    gid_t *gid);
/* 0 if uid may make the vCPU move that writing buf to group/name asks for, else -EACCES. */
int ctl_move_permitted(struct vsched *vs, const char *group, const char *name, const char *buf,
		       size_t len, uid_t uid);

#endif
