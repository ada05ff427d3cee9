// SPDX-License-Identifier: GPL-2.0
/*
 * Port I/O and MMIO dispatch. Devices register ranges before the vCPUs start; the tables
 * are then read-only, so vCPU threads search them without a lock. An access nobody
 * registered reads as all-ones, as on a PC bus with nothing behind the address, and is
 * logged at most a few times a second.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/ratelimit.h"
#include "util/time.h"
#include "vmm/ioport.h"

struct vm_io_range {
	uint64_t base;
	uint64_t len;
	union {
		pio_fn pio;
		mmio_fn mmio;
	};
	void *opaque;
};

static pthread_mutex_t unhandled_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ratelimit unhandled_rl = RATELIMIT_INIT(1000000000ULL, 5);

static int io_insert(struct vm_io_range **tab, unsigned int *nr, uint64_t base, uint64_t len,
		     void *fn, void *opaque)
{
	struct vm_io_range *t;
	unsigned int i;

	if (!len || base + len < base || !fn)
		return -EINVAL;
	for (i = 0; i < *nr; i++) {
		if (base < (*tab)[i].base + (*tab)[i].len && (*tab)[i].base < base + len)
			return -EBUSY;
		if ((*tab)[i].base > base)
			break;
	}
	t = realloc(*tab, (*nr + 1) * sizeof(*t));
	if (!t)
		return -ENOMEM;
	memmove(&t[i + 1], &t[i], (*nr - i) * sizeof(*t));
	t[i] = (struct vm_io_range){ .base = base, .len = len, .opaque = opaque };
	t[i].pio = (pio_fn)fn;
	*tab = t;
	(*nr)++;
	return 0;
}

static struct vm_io_range *io_find(struct vm_io_range *tab, unsigned int nr, uint64_t addr)
{
	unsigned int lo = 0, hi = nr;

	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (addr < tab[mid].base)
			hi = mid;
		else if (addr >= tab[mid].base + tab[mid].len)
			lo = mid + 1;
		else
			return &tab[mid];
	}
	return NULL;
}

int vm_pio_register(struct vm *vm, uint16_t base, uint16_t len, pio_fn fn, void *opaque)
{
	if ((uint32_t)base + len > 0x10000)
		return -EINVAL;
	return io_insert(&vm->pio, &vm->nr_pio, base, len, (void *)fn, opaque);
}

int vm_mmio_register(struct vm *vm, uint64_t base, uint64_t len, mmio_fn fn, void *opaque)
{
	return io_insert(&vm->mmio, &vm->nr_mmio, base, len, (void *)fn, opaque);
}

void ioport_free(struct vm *vm)
{
	free(vm->pio);
	free(vm->mmio);
	vm->pio = vm->mmio = NULL;
	vm->nr_pio = vm->nr_mmio = 0;
}

static void io_unhandled(struct vcpu *vcpu, const char *bus, uint64_t addr, void *data,
			 unsigned int size, bool is_write)
{
	uint64_t val = 0, missed = 0, now;
	bool log;

	vcpu->stats.unhandled++;
	if (!is_write)
		memset(data, 0xff, size);
	else
		memcpy(&val, data, size < sizeof(val) ? size : sizeof(val));
	now = time_mono_ns();
	pthread_mutex_lock(&unhandled_lock);
	log = ratelimit_allow(&unhandled_rl, now);
	if (log)
		missed = ratelimit_take_missed(&unhandled_rl);
	pthread_mutex_unlock(&unhandled_lock);
	if (!log)
		return;
	if (is_write)
		fprintf(stderr, "vsched: vcpu%u: unhandled %s write %#" PRIx64 " size %u value %#" PRIx64,
			vcpu->id, bus, addr, size, val);
	else
		fprintf(stderr, "vsched: vcpu%u: unhandled %s read %#" PRIx64 " size %u (all-ones)",
			vcpu->id, bus, addr, size);
	if (missed)
		fprintf(stderr, " (%" PRIu64 " more suppressed)", missed);
	fprintf(stderr, "\n");
}

static void io_failed(struct vcpu *vcpu, const char *bus, uint64_t addr, int err)
{
	fprintf(stderr, "vsched: vcpu%u: %s %#" PRIx64 ": handler failed: %s\n", vcpu->id, bus,
		addr, strerror(-err));
}

int ioport_dispatch(struct vcpu *vcpu, uint16_t port, void *data, unsigned int size,
		    bool is_write)
{
	struct vm *vm = vcpu->vm;
	struct vm_io_range *r = io_find(vm->pio, vm->nr_pio, port);
	int ret;

	if (!r) {
		io_unhandled(vcpu, "port", port, data, size, is_write);
		return -ENOENT;
	}
	ret = r->pio(vcpu, port, data, size, is_write, r->opaque);
	if (ret)
		io_failed(vcpu, "port", port, ret);
	return ret;
}

int mmio_dispatch(struct vcpu *vcpu, uint64_t addr, void *data, unsigned int size,
		  bool is_write)
{
	struct vm *vm = vcpu->vm;
	struct vm_io_range *r = io_find(vm->mmio, vm->nr_mmio, addr);
	int ret;

	if (!r) {
		io_unhandled(vcpu, "mmio", addr, data, size, is_write);
		return -ENOENT;
	}
	ret = r->mmio(vcpu, addr, data, size, is_write, r->opaque);
	if (ret)
		io_failed(vcpu, "mmio", addr, ret);
	return ret;
}
