// SPDX-License-Identifier: GPL-2.0
/*
 * Owners and modes kept across a daemon's restart (docs/host.md, "Delegation below a VM group
 * across restarts"). The daemon's directory is the only place a delegation in it is made (chown,
 * chmod, a forwarded mkdir by a delegatee), so the daemon keeps it, in .host-tree with the tree
 * (host_state.c), and gives it back itself:
 *  - above the VM groups, the control directory's records (modes, files' owners: ctl/attr.c)
 *    as "attr REC", applied once the directory is there (host_set_attrs());
 *  - at and below a VM group, every group's owner ("vown PID START PATH UID GID ID") and the
 *    directory's records ("vattr PID START ID REC"), keyed by the VMM's process: its pid by the
 *    kernel's word (SO_PEERCRED) and its start time (/proc), unique for the boot; and by the
 *    group's identity in that process, ID (GROUP's id; 0: the VM group itself, which is the
 *    process), the group of the record's node for vattr. Given back at that process's first
 *    COMMIT after it re-joins, only at or below its own group, only where that COMMIT has a
 *    group of the same path and the same id: a group removed and made again in the VM's own
 *    directory while no daemon ran is a new group (a new id) and gets nothing, as it would
 *    while the daemon runs. Dropped once given back or the process is gone. A new VMM of the
 *    name (a new process) gets nothing, as a new VM of the name gets nothing of its
 *    predecessor while the daemon runs (ctl_forget()). A line of a daemon before ids (no ID)
 *    reads as ID 0: the VM group's own only (no group below has 0).
 * No VMM says anything about owners: a VMM cannot grant a user anything in the daemon's
 * directory, and no record is applied outside the group of the process it was saved for.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "sched/cftype.h"
#include "sched/group.h"
#include "util/registry.h"
#include "vsched.h"

/* A record of .host-tree kept for a VMM not re-joined yet (pid 0: "attr", for the directory). */
struct host_kept {
	struct list_head node;
	pid_t pid;
	unsigned long long start;
	bool own;		/* vown: path, uid, gid; else rec */
	uint64_t id;		/* vown, vattr: the VMM's id of the group (0: the VM group) */
	char path[HOST_PATH_LEN];
	uid_t uid;
	gid_t gid;
	char *rec;
};

static void host_kept_free(struct host_kept *k)
{
	list_del(&k->node);
	free(k->rec);
	free(k);
}

void host_owners_exit(struct host *h)
{
	struct host_kept *k, *n;

	list_for_each_entry_safe(k, n, &h->kept, node)
		host_kept_free(k);
	strv_free(&h->attrs_due);
}

/* Digits only, at most max (strtoul takes a sign, spaces, and wraps "-1"). */
int host_owners_number(const char *s, unsigned long long max, unsigned long long *out)
{
	unsigned long long v = 0;
	const char *p;

	if (!*s || strlen(s) > 20)
		return -EINVAL;
	for (p = s; *p; p++) {
		if (*p < '0' || *p > '9' || v > (max - (unsigned long long)(*p - '0')) / 10)
			return -EINVAL;
		v = v * 10 + (unsigned long long)(*p - '0');
	}
	*out = v;
	return 0;
}

/*
 * The node a record of the directory names (its first field), the record's shape checked: five
 * fields, an absolute path. The directory checks the rest as it applies it (ctl_attr_load()).
 */
static int host_owners_key(const char *rec, char *key, size_t size)
{
	const char *tab = strchr(rec, '\t'), *p;
	int tabs = 0;

	for (p = rec; *p; p++)
		tabs += *p == '\t';
	if (!tab || tabs != 4 || strchr(rec, '\n') || (size_t)(tab - rec) >= size)
		return -EINVAL;
	snprintf(key, size, "%.*s", (int)(tab - rec), rec);
	return host_path_valid(key, size, true);
}

/* path is g's or below it ("/machine/w", "/machine/w/d"; not "/machine/wx"). */
static bool host_owners_below(const char *path, const char *group)
{
	size_t n = strlen(group);

	return !strncmp(path, group, n) && (!path[n] || path[n] == '/');
}

