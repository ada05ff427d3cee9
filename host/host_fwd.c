// SPDX-License-Identifier: GPL-2.0
/*
 * The daemon's directory below a VM group is its VMM's tree (docs/host.md): a write, mkdir or
 * rmdir there (a FUSE thread, through ctl_set_forward()) goes to the VMM as CTL, which applies
 * it to the VM's own tree through the same C API as its own directory and answers CTL_DONE
 * with the errno, after the subtree batch that mirrors it here. The FUSE thread waits for that
 * answer (HOST_FWD_WAIT_NS at most), one forward at a time. A move (cgroup.threads,
 * cgroup.procs) carries the writer's permissions in this directory, and the VMM checks it by
 * cgroup v2 delegation's rule as its own directory does (vsched_move_check_perm()): the VMM
 * knows which vCPUs move from where, this directory who may write what. Settings of a VM
 * group itself written here stay the daemon's, and go to the VMM as VMSET so that a re-join (a
 * daemon restart) brings them back.
 *
 * Locks: fwd_serial, then the tree's lock, then fwd_lock; the wait holds fwd_serial only.
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <time.h>

#include "internal.h"
#include "sched/group.h"
#include "util/debug.h"
#include "vsched.h"

#define HOST_FWD_WAIT_NS	2000000000ULL	/* a VMM that does not answer: ETIMEDOUT */

/* The client whose VM group holds path, and path relative to it ("" is the group itself). */
static struct host_client *host_fwd_owner(struct host *h, const char *path, const char **rel)
{
	struct host_client *c;

	if (*path != '/')
		return NULL;
	list_for_each_entry(c, &h->clients, node) {
		size_t n = strlen(c->group);

		if (!c->joined || c->dead || strncmp(path, c->group, n) ||
		    (path[n] && path[n] != '/'))
			continue;
		*rel = path[n] ? path + n + 1 : "";
		return c;
	}
	return NULL;
}

/*
 * Is the change the VMM's? Below its VM group everything is; in the VM group itself, moving
 * vCPUs (which the batch sets) and nothing else: its settings are the daemon's.
 */
static bool host_fwd_vmms(unsigned int op, const char *rel, const char *file)
{
	if (*rel)
		return true;
	return op == HOST_CTL_WRITE &&
	       (!strcmp(file, "cgroup.threads") || !strcmp(file, "cgroup.procs") ||
		!strcmp(file, "vsched.vcpus"));
}

/*
 * The writer's permissions from the VM group (vm, at depth k of the daemon's tree) down, as
 * the VMM's tree counts depth: there the VM group is the root. NULL: all set, unchecked.
 */
static void host_fwd_perm(struct host_ctl_msg *m, const char *vm,
			  const struct vsched_move_perm *perm)
{
	unsigned int d, k = 0;

	if (!perm) {
		memset(m->may, 0xff, sizeof(m->may));
		return;
	}
	for (; *vm; vm++)
		k += *vm == '/';
	for (d = 0; d < HOST_CTL_MAY_BITS && k + d < perm->nr; d++)
		if (perm->may[k + d])
			m->may[d / 8] |= (uint8_t)(1u << (d % 8));
}

