/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The control directory: a cgroupfs-like FUSE file system for one VM's group tree.
 *
 * It is a thin layer: every read, write, mkdir and rmdir goes through the public C API
 * (vsched.h), which holds the tree's lock and uses the cftype table, so the directory formats
 * no value and parses none to write it. One read of a value is its own: before a write to
 * cgroup.threads, cgroup.procs or vsched.vcpus by an unprivileged caller, deleg.c reads which
 * vCPUs it would move (with sched/parse.h and util/cpuset.h, as those files do) to check the
 * kernel's delegation rule. The FUSE session runs in its own threads; the caller's threads
 * (vCPUs, signal handling) are not involved.
 *
 * A VM's directory defaults to <run dir>/<name>; the record of running VMs that `vsched list`
 * reads is util/registry.c.
 */
#ifndef VSCHED_CTL_CTL_H
#define VSCHED_CTL_CTL_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct vsched;
struct vsched_move_perm;
struct ctl;

/*
 * Mounts the control directory of vs on dir (created if missing, 0755) and serves it from a
 * thread of its own. A stale FUSE mount on dir (ENOTCONN, left by a killed VMM) is lazily
 * unmounted first. Returns 0 and the handle in *out, or -errno (nothing left mounted).
 */
int ctl_mount(struct vsched *vs, const char *dir, struct ctl **out);
/* Unmounts, stops the threads, removes dir if ctl_mount created it, frees c. NULL is a no-op. */
void ctl_unmount(struct ctl *c);
const char *ctl_dir(const struct ctl *c);

/*
 * Writes, mkdirs and rmdirs another owner serves (the host scheduler's directory sends those
 * below a VM group to its VMM): fn is asked first, after the permission checks; it returns 1
 * to let the directory apply the change as usual, else 0 or -errno as the change's result.
 * WRITE: group and file; MKDIR/RMDIR: group is the directory's path, file NULL. perm: for a
 * write that moves vCPUs, whether the writer may write each ancestor's cgroup.procs in this
 * directory, for the owner to check the move with (vsched_move_check_perm()); else NULL.
 */
enum ctl_fwd_op { CTL_FWD_WRITE, CTL_FWD_MKDIR, CTL_FWD_RMDIR };
typedef int (*ctl_forward_fn)(enum ctl_fwd_op op, const char *group, const char *file,
			      const char *buf, size_t len, const struct vsched_move_perm *perm,
			      void *arg);
void ctl_set_forward(struct ctl *c, ctl_forward_fn fn, void *arg);
/*
 * Forgets what chmod, chown and mkdir kept about path and below (modes, owners of files): the
 * group went without this directory's rmdir (a VM that left the host scheduler's tree). Call
 * without the tree's lock (this takes the directory's, which is taken before the tree's).
 */
void ctl_forget(struct ctl *c, const char *path);

/*
 * What the directory keeps about a node beyond the tree (chmod; chown of a file; who made a
 * group's files and its cpu.* files), saved across a restart of its server: the host
 * scheduler's <run dir>/.host-tree (host/host_owners.c). One record a line,
 * "KEY\tMODE\tOWNER\tFILES\tCPU_FILES": KEY the node's path ("/a", "/a/cpu.max"), MODE octal
 * (at most 07777), each owner "UID:GID" in decimal, "-" for none. A group directory's own
 * owner is the tree's (vsched_chown()), not in a record. Extended attributes are not saved.
 */
struct ctl_owner {
	bool set;
	uid_t uid;
	gid_t gid;
};

struct ctl_attr_rec {
	char key[PATH_MAX];
	bool has_mode;
	mode_t mode;
	struct ctl_owner owner, files, cpu_files;
};

/* r as one line, no newline: its length, or -EINVAL (a bad key, mode) / -ENAMETOOLONG. */
int ctl_attr_rec_format(const struct ctl_attr_rec *r, char *buf, size_t len);
/* One line (no newline) read back, every field checked: 0 or -EINVAL. */
int ctl_attr_rec_parse(const char *line, struct ctl_attr_rec *r);
/* An absolute path of '/'-separated names, none empty, ".", ".." or holding a tab or newline. */
bool ctl_attr_key_valid(const char *key);
/* Every record the directory keeps, one a line (malloc'ed; NULL: no memory). */
char *ctl_attrs_save(struct ctl *c);
/*
 * One record given back, replacing what was kept for its node: 0, -EINVAL (garbage; FILES or
 * CPU_FILES on a file), -ENOENT (no such node). Without the tree's lock, as ctl_forget().
 */
int ctl_attr_load(struct ctl *c, const char *line);

/* True if dir is a FUSE mount whose server is gone (stat() gives ENOTCONN). */
bool ctl_dir_is_stale(const char *dir);
/* Lazily unmounts a stale mount on dir; 0, or -errno if dir is stale and stays so. */
int ctl_dir_clean(const char *dir);

/*
 * What a VMM does at start: claim name, then (unless dir is "" for --no-ctl) mount the control
 * directory on dir, or on <run dir>/<name> when dir is NULL (util/registry.h). *out is NULL
 * without a directory. The name's record (`vsched list`) names the directory only once it is
 * mounted.
 * ctl_vm_stop() undoes both; safe to call with out == NULL after a failed start.
 */
int ctl_vm_start(struct vsched *vs, const char *name, const char *dir, struct ctl **out);
void ctl_vm_stop(const char *name, struct ctl *c);

#endif
