/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Finding what libvirt made for a running QEMU domain: the QEMU process (libvirt's pid file) and
 * the domain's cgroup in the host's cpu hierarchy (v1 "cpu" or v2), where the hook applies the
 * plan so QEMU domains get per-vCPU groups too.
 */
#ifndef VSCHED_LIBVIRT_QEMU_H
#define VSCHED_LIBVIRT_QEMU_H

#include <stddef.h>
#include <sys/types.h>

#include "libvirt/fsops.h"

/* libvirt's runtime directory; $VSCHED_LIBVIRT_RUNDIR overrides it (tests). */
#define QEMU_RUNDIR_DFL		"/run/libvirt/qemu"

/* The QEMU pid of domain name from <rundir>/<name>.pid; 0 or -errno. */
int qemu_domain_pid(const char *name, pid_t *pid);
/*
 * The domain's cgroup directory (the parent of libvirt's emulator/vcpuN groups) in the cpu
 * hierarchy, found from /proc/<pid>/cgroup and /proc/self/mountinfo. 0 or -errno.
 */
int qemu_domain_cgroup(pid_t pid, char *dir, size_t len);
/* The directory of a process (tid 0) or one of its threads in the cpu hierarchy. 0 or -errno. */
int qemu_task_cgroup(pid_t pid, pid_t tid, char *dir, size_t len);
/* The flavour of the host's cpu controller: v1 if a v1 hierarchy has it mounted. */
enum fs_flavor qemu_host_flavor(void);

#endif
