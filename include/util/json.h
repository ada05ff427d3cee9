/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one JSON writer: every JSON document vsched writes (--stats, traces) goes through it, so
 * every string and key is escaped in one place. It streams to a FILE and keeps the layout the
 * integration tests read line by line: containers opened with JSON_INLINE put their members on
 * one line ({"id": 0, "tid": 12}); the others put each member on a line of its own, indented
 * two spaces per level.
 *
 * Strings are written as valid UTF-8 JSON whatever the input: '"', '\\' and control bytes are
 * escaped, valid UTF-8 passes through, and each byte of an invalid sequence (a group name may
 * hold any byte but '/' and '\n', as on cgroupfs) becomes U+FFFD.
 *
 * Misuse (a value in an object without a key, a key in an array, unbalanced ends, nesting deeper
 * than JSON_DEPTH_MAX) is recorded and stops the output; json_end() reports it.
 */
#ifndef VSCHED_UTIL_JSON_H
#define VSCHED_UTIL_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_DEPTH_MAX	16
#define JSON_INLINE	(1U << 0)	/* members on one line */

struct json {
	FILE *f;
	unsigned int depth;
	struct {
		bool is_object;
		bool is_inline;
		bool has_members;
	} level[JSON_DEPTH_MAX];
	bool after_key;			/* a key was written; its value comes next */
	bool top_done;			/* the one top-level value has begun */
	int err;			/* first error: -EINVAL misuse, -EIO output */
};

void json_init(struct json *j, FILE *f);
/*
 * 0 once every container is closed and f took everything (a final newline is added); else the
 * first misuse's -errno or the write's (-ENOSPC on a full disk, -EIO when unknown).
 */
int json_end(struct json *j);

void json_object_begin(struct json *j, unsigned int flags);
void json_object_end(struct json *j);
void json_array_begin(struct json *j, unsigned int flags);
void json_array_end(struct json *j);
void json_key(struct json *j, const char *key);

void json_str(struct json *j, const char *s);		/* NULL writes null */
void json_strn(struct json *j, const char *s, size_t len);
void json_u64(struct json *j, uint64_t v);
void json_i64(struct json *j, int64_t v);
void json_double(struct json *j, double v);		/* NaN and infinities write null */
void json_bool(struct json *j, bool v);
void json_null(struct json *j);

/* key and value in one call, for object members. */
void json_kv_str(struct json *j, const char *key, const char *s);
void json_kv_u64(struct json *j, const char *key, uint64_t v);
void json_kv_i64(struct json *j, const char *key, int64_t v);
void json_kv_bool(struct json *j, const char *key, bool v);

#endif
