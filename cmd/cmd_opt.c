// SPDX-License-Identifier: GPL-2.0
/* Option tables: getopt_long()'s arrays and --help, both made from one struct cmd_opt table. */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <string.h>

#include "cmd/cmd.h"

#define CMD_MAX_OPTS	64
#define CMD_OPT_LONG	0x100	/* getopt val of row i that has no letter: + i */
#define CMD_HELP_COL	27	/* where the help text starts */

static const struct cmd_opt cmd_help_opt = {
	.name = "help", .key = 'h', .help = "this text",
};

static void cmd_usage_row(FILE *f, const struct cmd_opt *o)
{
	const char *h = o->help;
	int n;

	n = fprintf(f, "  %c%c%s--%s%s%s", o->key ? '-' : ' ', o->key ? o->key : ' ',
		    o->key ? ", " : "  ", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
	for (;;) {
		size_t len = strcspn(h, "\n");

		fprintf(f, "%*s%.*s\n", n < CMD_HELP_COL ? CMD_HELP_COL - n : 1, "", (int)len, h);
		if (!h[len])
			break;
		h += len + 1;
		n = 0;
	}
}

void cmd_usage(const struct cmd_desc *d, FILE *f)
{
	unsigned int i;

	fprintf(f, "usage: %s %s\n%s\n", d->prog, d->usage, d->about);
	for (i = 0; i < d->nr_opts; i++)
		cmd_usage_row(f, &d->opts[i]);
	cmd_usage_row(f, &cmd_help_opt);
	if (d->footer)
		fprintf(f, "\n%s", d->footer);
}

int cmd_usage_error(const struct cmd_desc *d, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", d->prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry '%s --help'.\n", d->prog);
	return -EINVAL;
}

/* Row i of d takes val (NULL for a flag). */
static int cmd_take(const struct cmd_desc *d, unsigned int i, void *cfg, const char *val)
{
	const struct cmd_opt *o = &d->opts[i];
	int ret;

	if (!o->set) {
		if (o->arg)
			*(const char **)((char *)cfg + o->off) = val;
		else
			*(bool *)((char *)cfg + o->off) = true;
		return 0;
	}
	ret = o->set(cfg, val);
	if (ret == -E2BIG)
		return cmd_usage_error(d, "too many --%s options", o->name);
	if (ret)
		return cmd_usage_error(d, "invalid --%s '%s'%s%s%s", o->name, val ? val : "",
				       o->hint ? " (" : "", o->hint ? o->hint : "",
				       o->hint ? ")" : "");
	return 0;
}

/* getopt_long()'s value for row i. */
static int cmd_opt_val(const struct cmd_desc *d, unsigned int i)
{
	return d->opts[i].key ? d->opts[i].key : CMD_OPT_LONG + (int)i;
}

/*
 * The option a getopt_long() error is about. argv[optind - 1] is the word last read, which is
 * not the one at fault inside a cluster of letters ("-xb": 'x' is refused while optind still
 * points at the cluster), so a letter is named by optopt; a long option ("--name", "--na",
 * "--name=v") only when that word is one and names the option optopt is (an unknown one has
 * optopt 0).
 */
static const char *cmd_bad_opt(const struct cmd_desc *d, char **argv, char *buf, size_t len)
{
	const char *w = argv[optind - 1];
	unsigned int i;

	if (!optopt)
		return w;
	if (!strncmp(w, "--", 2)) {
		size_t n = strcspn(w + 2, "=");

		for (i = 0; i < d->nr_opts; i++)
			if (cmd_opt_val(d, i) == optopt && strlen(d->opts[i].name) >= n &&
			    !strncmp(d->opts[i].name, w + 2, n))	/* or abbreviates it */
				return w;
	}
	if (optopt > 0 && optopt < CMD_OPT_LONG) {
		snprintf(buf, len, "-%c", optopt);
		return buf;
	}
	return w;
}

/* "--pre" that abbreviates several long options: glibc refuses it as it refuses an unknown. */
static int cmd_ambiguous(const struct cmd_desc *d, const char *w)
{
	size_t n = strcspn(w + 2, "="), off = 0;
	char names[256] = "";
	unsigned int i, hits = 0;

	for (i = 0; i < d->nr_opts; i++) {
		if (strncmp(d->opts[i].name, w + 2, n))
			continue;
		if (strlen(d->opts[i].name) == n)
			return 0;	/* an exact match is no abbreviation */
		hits++;
		if (off < sizeof(names))
			off += (size_t)snprintf(names + off, sizeof(names) - off, "%s--%s",
						off ? ", " : "", d->opts[i].name);
	}
	if (hits < 2)
		return 0;
	return cmd_usage_error(d, "option '%.*s' is ambiguous (%s)", (int)n + 2, w, names);
}

int cmd_parse(const struct cmd_desc *d, int argc, char **argv, void *cfg, uint64_t *seen)
{
	/* ':' first: a missing value is reported as such (getopt returns ':'). */
	char sopts[2 * CMD_MAX_OPTS + 4] = ":h", *p = sopts + 2;
	struct option lopts[CMD_MAX_OPTS + 2];
	unsigned int i, nargs;
	char bad[4];
	int c;

	if (d->nr_opts > CMD_MAX_OPTS)
		return cmd_usage_error(d, "%u options: the table holds at most %u", d->nr_opts,
				       CMD_MAX_OPTS);
	for (i = 0; i < d->nr_opts; i++) {
		const struct cmd_opt *o = &d->opts[i];

		lopts[i] = (struct option){ o->name, o->arg ? required_argument : no_argument,
					    NULL, cmd_opt_val(d, i) };
		if (o->key) {
			*p++ = o->key;
			if (o->arg)
				*p++ = ':';
		}
	}
	*p = '\0';
	lopts[i++] = (struct option){ "help", no_argument, NULL, 'h' };
	lopts[i] = (struct option){ NULL, 0, NULL, 0 };
	if (seen)
		*seen = 0;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, sopts, lopts, NULL)) != -1) {
		if (c == 'h') {
			cmd_usage(d, stdout);
			return 0;
		}
		if (c == ':')
			return cmd_usage_error(d, "option '%s' needs a value",
					       cmd_bad_opt(d, argv, bad, sizeof(bad)));
		for (i = 0; i < d->nr_opts; i++)
			if (c == cmd_opt_val(d, i))
				break;
		if (c == '?' && optopt && !strncmp(argv[optind - 1], "--", 2) &&
		    cmd_bad_opt(d, argv, bad, sizeof(bad)) == argv[optind - 1])
			return cmd_usage_error(d, "option '%.*s' takes no value",
					       (int)strcspn(argv[optind - 1], "="), argv[optind - 1]);
		if (c == '?' && !optopt && !strncmp(argv[optind - 1], "--", 2) &&
		    cmd_ambiguous(d, argv[optind - 1]))
			return -EINVAL;
		if (c == '?' || i == d->nr_opts)
			return cmd_usage_error(d, "unknown option '%s'",
					       cmd_bad_opt(d, argv, bad, sizeof(bad)));
		if (cmd_take(d, i, cfg, d->opts[i].arg ? optarg : NULL))
			return -EINVAL;
		if (seen)
			*seen |= 1ULL << i;
	}
	nargs = (unsigned int)(argc - optind);
	if (nargs > d->max_args)
		return cmd_usage_error(d, "unexpected argument '%s'", argv[optind + d->max_args]);
	if (nargs < d->min_args)
		return cmd_usage_error(d, "missing argument (usage: %s %s)", d->prog, d->usage);
	return optind;
}
