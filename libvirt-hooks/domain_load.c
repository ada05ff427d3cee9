// SPDX-License-Identifier: GPL-2.0
/*
 * Domain XML documents: read from a file or stdin (bounded), parsed by libxml2 with entity
 * declarations refused and its messages on one line; the elements are domain_parse_doc()'s.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libxml/parser.h>

#include "libvirt/domain.h"

/* The largest XML we read: a domain is a few KiB; this only bounds stdin. */
#define DOMAIN_XML_MAX	(16 << 20)

/*
 * An <!ENTITY> declaration stops the parse. Domain XML never needs one, and an internal entity
 * referenced many times expands quadratically when a value is read (a 40 KB file made a 100 MB
 * <name>); libvirt's own domains have none.
 */
struct domain_parse {
	struct diag *d;
	bool refused;
};

static void domain_entity_decl(void *ctx, const xmlChar *name, int type __unused,
			       const xmlChar *public_id __unused,
			       const xmlChar *system_id __unused, xmlChar *content __unused)
{
	xmlParserCtxt *ctxt = ctx;
	struct domain_parse *dp = ctxt->_private;

	diag_at(dp->d, -EINVAL, ctxt->input ? ctxt->input->line : 0, "!ENTITY", (const char *)name,
		  "entity declarations are refused (domain XML needs none; they can expand "
		  "without bound)");
	dp->refused = true;
	xmlStopParser(ctxt);
}

/* libxml2 prints nothing itself: its messages become our one line. */
static void domain_xml_silent(void *ctx __unused, const char *msg __unused, ...)
{
}

/* libxml2's message on one line ("...encoding !\nBytes: 0xFF ..." has two). */
static void domain_xml_error(struct diag *d, xmlParserCtxt *ctxt)
{
	const xmlError *e = xmlCtxtGetLastError(ctxt);
	char msg[DIAG_MAX], *p;
	size_t n;

	snprintf(msg, sizeof(msg), "%s", e && e->message ? e->message : "not XML");
	for (p = msg; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	n = strlen(msg);
	while (n && msg[n - 1] == ' ')
		msg[--n] = '\0';
	diag_at(d, -EINVAL, e ? e->line : 0, NULL, NULL, "malformed XML: %s", msg);
}

int domain_parse_memory(const char *buf, size_t len, struct domain_def *def, struct diag *d)
{
	struct domain_parse dp = { .d = d };
	xmlParserCtxt *ctxt;
	xmlDoc *doc;
	int ret;

	memset(def, 0, sizeof(*def));
	if (len > DOMAIN_XML_MAX || len > INT32_MAX)
		return xerr(d, NULL, NULL, NULL, "domain XML larger than %d bytes",
			    DOMAIN_XML_MAX);
	xmlSetGenericErrorFunc(NULL, domain_xml_silent);
	xmlSetStructuredErrorFunc(NULL, NULL);
	ctxt = xmlNewParserCtxt();
	if (!ctxt)
		return -ENOMEM;
	ctxt->_private = &dp;
	ctxt->sax->entityDecl = domain_entity_decl;
	/* No network; errors are collected, not printed. */
	doc = xmlCtxtReadMemory(ctxt, buf, (int)len, d->file, NULL,
				XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING |
					XML_PARSE_BIG_LINES);
	if (!doc || dp.refused) {
		if (!dp.refused)
			domain_xml_error(d, ctxt);
		xmlFreeDoc(doc);
		xmlFreeParserCtxt(ctxt);
		return -EINVAL;
	}
	ret = domain_parse_doc(doc, def, d);
	xmlFreeDoc(doc);
	xmlFreeParserCtxt(ctxt);
	if (ret)
		domain_free(def);
	return ret;
}

int domain_read(int fd, char **out, size_t *len)
{
	size_t cap = 65536, n = 0;
	char *buf = malloc(cap), *nb;
	ssize_t r;

	if (!buf)
		return -ENOMEM;
	for (;;) {
		if (n == cap) {
			if (cap >= DOMAIN_XML_MAX) {
				free(buf);
				return -EFBIG;
			}
			nb = realloc(buf, cap * 2);
			if (!nb) {
				free(buf);
				return -ENOMEM;
			}
			buf = nb;
			cap *= 2;
		}
		r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			r = -errno;
			free(buf);
			return (int)r;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	*out = buf;
	*len = n;
	return 0;
}

int domain_parse_file(const char *path, struct domain_def *def, struct diag *d)
{
	char *buf = NULL;
	size_t len = 0;
	int fd = 0, ret;

	memset(def, 0, sizeof(*def));
	if (strcmp(path, "-")) {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			ret = -errno;
			xerr(d, NULL, NULL, NULL, "%s", strerror(errno));
			return ret;
		}
	}
	ret = domain_read(fd, &buf, &len);
	if (fd)
		close(fd);
	if (ret) {
		xerr(d, NULL, NULL, NULL, "reading: %s", strerror(-ret));
		return ret;
	}
	ret = domain_parse_memory(buf, len, def, d);
	free(buf);
	return ret;
}
