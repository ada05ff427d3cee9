/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Payload guest entry and its CPL0 stub. The VMM enters user_entry at CPL3 in long mode;
 * the only ring-0 code is the two interrupt handlers below, kept a few instructions long
 * because this machine's KVM emulates CPL0 code.
 */
#include "vmm/payload_abi.h"

	.section .text.head, "ax"
	.globl payload_header
payload_header:
	.quad PAYLOAD_MAGIC
	.quad user_entry
	.quad isr_halt
	.quad isr_timer

	.text
	.globl user_entry
user_entry:
	/* The first guest instruction: an exit the VMM time-stamps. */
	movw $PAYLOAD_PORT_HELLO, %dx
	outl %eax, %dx
	call payload_main
	movw $PAYLOAD_PORT_EXIT, %dx
	outl %eax, %dx
1:	jmp 1b

/*
 * ud2 from CPL3 lands here through the #UD interrupt gate (IF=0, on the TSS's CPL0 stack):
 * arm the one-shot LAPIC timer with rdi ticks and halt until it fires. sti's
 * one-instruction shadow means the timer cannot slip in between sti and hlt; a timer that
 * already expired is pending and wakes hlt at once. Then step over the ud2 and go back.
 * (An exception, not int $0x80 or syscall: this machine's KVM (PVM) keeps vector 0x80
 * and the syscall MSRs for itself.)
 */
isr_halt:
	movabs $(PAYLOAD_LAPIC_BASE + PAYLOAD_LAPIC_TMICT), %rax
	movl %edi, (%rax)
	sti
	hlt
	cli
	addq $2, (%rsp)
	iretq

/* The timer's vector: acknowledge and return into isr_halt after its hlt. */
isr_timer:
	pushq %rax
	movabs $(PAYLOAD_LAPIC_BASE + PAYLOAD_LAPIC_EOI), %rax
	movl $0, (%rax)
	popq %rax
	iretq

	.section .note.GNU-stack, "", @progbits
