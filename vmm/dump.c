// SPDX-License-Identifier: GPL-2.0
/* Register and code dump for an exit nobody expected: enough to find the guest's mistake. */
#include <linux/kvm.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>

#include "vmm/vcpu.h"

static void dump_segment(const char *name, const struct kvm_segment *s)
{
	fprintf(stderr, " %-3s %04x base %016llx limit %08x type %x dpl %u p %u l %u db %u\n",
		name, s->selector, (unsigned long long)s->base, s->limit, s->type, s->dpl,
		s->present, s->l, s->db);
}

static void dump_code(struct vcpu *vcpu, uint64_t rip)
{
	struct kvm_translation tr = { .linear_address = rip };
	const uint8_t *code;
	uint64_t start;
	int i;

	if (ioctl(vcpu->fd, KVM_TRANSLATE, &tr) < 0 || !tr.valid) {
		fprintf(stderr, " code: rip %#llx is not mapped\n", (unsigned long long)rip);
		return;
	}
	/* 16 bytes before RIP and 16 from it, clipped to RAM; <..> marks RIP. */
	start = tr.physical_address >= 16 ? tr.physical_address - 16 : 0;
	code = vm_gpa(vcpu->vm, start, 32);
	if (!code) {
		fprintf(stderr, " code: gpa %#llx is not RAM\n",
			(unsigned long long)tr.physical_address);
		return;
	}
	fprintf(stderr, " code:");
	for (i = 0; i < 32; i++) {
		if (start + i == tr.physical_address)
			fprintf(stderr, " <%02x>", code[i]);
		else
			fprintf(stderr, " %02x", code[i]);
	}
	fprintf(stderr, "\n");
}

void vcpu_dump(struct vcpu *vcpu)
{
	struct kvm_sregs sr;
	struct kvm_regs r;

	if (ioctl(vcpu->fd, KVM_GET_REGS, &r) < 0 || ioctl(vcpu->fd, KVM_GET_SREGS, &sr) < 0) {
		perror("vsched: register dump");
		return;
	}
	fprintf(stderr, "vcpu%u registers:\n", vcpu->id);
	fprintf(stderr, " rip %016llx rsp %016llx rflags %016llx\n", r.rip, r.rsp, r.rflags);
	fprintf(stderr, " rax %016llx rbx %016llx rcx %016llx rdx %016llx\n", r.rax, r.rbx,
		r.rcx, r.rdx);
	fprintf(stderr, " rsi %016llx rdi %016llx rbp %016llx r8  %016llx\n", r.rsi, r.rdi,
		r.rbp, r.r8);
	fprintf(stderr, " r9  %016llx r10 %016llx r11 %016llx r12 %016llx\n", r.r9, r.r10,
		r.r11, r.r12);
	fprintf(stderr, " r13 %016llx r14 %016llx r15 %016llx\n", r.r13, r.r14, r.r15);
	fprintf(stderr, " cr0 %016llx cr2 %016llx cr3 %016llx cr4 %016llx efer %llx\n", sr.cr0,
		sr.cr2, sr.cr3, sr.cr4, sr.efer);
	dump_segment("cs", &sr.cs);
	dump_segment("ss", &sr.ss);
	dump_segment("ds", &sr.ds);
	dump_segment("tr", &sr.tr);
	fprintf(stderr, " gdt %016llx/%x idt %016llx/%x\n", sr.gdt.base, sr.gdt.limit,
		sr.idt.base, sr.idt.limit);
	dump_code(vcpu, r.rip);
}
