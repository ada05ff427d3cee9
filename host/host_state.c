// SPDX-License-Identifier: GPL-2.0
/*
 * The tree above the VM groups (partitions, the root, groups made in the directory) kept across
 * a daemon's restart: saved to <run dir>/.host-tree whenever it changed, restored by the next
 * daemon before it serves. The VM groups are not made again from it: each VMM re-sends its own
 * at its re-join, with the VM group's settings (VMSET). Before, a restarted daemon (a crash
 * under Restart=on-failure, `systemctl restart`) made the partitions again as VMs re-joined,
 * with none of their settings: a tenant's cap was gone.
 *
 * One line per step, tab-separated, parents first: "mkdir PATH", "write PATH FILE VALUE",
 * "chown PATH UID GID"; then the owners and modes host_owners.c keeps ("attr", "vown",
 * "vattr": the directory's records, and at and below VM groups for the VMM that re-joins, with
 * the group's id in it). A group whose name holds a tab is not saved (nor anything below it).
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "sched/cftype.h"
#include "sched/group.h"
#include "util/compiler.h"
#include "vsched.h"

#define HOST_STATE_PERIOD_MS	250	/* how often the saver looks for a change */

/*
 * The files saved, in the order restored: cpu.idle after cpu.weight (a weight is kept), the
 * limits after the children (a limit set below the count there would refuse them).
 */
static const char *const host_state_files[] = {
	"cpu.weight", "cpu.max", "cpu.max.burst", "cpu.idle",
};
static const char *const host_state_limits[] = {
	"cgroup.max.descendants", "cgroup.max.depth",
};

static void host_state_files_of(struct host *h, struct group *g, const char *path,
				const char *const *files, size_t nr, FILE *f, uint64_t now)
{
	const struct cftype *cft;
	char val[256];
	size_t i;
	ssize_t n;

	for (i = 0; i < nr; i++) {
		cft = cftype_lookup(g, files[i]);
		if (!cft)
			continue;
		n = cftype_show(h->s, g, cft, now, val, sizeof(val));
		if (n <= 0 || val[n - 1] != '\n' || memchr(val, '\t', (size_t)n))
			continue;
		fprintf(f, "write\t%s\t%s\t%.*s\n", path, files[i], (int)n - 1, val);
	}
}

struct host_state {
	struct host *h;
	char *file;
	char *last;		/* what was saved last */
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool stop;
};

static void host_state_group(struct host *h, struct group *g, FILE *f, uint64_t now)
{
	char path[GROUP_PATH_MAX];
	struct group *child;

	if (strchr(g->name, '\t') || group_path(g, path, sizeof(path)) < 0 || host_vm_of(h, g))
		return;
	if (g->parent)
		fprintf(f, "mkdir\t%s\n", path);
	if (g->parent && g->type == GROUP_THREADED)
		fprintf(f, "write\t%s\tcgroup.type\tthreaded\n", path);
	host_state_files_of(h, g, path, host_state_files, ARRAY_SIZE(host_state_files), f, now);
	if (g->subtree_cpu)
		fprintf(f, "write\t%s\tcgroup.subtree_control\t+cpu\n", path);
	if (g->uid || g->gid)
		fprintf(f, "chown\t%s\t%u\t%u\n", path, (unsigned int)g->uid, (unsigned int)g->gid);
	list_for_each_entry(child, &g->children, sibling)
		host_state_group(h, child, f, now);
	host_state_files_of(h, g, path, host_state_limits, ARRAY_SIZE(host_state_limits), f, now);
}

