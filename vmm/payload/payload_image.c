// SPDX-License-Identifier: GPL-2.0
/* Access to the guest image that vmm/payload/image.S embeds. */
#include "vmm/payload.h"

extern const unsigned char payload_image[], payload_image_end[];

const void *payload_image_data(size_t *size)
{
	*size = payload_image_end - payload_image;
	return payload_image;
}
