// SPDX-License-Identifier: GPL-2.0
/*
 * The apply plan executed through back ends: the calls a back end receives, a failure named and
 * stopping the run, and every failure point of a re-apply undone (an in-memory cgroup tree).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "libvirt/fsops.h"
#include "libvirt/plan.h"
#include "libvirt_plan_test.h"
#include "test.h"

/* A back end that records calls, as the C API back end would receive them. */
struct rec {
	char log[4096];
	size_t len;
	const char *fail_file;	/* write to this file fails with fail_err */
	int fail_err;
};

static int rec_mkdir(void *ctx, const char *path)
{
	struct rec *r = ctx;

	r->len += (size_t)snprintf(r->log + r->len, sizeof(r->log) - r->len, "M %s\n", path);
	return 1;
}

static int rec_write(void *ctx, const char *path, const char *file, const char *value)
{
	struct rec *r = ctx;

	if (r->fail_file && !strcmp(file, r->fail_file))
		return r->fail_err;
	r->len += (size_t)snprintf(r->log + r->len, sizeof(r->log) - r->len, "W %s/%s=%s\n",
				   path, file, value);
	return 0;
}

static int rec_move(void *ctx, const char *path, unsigned int vcpu)
{
	struct rec *r = ctx;

	r->len += (size_t)snprintf(r->log + r->len, sizeof(r->log) - r->len, "V %u>%s\n", vcpu,
				   path);
	return 0;
}

static void test_exec_backend(void)
{
	struct domain_def def;
	struct diag d;
	struct fsops f;
	struct plan p;
	struct rec r = { .fail_file = "cpu.weight", .fail_err = -ENOENT };
	struct fs_backend be = { .mkdir = rec_mkdir, .write = rec_write, .move = rec_move,
				 .ctx = &r };

	CU_ASSERT_EQUAL_FATAL(parse_str(DOM_HEAD("2") "<cputune><shares>300</shares></cputune>\n"
					"<metadata><v:groups xmlns:v='" NS "'>\n"
					"<v:group name='g' idle='1'/><v:assign vcpus='1' group='g'/>"
					"</v:groups></metadata></domain>", &def, &d), 0);
	CU_ASSERT_EQUAL_FATAL(plan_build(&def, 0, &p), 0);
	CU_ASSERT_EQUAL_FATAL(fsops_render(&p, FS_V2, &f, &d), 0);
	/* The VM's group has no cpu.weight (a kernel-like root): warned, the rest applied. */
	CU_ASSERT_EQUAL(fsops_exec(&f, &be, &d), 0);
	CU_ASSERT_STRING_EQUAL(r.log, "M g\n"
				      "W g/cgroup.type=threaded\n"
				      "W /cgroup.subtree_control=+cpu\n"
				      "W g/cpu.idle=1\n"
				      "W g/cpu.max.burst=0\n"
				      "W g/cpu.max=max 100000\n"
				      "V 0>\n"
				      "V 1>g\n");
	CU_ASSERT_EQUAL(d.nr_warn, 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(d.warn[0], "no cpu.weight here; '300' not applied"));

	/* A failure inside a group stops the run and names file, value, errno and element. */
	memset(&r, 0, sizeof(r));
	r.fail_file = "cpu.idle";
	r.fail_err = -EINVAL;
	CU_ASSERT_EQUAL(fsops_exec(&f, &be, &d), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, "<vsched:group>: writing '1' to g/cpu.idle: "
					     "Invalid argument"));
	CU_ASSERT_PTR_NULL(strstr(r.log, "V "));
	fsops_free(&f);
	plan_free(&p);
	domain_free(&def);
	diag_free(&d);
}

/*
 * An in-memory cgroup tree as a back end: directories, file values, where each vCPU is. The
 * fail_at-th change (mkdir, rmdir, write, move) fails, to check that every failure point
 * leaves the tree as it was.
 */
#define MT_MAX	64
struct mtree {
	int nr_dirs, nr_files;
	char dirs[MT_MAX][96];
	struct {
		char key[160];
		char val[64];
	} files[4 * MT_MAX];
	char where[3][96];
	int changes, fail_at;
};

static int mt_change(struct mtree *m)
{
	return m->changes++ == m->fail_at ? -EBUSY : 0;
}

static int mt_dir(const struct mtree *m, const char *path)
{
	int i;

	for (i = 0; i < m->nr_dirs; i++)
		if (!strcmp(m->dirs[i], path))
			return i;
	return -1;
}

static char *mt_file(struct mtree *m, const char *path, const char *file, bool add)
{
	char key[160];
	int i;

	snprintf(key, sizeof(key), "%s/%s", path, file);
	for (i = 0; i < m->nr_files; i++)
		if (!strcmp(m->files[i].key, key))
			return m->files[i].val;
	if (!add || m->nr_files == 4 * MT_MAX)
		return NULL;
	snprintf(m->files[m->nr_files].key, sizeof(m->files[0].key), "%s", key);
	m->files[m->nr_files].val[0] = '\0';
	return m->files[m->nr_files++].val;
}

static int mt_mkdir(void *ctx, const char *path)
{
	struct mtree *m = ctx;

	if (mt_dir(m, path) >= 0)
		return 0;
	if (mt_change(m))
		return -EBUSY;
	snprintf(m->dirs[m->nr_dirs++], sizeof(m->dirs[0]), "%s", path);
	return 1;
}

