// SPDX-License-Identifier: GPL-2.0
/* Plan execution through include/vsched.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "libvirt/api_backend.h"
#include "sched/group.h"
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

static int api_locate(void *ctx, unsigned int vcpu, char *path, size_t len)
{
	struct sched_vcpu *v;
	int ret = -ERANGE;

	vsched_lock(ctx);
	v = sched_vcpu(vsched_sched(ctx), vcpu);
	if (v)
		ret = group_path(v->group, path, len) < 0 ? -ENAMETOOLONG : 0;
	vsched_unlock(ctx);
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
