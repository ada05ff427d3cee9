// SPDX-License-Identifier: GPL-2.0
/*
 * libvirt cpuset syntax, as virBitmapParse() reads it: comma-separated items, each N, N-M or
 * ^N (exclusion applied after all inclusions); blanks around items are allowed.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "util/cpuset.h"

static int cpuset_num(const char **p, unsigned int *out)
{
	unsigned long v = 0;

	if (!isdigit((unsigned char)**p))
		return -EINVAL;
	while (isdigit((unsigned char)**p)) {
		v = v * 10 + (unsigned long)(**p - '0');
		if (v >= CPUSET_MAX)
			return -ERANGE;
		(*p)++;
	}
	*out = (unsigned int)v;
	return 0;
}

static void cpuset_skip_blank(const char **p)
{
	while (**p == ' ' || **p == '\t')
		(*p)++;
}

int cpuset_parse(const char *s, unsigned int limit, struct cpuset *set)
{
	struct cpuset add = { 0 }, del = { 0 };
	const char *p = s;
	unsigned int a, b, i, w;
	bool neg;
	int err;

	for (;;) {
		cpuset_skip_blank(&p);
		neg = *p == '^';
		if (neg)
			p++;
		err = cpuset_num(&p, &a);
		if (err)
			return err;
		b = a;
		if (!neg && *p == '-') {
			p++;
			err = cpuset_num(&p, &b);
			if (err)
				return err;
			if (b < a)
				return -EINVAL;
		}
		if (b >= limit)
			return -ERANGE;
		for (i = a; i <= b; i++)
			cpuset_set(neg ? &del : &add, i);
		cpuset_skip_blank(&p);
		if (*p == '\0' || (*p == '\n' && p[1] == '\0'))
			break;
		if (*p++ != ',')
			return -EINVAL;
	}
	for (w = 0; w < CPUSET_MAX / 64; w++)
		set->bits[w] = add.bits[w] & ~del.bits[w];
	return 0;
}

int cpuset_format(const struct cpuset *set, char *buf, size_t len)
{
	unsigned int i = 0, j;
	size_t n = 0;
	int w;

	if (!len)
		return -ENOSPC;
	buf[0] = '\0';
	while (i < CPUSET_MAX) {
		if (!cpuset_test(set, i)) {
			i++;
			continue;
		}
		for (j = i; j + 1 < CPUSET_MAX && cpuset_test(set, j + 1); j++)
			;
		if (j == i)
			w = snprintf(buf + n, len - n, "%s%u", n ? "," : "", i);
		else
			w = snprintf(buf + n, len - n, "%s%u-%u", n ? "," : "", i, j);
		if (w < 0 || (size_t)w >= len - n)
			return -ENOSPC;
		n += (size_t)w;
		i = j + 1;
	}
	return (int)n;
}

unsigned int cpuset_count(const struct cpuset *set)
{
	unsigned int w, n = 0;

	for (w = 0; w < CPUSET_MAX / 64; w++)
		n += (unsigned int)__builtin_popcountll(set->bits[w]);
	return n;
}
