/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the domain XML parsers: one error message (file, line, element, value),
 * collected warnings, and libvirt's number rules.
 */
#ifndef VSCHED_LIBVIRT_XMLUTIL_H
#define VSCHED_LIBVIRT_XMLUTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <libxml/tree.h>

#include "util/compiler.h"

#define XERR_MAX 512

/*
 * Where parse messages go. The library never prints: the first error is kept in msg (later
 * ones are dropped so the user sees one message), warnings are appended to a list the caller
 * prints.
 */
struct xdiag {
	const char *file;	/* for the "FILE:LINE:" prefix */
	char msg[XERR_MAX];	/* first error, "" if none */
	char **warn;
	size_t nr_warn;
	/*
	 * The document's text, when the user cannot look the line up (the hook gets libvirt's
	 * reformatted XML): each message then quotes its line.
	 */
	const char *src;
	size_t src_len;
};

void xdiag_init(struct xdiag *d, const char *file);
void xdiag_free(struct xdiag *d);
/* Records "FILE:LINE: <elem> 'value': text" (value part left out if value is NULL); -EINVAL. */
int xerr(struct xdiag *d, xmlNode *node, const char *elem, const char *value, const char *fmt, ...)
	__printf(5, 6);
/* Same, at an explicit line (0 = none): for checks made after the document is gone. */
int xerr_line(struct xdiag *d, int line, const char *elem, const char *value, const char *fmt,
	      ...) __printf(5, 6);
/* Appends "FILE:LINE: <elem>: text" to the warnings; -ENOMEM only. */
int xwarn(struct xdiag *d, xmlNode *node, const char *elem, const char *fmt, ...) __printf(4, 5);

/*
 * Node text (XPath string(): all descendant text) and attributes as malloc'ed strings, exactly
 * as libvirt sees them: not trimmed (NULL if absent). xml_prop_list() trims blanks, for the
 * cpuset-syntax lists whose parser libvirt lets skip them.
 */
char *xml_text(xmlNode *node);
char *xml_prop(xmlNode *node, const char *name);
char *xml_prop_list(xmlNode *node, const char *name);
int xml_line(xmlNode *node);
/* First element child called name (in no namespace), NULL if none. */
xmlNode *xml_child(xmlNode *parent, const char *name);
bool xml_is(xmlNode *node, const char *name);

/*
 * Whole-string decimal numbers as libvirt 9.0's virStrToLong_ullp()/virStrToLong_ll() read them:
 * leading blanks and '+' accepted, nothing after the digits; parse_ull() refuses '-'.
 * 0 or -EINVAL/-ERANGE.
 */
int parse_ull(const char *s, unsigned long long *out);
int parse_ll(const char *s, long long *out);

#endif
