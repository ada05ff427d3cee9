/* SPDX-License-Identifier: GPL-2.0 */
/* Port I/O and MMIO dispatch: sorted range tables, unhandled accesses read as all-ones. */
#ifndef VSCHED_VMM_IOPORT_H
#define VSCHED_VMM_IOPORT_H

#include <stdbool.h>
#include <stdint.h>

#include "vmm/vm.h"

/* Dispatch one access; 0 when a handler took it, -ENOENT when nobody did (data then reads
 * as all-ones and the access is logged, rate-limited). */
int ioport_dispatch(struct vcpu *vcpu, uint16_t port, void *data, unsigned int size,
		    bool is_write);
int mmio_dispatch(struct vcpu *vcpu, uint64_t addr, void *data, unsigned int size,
		  bool is_write);
void ioport_free(struct vm *vm);

#endif
