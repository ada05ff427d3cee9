// SPDX-License-Identifier: GPL-2.0
/*
 * Differential tests against the running kernel's own cgroupfs: the same writes go to a scratch
 * cgroup and to a vsched group, and the errnos (and what reads back) must be the same. They run
 * when the test runs as root on a host with a writable cgroup2 mount (cgroup core files, and the
 * cpu.* files when the host has the cpu controller in cgroup v2) and/or a cgroup v1 cpu mount
 * (write_u64/write_s64 files, i.e. kstrtoull/kstrtoll). Otherwise each test is skipped and says
 * why. Inputs are a fixed list plus seeded random strings; values that wrap in the ns conversion
 * are left out of cpu.max/cpu.max.burst because kernels before 6.17 wrap them (docs say so).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "vs_test.h"
#include "util/compiler.h"
#include "util/file.h"
#include "sched/parse.h"

static char v2_mnt[1024], v1_cpu_mnt[1024];
static char v2_dir[1100], v2_cpu_dir[1200], v1_dir[1100];

/* Finds the cgroup2 mount and a v1 hierarchy carrying the cpu controller. */
static void kdiff_find_mounts(void)
{
	FILE *f = fopen("/proc/self/mountinfo", "r");
	char line[1024];

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char mnt[1024], *sep = strstr(line, " - ");
		char fstype[64], src[256], opts[512];

		if (!sep || sscanf(line, "%*s %*s %*s %*s %1023s", mnt) != 1 ||
		    sscanf(sep + 3, "%63s %255s %511s", fstype, src, opts) != 3)
			continue;
		if (!strcmp(fstype, "cgroup2") && !v2_mnt[0]) {
			snprintf(v2_mnt, sizeof(v2_mnt), "%s", mnt);
		} else if (!strcmp(fstype, "cgroup") && !v1_cpu_mnt[0]) {
			char *tok, *save = NULL;

			for (tok = strtok_r(opts, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
				if (!strcmp(tok, "cpu"))
					snprintf(v1_cpu_mnt, sizeof(v1_cpu_mnt), "%s", mnt);
		}
	}
	fclose(f);
}

static int kwrite(const char *dir, const char *file, const char *buf, size_t len)
{
	char path[PATH_MAX * 2];

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	return file_write(path, buf, len);
}

static int kread(const char *dir, const char *file, char *buf, size_t size)
{
	char path[PATH_MAX * 2];

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	return file_read(path, buf, size);
}

static bool kfile_has(const char *dir, const char *file, const char *word)
{
	char buf[512], *tok, *save = NULL;

	if (kread(dir, file, buf, sizeof(buf)))
		return false;
	for (tok = strtok_r(buf, " \n", &save); tok; tok = strtok_r(NULL, " \n", &save))
		if (!strcmp(tok, word))
			return true;
	return false;
}

static int kdiff_init(void)
{
	kdiff_find_mounts();
	if (geteuid() != 0)
		v2_mnt[0] = v1_cpu_mnt[0] = '\0';
	if (v2_mnt[0]) {
		snprintf(v2_dir, sizeof(v2_dir), "%s/vsched-unit-%d", v2_mnt, (int)getpid());
		if (mkdir(v2_dir, 0755)) {
			v2_dir[0] = '\0';
		} else if (kfile_has(v2_dir, "cgroup.controllers", "cpu") &&
			   !kwrite(v2_dir, "cgroup.subtree_control", "+cpu", 4)) {
			snprintf(v2_cpu_dir, sizeof(v2_cpu_dir), "%s/c", v2_dir);
			if (mkdir(v2_cpu_dir, 0755))
				v2_cpu_dir[0] = '\0';
		}
	}
	if (v1_cpu_mnt[0]) {
		snprintf(v1_dir, sizeof(v1_dir), "%s/vsched-unit-%d", v1_cpu_mnt, (int)getpid());
		if (mkdir(v1_dir, 0755))
			v1_dir[0] = '\0';
	}
	return 0;
}

static int kdiff_clean(void)
{
	if (v2_cpu_dir[0])
		rmdir(v2_cpu_dir);
	if (v2_dir[0]) {
		char t[PATH_MAX + 8];

		snprintf(t, sizeof(t), "%s/t", v2_dir);
		rmdir(t);
		rmdir(v2_dir);
	}
	if (v1_dir[0])
		rmdir(v1_dir);
	return 0;
}

/* Seeded random strings over an alphabet that reaches every branch of the parsers. */
static void kdiff_random(unsigned int *seed, const char *alpha, char *buf, size_t size)
{
	size_t len = (size_t)(rand_r(seed) % 10), k, n = strlen(alpha);

	for (k = 0; k < len && k + 1 < size; k++)
		buf[k] = alpha[rand_r(seed) % n];
	buf[k] = '\0';
	if (rand_r(seed) % 3 == 0)
		snprintf(buf + k, size - k, "%u", (unsigned int)rand_r(seed) % 2000000);
}

static const char *const fixed_ints[] = {
	"0", "1", "100", "100\n", "+100", "0x64", "0X64", "0144", "010", "08", "0x", "0xg",
	" 100", "100 ", "100\n\n", "\n", "1e2", "-1", "-0", "+-1", "--1", "+", "-", "max", " max\n",
	"18446744073709551615", "18446744073709551616", "99999999999999999999x",
	"9223372036854775807", "9223372036854775808", "-9223372036854775808", "2147483647",
	"2147483648", "-2147483649", "\xa0" "5\xa0", "5\t", "1 2", "0777", "0778",
};

struct kdiff_file {
	const char *kdir_name;	/* which scratch directory */
	const char *file;	/* same name on both sides, unless kfile is set */
	const char *kfile;
	const char *reset;	/* written to both before each input */
	const char *readback;	/* compared byte for byte after each input, or NULL */
	const char *readback2;
	bool no_long_numbers;	/* kernels before 6.17 wrap these in the ns conversion */
};

static int kdiff_compare(struct vsched *vs, const char *kdir, const struct kdiff_file *f,
			 const char *in, size_t len)
{
	const char *kfile = f->kfile ? f->kfile : f->file;
	const char *rb[2] = { f->readback, f->readback2 };
	int ke, me, i, bad = 0;

	if (f->reset) {
		kwrite(kdir, kfile, f->reset, strlen(f->reset));
		vsched_write_str(vs, "g", f->file, f->reset);
	}
	ke = kwrite(kdir, kfile, in, len);
	me = (int)vsched_write(vs, "g", f->file, in, len);
	if (me > 0)
		me = 0;
	if (ke != me) {
		fprintf(stderr, "%s \"%s\": kernel %d, vsched %d\n", kfile, in, ke, me);
		bad++;
	}
	for (i = 0; i < 2; i++) {
		char kb[256], mb[256];

		if (!rb[i])
			continue;
		if (kread(kdir, rb[i], kb, sizeof(kb)) ||
		    vsched_read(vs, "g", rb[i], mb, sizeof(mb)) < 0 || strcmp(kb, mb)) {
			fprintf(stderr, "%s after \"%s\": kernel \"%s\", vsched \"%s\"\n", rb[i], in,
				kb, mb);
			bad++;
		}
	}
	return bad;
}

static int kdiff_run(const char *kdir, const struct kdiff_file *f, const char *const *extra,
		     size_t nr_extra, const char *alpha)
{
	struct vsched *vs = vs_new(1);
	unsigned int seed = 12345, i;
	char buf[64];
	int bad = 0;

	if (!vs || vsched_mkdir(vs, "g"))
		return -1;
	for (i = 0; i < ARRAY_SIZE(fixed_ints); i++) {
		if (f->no_long_numbers && strlen(fixed_ints[i]) > 15)
			continue;
		bad += kdiff_compare(vs, kdir, f, fixed_ints[i], strlen(fixed_ints[i]));
	}
	for (i = 0; i < nr_extra; i++)
		bad += kdiff_compare(vs, kdir, f, extra[i], strlen(extra[i]));
	for (i = 0; i < 1500; i++) {
		kdiff_random(&seed, alpha, buf, sizeof(buf));
		bad += kdiff_compare(vs, kdir, f, buf, strlen(buf));
	}
	vsched_destroy(vs);
	return bad;
}

static const char int_alpha[] = " \t\n+-0x1789aAfFgm\xa0";

static void test_kdiff_v1_kstrtox(void)
{
	static const struct kdiff_file shares = { "v1", "cpu.weight", "cpu.shares" };
	static const struct kdiff_file idle = { "v1", "cpu.idle", NULL, "0" };
	unsigned int seed = 777, i;
	int bad = 0;

	if (!v1_dir[0]) {
		test_skip("no writable cgroup v1 cpu hierarchy (needs root)");
		return;
	}
	/* cpu.shares is write_u64: any value is taken (clamped), so only kstrtoull decides. */
	for (i = 0; i < ARRAY_SIZE(fixed_ints) + 3000; i++) {
		char buf[64];
		const char *in = buf;
		uint64_t v;
		int ke, me;

		if (i < ARRAY_SIZE(fixed_ints))
			in = fixed_ints[i];
		else
			kdiff_random(&seed, int_alpha, buf, sizeof(buf));
		ke = kwrite(v1_dir, shares.kfile, in, strlen(in));
		me = in[0] ? parse_u64(in, &v) : 0;
		if (ke != me) {
			fprintf(stderr, "cpu.shares \"%s\": kernel %d, parse_u64 %d\n", in, ke, me);
			bad++;
		}
	}
	CU_ASSERT_EQUAL(bad, 0);
	/* cpu.idle is the same handler in v1 and v2: kstrtoll, then 0 or 1 else EINVAL */
	CU_ASSERT_EQUAL(kdiff_run(v1_dir, &idle, NULL, 0, int_alpha), 0);
}

static void test_kdiff_v2_core(void)
{
	static const struct kdiff_file depth = { "v2", "cgroup.max.depth", NULL, "max",
						 "cgroup.max.depth" };
	static const struct kdiff_file desc = { "v2", "cgroup.max.descendants", NULL, "max",
						"cgroup.max.descendants" };
	static const struct kdiff_file type = { "v2", "cgroup.type", NULL, NULL, "cgroup.type" };
	static const char *const type_in[] = { "domain", "domain threaded", "threaded x",
					       "Threaded", "thread", "threadedd", "" };

	if (!v2_dir[0]) {
		test_skip("no writable cgroup2 mount (needs root)");
		return;
	}
	CU_ASSERT_EQUAL(kdiff_run(v2_dir, &depth, NULL, 0, int_alpha), 0);
	CU_ASSERT_EQUAL(kdiff_run(v2_dir, &desc, NULL, 0, int_alpha), 0);
	/* everything but "threaded" (one way, so it goes last, on a fresh child) */
	CU_ASSERT_EQUAL(kdiff_run(v2_dir, &type, type_in, ARRAY_SIZE(type_in), int_alpha), 0);
}

static void test_kdiff_v2_threaded(void)
{
	struct vsched *vs;
	char t[PATH_MAX + 8], kb[64], mb[64];

	if (!v2_dir[0]) {
		test_skip("no writable cgroup2 mount (needs root)");
		return;
	}
	vs = vs_new(1);
	snprintf(t, sizeof(t), "%s/t", v2_dir);
	CU_ASSERT_EQUAL_FATAL(mkdir(t, 0755), 0);
	CU_ASSERT_EQUAL(vsched_mkdir(vs, "g"), 0);
	CU_ASSERT_EQUAL(vsched_mkdir(vs, "g/t"), 0);
	CU_ASSERT_EQUAL(kwrite(t, "cgroup.type", " threaded\n", 10),
			(int)vsched_write(vs, "g/t", "cgroup.type", " threaded\n", 10) > 0 ? 0 : -1);
	CU_ASSERT_EQUAL(kread(t, "cgroup.type", kb, sizeof(kb)), 0);
	CU_ASSERT_TRUE(vsched_read(vs, "g/t", "cgroup.type", mb, sizeof(mb)) > 0);
	CU_ASSERT_STRING_EQUAL(kb, mb);
	CU_ASSERT_EQUAL(kread(v2_dir, "cgroup.type", kb, sizeof(kb)), 0);
	CU_ASSERT_TRUE(vsched_read(vs, "g", "cgroup.type", mb, sizeof(mb)) > 0);
	CU_ASSERT_STRING_EQUAL(kb, mb);	/* "domain threaded\n" */
	CU_ASSERT_EQUAL(kread(t, "cgroup.procs", kb, sizeof(kb)), -EOPNOTSUPP);
	CU_ASSERT_EQUAL(vsched_read(vs, "g/t", "cgroup.procs", mb, sizeof(mb)), -EOPNOTSUPP);
	vsched_destroy(vs);
}

/* Writes to read-only files and long names, through the C API and on the kernel's cgroup2. */
static void test_kdiff_v2_readonly_names(void)
{
	static const char *const ro[] = { "cgroup.events", "cgroup.stat", "cgroup.controllers" };
	static const size_t lens[] = { 0, 1, 4096, 4097 };
	static const size_t names[] = { 255, 256, 1025, 4000 };
	char *buf = malloc(5000), path[PATH_MAX * 2];
	struct vsched *vs;
	size_t i, k;

	if (!v2_dir[0]) {
		test_skip("no writable cgroup2 mount (needs root)");
		free(buf);
		return;
	}
	CU_ASSERT_PTR_NOT_NULL_FATAL(buf);
	vs = vs_new(1);
	CU_ASSERT_EQUAL(vsched_mkdir(vs, "g"), 0);
	memset(buf, '1', 5000);
	for (i = 0; i < ARRAY_SIZE(ro); i++)
		for (k = 0; k < ARRAY_SIZE(lens); k++) {
			ssize_t me = vsched_write(vs, "g", ro[i], buf, lens[k]);
			int ke = kwrite(v2_dir, ro[i], buf, lens[k]);

			if (ke != (me < 0 ? (int)me : 0))
				fprintf(stderr, "%s, %zu bytes: kernel %d, vsched %zd\n", ro[i],
					lens[k], ke, me);
			CU_ASSERT_EQUAL(ke, me < 0 ? (int)me : 0);
		}
	memset(buf, 'n', 5000);
	for (k = 0; k < ARRAY_SIZE(names); k++) {
		int ke, me;

		buf[names[k]] = '\0';
		snprintf(path, sizeof(path), "%s/%s", v2_dir, buf);
		ke = mkdir(path, 0755) ? -errno : 0;
		me = vsched_mkdir(vs, buf);
		CU_ASSERT_EQUAL(ke, me);
		if (!ke)
			rmdir(path);
		buf[names[k]] = 'n';
	}
	vsched_destroy(vs);
	free(buf);
}

static void test_kdiff_v2_cpu(void)
{
	static const char max_alpha[] = " \t\n0123456789maxMAX-+ab";
	static const struct kdiff_file weight = { "cpu", "cpu.weight", NULL, "100", "cpu.weight",
						  "cpu.weight.nice" };
	static const struct kdiff_file nice = { "cpu", "cpu.weight.nice", NULL, "0", "cpu.weight",
						"cpu.weight.nice" };
	static const struct kdiff_file max = { "cpu", "cpu.max", NULL, "max 100000", "cpu.max",
					       NULL, true };
	static const struct kdiff_file burst = { "cpu", "cpu.max.burst", NULL, "0",
						 "cpu.max.burst", "cpu.max", true };
	static const char *const max_in[] = {
		"max", "max 50000", "1000", "1000 100000", "  1000\t100000\n", "1000 100000 5000",
		"1000 abc", "1000 -5", "1000abc", "100000abc 100000", "-1", "-1 100000", "MAX",
		"maxx", "unlimited", "0", "999", "500 100000", "1000 999", "max 999", "1000 0",
		"1000 1000001", "max 2000000", "1000 1000000", "200000 100000", "17592186044415",
		"17592186044416", "+1000", "1000 +5",
	};
	static const char *const nice_in[] = { "-20", "19", "-21", "20", "-3\n", "15", "17" };
	static const char *const weight_in[] = { "1", "2", "7", "89", "90", "112", "113", "7837",
						 "7838", "10000", "10001" };
	struct kdiff_file burst_q = burst;

	if (!v2_cpu_dir[0]) {
		test_skip("the host has no cpu controller in cgroup v2 (or it cannot be enabled)");
		return;
	}
	CU_ASSERT_EQUAL(kdiff_run(v2_cpu_dir, &weight, weight_in, ARRAY_SIZE(weight_in),
				  int_alpha), 0);
	CU_ASSERT_EQUAL(kdiff_run(v2_cpu_dir, &nice, nice_in, ARRAY_SIZE(nice_in), int_alpha), 0);
	CU_ASSERT_EQUAL(kdiff_run(v2_cpu_dir, &max, max_in, ARRAY_SIZE(max_in), max_alpha), 0);
	/* a fresh vsched group has "max 100000": start the kernel side there too */
	kwrite(v2_cpu_dir, "cpu.max", "max 100000", 10);
	CU_ASSERT_EQUAL(kdiff_run(v2_cpu_dir, &burst, NULL, 0, int_alpha), 0);
	/* burst against a finite quota */
	kwrite(v2_cpu_dir, "cpu.max.burst", "0", 1);
	kwrite(v2_cpu_dir, "cpu.max", "10000 100000", 12);
	burst_q.reset = "0";
	{
		struct vsched *vs = vs_new(1);
		static const char *const b[] = { "5000", "10000", "10001", "max", "-1" };
		size_t i;
		int bad = 0;

		vsched_mkdir(vs, "g");
		vsched_write_str(vs, "g", "cpu.max", "10000 100000");
		for (i = 0; i < ARRAY_SIZE(b); i++)
			bad += kdiff_compare(vs, v2_cpu_dir, &burst_q, b[i], strlen(b[i]));
		CU_ASSERT_EQUAL(bad, 0);
		vsched_destroy(vs);
	}
	kwrite(v2_cpu_dir, "cpu.max.burst", "0", 1);
	kwrite(v2_cpu_dir, "cpu.max", "max 100000", 10);
}

static CU_TestInfo kdiff_tests[] = {
	{ "v1 cpu.shares/cpu.idle vs kstrtoull/kstrtoll", test_kdiff_v1_kstrtox },
	{ "v2 cgroup.max.*, cgroup.type writes", test_kdiff_v2_core },
	{ "v2 threaded child", test_kdiff_v2_threaded },
	{ "v2 writes to read-only files, long names", test_kdiff_v2_readonly_names },
	{ "v2 cpu.weight, nice, max, burst", test_kdiff_v2_cpu },
	CU_TEST_INFO_NULL,
};

TEST_SUITE_FULL("sched/kernel_diff", kdiff_tests, kdiff_init, kdiff_clean)
