// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel string parsing (lib/kstrtox.c, lib/vsprintf.c vsscanf), reimplemented byte for byte so
 * that every interface file accepts and rejects the same input as cgroupfs. The C library's
 * strtoull() differs in many ways (leading blanks, signs, "0x" without digits, errno), hence this.
 */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include "sched/parse.h"

#define PARSE_OVERFLOW (1U << 31)

bool parse_isspace(char c)
{
	unsigned char u = (unsigned char)c;

	return u == ' ' || (u >= '\t' && u <= '\r') || u == 0xa0;
}

static bool parse_isdigit(char c)
{
	return c >= '0' && c <= '9';
}

static bool parse_isxdigit(char c)
{
	char lc = (char)(c | 0x20);

	return parse_isdigit(c) || (lc >= 'a' && lc <= 'f');
}

/* _parse_integer_fixup_radix(): base 0 picks 16 for "0x<hex digit>", 8 for "0...", else 10. */
static const char *parse_fixup_radix(const char *s, unsigned int *base)
{
	if (*base == 0) {
		if (s[0] == '0') {
			if ((s[1] | 0x20) == 'x' && parse_isxdigit(s[2]))
				*base = 16;
			else
				*base = 8;
		} else {
			*base = 10;
		}
	}
	if (*base == 16 && s[0] == '0' && (s[1] | 0x20) == 'x')
		s += 2;
	return s;
}

/*
 * _parse_integer_limit(): the number of digits taken, with PARSE_OVERFLOW or'ed in if the value
 * passed 2^64 - 1. The result keeps accumulating modulo 2^64, which sscanf relies on.
 */
static unsigned int parse_integer(const char *s, unsigned int base, uint64_t *p, size_t max)
{
	uint64_t res = 0;
	unsigned int rv = 0;

	while (max--) {
		char c = *s, lc = (char)(c | 0x20);
		unsigned int val;

		if (parse_isdigit(c))
			val = (unsigned int)(c - '0');
		else if (lc >= 'a' && lc <= 'f')
			val = (unsigned int)(lc - 'a' + 10);
		else
			break;
		if (val >= base)
			break;
		if (res & (~0ULL << 60)) {
			if (res > (UINT64_MAX - val) / base)
				rv |= PARSE_OVERFLOW;
		}
		res = res * base + val;
		rv++;
		s++;
	}
	*p = res;
	return rv;
}

/* _kstrtoull(): no sign handling; that is the callers' job. */
static int parse_u64_nosign(const char *s, uint64_t *out)
{
	unsigned int base = 0, rv;
	uint64_t res;

	s = parse_fixup_radix(s, &base);
	rv = parse_integer(s, base, &res, SIZE_MAX);
	if (rv & PARSE_OVERFLOW)
		return -ERANGE;
	if (rv == 0)
		return -EINVAL;
	s += rv;
	if (*s == '\n')
		s++;
	if (*s)
		return -EINVAL;
	*out = res;
	return 0;
}

int parse_u64(const char *s, uint64_t *out)
{
	if (s[0] == '+')
		s++;
	return parse_u64_nosign(s, out);
}

int parse_s64(const char *s, int64_t *out)
{
	uint64_t tmp;
	int ret;

	if (s[0] == '-') {
		ret = parse_u64_nosign(s + 1, &tmp);
		if (ret < 0)
			return ret;
		if (tmp > (uint64_t)INT64_MAX + 1)
			return -ERANGE;
		*out = (int64_t)(0 - tmp);
	} else {
		ret = parse_u64(s, &tmp);
		if (ret < 0)
			return ret;
		if (tmp > (uint64_t)INT64_MAX)
			return -ERANGE;
		*out = (int64_t)tmp;
	}
	return 0;
}

int parse_int(const char *s, int *out)
{
	int64_t tmp;
	int ret;

	ret = parse_s64(s, &tmp);
	if (ret < 0)
		return ret;
	if (tmp < INT_MIN || tmp > INT_MAX)
		return -ERANGE;
	*out = (int)tmp;
	return 0;
}

char *parse_strstrip(char *s)
{
	size_t len = strlen(s);

	while (len && parse_isspace(s[len - 1]))
		len--;
	s[len] = '\0';
	while (parse_isspace(*s))
		s++;
	return s;
}

static const char *parse_skip_spaces(const char *s)
{
	while (parse_isspace(*s))
		s++;
	return s;
}

bool parse_scan_str(const char **p, char *tok, int width)
{
	const char *s = *p;

	/* vsscanf() stops before any conversion once the input is used up. */
	if (!*s)
		return false;
	s = parse_skip_spaces(s);
	while (*s && !parse_isspace(*s) && width--)
		*tok++ = *s++;
	*tok = '\0';
	*p = s;
	return true;
}

bool parse_scan_ull(const char **p, uint64_t *out)
{
	const char *s = *p;
	unsigned int rv;

	if (!*s)
		return false;
	s = parse_skip_spaces(s);
	if (!parse_isdigit(*s))
		return false;
	rv = parse_integer(s, 10, out, SIZE_MAX);
	*p = s + (rv & ~PARSE_OVERFLOW);
	return true;
}

int parse_cpu_max(const char *buf, uint64_t *quota_us, uint64_t *period_us)
{
	char tok[21];	/* "%20s": U64_MAX has 20 digits */
	const char *p = buf, *t = tok;
	uint64_t period = *period_us, quota;

	/* sscanf(buf, "%20s %llu", tok, period) < 1: the blank matches any run of whitespace. */
	if (!parse_scan_str(&p, tok, 20))
		return -EINVAL;
	p = parse_skip_spaces(p);
	parse_scan_ull(&p, &period);

	if (parse_scan_ull(&t, &quota)) {
		/* Mainline tg_set_bandwidth(): values must survive translation to ns. */
		if (quota > UINT64_MAX / 1000)
			return -EINVAL;
	} else if (!strcmp(tok, "max")) {
		quota = UINT64_MAX;
	} else {
		return -EINVAL;
	}
	if (period > UINT64_MAX / 1000)
		return -EINVAL;
	*quota_us = quota;
	*period_us = period;
	return 0;
}