int host_owners_restore(struct host *h, char **f, int n)
{
	struct host_kept *k;
	char key[PATH_MAX];
	unsigned long long pid = 0, start = 0, uid, gid, id = 0;
	char rec[PATH_MAX + 128];
	bool attr = !strcmp(f[0], "attr"), vattr = !strcmp(f[0], "vattr");
	int i, first = attr ? 1 : vattr && n == 9 ? 4 : 3;

	if (n < first + 1)
		return -EINVAL;
	if (!attr && (host_owners_number(f[1], INT_MAX, &pid) || !pid ||
		      host_owners_number(f[2], ULLONG_MAX, &start) || !start))
		return -EINVAL;
	/* The group's id: vown's last field, vattr's before the record; none (old): 0. */
	if ((vattr && n == 9 && host_owners_number(f[3], ULLONG_MAX, &id)) ||
	    (!strcmp(f[0], "vown") && n == 7 && host_owners_number(f[6], ULLONG_MAX, &id)))
		return -EINVAL;
	k = calloc(1, sizeof(*k));
	if (!k)
		return -ENOMEM;
	k->id = id;
	if (!strcmp(f[0], "vown") && (n == 6 || n == 7)) {
		k->own = true;
		if (host_path_valid(f[3], sizeof(k->path), true) || !strcmp(f[3], "/") ||
		    host_owners_number(f[4], 0xfffffffeULL, &uid) ||
		    host_owners_number(f[5], 0xfffffffeULL, &gid))
			goto bad;
		strcpy(k->path, f[3]);
		k->uid = (uid_t)uid;
		k->gid = (gid_t)gid;
	} else if ((attr || vattr) && n == first + 5) {
		/* The record's own tabs were split: joined again, then checked whole. */
		rec[0] = '\0';
		for (i = first; i < n; i++)
			if (strlen(rec) + strlen(f[i]) + 2 < sizeof(rec))
				strcat(strcat(rec, i > first ? "\t" : ""), f[i]);
		if (host_owners_key(rec, key, sizeof(key)) || !(k->rec = strdup(rec)))
			goto bad;
	} else {
		goto bad;
	}
	k->pid = (pid_t)pid;
	k->start = attr ? 0 : start;
	/* A VMM gone since (or a pid reused by another process) re-joins never: dropped. */
	if (!attr && registry_pid_start(k->pid) != k->start) {
		free(k->rec);
		free(k);
		return 0;
	}
	list_add_tail(&k->node, &h->kept);
	return 0;
bad:
	free(k->rec);
	free(k);
	return -EINVAL;
}

/* The directory's record rec given back after the event, without the tree's lock. */
static void host_owners_due(struct host *h, const char *rec)
{
	strv_push(&h->attrs_due, rec);	/* -ENOMEM: that record is not given back */
}

/*
 * The group a record's node is (path of it in gpath): key itself, or the group whose interface
 * file key names. NULL: no such node.
 */
static struct group *host_owners_group_of(struct host *h, const char *key, char *gpath,
					  size_t size)
{
	const char *slash = strrchr(key, '/');
	struct group *g;

	if (snprintf(gpath, size, "%s", key) < (int)size && (g = group_lookup(h->s, gpath)))
		return g;
	if (!slash || (size_t)(slash - key) >= size)
		return NULL;
	snprintf(gpath, size, "%.*s", slash == key ? 1 : (int)(slash - key), key);
	g = group_lookup(h->s, gpath);
	return g && cftype_lookup(g, slash + 1) ? g : NULL;
}

/* c's mirror has the group at path with that id: the one the record was kept for. */
static bool host_owners_same(const struct host_client *c, const char *path, uint64_t id)
{
	uint64_t now;

	return !host_tree_id(c, path, &now) && now == id;
}

void host_owners_back(struct host *h, struct host_client *c)
{
	char key[PATH_MAX], gpath[GROUP_PATH_MAX];
	struct host_kept *k, *n;
	struct group *g;

	c->owners_back = true;
	list_for_each_entry_safe(k, n, &h->kept, node) {
		if (!k->pid || k->pid != c->peer_pid || k->start != c->start)
			continue;
		if (k->own && host_owners_same(c, k->path, k->id) &&
		    (g = group_lookup(h->s, k->path))) {
			g->uid = k->uid;
			g->gid = k->gid;
		} else if (!k->own && !host_owners_key(k->rec, key, sizeof(key)) &&
			   host_owners_group_of(h, key, gpath, sizeof(gpath)) &&
			   host_owners_same(c, gpath, k->id)) {
			host_owners_due(h, k->rec);
		}
		host_kept_free(k);
	}
}

