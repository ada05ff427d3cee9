// SPDX-License-Identifier: GPL-2.0
/*
 * `vsched host`: the host scheduler daemon (host/, docs/host.md). Foreground, systemd-friendly:
 * it listens on <run dir>/host.sock, mounts the whole tree at <run dir>/host/ and serves until
 * SIGINT, SIGTERM or SIGHUP (a closed terminal: killed by it, it would leave its mount); then
 * the VMs that joined fall back to unscheduled (their VMMs say so) and join again when a daemon
 * returns.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/run.h"
#include "ctl/ctl.h"
#include "host/host.h"
#include "host/proto.h"
#include "util/file.h"
#include "util/pidfile.h"
#include "util/registry.h"
#include "util/sdnotify.h"
#include "vmm/opts.h"

struct host_cfg {
	unsigned int cpus;
	unsigned int max_vcpus;
	const char *pidfile;
	bool no_ctl;
};

static int host_set_cpus(void *arg, const char *val)
{
	return opts_parse_uint(val, 1, 1024, &((struct host_cfg *)arg)->cpus);
}

static int host_set_max_vcpus(void *arg, const char *val)
{
	return opts_parse_uint(val, 1, 1024, &((struct host_cfg *)arg)->max_vcpus);
}

static const struct cmd_opt host_opts[] = {
	{ "cpus", 'P', "N", host_set_cpus, 0, "1-1024",
	  "lanes: host CPUs the VMs' vCPUs share (default: the CPUs\n"
	  "in this process's affinity mask)" },
	{ "max-vcpus", 0, "N", host_set_max_vcpus, 0, "1-1024",
	  "vCPUs of all joined VMs together (default 256)" },
	{ "pidfile", 0, "FILE", NULL, offsetof(struct host_cfg, pidfile), NULL,
	  "write the daemon's pid there (removed at exit)" },
	{ "no-ctl", 0, NULL, NULL, offsetof(struct host_cfg, no_ctl), NULL,
	  "no control directory (default <run dir>/host)" },
};

static const struct cmd_desc host_desc = {
	.prog = "vsched host", .usage = "[OPTIONS]",
	.about = "The host scheduler: one group tree for every VM started with\n"
		 "'vsched run --host' (docs/host.md). Runs in the foreground until SIGINT,\n"
		 "SIGTERM or SIGHUP.\n",
	.opts = host_opts, .nr_opts = ARRAY_SIZE(host_opts),
};

/* A change in the directory below a VM group is its VMM's (host/host_fwd.c). */
static int host_ctl_forward(enum ctl_fwd_op op, const char *group, const char *file,
			    const char *buf, size_t len, const struct vsched_move_perm *perm,
			    void *arg)
{
	static const unsigned int ops[] = {
		[CTL_FWD_WRITE] = HOST_CTL_WRITE, [CTL_FWD_MKDIR] = HOST_CTL_MKDIR,
		[CTL_FWD_RMDIR] = HOST_CTL_RMDIR,
	};

	return host_forward(arg, ops[op], group, file, buf, len, perm);
}

/* A group the daemon removed itself: its directory forgets its owners and modes. */
static void host_ctl_gone(void *arg, const char *path)
{
	ctl_forget(arg, path);
}

/* The directory's modes and files' owners, saved with the tree (host/host_owners.c). */
static char *host_ctl_attrs_save(void *arg)
{
	return ctl_attrs_save(arg);
}

static int host_ctl_attr_load(void *arg, const char *rec)
{
	return ctl_attr_load(arg, rec);
}

/*
 * SIGINT, SIGTERM and SIGHUP, blocked from the start and read by host_run() through a signalfd:
 * one that came between the socket's listen() and the mask killed the daemon (exit 143, its
 * socket, mount and pid file left behind), and every thread made before the mask could take it.
 */
static void host_signals(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGHUP);
	sigprocmask(SIG_BLOCK, set, NULL);
}

