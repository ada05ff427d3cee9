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
		 "joined to the host scheduler shows its group there (host=/machine/NAME).\n",
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
	printf("%-20s %-8d %s lanes=%u vms=%u\n", LIST_HOST_NAME, (int)w.pid,
	       list_host_dir(dir, sizeof(dir)), w.nr_lanes, w.nr_vms);
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
		printf(" host=%s", list_word(host, sizeof(host), e->host));
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
