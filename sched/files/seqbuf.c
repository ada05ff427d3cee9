// SPDX-License-Identifier: GPL-2.0
/*
 * A fixed buffer that show handlers print into, like the kernel's seq_file: a show that does
 * not fit reports -ENOSPC and the caller retries with a larger buffer (vsched_read_alloc()).
 */
#include <errno.h>
#include <stdio.h>

#include "sched/files.h"

void seqbuf_printf(struct seqbuf *sb, const char *fmt, ...)
{
	size_t room = sb->len < sb->size ? sb->size - sb->len : 0;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(sb->buf + (room ? sb->len : 0), room, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= room)
		sb->overflow = true;
	else
		sb->len += (size_t)n;
}

ssize_t seqbuf_end(struct seqbuf *sb)
{
	return sb->overflow ? -ENOSPC : (ssize_t)sb->len;
}
