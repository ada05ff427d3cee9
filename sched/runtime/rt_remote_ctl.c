// SPDX-License-Identifier: GPL-2.0
/*
 * Host mode: a write, mkdir or rmdir made in the daemon's directory below this VM's group
 * (HOST_MSG_CTL, include/host/proto.h). The VM's own tree is the source of truth for its
 * subtree, so the change is made there, through the same C API as the VM's own directory: its
 * own directory shows it, and the change callback sends the subtree batch that mirrors it in
 * the daemon. The answer (CTL_DONE, with the errno) follows that batch. Everything in the
 * message is checked first: a daemon that sends anything else is treated as gone.
 */
#include <errno.h>
#include <string.h>

#include "host/proto.h"
#include "rt.h"
#include "util/debug.h"
#include "vsched.h"

/* A relative group path: "" or parts without "", "." or "..", NUL inside the field. */
static bool rt_remote_ctl_path(const char *p, size_t size)
{
	const char *part;

	if (strnlen(p, size) == size || *p == '/')
		return false;
	for (part = p; *part; ) {
		size_t n = strcspn(part, "/");

		if (!n || (n == 1 && part[0] == '.') || (n == 2 && !strncmp(part, "..", 2)))
			return false;
		part += n;
		if (*part == '/' && !*++part)
			return false;
	}
	return true;
}

static int rt_remote_ctl_valid(const struct host_ctl_msg *m)
{
	if (!m->seq || !m->op || m->op >= HOST_CTL_MAX || m->len > sizeof(m->buf) ||
	    !rt_remote_ctl_path(m->path, sizeof(m->path)) ||
	    strnlen(m->file, sizeof(m->file)) == sizeof(m->file))
		return -EPROTO;
	if (m->op == HOST_CTL_WRITE ? !m->file[0] || strchr(m->file, '/') : !m->path[0])
		return -EPROTO;
	return 0;
}

/*
 * A valid CTL made in the VM's tree. A move is checked by cgroup v2 delegation's rule as the
 * VM's own directory checks it (ctl/deleg.c), with the writer's permissions in the daemon's
 * directory: the writer may move a vCPU only if it may write cgroup.procs of the common
 * ancestor of its group and the destination (EACCES). 0 or -errno.
 */
int rt_remote_ctl_apply(struct vsched *vs, const struct host_ctl_msg *m)
{
	bool may[HOST_CTL_MAY_BITS];
	struct vsched_move_perm perm = { may, HOST_CTL_MAY_BITS };
	unsigned int d;
	ssize_t ret;

	for (d = 0; d < HOST_CTL_MAY_BITS; d++)
		may[d] = m->may[d / 8] & (1u << (d % 8));
	if (m->op == HOST_CTL_WRITE)
		ret = vsched_write_move(vs, m->path, m->file, m->buf, m->len,
					vsched_move_check_perm, &perm);
	else if (m->op == HOST_CTL_MKDIR)
		ret = vsched_mkdir(vs, m->path);
	else
		ret = vsched_rmdir(vs, m->path);
	if (ret > 0)
		ret = 0;
	return ret < -HOST_ERRNO_MAX ? -EIO : (int)ret;
}

int rt_remote_ctl(struct runtime *rt, struct vsched *vs, const void *buf, size_t n)
{
	struct host_ctl_msg m;
	uint32_t type;
	int ret;

	memcpy(&type, buf, sizeof(type));
	if (type != HOST_MSG_CTL)
		return 0;
	if (n != sizeof(m) || !vs)
		return -EPROTO;
	memcpy(&m, buf, sizeof(m));
	if (rt_remote_ctl_valid(&m))
		return -EPROTO;
	/* Not under rt->lock: the API takes it, and its change callback sends the batch. */
	ret = rt_remote_ctl_apply(vs, &m);
	mutex_lock(rt->lock);
	rt_remote_event(rt, HOST_MSG_CTL_DONE, 0, m.seq, (uint64_t)-ret);
	rt_unlock(rt);
	return 1;
}
