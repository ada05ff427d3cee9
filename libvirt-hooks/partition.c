// SPDX-License-Identifier: GPL-2.0
/* <resource><partition> and the partition path rule shared with `vsched run --partition`. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libvirt/partition.h"

int partition_check(const char *path, char *why, size_t len)
{
	char part[VGROUP_NAME_MAX + 2];
	const char *p = path, *problem;
	unsigned int depth = 0;

	if (path[0] != '/') {
		snprintf(why, len, "Partition path '%s' must start with '/'", path);
		return -EINVAL;
	}
	if (strlen(path) >= PARTITION_MAX) {
		snprintf(why, len, "a partition path has at most %d characters", PARTITION_MAX - 1);
		return -EINVAL;
	}
	if (!path[1]) {
		snprintf(why, len, "a partition is a group below the root, e.g. /machine");
		return -EINVAL;
	}
	while (*p == '/') {
		size_t n = strcspn(++p, "/");

		if (++depth > VGROUP_DEPTH_MAX) {
			snprintf(why, len, "a partition is at most %d groups deep",
				 VGROUP_DEPTH_MAX);
			return -EINVAL;
		}
		/* A longer part is refused below as too long; keep one character past the max. */
		snprintf(part, sizeof(part), "%.*s",
			 (int)(n < sizeof(part) ? n : sizeof(part) - 1), p);
		problem = !n ? (p[0] ? "an empty part ('//')" : "a trailing '/'") :
			  vgroup_name_problem(part);
		if (problem && !n)
			snprintf(why, len, "%s", problem);
		else if (problem)
			snprintf(why, len, "part '%s': %s", part, problem);
		if (problem)
			return -EINVAL;
		p += n;
	}
	return 0;
}

int partition_parse(xmlNode *root, char **out, int *line, struct diag *d)
{
	xmlNode *res = xml_child(root, "resource"), *n;
	char why[DIAG_MAX / 2];
	char *v;

	*out = NULL;
	*line = 0;
	/* As libvirt's XPath string(./resource/partition): the first one counts. */
	n = res ? xml_child(res, "partition") : NULL;
	if (!n)
		return 0;
	v = xml_text(n);
	if (!v)
		return -ENOMEM;
	/* libvirt's virXPathString() gives NULL for "": an empty <partition> is none at all. */
	if (!*v) {
		free(v);
		return 0;
	}
	if (partition_check(v, why, sizeof(why))) {
		int ret = xerr(d, n, "partition", v, "%s", why);

		free(v);
		return ret;
	}
	*out = v;
	*line = xml_line(n);
	return 0;
}
