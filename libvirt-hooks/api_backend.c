// SPDX-License-Identifier: GPL-2.0
/* Plan execution through include/vsched.h, and nothing else of the tree. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libvirt/api_backend.h"
#include "util/compiler.h"
#include "util/cpuset.h"
#include "util/strv.h"
#include "vsched.h"

static int api_mkdir(void *ctx, const char *path)
{
	int ret = vsched_mkdir(ctx, path);

	return ret == -EEXIST ? 0 : ret ? ret : 1;
}

static int api_rmdir(void *ctx, const char *path)
{
	return vsched_rmdir(ctx, path);
}

static int api_read(void *ctx, const char *path, const char *file, char *buf, size_t len)
{
	ssize_t n = vsched_read(ctx, path, file, buf, len);

	if (n < 0)
		return (int)n;
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

static int api_write(void *ctx, const char *path, const char *file, const char *value)
{
	return vsched_write_str(ctx, path, file, value);
}

static int api_move(void *ctx, const char *path, unsigned int vcpu)
{
	char set[16];

	snprintf(set, sizeof(set), "%u", vcpu);
	return vsched_assign(ctx, set, path);
}

static int api_kid(const char *name, mode_t mode __unused, void *arg)
{
	return strv_push(arg, name);
}

/* Depth first from path ("/" the root, else "/a/b"): the group whose vsched.vcpus lists vcpu. */
static int api_find(struct vsched *vs, unsigned int vcpu, char *path, size_t len)
{
	struct strv kids = { 0 };
	size_t i, plen = strlen(path);
	struct cpuset set;
	char *list = NULL;
	int ret = -ERANGE;

	if (vsched_read_alloc(vs, path, "vsched.vcpus", &list) >= 0) {
		list[strcspn(list, "\n")] = '\0';
		if (!cpuset_parse(list, CPUSET_MAX, &set) && cpuset_test(&set, vcpu))
			ret = 0;
	}
	free(list);
	if (!ret || vsched_list_children(vs, path, api_kid, &kids))
		goto out;
	for (i = 0; i < kids.nr && ret; i++) {
		if (snprintf(path + plen, len - plen, "%s%s", plen > 1 ? "/" : "", kids.v[i]) >=
		    (int)(len - plen)) {
			ret = -ENAMETOOLONG;
			break;
		}
		ret = api_find(vs, vcpu, path, len);
		if (ret)
			path[plen] = '\0';
	}
out:
	strv_free(&kids);
	return ret;
}

/* Where vcpu is, from the groups' vsched.vcpus files. */
static int api_locate(void *ctx, unsigned int vcpu, char *path, size_t len)
{
	int ret;

	if (len < 2)
		return -ENAMETOOLONG;
	strcpy(path, "/");
	ret = api_find(ctx, vcpu, path, len);
	/* Relative, as plan paths are: "/a/b" -> "a/b", "/" -> "". */
	if (!ret)
		memmove(path, path + 1, strlen(path));
	return ret;
}

void api_backend(struct vsched *vs, struct fs_backend *be)
{
	*be = (struct fs_backend){
		.mkdir = api_mkdir,
		.rmdir = api_rmdir,
		.read = api_read,
		.write = api_write,
		.move = api_move,
		.locate = api_locate,
		.ctx = vs,
	};
}
