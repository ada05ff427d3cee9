// SPDX-License-Identifier: GPL-2.0
/*
 * libvirt cpuset syntax, as virBitmapParse() reads it: comma-separated items, each N, N-M or ^N,
 * applied in order ("^8,0-15" is 0-15, "0-15,^8" is not), blanks around numbers, '-' and ','
 * and a trailing ',' allowed.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "util/cpuset.h"

static void cpuset_skip_blank(const char **p)
{
	while (isspace((unsigned char)**p))	/* virSkipSpaces() */
		(*p)++;
}

/* A number as virStrToLong_i() reads it after the first digit was seen, or after a '-'. */
static int cpuset_num(const char **p, unsigned int *out)
{
	unsigned long v = 0;
	const char *q = *p;

	cpuset_skip_blank(&q);
	if (*q == '+')
		q++;
	if (!isdigit((unsigned char)*q))
		return -EINVAL;
	while (isdigit((unsigned char)*q)) {
		v = v * 10 + (unsigned long)(*q - '0');
		if (v > CPULIST_MAX)	/* out of any limit; libvirt's int overflows later */
			v = CPULIST_MAX;
		q++;
	}
	*p = q;
	*out = (unsigned int)v;
	return 0;
}

int cpulist_parse(const char *s, unsigned int limit, struct cpuset *low, unsigned int *count)
{
	uint64_t bits[CPULIST_MAX / 64] = { 0 };
	const char *p = s;
	unsigned int a, b, i, n = 0;
	bool neg;
	int err;

	if (limit > CPULIST_MAX)
		limit = CPULIST_MAX;
	cpuset_skip_blank(&p);
	if (!*p)
		return -EINVAL;
	while (*p) {
		neg = *p == '^';
		if (neg)
			p++;
		if (!isdigit((unsigned char)*p))
			return -EINVAL;
		err = cpuset_num(&p, &a);
		if (err)
			return err;
		b = a;
		cpuset_skip_blank(&p);
		if (*p == '-') {
			if (neg)
				return -EINVAL;
			p++;
			err = cpuset_num(&p, &b);
			if (err)
				return err;
			if (b < a)
				return -EINVAL;
			cpuset_skip_blank(&p);
		} else if (*p && *p != ',') {
			return -EINVAL;
		}
		if (b >= limit)
			return -ERANGE;
		for (i = a; i <= b; i++) {
			if (neg)
				bits[i / 64] &= ~(1ULL << (i % 64));
			else
				bits[i / 64] |= 1ULL << (i % 64);
		}
		if (*p == ',') {
			p++;
			cpuset_skip_blank(&p);
		}
	}
	for (i = 0; i < CPULIST_MAX / 64; i++)
		n += (unsigned int)__builtin_popcountll(bits[i]);
	if (low)
		memcpy(low->bits, bits, sizeof(low->bits));
	if (count)
		*count = n;
	return 0;
}

int cpuset_parse(const char *s, unsigned int limit, struct cpuset *set)
{
	return cpulist_parse(s, limit < CPUSET_MAX ? limit : CPUSET_MAX, set, NULL);
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
