// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz target: the interface files through the C API (include/vsched.h) on a small tree.
 *
 * Input: one operation per line (at most API_OPS), fields separated by one space, each field
 * unescaped (\\ \n \t \s for a space, \0, \xHH):
 *   write PATH FILE VALUE    VALUE is the rest of the line
 *   read PATH FILE SIZE      vsched_read() into a SIZE-byte buffer
 *   mkdir PATH | threaded PATH | rmdir PATH
 *   assign CPUSET PATH
 * The VM has 4 vCPUs (TIDs 101-104 of process 100) and a clock that stands still; it starts
 * with web (+cpu), web/fe (threaded, holding vCPU 1) and bg.
 *
 * Invariants, after every operation:
 *  - refused (-errno): the whole tree reads as before and no change is notified;
 *  - accepted: one notification per change; a written value reads back canonically: writing
 *    back what the file reads is accepted and changes nothing (cgroup.procs and cgroup.threads
 *    one line at a time, cgroup.subtree_control with '+' before each controller; a threaded
 *    group's cgroup.procs is not readable, as on the kernel);
 *  - mkdir, rmdir, assign: the group exists, is gone, holds the vCPUs;
 *  - read: the bytes of a read into a large buffer, or -ENOSPC when SIZE cannot hold them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"
#include "util/cpuset.h"
#include "vsched.h"

#define API_OPS		32
#define API_VCPUS	4
#define API_READ_MAX	8192

struct api_fuzz {
	struct vsched *vs;
	struct fuzz_snap cur;		/* the tree after the last accepted change */
	unsigned int events;		/* change notifications so far */
};

static void api_notify(struct vsched *vs __unused, enum vsched_event ev __unused,
		       const char *path __unused, const char *file __unused, void *arg)
{
	((struct api_fuzz *)arg)->events++;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Unescapes s in place; returns the length (NULs may be inside). */
static size_t unescape(char *s)
{
	char *start = s, *out = s;

	for (; *s; s++) {
		if (*s != '\\' || !s[1]) {
			*out++ = *s;
			continue;
		}
		switch (*++s) {
		case 'n': *out++ = '\n'; break;
		case 't': *out++ = '\t'; break;
		case 's': *out++ = ' '; break;
		case '0': *out++ = '\0'; break;
		case 'x':
			if (hexval(s[1]) >= 0 && hexval(s[2]) >= 0) {
				*out++ = (char)(hexval(s[1]) << 4 | hexval(s[2]));
				s += 2;
				break;
			}
			/* fall through */
		default: *out++ = *s; break;
		}
	}
	*out = '\0';
	return (size_t)(out - start);
}

/* The next space-separated field, unescaped; "" when the line ends. */
static char *field(char **line)
{
	static char none[1];
	char *f = strsep(line, " ");

	if (!f) {
		none[0] = '\0';
		return none;
	}
	unescape(f);
	return f;
}

/* The rest of the line, as it is (a value may hold spaces); "" when the line ends. */
static char *rest_of(char *line)
{
	static char none[1];

	none[0] = '\0';
	return line ? line : none;
}

static void expect_unchanged(struct api_fuzz *af, unsigned int events, const char *what)
{
	struct fuzz_snap now = { 0 };
	const char *diff;

	fuzz_snapshot(af->vs, &now);
	diff = fuzz_snap_diff(&af->cur, &now);
	FUZZ_CHECK(!diff, "%s changed the tree: %s", what, diff);
	FUZZ_CHECK(af->events == events, "%s: %u change notifications", what,
		   af->events - events);
	fuzz_snap_free(&now);
}

static void accepted(struct api_fuzz *af, unsigned int events, unsigned int changes,
		     const char *what)
{
	FUZZ_CHECK(af->events == events + changes, "%s: %u change notifications, not %u", what,
		   af->events - events, changes);
	fuzz_snapshot(af->vs, &af->cur);
}

/* Writes back one canonical value: accepted, and nothing changes. */
static void rewrite(struct api_fuzz *af, const char *path, const char *file, const char *val,
		    size_t len)
{
	unsigned int ev = af->events;
	ssize_t ret = vsched_write(af->vs, path, file, val, len);

	FUZZ_CHECK(ret == (ssize_t)len, "%s/%s: writing back '%.*s' gave %zd", path, file,
		   (int)len, val, ret);
	/* A write is notified even when it changes nothing. */
	expect_unchanged(af, ev + 1, "writing back a value read");
}

static void check_readback(struct api_fuzz *af, const char *path, const char *file)
{
	char *r = NULL, *p, *tok, plus[64] = "";
	ssize_t n = vsched_read_alloc(af->vs, path, file, &r);

	/* As on the kernel, a threaded group takes a process but does not list it. */
	if (n == -EOPNOTSUPP && !strcmp(file, "cgroup.procs"))
		return;
	FUZZ_CHECK(n >= 0, "%s/%s: written, then unreadable: %zd", path, file, n);
	if (!strcmp(file, "cgroup.procs") || !strcmp(file, "cgroup.threads")) {
		for (p = r; (tok = strsep(&p, "\n"));)
			if (*tok)
				rewrite(af, path, file, tok, strlen(tok));
	} else if (!strcmp(file, "cgroup.subtree_control")) {
		for (p = r; (tok = strsep(&p, " \n"));)
			if (*tok && strlen(plus) + strlen(tok) + 3 < sizeof(plus))
				sprintf(plus + strlen(plus), "%s+%s", plus[0] ? " " : "", tok);
		if (plus[0])
			rewrite(af, path, file, plus, strlen(plus));
	} else if (n) {
		rewrite(af, path, file, r, (size_t)n);
	}
	free(r);
}

static void op_write(struct api_fuzz *af, const char *path, const char *file, char *value)
{
	unsigned int ev = af->events;
	size_t len = unescape(value);
	ssize_t ret = vsched_write(af->vs, path, file, value, len);

	if (ret <= 0) {
		FUZZ_CHECK(ret > -4096 && (ret < 0 || len == 0), "write: %zd for %zu bytes", ret,
			   len);
		expect_unchanged(af, ev, "a refused or empty write");
		return;
	}
	FUZZ_CHECK(ret == (ssize_t)len, "write of %zu bytes returned %zd", len, ret);
	accepted(af, ev, 1, "write");
	check_readback(af, path, file);
}

static void op_read(struct api_fuzz *af, const char *path, const char *file, const char *size)
{
	size_t len = strtoul(size, NULL, 10) % (API_READ_MAX + 1);
	char *buf = malloc(len ? len : 1), *full = NULL;
	ssize_t ret = vsched_read(af->vs, path, file, buf, len);
	ssize_t n = vsched_read_alloc(af->vs, path, file, &full);

	if (n < 0)
		FUZZ_CHECK(ret == n, "read into %zu bytes: %zd, a large buffer: %zd", len, ret, n);
	else if ((size_t)n < len)
		FUZZ_CHECK(ret == n && !memcmp(buf, full, (size_t)n + 1),
			   "read into %zu bytes: %zd, not the %zd bytes a large buffer gets", len,
			   ret, n);
	else
		FUZZ_CHECK(ret == -ENOSPC, "read of %zd bytes into %zu: %zd", n, len, ret);
	free(buf);
	free(full);
	expect_unchanged(af, af->events, "a read");
}

static bool group_exists(struct vsched *vs, const char *path)
{
	mode_t mode;

	return !vsched_stat(vs, path, NULL, &mode);
}

static void op_group(struct api_fuzz *af, const char *op, const char *path)
{
	unsigned int ev = af->events;
	bool mk = strcmp(op, "rmdir");
	int ret;

	if (!strcmp(op, "mkdir"))
		ret = vsched_mkdir(af->vs, path);
	else if (!strcmp(op, "threaded"))
		ret = vsched_mkdir_threaded(af->vs, path);
	else
		ret = vsched_rmdir(af->vs, path);
	if (ret) {
		FUZZ_CHECK(ret < 0 && ret > -4096, "%s: %d", op, ret);
		expect_unchanged(af, ev, op);
		return;
	}
	FUZZ_CHECK(group_exists(af->vs, path) == mk, "%s '%s' succeeded, the group %s", op, path,
		   mk ? "is missing" : "is still there");
	accepted(af, ev, strcmp(op, "threaded") ? 1 : 2, op);
}

static void op_assign(struct api_fuzz *af, const char *list, const char *path)
{
	unsigned int ev = af->events, i;
	struct cpuset set, in;
	char buf[256];
	int ret = vsched_assign(af->vs, list, path);

	if (ret) {
		FUZZ_CHECK(ret < 0 && ret > -4096, "assign: %d", ret);
		expect_unchanged(af, ev, "a refused assign");
		return;
	}
	accepted(af, ev, 1, "assign");
	FUZZ_CHECK(!cpuset_parse(list, API_VCPUS, &set), "assign took '%s'", list);
	cpuset_clear(&in);
	FUZZ_CHECK(vsched_read(af->vs, path, "vsched.vcpus", buf, sizeof(buf)) > 0 &&
			   (!strcmp(buf, "\n") || !cpuset_parse(buf, API_VCPUS, &in)),
		   "%s/vsched.vcpus unreadable after an assign", path);
	for (i = 0; i < API_VCPUS; i++)
		FUZZ_CHECK(!cpuset_test(&set, i) || cpuset_test(&in, i),
			   "vCPU %u assigned to '%s', which lists '%s'", i, path, buf);
}

static void api_setup(struct api_fuzz *af)
{
	unsigned int i;

	af->vs = vsched_create(2, API_VCPUS);
	FUZZ_CHECK(af->vs, "vsched_create");
	vsched_set_clock(af->vs, fuzz_clock, NULL);
	vsched_set_pid(af->vs, 100);
	for (i = 0; i < API_VCPUS; i++)
		vsched_set_vcpu_tid(af->vs, i, 101 + (pid_t)i);
	/* The process in web, vCPU 1 in its threaded child (threads move within their domain). */
	FUZZ_CHECK(!vsched_mkdir(af->vs, "web") && !vsched_mkdir(af->vs, "bg") &&
			   !vsched_write_str(af->vs, "web", "cgroup.procs", "100") &&
			   !vsched_write_str(af->vs, "web", "cgroup.subtree_control", "+cpu") &&
			   !vsched_mkdir_threaded(af->vs, "web/fe") &&
			   !vsched_assign(af->vs, "1", "web/fe"),
		   "setting up the tree");
	vsched_set_notify(af->vs, api_notify, af);
	fuzz_snapshot(af->vs, &af->cur);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct api_fuzz af = { 0 };
	char *text = fuzz_string(data, size), *rest = text, *line;
	unsigned int nr = 0;

	api_setup(&af);
	while ((line = strsep(&rest, "\n")) && nr++ < API_OPS) {
		char *op = strsep(&line, " "), *a, *b;

		if (!line)
			continue;
		a = field(&line);
		if (!strcmp(op, "write")) {
			b = field(&line);
			op_write(&af, a, b, rest_of(line));
		} else if (!strcmp(op, "read")) {
			b = field(&line);
			op_read(&af, a, b, rest_of(line));
		} else if (!strcmp(op, "assign")) {
			op_assign(&af, a, field(&line));
		} else if (!strcmp(op, "mkdir") || !strcmp(op, "threaded") ||
			   !strcmp(op, "rmdir")) {
			op_group(&af, op, a);
		}
	}
	fuzz_snap_free(&af.cur);
	vsched_destroy(af.vs);
	free(text);
	return 0;
}
