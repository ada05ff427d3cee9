// SPDX-License-Identifier: GPL-2.0
/* Diagnostics and small libxml2 helpers for the domain XML parsers. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libvirt/xmlutil.h"

void xdiag_init(struct xdiag *d, const char *file)
{
	memset(d, 0, sizeof(*d));
	d->file = file ? file : "<domain>";
}

void xdiag_free(struct xdiag *d)
{
	size_t i;

	for (i = 0; i < d->nr_warn; i++)
		free(d->warn[i]);
	free(d->warn);
	d->warn = NULL;
	d->nr_warn = 0;
}

/* " [line N: `<shares>0</shares>`]": line N of d->src, blanks squeezed, cut at 120 bytes. */
static void xdiag_quote(const struct xdiag *d, int line, char *buf, size_t len)
{
	const char *p = d->src, *end, *eol;
	char text[128];
	size_t n = 0;
	int l;

	buf[0] = '\0';
	if (!d->src || line <= 0)
		return;
	end = d->src + d->src_len;	/* not before: NULL + 0 is undefined */
	for (l = 1; l < line && p < end; l++) {
		p = memchr(p, '\n', (size_t)(end - p));
		if (!p)
			return;
		p++;
	}
	eol = memchr(p, '\n', (size_t)(end - p));
	if (!eol)
		eol = end;
	for (; p < eol && n < sizeof(text) - 4; p++) {
		if (isspace((unsigned char)*p) && (!n || text[n - 1] == ' '))
			continue;
		text[n++] = isspace((unsigned char)*p) || iscntrl((unsigned char)*p) ? ' ' : *p;
	}
	while (n && text[n - 1] == ' ')
		n--;
	if (p < eol)
		n += (size_t)snprintf(text + n, sizeof(text) - n, "...");
	text[n] = '\0';
	if (n)
		snprintf(buf, len, " [line %d: `%s`]", line, text);
}

static int __printf(5, 0) xerr_va(struct xdiag *d, int line, const char *elem,
				  const char *value, const char *fmt, va_list ap)
{
	char text[XERR_MAX], quote[160];
	int n = 0;

	if (d->msg[0])
		return -EINVAL;		/* keep the first error only */
	vsnprintf(text, sizeof(text), fmt, ap);
	if (line > 0)
		n = snprintf(d->msg, sizeof(d->msg), "%s:%d: ", d->file, line);
	else
		n = snprintf(d->msg, sizeof(d->msg), "%s: ", d->file);
	xdiag_quote(d, line, quote, sizeof(quote));
	if (elem && value)
		snprintf(d->msg + n, sizeof(d->msg) - n, "<%s> '%s': %s%s", elem, value, text,
			 quote);
	else if (elem)
		snprintf(d->msg + n, sizeof(d->msg) - n, "<%s>: %s%s", elem, text, quote);
	else
		snprintf(d->msg + n, sizeof(d->msg) - n, "%s%s", text, quote);
	return -EINVAL;
}

int xerr(struct xdiag *d, xmlNode *node, const char *elem, const char *value, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = xerr_va(d, node ? xml_line(node) : 0, elem, value, fmt, ap);
	va_end(ap);
	return ret;
}

int xerr_line(struct xdiag *d, int line, const char *elem, const char *value, const char *fmt,
	      ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = xerr_va(d, line, elem, value, fmt, ap);
	va_end(ap);
	return ret;
}

int xwarn(struct xdiag *d, xmlNode *node, const char *elem, const char *fmt, ...)
{
	char text[XERR_MAX], quote[160], *w, **nw;
	va_list ap;
	int line = node ? xml_line(node) : 0;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	xdiag_quote(d, line, quote, sizeof(quote));
	if (line > 0) {
		if (asprintf(&w, "%s:%d: <%s>: %s%s", d->file, line, elem, text, quote) < 0)
			return -ENOMEM;
	} else if (asprintf(&w, "%s: <%s>: %s", d->file, elem, text) < 0) {
		return -ENOMEM;
	}
	nw = realloc(d->warn, (d->nr_warn + 1) * sizeof(*nw));
	if (!nw) {
		free(w);
		return -ENOMEM;
	}
	d->warn = nw;
	d->warn[d->nr_warn++] = w;
	return 0;
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
