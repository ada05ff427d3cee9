/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Error detail for the edge to print. Library code returns -errno and never prints; what the
 * user needs to know beyond the errno (which file, line, element, value) goes into a struct diag
 * the caller owns and prints once. The first error is kept (later ones are dropped, so the user
 * sees the cause, not its consequences); warnings are collected for the caller to print.
 */
#ifndef VSCHED_UTIL_DIAG_H
#define VSCHED_UTIL_DIAG_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#include "util/compiler.h"

#define DIAG_MAX	512

struct diag {
	/* Where the input came from: "FILE:" / "FILE:LINE:" before each message (NULL: none). */
	const char *file;
	char msg[DIAG_MAX];	/* the first error, "" if none */
	char **warn;
	size_t nr_warn;
	/*
	 * The input's text, when the user cannot look the line up (the libvirt hook gets
	 * libvirt's reformatted XML): each message then quotes its line.
	 */
	const char *src;
	size_t src_len;
};

/* Empty, with file (may be NULL) as the prefix of its messages. */
void diag_init(struct diag *d, const char *file);
/* Frees the warnings; the message stays. */
void diag_free(struct diag *d);
static inline bool diag_failed(const struct diag *d)
{
	return d->msg[0] != '\0';
}

/*
 * Records the error "text" if none is recorded yet and returns err (a -errno), so that callers
 * can write `return diag_set(d, -EINVAL, "...")`. d may be NULL (nothing is recorded).
 */
int diag_set(struct diag *d, int err, const char *fmt, ...) __printf(3, 4);
/*
 * The same, placed: "FILE:LINE: <elem> 'value': text" (line 0: no line, "line N:" without a
 * file; elem NULL: no element; value NULL: no value), with the line quoted when src is set.
 */
int diag_at(struct diag *d, int err, int line, const char *elem, const char *value,
	    const char *fmt, ...) __printf(6, 7);
int diag_vat(struct diag *d, int err, int line, const char *elem, const char *value,
	     const char *fmt, va_list ap) __printf(6, 0);
/* Appends the warning "FILE:LINE: <elem>: text" (placed as diag_at()); 0 or -ENOMEM. */
int diag_warn(struct diag *d, int line, const char *elem, const char *fmt, ...) __printf(4, 5);
int diag_vwarn(struct diag *d, int line, const char *elem, const char *fmt, va_list ap)
	__printf(4, 0);

#endif
