// SPDX-License-Identifier: GPL-2.0
/* Plan execution through include/vsched.h. */
#include <errno.h>
#include <stdio.h>

#include "libvirt/api_backend.h"
#include "vsched.h"

static int api_mkdir(void *ctx, const char *path)
{
	int ret = vsched_mkdir(ctx, path);

	return ret == -EEXIST ? 0 : ret;
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

void api_backend(struct vsched *vs, struct fs_backend *be)
{
	be->mkdir = api_mkdir;
	be->write = api_write;
	be->move = api_move;
	be->ctx = vs;
}
