// SPDX-License-Identifier: GPL-2.0
/* Strict parsers for `vsched run` values: whole string, no sign, no overflow. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "vmm/opts.h"

int opts_parse_size(const char *s, uint64_t *bytes)
{
	unsigned long long v;
	unsigned int shift = 0;
	char *end;

	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -ERANGE;
	switch (*end) {
	case 'k': case 'K': shift = 10; end++; break;
	case 'm': case 'M': shift = 20; end++; break;
	case 'g': case 'G': shift = 30; end++; break;
	case 't': case 'T': shift = 40; end++; break;
	}
	if (shift && (!strcasecmp(end, "ib") || !strcasecmp(end, "b")))
		end += strlen(end);
	if (*end)
		return -EINVAL;
	if (shift && v > (UINT64_MAX >> shift))
		return -ERANGE;
	*bytes = (uint64_t)v << shift;
	return 0;
}

/*
 * strtod() of a plain decimal: no sign, space, "inf"/"nan" or hexadecimal ("0x10" would be 16
 * seconds); NAN and *end = s where s is not one.
 */
double opts_strtod(const char *s, char **end)
{
	*end = (char *)s;
	if (!s || ((*s < '0' || *s > '9') && *s != '.') || (s[0] == '0' && (s[1] | 0x20) == 'x'))
		return NAN;
	return strtod(s, end);
}

int opts_parse_duration(const char *s, uint64_t *ns)
{
	double v, mult = 1e9;
	char *end;

	v = opts_strtod(s, &end);
	if (end == s)
		return -EINVAL;
	if (!strcmp(end, "ms"))
		mult = 1e6;
	else if (!strcmp(end, "us"))
		mult = 1e3;
	else if (!strcmp(end, "m"))
		mult = 60e9;
	else if (*end && strcmp(end, "s"))
		return -EINVAL;
	v *= mult;
	if (!isfinite(v) || v < 1.0)
		return -EINVAL;
	if (v > 1e18)
		return -ERANGE;
	*ns = (uint64_t)v;
	return 0;
}

int opts_parse_uint(const char *s, unsigned int min, unsigned int max, unsigned int *out)
{
	unsigned long v;
	char *end;

	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (*end)
		return -EINVAL;
	if (errno || v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}
