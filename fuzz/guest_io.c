// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz target: what a guest controls in the VMM, its port I/O and MMIO, through the exit handler
 * the vCPU loop calls (vcpu_exit_dispatch(), vmm/vcpu.c), on a VM with every device: the payload
 * ports (vmm/payload/payload_ports.c: a payload VM on the thread backend) and the PC devices of a
 * Linux VM (pc_devices_init(): COM1, i8042, CMOS RTC, legacy ports). Each vCPU's kvm_run is a
 * buffer laid out as KVM's mapping (the struct, the port data page at 4096, GI_RUN_SIZE in all)
 * and filled as KVM fills it, so the guest's choices (port, size, the count of a rep ins/outs,
 * data, MMIO address and length) reach the handlers as they would; malformed exits (a size or
 * an offset KVM never writes) check that the handler refuses them. Between exits the host side
 * acts: COM1's input (its input thread's serial_receive()), the console's reader draining or
 * going away, the RTC's clock. Paravirtual sleeps advance a virtual clock (the scheduler's sleep
 * hook) and the VM stops at its GI_DURATION_NS --duration, as `vsched run` stops it; a VM that
 * stops (reset, power-off, an error) is replaced by a fresh one, at most GI_VMS per input.
 *
 * Input: a shape byte (bit 0: 2 vCPUs, else 1), then operations, one byte each (value %
 * GI_NR_OPS), and their fields (struct fuzz_in, fuzz/fuzz.h):
 *   0 IO u8 vcpu, u16 port, u8 how, u16 count, u8 n, n bytes (n % 17): a KVM_EXIT_IO. how bit 0:
 *       out; bits 1-3: size 1 2 4 1 2 4 0 3; bit 4: count as given (else at most a page of
 *       elements, as KVM sends); bit 5: a u32 data offset follows (else 4096, KVM's). The data
 *       area is the n bytes repeated (zeros if n is 0)
 *   1 MMIO u8 vcpu, u64 address, u8 length (% 10), u8 write, u64 data: a KVM_EXIT_MMIO
 *   2 EXIT u8 vcpu, u8 reason, u32 arg: another exit: INTR, HLT, SHUTDOWN, SYSTEM_EVENT (type
 *       arg), INTERNAL_ERROR (suberror arg), FAIL_ENTRY, or exit reason arg in a zeroed run
 *   3 PORT u8 vcpu, u16 port, u8 size (% 9), u8 write, u64 data: ioport_dispatch() of any size
 *       0-8, what a handler must survive though KVM sends 1, 2 or 4
 *   4 INPUT u8 n, n bytes (n % 80): COM1 receives them, as from its input thread
 *   5 DRAIN: the console's reader reads what COM1 wrote
 *   6 HANGUP: the console's reader goes away (`vsched run | head`)
 *   7 CLOCK u64: the RTC's host clock (a time_t below 2^38)
 *
 * Invariants: no crash, leak, undefined behaviour, unbounded loop or growth (GI_BUDGET
 * elements accessed per input); an exit changes nothing in the kvm_run mapping but a read's data
 * (count * size bytes, or the MMIO length) and immediate_exit (a kick); a malformed exit (size
 * not 1, 2 or 4, data outside the mapping, an MMIO length not 1-8) ends the VM as VM_EXIT_ERROR
 * and reaches no handler; an out's data is left as it was; an access to a port no device
 * registered (and to any MMIO address: none is served) counts once per element in
 * stats.unhandled and reads all-ones, one to a registered port (GI_PORTS: the machine's port
 * map) never counts; the payload ports read all-ones; the console gets at most the bytes the
 * guest wrote to COM1's transmit register; an RTC time register reads as BCD (binary if the
 * guest set register B so) within its range. GI_DEBUG=1 prints each operation.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/kvm.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "vmm/ioport.h"
#include "vmm/legacy.h"
#include "vmm/linux/acpi.h"
#include "vmm/payload.h"
#include "vmm/pc.h"
#include "vmm/vcpu.h"

#define GI_PAGE 4096
#define GI_RUN_SIZE (3 * GI_PAGE)	/* KVM_GET_VCPU_MMAP_SIZE on x86 */
#define GI_PIO_OFFSET GI_PAGE		/* KVM_PIO_PAGE_OFFSET pages */
#define GI_VCPUS 2
#define GI_VMS 3
#define GI_BUDGET (1U << 16)
#define GI_DURATION_NS (10ULL * 1000000000ULL)
#define GI_NR_OPS 8

