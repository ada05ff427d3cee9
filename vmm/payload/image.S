/* SPDX-License-Identifier: GPL-2.0 */
/* Embeds the payload guest image built by vmm/payload/payload.mk into the binary. */
	.section .rodata
	.balign 4096
	.globl payload_image
	.globl payload_image_end
payload_image:
	.incbin PAYLOAD_BIN
payload_image_end:

	.section .note.GNU-stack, "", @progbits
