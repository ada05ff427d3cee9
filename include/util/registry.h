/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Registry of running VMs: one record per VM name under <run dir>/.vms/, holding the VMM's
 * pid (with its start time, so a reused pid is not mistaken for the VMM) and its control
 * directory ("" when run with --no-ctl). `vsched run` claims a name, `vsched list` reads the
 * records, the libvirt hook and `vsched apply` find a VM's directory by its name.
 */
#ifndef VSCHED_UTIL_REGISTRY_H
#define VSCHED_UTIL_REGISTRY_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define REGISTRY_RUN_DIR_DFL	"/run/vsched"	/* $VSCHED_RUN_DIR overrides (tests) */

/* The run dir's own entries beside the VMs' directories: the host scheduler's (`vsched host`). */
#define REGISTRY_HOST_DIR	"host"		/* its control directory */
#define REGISTRY_HOST_SOCK	"host.sock"	/* its socket */
#define REGISTRY_HOST_TREE	".host-tree"	/* its tree above the VMs (no VM's name) */

const char *registry_run_dir(void);
/*
 * <run dir>/host into buf; 0 when a daemon's control directory is mounted there (another
 * device than the run dir's; *dev set to it if dev), else -ENOENT (or -ENAMETOOLONG).
 */
int registry_host_dir(char *buf, size_t len, dev_t *dev);
/* 0 or -EINVAL: 1..128 printable characters, no '/', no leading '.' (a libvirt domain name). */
int registry_name_valid(const char *name);
/*
 * Start time of pid in clock ticks since boot (/proc/pid/stat), 0 if it is gone or exited: with
 * the pid, a process's identity for this boot (the registry's records, the host scheduler's
 * owners kept for a VMM that re-joins).
 */
unsigned long long registry_pid_start(pid_t pid);
/* Whether <run dir>/<name> is the run dir's own (REGISTRY_HOST_*): no VM's directory. */
bool registry_name_reserved(const char *name);
/*
 * Default control directory of a VM: <run dir>/<name>. 0, -EINVAL (also for a reserved name: a
 * VM named host.sock mounted its directory over the host scheduler's socket) or -ENAMETOOLONG.
 */
int registry_default_dir(const char *name, char *buf, size_t len);
/*
 * Claims name for this process: -EEXIST if a live VMM holds it. A dead holder's record is
 * replaced; its control directory is copied to stale (if given; "" otherwise), where the caller
 * cleans a stale mount. ctl_dir may be NULL (--no-ctl).
 */
int registry_register(const char *name, const char *ctl_dir, char *stale, size_t stale_len);
/* Whether a live VMM other than this process holds name: -EEXIST if so, else 0 (or -EINVAL). */
int registry_check_free(const char *name);
#define REGISTRY_HOST_LEN	256	/* a VM group path in the host scheduler's tree, NUL included */
/*
 * Notes in this process's record of name that the VM joined the host scheduler as group
 * ("/machine/web1"; `vsched list` shows it). 0, -EINVAL, -EPERM (not ours) or -errno.
 */
int registry_set_host(const char *name, const char *group);
/* Removes this process's record of name (not a newer VMM's). */
void registry_unregister(const char *name);

struct registry_entry {
	const char *name;
	pid_t pid;
	const char *ctl;	/* control directory, "" for none */
	const char *host;	/* the VM group in the host scheduler's tree, "" when embedded */
	bool alive;		/* false: a VMM that died without cleaning up (stale) */
};
/*
 * Calls fn for every record, by name; stops at fn's first nonzero return and returns it.
 * 0 (also when no VM ever ran) or -errno if the registry cannot be read.
 */
int registry_list(int (*fn)(const struct registry_entry *e, void *arg), void *arg);

#endif