/* Every port a device registers (payload ports, pc_devices_init()); the rest is unserved. */
static const struct {
	uint16_t base, len;
} gi_ports[] = {
	{ I8042_DATA_PORT, 1 },
	{ I8042_CMD_PORT, 1 },
	{ RTC_INDEX_PORT, 2 },
	{ LEGACY_POST_PORT, 1 },
	{ LEGACY_SYSCTL_A, 1 },
	{ 0x2e8, 8 },		/* absent COM4, COM2, COM3 */
	{ 0x2f8, 8 },
	{ 0x3e8, 8 },
	{ SERIAL_COM1_BASE, SERIAL_NR_REGS },
	{ LEGACY_POWEROFF_PORT, 1 },
	{ ACPI_SLEEP_CTL_PORT, 2 },
	{ PAYLOAD_PORT_HELLO, PAYLOAD_PORT_EXIT - PAYLOAD_PORT_HELLO + 1 },
	{ LEGACY_PCI_CONF, 8 },
};

struct gi {
	struct vm vm;
	struct payload_opts opts;
	struct pc_devices pc;
	int out[2];		/* the console: [0] its reader (-1: gone), [1] COM1's out_fd */
	uint8_t *run[GI_VCPUS];	/* each vCPU's kvm_run as KVM maps it */
	uint8_t before[GI_RUN_SIZE];
	uint64_t slept_ns;	/* the virtual clock of paravirtual sleeps */
	uint64_t tx;		/* bytes the guest wrote to COM1's THR since the last drain */
	uint32_t budget;	/* elements left to access in this input */
	bool debug;
};

static struct gi *gi_cur;
static time_t gi_time;

static time_t gi_now(void)
{
	return gi_time;
}

/* The scheduler's sleep hook: virtual time, and the VM's --duration ends it. */
static void gi_sleep(struct vcpu *vcpu, uint64_t ns)
{
	struct gi *g = gi_cur;

	g->slept_ns = ns >= GI_DURATION_NS - g->slept_ns ? GI_DURATION_NS : g->slept_ns + ns;
	if (g->slept_ns == GI_DURATION_NS)
		vm_stop(vcpu->vm, VM_EXIT_STOPPED);
}

static const struct vcpu_sched_ops gi_sched = { .sleep = gi_sleep };

static bool gi_served(uint16_t port)
{
	unsigned int i;

	for (i = 0; i < sizeof(gi_ports) / sizeof(gi_ports[0]); i++)
		if (port >= gi_ports[i].base && port - gi_ports[i].base < gi_ports[i].len)
			return true;
	return false;
}

static void gi_vm_start(struct gi *g, unsigned int nr_vcpus)
{
	const char *what = "VM";
	unsigned int i;
	int err;

	memset(&g->vm, 0, sizeof(g->vm));
	memset(&g->opts, 0, sizeof(g->opts));
	memset(&g->pc, 0, sizeof(g->pc));
	g->vm.name = "guest_io";
	g->vm.mem_size = PAYLOAD_MIN_MEM;
	g->vm.nr_vcpus = nr_vcpus;
	g->vm.accel = VM_ACCEL_THREAD;
	g->vm.boot = &payload_boot_ops;
	g->vm.boot_data = &g->opts;
	g->vm.sched = &gi_sched;
	for (i = 0; i < nr_vcpus; i++)
		g->opts.spec[i].kind = PAYLOAD_HOG;
	/* Non-blocking: a full console drops output here, where `vsched run` would block. */
	if (pipe2(g->out, O_CLOEXEC | O_NONBLOCK))
		abort();
	err = vm_create(&g->vm);
	if (!err)
		err = pc_devices_init(&g->pc, &g->vm, -1, g->out[1], &what);
	if (err) {
		fprintf(stderr, "guest_io: %s: %s\n", what, strerror(-err));
		abort();
	}
	g->pc.rtc.now = gi_now;
	for (i = 0; i < nr_vcpus; i++) {
		g->vm.vcpus[i].run = (struct kvm_run *)g->run[i];
		g->vm.vcpus[i].run_size = GI_RUN_SIZE;
	}
	g->slept_ns = g->tx = 0;
}

/* What the console's reader gets: at most what the guest wrote to the transmit register. */
static void gi_drain(struct gi *g)
{
	uint8_t buf[4096];
	uint64_t got = 0;
	ssize_t n;

	if (g->out[0] < 0)
		return;
	while ((n = read(g->out[0], buf, sizeof(buf))) > 0)
		got += n;
	FUZZ_CHECK(got <= g->tx, "the console got %llu bytes, the guest wrote %llu to THR",
		   (unsigned long long)got, (unsigned long long)g->tx);
	g->tx = 0;
}

