/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Keeping libvirt's per-vCPU caps on moved vCPUs. libvirt writes <period>/<quota>, and later
 * `virsh schedinfo DOMAIN --live vcpu_period=.. vcpu_quota=..`, into its own vcpuN groups,
 * wherever the vCPU threads are at that moment. vsched moves an assigned vCPU into a leaf
 * G/vcpuN of its group G, so the leaf copies libvirt's vcpuN values: at every apply (the hook's
 * started/reconnect, `vsched apply`), and in between through a small process per domain that
 * watches libvirt's vcpuN files (inotify) and copies each change into the leaf holding that
 * vCPU now. It exits with QEMU; a lock keeps it to one per domain.
 */
#ifndef VSCHED_LIBVIRT_LIBVIRT_SYNC_H
#define VSCHED_LIBVIRT_LIBVIRT_SYNC_H

#include <stdio.h>
#include <sys/types.h>

#include "libvirt/fsops.h"

struct libvirt_sync {
	const char *domain;	/* libvirt's name: status file, lock and log names */
	pid_t pid;		/* QEMU */
	const char *dir;	/* the domain's cgroup (the parent of libvirt's vcpuN) */
	enum fs_flavor flavor;
};

/*
 * Copies libvirt's cap of every vCPU that sits in a vsched leaf (a group vcpuN below dir that
 * is not libvirt's dir/vcpuN) into that leaf. Problems go to log (may be NULL). 0 or -errno
 * (the last failure).
 */
int libvirt_sync_once(const struct libvirt_sync *s, FILE *log);
/*
 * Starts the watching process in the background (detached, stdio closed, log in
 * <run dir>/.libvirt-sync/<domain>.log) unless one runs for this QEMU process. 0 or -errno.
 */
int libvirt_sync_start(const struct libvirt_sync *s);

#endif
