/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Interface files of a group, declared as a table like the kernel's struct cftype cpu_files[].
 * Every front end (control directory, CLI --group, domain XML, C API) reads and writes group
 * settings through these entries, so each file has exactly one parser and one formatter.
 */
#ifndef VSCHED_SCHED_CFTYPE_H
#define VSCHED_SCHED_CFTYPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "sched/group.h"

#define CFTYPE_NOT_ON_ROOT	(1U << 0)
#define CFTYPE_ONLY_ON_ROOT	(1U << 1)
/* Only while the parent has "cpu" in subtree_control. */
#define CFTYPE_CPU		(1U << 2)
/* A vsched extension; the name starts with "vsched.". */
#define CFTYPE_VSCHED		(1U << 3)
/* Typed files: "max" is the row's max and reads back so; writes are strstrip()ed first. */
#define CFTYPE_MAX_WORD		(1U << 4)
/* Typed files: a value outside [min, max] is EINVAL (the kernel's setter), not ERANGE. */
#define CFTYPE_RANGE_EINVAL	(1U << 5)

/* kernfs atomic_write_len: longer writes are E2BIG. */
#define CFTYPE_WRITE_MAX	4096

struct cpuset;

/*
 * One interface file. A single-number file is typed, as the kernel's read_u64/write_u64 and
 * read_s64/write_s64 files are: cftype_write() parses with kstrtoull()/kstrtoll(), checks the
 * row's [min, max] (ERANGE outside, unless CFTYPE_RANGE_EINVAL) and hands the value over;
 * cftype_show() prints it and a newline. Files of several fields have show/write handlers.
 */
struct cftype {
	const char *name;
	unsigned int flags;
	/* Formats the whole file into buf (size bytes); returns its length or -errno. */
	ssize_t (*show)(struct sched *s, struct group *g, uint64_t now_ns, char *buf, size_t size);
	/* Parses one write (buf NUL-terminated, len bytes) and applies it; 0 or -errno. */
	int (*write)(struct sched *s, struct group *g, char *buf, size_t len);

	/* Typed files: the value and its setter (which checks the state rules); 0 or -errno. */
	uint64_t (*read_u64)(const struct group *g);
	int (*write_u64)(struct sched *s, struct group *g, uint64_t val);
	int64_t (*read_s64)(const struct group *g);
	int (*write_s64)(struct sched *s, struct group *g, int64_t val);
	union {
		struct { uint64_t min, max; } u64;
		struct { int64_t min, max; } s64;
	};

	/*
	 * Files whose writes move vCPUs (cgroup.procs, cgroup.threads, vsched.vcpus): the one
	 * parser of such a write, giving the vCPUs it names (buf is a copy it may change).
	 * The write handler and vsched_write_move() both use it. 0 or the write's -errno.
	 */
	int (*parse_moves)(struct sched *s, char *buf, struct cpuset *set);
};

extern const struct cftype cgroup_files[];	/* terminated by an entry with name == NULL */

/* The entry called name, whichever groups have it; NULL if there is none. */
const struct cftype *cftype_find(const char *name);
/* The entry called name if it exists in group g (root rules, +cpu), else NULL. */
const struct cftype *cftype_lookup(const struct group *g, const char *name);
/* Whether g has a file called name; the tree refuses a mkdir that would shadow one (EEXIST). */
bool cftype_exists(const struct group *g, const char *name);
/* Whether cft exists in g (the rule cftype_lookup() applies). */
bool cftype_visible(const struct cftype *cft, const struct group *g);
/* Whether cft has a read (show or typed) and a write handler. */
bool cftype_readable(const struct cftype *cft);
bool cftype_writable(const struct cftype *cft);
/* 0644 for files with a write handler, 0444 otherwise (cgroup_file_mode()). */
mode_t cftype_mode(const struct cftype *cft);
/*
 * The vCPUs a write of len bytes to cft would move (parse_moves() on a NUL-terminated copy):
 * 0, or 1 where it names none to check (not a moving file, an empty or too long write), or the
 * write's -errno: the write itself then refuses or ignores it, so callers apply it as it is.
 */
int cftype_moves(struct sched *s, const struct cftype *cft, const char *buf, size_t len,
		 struct cpuset *set);

/*
 * The one write path of every front end, with kernfs/cgroup_file_write() rules, in their order:
 * -E2BIG above CFTYPE_WRITE_MAX bytes, a zero-length write succeeds and does nothing, -EINVAL
 * if the file has no write handler (cgroupfs opens read-only files for writing; the write
 * fails); the handler sees a NUL-terminated copy (so it stops at an embedded NUL, as the
 * kernel's do). Returns len on success, else -errno.
 */
ssize_t cftype_write(struct sched *s, struct group *g, const struct cftype *cft, const char *buf,
		     size_t len);
/*
 * The one read path: formats the whole file into buf (NUL-terminated). -EACCES without a show
 * handler, the handler's own error (before any -ENOSPC), -ENOSPC if size is too small (retry
 * larger), else the length.
 */
ssize_t cftype_show(struct sched *s, struct group *g, const struct cftype *cft, uint64_t now_ns,
		    char *buf, size_t size);

#endif
