// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz target: the value parsers of `vsched run` flags (vmm/opts.c, vmm/payload/payload_spec.c,
 * util/cpuset.c, cmd/run_groups.c, registry_name_valid(), lx_cpuid_hide_parse()).
 *
 * Input: one "KIND VALUE" per line (at most CLI_LINES), KIND one of size (--memory), duration,
 * vcpus, cpus, cpuset, payload-kind, payload (--payload on 8 vCPUs, vCPU 7 given one already),
 * group, assign (--group/--assign, applied in order to one 4-vCPU VM), name, cpuid-hide.
 *
 * Invariants: a refused value changes nothing (the output, the specs, the VM's tree) and a
 * refused --group/--assign says why; an accepted value is in range and formats back to itself
 * (sizes, vCPU counts, cpusets, payload kinds); an accepted --group is a threaded group.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/registry.h"
#include "fuzz.h"
#include "cmd/run.h"
#include "util/cpuset.h"
#include "vmm/linux/cpuid.h"
#include "vmm/opts.h"
#include "vmm/payload.h"
#include "vsched.h"

#define CLI_LINES	32
#define CLI_VCPUS	4
#define CLI_PAYLOAD_VCPUS 8
#define SENTINEL	0x5a5a5a5a5a5a5a5aULL

static void cli_size(struct vsched *vs __unused, const char *s)
{
	uint64_t v = SENTINEL, again = SENTINEL;
	char buf[32];

	if (opts_parse_size(s, &v)) {
		FUZZ_CHECK(v == SENTINEL, "refused size '%s' wrote %llu", s, (unsigned long long)v);
		return;
	}
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v);
	FUZZ_CHECK(!opts_parse_size(buf, &again) && again == v, "size '%s' is %s, which reads %llu",
		   s, buf, (unsigned long long)again);
}

static void cli_duration(struct vsched *vs __unused, const char *s)
{
	uint64_t v = SENTINEL;

	if (opts_parse_duration(s, &v))
		FUZZ_CHECK(v == SENTINEL, "refused duration '%s' wrote %llu", s,
			   (unsigned long long)v);
	else
		FUZZ_CHECK(v >= 1 && v <= 1000000000000000000ULL, "duration '%s' is %llu ns", s,
			   (unsigned long long)v);
}

static void cli_count(const char *s, unsigned int max)
{
	unsigned int v = 0xdead, again = 0;
	char buf[16];

	if (opts_parse_uint(s, 1, max, &v)) {
		FUZZ_CHECK(v == 0xdead, "refused count '%s' wrote %u", s, v);
		return;
	}
	snprintf(buf, sizeof(buf), "%u", v);
	FUZZ_CHECK(v >= 1 && v <= max && !opts_parse_uint(buf, 1, max, &again) && again == v,
		   "count '%s' is %u", s, v);
}

static void cli_cpuset(struct vsched *vs __unused, const char *s)
{
	struct cpuset set, again, mark;
	char buf[8192];
	unsigned int i;

	memset(&mark, 0x5a, sizeof(mark));
	set = mark;
	if (cpuset_parse(s, 300, &set)) {
		FUZZ_CHECK(!memcmp(&set, &mark, sizeof(set)), "refused cpuset '%s' changed the set",
			   s);
		return;
	}
	for (i = 300; i < CPUSET_MAX; i++)
		FUZZ_CHECK(!cpuset_test(&set, i), "cpuset '%s' holds %u, beyond its limit", s, i);
	FUZZ_CHECK(cpuset_format(&set, buf, sizeof(buf)) >= 0, "formatting '%s'", s);
	FUZZ_CHECK(!buf[0] ||
			   (!cpuset_parse(buf, 300, &again) && !memcmp(&set, &again, sizeof(set))),
		   "cpuset '%s' formats as '%s', which reads otherwise", s, buf);
}

static void cli_payload_kind(struct vsched *vs __unused, const char *s)
{
	struct payload_spec spec, again, mark;
	char buf[64];

	memset(&mark, 0x5a, sizeof(mark));
	spec = mark;
	if (payload_parse_kind(s, &spec)) {
		FUZZ_CHECK(!memcmp(&spec, &mark, sizeof(spec)),
			   "refused kind '%s' changed the spec", s);
		return;
	}
	FUZZ_CHECK(payload_format(&spec, buf, sizeof(buf)) > 0, "formatting kind '%s'", s);
	FUZZ_CHECK(!payload_parse_kind(buf, &again) && !memcmp(&spec, &again, sizeof(spec)),
		   "kind '%s' formats as '%s', which reads otherwise", s, buf);
}

