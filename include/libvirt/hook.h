/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `vsched hook`: a libvirt QEMU hook (installed as /etc/libvirt/hooks/qemu.d/vsched).
 * argv: guest name, operation, sub-operation, extra; the domain XML on stdin; exit 0 on success,
 * 1 on failure with the reason on stderr (libvirt logs it and, for prepare/start/started,
 * does not start the guest).
 */
#ifndef VSCHED_LIBVIRT_HOOK_H
#define VSCHED_LIBVIRT_HOOK_H

int cmd_hook(int argc, char **argv);

#endif
