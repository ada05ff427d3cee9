// SPDX-License-Identifier: GPL-2.0
/*
 * Test helper: one xattr call, its result on stdout as "ok", a value, or the strerror text, so
 * that a shell test can compare a file system with another (XATTR_CREATE and XATTR_REPLACE
 * included, which setfattr cannot ask for).
 *   xattr set PATH NAME VALUE [create|replace]   xattr get PATH NAME
 *   xattr list PATH                              xattr remove PATH NAME
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/xattr.h>

int main(int argc, char **argv)
{
	char buf[65536];
	ssize_t n, i;
	int flags = 0;

	if (argc < 3)
		return 2;
	if (!strcmp(argv[1], "set") && argc >= 5) {
		if (argc > 5)
			flags = !strcmp(argv[5], "create") ? XATTR_CREATE : XATTR_REPLACE;
		n = setxattr(argv[2], argv[3], argv[4], strlen(argv[4]), flags);
	} else if (!strcmp(argv[1], "get") && argc == 4) {
		n = getxattr(argv[2], argv[3], buf, sizeof(buf) - 1);
		if (n >= 0) {
			printf("%.*s\n", (int)n, buf);
			return 0;
		}
	} else if (!strcmp(argv[1], "list") && argc == 3) {
		n = listxattr(argv[2], buf, sizeof(buf));
		for (i = 0; n > 0 && i < n; i += (ssize_t)strlen(buf + i) + 1)
			printf("%s ", buf + i);
		if (n >= 0) {
			printf("\n");
			return 0;
		}
	} else if (!strcmp(argv[1], "remove") && argc == 4) {
		n = removexattr(argv[2], argv[3]);
	} else {
		return 2;
	}
	printf("%s\n", n < 0 ? strerror(errno) : "ok");
	return n < 0;
}