static void cli_payload(struct vsched *vs __unused, const char *s)
{
	struct payload_spec specs[CLI_PAYLOAD_VCPUS] = { 0 }, before[CLI_PAYLOAD_VCPUS];
	char buf[64];
	unsigned int i;

	specs[CLI_PAYLOAD_VCPUS - 1].kind = PAYLOAD_HOG;
	memcpy(before, specs, sizeof(specs));
	if (payload_parse_assign(s, CLI_PAYLOAD_VCPUS, specs)) {
		FUZZ_CHECK(!memcmp(specs, before, sizeof(specs)), "refused --payload '%s' changed "
			   "the specs", s);
		return;
	}
	FUZZ_CHECK(!memcmp(&specs[CLI_PAYLOAD_VCPUS - 1], &before[CLI_PAYLOAD_VCPUS - 1],
			   sizeof(specs[0])), "--payload '%s' replaced vCPU 7's payload", s);
	for (i = 0; i < CLI_PAYLOAD_VCPUS; i++)
		FUZZ_CHECK(!specs[i].kind || payload_format(&specs[i], buf, sizeof(buf)) > 0,
			   "--payload '%s' gave vCPU %u a kind that does not format", s, i);
}

static void cli_group(struct vsched *vs, const char *s)
{
	char msg[256] = "", path[1024], type[64];
	int ret = run_group_add(vs, s, msg, sizeof(msg));

	if (ret) {
		FUZZ_CHECK(ret < 0 && ret > -4096 && msg[0], "refused --group '%s': %d '%s'", s,
			   ret, msg);
		return;
	}
	snprintf(path, sizeof(path), "%s", s + strspn(s, "/"));
	path[strcspn(path, ":")] = '\0';
	FUZZ_CHECK(vsched_read(vs, path, "cgroup.type", type, sizeof(type)) > 0 &&
			   !strcmp(type, "threaded\n"),
		   "--group '%s' accepted, '%s' is no threaded group", s, path);
}

static void cli_assign(struct vsched *vs, const char *s)
{
	struct fuzz_snap before = { 0 }, after = { 0 };
	char msg[256] = "";
	const char *diff;
	int ret;

	fuzz_snapshot(vs, &before);
	ret = run_group_assign(vs, s, msg, sizeof(msg));
	if (ret) {
		FUZZ_CHECK(ret < 0 && ret > -4096 && msg[0], "refused --assign '%s': %d '%s'", s,
			   ret, msg);
		fuzz_snapshot(vs, &after);
		diff = fuzz_snap_diff(&before, &after);
		FUZZ_CHECK(!diff, "refused --assign '%s' changed the tree: %s", s, diff);
	}
	fuzz_snap_free(&before);
	fuzz_snap_free(&after);
}

static void cli_name(struct vsched *vs __unused, const char *s)
{
	char dir[PATH_MAX];

	if (!registry_name_valid(s))
		FUZZ_CHECK(s[0] != '.' && !strchr(s, '/') &&
				   (registry_name_reserved(s) ||
				    !registry_default_dir(s, dir, sizeof(dir))),
			   "--name '%s' accepted", s);
}

static void cli_cpuid_hide(struct vsched *vs __unused, const char *s)
{
	unsigned int mask = 0xdead;

	if (lx_cpuid_hide_parse(s, &mask))
		FUZZ_CHECK(mask == 0xdead, "refused --cpuid-hide '%s' changed the mask", s);
	else
		FUZZ_CHECK(!(mask & ~(LX_CPUID_HIDE_XSAVE | LX_CPUID_HIDE_CX16 |
				      LX_CPUID_HIDE_POPCNT)),
			   "--cpuid-hide '%s' is %#x", s, mask);
}

static void cli_vcpus(struct vsched *vs __unused, const char *s)
{
	cli_count(s, VM_MAX_VCPUS);
}

static void cli_cpus(struct vsched *vs __unused, const char *s)
{
	cli_count(s, 4096);
}

static const struct {
	const char *kind;
	void (*check)(struct vsched *vs, const char *value);
} cli_kinds[] = {
	{ "size", cli_size },
	{ "duration", cli_duration },
	{ "vcpus", cli_vcpus },
	{ "cpus", cli_cpus },
	{ "cpuset", cli_cpuset },
	{ "payload-kind", cli_payload_kind },
	{ "payload", cli_payload },
	{ "group", cli_group },
	{ "assign", cli_assign },
	{ "name", cli_name },
	{ "cpuid-hide", cli_cpuid_hide },
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_string(data, size), *rest = text, *line;
	struct vsched *vs = vsched_create(2, CLI_VCPUS);
	unsigned int nr = 0;
	size_t i;

	FUZZ_CHECK(vs, "vsched_create");
	vsched_set_clock(vs, fuzz_clock, NULL);
	while ((line = strsep(&rest, "\n")) && nr++ < CLI_LINES) {
		char *kind = strsep(&line, " ");

		for (i = 0; line && i < ARRAY_SIZE(cli_kinds); i++)
			if (!strcmp(kind, cli_kinds[i].kind))
				cli_kinds[i].check(vs, line);
	}
	vsched_destroy(vs);
	free(text);
	return 0;
}
