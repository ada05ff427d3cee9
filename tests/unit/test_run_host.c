// SPDX-License-Identifier: GPL-2.0
/*
 * `vsched run --host --partition/--weight/--max`: the rules between the flags, the values
 * checked as the interface files check them, and the host scheduler's socket.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "cmd/run.h"
#include "libvirt/apply.h"
#include "libvirt/partition.h"
#include "test.h"

static void quiet_stderr(void)
{
	int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);

	dup2(fd, 2);
	close(fd);
}

/* run_parse() of a command line split at blanks, its messages kept out of the test output. */
static int parse(const char *line, struct run_cfg *cfg)
{
	static char buf[512];
	char *argv[32], *save = NULL, *tok;
	int argc = 0, err, ret;

	snprintf(buf, sizeof(buf), "run %s", line);
	for (tok = strtok_r(buf, " ", &save); tok && argc < 31; tok = strtok_r(NULL, " ", &save))
		argv[argc++] = strcmp(tok, "QP") ? tok : (char *)"50000 100000";
	argv[argc] = NULL;
	fflush(stderr);
	err = dup(2);
	quiet_stderr();
	ret = run_parse(argc, argv, cfg);
	fflush(stderr);
	dup2(err, 2);
	close(err);
	return ret;
}

static void test_run_host_flags(void)
{
	static const char *const bad[] = {
		/* The VM group's settings need --host. */
		"--partition /machine", "--weight 200", "--max QP",
		/* The values, as cpu.weight and cpu.max take them. */
		"--host --weight 0", "--host --weight 10001", "--host --weight 2x",
		"--host --weight -5", "--host --max 500", "--host --max bogus",
		"--host --max x5", "--host --weight",
		/* A partition is an absolute group path below the root. */
		"--host --partition machine", "--host --partition /", "--host --partition /a//b",
		"--host --partition /a/", "--host --partition /cpu.max", "--host --partition /a/..",
		"--host --partition /.hidden", "--host --partition /a b",
		/* The daemon owns the lanes; --no-sched schedules nothing; its lanes float. */
		"--host --cpus 2", "--host --no-sched", "--host --no-pin",
	};
	struct run_cfg cfg;
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int ret = parse(bad[i], &cfg);

		if (ret != -EINVAL)
			printf("\n    '%s': %d, want -EINVAL\n", bad[i], ret);
		CU_ASSERT_EQUAL(ret, -EINVAL);
	}
	CU_ASSERT_EQUAL_FATAL(parse("--host --partition /machine/t1 --weight 200 --max QP", &cfg),
			      0);
	CU_ASSERT_TRUE(cfg.host);
	CU_ASSERT_STRING_EQUAL(cfg.partition, "/machine/t1");
	CU_ASSERT_STRING_EQUAL(cfg.weight, "200");
	CU_ASSERT_STRING_EQUAL(cfg.max, "50000 100000");
	/* Parsed once, here: what the join sends. */
	CU_ASSERT_EQUAL(cfg.host_weight, 200);
	CU_ASSERT_EQUAL(cfg.host_quota_us, 50000);
	CU_ASSERT_EQUAL(cfg.host_period_us, 100000);
	CU_ASSERT_FALSE(cfg.demo);
	CU_ASSERT_EQUAL_FATAL(parse("--host --max max", &cfg), 0);
	CU_ASSERT_PTR_NULL(cfg.partition);
	CU_ASSERT_PTR_NULL(cfg.weight);
	CU_ASSERT_STRING_EQUAL(cfg.max, "max");
	CU_ASSERT_EQUAL(cfg.host_weight, 0);
	CU_ASSERT_EQUAL(cfg.host_quota_us, UINT64_MAX);
	/* One number keeps the period, as in cpu.max. */
	CU_ASSERT_EQUAL(parse("--host --max 50000", &cfg), 0);
	CU_ASSERT_EQUAL(cfg.host_quota_us, 50000);
	CU_ASSERT_EQUAL(cfg.host_period_us, 100000);
	/* Without --host nothing of it is set: the embedded run as before. */
	CU_ASSERT_EQUAL_FATAL(parse("--payload hog", &cfg), 0);
	CU_ASSERT_FALSE(cfg.host);
	CU_ASSERT_PTR_NULL(cfg.weight);
}