static void gi_vm_end(struct gi *g)
{
	gi_drain(g);
	pc_devices_exit(&g->pc);
	vm_destroy(&g->vm);
	if (g->out[0] >= 0)
		close(g->out[0]);
	close(g->out[1]);
}

static struct vcpu *gi_vcpu(struct gi *g, uint8_t b)
{
	return &g->vm.vcpus[b % g->vm.nr_vcpus];
}

/* Before an exit: the mapping as KVM left it, kept to compare. */
static struct kvm_run *gi_run_fill(struct vcpu *v, const uint8_t *pat, unsigned int n)
{
	uint8_t *r = (uint8_t *)v->run;
	size_t i;

	memset(r, 0, sizeof(struct kvm_run));
	for (i = sizeof(struct kvm_run); i < GI_RUN_SIZE; i++)
		r[i] = n ? pat[i % n] : 0;
	return v->run;
}

/* Nothing changed in the mapping outside [lo, hi) but immediate_exit (a kick). */
static void gi_run_same(struct gi *g, struct vcpu *v, size_t lo, size_t hi, const char *what)
{
	struct kvm_run *b = (struct kvm_run *)g->before;
	const uint8_t *r = (const uint8_t *)v->run;

	b->immediate_exit = v->run->immediate_exit;
	FUZZ_CHECK(!memcmp(r, g->before, lo) && !memcmp(r + hi, g->before + hi, GI_RUN_SIZE - hi),
		   "%s changed the kvm_run mapping outside [%zu, %zu)", what, lo, hi);
}

static bool gi_all_ones(const uint8_t *p, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i] != 0xff)
			return false;
	return true;
}

/* A time register of the RTC reads in its range, BCD unless register B says binary. */
static void gi_rtc_check(uint8_t reg, uint8_t regb, const uint8_t *p, size_t len)
{
	static const uint8_t max[] = { [0] = 59, [2] = 59, [4] = 23, [6] = 7, [7] = 31, [8] = 12,
				       [9] = 99 };
	size_t i;

	if (reg >= sizeof(max) || !max[reg])
		return;
	for (i = 0; i < len; i++) {
		unsigned int v = p[i];

		if (!(regb & 0x04)) {
			FUZZ_CHECK((v & 0xf) < 10 && (v >> 4) < 10, "RTC register %u reads %#x: not BCD",
				   reg, v);
			v = (v >> 4) * 10 + (v & 0xf);
		}
		FUZZ_CHECK(v <= max[reg], "RTC register %u reads %u (time %lld)", reg, v,
			   (long long)gi_time);
	}
}

static void gi_io(struct gi *g, struct fuzz_in *in)
{
	static const uint8_t sizes[8] = { 1, 2, 4, 1, 2, 4, 0, 3 };
	struct vcpu *v = gi_vcpu(g, fuzz_u8(in));
	uint16_t port = fuzz_u16(in);
	uint8_t how = fuzz_u8(in), pat[16], reg = g->pc.rtc.index, regb = g->pc.rtc.cmos[0xb];
	uint32_t size = sizes[(how >> 1) & 7], count = fuzz_u16(in);
	uint64_t off = GI_PIO_OFFSET, unhandled = v->stats.unhandled, len;
	int reason = g->vm.exit_reason;
	bool out = how & 1, valid;
	struct kvm_run *run;
	unsigned int n, i;
	uint8_t *data;

	if (how & 0x20)
		off = fuzz_u32(in);
	if (!(how & 0x10) && size)
		count %= GI_PAGE / size + 1;
	n = fuzz_u8(in) % 17;
	for (i = 0; i < n; i++)
		pat[i] = fuzz_u8(in);
	len = (uint64_t)count * size;
	valid = (size == 1 || size == 2 || size == 4) && off >= sizeof(*run) && off <= GI_RUN_SIZE &&
		len <= GI_RUN_SIZE - off;
	if (valid && count > g->budget) {
		g->budget = 0;
		return;
	}
	g->budget -= valid ? count : 0;
	if (g->debug)
		fprintf(stderr, "IO vcpu%u %s port %#x size %u count %u at %llu%s\n", v->id,
			out ? "out" : "in", port, size, count, (unsigned long long)off,
			valid ? "" : " (malformed)");
	run = gi_run_fill(v, pat, n);
	run->exit_reason = KVM_EXIT_IO;
	run->io.direction = out ? KVM_EXIT_IO_OUT : KVM_EXIT_IO_IN;
	run->io.size = size;
	run->io.port = port;
	run->io.count = count;
	run->io.data_offset = off;
	memcpy(g->before, run, GI_RUN_SIZE);
	if (valid && out && port == SERIAL_COM1_BASE)
		g->tx += len;

	vcpu_exit_dispatch(v);

	if (!valid) {
		FUZZ_CHECK(g->vm.exit_reason == (reason ? reason : VM_EXIT_ERROR),
			   "a malformed port exit left the VM %s", vm_exit_reason_name(g->vm.exit_reason));
		FUZZ_CHECK(v->stats.unhandled == unhandled, "a malformed port exit was dispatched");
		gi_run_same(g, v, 0, 0, "a malformed port exit");
		return;
	}
	data = (uint8_t *)run + off;
	gi_run_same(g, v, out ? 0 : off, out ? 0 : off + len, "a port exit");
	FUZZ_CHECK(v->stats.unhandled - unhandled == (gi_served(port) ? 0 : count),
		   "port %#x: %llu of %u accesses unhandled", port,
		   (unsigned long long)(v->stats.unhandled - unhandled), count);
	if (!out && (!gi_served(port) || (port >= PAYLOAD_PORT_HELLO && port <= PAYLOAD_PORT_EXIT)))
		FUZZ_CHECK(gi_all_ones(data, len), "port %#x reads other than all-ones", port);
	if (!out && port == RTC_DATA_PORT)
		gi_rtc_check(reg, regb, data, len);
}

