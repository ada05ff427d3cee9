/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the domain XML parsers: messages placed at a node (util/diag.h), node text
 * and attributes, and libvirt's number rules.
 */
#ifndef VSCHED_LIBVIRT_XMLUTIL_H
#define VSCHED_LIBVIRT_XMLUTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <libxml/tree.h>

#include "util/compiler.h"
#include "util/diag.h"

/*
 * Messages of the domain XML parsers go into a struct diag (util/diag.h), placed at the node's
 * line. xerr() records "FILE:LINE: <elem> 'value': text" (value part left out if value is NULL)
 * and returns -EINVAL; xwarn() appends "FILE:LINE: <elem>: text" to the warnings (-ENOMEM only).
 */
int xerr(struct diag *d, xmlNode *node, const char *elem, const char *value, const char *fmt, ...)
	__printf(5, 6);
int xwarn(struct diag *d, xmlNode *node, const char *elem, const char *fmt, ...) __printf(4, 5);

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
