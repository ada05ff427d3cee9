// SPDX-License-Identifier: GPL-2.0
/*
 * `vsched hook GUEST OPERATION SUB-OPERATION EXTRA < domain.xml`: libvirt's QEMU hook
 * (libvirt-hooks/hook.c). Options are only looked at when the four arguments are not there, so
 * a guest whose name starts with '-' is still a guest.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "libvirt/apply.h"
#include "libvirt/hook.h"

#define PROG "vsched hook"

static const struct cmd_desc hook_desc = {
	.prog = PROG, .usage = "GUEST OPERATION SUB-OPERATION EXTRA < domain.xml",
	.about = "The libvirt QEMU hook (called by libvirt as /etc/libvirt/hooks/qemu.d/vsched):\n"
		 "validates an opted-in domain before it starts, applies its groups once its vCPU\n"
		 "threads exist. Exit status 1 makes libvirt refuse the domain.\n",
	.min_args = 4, .max_args = 4,
};

int cmd_hook(int argc, char **argv)
{
	enum hook_action action;
	struct diag d;
	char *xml = NULL;
	size_t len = 0;
	int ret;

	if (argc != 5) {
		ret = cmd_parse(&hook_desc, argc, argv, NULL, NULL);
		return ret ? CMD_EXIT_USAGE : 0;
	}
	action = hook_action(argv[2], argv[3]);
	/* Read stdin in every case, so libvirt never writes into a closed pipe. */
	ret = domain_read(STDIN_FILENO, &xml, &len);
	if (ret) {
		fprintf(stderr, "%s: reading the domain XML from stdin: %s\n", PROG,
			strerror(-ret));
		return action == HOOK_NONE || action == HOOK_REAPPLY ? 0 : 1;
	}
	if (action == HOOK_NONE || !strcmp(argv[1], "-")) {
		free(xml);
		return 0;
	}
	/*
	 * libvirt passes its own formatting of the domain, not the user's file: say so, and
	 * quote the line each message refers to.
	 */
	diag_init(&d, "libvirt's domain XML (reformatted by libvirt, not your file)");
	d.src = xml;
	d.src_len = len;
	ret = hook_run(argv[1], action, xml, len, &d);
	apply_report(PROG, &d);
	diag_free(&d);
	free(xml);
	if (ret && action == HOOK_REAPPLY)
		return 0;
	return ret ? 1 : 0;
}
