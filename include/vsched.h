/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vsched public C API: the group tree of one VM, driven like cgroupfs.
 *
 * One struct vsched per VM wraps the scheduler core's struct sched with a mutex. The control
 * directory (FUSE threads), the CLI, the domain XML code and programs linking libvsched all call
 * these functions, so every way in parses and formats through the same cftype table
 * (sched/cftype.h) and sees the same errors.
 *
 * Conventions:
 *  - Functions return 0 (or a length) on success and -errno on failure, with the kernel's errno
 *    for the same operation on cgroupfs (e.g. writing "0" to cpu.weight gives -ERANGE). A failed
 *    call changes nothing. Nothing here prints.
 *  - A path names a group: "" or "/" is the root (the whole VM), "a/b" or "/a/b" a nested group.
 *    It resolves as the VFS resolves one on cgroupfs: runs of '/' and a trailing '/' do not
 *    matter, "." is the group reached so far and ".." its parent (the root's ".." is the root),
 *    a missing component is -ENOENT (one before ".." too), a file used as a directory -ENOTDIR.
 *    A path of 4096 bytes or more (without leading and trailing slashes) is -ENAMETOOLONG for
 *    every call. A file is named by its cgroupfs name
 *    ("cpu.max"); docs/interface-files.md lists them with formats and errnos.
 *  - A NULL handle, path, value, callback or result pointer is -EINVAL (a buffer may be NULL
 *    when its length is 0), a NULL file -ENOENT as a missing one (where NULL does not name
 *    the group itself); functions that return nothing then do nothing, vsched_mutex() and
 *    vsched_sched() return NULL. A handle
 *    already destroyed is refused the same way as long as its memory was not reused (best
 *    effort: it is still the caller's bug).
 *  - All functions take the VM's lock themselves; do not call them while holding it
 *    (vsched_lock()), or from a listing callback.
 *  - Time for cpu.stat reads comes from CLOCK_MONOTONIC unless vsched_set_clock() says otherwise
 *    (the simulator passes its virtual clock); it must be the time base the core is fed with.
 *    Before a change (write, assign, mkdir, rmdir) the core's clock is advanced to that time
 *    (sched_advance()), so the change takes effect "now" (sched/core.h).
 */
#ifndef VSCHED_H
#define VSCHED_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct vsched;
struct sched;

/* Lifetime. nr_vcpus (1..1024) vCPUs start in the root group. NULL with errno set on failure. */
struct vsched *vsched_create(unsigned int nr_lanes, unsigned int nr_vcpus);
void vsched_destroy(struct vsched *vs);

/* Identity of the VMM's threads, shown in cgroup.procs / cgroup.threads. */
int vsched_set_pid(struct vsched *vs, pid_t pid);
int vsched_set_vcpu_tid(struct vsched *vs, unsigned int vcpu, pid_t tid);	/* -ERANGE vcpu */

/* Groups, as mkdir(2)/rmdir(2) on cgroupfs. mkdir: -ENOENT parent, -ENOTDIR, -EEXIST (also
 * ".", ".." and the root), -EINVAL name, -EAGAIN cgroup.max.depth/descendants, -ENAMETOOLONG.
 * rmdir: -ENOENT, -ENOTDIR, -EBUSY (populated, has children, or the root), -EINVAL (last
 * component "."), -ENOTEMPTY (".."), -ENAMETOOLONG. */
int vsched_mkdir(struct vsched *vs, const char *path);
int vsched_rmdir(struct vsched *vs, const char *path);
/* mkdir, then "threaded" into its cgroup.type, so single vCPUs can move into it, in one step:
 * no other call sees the group in between. If the type change is refused (-EOPNOTSUPP) the group
 * is not made and nothing is notified; on success MKDIR, then WRITE of cgroup.type. */
int vsched_mkdir_threaded(struct vsched *vs, const char *path);

/*
 * Reads a whole file into buf (NUL-terminated). Returns its length; -ENOENT (no such group or
 * file in that group), -EACCES (not readable), -EOPNOTSUPP (cgroup.procs of a threaded group),
 * -ENOSPC (buf too small: retry larger, or use vsched_read_alloc()).
 */
ssize_t vsched_read(struct vsched *vs, const char *path, const char *file, char *buf, size_t len);
/* Same, into a malloc()ed buffer the caller frees: one consistent snapshot of the file. *out
 * is NULL after a failure. */
ssize_t vsched_read_alloc(struct vsched *vs, const char *path, const char *file, char **out);

/*
 * Writes one value, as write(2) on cgroupfs: returns len on success, 0 for len == 0 (no
 * effect), -E2BIG above 4096 bytes, -EINVAL for read-only files, -ENOENT, else the file's
 * errno. Success triggers the change callback.
 */
ssize_t vsched_write(struct vsched *vs, const char *path, const char *file, const char *buf,
		     size_t len);
/*
 * vsched_write() of a file whose writes move vCPUs (cgroup.procs, cgroup.threads, vsched.vcpus),
 * with a check made under the same lock, right before the move, so that no other change lands
 * in between: check is called for each vCPU the write names (one already in path too, as the
 * kernel checks a task moved where it is), with the depth (0: the root) of the nearest group
 * holding both its group and path; 0 lets the write go on, -errno refuses it (nothing
 * changes). For rules that depend on the tree, such as cgroup v2 delegation's (the control
 * directory). A write the file refuses anyway (syntax, no such thread) is not checked: it gets
 * the file's own errno. Any other file: vsched_write().
 */
typedef int (*vsched_move_check_fn)(unsigned int depth, void *arg);
ssize_t vsched_write_move(struct vsched *vs, const char *path, const char *file, const char *buf,
			  size_t len, vsched_move_check_fn check, void *arg);
/*
 * cgroup v2 delegation's check for vsched_write_move() (__cgroup_procs_write(): moving a thread
 * needs write access to cgroup.procs of the common ancestor of its source and destination),
 * with the writer's permissions looked up beforehand: arg a struct vsched_move_perm whose
 * may[d] says whether the writer may write cgroup.procs of the destination's ancestor at depth
 * d (0: the root). 0, or -EACCES. The VM's control directory and a move forwarded from the
 * host scheduler's directory (sched/runtime/rt_remote_ctl.c) both check with it.
 */
struct vsched_move_perm {
	const bool *may;
	unsigned int nr;
};
int vsched_move_check_perm(unsigned int depth, void *arg);
/* Whether writes to files called file move vCPUs (the files vsched_write_move() checks). */
bool vsched_file_moves_vcpus(const char *file);
/*
 * Whether files called file are the cpu controller's: a group has them while its parent has
 * "cpu" in cgroup.subtree_control, and they are made anew when it is enabled. cpu.stat is not
 * one: it is a core file every group has.
 */
bool vsched_file_is_cpu(const char *file);
/* Convenience: vsched_write() of a C string; 0 on success. */
int vsched_write_str(struct vsched *vs, const char *path, const char *file, const char *value);

/* Moves the vCPUs in cpuset (libvirt syntax, "0-3,^2") into path; same rules as vsched.vcpus. */
int vsched_assign(struct vsched *vs, const char *cpuset, const char *path);

/* Listings for directory views. Callbacks run under the lock: copy, do not call back in.
 * A non-zero return from the callback stops the walk and is returned. */
typedef int (*vsched_name_fn)(const char *name, mode_t mode, void *arg);
int vsched_list_children(struct vsched *vs, const char *path, vsched_name_fn fn, void *arg);
int vsched_list_files(struct vsched *vs, const char *path, vsched_name_fn fn, void *arg);
/* The mode of a group directory (file == NULL: S_IFDIR | 0755) or of one of its files
 * (S_IFREG | 0644 / 0444), or -ENOENT. */
int vsched_stat(struct vsched *vs, const char *path, const char *file, mode_t *mode);

/*
 * The identity of a group directory (file == NULL) or of one of its files, as kernfs has one
 * node per file: never the same for two nodes of one VM, even of one name (a group removed and
 * made again; a cpu.* file after -cpu and +cpu on the parent). 0 or -ENOENT. An open file whose
 * identity changed under it answers ENODEV on cgroupfs; the control directory checks this.
 */
int vsched_node_id(struct vsched *vs, const char *path, const char *file, uint64_t *id);

/* Delegation: the owner of a group directory (chown on cgroupfs). */
int vsched_chown(struct vsched *vs, const char *path, uid_t uid, gid_t gid);
int vsched_owner(struct vsched *vs, const char *path, uid_t *uid, gid_t *gid);

/*
 * Change notification, called after a successful change, outside the lock (so it may lock and
 * call the core, e.g. to kick vCPUs so the change takes effect within one slice). path is the
 * group's own path, however the caller spelled it ("a", "/a/", "//a" and "b/../a" all arrive
 * as "/a"; the root as "/"), file the file written (NULL for mkdir/rmdir/assign).
 */
enum vsched_event {
	VSCHED_EV_WRITE,	/* a file was written */
	VSCHED_EV_MKDIR,
	VSCHED_EV_RMDIR,
	VSCHED_EV_ASSIGN	/* vCPUs moved by vsched_assign(); no comma: C89/C++98 */
};
typedef void (*vsched_notify_fn)(struct vsched *vs, enum vsched_event ev, const char *path,
				 const char *file, void *arg);
void vsched_set_notify(struct vsched *vs, vsched_notify_fn fn, void *arg);

/*
 * File events, as kernfs_notify() raises them for poll(2): the event count of a file (1 plus
 * the times its content changed by an event; only cgroup.events has them, when populated
 * changes), 0 or -ENOENT; and a callback run after any call that raised one, with the VM's
 * lock held, so it must not call this API (the control directory wakes its pollers). One
 * callback per VM; NULL removes it, and once that returns the old one runs no more.
 */
int vsched_file_events(struct vsched *vs, const char *path, const char *file, uint64_t *events);
typedef void (*vsched_events_fn)(struct vsched *vs, void *arg);
void vsched_set_events_fn(struct vsched *vs, vsched_events_fn fn, void *arg);

/*
 * Time source for cpu.stat and changes (default: CLOCK_MONOTONIC in ns). Called under the lock
 * before every read and change, so it may bring the core up to date first: the runtime charges
 * what the vCPUs inside KVM_RUN ran so far (runtime_bind()).
 */
typedef uint64_t (*vsched_clock_fn)(void *arg);
void vsched_set_clock(struct vsched *vs, vsched_clock_fn fn, void *arg);

/*
 * Called by vsched_unlock() once the lock is dropped (NULL: nothing): what the clock above
 * queued under the lock is sent then (host mode's reports to the daemon, runtime_bind()).
 */
typedef void (*vsched_unlocked_fn)(void *arg);
void vsched_set_unlocked(struct vsched *vs, vsched_unlocked_fn fn, void *arg);

/*
 * For the runtime and simulator: call scheduler-core functions on the tree under the lock.
 * Take the mutex with vsched_lock() or util/debug.h's mutex_lock(): debug builds check that the
 * caller of the core holds it, and know only holders taken that way.
 */
void vsched_lock(struct vsched *vs);
void vsched_unlock(struct vsched *vs);
pthread_mutex_t *vsched_mutex(struct vsched *vs);
struct sched *vsched_sched(struct vsched *vs);	/* use only while holding the lock */

#ifdef __cplusplus
}
#endif

#endif
