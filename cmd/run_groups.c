// SPDX-License-Identifier: GPL-2.0
/* --group and --assign specs of `vsched run`, applied through the public API. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>

#include "sched/group.h"
#include "cmd/run.h"
#include "util/compiler.h"
#include "vsched.h"

static const struct {
	const char *key;
	const char *file;
} run_group_keys[] = {
	{ "weight", "cpu.weight" },
	{ "nice", "cpu.weight.nice" },
	{ "max", "cpu.max" },
	{ "burst", "cpu.max.burst" },
	{ "idle", "cpu.idle" },
};

static const char *run_group_file(const char *key)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(run_group_keys); i++)
		if (!strcmp(key, run_group_keys[i].key))
			return run_group_keys[i].file;
	return strchr(key, '.') ? key : NULL;
}

/* Creates path and its missing parents, threaded, with +cpu in every parent. */
static int run_group_mkdir(struct vsched *vs, const char *path, char *msg, size_t msglen)
{
	char part[GROUP_PATH_MAX];
	const char *p = path;
	int ret;

	for (;;) {
		const char *slash = strchr(p, '/');
		size_t len = slash ? (size_t)(slash - path) : strlen(path);
		char parent[GROUP_PATH_MAX];
		const char *name;
		char *ps;

		if (len >= sizeof(part))
			return -ENAMETOOLONG;
		memcpy(part, path, len);
		part[len] = '\0';
		memcpy(parent, part, len + 1);
		ps = strrchr(parent, '/');
		if (ps)
			*ps = '\0';
		else
			parent[0] = '\0';
		name = ps ? part + (ps - parent) + 1 : part;
		/* The VFS's names, which mkdir answers EEXIST: say what is wrong with them. */
		if (!strcmp(name, ".") || !strcmp(name, "..")) {
			snprintf(msg, msglen, "mkdir %s: '.' and '..' are not group names", part);
			return -EINVAL;
		}
		ret = vsched_write_str(vs, parent, "cgroup.subtree_control", "+cpu");
		if (ret) {
			snprintf(msg, msglen, "%s/cgroup.subtree_control: +cpu: %s",
				 parent[0] ? parent : "", strerror(-ret));
			return ret;
		}
		ret = vsched_mkdir_threaded(vs, part);
		/* EEXIST is also a file of that name (kernfs): only an existing group is reused. */
		if (ret == -EEXIST && vsched_stat(vs, part, NULL, &(mode_t){ 0 })) {
			snprintf(msg, msglen, "mkdir %s: an interface file, not a group", part);
			return ret;
		}
		if (ret && ret != -EEXIST) {
			snprintf(msg, msglen, "mkdir %s: %s", part, strerror(-ret));
			return ret;
		}
		if (!slash)
			return 0;
		p = slash + 1;
	}
}

#define RUN_GROUP_ITEMS	16

struct run_group_item {
	const char *key, *file;
	char *val;
};

static bool run_group_has(const struct run_group_item *it, unsigned int n, const char *file)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (!strcmp(it[i].file, file))
			return true;
	return false;
}

/*
 * What a spec says once, before anything is written: taken in order, a second value of a file
 * ("weight=300,weight=400", or "weight" beside "cpu.weight"), a nice beside a weight (both set
 * the one weight) or a weight before idle=1 (which sets it) was dropped without a word, and an
 * empty value is a zero-length write, which changes nothing (as `vsched sim` refuses these).
 */
