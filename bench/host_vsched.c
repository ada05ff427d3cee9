// SPDX-License-Identifier: GPL-2.0
/*
 * bench-host, vsched side, through the command line as a user runs it (docs/host.md):
 *   vsched host --cpus LANES                        (run dir: a private $VSCHED_RUN_DIR)
 *   partitions' cpu.weight and cpu.max written in <run dir>/host/PART/
 *   vsched run --host --name VM --partition /PART --weight W --vcpus N --payload hog
 *              --accel ACCEL --no-ctl --duration D
 * Each VMM's process CPU is the VM's CPU (a vCPU without a lane waits, it does not spin).
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "host_bench.h"
#include "util/compiler.h"
#include "util/file.h"
#include "work.h"

#define HV_WAIT_NS	5000000000ULL	/* for the daemon to listen and a VM to join */

extern char **environ;

struct hv {
	char dir[64];		/* the run dir */
	char env[128];		/* VSCHED_RUN_DIR=dir */
	pid_t daemon;
	pid_t vms[HB_MAX_VMS];
};

static void __printf(3, 4) say(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
}

/* argv with the run dir in the environment; output to log (appended) or /dev/null. */
static pid_t spawn(struct hv *h, char *const argv[], const char *log)
{
	char *env[] = { h->env, "PATH=/usr/bin:/bin", NULL };
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int ret;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, log ? log : "/dev/null",
					 O_WRONLY | O_CREAT | O_APPEND, 0644);
	ret = posix_spawn(&pid, argv[0], &fa, NULL, argv, env);
	posix_spawn_file_actions_destroy(&fa);
	return ret ? -1 : pid;
}

/* Exit status of a finished command, -1 if it did not end normally. */
static int wait_status(pid_t pid)
{
	int st;

	if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

int hb_vsched_probe(const char *vsched, char *why, size_t len)
{
	struct hv h = { .env = "VSCHED_RUN_DIR=/nonexistent" };
	char *argv[] = { (char *)vsched, "host", "--help", NULL };
	pid_t pid = spawn(&h, argv, NULL);

	if (pid < 0 || wait_status(pid) != 0) {
		say(why, len, "this vsched has no `host` command: the host scheduler daemon is not "
		    "built in");
		return -ENOSYS;
	}
	return 0;
}

static bool hv_listening(const struct hv *h)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	bool ok;

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/host.sock", h->dir);
	ok = fd >= 0 && !connect(fd, (struct sockaddr *)&sa, sizeof(sa));
	if (fd >= 0)
		close(fd);
	return ok;
}

/* Waits for path to exist (the daemon's tree shows a joined VM's group). */
static bool hv_wait_path(const char *path)
{
	uint64_t end = time_mono_ns() + HV_WAIT_NS;

	while (access(path, F_OK) && time_mono_ns() < end)
		sleep_ns(10000000);
	return !access(path, F_OK);
}

/* A partition made and set through the daemon's control directory, as an admin would. */
static int hv_part(struct hv *h, const struct hb_part *p, char *why, size_t len)
{
	char dir[256], path[320], val[64];
	int err = 0;

	snprintf(path, sizeof(path), "%s/host/cgroup.subtree_control", h->dir);
	file_write(path, "+cpu", 4);	/* may be on already */
	snprintf(dir, sizeof(dir), "%s/host/%s", h->dir, p->name);
	snprintf(path, sizeof(path), "%s", dir);
	if (mkdir(dir, 0755) && errno != EEXIST)
		err = -errno;
	if (!err) {
		snprintf(path, sizeof(path), "%s/cpu.weight", dir);
		snprintf(val, sizeof(val), "%u", p->weight);
		err = file_write(path, val, strlen(val));
	}
	if (!err) {
		snprintf(path, sizeof(path), "%s/cpu.max", dir);
		if (p->quota_us)
			snprintf(val, sizeof(val), "%llu %llu", (unsigned long long)p->quota_us,
				 (unsigned long long)p->period_us);
		else
			snprintf(val, sizeof(val), "max");
		err = file_write(path, val, strlen(val));
	}
	if (err)
		say(why, len, "setting up %s: %s", path, strerror(-err));
	return err;
}

static void hv_stop(struct hv *h, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (h->vms[i] > 0) {
			kill(h->vms[i], SIGTERM);
			wait_status(h->vms[i]);
		}
	if (h->daemon > 0) {
		kill(h->daemon, SIGTERM);
		wait_status(h->daemon);
	}
}

static int hv_rm(const char *path, const struct stat *st __unused, int flag __unused,
		 struct FTW *ftw __unused)
{
	remove(path);
	return 0;
}