static int mt_rmdir(void *ctx, const char *path)
{
	struct mtree *m = ctx;
	int i = mt_dir(m, path), k;
	size_t n = strlen(path);

	if (i < 0)
		return -ENOENT;
	for (k = 0; k < 3; k++)
		if (!strcmp(m->where[k], path))
			return -EBUSY;
	memmove(m->dirs[i], m->dirs[i + 1], (size_t)(m->nr_dirs - i - 1) * sizeof(m->dirs[0]));
	m->nr_dirs--;
	for (k = 0; k < m->nr_files; k++)
		if (!strncmp(m->files[k].key, path, n) && m->files[k].key[n] == '/' &&
		    !strchr(m->files[k].key + n + 1, '/'))
			m->files[k].val[0] = '\0';
	return 0;
}

static int mt_read(void *ctx, const char *path, const char *file, char *buf, size_t len)
{
	struct mtree *m = ctx;
	char *v;

	if (mt_dir(m, path) < 0)
		return -ENOENT;
	v = mt_file(m, path, file, false);
	snprintf(buf, len, "%s", v ? v : "");
	return 0;
}

static int mt_write(void *ctx, const char *path, const char *file, const char *value)
{
	struct mtree *m = ctx;
	char *v;

	if (mt_dir(m, path) < 0)
		return -ENOENT;
	if (mt_change(m))
		return -EBUSY;
	v = mt_file(m, path, file, true);
	if (!v)
		return -ENOSPC;
	/* cgroup.subtree_control holds the controllers, not what was written. */
	if (!strcmp(file, "cgroup.subtree_control"))
		value = value[0] == '+' ? "cpu" : "";
	snprintf(v, 64, "%s", value);
	return 0;
}

static int mt_move(void *ctx, const char *path, unsigned int vcpu)
{
	struct mtree *m = ctx;

	if (mt_dir(m, path) < 0)
		return -ENOENT;
	if (mt_change(m))
		return -EBUSY;
	snprintf(m->where[vcpu], sizeof(m->where[0]), "%s", path);
	return 0;
}

static int mt_locate(void *ctx, unsigned int vcpu, char *path, size_t len)
{
	struct mtree *m = ctx;

	snprintf(path, len, "%s", m->where[vcpu]);
	return 0;
}

/* Same directories, vCPU places and non-empty values, in any order. */
static bool mt_same(struct mtree *a, struct mtree *b)
{
	int i;

	if (a->nr_dirs != b->nr_dirs)
		return false;
	for (i = 0; i < 3; i++)
		if (strcmp(a->where[i], b->where[i]))
			return false;
	for (i = 0; i < a->nr_dirs; i++)
		if (mt_dir(b, a->dirs[i]) < 0)
			return false;
	for (i = 0; i < a->nr_files + b->nr_files; i++) {
		struct mtree *x = i < a->nr_files ? a : b, *y = i < a->nr_files ? b : a;
		int k = i < a->nr_files ? i : i - a->nr_files;
		const char *val = x->files[k].val;
		int j;
		bool found = !val[0];

		for (j = 0; j < y->nr_files; j++)
			if (!strcmp(y->files[j].key, x->files[k].key))
				found = !strcmp(y->files[j].val, val);
		if (!found)
			return false;
	}
	return true;
}

/* Every failure point of a re-apply over an existing group leaves the tree as it was. */
static void test_exec_all_or_nothing(void)
{
	static struct mtree init, m;
	struct domain_def def;
	struct diag d;
	struct fsops f;
	struct plan p;
	struct fs_backend be = { .mkdir = mt_mkdir, .rmdir = mt_rmdir, .read = mt_read,
				 .write = mt_write, .move = mt_move, .locate = mt_locate,
				 .ctx = &m };
	enum fs_flavor fl;
	int k, total;

	memset(&init, 0, sizeof(init));
	init.fail_at = -1;
	init.nr_dirs = 2;
	strcpy(init.dirs[0], "");
	strcpy(init.dirs[1], "fast");
	strcpy(init.where[1], "fast");
	mt_write(&init, "fast", "cpu.weight", "55");
	mt_write(&init, "fast", "cgroup.type", "threaded");
	mt_write(&init, "", "cpu.max", "max 100000");
	mt_write(&init, "", "cpu.shares", "1024");
	CU_ASSERT_EQUAL_FATAL(parse_str(dom_full, &def, &d), 0);
	CU_ASSERT_EQUAL_FATAL(plan_build(&def, 0, &p), 0);
	for (fl = FS_V2; fl <= FS_V1; fl++) {
		CU_ASSERT_EQUAL_FATAL(fsops_render(&p, fl, &f, &d), 0);
		m = init;
		m.changes = 0;
		CU_ASSERT_EQUAL(fsops_exec(&f, &be, &d), 0);
		CU_ASSERT_FALSE(mt_same(&m, &init));
		total = m.changes;
		CU_ASSERT_TRUE(total > 20);
		for (k = 0; k < total; k++) {
			m = init;
			m.changes = 0;
			m.fail_at = k;
			diag_free(&d);
			diag_init(&d, "t.xml");
			CU_ASSERT_EQUAL(fsops_exec(&f, &be, &d), -EBUSY);
			if (!mt_same(&m, &init))
				printf("\n    flavour %d: failure at change %d of %d left "
				       "changes\n", fl, k, total);
			CU_ASSERT_TRUE(mt_same(&m, &init));
		}
		fsops_free(&f);
	}
	plan_free(&p);
	domain_free(&def);
	diag_free(&d);
}

static CU_TestInfo tests[] = {
	{ "execution through a back end", test_exec_backend },
	{ "execution is all or nothing at every failure point", test_exec_all_or_nothing },
	CU_TEST_INFO_NULL,
};

TEST_SUITE("libvirt_exec", tests);
