/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The libvirt QEMU hook behind `vsched hook` (cmd/cmd_hook.c; installed as
 * /etc/libvirt/hooks/qemu.d/vsched). libvirt passes the guest name, operation, sub-operation and
 * extra, and the domain XML on stdin; exit 0 on success, 1 on failure with the reason on stderr
 * (libvirt logs it and, for prepare/start/started, does not start the guest).
 */
#ifndef VSCHED_LIBVIRT_HOOK_H
#define VSCHED_LIBVIRT_HOOK_H

#include <stddef.h>

#include "libvirt/xmlutil.h"

enum hook_action {
	HOOK_NONE,
	HOOK_VALIDATE,
	HOOK_APPLY,
	HOOK_REAPPLY,		/* apply, report errors, exit 0 */
};

/* What the hook does for libvirt's operation and sub-operation. */
enum hook_action hook_action(const char *op, const char *sub);
/* Does it for guest name, its domain XML xml[0..len). 0 or -errno, the reason in d. */
int hook_run(const char *name, enum hook_action action, const char *xml, size_t len,
	     struct diag *d);

#endif
