// SPDX-License-Identifier: GPL-2.0
/* Messages placed at a node, and small libxml2 helpers for the domain XML parsers. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libvirt/xmlutil.h"

int xerr(struct diag *d, xmlNode *node, const char *elem, const char *value, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = diag_vat(d, -EINVAL, node ? xml_line(node) : 0, elem, value, fmt, ap);
	va_end(ap);
	return ret;
}

int xwarn(struct diag *d, xmlNode *node, const char *elem, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = diag_vwarn(d, node ? xml_line(node) : 0, elem, fmt, ap);
	va_end(ap);
	return ret;
}

/* A libxml2 string as a malloc'ed one; blanks trimmed at both ends if trim. */
static char *xml_dup(xmlChar *x, bool trim)
{
	char *s = (char *)x, *e, *out;

	if (!x)
		return NULL;
	while (trim && isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (trim && e > s && isspace((unsigned char)e[-1]))
		e--;
	out = strndup(s, (size_t)(e - s));
	xmlFree(x);
	return out;
}

char *xml_text(xmlNode *node)
{
	return xml_dup(xmlNodeGetContent(node), false);
}

char *xml_prop(xmlNode *node, const char *name)
{
	return xml_dup(xmlGetNoNsProp(node, (const xmlChar *)name), false);
}

char *xml_prop_list(xmlNode *node, const char *name)
{
	return xml_dup(xmlGetNoNsProp(node, (const xmlChar *)name), true);
}

int xml_line(xmlNode *node)
{
	return (int)xmlGetLineNo(node);
}

bool xml_is(xmlNode *node, const char *name)
{
	return node->type == XML_ELEMENT_NODE && !node->ns &&
	       !strcmp((const char *)node->name, name);
}

xmlNode *xml_child(xmlNode *parent, const char *name)
{
	xmlNode *c;

	for (c = parent->children; c; c = c->next)
		if (xml_is(c, name))
			return c;
	return NULL;
}

/*
 * libvirt 9.0 reads numbers with strtoull()/strtoll() in base 10 and refuses anything left over
 * (virStrToLong_*): leading blanks and a '+' are accepted, trailing blanks are not (seen with
 * `virsh define`: "<shares>+300</shares>" and "<shares>\t300</shares>" are 300, "<shares> 300
 * </shares>" is "can't parse cputune shares value"). Unsigned values refuse any '-'.
 */
int parse_ull(const char *s, unsigned long long *out)
{
	char *end;

	if (!s || strchr(s, '-'))
		return -EINVAL;
	errno = 0;
	*out = strtoull(s, &end, 10);
	if (end == s || *end)
		return -EINVAL;
	return errno == ERANGE ? -ERANGE : 0;
}

int parse_ll(const char *s, long long *out)
{
	char *end;

	if (!s)
		return -EINVAL;
	errno = 0;
	*out = strtoll(s, &end, 10);
	if (end == s || *end)
		return -EINVAL;
	return errno == ERANGE ? -ERANGE : 0;
}