/* Every group's owner at and below g, for c's re-join. */
static void host_owners_groups(struct host_client *c, struct group *g, FILE *f)
{
	char path[GROUP_PATH_MAX];
	struct group *child;
	uint64_t id;

	/* Not in the mirror (none: not committed yet): no identity to keep it for. */
	if (group_path(g, path, sizeof(path)) < 0 || strpbrk(path, "\t\n") ||
	    host_tree_id(c, path, &id))
		return;
	fprintf(f, "vown\t%d\t%llu\t%s\t%u\t%u\t%llu\n", (int)c->peer_pid, c->start, path,
		(unsigned int)g->uid, (unsigned int)g->gid, (unsigned long long)id);
	list_for_each_entry(child, &g->children, sibling)
		host_owners_groups(c, child, f);
}

/* The joined VM whose group holds key (its group or below), or NULL. */
static struct host_client *host_owners_vm(struct host *h, const char *key)
{
	struct host_client *c;

	list_for_each_entry(c, &h->clients, node)
		if (c->joined && host_owners_below(key, c->group))
			return c;
	return NULL;
}

void host_owners_dump(struct host *h, const char *attrs, FILE *f)
{
	struct host_kept *k, *n;
	struct host_client *c;
	char key[PATH_MAX], rec[PATH_MAX + 128], gpath[GROUP_PATH_MAX];
	const char *line, *end;
	struct group *g;
	uint64_t id;

	list_for_each_entry(c, &h->clients, node)
		if (c->joined && c->start && c->peer_pid > 0 &&
		    (g = group_lookup(h->s, c->group)))
			host_owners_groups(c, g, f);
	for (line = attrs; line && *line; line = *end ? end + 1 : end) {
		end = strchrnul(line, '\n');
		if ((size_t)(end - line) >= sizeof(rec))
			continue;
		snprintf(rec, sizeof(rec), "%.*s", (int)(end - line), line);
		if (host_owners_key(rec, key, sizeof(key)) ||
		    !host_owners_group_of(h, key, gpath, sizeof(gpath)))
			continue;
		c = host_owners_vm(h, key);
		if (!c)
			fprintf(f, "attr\t%s\n", rec);
		else if (c->start && c->peer_pid > 0 && !host_tree_id(c, gpath, &id))
			fprintf(f, "vattr\t%d\t%llu\t%llu\t%s\n", (int)c->peer_pid, c->start,
				(unsigned long long)id, rec);
	}
	/* Kept for a VMM not re-joined yet, while it lives; for a directory not there yet. */
	list_for_each_entry_safe(k, n, &h->kept, node) {
		if (k->pid && registry_pid_start(k->pid) != k->start) {
			host_kept_free(k);
			continue;
		}
		if (!k->pid)
			fprintf(f, "attr\t%s\n", k->rec);
		else if (k->own)
			fprintf(f, "vown\t%d\t%llu\t%s\t%u\t%u\t%llu\n", (int)k->pid, k->start,
				k->path, (unsigned int)k->uid, (unsigned int)k->gid,
				(unsigned long long)k->id);
		else
			fprintf(f, "vattr\t%d\t%llu\t%llu\t%s\n", (int)k->pid, k->start,
				(unsigned long long)k->id, k->rec);
	}
}

void host_set_attrs(struct host *h, char *(*save)(void *arg),
		    int (*load)(void *arg, const char *rec), void *arg)
{
	struct host_kept *k, *n;

	vsched_lock(h->vs);
	h->attrs_save = save;
	h->attrs_load = load;
	h->attrs_arg = arg;
	/* The records above the VM groups restored before the directory was there. */
	list_for_each_entry_safe(k, n, &h->kept, node)
		if (!k->pid) {
			host_owners_due(h, k->rec);
			host_kept_free(k);
		}
	vsched_unlock(h->vs);
	host_attrs_flush(h);
}

unsigned int host_attrs_flush(struct host *h)
{
	unsigned int nr = 0;
	struct strv due;
	size_t i;

	vsched_lock(h->vs);
	due = h->attrs_due;
	h->attrs_due = (struct strv){ 0 };
	vsched_unlock(h->vs);
	for (i = 0; i < due.nr; i++)
		nr += h->attrs_load && !h->attrs_load(h->attrs_arg, due.v[i]);
	strv_free(&due);
	return nr;
}
