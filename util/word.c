// SPDX-License-Identifier: GPL-2.0
/* A name shown as one word; see include/util/word.h. */
#include <stdio.h>

#include "util/word.h"

void word_escape(char *buf, size_t len, size_t *n, const char *s)
{
	size_t at = *n < len ? *n : len;

	if (!len)
		return;
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		size_t need = c <= ' ' || c == 0x7f || c == '\\' ? 4 : 1;

		if (at + need >= len)
			break;
		if (need == 4)
			snprintf(buf + at, len - at, "\\x%02x", c);
		else
			buf[at] = (char)c;
		at += need;
	}
	buf[at < len ? at : len - 1] = '\0';
	*n = at < len ? at : len - 1;
}
