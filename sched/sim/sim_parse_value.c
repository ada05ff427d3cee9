// SPDX-License-Identifier: GPL-2.0
/*
 * The values of a scenario line: times, integers, group paths, and a group's settings (weight,
 * nice, max, burst, idle) with the checks the tree would only make at run time.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sim_parse.h"

/*
 * A time: a plain decimal number (digits, maybe a fraction) with a unit (ns, us, ms, s); bare
 * numbers are microseconds. No sign, exponent, hex, inf or nan: strtod() takes all of those, and
 * NaN passed every range check into an undefined conversion (issue 13). Read in integers, to
 * the nanosecond: through a double, "0.4ns" became 0 and "1.6ns" 2 without a word, and values
 * past 2^53 ns moved ("999999999999999999ns" was 10^18). A fraction finer than 1 ns (other than
 * trailing zeros) is refused, -EDOM; above 10^18 ns, -ERANGE.
 */
int sim_parse_time(const char *tok, uint64_t *out)
{
	static const struct {
		const char *unit;
		uint64_t mul;
	} units[] = {
		{ "ns", 1 }, { "us", 1000 }, { "ms", 1000000 }, { "s", 1000000000 }, { "", 1000 },
	};
	const uint64_t limit = 1000000000000000000ULL;
	size_t n = strspn(tok, "0123456789"), frac = 0, i, k;
	uint64_t v = 0, scale;

	if (!n)
		return -EINVAL;
	if (tok[n] == '.') {
		frac = strspn(tok + n + 1, "0123456789");
		if (!frac)
			return -EINVAL;
	}
	for (i = 0; i < ARRAY_SIZE(units); i++)
		if (!strcmp(tok + n + (frac ? 1 + frac : 0), units[i].unit))
			break;
	if (i == ARRAY_SIZE(units))
		return -EINVAL;
	for (k = 0; k < n; k++) {
		if (v > (limit - (uint64_t)(tok[k] - '0')) / 10)
			return -ERANGE;
		v = v * 10 + (uint64_t)(tok[k] - '0');
	}
	if (v > limit / units[i].mul)
		return -ERANGE;
	v *= units[i].mul;
	for (k = 0, scale = units[i].mul; k < frac; k++) {
		uint64_t d = (uint64_t)(tok[n + 1 + k] - '0');

		scale /= 10;
		if (!scale && d)
			return -EDOM;
		v += d * scale;
	}
	if (v > limit)
		return -ERANGE;
	*out = v;
	return 0;
}

const char *sim_word(const char *w, char *buf)
{
	size_t len = strlen(w), head = 48, tail = SIM_WORD_MAX - head - 4;

	if (len < SIM_WORD_MAX)
		return w;
	memcpy(buf, w, head);
	memcpy(buf + head, "...", 3);
	memcpy(buf + head + 3, w + len - tail, tail + 1);
	return buf;
}

/* Refuses a time sim_parse_time() did not take (ret), saying why. */
int sim_time_err(struct parser *p, int ret, const char *tok)
{
	if (ret == -EDOM)
		return perr(p, "time '%s' is finer than a nanosecond", SIM_WORD(tok));
	return perr(p, "bad time '%s'", SIM_WORD(tok));
}

int sim_parse_ulong(const char *tok, unsigned long *out)
{
	char *end;

	if (*tok < '0' || *tok > '9')
		return -EINVAL;
	errno = 0;
	*out = strtoul(tok, &end, 10);
	return *end || errno ? -EINVAL : 0;
}

/* A decimal integer with an optional sign, all of the word. */
static int parse_long(const char *tok, long *out)
{
	char *end;

	if (!*tok)
		return -EINVAL;
	errno = 0;
	*out = strtol(tok, &end, 10);
	return *end || errno || end == tok ? -EINVAL : 0;
}

/*
 * "/" or "/a/b": components of 1 to GROUP_NAME_MAX bytes, no empty one, "." or "..", no
 * trailing '/', at most GROUP_DEPTH_MAX deep (deeper, the tree's EAGAIN came at run time, its
 * message cut off inside the long path).
 */
int sim_parse_path(struct parser *p, const char *tok, char *out)
{
	const char *c = tok;
	unsigned int depth = 0;

	if (tok[0] != '/')
		return perr(p, "group path '%s' must start with '/'", SIM_WORD(tok));
	if (strlen(tok) >= GROUP_PATH_MAX)
		return perr(p, "group path too long");
	while (tok[1] && *c) {
		size_t len = strcspn(++c, "/");

		if (!len || len > GROUP_NAME_MAX)
			return perr(p, "bad group path '%s'", SIM_WORD(tok));
		/* Taken as names, they reached the tree's mkdir as "File exists". */
		if ((len == 1 && c[0] == '.') || (len == 2 && c[0] == '.' && c[1] == '.'))
			return perr(p, "bad group path '%s': '.' and '..' name no group",
				    SIM_WORD(tok));
		if (++depth > GROUP_DEPTH_MAX)
			return perr(p, "group path deeper than %u levels", GROUP_DEPTH_MAX);
		c += len;
	}
	strcpy(out, tok);
	return 0;
}

