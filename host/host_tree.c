// SPDX-License-Identifier: GPL-2.0
/*
 * The VM groups of the daemon's tree: a VM joins as <partition>/<name> (partitions made as
 * needed, "cpu" enabled down to it), its subtree is mirrored from the batches its VMM sends,
 * and it leaves with its slots freed and its groups removed. The VMM is the source of truth
 * for its subtree: a batch makes the daemon's copy equal to it, whatever was there.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "sched/cftype.h"
#include "sched/core.h"
#include "sched/files.h"
#include "sched/group.h"
#include "util/time.h"

#define HOST_SHARES_MIN	2UL		/* the core's clamps (group_set_shares()) */
#define HOST_SHARES_MAX	(1UL << 18)

/* A path of '/'-separated group names; absolute: starts with '/' (or is ""). */
int host_path_valid(const char *path, size_t size, bool absolute)
{
	size_t len = strnlen(path, size);
	const char *p = path;

	if (len == size)
		return -ENAMETOOLONG;
	if (absolute) {
		if (!len || !strcmp(path, "/"))
			return 0;
		if (path[0] != '/')
			return -EINVAL;
		p++;
	} else if (!len) {
		return -EINVAL;
	}
	for (;;) {
		const char *end = strchrnul(p, '/');
		size_t n = (size_t)(end - p);

		if (!n || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
			return -EINVAL;
		if (!*end)
			return 0;
		p = end + 1;
	}
}

int host_settings_valid(const struct host_settings *st)
{
	if (st->shares && (st->shares < HOST_SHARES_MIN || st->shares > HOST_SHARES_MAX))
		return -ERANGE;
	if (st->idle > 1 || st->threaded > 1 || st->subtree_cpu > 1)
		return -EINVAL;
	return 0;
}

static struct group *host_lookup(struct host *h, const char *base, const char *rel)
{
	char path[GROUP_PATH_MAX];

	if (snprintf(path, sizeof(path), "%s%s%s", base, rel && *rel ? "/" : "",
		     rel ? rel : "") >= (int)sizeof(path))
		return NULL;
	return group_lookup(h->s, path);
}

static int host_enable_cpu(struct host *h, struct group *g)
{
	return g->subtree_cpu ? 0 : group_set_subtree_cpu(h->s, g, true);
}

/* What a join did to groups that were there before it or that it made, to undo a failure. */
struct host_undo {
	struct group *made, *deepest;	/* the first and last group it made, or NULL */
	struct group *cpu_on[HOST_PATH_LEN / 2 + 1];	/* older groups it enabled "cpu" in */
	unsigned int nr_cpu_on;
};

static int host_undo_enable_cpu(struct host *h, struct host_undo *u, struct group *g)
{
	int ret;

	if (g->subtree_cpu)
		return 0;
	ret = group_set_subtree_cpu(h->s, g, true);
	if (!ret && !u->made)
		u->cpu_on[u->nr_cpu_on++] = g;
	return ret;
}

int host_tree_id(const struct host_client *c, const char *path, uint64_t *id)
{
	size_t n = strlen(c->group);
	unsigned int i;

	if (!c->joined || strncmp(path, c->group, n) || (path[n] && path[n] != '/'))
		return -ENOENT;
	*id = 0;
	if (!path[n])
		return 0;
	for (i = 0; i < c->nr_tree; i++)
		if (!strcmp(c->tree[i].path, path + n + 1)) {
			*id = c->tree[i].id;
			return 0;
		}
	return -ENOENT;
}

/* A failed join changes nothing: the groups it made go, "cpu" goes off where it turned it on. */
static void host_undo(struct host *h, struct host_undo *u)
{
	struct group *g = u->deepest, *parent;

	while (u->made && g) {
		parent = g == u->made ? NULL : g->parent;
		group_remove(h->s, g);
		g = parent;
	}
	while (u->nr_cpu_on)
		group_set_subtree_cpu(h->s, u->cpu_on[--u->nr_cpu_on], false);
}

struct host_client *host_vm_of(struct host *h, struct group *g)
{
	char path[GROUP_PATH_MAX];
	struct host_client *c;

	if (group_path(g, path, sizeof(path)) < 0)
		return NULL;
	list_for_each_entry(c, &h->clients, node)
		if (c->joined && !strcmp(c->group, path))
			return c;
	return NULL;
}

/*
 * A join is a mkdir of PARTITION/NAME (and of the partition's missing parts) and "+cpu" on the
 * way, so a peer other than root is held to what a delegatee may do on cgroupfs (chown): make
 * a group in, or enable "cpu" on, only a group it owns (-EACCES). Groups made below one it owns
 * are its own (they take their parent's owner). Before, any peer that could connect joined
 * anywhere, with any weight.
 */
static int host_may(const struct group *g, uid_t uid)
{
	return !uid || g->uid == uid ? 0 : -EACCES;
}

/*
 * mkdir -p of an absolute partition path, "cpu" enabled in every group on the way. A VM's own
 * group is no partition (-ENOTDIR): its subtree is its VMM's mirror, replaced at each batch.
 */
static int host_partition(struct host *h, const char *path, uid_t uid, struct host_undo *u,
			  struct group **out)
{
	char buf[HOST_PATH_LEN], *name, *save = NULL;
	struct group *g = sched_root(h->s), *child;
	int ret;

	snprintf(buf, sizeof(buf), "%s", *path ? path : HOST_PARTITION_DFL);
	for (name = strtok_r(buf, "/", &save); name; name = strtok_r(NULL, "/", &save)) {
		child = group_child(g, name);
		if (child && host_vm_of(h, child))
			return -ENOTDIR;
		ret = g->subtree_cpu && child ? 0 : host_may(g, uid);
		ret = ret ?: host_undo_enable_cpu(h, u, g);
		if (ret)
			return ret;
		if (!child) {
			ret = group_create(h->s, g, name, &child);
			if (ret)
				return ret;
			u->made = u->made ?: child;
			u->deepest = child;
		}
		g = child;
	}
	*out = g;
	return host_may(g, uid) ?: host_undo_enable_cpu(h, u, g);
}

static int host_apply_settings(struct host *h, struct group *g, const struct host_settings *st)
{
	int ret = 0;

	if (!group_has_cpu(g))
		return 0;
	if (st->idle != g->idle)
		ret = group_set_idle(h->s, g, st->idle);
	if (!ret && !st->idle && st->shares)
		ret = group_set_shares(h->s, g, st->shares);
	if (!ret && (st->quota_us != g->quota_us || st->period_us != g->period_us ||
		     st->burst_us != g->burst_us))
		ret = group_set_bandwidth(h->s, g, st->quota_us, st->period_us, st->burst_us);
	return ret;
}

static void host_move(struct host *h, struct host_client *c, unsigned int vcpu, struct group *g)
{
	unsigned int slot = c->slot[vcpu];

	if (sched_vcpu(h->s, slot)->group != g)
		sched_vcpu_move(h->s, slot, g);
}

int host_tree_join(struct host *h, struct host_client *c, const struct host_hello *m)
{
	struct host_undo u = { 0 };
	struct group *part, *vm;
	unsigned int i, n = 0;
	int ret;

	ret = host_settings_valid(&m->vm);
	if (ret)
		return ret;
	if (m->nr_vcpus > h->nr_free)
		return -ENOSPC;
	sched_advance(h->s, h->clock());
	ret = host_partition(h, m->partition, c->uid, &u, &part);
	if (ret)
		goto undo;
	/*
	 * A group of that name already there (made in the directory, a partition, a VM whose
	 * hang-up is not read yet) is refused as mkdir refuses it, EEXIST. The VM was given
	 * NAME-PID instead, which nothing but the daemon's log showed.
	 */
	snprintf(c->name, sizeof(c->name), "%s", m->name);
	ret = group_create(h->s, part, c->name, &vm);
	if (ret)
		goto undo;
	ret = host_enable_cpu(h, vm) ?: host_apply_settings(h, vm, &m->vm);
	if (ret) {
		group_remove(h->s, vm);
		goto undo;
	}
	group_path(vm, c->group, sizeof(c->group));
	c->nr_vcpus = m->nr_vcpus;
	for (i = 0; i < h->nr_slots && n < c->nr_vcpus; i++) {
		if (h->slot[i].client)
			continue;
		h->slot[i] = (struct host_slot){ .client = c, .vcpu = n,
						 .last_heard = sched_now(h->s),
						 .joined_at = h->clock() };
		c->slot[n++] = i;
		sched_vcpu_move(h->s, i, vm);
	}
	h->nr_free -= c->nr_vcpus;
	c->pid = m->pid;
	c->joined = true;
	return 0;
undo:
	host_undo(h, &u);
	return ret;
}

/* The batch's index of the group at rel, or -1. */
static int host_batch_find(const struct host_client *c, const char *rel)
{
	unsigned int i;

	for (i = 0; i < c->nr_batch; i++)
		if (!strcmp(c->batch[i].path, rel))
			return (int)i;
	return -1;
}

/* Removes the groups below g (depth first) that the batch does not name. */
static void host_prune(struct host *h, struct host_client *c, struct group *g)
{
	size_t base = strlen(c->group) + 1;
	struct group *child, *tmp;
	char path[GROUP_PATH_MAX];

	list_for_each_entry_safe(child, tmp, &g->children, sibling) {
		host_prune(h, c, child);
		if (group_path(child, path, sizeof(path)) < 0 || strlen(path) <= base ||
		    host_batch_find(c, path + base) < 0) {
			host_gone(h, child);
			group_remove(h->s, child);
		}
	}
}

/* g and its subtree go; c's vCPUs there wait in its VM group vm for the batch's moves. */
static void host_drop(struct host *h, struct host_client *c, struct group *g, struct group *vm)
{
	struct group *child, *tmp;
	unsigned int v;

	list_for_each_entry_safe(child, tmp, &g->children, sibling)
		host_drop(h, c, child, vm);
	for (v = 0; v < c->nr_vcpus; v++)
		if (sched_vcpu(h->s, c->slot[v])->group == g)
			sched_vcpu_move(h->s, c->slot[v], vm);
	host_gone(h, g);
	group_remove(h->s, g);
}

/*
 * A group of the last batch that this one names with another id was removed and made again in
 * the VMM between two batches (two changes whose callbacks ran after both): the daemon's copy
 * goes with its subtree (and what the directory kept of it, host_gone()), and the batch makes
 * it anew, as a batch without it and one with it would have. Else the new group kept the old
 * one's owners and records.
 */
static void host_drop_remade(struct host *h, struct host_client *c, struct group *vm)
{
	struct group *g;
	unsigned int i;
	int j;

	for (i = 0; i < c->nr_tree; i++) {
		j = host_batch_find(c, c->tree[i].path);
		if (j < 0 || c->batch[j].id == c->tree[i].id)
			continue;
		g = host_lookup(h, c->group, c->tree[i].path);
		if (g)	/* else gone with an ancestor */
			host_drop(h, c, g, vm);
	}
}

static int host_keep_err(int err, int ret)
{
	return err ? err : ret;
}

int host_tree_commit(struct host *h, struct host_client *c)
{
	struct group *vm = group_lookup(h->s, c->group), *g, *parent;
	int i, n = (int)c->nr_batch, err = 0;
	unsigned int v;

	if (!vm)
		return -ENOENT;
	sched_advance(h->s, h->clock());
	host_drop_remade(h, c, vm);
	for (i = 0; i < n; i++) {
		const struct host_group_msg *m = &c->batch[i];
		char *slash, parent_rel[HOST_PATH_LEN];

		g = host_lookup(h, c->group, m->path);
		if (!g) {
			snprintf(parent_rel, sizeof(parent_rel), "%s", m->path);
			slash = strrchr(parent_rel, '/');
			if (slash)
				*slash = '\0';
			parent = slash ? host_lookup(h, c->group, parent_rel) : vm;
			if (!parent || group_create(h->s, parent, slash ? slash + 1 : parent_rel, &g))
				return -EINVAL;
		}
		/* Also a group made earlier and made threaded since (one way, a no-op if it is). */
		if (m->set.threaded)
			err = host_keep_err(err, group_enable_threaded(h->s, g));
	}
	/* "cpu" on before the children's settings, parents first; off children first. */
	for (i = 0; i < n; i++) {
		g = host_lookup(h, c->group, c->batch[i].path);
		if (c->batch[i].set.subtree_cpu)
			err = host_keep_err(err, host_enable_cpu(h, g));
	}
	for (i = n - 1; i >= 0; i--) {
		g = host_lookup(h, c->group, c->batch[i].path);
		if (!c->batch[i].set.subtree_cpu && g->subtree_cpu)
			err = host_keep_err(err, group_set_subtree_cpu(h->s, g, false));
	}
	for (i = 0; i < n; i++)
		err = host_keep_err(err, host_apply_settings(h, host_lookup(h, c->group,
						c->batch[i].path), &c->batch[i].set));
	for (v = 0; v < c->nr_vcpus; v++) {
		unsigned int gi = c->vcpu_group[v];

		host_move(h, c, v, gi ? host_lookup(h, c->group, c->batch[gi - 1].path) : vm);
	}
	host_prune(h, c, vm);
	return err;
}

void host_tree_leave(struct host *h, struct host_client *c)
{
	uint64_t now = h->clock();
	struct group *vm;
	unsigned int i;

	if (!c->joined)
		return;
	for (i = 0; i < c->nr_vcpus; i++) {
		unsigned int slot = c->slot[i];

		sched_vcpu_blocked(h->s, slot, now);
		sched_vcpu_move(h->s, slot, sched_root(h->s));
		sched_vcpu_set_tid(h->s, slot, 0);
		h->slot[slot] = (struct host_slot){ 0 };
	}
	h->nr_free += c->nr_vcpus;
	c->nr_batch = 0;
	c->nr_tree = 0;
	vm = group_lookup(h->s, c->group);
	if (vm) {
		host_prune(h, c, vm);
		host_gone(h, vm);
		group_remove(h->s, vm);
	}
	c->joined = false;
}

/*
 * A write that moves vCPUs into a group outside every VM group (a partition, the root; c NULL)
 * or into VM c's group or below. Every thread of this tree is a joined VM's vCPU, which stays
 * in its VM group (EOPNOTSUPP, as the kernel's cgroup.threads across domains): above VM groups
 * any, below c another VM's (its VMM, which does not know the TID, said ESRCH). vsched.vcpus
 * numbers slots, and a free one has no thread (ESRCH, a TID that does not exist; before the
 * other, as nothing moves either way). 1: no such move named (or a write the tree refuses with
 * its own errno): apply it there, or forward it to c.
 */
int host_tree_vet_move(struct host *h, const struct host_client *c, const char *file,
		       const char *buf, size_t len)
{
	const struct cftype *cft = file ? cftype_find(file) : NULL;
	bool vcpus, named = false;
	struct cpuset set;
	unsigned int i;

	if (cftype_moves(h->s, cft, buf, len, &set))
		return 1;
	vcpus = !strcmp(file, "vsched.vcpus");
	for (i = 0; i < h->nr_slots && i < CPUSET_MAX; i++) {
		if (!cpuset_test(&set, i))
			continue;
		if (vcpus && !h->slot[i].client)
			return -ESRCH;
		if (h->slot[i].client != c)
			named = true;
	}
	return named ? -EOPNOTSUPP : 1;
}
