/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The control directory: a cgroupfs-like FUSE file system for one VM's group tree.
 *
 * It is a thin layer: every read, write, mkdir and rmdir goes through the public C API
 * (vsched.h), which holds the tree's lock and uses the cftype table, so the directory never
 * parses or formats a value itself. The FUSE session runs in its own threads; the caller's
 * threads (vCPUs, signal handling) are not involved.
 *
 * Lifecycle helpers for a VM's directory (default /run/vsched/<name>) and the record of running
 * VMs that `vsched list` reads are in ctl/registry.c.
 */
#ifndef VSCHED_CTL_CTL_H
#define VSCHED_CTL_CTL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct vsched;
struct ctl;

#define CTL_RUN_DIR_DFL	"/run/vsched"	/* $VSCHED_RUN_DIR overrides (tests) */

/*
 * Mounts the control directory of vs on dir (created if missing, 0755) and serves it from a
 * thread of its own. A stale FUSE mount on dir (ENOTCONN, left by a killed VMM) is lazily
 * unmounted first. Returns 0 and the handle in *out, or -errno (nothing left mounted).
 */
int ctl_mount(struct vsched *vs, const char *dir, struct ctl **out);
/* Unmounts, stops the threads, removes dir if ctl_mount created it, frees c. NULL is a no-op. */
void ctl_unmount(struct ctl *c);
const char *ctl_dir(const struct ctl *c);

/* True if dir is a FUSE mount whose server is gone (stat() gives ENOTCONN). */
bool ctl_dir_is_stale(const char *dir);
/* Lazily unmounts a stale mount on dir; 0, or -errno if dir is stale and stays so. */
int ctl_dir_clean(const char *dir);

/*
 * Registry of running VMs: one record per VM name under <run dir>/.vms/, holding the VMM's
 * pid (with its start time, so a reused pid is not mistaken for the VMM) and its control
 * directory ("" when run with --no-ctl).
 */
const char *ctl_run_dir(void);
int ctl_name_valid(const char *name);	/* 0 or -EINVAL: 1..128 printable, no '/', no leading '.' */
/* Default control directory of a VM: <run dir>/<name>. */
int ctl_default_dir(const char *name, char *buf, size_t len);
/*
 * Claims name for this process: -EEXIST if a live VMM holds it; a dead holder's record is
 * replaced and its stale mount (if any) cleaned. ctl_dir may be NULL (--no-ctl).
 */
int ctl_register(const char *name, const char *ctl_dir);
void ctl_unregister(const char *name);

/*
 * What a VMM does at start: claim name, then (unless dir is "" for --no-ctl) mount the control
 * directory on dir, or on <run dir>/<name> when dir is NULL. *out is NULL without a directory.
 * ctl_vm_stop() undoes both; safe to call with out == NULL after a failed start.
 */
int ctl_vm_start(struct vsched *vs, const char *name, const char *dir, struct ctl **out);
void ctl_vm_stop(const char *name, struct ctl *c);

/* For `vsched run` (ctl/vm_ctl.c): --name, --ctl-dir, --no-ctl. */
struct vm;
struct vm_ctl_opts {
	const char *name;
	bool name_given;	/* false: "vm" was the default, a taken one becomes "vm-<pid>" */
	const char *dir;	/* --ctl-dir, NULL for <run dir>/<name> */
	bool no_ctl;
};
struct vm_ctl {
	char name[160];		/* the name registered */
	struct ctl *ctl;	/* NULL without a directory */
	int mount_err;		/* why the default directory could not be mounted, or 0 */
	bool started;
};
/*
 * After vm_start(): waits for the vCPU threads' TIDs, puts them and the pid into vs, claims the
 * name and mounts the directory. If the default directory cannot be mounted (no FUSE), the VM
 * is registered without one and vc->mount_err says why; an explicit --ctl-dir must mount.
 * -EINVAL name, -EEXIST name taken by a live VMM, -ETIMEDOUT vCPU threads did not start,
 * -ECANCELED the VM stopped meanwhile, or a mount error.
 */
int vm_ctl_start(struct vm *vm, struct vsched *vs, const struct vm_ctl_opts *o, struct vm_ctl *vc);
void vm_ctl_stop(struct vm_ctl *vc);

/*
 * Calls fn for every running VM's record, in name order (ctl "" for a VM without a control
 * directory), until fn returns nonzero, which is returned. -errno if the registry cannot be read
 * (a missing registry is no VM: 0).
 */
typedef int (*ctl_vm_fn)(const char *name, pid_t pid, const char *ctl, void *arg);
int ctl_registry_each(ctl_vm_fn fn, void *arg);

/* `vsched list`: running VMs, their pids and control directories. */
int cmd_list(int argc, char **argv);

#endif