char *host_state_dump(struct host *h)
{
	char *buf = NULL, *attrs = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	/* The directory's records first: its lock is taken before the tree's, never inside. */
	if (h->attrs_save)
		attrs = h->attrs_save(h->attrs_arg);
	vsched_lock(h->vs);
	host_state_group(h, sched_root(h->s), f, h->clock());
	host_owners_dump(h, attrs, f);
	vsched_unlock(h->vs);
	free(attrs);
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* Written aside, then renamed: a daemon killed meanwhile leaves the old file whole. */
static int host_state_write(const char *file, const char *text)
{
	char tmp[4096];
	FILE *f;
	int ret = 0;

	if (snprintf(tmp, sizeof(tmp), "%s.new", file) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	f = fopen(tmp, "we");
	if (!f)
		return -errno;
	if (fputs(text, f) < 0)
		ret = -EIO;
	if (fclose(f) && !ret)
		ret = -errno;
	if (!ret && rename(tmp, file))
		ret = -errno;
	if (ret)
		unlink(tmp);
	return ret;
}

#define HOST_STATE_FIELDS	10	/* a line's at most (vattr: 4 and a record's 5) */

/* One line applied (or kept for a VMM's re-join: host_owners.c): 0 or -errno. */
static int host_state_line(struct host *h, char *line)
{
	char *f[HOST_STATE_FIELDS + 1];
	unsigned long long uid, gid;
	int n = 0, ret;

	/* strsep, not strtok: an empty field is one, not run into the next. */
	while (n <= HOST_STATE_FIELDS && (f[n] = strsep(&line, "\t")))
		n++;
	if (n > HOST_STATE_FIELDS)
		return -EINVAL;
	if (!strcmp(f[0], "mkdir") && n == 2)
		return vsched_mkdir(h->vs, f[1]);
	if (!strcmp(f[0], "write") && n == 4)
		return vsched_write_str(h->vs, f[1], f[2], f[3]);
	/* Digits only: strtoul() read "-1" as (uid_t)-1, chown(2)'s "unchanged". */
	if (!strcmp(f[0], "chown") && n == 4)
		return host_owners_number(f[2], 0xfffffffeULL, &uid) ||
		       host_owners_number(f[3], 0xfffffffeULL, &gid) ? -EINVAL :
		       vsched_chown(h->vs, f[1], (uid_t)uid, (gid_t)gid);
	if (strcmp(f[0], "attr") && strcmp(f[0], "vown") && strcmp(f[0], "vattr"))
		return -EINVAL;
	vsched_lock(h->vs);
	ret = host_owners_restore(h, f, n);
	vsched_unlock(h->vs);
	return ret;
}

int host_state_restore(struct host *h, const char *file, unsigned int *nr_refused)
{
	FILE *f = fopen(file, "re");
	char line[1024];
	size_t len;
	int nr = 0, ret;

	*nr_refused = 0;
	if (!f)
		return errno == ENOENT ? 0 : -errno;
	while (fgets(line, sizeof(line), f)) {
		len = strlen(line);
		if (!len || line[len - 1] != '\n') {
			(*nr_refused)++;
			continue;
		}
		line[len - 1] = '\0';
		ret = host_state_line(h, line);
		if (ret && ret != -EEXIST)
			(*nr_refused)++;
		else
			nr++;
	}
	fclose(f);
	return nr;
}

/* Saves the dump if it changed since the last save. */
static void host_state_check(struct host_state *st)
{
	char *now = host_state_dump(st->h);

	if (!now || (st->last && !strcmp(now, st->last))) {
		free(now);
		return;
	}
	if (host_state_write(st->file, now)) {
		free(now);	/* tried again at the next look */
		return;
	}
	free(st->last);
	st->last = now;
}

static void *host_state_thread(void *arg)
{
	struct host_state *st = arg;
	struct timespec at;

	pthread_setname_np(pthread_self(), "vsched-tree");
	pthread_mutex_lock(&st->lock);
	while (!st->stop) {
		pthread_mutex_unlock(&st->lock);
		host_state_check(st);
		pthread_mutex_lock(&st->lock);
		clock_gettime(CLOCK_MONOTONIC, &at);
		at.tv_nsec += HOST_STATE_PERIOD_MS * 1000000L;
		at.tv_sec += at.tv_nsec / 1000000000L;
		at.tv_nsec %= 1000000000L;
		if (!st->stop)
			pthread_cond_timedwait(&st->cond, &st->lock, &at);
	}
	pthread_mutex_unlock(&st->lock);
	return NULL;
}

int host_state_start(struct host *h, const char *file, struct host_state **out)
{
	struct host_state *st = calloc(1, sizeof(*st));
	pthread_condattr_t ca;
	int ret;

	if (!st || !(st->file = strdup(file))) {
		free(st);
		return -ENOMEM;
	}
	st->h = h;
	pthread_mutex_init(&st->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&st->cond, &ca);
	pthread_condattr_destroy(&ca);
	ret = -pthread_create(&st->thread, NULL, host_state_thread, st);
	if (ret) {
		free(st->file);
		free(st);
		return ret;
	}
	*out = st;
	return 0;
}

void host_state_stop(struct host_state *st)
{
	if (!st)
		return;
	pthread_mutex_lock(&st->lock);
	st->stop = true;
	pthread_cond_signal(&st->cond);
	pthread_mutex_unlock(&st->lock);
	pthread_join(st->thread, NULL);
	host_state_check(st);	/* the last change, if the period had not come */
	pthread_cond_destroy(&st->cond);
	pthread_mutex_destroy(&st->lock);
	free(st->last);
	free(st->file);
	free(st);
}