static int host_serve(struct host *h, const struct host_cfg *cfg, unsigned int lanes,
		      const char *sock)
{
	char dir[4096], tree[4096];
	struct host_state *st = NULL;
	unsigned int refused;
	struct ctl *ctl = NULL;
	bool mounted;
	sigset_t set;
	int sfd, ret;

	/* The partitions and their settings as the last daemon left them (host_state.c). */
	snprintf(tree, sizeof(tree), "%s/" REGISTRY_HOST_TREE, registry_run_dir());
	ret = host_state_restore(h, tree, &refused);
	if (ret < 0)
		fprintf(stderr, "vsched host: %s: %s; the tree starts empty\n", tree,
			strerror(-ret));
	else if (ret || refused)
		fprintf(stderr, "vsched host: the tree above the VMs restored from %s (%d steps"
			", %u refused)\n", tree, ret, refused);
	snprintf(dir, sizeof(dir), "%s/" REGISTRY_HOST_DIR, registry_run_dir());
	/*
	 * <run dir>/host is the daemon's (it holds the socket): without a directory of its own,
	 * one a killed daemon left mounted goes, as ctl_mount() cleans it. It stayed dead
	 * (ENOTCONN: `ls` of the run directory showed it as d?????????).
	 */
	if (cfg->no_ctl && !ctl_dir_clean(dir))
		rmdir(dir);
	if (!cfg->no_ctl) {
		ret = ctl_mount(host_vsched(h), dir, &ctl);
		if (!ret) {
			ctl_set_forward(ctl, host_ctl_forward, h);
			host_set_gone(h, host_ctl_gone, ctl);
			host_set_attrs(h, host_ctl_attrs_save, host_ctl_attr_load, ctl);
		}
		if (ret)
			fprintf(stderr, "vsched host: no control directory %s (%s); running "
				"without one\n", dir, strerror(-ret));
	}
	host_signals(&set);
	sfd = signalfd(-1, &set, SFD_CLOEXEC);
	/* After the mask: its thread inherits it (a SIGTERM there ended the daemon). */
	ret = host_state_start(h, tree, &st);
	if (ret)
		fprintf(stderr, "vsched host: %s not kept: %s\n", tree, strerror(-ret));
	fprintf(stderr, "vsched host: %u lanes, listening on %s%s%s\n",
		lanes, sock, ctl ? ", control directory " : "", ctl ? ctl_dir(ctl) : "");
	/* A Type=notify unit: started once a VM can join (and its directory is there). */
	if (sfd >= 0 && sdnotify("READY=1") < 0)
		fprintf(stderr, "vsched host: NOTIFY_SOCKET %s: cannot send READY=1\n",
			getenv("NOTIFY_SOCKET"));
	ret = sfd < 0 ? -errno : host_run(h, sfd);
	sdnotify("STOPPING=1");
	host_state_stop(st);
	if (sfd >= 0)
		close(sfd);
	mounted = ctl;
	ctl_unmount(ctl);
	/* <run dir>/host is the daemon's own, also when a daemon killed before made it. */
	if (mounted)
		rmdir(dir);
	return ret;
}

int cmd_host(int argc, char **argv)
{
	struct host_cfg cfg = { 0 };
	struct host_opts o = { 0 };
	char sock[108];
	bool pid_written = false;
	struct host *h;
	sigset_t set;
	int ret;

	ret = cmd_parse(&host_desc, argc, argv, &cfg, NULL);
	if (ret <= 0)
		return ret ? CMD_EXIT_USAGE : 0;
	host_signals(&set);
	o.nr_lanes = cfg.cpus ? cfg.cpus : run_sched_lanes();
	o.max_vcpus = cfg.max_vcpus;
	if (snprintf(sock, sizeof(sock), "%s/%s", registry_run_dir(), HOST_SOCK_NAME) >=
	    (int)sizeof(sock)) {
		fprintf(stderr, "vsched host: run directory path too long\n");
		return 1;
	}
	/* A new user's first error: name the directory (set by VSCHED_RUN_DIR). */
	ret = file_mkdir_p(registry_run_dir(), 0755, NULL);
	if (ret) {
		fprintf(stderr, "vsched host: run directory %s: %s\n", registry_run_dir(),
			strerror(-ret));
		return 1;
	}
	ret = host_create(&o, &h);
	if (ret) {
		fprintf(stderr, "vsched host: %s\n", strerror(-ret));
		return 1;
	}
	host_pin_daemon(h);
	ret = host_listen(h, sock);
	if (ret == -EADDRINUSE)
		fprintf(stderr, "vsched host: another host scheduler is running at %s\n", sock);
	else if (ret)
		fprintf(stderr, "vsched host: %s: %s\n", sock, strerror(-ret));
	if (!ret && cfg.pidfile) {
		ret = pidfile_write(cfg.pidfile);
		if (ret)
			fprintf(stderr, "vsched host: --pidfile %s: %s\n", cfg.pidfile,
				ret == -EEXIST ? "held by a live process" : strerror(-ret));
		pid_written = !ret;
	}
	if (!ret && (ret = host_serve(h, &cfg, o.nr_lanes, sock)))
		fprintf(stderr, "vsched host: %s\n", strerror(-ret));
	if (pid_written)
		pidfile_remove(cfg.pidfile);
	host_destroy(h);
	return ret ? 1 : 0;
}
