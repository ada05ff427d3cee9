// SPDX-License-Identifier: GPL-2.0
/*
 * The Linux boot method. setup_vm does a boot loader's and a BIOS's work: kernel, command line and
 * initrd into RAM, zero page with e820, MP table, ACPI tables, boot GDT and page tables, then the
 * PIT and the PC devices. setup_vcpu gives every vCPU its CPUID and LAPIC wiring, puts the BSP at
 * the kernel's 64-bit entry and leaves the APs waiting for INIT/SIPI.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <linux/kvm.h>

#include "util/compiler.h"
#include "vmm/linux.h"
#include "vmm/linux/acpi.h"
#include "vmm/linux/bootparam.h"
#include "vmm/linux/cpu.h"
#include "vmm/linux/cpuid.h"
#include "vmm/linux/kimage.h"
#include "vmm/linux/mptable.h"
#include "vmm/pc.h"
#include "vmm/vm.h"

#define LX_MAX_FILE (1ULL << 31)	/* kernel or initrd: 2 GiB is already absurd */

struct linux_state {
	struct kimage img;
	struct pc_devices pc;
};

static int __printf(3, 4) lx_fail(struct linux_opts *o, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	err = diag_vat(&o->diag, err, 0, NULL, NULL, fmt, ap);
	va_end(ap);
	return err;
}

/* Reads a whole regular file into a malloc'd buffer. */
static int lx_read_file(const char *path, void **buf, size_t *size)
{
	struct stat st;
	size_t done = 0;
	uint8_t *p;
	int fd, err;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		err = -errno;
		goto out;
	}
	err = -EINVAL;
	if (!S_ISREG(st.st_mode) || (uint64_t)st.st_size > LX_MAX_FILE)
		goto out;
	err = -ENOMEM;
	p = malloc(st.st_size ? st.st_size : 1);
	if (!p)
		goto out;
	while (done < (size_t)st.st_size) {
		ssize_t n = read(fd, p + done, st.st_size - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			err = n < 0 ? -errno : -EIO;
			free(p);
			goto out;
		}
		done += n;
	}
	*buf = p;
	*size = done;
	err = 0;
out:
	close(fd);
	return err;
}

static int lx_load_kernel(struct vm *vm, struct linux_opts *o, uint64_t ram)
{
	void *file;
	size_t size;
	int err;

	err = lx_read_file(o->kernel, &file, &size);
	if (err)
		return lx_fail(o, err, "kernel %s: %s", o->kernel,
			       err == -EINVAL ? "not a regular file" : strerror(-err));
	err = kimage_load(file, size, vm->mem, ram, &o->state->img);
	free(file);
	if (err)
		return lx_fail(o, err, "%s: %s", o->kernel, kimage_strerror());
	return 0;
}

static int lx_load_initrd(struct vm *vm, struct linux_opts *o, uint64_t ram, uint32_t *addr,
			  uint32_t *len)
{
	const struct kimage *img = &o->state->img;
	uint64_t max = 0x7fffffff, where;
	void *file;
	size_t size;
	int err;

	*addr = *len = 0;
	if (!o->initrd)
		return 0;
	if (img->kind == KIMAGE_BZIMAGE && img->hdr.initrd_addr_max)
		max = img->hdr.initrd_addr_max;
	err = lx_read_file(o->initrd, &file, &size);
	if (err)
		return lx_fail(o, err, "initrd %s: %s", o->initrd,
			       err == -EINVAL ? "not a regular file" : strerror(-err));
	err = initrd_place(size, img->load_end, ram, max, &where);
	if (err) {
		free(file);
		return lx_fail(o, err, "%s: %s", o->initrd, kimage_strerror());
	}
	memcpy((uint8_t *)vm->mem + where, file, size);
	free(file);
	*addr = where;
	*len = size;
	return 0;
}

