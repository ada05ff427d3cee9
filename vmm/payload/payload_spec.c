// SPDX-License-Identifier: GPL-2.0
/* Parsing and formatting payload kinds and their per-vCPU assignment (--payload). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/compiler.h"
#include "vmm/payload.h"

enum payload_args { ARGS_NONE, ARGS_ONE, ARGS_PAIR };

static const struct payload_kind_desc {
	const char *name;
	enum payload_kind kind;
	enum payload_args args;
	uint64_t max[2];	/* inclusive bounds; every argument is >= 1 */
	bool cpu;		/* tests the CPU itself: needs a backend that runs machine code */
} kinds[] = {
	{ "hog", PAYLOAD_HOG, ARGS_NONE },
	/* 10 s of busy or sleep per period is plenty; the sleep port takes 32-bit us. */
	{ "duty", PAYLOAD_DUTY, ARGS_PAIR, { 10000000, 10000000 } },
	/* The LAPIC count is 32 bits at 1 GHz: at most ~4.29 s of HLT. */
	{ "halt-duty", PAYLOAD_HALT_DUTY, ARGS_PAIR, { 10000000, 4000000 } },
	{ "io", PAYLOAD_IO, ARGS_ONE, { 1000000000 } },
	{ "probe", PAYLOAD_PROBE, ARGS_NONE, .cpu = true },
	{ "fault", PAYLOAD_FAULT, ARGS_NONE, .cpu = true },
	{ "count", PAYLOAD_COUNT, ARGS_ONE, { 1ULL << 50 } },
	{ "emufail", PAYLOAD_EMUFAIL, ARGS_NONE, .cpu = true },
	{ "steal", PAYLOAD_STEAL, ARGS_NONE },
};

static const struct payload_kind_desc *kind_desc(enum payload_kind kind)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(kinds); i++)
		if (kinds[i].kind == kind)
			return &kinds[i];
	return NULL;
}

bool payload_kind_needs_cpu(enum payload_kind kind)
{
	const struct payload_kind_desc *d = kind_desc(kind);

	return d && d->cpu;
}

static int parse_u64(const char *s, const char *end, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;

	if (s == end)
		return -EINVAL;
	for (; s < end; s++) {
		if (*s < '0' || *s > '9')
			return -EINVAL;
		if (v > (max - (*s - '0')) / 10)
			return -EINVAL;
		v = v * 10 + (*s - '0');
	}
	if (!v)
		return -EINVAL;
	*out = v;
	return 0;
}

int payload_parse_kind(const char *s, struct payload_spec *spec)
{
	const char *colon = strchr(s, ':'), *end = s + strlen(s), *slash;
	size_t nlen = colon ? (size_t)(colon - s) : strlen(s);
	struct payload_spec p = { 0 };
	const struct payload_kind_desc *d = NULL;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(kinds); i++)
		if (strlen(kinds[i].name) == nlen && !strncmp(kinds[i].name, s, nlen))
			d = &kinds[i];
	if (!d)
		return -EINVAL;
	p.kind = d->kind;
	switch (d->args) {
	case ARGS_NONE:
		if (colon)
			return -EINVAL;
		break;
	case ARGS_ONE:
		if (!colon || parse_u64(colon + 1, end, d->max[0], &p.arg[0]))
			return -EINVAL;
		break;
	case ARGS_PAIR:
		slash = colon ? strchr(colon, '/') : NULL;
		if (!slash || parse_u64(colon + 1, slash, d->max[0], &p.arg[0]) ||
		    parse_u64(slash + 1, end, d->max[1], &p.arg[1]))
			return -EINVAL;
		break;
	}
	*spec = p;
	return 0;
}

int payload_format(const struct payload_spec *spec, char *buf, size_t len)
{
	const struct payload_kind_desc *d = kind_desc(spec->kind);
	int n;

	if (!d)
		n = snprintf(buf, len, "none");
	else if (d->args == ARGS_NONE)
		n = snprintf(buf, len, "%s", d->name);
	else if (d->args == ARGS_ONE)
		n = snprintf(buf, len, "%s:%llu", d->name, (unsigned long long)spec->arg[0]);
	else
		n = snprintf(buf, len, "%s:%llu/%llu", d->name, (unsigned long long)spec->arg[0],
			     (unsigned long long)spec->arg[1]);
	return n < 0 || (size_t)n >= len ? -ENOSPC : n;
}

/* One "LIST=KIND" item into tmp; returns 0 or -errno. */
static int assign_one(const char *list, const char *kind, unsigned int nr_vcpus,
		      struct payload_spec *tmp, struct cpuset *named)
{
	struct payload_spec spec;
	struct cpuset set;
	unsigned int i;
	int ret;

	ret = cpuset_parse(list, nr_vcpus, &set);
	if (ret)
		return ret;
	if (!cpuset_count(&set) || payload_parse_kind(kind, &spec))
		return -EINVAL;
	for (i = 0; i < nr_vcpus; i++) {
		if (!cpuset_test(&set, i))
			continue;
		if (cpuset_test(named, i))
			return -EEXIST;
		cpuset_set(named, i);
		tmp[i] = spec;
	}
	return 0;
}

int payload_parse_assign(const char *s, unsigned int nr_vcpus, struct payload_spec *specs)
{
	struct payload_spec tmp[VM_MAX_VCPUS], spec;
	char *copy, *tok, *save = NULL, *eq;
	char list[256] = "";
	struct cpuset named;
	unsigned int i;
	int ret = 0;

	if (!nr_vcpus || nr_vcpus > VM_MAX_VCPUS)
		return -EINVAL;
	if (!strchr(s, '=')) {
		/* One kind for every vCPU that has none yet. */
		if (payload_parse_kind(s, &spec))
			return -EINVAL;
		for (i = 0; i < nr_vcpus; i++)
			if (!specs[i].kind)
				specs[i] = spec;
		return 0;
	}
	/* Commas separate both list elements and assignments: gather list pieces until a
	 * piece holds '=', whose right side is the kind ("0,2-3=hog,1=io:5"). */
	cpuset_clear(&named);
	for (i = 0; i < nr_vcpus; i++)
		if (specs[i].kind)
			cpuset_set(&named, i);
	memcpy(tmp, specs, nr_vcpus * sizeof(*tmp));
	copy = strdup(s);
	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, ",", &save); tok && !ret; tok = strtok_r(NULL, ",", &save)) {
		eq = strchr(tok, '=');
		if (strlen(list) + strlen(tok) + 2 > sizeof(list)) {
			ret = -EINVAL;
			break;
		}
		if (*list)
			strcat(list, ",");
		if (!eq) {
			strcat(list, tok);
			continue;
		}
		*eq = '\0';
		strcat(list, tok);
		ret = assign_one(list, eq + 1, nr_vcpus, tmp, &named);
		list[0] = '\0';
	}
	/* A trailing list with no kind, or an empty item ("hog,,"), is a syntax error. */
	if (!ret && (*list || s[strlen(s) - 1] == ',' || strstr(s, ",,") || *s == ','))
		ret = -EINVAL;
	free(copy);
	if (!ret)
		memcpy(specs, tmp, nr_vcpus * sizeof(*tmp));
	return ret;
}