static int us_of(struct parser *p, const char *tok, uint64_t *us)
{
	uint64_t ns;
	int ret = sim_parse_time(tok, &ns);

	if (ret)
		return sim_time_err(p, ret, tok);
	/* The files take whole microseconds: "1000500ns" was taken as 1000 us without a word. */
	if (ns % 1000)
		return perr(p, "cpu.max and cpu.max.burst are whole microseconds, not '%s'",
			    SIM_WORD(tok));
	*us = ns / 1000;
	return 0;
}

/* A setting marked given, refused if it was already: only one of the two would take. */
int sim_setting_once(struct parser *p, bool *has, const char *key)
{
	if (*has)
		return perr(p, "'%s' given twice", key);
	*has = true;
	return 0;
}

/* Settings: weight W | nice N | max QUOTA PERIOD | max max [PERIOD] | burst B | idle 0|1 */
int sim_parse_settings(struct parser *p, char **tok, int n, struct sim_settings *set)
{
	enum bw_rule rule;
	unsigned long v;
	int i = 0;

	memset(set, 0, sizeof(*set));
	while (i < n) {
		const char *key = tok[i];

		/* The name first: a misspelt one at the end of a line was "'x' needs a value". */
		if (strcmp(key, "weight") && strcmp(key, "nice") && strcmp(key, "max") &&
		    strcmp(key, "burst") && strcmp(key, "idle"))
			return perr(p, "unknown setting '%s'", SIM_WORD(key));
		if (i + 1 >= n)
			return perr(p, "'%s' needs a value", key);
		if (!strcmp(key, "weight")) {
			if (sim_setting_once(p, &set->has_weight, key))
				return -EINVAL;
			if (sim_parse_ulong(tok[i + 1], &v) || v < CGROUP_WEIGHT_MIN ||
			    v > CGROUP_WEIGHT_MAX)
				return perr(p, "weight must be in [1, 10000]");
			set->weight = v;
			i += 2;
		} else if (!strcmp(key, "nice")) {
			long nv;

			if (sim_setting_once(p, &set->has_nice, key))
				return -EINVAL;
			if (parse_long(tok[i + 1], &nv) || nv < MIN_NICE || nv > MAX_NICE)
				return perr(p, "nice must be an integer in [-20, 19]");
			set->nice = (int)nv;
			i += 2;
		} else if (!strcmp(key, "max")) {
			if (sim_setting_once(p, &set->has_max, key))
				return -EINVAL;
			if (!strcmp(tok[i + 1], "max"))
				set->quota_us = RUNTIME_INF;
			else if (us_of(p, tok[i + 1], &set->quota_us))
				return -EINVAL;
			i += 2;
			if (i < n && (tok[i][0] >= '0' && tok[i][0] <= '9')) {
				if (us_of(p, tok[i], &set->period_us))
					return -EINVAL;
				set->has_period = true;	/* 0 too: the tree refuses it */
				i++;
			}
		} else if (!strcmp(key, "burst")) {
			if (sim_setting_once(p, &set->has_burst, key) ||
			    us_of(p, tok[i + 1], &set->burst_us))
				return -EINVAL;
			i += 2;
		} else if (!strcmp(key, "idle")) {
			if (sim_setting_once(p, &set->has_idle, key))
				return -EINVAL;
			if (strcmp(tok[i + 1], "0") && strcmp(tok[i + 1], "1"))
				return perr(p, "idle is 0 or 1");
			set->idle = tok[i + 1][0] == '1';
			i += 2;
		} else {
			return perr(p, "unknown setting '%s'", SIM_WORD(key));
		}
	}
	/*
	 * Both set the one weight; and beside idle 1 neither would take: the kernel refuses
	 * cpu.weight and cpu.weight.nice while cpu.idle is 1 and resets the weight at idle 0.
	 * cpu.max ranges the line shows alone (group_bandwidth_valid()): the tree's EINVAL said
	 * only "Invalid argument", at run time. A burst beside a quota set earlier is the tree's.
	 */
	if (set->has_weight && set->has_nice)
		return perr(p, "weight and nice set the same weight: give one");
	rule = group_bandwidth_rule(set->has_max ? set->quota_us : RUNTIME_INF,
				    set->has_period ? set->period_us : CPU_PERIOD_DFL_US,
				    set->has_burst ? set->burst_us : 0);
	if (rule != BW_OK)
		return perr(p, "%s", group_bandwidth_rule_str(rule));
	if (set->has_idle && set->idle && (set->has_weight || set->has_nice))
		return perr(p, "a weight beside idle 1 would not take (cpu.idle 1 sets the weight)");
	return 0;
}
