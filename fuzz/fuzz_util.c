// SPDX-License-Identifier: GPL-2.0
/*
 * Helpers of the fuzz targets: failing a check, the binary targets' input reader and vCPU thread
 * stand-in, and a snapshot of a VM's whole group tree.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"
#include "vmm/kick.h"
#include "vsched.h"

void fuzz_fail(const char *file, int line, const char *cond, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s:%d: invariant broken: %s\n  ", file, line, cond);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

char *fuzz_string(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	FUZZ_CHECK(s, "out of memory");
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

uint64_t fuzz_clock(void *arg __unused)
{
	return 1000000000ULL;
}

bool fuzz_more(const struct fuzz_in *in)
{
	return in->p < in->end;
}

uint8_t fuzz_u8(struct fuzz_in *in)
{
	return in->p < in->end ? *in->p++ : 0;
}

uint16_t fuzz_u16(struct fuzz_in *in)
{
	uint16_t lo = fuzz_u8(in);

	return lo | (uint16_t)(fuzz_u8(in) << 8);
}

uint32_t fuzz_u32(struct fuzz_in *in)
{
	uint32_t lo = fuzz_u16(in);

	return lo | (uint32_t)fuzz_u16(in) << 16;
}

uint64_t fuzz_u64(struct fuzz_in *in)
{
	uint8_t n = fuzz_u8(in);
	uint64_t v = 0;
	unsigned int i;

	if (n == 0xff)
		return UINT64_MAX;
	for (i = 0; i < n && i < 8; i++)
		v |= (uint64_t)fuzz_u8(in) << (8 * i);
	return v;
}

static pid_t stand_in_tid;

static void stand_in_kick(int sig __unused)
{
}

static void *stand_in(void *arg __unused)
{
	__atomic_store_n(&stand_in_tid, gettid(), __ATOMIC_RELEASE);
	for (;;)
		pause();
	return NULL;
}

pid_t fuzz_stand_in(void)
{
	struct sigaction sa = { .sa_handler = stand_in_kick, .sa_flags = SA_RESTART };
	pthread_t th;

	if (stand_in_tid)
		return stand_in_tid;
	/* Unhandled, the kick signal would end the process. */
	FUZZ_CHECK(!sigaction(VCPU_KICK_SIGNAL, &sa, NULL), "sigaction: %m");
	FUZZ_CHECK(!pthread_create(&th, NULL, stand_in, NULL), "no stand-in thread");
	while (!__atomic_load_n(&stand_in_tid, __ATOMIC_ACQUIRE))
		usleep(100);
	return stand_in_tid;
}

static void snap_put(struct fuzz_snap *s, const char *p, size_t n)
{
	if (s->len + n + 1 > s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 4096;

		while (cap < s->len + n + 1)
			cap *= 2;
		s->buf = realloc(s->buf, cap);
		FUZZ_CHECK(s->buf, "out of memory");
		s->cap = cap;
	}
	memcpy(s->buf + s->len, p, n);
	s->len += n;
	s->buf[s->len] = '\0';
}

static void __printf(2, 3) snap_printf(struct fuzz_snap *s, const char *fmt, ...)
{
	char line[256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	snap_put(s, line, n < (int)sizeof(line) ? (size_t)n : sizeof(line) - 1);
}

/* Names from the listings, copied out (listing callbacks run under the VM's lock). */
struct files {
	char name[32][32];
	mode_t mode[32];
	size_t nr;
};

struct kids {
	char **name;
	size_t nr;
};

static int files_add(const char *name, mode_t mode, void *arg)
{
	struct files *f = arg;

	FUZZ_CHECK(f->nr < ARRAY_SIZE(f->name) && strlen(name) < sizeof(f->name[0]),
		   "file '%s': more or longer names than expected", name);
	strcpy(f->name[f->nr], name);
	f->mode[f->nr++] = mode;
	return 0;
}

static int kids_add(const char *name, mode_t mode __unused, void *arg)
{
	struct kids *k = arg;

	k->name = realloc(k->name, (k->nr + 1) * sizeof(*k->name));
	FUZZ_CHECK(k->name, "out of memory");
	k->name[k->nr] = strdup(name);
	FUZZ_CHECK(k->name[k->nr++], "out of memory");
	return 0;
}

/* One group: its files (name, mode, read result), then its children, depth first. */
static void snap_group(struct vsched *vs, const char *path, struct fuzz_snap *s)
{
	struct files files;
	struct kids kids = { 0 };
	size_t i;
	int ret;

	snap_printf(s, "group %zu:", strlen(path));
	snap_put(s, path, strlen(path));
	snap_put(s, "\n", 1);
	files.nr = 0;
	ret = vsched_list_files(vs, path, files_add, &files);
	FUZZ_CHECK(!ret, "listing the files of '%s': %d", path, ret);
	for (i = 0; i < files.nr; i++) {
		char buf[4096], *content = buf;
		ssize_t n = vsched_read(vs, path, files.name[i], buf, sizeof(buf));

		/* Most files fit on the stack; snapshots are taken after every operation. */
		if (n == -ENOSPC)
			n = vsched_read_alloc(vs, path, files.name[i], &content);
		snap_printf(s, "  %s %o %zd:", files.name[i], (unsigned int)files.mode[i], n);
		if (n > 0)
			snap_put(s, content, (size_t)n);
		snap_put(s, "\n", 1);
		if (content != buf)
			free(content);
	}
	ret = vsched_list_children(vs, path, kids_add, &kids);
	FUZZ_CHECK(!ret, "listing the children of '%s': %d", path, ret);
	for (i = 0; i < kids.nr; i++) {
		char *sub;

		FUZZ_CHECK(asprintf(&sub, "%s%s%s", path, path[0] ? "/" : "", kids.name[i]) > 0,
			   "out of memory");
		snap_group(vs, sub, s);
		free(sub);
		free(kids.name[i]);
	}
	free(kids.name);
}

void fuzz_snapshot(struct vsched *vs, struct fuzz_snap *s)
{
	s->len = 0;
	snap_group(vs, "", s);
}

void fuzz_snap_free(struct fuzz_snap *s)
{
	free(s->buf);
	memset(s, 0, sizeof(*s));
}

const char *fuzz_snap_diff(const struct fuzz_snap *a, const struct fuzz_snap *b)
{
	static char msg[1024];
	size_t i, start = 0, ea, eb;

	if (a->len == b->len && !memcmp(a->buf, b->buf, a->len))
		return NULL;
	for (i = 0; i < a->len && i < b->len && a->buf[i] == b->buf[i]; i++)
		if (a->buf[i] == '\n')
			start = i + 1;
	for (ea = start; ea < a->len && a->buf[ea] != '\n'; ea++)
		;
	for (eb = start; eb < b->len && b->buf[eb] != '\n'; eb++)
		;
	snprintf(msg, sizeof(msg), "'%.*s' became '%.*s'", (int)(ea - start), a->buf + start,
		 (int)(eb - start), b->buf + start);
	return msg;
}
