/* SPDX-License-Identifier: GPL-2.0 */
/* A growable array of strings: names a callback lists, kept to be walked after the listing. */
#ifndef VSCHED_UTIL_STRV_H
#define VSCHED_UTIL_STRV_H

#include <stddef.h>

struct strv {
	size_t nr;
	char **v;
};

/* Appends a copy of s. 0 or -ENOMEM (sv unchanged). */
int strv_push(struct strv *sv, const char *s);
/* Frees every string and the array; sv is empty again. */
void strv_free(struct strv *sv);

#endif
