// SPDX-License-Identifier: GPL-2.0
/*
 * `vsched list [--all]`: the host scheduler (`vsched host`, when one answers on its socket),
 * then running VMs from the registry (util/registry.c), those joined to it with their group in
 * its tree.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd/cmd.h"
#include "host/proto.h"
#include "sched/runtime.h"
#include "util/registry.h"
#include "util/word.h"

#define LIST_HOST_REPLY_MS	500	/* a daemon that does not answer a probe in this is skipped */
#define LIST_HOST_NAME		"(host scheduler)"	/* has a space: no VM is named so */

struct list_cfg {
	bool all;
	bool header;	/* printed */
	bool host_up;	/* a daemon of this build answered the probe */
	char host_dir[PATH_MAX];	/* its control directory, "" if none (--no-ctl) */
};

static void list_header(struct list_cfg *cfg)
{
	if (!cfg->header)
		printf("%-20s %-8s %s\n", "NAME", "PID", "CONTROL-DIR");
	cfg->header = true;
}

static const struct cmd_opt list_opts[] = {
	{ .name = "all", .key = 'a', .off = offsetof(struct list_cfg, all),
	  .help = "also list records left by VMMs that died (stale)" },
};

static const struct cmd_desc list_desc = {
	.prog = "vsched list", .usage = "[--all]",
	.about = "Lists the host scheduler (vsched host) when one runs, with its lanes and the VMs\n"
		 "joined to it, then running VMs with their pid and control directory; a VM\n"
		 "joined to the host scheduler shows its group there (host=/machine/NAME), one\n"
		 "that joined but runs unscheduled now (the daemon gone, not joined again yet)\n"
		 "host=fallback:/machine/NAME.\n",
	.opts = list_opts, .nr_opts = ARRAY_SIZE(list_opts),
};

/* Its control directory, <run dir>/host, when something is mounted there; else "-". */
static const char *list_host_dir(char *buf, size_t len)
{
	return registry_host_dir(buf, len, NULL) ? "-" : buf;
}

static void list_host(struct list_cfg *cfg)
{
	char sock[PATH_MAX], dir[PATH_MAX];
	struct runtime_host_info w;
	int ret;

	snprintf(sock, sizeof(sock), "%s/" HOST_SOCK_NAME, registry_run_dir());
	ret = runtime_host_probe(sock, LIST_HOST_REPLY_MS, &w);
	/* One of another build answers: shown, or a running daemon looked absent. */
	if (ret == -EPROTONOSUPPORT) {
		list_header(cfg);
		printf("%-20s %-8s %s another protocol than %u (restart it)\n", LIST_HOST_NAME,
		       "-", list_host_dir(dir, sizeof(dir)), HOST_PROTO_VERSION);
	}
	if (ret)
		return;
	list_header(cfg);
	cfg->host_up = true;
	if (registry_host_dir(cfg->host_dir, sizeof(cfg->host_dir), NULL))
		cfg->host_dir[0] = '\0';
	printf("%-20s %-8d %s lanes=%u vms=%u\n", LIST_HOST_NAME, (int)w.pid,
	       cfg->host_dir[0] ? cfg->host_dir : "-", w.nr_lanes, w.nr_vms);
}

/*
 * Whether a VM whose record names group is in the daemon's tree now. Its record is written once,
 * at its first join; a VM whose daemon died runs unscheduled (the fallback) until it joins a
 * new one, and its group is in that one's tree only from then on (the tree saved across
 * restarts is the one above VM groups). Without the daemon's directory (--no-ctl), an answering
 * daemon is all there is to go by.
 */
static bool list_joined(const struct list_cfg *cfg, const char *group)
{
	char path[PATH_MAX + REGISTRY_HOST_LEN];
	struct stat st;

	if (!cfg->host_up)
		return false;
	if (!cfg->host_dir[0])
		return true;
	snprintf(path, sizeof(path), "%s%s", cfg->host_dir, group);
	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

/* A name or path as one column (a VM may be named "web 1"); see word_escape(). */
static const char *list_word(char *buf, size_t len, const char *s)
{
	size_t n = 0;

	word_escape(buf, len, &n, s);
	return buf;
}

static int list_one(const struct registry_entry *e, void *arg)
{
	char name[4 * PATH_MAX], ctl[4 * PATH_MAX], host[4 * PATH_MAX];	/* \xNN: 4 bytes a byte */
	struct list_cfg *cfg = arg;

	list_header(cfg);
	if (!e->alive && !cfg->all)
		return 0;
	printf("%-20s %-8d %s", list_word(name, sizeof(name), e->name), (int)e->pid,
	       e->ctl[0] ? list_word(ctl, sizeof(ctl), e->ctl) : "-");
	if (e->host[0])
		printf(" host=%s%s", e->alive && !list_joined(cfg, e->host) ? "fallback:" : "",
		       list_word(host, sizeof(host), e->host));
	printf("%s\n", e->alive ? "" : " (stale)");
	return 0;
}

int cmd_list(int argc, char **argv)
{
	struct list_cfg cfg = { 0 };
	int ret = cmd_parse(&list_desc, argc, argv, &cfg, NULL);

	if (ret <= 0)
		return ret ? CMD_EXIT_USAGE : 0;
	list_host(&cfg);
	ret = registry_list(list_one, &cfg);
	if (ret) {
		fprintf(stderr, "vsched list: %s/.vms: %s\n", registry_run_dir(), strerror(-ret));
		return 1;
	}
	list_header(&cfg);
	return 0;
}
