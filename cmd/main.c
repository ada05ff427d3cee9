// SPDX-License-Identifier: GPL-2.0
/*
 * vsched: a KVM VMM whose vCPUs are scheduled in cgroup-v2-like groups. Subcommand dispatch:
 * one row per cmd/cmd_NAME.c, which parses its own options from its table (cmd/cmd_opt.c).
 */
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"

#define VSCHED_VERSION "0.1"

static int cmd_help(int argc, char **argv);

/* `vsched COMMAND --help` (or -h), which the top-level help promises for every command. */
static bool help_asked(int argc, char **argv)
{
	return argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"));
}

/* Neither takes arguments: one given is a typo or a misplaced option, not something to drop. */
static int no_args(int argc, char **argv)
{
	if (argc <= 1 || help_asked(argc, argv))
		return 0;
	fprintf(stderr, "vsched: '%s' takes no arguments (got '%s')\n", argv[0], argv[1]);
	return CMD_EXIT_USAGE;
}

static int cmd_version(int argc, char **argv)
{
	if (no_args(argc, argv))
		return CMD_EXIT_USAGE;
	if (help_asked(argc, argv)) {
		printf("usage: vsched version\nPrints the version of vsched.\n");
		return 0;
	}
	printf("vsched %s\n", VSCHED_VERSION);
	return 0;
}

static const struct cmd cmds[] = {
	{ "help", cmd_help, "list the subcommands" },
	{ "version", cmd_version, "print the version" },
	{ "run", cmd_run, "start a VM (payload guests or Linux)" },
	{ "host", cmd_host, "the host scheduler: one group tree for every VM (docs/host.md)" },
	{ "list", cmd_list, "list running VMs and their control directories" },
	{ "top", cmd_top, "live view of running VMs' groups and vCPUs (like systemd-cgtop)" },
	{ "sim", cmd_sim, "simulate a scenario file on the scheduler core" },
	{ "apply", cmd_apply, "apply a domain XML's cputune and vCPU groups to a running VM" },
	{ "hook", cmd_hook, "libvirt QEMU hook (installed in /etc/libvirt/hooks/qemu.d/)" },
};

static int cmd_help(int argc, char **argv)
{
	size_t i;

	if (no_args(argc, argv))
		return CMD_EXIT_USAGE;
	printf("usage: vsched COMMAND [ARGS]\n\ncommands:\n");
	for (i = 0; i < ARRAY_SIZE(cmds); i++)
		printf("  %-10s %s\n", cmds[i].name, cmds[i].summary);
	printf("\n'vsched COMMAND --help' gives a command's options; man vsched has the rest.\n");
	return 0;
}

/*
 * What a command printed must have reached stdout: `vsched apply --dry-run > plan` on a full
 * disk, `vsched list`, `vsched version` exited 0 with the output lost (`vsched sim` alone
 * checked). A closed pipe is no error (`vsched run | head`, which ignores SIGPIPE, exits 0).
 */
static int stdout_check(const char *name, int ret)
{
	struct pollfd p = { .fd = STDOUT_FILENO, .events = POLLOUT };
	int err;

	errno = 0;
	if (ret || (!fflush(stdout) && !ferror(stdout)))
		return ret;
	err = errno;
	/* Asked, not taken from errno: a write that failed earlier left no errno behind. */
	if (err == EPIPE || (poll(&p, 1, 0) == 1 && (p.revents & POLLERR)))
		return ret;
	/* An earlier write's errno is gone (top -b flushes each snapshot itself). */
	if (err)
		fprintf(stderr, "vsched %s: writing standard output: %s\n", name, strerror(err));
	else
		fprintf(stderr, "vsched %s: writing standard output failed\n", name);
	return 1;
}

int main(int argc, char **argv)
{
	size_t i;

	if (argc < 2)
		return stdout_check("help", cmd_help(argc, argv));
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))
		return stdout_check("help", cmd_help(argc - 1, argv + 1));
	if (!strcmp(argv[1], "--version"))
		return stdout_check("version", cmd_version(argc - 1, argv + 1));
	for (i = 0; i < ARRAY_SIZE(cmds); i++)
		if (!strcmp(argv[1], cmds[i].name))
			return stdout_check(cmds[i].name, cmds[i].fn(argc - 1, argv + 1));
	fprintf(stderr, "vsched: unknown command '%s' (see 'vsched help')\n", argv[1]);
	return CMD_EXIT_USAGE;
}
