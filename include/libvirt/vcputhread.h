/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Finding the host thread of vCPU n of a VMM process:
 *  1. QEMU's own mapping (QMP query-cpus-fast), as libvirt records it in its status file
 *     <libvirt run dir>/<domain>.xml: <vcpus><vcpu id='n' pid='TID'/>. A hook may not call back
 *     into libvirt (libvirt holds the domain's job while the hook runs), so this is how a hook
 *     reaches QEMU's mapping; the file is checked to belong to this QEMU process.
 *  2. Thread names: "vcpuN" (vsched) or "CPU N/<accelerator>" (QEMU: KVM, TCG, HVF, ...).
 * Never by position: KVM's kvm-nx-lpage-re kernel thread sits in a vCPU's group too.
 */
#ifndef VSCHED_LIBVIRT_VCPUTHREAD_H
#define VSCHED_LIBVIRT_VCPUTHREAD_H

#include <stddef.h>
#include <sys/types.h>

#include "util/diag.h"

/*
 * TID of vCPU n of process pid; domain (may be NULL) names libvirt's status file. 0, or -ESRCH
 * with what was looked for in d (may be NULL).
 */
int vcpu_thread_find(const char *domain, pid_t pid, unsigned int vcpu, pid_t *tid,
		     struct diag *d);

#endif
