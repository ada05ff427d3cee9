// SPDX-License-Identifier: GPL-2.0
/*
 * t-api-ctl.sh's C side: runs operations from stdin on a tree made with the public API alone
 * (built with pkg-config) and prints each result as ctl_ops.py prints the same operation done
 * in a VM's control directory. Usage: api_ops NR_VCPUS LANES [PID TID0 TID1 ...].
 * An operation per line, tab-separated: "mkdir PATH", "rmdir PATH", "read PATH FILE",
 * "write PATH FILE VALUE" (VALUE unescaped: \n \t \s \0 \xHH); PATH "." is the root.
 * Output: the return (length or -errno) and, after a write, what the file reads then.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vsched.h>

static size_t unescape(const char *s, char *out)
{
	size_t n = 0;
	unsigned int v;

	while (*s) {
		if (*s != '\\' || !s[1]) {
			out[n++] = *s++;
			continue;
		}
		s++;
		switch (*s) {
		case 'n': out[n++] = '\n'; break;
		case 't': out[n++] = '\t'; break;
		case 's': out[n++] = ' '; break;
		case '0': out[n++] = '\0'; break;
		case 'x':
			if (sscanf(s + 1, "%2x", &v) == 1)
				out[n++] = (char)v;
			s += 2;
			break;
		default: out[n++] = *s;
		}
		s++;
	}
	return n;
}

/* Content with newlines as \n, on one line. */
static void show(struct vsched *vs, const char *path, const char *file)
{
	char *buf, *p;
	ssize_t n = vsched_read_alloc(vs, path, file, &buf);

	if (n < 0) {
		printf("%zd", n);
		return;
	}
	printf("%zd ", n);
	for (p = buf; *p; p++)
		fputs(*p == '\n' ? "\\n" : (char[]){ *p, 0 }, stdout);
	free(buf);
}

int main(int argc, char **argv)
{
	static char line[16384], val[16384];
	struct vsched *vs;
	int i;

	if (argc < 3)
		return 2;
	vs = vsched_create((unsigned int)atoi(argv[2]), (unsigned int)atoi(argv[1]));
	if (!vs) {
		perror("vsched_create");
		return 1;
	}
	/* The VM's own PID and TIDs, so cgroup.procs/threads read and move alike. */
	for (i = 3; i < argc; i++) {
		if (i == 3)
			vsched_set_pid(vs, atoi(argv[i]));
		else
			vsched_set_vcpu_tid(vs, (unsigned int)(i - 4), atoi(argv[i]));
	}
	while (fgets(line, sizeof(line), stdin)) {
		char *op, *path, *file, *v;

		line[strcspn(line, "\n")] = '\0';
		if (!line[0] || line[0] == '#')
			continue;
		op = strtok(line, "\t");
		path = strtok(NULL, "\t");
		file = strtok(NULL, "\t");
		v = strtok(NULL, "");
		if (!path || !strcmp(path, "."))
			path = "";
		if (!strcmp(op, "mkdir")) {
			printf("mkdir %s = %d", path, vsched_mkdir(vs, path));
		} else if (!strcmp(op, "rmdir")) {
			printf("rmdir %s = %d", path, vsched_rmdir(vs, path));
		} else if (!strcmp(op, "read") && file) {
			printf("read %s/%s = ", path, file);
			show(vs, path, file);
		} else if (!strcmp(op, "write") && file) {
			size_t n = unescape(v ? v : "", val);

			printf("write %s/%s '%s' = %zd | ", path, file, v ? v : "",
			       vsched_write(vs, path, file, val, n));
			show(vs, path, file);
		} else {
			printf("bad operation %s", op);
		}
		putchar('\n');
	}
	vsched_destroy(vs);
	return 0;
}
