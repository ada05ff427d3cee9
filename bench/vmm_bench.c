// SPDX-License-Identifier: GPL-2.0
/*
 * bench-vmm: the VMM's two headline figures, on each vCPU backend (KVM where it runs, thread).
 *  1. Hog work rate: work units per CPU-second of a payload hog vCPU (its thread's own CPU
 *     clock), beside the same work loop run natively on the host, as a ratio.
 *  2. Start-up: time from `vsched run` being started to the guest's first instruction
 *     (vCPU 0's hello port exit), measured two ways: from just before posix_spawn() to the
 *     CLOCK_REALTIME stamp the VMM takes at that exit, and inside the process from cmd_run()
 *     entry (startup_ns in --stats).
 * Prints numbers; timing never decides pass/fail.
 */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../vmm/payload/guest/work.h"
#include "util/time.h"

#define STARTUP_RUNS 15

extern char **environ;

static double native_rate(void)
{
	static struct payload_page page;
	uint64_t t0 = time_thread_ns(), t;

	do {
		int i;

		for (i = 0; i < 1000; i++)
			work_unit(&page);
		t = time_thread_ns();
	} while (t - t0 < 2000000000ULL);
	return page.units / ((t - t0) / 1e9);
}

/* A number after "key": in a --stats file (the first one, or the one on vCPU 0's line). */
static int json_u64(const char *path, const char *key, uint64_t *v)
{
	char line[1024], pat[64];
	FILE *f = fopen(path, "r");
	char *p;
	int ret = -1;

	if (!f)
		return -1;
	snprintf(pat, sizeof(pat), "\"%s\": ", key);
	while (ret && fgets(line, sizeof(line), f))
		if ((p = strstr(line, pat)))
			ret = sscanf(p + strlen(pat), "%lu", v) == 1 ? 0 : -1;
	fclose(f);
	return ret;
}

static int run_vsched(const char *vsched, char *const args[], uint64_t *spawn_rt)
{
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int st, ret;

	/* The child's exit summary is not part of the bench's output; its errors are, in order. */
	fflush(stdout);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
	*spawn_rt = time_now_on(CLOCK_REALTIME);
	ret = posix_spawn(&pid, vsched, &fa, NULL, args, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (ret)
		return -1;
	if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
		return -1;
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Both figures on one backend ("kvm" or "thread"); 1 if it cannot run here. */
static int bench_backend(const char *vsched, const char *accel, const char *stats, double native)
{
	uint64_t ext[STARTUP_RUNS], in[STARTUP_RUNS], units, cpu, first, t0;
	double guest;
	int i, fd = -1;

	char *hog[] = { (char *)vsched, "run", "--accel", (char *)accel, "--payload", "hog",
			"--duration", "3", "--stats", (char *)stats, NULL };
	/* Say why a backend is missing, not only that its run failed. */
	if (!strcmp(accel, "kvm") && (fd = open("/dev/kvm", O_RDWR | O_CLOEXEC)) < 0) {
		printf("%-6s skipped: /dev/kvm: %s\n", accel, strerror(errno));
		return 1;
	}
	if (fd >= 0)
		close(fd);
	if (run_vsched(vsched, hog, &t0) || json_u64(stats, "units", &units) ||
	    json_u64(stats, "cpu_ns", &cpu) || !cpu) {
		printf("%-6s skipped: vsched run --accel %s failed\n", accel, accel);
		return 1;
	}
	guest = units / (cpu / 1e9);
	printf("%-6s hog work rate   guest %.0f units/CPU-s, native %.0f units/CPU-s, "
	       "guest/native %.3f\n", accel, guest, native, guest / native);

	char *one[] = { (char *)vsched, "run", "--accel", (char *)accel, "--payload", "count:1",
			"--stats", (char *)stats, NULL };
	for (i = 0; i < STARTUP_RUNS; i++) {
		if (run_vsched(vsched, one, &t0) || json_u64(stats, "first_insn_realtime_ns", &first) ||
		    json_u64(stats, "startup_ns", &in[i])) {
			fprintf(stderr, "bench-vmm: %s: start-up run failed\n", accel);
			return 1;
		}
		ext[i] = first - t0;
	}
	qsort(ext, STARTUP_RUNS, sizeof(ext[0]), cmp_u64);
	qsort(in, STARTUP_RUNS, sizeof(in[0]), cmp_u64);
	printf("%-6s start-up        spawn -> first guest instruction: median %.2f ms, min %.2f, "
	       "max %.2f (%d runs)\n", accel, ext[STARTUP_RUNS / 2] / 1e6, ext[0] / 1e6,
	       ext[STARTUP_RUNS - 1] / 1e6, STARTUP_RUNS);
	printf("%-6s                 cmd_run() -> first guest instruction: median %.2f ms, min "
	       "%.2f, max %.2f\n", accel, in[STARTUP_RUNS / 2] / 1e6, in[0] / 1e6,
	       in[STARTUP_RUNS - 1] / 1e6);
	return 0;
}

int main(void)
{
	static const char *const accels[] = { "kvm", "thread" };
	const char *vsched = getenv("VSCHED");
	char stats[] = "/tmp/bench-vmm-XXXXXX";
	double native;
	int fd, i, ran = 0;

	if (!vsched) {
		printf("bench-vmm: skipped (needs $VSCHED)\n");
		return 0;
	}
	fd = mkstemp(stats);
	if (fd < 0)
		return 1;
	close(fd);
	native = native_rate();
	/* KVM where it runs; the thread backend everywhere. */
	for (i = 0; i < 2; i++)
		ran += !bench_backend(vsched, accels[i], stats, native);
	unlink(stats);
	return ran ? 0 : 1;
}
