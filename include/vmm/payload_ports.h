/* SPDX-License-Identifier: GPL-2.0 */
/* The payload guests' paravirtual ports (hello, sleep, io, exit) on the VMM side. */
#ifndef VSCHED_VMM_PAYLOAD_PORTS_H
#define VSCHED_VMM_PAYLOAD_PORTS_H

#include "vmm/vm.h"

int payload_ports_register(struct vm *vm);

#endif
