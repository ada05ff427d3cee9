/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A name shown as one word: VM and group names may hold spaces, backslashes and control bytes,
 * which would split a column for awk or reach a terminal as an escape sequence.
 */
#ifndef VSCHED_UTIL_WORD_H
#define VSCHED_UTIL_WORD_H

#include <stddef.h>

/*
 * Appends s to buf[*n..len) with every byte at or below ' ', 0x7f and '\\' written as \xNN;
 * stops before a byte whose form does not fit. buf stays NUL-terminated; *n is the new length.
 */
void word_escape(char *buf, size_t len, size_t *n, const char *s);

#endif
