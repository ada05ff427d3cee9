/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A stand-in "kernel" for t-linux-mini.sh, built as an ELF vmlinux at 16 MiB and entered like
 * Linux (64-bit boot protocol, RSI = zero page). It checks the zero page, prints the command
 * line and the e820 entry count on COM1, then does what the command line's first letter says:
 * r = i8042 reset, p = power-off port 0x501, s = ACPI S5 through the sleep control register,
 * t = triple fault, e = echo one byte read from COM1 (polled) then power off, i = the same
 * interrupt-driven (8259 in virtual-wire mode, COM1 IRQ 4), b = INT3 with a #BP handler that
 * prints "B" and returns, then "A" and power off, c = STAC, CLAC, POPCNT and FWAIT (which this
 * machine's KVM cannot emulate at CPL0; the Linux path does), anything else = halt.
 */
	.code64
	.globl _start
_start:
	/* rsi = zero page: "HdrS" at 0x202, or report failure. */
	cmpl	$0x53726448, 0x202(%rsi)
	jne	bad
	mov	$0x3f8, %dx
	mov	0x228(%rsi), %ebx		/* cmd_line_ptr */
1:	movb	(%rbx), %al
	test	%al, %al
	jz	2f
	outb	%al, %dx
	inc	%rbx
	jmp	1b
2:	lea	msg(%rip), %rbx
3:	movb	(%rbx), %al
	test	%al, %al
	jz	4f
	outb	%al, %dx
	inc	%rbx
	jmp	3b
4:	movb	0x1e8(%rsi), %al		/* e820 entries */
	add	$'0', %al
	outb	%al, %dx
	mov	$'\n', %al
	outb	%al, %dx
	mov	0x228(%rsi), %ebx
	movb	(%rbx), %al
	cmp	$'r', %al
	je	reset
	cmp	$'p', %al
	je	poweroff
	cmp	$'s', %al
	je	s5
	cmp	$'t', %al
	je	triple
	cmp	$'e', %al
	je	echo
	cmp	$'i', %al
	je	irq
	cmp	$'b', %al
	je	bp
	cmp	$'c', %al
	je	insns
	cli
5:	hlt
	jmp	5b
reset:	mov	$0xfe, %al
	outb	%al, $0x64
	jmp	5b
poweroff:
	mov	$0x501, %dx
	outb	%al, %dx
	jmp	5b
s5:	mov	$0x504, %dx
	mov	$0x34, %al			/* SLP_EN | SLP_TYP 5 */
	outb	%al, %dx
	jmp	5b
triple:	lidt	nullidt(%rip)
	ud2
echo:	mov	$0x3fd, %dx			/* LSR: wait for received data */
6:	inb	%dx, %al
	test	$1, %al
	jz	6b
	mov	$0x3f8, %dx
	inb	%dx, %al
	mov	%al, %bl
	mov	$'<', %al
	outb	%al, %dx
	mov	%bl, %al
	outb	%al, %dx
	mov	$'>', %al
	outb	%al, %dx
	jmp	poweroff
irq:	lea	idt(%rip), %rdi			/* gate for vector 0x24 = PIC base 0x20 + IRQ 4 */
	lea	isr(%rip), %rax
	mov	%ax, 0x240(%rdi)
	movw	$0x10, 0x242(%rdi)
	movw	$0x8e00, 0x244(%rdi)		/* present, DPL 0, 64-bit interrupt gate */
	shr	$16, %rax
	mov	%ax, 0x246(%rdi)
	shr	$16, %rax
	mov	%eax, 0x248(%rdi)
	lidt	idtr(%rip)
	mov	$0x11, %al			/* 8259 master: ICW1-4, vectors 0x20-0x27 */
	outb	%al, $0x20
	mov	$0x20, %al
	outb	%al, $0x21
	mov	$0x04, %al
	outb	%al, $0x21
	mov	$0x01, %al
	outb	%al, $0x21
	mov	$0xef, %al			/* only IRQ 4 unmasked */
	outb	%al, $0x21
	mov	$0xff, %al
	outb	%al, $0xa1
	mov	$0x3f9, %dx			/* IER: received data available */
	mov	$0x01, %al
	outb	%al, %dx
	mov	$0x3fc, %dx			/* MCR: OUT2 gates the IRQ line */
	mov	$0x08, %al
	outb	%al, %dx
	sti
7:	hlt
	jmp	7b
isr:	mov	$0x3f8, %dx
	inb	%dx, %al
	mov	%al, %bl
	mov	$'[', %al
	outb	%al, %dx
	mov	%bl, %al
	outb	%al, %dx
	mov	$']', %al
	outb	%al, %dx
	mov	$0x20, %al			/* EOI */
	outb	%al, $0x20
	jmp	poweroff
bp:	lea	idt(%rip), %rdi
	lea	bpisr(%rip), %rax
	mov	%ax, 0x30(%rdi)
	movw	$0x10, 0x32(%rdi)
	movw	$0x8e00, 0x34(%rdi)
	shr	$16, %rax
	mov	%ax, 0x36(%rdi)
	shr	$16, %rax
	mov	%eax, 0x38(%rdi)
	lidt	idtr(%rip)
	int3
	mov	$0x3f8, %dx
	mov	$'A', %al
	outb	%al, %dx
	jmp	poweroff
bpisr:	mov	$0x3f8, %dx
	mov	$'B', %al
	outb	%al, %dx
	iretq
insns:	mov	$0x3f8, %dx			/* STAC/CLAC: RFLAGS.AC set, then clear */
	stac
	pushfq
	pop	%rbx
	mov	$'S', %al
	bt	$18, %rbx
	jc	8f
	mov	$'-', %al
8:	outb	%al, %dx
	clac
	pushfq
	pop	%rbx
	mov	$'C', %al
	bt	$18, %rbx
	jnc	8f
	mov	$'-', %al
8:	outb	%al, %dx
	mov	$0xf0f0, %rdi			/* POPCNT r64: 8 */
	popcnt	%rdi, %r9
	lea	'0'(%r9), %rax
	outb	%al, %dx
	xor	%ecx, %ecx			/* POPCNT r32 of zero: ZF */
	mov	$1, %r10d
	popcnt	%ecx, %r10d
	mov	$'Z', %al
	jz	8f
	mov	$'-', %al
8:	outb	%al, %dx
	lea	'0'(%r10), %rax
	outb	%al, %dx
	fninit					/* FWAIT with nothing pending */
	fwait
	mov	$'W', %al
	outb	%al, %dx
	jmp	poweroff
bad:	mov	$0x3f8, %dx
	mov	$'!', %al
	outb	%al, %dx
	jmp	5b
msg:	.asciz	" / mini kernel: e820 entries="
nullidt: .word 0
	.quad 0
idtr:	.word 256 * 16 - 1
	.quad idt
	.balign 16
idt:	.fill 256 * 16, 1, 0