static void gi_mmio(struct gi *g, struct fuzz_in *in)
{
	struct vcpu *v = gi_vcpu(g, fuzz_u8(in));
	uint64_t addr = fuzz_u64(in), unhandled = v->stats.unhandled, val;
	uint32_t len = fuzz_u8(in) % 10;
	bool write = fuzz_u8(in) & 1;
	int reason = g->vm.exit_reason;
	struct kvm_run *run;
	size_t lo;

	val = fuzz_u64(in);
	if (g->debug)
		fprintf(stderr, "MMIO vcpu%u %s %#llx length %u\n", v->id, write ? "write" : "read",
			(unsigned long long)addr, len);
	run = gi_run_fill(v, NULL, 0);
	run->exit_reason = KVM_EXIT_MMIO;
	run->mmio.phys_addr = addr;
	memcpy(run->mmio.data, &val, sizeof(val));
	run->mmio.len = len;
	run->mmio.is_write = write;
	memcpy(g->before, run, GI_RUN_SIZE);
	g->budget -= g->budget ? 1 : 0;

	vcpu_exit_dispatch(v);

	if (!len || len > 8) {
		FUZZ_CHECK(g->vm.exit_reason == (reason ? reason : VM_EXIT_ERROR),
			   "a malformed MMIO exit left the VM %s", vm_exit_reason_name(g->vm.exit_reason));
		FUZZ_CHECK(v->stats.unhandled == unhandled, "a malformed MMIO exit was dispatched");
		gi_run_same(g, v, 0, 0, "a malformed MMIO exit");
		return;
	}
	lo = (uint8_t *)run->mmio.data - (uint8_t *)run;
	gi_run_same(g, v, write ? 0 : lo, write ? 0 : lo + len, "an MMIO exit");
	FUZZ_CHECK(v->stats.unhandled == unhandled + 1, "MMIO %#llx not counted as unhandled",
		   (unsigned long long)addr);
	FUZZ_CHECK(write || gi_all_ones(run->mmio.data, len), "MMIO %#llx reads other than all-ones",
		   (unsigned long long)addr);
}

static void gi_exit(struct gi *g, struct fuzz_in *in)
{
	struct vcpu *v = gi_vcpu(g, fuzz_u8(in));
	uint8_t which = fuzz_u8(in) % 7;
	uint32_t arg = fuzz_u32(in);
	static const uint32_t reasons[] = { KVM_EXIT_INTR, KVM_EXIT_HLT, KVM_EXIT_SHUTDOWN,
					    KVM_EXIT_SYSTEM_EVENT, KVM_EXIT_INTERNAL_ERROR,
					    KVM_EXIT_FAIL_ENTRY };
	int reason = g->vm.exit_reason;
	struct kvm_run *run = gi_run_fill(v, NULL, 0);

	run->exit_reason = which < 6 ? reasons[which] : arg;
	if (g->debug)
		fprintf(stderr, "EXIT vcpu%u reason %u arg %#x\n", v->id, run->exit_reason, arg);
	run->system_event.type = arg;
	if (run->exit_reason == KVM_EXIT_INTERNAL_ERROR) {
		run->internal.suberror = arg;
		run->internal.ndata = arg >> 8;
	}
	g->budget -= g->budget ? 1 : 0;
	vcpu_exit_dispatch(v);
	if (run->exit_reason == KVM_EXIT_INTR)
		FUZZ_CHECK(g->vm.exit_reason == reason, "an INTR exit stopped the VM");
	else
		FUZZ_CHECK(vm_stopping(&g->vm), "exit reason %u left the VM running", run->exit_reason);
}