static int run_group_check(const struct run_group_item *it, unsigned int n, char *msg,
			   size_t msglen)
{
	unsigned int i, j;

	for (i = 0; i < n; i++) {
		if (!it[i].val[0]) {
			snprintf(msg, msglen, "'%s=': no value", it[i].key);
			return -EINVAL;
		}
		for (j = 0; j < i; j++)
			if (!strcmp(it[i].file, it[j].file)) {
				snprintf(msg, msglen, "'%s' and '%s' both set %s: give it once",
					 it[j].key, it[i].key, it[i].file);
				return -EINVAL;
			}
	}
	if (run_group_has(it, n, "cpu.weight") && run_group_has(it, n, "cpu.weight.nice")) {
		snprintf(msg, msglen, "weight and nice set the one weight: give one");
		return -EINVAL;
	}
	for (i = 0; i < n; i++)
		if (!strcmp(it[i].file, "cpu.idle") && strcmp(it[i].val, "0") &&
		    (run_group_has(it, n, "cpu.weight") ||
		     run_group_has(it, n, "cpu.weight.nice"))) {
			snprintf(msg, msglen, "idle=%s sets the weight (an idle group's is fixed): "
				 "no weight or nice beside it", it[i].val);
			return -EINVAL;
		}
	return 0;
}

int run_group_add(struct vsched *vs, const char *spec, char *msg, size_t msglen)
{
	char buf[1024], *path, *opts, *item, *save = NULL;
	struct run_group_item it[RUN_GROUP_ITEMS];
	unsigned int n = 0, i;
	int ret;

	if (strlen(spec) >= sizeof(buf)) {
		snprintf(msg, msglen, "spec too long");
		return -E2BIG;
	}
	strcpy(buf, spec);
	path = buf;
	opts = strchr(buf, ':');
	if (opts)
		*opts++ = '\0';
	while (*path == '/')
		path++;
	if (!*path) {
		snprintf(msg, msglen, "no group path (want PATH[:KEY=VALUE,...])");
		return -EINVAL;
	}
	for (item = opts ? strtok_r(opts, ",", &save) : NULL; item;
	     item = strtok_r(NULL, ",", &save)) {
		char *val = strchr(item, '=');
		const char *file;
		size_t len;

		if (!val) {
			snprintf(msg, msglen, "'%s': want KEY=VALUE", item);
			return -EINVAL;
		}
		*val++ = '\0';
		file = run_group_file(item);
		if (!file) {
			snprintf(msg, msglen, "unknown key '%s' (weight, nice, max, burst, idle, "
				 "or a file name)", item);
			return -EINVAL;
		}
		len = strlen(val);
		if (len >= 2 && val[0] == '"' && val[len - 1] == '"') {
			val[len - 1] = '\0';
			val++;
		}
		if (n == RUN_GROUP_ITEMS) {
			snprintf(msg, msglen, "more than %d settings", RUN_GROUP_ITEMS);
			return -E2BIG;
		}
		it[n++] = (struct run_group_item){ item, file, val };
	}
	ret = run_group_check(it, n, msg, msglen);
	if (!ret)
		ret = run_group_mkdir(vs, path, msg, msglen);
	if (ret)
		return ret;
	for (i = 0; i < n; i++) {
		ret = vsched_write_str(vs, path, it[i].file, it[i].val);
		if (ret) {
			snprintf(msg, msglen, "%s/%s: '%s': %s", path, it[i].file, it[i].val,
				 strerror(-ret));
			return ret;
		}
	}
	return 0;
}

int run_group_assign(struct vsched *vs, const char *spec, char *msg, size_t msglen)
{
	char buf[1024], *path;
	int ret;

	if (strlen(spec) >= sizeof(buf)) {
		snprintf(msg, msglen, "spec too long");
		return -E2BIG;
	}
	strcpy(buf, spec);
	path = strchr(buf, '=');
	if (!path || path == buf) {
		snprintf(msg, msglen, "want CPUSET=PATH, e.g. 0-1=web/fe");
		return -EINVAL;
	}
	*path++ = '\0';
	/* "0=$G" with G unset would move the vCPUs to the root without a word. */
	if (!*path) {
		snprintf(msg, msglen, "no group path after '=' (want CPUSET=PATH; '/' is the root)");
		return -EINVAL;
	}
	ret = vsched_assign(vs, buf, path);
	if (ret)
		snprintf(msg, msglen, "vCPUs %s to '%s': %s", buf, path, strerror(-ret));
	return ret;
}
