// SPDX-License-Identifier: GPL-2.0
/* One error message with its place, and collected warnings, for the edge to print (diag.h). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/diag.h"

void diag_init(struct diag *d, const char *file)
{
	memset(d, 0, sizeof(*d));
	d->file = file;
}

void diag_free(struct diag *d)
{
	size_t i;

	for (i = 0; i < d->nr_warn; i++)
		free(d->warn[i]);
	free(d->warn);
	d->warn = NULL;
	d->nr_warn = 0;
}

/* " [line N: `<shares>0</shares>`]": line N of d->src, blanks squeezed, cut at 120 bytes. */
static void diag_quote(const struct diag *d, int line, char *buf, size_t len)
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

/* "FILE:LINE: ", "FILE: ", "line N: " or "" into buf; its length (at most len - 1). */
static size_t diag_place(const struct diag *d, int line, char *buf, size_t len)
{
	int n = 0;

	buf[0] = '\0';
	if (d->file && line > 0)
		n = snprintf(buf, len, "%s:%d: ", d->file, line);
	else if (d->file)
		n = snprintf(buf, len, "%s: ", d->file);
	else if (line > 0)
		n = snprintf(buf, len, "line %d: ", line);
	return n < 0 ? 0 : (size_t)n < len ? (size_t)n : len - 1;
}

int diag_vat(struct diag *d, int err, int line, const char *elem, const char *value,
	     const char *fmt, va_list ap)
{
	char text[DIAG_MAX], quote[160], *p;
	size_t n, room;

	if (!d || d->msg[0])
		return err;		/* keep the first error only */
	vsnprintf(text, sizeof(text), fmt, ap);
	n = diag_place(d, line, d->msg, sizeof(d->msg));
	p = d->msg + n;
	room = sizeof(d->msg) - n;
	diag_quote(d, line, quote, sizeof(quote));
	if (elem && value)
		snprintf(p, room, "<%s> '%s': %s%s", elem, value, text, quote);
	else if (elem)
		snprintf(p, room, "<%s>: %s%s", elem, text, quote);
	else
		snprintf(p, room, "%s%s", text, quote);
	return err;
}

int diag_at(struct diag *d, int err, int line, const char *elem, const char *value,
	    const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	err = diag_vat(d, err, line, elem, value, fmt, ap);
	va_end(ap);
	return err;
}

int diag_set(struct diag *d, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	err = diag_vat(d, err, 0, NULL, NULL, fmt, ap);
	va_end(ap);
	return err;
}

int diag_vwarn(struct diag *d, int line, const char *elem, const char *fmt, va_list ap)
{
	char text[DIAG_MAX], place[DIAG_MAX], quote[160], *w, **nw;

	vsnprintf(text, sizeof(text), fmt, ap);
	diag_place(d, line, place, sizeof(place));
	diag_quote(d, line, quote, sizeof(quote));
	if (asprintf(&w, "%s<%s>: %s%s", place, elem, text, quote) < 0)
		return -ENOMEM;
	nw = realloc(d->warn, (d->nr_warn + 1) * sizeof(*nw));
	if (!nw) {
		free(w);
		return -ENOMEM;
	}
	d->warn = nw;
	d->warn[d->nr_warn++] = w;
	return 0;
}

int diag_warn(struct diag *d, int line, const char *elem, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = diag_vwarn(d, line, elem, fmt, ap);
	va_end(ap);
	return ret;
}
