// SPDX-License-Identifier: GPL-2.0
/* Elements of vsched's namespace where vgroups_parse() does not look: said, not dropped. */
#include <string.h>

#include "libvirt/vgroups.h"

static bool stray_is_ours(const xmlNode *n)
{
	return n->type == XML_ELEMENT_NODE && n->ns && n->ns->href &&
	       !strncmp((const char *)n->ns->href, VGROUPS_NS_PREFIX, strlen(VGROUPS_NS_PREFIX));
}

/* The next element after n in document order, not entering n's children if skip. */
static xmlNode *stray_next(xmlNode *n, xmlNode *top, bool skip)
{
	if (!skip && n->children)
		return n->children;
	while (n != top && !n->next)
		n = n->parent;
	return n == top ? NULL : n->next;
}

int vgroups_warn_stray(xmlNode *root, struct diag *d)
{
	xmlNode *meta = xml_child(root, "metadata"), *n = root->children;
	/* <cputune> warns about each child it does not know itself. */
	xmlNode *tune = xml_child(root, "cputune");
	int ret = 0;

	while (n && !ret) {
		bool skip = n->type != XML_ELEMENT_NODE;

		/* A later <metadata> is warned about as a whole (domain_warn_repeats()). */
		if (!skip && n->parent == root && xml_is(n, "metadata"))
			skip = n != meta;
		else if (!skip && stray_is_ours(n)) {
			skip = true;
			if (n->parent != meta && n->parent != tune)
				ret = xwarn(d, n, (const char *)n->name, "vsched's namespace (%s) is "
					    "read only in a child of <metadata>; this element is "
					    "ignored", (const char *)n->ns->href);
		}
		n = stray_next(n, root, skip);
	}
	return ret;
}