int linux_check(struct linux_opts *o)
{
	struct kimage img;
	struct stat st;
	void *file;
	size_t size;
	int err, fd;

	err = lx_read_file(o->kernel, &file, &size);
	if (err)
		return lx_fail(o, err, "kernel %s: %s", o->kernel,
			       err == -EINVAL ? "not a regular file" : strerror(-err));
	err = kimage_parse(file, size, &img);
	free(file);
	if (err)
		return lx_fail(o, err, "%s: %s", o->kernel, kimage_strerror());
	if (!o->initrd)
		return 0;
	fd = open(o->initrd, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return lx_fail(o, -errno, "initrd %s: %s", o->initrd, strerror(errno));
	err = fstat(fd, &st) ? -errno : S_ISREG(st.st_mode) ? 0 : -EINVAL;
	close(fd);
	if (err)
		return lx_fail(o, err, "initrd %s: %s", o->initrd,
			       err == -EINVAL ? "not a regular file" : strerror(-err));
	return 0;
}

static int lx_write_tables(struct vm *vm, struct linux_opts *o, uint32_t initrd_addr,
			   uint32_t initrd_len)
{
	const struct kimage *img = &o->state->img;
	struct boot_params *bp = (struct boot_params *)((uint8_t *)vm->mem + LX_ZERO_PAGE);
	size_t cmdlen = strlen(o->cmdline);
	struct zero_page_args za = {
		.hdr = img->kind == KIMAGE_BZIMAGE ? &img->hdr : NULL,
		.hdr_len = img->hdr_len,
		.ram_size = vm->mem_size,
		.cmdline_addr = LX_CMDLINE,
		.cmdline_len = cmdlen,
		.initrd_addr = initrd_addr,
		.initrd_size = initrd_len,
		.acpi_rsdp = LX_ACPI_ADDR,
	};
	uint32_t sig, features;
	int err;

	if (cmdlen >= LX_CMDLINE_MAX)
		return lx_fail(o, -E2BIG, "command line is %zu bytes, at most %d fit", cmdlen,
			       LX_CMDLINE_MAX - 1);
	memcpy((uint8_t *)vm->mem + LX_CMDLINE, o->cmdline, cmdlen + 1);

	memset(bp, 0, sizeof(*bp));
	err = zero_page_fill(bp, &za);
	if (err == -E2BIG)
		return lx_fail(o, err, "command line is %zu bytes, this kernel takes at most %u",
			       cmdlen, img->hdr.cmdline_size);
	if (err)
		return lx_fail(o, err, "cannot build the zero page for %llu bytes of RAM",
			       (unsigned long long)vm->mem_size);

	lx_boot_tables_write(vm->mem);

	err = lx_cpuid_signature(vm->kvm_fd, &sig, &features);
	if (err)
		return lx_fail(o, err, "KVM_GET_SUPPORTED_CPUID: %s", strerror(-err));
	err = mptable_write((uint8_t *)vm->mem + LX_BIOS_START, LX_HIGH_START - LX_BIOS_START,
			    LX_BIOS_START, vm->nr_vcpus, sig, features);
	if (err < 0)
		return lx_fail(o, err, "MP table: %u vCPUs, at most %u", vm->nr_vcpus, MP_MAX_CPUS);
	err = acpi_tables_write((uint8_t *)vm->mem + LX_ACPI_ADDR, LX_HIGH_START - LX_ACPI_ADDR,
				LX_ACPI_ADDR, vm->nr_vcpus);
	if (err < 0)
		return lx_fail(o, err, "ACPI tables: %u vCPUs, at most %u", vm->nr_vcpus, MP_MAX_CPUS);
	return 0;
}

static int lx_create_pit(struct vm *vm, struct linux_opts *o)
{
	/* The speaker port 0x61 stays in the kernel: no exit per udelay-style poll. */
	struct kvm_pit_config pit = { .flags = KVM_PIT_SPEAKER_DUMMY };

	if (ioctl(vm->fd, KVM_CREATE_PIT2, &pit) < 0)
		return lx_fail(o, -errno, "KVM_CREATE_PIT2: %s", strerror(errno));
	return 0;
}

static int lx_devices_init(struct vm *vm, struct linux_opts *o)
{
	const char *what;
	int err;

	err = pc_devices_init(&o->state->pc, vm, o->console_in,
			      o->console_out > 0 ? o->console_out : 1, &what);
	if (err)
		return lx_fail(o, err, "%s: %s", what, strerror(-err));
	return 0;
}

static void linux_teardown(struct vm *vm)
{
	struct linux_opts *o = vm->boot_data;
	struct linux_state *st = o ? o->state : NULL;

	if (!st)
		return;
	pc_devices_exit(&st->pc);
	free(st);
	o->state = NULL;
}

static int linux_setup_vm(struct vm *vm)
{
	struct linux_opts *o = vm->boot_data;
	uint32_t initrd_addr, initrd_len;
	uint64_t ram;
	int err;

	if (!o)
		return -EINVAL;
	diag_init(&o->diag, NULL);
	if (!o->kernel)
		return lx_fail(o, -EINVAL, "no kernel given (--kernel)");
	if (!o->cmdline)
		o->cmdline = LINUX_DEFAULT_CMDLINE;
	/*
	 * Everything the loader writes lies below the 32-bit gap, where host offsets from
	 * vm->mem are guest-physical addresses; RAM past the gap sits above 4 GiB (e820).
	 */
	ram = min_t(uint64_t, vm->mem_size, LX_GAP_START);
	if (ram < 2 * LX_HIGH_START || vm_gpa(vm, 0, ram) != vm->mem)
		return lx_fail(o, -EINVAL, "guest RAM must start at 0 and be at least 2 MiB");
	if (vm->nr_vcpus > MP_MAX_CPUS)
		return lx_fail(o, -EINVAL, "%u vCPUs: the MP table takes at most %u", vm->nr_vcpus,
			       MP_MAX_CPUS);

	o->state = calloc(1, sizeof(*o->state));
	if (!o->state)
		return lx_fail(o, -ENOMEM, "out of memory");
	err = lx_load_kernel(vm, o, ram);
	if (!err)
		err = lx_load_initrd(vm, o, ram, &initrd_addr, &initrd_len);
	if (!err)
		err = lx_write_tables(vm, o, initrd_addr, initrd_len);
	if (!err)
		err = lx_create_pit(vm, o);
	if (!err)
		err = lx_devices_init(vm, o);
	if (err)
		linux_teardown(vm);
	return err;
}

static int linux_setup_vcpu(struct vcpu *vcpu)
{
	struct linux_opts *o = vcpu->vm->boot_data;
	int err;

	err = lx_cpuid_setup(vcpu, o->cpuid_hide);
	if (err)
		return lx_fail(o, err, "vCPU %u: KVM_SET_CPUID2: %s", vcpu->id, strerror(-err));
	err = lx_cpu_setup_lapic(vcpu);
	if (err)
		return lx_fail(o, err, "vCPU %u: LAPIC: %s", vcpu->id, strerror(-err));
	if (vcpu->id == 0)
		err = lx_cpu_setup_bsp(vcpu, o->state->img.entry, LX_ZERO_PAGE);
	else
		err = lx_cpu_setup_ap(vcpu);
	if (err)
		return lx_fail(o, err, "vCPU %u: initial state: %s", vcpu->id, strerror(-err));
	return 0;
}

const struct boot_ops linux_boot_ops = {
	.name = "linux",
	.needs_cpu = true,
	.setup_vm = linux_setup_vm,
	.setup_vcpu = linux_setup_vcpu,
	.teardown = linux_teardown,
	.shutdown_is_reset = true,	/* reboot=t, or a kernel dying early: ends like a reset */
	.emulation_failure = lx_cpu_emulate,
};
