/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The command line (kvmtool's builtin-*.c pattern): cmd/main.c dispatches to one cmd_NAME.c per
 * subcommand through a table; each subcommand declares its options as a table of struct cmd_opt,
 * from which cmd_parse() builds getopt_long()'s arrays and cmd_usage() prints --help.
 */
#ifndef VSCHED_CMD_CMD_H
#define VSCHED_CMD_CMD_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "util/compiler.h"

/* A subcommand: a row of main.c's table. */
struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv);	/* argv[0] is the subcommand name */
	const char *summary;
};

int cmd_run(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_top(int argc, char **argv);
int cmd_sim(int argc, char **argv);
int cmd_apply(int argc, char **argv);
int cmd_hook(int argc, char **argv);
int cmd_host(int argc, char **argv);

/* Exit status of a usage error: nothing was done. */
#define CMD_EXIT_USAGE	2

/*
 * One option. With set, the value (NULL for a flag) goes through set(cfg, val), which returns
 * 0, -E2BIG (given too often) or -EINVAL (bad value: "invalid --NAME 'VAL' (hint)"). Without
 * set, the option stores into cfg at off: a flag (arg NULL) a bool true, else the value's
 * const char *.
 */
struct cmd_opt {
	const char *name;	/* long name, without "--" */
	char key;		/* short option letter, or 0 */
	const char *arg;	/* the value's name in --help; NULL: a flag */
	int (*set)(void *cfg, const char *val);
	size_t off;
	const char *hint;	/* what a valid value is, for the error message */
	const char *help;	/* --help text; '\n' starts a continuation line */
};

struct cmd_desc {
	const char *prog;	/* "vsched run" */
	const char *usage;	/* what follows prog on the usage line: "[OPTIONS]" */
	const char *about;	/* printed before the options */
	const struct cmd_opt *opts;
	unsigned int nr_opts;	/* at most 64 */
	const char *footer;	/* printed after the options, or NULL */
	unsigned int min_args, max_args;	/* positional arguments */
};

/*
 * Parses argv[1..] with d's table (-h/--help is added): every option given goes through its row.
 * Returns the index of the first positional argument (>= 1), 0 after printing --help to stdout,
 * or -EINVAL after one message and "Try 'PROG --help'." on stderr. *seen (may be NULL) gets
 * bit i for each d->opts[i] given.
 */
int cmd_parse(const struct cmd_desc *d, int argc, char **argv, void *cfg, uint64_t *seen);
void cmd_usage(const struct cmd_desc *d, FILE *f);
/* "PROG: <message>\nTry 'PROG --help'." on stderr; returns -EINVAL. */
int cmd_usage_error(const struct cmd_desc *d, const char *fmt, ...) __printf(2, 3);

#endif
