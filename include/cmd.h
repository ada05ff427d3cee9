/* SPDX-License-Identifier: GPL-2.0 */
/* Subcommands of the vsched binary; each lives in the module it drives. */
#ifndef VSCHED_CMD_H
#define VSCHED_CMD_H

struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv);	/* argv[0] is the subcommand name */
	const char *summary;
};

#endif