static void gi_port(struct gi *g, struct fuzz_in *in)
{
	struct vcpu *v = gi_vcpu(g, fuzz_u8(in));
	uint16_t port = fuzz_u16(in);
	unsigned int size = fuzz_u8(in) % 9;
	bool write = fuzz_u8(in) & 1;
	uint64_t val = fuzz_u64(in), unhandled = v->stats.unhandled;
	uint8_t buf[16], before[16];
	int ret;

	if (g->debug)
		fprintf(stderr, "PORT vcpu%u %s %#x size %u\n", v->id, write ? "write" : "read", port,
			size);
	memset(buf, 0xa5, sizeof(buf));
	memcpy(buf, &val, sizeof(val));
	memcpy(before, buf, sizeof(buf));
	if (write && port == SERIAL_COM1_BASE)
		g->tx += size;
	g->budget -= g->budget ? 1 : 0;

	ret = ioport_dispatch(v, port, buf, size, write);

	FUZZ_CHECK(!memcmp(buf + size, before + size, sizeof(buf) - size),
		   "port %#x: a %u-byte access wrote past its data", port, size);
	FUZZ_CHECK(!write || !memcmp(buf, before, size), "port %#x: a write changed its data",
		   port);
	if (gi_served(port)) {
		FUZZ_CHECK(!ret && v->stats.unhandled == unhandled, "port %#x: %d, %llu unhandled",
			   port, ret, (unsigned long long)(v->stats.unhandled - unhandled));
		return;
	}
	FUZZ_CHECK(ret == -ENOENT && v->stats.unhandled == unhandled + 1,
		   "unserved port %#x: %d, %llu unhandled", port, ret,
		   (unsigned long long)(v->stats.unhandled - unhandled));
	FUZZ_CHECK(write || gi_all_ones(buf, size), "unserved port %#x reads other than all-ones",
		   port);
}

static void gi_input(struct gi *g, struct fuzz_in *in)
{
	uint8_t buf[80];
	unsigned int n = fuzz_u8(in) % sizeof(buf), i, got;

	for (i = 0; i < n; i++)
		buf[i] = fuzz_u8(in);
	got = serial_receive(&g->pc.com1, buf, n);
	FUZZ_CHECK(got <= n && g->pc.com1.rx_count <= SERIAL_FIFO_SIZE,
		   "COM1 took %u of %u bytes, holds %u", got, n, g->pc.com1.rx_count);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct gi g;
	struct fuzz_in in = { data, data + size };
	unsigned int nr_vcpus, vms = 1, i;

	if (!g.run[0]) {
		for (i = 0; i < GI_VCPUS; i++)
			if (!(g.run[i] = aligned_alloc(GI_PAGE, GI_RUN_SIZE)))
				abort();
		g.debug = getenv("GI_DEBUG");
	}
	gi_cur = &g;
	gi_time = 1767225600;	/* 2026-01-01 */
	g.budget = GI_BUDGET;
	nr_vcpus = 1 + (fuzz_u8(&in) & 1);
	gi_vm_start(&g, nr_vcpus);
	while (fuzz_more(&in) && g.budget) {
		switch (fuzz_u8(&in) % GI_NR_OPS) {
		case 0:
			gi_io(&g, &in);
			break;
		case 1:
			gi_mmio(&g, &in);
			break;
		case 2:
			gi_exit(&g, &in);
			break;
		case 3:
			gi_port(&g, &in);
			break;
		case 4:
			gi_input(&g, &in);
			break;
		case 5:
			gi_drain(&g);
			break;
		case 6:
			if (g.out[0] >= 0)
				close(g.out[0]);
			g.out[0] = -1;
			break;
		default:
			gi_time = fuzz_u64(&in) & ((1ULL << 38) - 1);
			break;
		}
		if (!vm_stopping(&g.vm))
			continue;
		/* The guest ended its VM: the rest of the input goes to a fresh one. */
		if (g.debug)
			fprintf(stderr, "VM %s\n", vm_exit_reason_name(g.vm.exit_reason));
		gi_vm_end(&g);
		if (vms++ == GI_VMS)
			return 0;
		gi_vm_start(&g, nr_vcpus);
	}
	gi_vm_end(&g);
	return 0;
}
