// SPDX-License-Identifier: GPL-2.0
/* --group and --assign specs of `vsched run`, applied through the public API. */
#include <errno.h>
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

int run_group_add(struct vsched *vs, const char *spec, char *msg, size_t msglen)
{
	char buf[1024], *path, *opts, *item, *save = NULL;
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
	ret = run_group_mkdir(vs, path, msg, msglen);
	if (ret)
		return ret;
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
		ret = vsched_write_str(vs, path, file, val);
		if (ret) {
			snprintf(msg, msglen, "%s/%s: '%s': %s", path, file, val, strerror(-ret));
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