/* The run dir and what the VMMs left in it (.vms/); FTW_MOUNT: never into a mount left over. */
static void hv_rmtree(const char *dir)
{
	nftw(dir, hv_rm, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
}

/* Where the command called name writes its messages. */
static void hv_log(const struct hv *h, const char *name, char *buf, size_t len)
{
	snprintf(buf, len, "%s.%s.log", h->dir, name);
}

/* The first line a command wrote to its log: the message of what failed first. */
static void hv_first_line(const char *log, char *why, size_t len)
{
	char buf[1024];

	if (file_read(log, buf, sizeof(buf)) || !buf[0])
		snprintf(buf, sizeof(buf), "(no message)");
	buf[strcspn(buf, "\n")] = '\0';
	say(why, len, "%s", buf);
}

int hb_vsched_run(const char *vsched, const char *accel, const struct hb_scn *s,
		  const struct hb_opts *o, struct hb_result *r, char *why, size_t len)
{
	char lanes[16], dur[32], log[128], part[80], path[320], msg[256];
	struct hv h = { 0 };
	unsigned int i;
	int err = 0;

	snprintf(h.dir, sizeof(h.dir), "/tmp/bench-host.XXXXXX");
	if (!mkdtemp(h.dir))
		return -errno;
	snprintf(h.env, sizeof(h.env), "VSCHED_RUN_DIR=%s", h.dir);
	hv_log(&h, "host", log, sizeof(log));
	snprintf(lanes, sizeof(lanes), "%u", o->lanes);
	snprintf(dur, sizeof(dur), "%.0fms", (o->warmup_s + o->window_s + 5) * 1000);
	char *host[] = { (char *)vsched, "host", "--cpus", lanes, NULL };

	h.daemon = spawn(&h, host, log);
	for (uint64_t end = time_mono_ns() + HV_WAIT_NS; !hv_listening(&h);) {
		if (time_mono_ns() > end || waitpid(h.daemon, NULL, WNOHANG)) {
			hv_first_line(log, msg, sizeof(msg));
			say(why, len, "vsched host did not listen: %s", msg);
			err = -ETIMEDOUT;
			goto out;
		}
		sleep_ns(10000000);
	}
	/* The socket listens before the control directory is mounted: a mkdir would miss it. */
	snprintf(path, sizeof(path), "%s/host/cgroup.procs", h.dir);
	if (!hv_wait_path(path)) {
		hv_first_line(log, msg, sizeof(msg));
		say(why, len, "vsched host has no control directory %s/host: %s", h.dir, msg);
		err = -ETIMEDOUT;
		goto out;
	}
	for (i = 0; i < s->nr_parts && !err; i++)
		err = hv_part(&h, &s->parts[i], why, len);
	for (i = 0; i < s->nr_vms && !err; i++) {
		const struct hb_vm *v = &s->vms[i];
		char w[16], n[16];

		snprintf(part, sizeof(part), "/%s", s->parts[v->part].name);
		snprintf(w, sizeof(w), "%u", v->weight);
		snprintf(n, sizeof(n), "%u", v->vcpus);
		char *run[32] = { (char *)vsched, "run", "--host", "--name", (char *)v->name,
				  "--partition", part, "--weight", w, "--vcpus", n, "--payload",
				  "hog", "--accel", (char *)accel, "--no-ctl", "--duration", dur };
		char grp[HB_MAX_GROUPS][2][64];
		unsigned int j, a = 18;

		/* Groups inside the VM, as today: --group NAME:weight=W --assign LIST=NAME. */
		for (j = 0; j < v->nr_grps; j++) {
			const struct hb_grp *g = &v->grps[j];

			snprintf(grp[j][0], sizeof(grp[j][0]), "%s:weight=%u", g->name, g->weight);
			snprintf(grp[j][1], sizeof(grp[j][1]), "%u-%u=%s", g->first,
				 g->first + g->n - 1, g->name);
			run[a++] = "--group";
			run[a++] = grp[j][0];
			run[a++] = "--assign";
			run[a++] = grp[j][1];
		}
		run[a] = NULL;
		hv_log(&h, v->name, log, sizeof(log));
		h.vms[i] = spawn(&h, run, log);
		snprintf(path, sizeof(path), "%s/host%s/%s", h.dir, part, v->name);
		if (h.vms[i] < 0 || !hv_wait_path(path)) {
			hv_first_line(log, msg, sizeof(msg));
			say(why, len, "VM %s did not join (no %s): %s", v->name, path, msg);
			err = -ETIMEDOUT;
		}
	}
	if (s->capped >= 0)
		snprintf(r->capped_stat, sizeof(r->capped_stat), "%s/host/%s/cpu.stat", h.dir,
			 s->parts[s->capped].name);
	if (!err && (err = hb_measure(s, o, h.vms, h.daemon, r)))
		say(why, len, "measuring: %s (a VMM or its vCPU threads, named vcpuN, not found)",
		    strerror(-err));
	for (i = 0; i < s->nr_vms && !err; i++)
		if (waitpid(h.vms[i], NULL, WNOHANG)) {
			hv_log(&h, s->vms[i].name, log, sizeof(log));
			hv_first_line(log, msg, sizeof(msg));
			say(why, len, "VM %s ended during the window: %s", s->vms[i].name, msg);
			err = -ECHILD;
		}
out:
	hv_stop(&h, s->nr_vms);
	hv_log(&h, "host", log, sizeof(log));
	unlink(log);
	for (i = 0; i < s->nr_vms; i++) {
		hv_log(&h, s->vms[i].name, log, sizeof(log));
		unlink(log);
	}
	hv_rmtree(h.dir);
	return err;
}