/* Sends the CTL. 1: not a VMM's change; 0: sent; -errno. Tree lock held. */
static int host_fwd_send(struct host *h, unsigned int op, const char *group, const char *file,
			 const char *buf, size_t len, const struct vsched_move_perm *perm,
			 uint32_t seq)
{
	struct host_ctl_msg m = { .type = HOST_MSG_CTL, .op = op, .seq = seq };
	struct host_client *c;
	const char *rel;
	int ret;

	c = host_fwd_owner(h, group, &rel);
	/* Above VM groups a move may take no VM's vCPU and no free slot: none is the daemon's. */
	if (!c)
		return op == HOST_CTL_WRITE ? host_tree_vet_move(h, NULL, file, buf, len) : 1;
	if (!host_fwd_vmms(op, rel, file))
		return 1;
	/* The daemon's vsched.vcpus numbers slots, not the VM's vCPUs: write cgroup.threads. */
	if (file && !strcmp(file, "vsched.vcpus"))
		return -EOPNOTSUPP;
	/* Nor a VM's group another VM's vCPU: the daemon knows whose a TID is, its VMM does not. */
	if (op == HOST_CTL_WRITE && (ret = host_tree_vet_move(h, c, file, buf, len)) < 0)
		return ret;
	if (strlen(rel) >= sizeof(m.path) || (file && strlen(file) >= sizeof(m.file)))
		return -ENAMETOOLONG;
	if (len > sizeof(m.buf))
		return -E2BIG;
	strcpy(m.path, rel);
	if (file)
		strcpy(m.file, file);
	if (len)
		memcpy(m.buf, buf, len);
	m.len = (uint32_t)len;
	host_fwd_perm(&m, c->group, perm);
	pthread_mutex_lock(&h->fwd_lock);
	h->fwd_client = c;
	h->fwd_seq = seq;
	h->fwd_done = false;
	pthread_mutex_unlock(&h->fwd_lock);
	host_send(c, &m, sizeof(m));
	return c->dead ? -EIO : 0;
}

int host_forward(struct host *h, unsigned int op, const char *group, const char *file,
		 const char *buf, size_t len, const struct vsched_move_perm *perm)
{
	struct timespec until;
	int ret;

	if (!op || op >= HOST_CTL_MAX || (op == HOST_CTL_WRITE && !file))
		return -EINVAL;
	pthread_mutex_lock(&h->fwd_serial);
	vsched_lock(h->vs);
	ret = host_fwd_send(h, op, group, file, buf, len, perm, ++h->fwd_next);
	vsched_unlock(h->vs);
	if (ret) {
		pthread_mutex_unlock(&h->fwd_serial);
		return ret;
	}
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += HOST_FWD_WAIT_NS / 1000000000ULL;
	pthread_mutex_lock(&h->fwd_lock);
	while (!h->fwd_done && !ret)
		ret = pthread_cond_timedwait(&h->fwd_cond, &h->fwd_lock, &until);
	ret = h->fwd_done ? h->fwd_err : -ETIMEDOUT;
	h->fwd_client = NULL;
	pthread_mutex_unlock(&h->fwd_lock);
	pthread_mutex_unlock(&h->fwd_serial);
	return ret;
}

/* The forward waiting on c ends with err. */
static void host_fwd_end(struct host *h, struct host_client *c, uint32_t seq, int err)
{
	pthread_mutex_lock(&h->fwd_lock);
	if (h->fwd_client == c && !h->fwd_done && (!seq || seq == h->fwd_seq)) {
		h->fwd_err = err;
		h->fwd_done = true;
		pthread_cond_broadcast(&h->fwd_cond);
	}
	pthread_mutex_unlock(&h->fwd_lock);
}

int host_fwd_done(struct host *h, struct host_client *c, const struct host_ev *m)
{
	/* A seq of 0 is never sent; a late answer (after a timeout) is no error. */
	if (!m->a || m->a > UINT32_MAX || m->b > HOST_ERRNO_MAX)
		return -EPROTO;
	host_fwd_end(h, c, (uint32_t)m->a, -(int)m->b);
	return 0;
}

void host_fwd_gone(struct host *h, struct host_client *c)
{
	host_fwd_end(h, c, 0, -ESRCH);
}

void host_fwd_vmset(struct host *h, const char *path, const char *file)
{
	struct host_group_msg m = { .type = HOST_MSG_VMSET };
	struct host_client *c;
	struct group *g;
	const char *rel;

	if (!file || strncmp(file, "cpu.", 4))
		return;
	c = host_fwd_owner(h, path, &rel);
	if (!c || *rel || !(g = group_lookup(h->s, c->group)))
		return;
	m.set = (struct host_settings){
		.shares = g->shares, .quota_us = g->quota_us, .period_us = g->period_us,
		.burst_us = g->burst_us, .idle = g->idle,
	};
	host_send(c, &m, sizeof(m));
}