/* run_host_parse() of one partition, weight and max (NULL: not given). */
static int host_parse(const char *partition, const char *weight, const char *max,
		      struct run_cfg *cfg, char *msg, size_t msglen)
{
	*cfg = (struct run_cfg){ .partition = partition, .weight = weight, .max = max };
	return run_host_parse(cfg, msg, msglen);
}

static void test_run_host_valid(void)
{
	char msg[512], why[256];
	struct run_cfg cfg;

	CU_ASSERT_EQUAL(host_parse("/machine", "1", "max 1000000", &cfg, msg, sizeof(msg)), 0);
	CU_ASSERT_EQUAL(cfg.host_weight, 1);
	CU_ASSERT_EQUAL(cfg.host_quota_us, UINT64_MAX);
	CU_ASSERT_EQUAL(cfg.host_period_us, 1000000);
	CU_ASSERT_EQUAL(host_parse(NULL, "10000", "1000 1000", &cfg, msg, sizeof(msg)), 0);
	CU_ASSERT_EQUAL(cfg.host_weight, 10000);
	CU_ASSERT_EQUAL(cfg.host_quota_us, 1000);
	CU_ASSERT_EQUAL(host_parse(NULL, "0", NULL, &cfg, msg, sizeof(msg)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(msg, "weight '0' (1-10000, as cpu.weight)");
	/* cpu.max's range rules are the setter's: period above 1 s, quota below 1 ms or 2^44. */
	CU_ASSERT_EQUAL(host_parse(NULL, NULL, "max 1000001", &cfg, msg, sizeof(msg)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "max 'max 1000001' (\"QUOTA PERIOD\""));
	CU_ASSERT_EQUAL(host_parse(NULL, NULL, "999 100000", &cfg, msg, sizeof(msg)), -EINVAL);
	CU_ASSERT_EQUAL(host_parse(NULL, NULL, "17592186044416 100000", &cfg, msg, sizeof(msg)),
			-EINVAL);
	CU_ASSERT_EQUAL(host_parse(NULL, NULL, "17592186044415 100000", &cfg, msg, sizeof(msg)),
			0);
	CU_ASSERT_EQUAL(host_parse("tenant", NULL, NULL, &cfg, msg, sizeof(msg)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(msg, "partition 'tenant': Partition path 'tenant' must start "
			       "with '/'");

	CU_ASSERT_EQUAL(partition_check("/machine/a-b_c.d/x1", why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(partition_check("/a/b/c/d/e/f/g/h/i/j/k/l/m/n/o/p", why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(partition_check("/a/b/c/d/e/f/g/h/i/j/k/l/m/n/o/p/q", why, sizeof(why)),
			-EINVAL);
	CU_ASSERT_STRING_EQUAL(why, "a partition is at most 16 groups deep");
	CU_ASSERT_EQUAL(partition_check("/m/vsched.vcpus", why, sizeof(why)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "part 'vsched.vcpus': the name of a cgroup control"));
	CU_ASSERT_EQUAL(partition_check("/m//", why, sizeof(why)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(why, "an empty part ('//')");
	/* A part of 65 characters. */
	CU_ASSERT_EQUAL(partition_check("/m/xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
					"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", why, sizeof(why)),
			-EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "a group name has 1 to 64 characters"));
	CU_ASSERT_EQUAL(partition_check("/m\n", why, sizeof(why)), -EINVAL);
}

/* --host without a daemon: the socket is missing or nobody listens on it. */
static void test_run_host_check(void)
{
	char dir[] = "/tmp/vsched-runhost-XXXXXX", sock[64];
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	const char *old = getenv("VSCHED_RUN_DIR");
	struct run_cfg cfg = { .host = true };
	int fd, err;

	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	setenv("VSCHED_RUN_DIR", dir, 1);
	snprintf(sock, sizeof(sock), "%s/host.sock", dir);
	fflush(stderr);
	err = dup(2);
	quiet_stderr();
	CU_ASSERT_EQUAL(run_host_check(&cfg), -ENOENT);
	/* A socket file left by a daemon that died: refused, not joined. */
	fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", sock);
	CU_ASSERT_EQUAL(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	close(fd);
	CU_ASSERT_EQUAL(run_host_check(&cfg), -ECONNREFUSED);
	fflush(stderr);
	dup2(err, 2);
	close(err);
	unlink(sock);
	rmdir(dir);
	if (old)
		setenv("VSCHED_RUN_DIR", old, 1);
	else
		unsetenv("VSCHED_RUN_DIR");
}

/*
 * A VM named host or host.sock had the host scheduler's directory or socket for its control
 * directory: mounted over the socket, no VM could join the daemon ("Input/output error"); and
 * `vsched apply` of a domain named host wrote into the daemon's root. Another directory, or
 * none, is fine.
 */
static void test_run_host_names(void)
{
	char dir[] = "/tmp/vsched-ut-names.XXXXXX", path[PATH_MAX], cmd[64];
	struct run_cfg cfg;

	CU_ASSERT_EQUAL(parse("--name host", &cfg), -EINVAL);
	CU_ASSERT_EQUAL(parse("--name host.sock", &cfg), -EINVAL);
	CU_ASSERT_EQUAL(parse("--name host --no-ctl", &cfg), 0);
	CU_ASSERT_EQUAL(parse("--name host.sock --ctl-dir /tmp/x", &cfg), 0);
	CU_ASSERT_EQUAL(parse("--name hosts", &cfg), 0);
	/* Joined, the VM's group /machine/NAME: an interface file's name read "File exists". */
	CU_ASSERT_EQUAL(parse("--host --name cpu.weight", &cfg), -EINVAL);
	CU_ASSERT_EQUAL(parse("--host --name cgroup.procs --partition /p", &cfg), -EINVAL);
	CU_ASSERT_EQUAL(parse("--host --name cpu.weight2", &cfg), 0);
	CU_ASSERT_EQUAL(parse("--name cpu.weight", &cfg), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	setenv("VSCHED_RUN_DIR", dir, 1);
	snprintf(path, sizeof(path), "%s/host", dir);
	CU_ASSERT_EQUAL(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/vm1", dir);
	CU_ASSERT_EQUAL(mkdir(path, 0755), 0);
	CU_ASSERT_FALSE(apply_is_vsched("host", path, sizeof(path)));
	CU_ASSERT_TRUE(apply_is_vsched("vm1", path, sizeof(path)));
	unsetenv("VSCHED_RUN_DIR");
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	CU_ASSERT_EQUAL(system(cmd), 0);
}

/* An output is no input: --stats or --trace naming the domain or kernel replaced it at exit. */
static void test_run_outputs(void)
{
	char k[] = "/tmp/vsched-ut-out.XXXXXX", line[256];
	struct run_cfg cfg;
	int fd = mkstemp(k);

	CU_ASSERT_TRUE_FATAL(fd >= 0);
	close(fd);
	snprintf(line, sizeof(line), "--accel kvm --kernel %s --stats %s", k, k);
	CU_ASSERT_EQUAL(parse(line, &cfg), -EINVAL);
	snprintf(line, sizeof(line), "--accel kvm --kernel /x --initrd %s --trace /tmp/../%s", k,
		 k);
	CU_ASSERT_EQUAL(parse(line, &cfg), -EINVAL);
	snprintf(line, sizeof(line), "--accel kvm --kernel %s --stats /tmp/../%s", k, k);
	CU_ASSERT_EQUAL(parse(line, &cfg), -EINVAL);
	snprintf(line, sizeof(line), "--accel kvm --kernel %s --stats %s.json", k, k);
	CU_ASSERT_EQUAL(parse(line, &cfg), 0);
	unlink(k);
}

static CU_TestInfo run_host_tests[] = {
	{ "flags and their rules", test_run_host_flags },
	{ "values as the interface files take them", test_run_host_valid },
	{ "no daemon", test_run_host_check },
	{ "a VM named as the host scheduler's entries", test_run_host_names },
	{ "an output is no input", test_run_outputs },
	CU_TEST_INFO_NULL,
};

TEST_SUITE("cmd/run --host", run_host_tests)
