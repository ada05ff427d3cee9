// SPDX-License-Identifier: GPL-2.0
/* Streaming JSON writer with one string escaper; see include/util/json.h. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/json.h"

void json_init(struct json *j, FILE *f)
{
	*j = (struct json){ .f = f };
}

static void json_fail(struct json *j, int err)
{
	if (!j->err)
		j->err = err;
}

static void json_indent(struct json *j, unsigned int depth)
{
	fprintf(j->f, "\n%*s", (int)(2 * depth), "");
}

/* Separator and layout before a value (or a key in an object). */
static bool json_pre(struct json *j, bool is_key)
{
	bool in_object;

	if (j->err)
		return false;
	if (!j->depth) {
		/* One value at the top. */
		if (is_key || j->top_done)
			json_fail(j, -EINVAL);
		j->top_done = true;
		return !j->err;
	}
	in_object = j->level[j->depth - 1].is_object;
	if (j->after_key && !is_key) {
		j->after_key = false;
		return true;
	}
	if (in_object != is_key || j->after_key) {
		json_fail(j, -EINVAL);
		return false;
	}
	if (j->level[j->depth - 1].has_members)
		fputc(',', j->f);
	if (j->level[j->depth - 1].is_inline)
		fputs(j->level[j->depth - 1].has_members ? " " : "", j->f);
	else
		json_indent(j, j->depth);
	j->level[j->depth - 1].has_members = true;
	return true;
}

static void json_begin(struct json *j, bool is_object, unsigned int flags, char c)
{
	bool parent_inline = j->depth && j->level[j->depth - 1].is_inline;

	if (!json_pre(j, false))
		return;
	if (j->depth == JSON_DEPTH_MAX) {
		json_fail(j, -EINVAL);
		return;
	}
	fputc(c, j->f);
	j->level[j->depth].is_object = is_object;
	/* Inside a one-line container everything stays on that line. */
	j->level[j->depth].is_inline = (flags & JSON_INLINE) || parent_inline;
	j->level[j->depth].has_members = false;
	j->depth++;
}

static void json_close(struct json *j, bool is_object, char c)
{
	if (j->err)
		return;
	if (!j->depth || j->level[j->depth - 1].is_object != is_object || j->after_key) {
		json_fail(j, -EINVAL);
		return;
	}
	j->depth--;
	if (!j->level[j->depth].is_inline && j->level[j->depth].has_members)
		json_indent(j, j->depth);
	fputc(c, j->f);
}

void json_object_begin(struct json *j, unsigned int flags)
{
	json_begin(j, true, flags, '{');
}

void json_object_end(struct json *j)
{
	json_close(j, true, '}');
}

void json_array_begin(struct json *j, unsigned int flags)
{
	json_begin(j, false, flags, '[');
}

void json_array_end(struct json *j)
{
	json_close(j, false, ']');
}

/* Length of the valid UTF-8 sequence at s (at most n bytes), 0 if none starts there. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t len, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4;
	else
		return 0;		/* continuation byte, overlong lead, beyond U+10FFFF */
	if (len > n)
		return 0;
	/* Second-byte limits that exclude overlongs, surrogates and code points > U+10FFFF. */
	if (s[0] == 0xe0)
		lo = 0xa0;
	else if (s[0] == 0xed)
		hi = 0x9f;
	else if (s[0] == 0xf0)
		lo = 0x90;
	else if (s[0] == 0xf4)
		hi = 0x8f;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return len;
}

static void json_escape(FILE *f, const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0, len;

	fputc('"', f);
	while (i < n) {
		unsigned char c = s[i];

		if (c == '"' || c == '\\') {
			fputc('\\', f);
			fputc(c, f);
		} else if (c == '\n') {
			fputs("\\n", f);
		} else if (c == '\t') {
			fputs("\\t", f);
		} else if (c < 0x20 || c == 0x7f) {
			fprintf(f, "\\u%04x", c);
		} else if ((len = utf8_len(s + i, n - i))) {
			fwrite(s + i, 1, len, f);
			i += len;
			continue;
		} else {
			fputs("\\ufffd", f);
		}
		i++;
	}
	fputc('"', f);
}

void json_key(struct json *j, const char *key)
{
	if (!key) {
		json_fail(j, -EINVAL);
		return;
	}
	if (!json_pre(j, true))
		return;
	json_escape(j->f, key, strlen(key));
	fputs(": ", j->f);
	j->after_key = true;
}

void json_strn(struct json *j, const char *s, size_t len)
{
	if (json_pre(j, false))
		json_escape(j->f, s, len);
}

void json_str(struct json *j, const char *s)
{
	if (!s)
		json_null(j);
	else
		json_strn(j, s, strlen(s));
}

void json_u64(struct json *j, uint64_t v)
{
	if (json_pre(j, false))
		fprintf(j->f, "%" PRIu64, v);
}

void json_i64(struct json *j, int64_t v)
{
	if (json_pre(j, false))
		fprintf(j->f, "%" PRId64, v);
}

/* The shortest of %.15g and %.17g that reads back as v (0.1 stays "0.1"). */
static const char *json_fmt_double(double v, char *buf, size_t len)
{
	snprintf(buf, len, "%.15g", v);
	if (strtod(buf, NULL) != v)
		snprintf(buf, len, "%.17g", v);
	return buf;
}

void json_double(struct json *j, double v)
{
	char buf[32];

	if (!isfinite(v))
		json_null(j);
	else if (json_pre(j, false))
		fputs(json_fmt_double(v, buf, sizeof(buf)), j->f);
}

void json_bool(struct json *j, bool v)
{
	if (json_pre(j, false))
		fputs(v ? "true" : "false", j->f);
}

void json_null(struct json *j)
{
	if (json_pre(j, false))
		fputs("null", j->f);
}

void json_kv_str(struct json *j, const char *key, const char *s)
{
	json_key(j, key);
	json_str(j, s);
}

void json_kv_u64(struct json *j, const char *key, uint64_t v)
{
	json_key(j, key);
	json_u64(j, v);
}

void json_kv_i64(struct json *j, const char *key, int64_t v)
{
	json_key(j, key);
	json_i64(j, v);
}

void json_kv_bool(struct json *j, const char *key, bool v)
{
	json_key(j, key);
	json_bool(j, v);
}

int json_end(struct json *j)
{
	if (!j->err && (j->depth || j->after_key))
		json_fail(j, -EINVAL);
	if (!j->err)
		fputc('\n', j->f);
	errno = 0;
	if (!j->err && (fflush(j->f) || ferror(j->f)))
		json_fail(j, errno ? -errno : -EIO);	/* ENOSPC says more than EIO */
	return j->err;
}
