/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A partition: the group above VMs on the host scheduler (`vsched run --partition PATH`, a
 * domain's <resource><partition>), libvirt's "/machine" or "/machine/tenant". vsched uses the
 * path as the group path itself (libvirt adds ".partition" or ".slice" on a host's cgroup tree).
 */
#ifndef VSCHED_LIBVIRT_PARTITION_H
#define VSCHED_LIBVIRT_PARTITION_H

#include <stddef.h>

#include <libxml/tree.h>

#include "libvirt/vgroups.h"
#include "libvirt/xmlutil.h"

#define PARTITION_MAX	VGROUP_PATH_MAX		/* with its NUL */

/*
 * 0 if path is an absolute group path below the root ("/machine/tenant": no empty, "." or
 * ".." part, each part a valid group name, at most VGROUP_DEPTH_MAX parts), else -EINVAL with
 * why (len bytes) saying what is wrong.
 */
int partition_check(const char *path, char *why, size_t len);
/*
 * <resource><partition> of a domain (root: <domain>) into *out (malloc'ed; NULL when absent)
 * and its line. 0, -EINVAL (message in d: line, element, value) or -ENOMEM.
 */
int partition_parse(xmlNode *root, char **out, int *line, struct diag *d);

#endif
