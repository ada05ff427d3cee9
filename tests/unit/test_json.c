// SPDX-License-Identifier: GPL-2.0
/*
 * The JSON writer (util/json.c) and the documents written through it: escaping of hostile
 * strings (quotes, backslashes, control bytes, invalid UTF-8), layout, misuse, and the --stats
 * "groups" of a tree whose group names are hostile, checked with a strict validator.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/run.h"
#include "util/compiler.h"
#include "util/json.h"
#include "vs_test.h"

struct jbuf {
	char *buf;
	size_t len;
	FILE *f;
	struct json j;
};

static void jb_open(struct jbuf *b)
{
	b->buf = NULL;
	b->f = open_memstream(&b->buf, &b->len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b->f);
	json_init(&b->j, b->f);
}

/* json_end()'s result; the text is in b->buf (free it). */
static int jb_close(struct jbuf *b)
{
	int ret = json_end(&b->j);

	fclose(b->f);
	return ret;
}

/* A strict RFC 8259 checker: returns the end of the value at p, NULL if invalid. */
static const char *jv_value(const char *p, int depth);

static const char *jv_ws(const char *p)
{
	while (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r')
		p++;
	return p;
}

static const char *jv_string(const char *p)
{
	const unsigned char *s = (const unsigned char *)p + 1;

	if (*p != '"')
		return NULL;
	while (*s != '"') {
		if (*s < 0x20)
			return NULL;
		if (*s == '\\') {
			s++;
			if (*s == 'u') {
				int i;

				for (i = 1; i <= 4; i++)
					if (!isxdigit(s[i]))
						return NULL;
				s += 5;
				continue;
			}
			if (!strchr("\"\\/bfnrt", *s) || !*s)
				return NULL;
			s++;
		} else if (*s >= 0x80) {
			/* Valid UTF-8 only: lead byte, then the right number of continuations. */
			int n = *s >= 0xf0 && *s <= 0xf4 ? 3 : *s >= 0xe0 ? 2 : *s >= 0xc2 ? 1 : -1;

			if (n < 0 || *s > 0xf4)
				return NULL;
			for (s++; n > 0; n--, s++)
				if ((*s & 0xc0) != 0x80)
					return NULL;
		} else {
			s++;
		}
	}
	return (const char *)s + 1;
}

static const char *jv_number(const char *p)
{
	if (*p == '-')
		p++;
	if (*p == '0')
		p++;
	else if (*p >= '1' && *p <= '9')
		while (isdigit((unsigned char)*p))
			p++;
	else
		return NULL;
	if (*p == '.') {
		if (!isdigit((unsigned char)*++p))
			return NULL;
		while (isdigit((unsigned char)*p))
			p++;
	}
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '+' || *p == '-')
			p++;
		if (!isdigit((unsigned char)*p))
			return NULL;
		while (isdigit((unsigned char)*p))
			p++;
	}
	return p;
}

static const char *jv_container(const char *p, int depth, bool object)
{
	char close = object ? '}' : ']';

	p = jv_ws(p + 1);
	if (*p == close)
		return p + 1;
	for (;;) {
		if (object) {
			p = jv_string(p);
			if (!p)
				return NULL;
			p = jv_ws(p);
			if (*p++ != ':')
				return NULL;
		}
		p = jv_value(p, depth + 1);
		if (!p)
			return NULL;
		p = jv_ws(p);
		if (*p == close)
			return p + 1;
		if (*p++ != ',')
			return NULL;
		p = jv_ws(p);
	}
}

static const char *jv_value(const char *p, int depth)
{
	p = jv_ws(p);
	if (depth > 64)
		return NULL;
	if (*p == '{' || *p == '[')
		return jv_container(p, depth, *p == '{');
	if (*p == '"')
		return jv_string(p);
	if (!strncmp(p, "true", 4) || !strncmp(p, "null", 4))
		return p + 4;
	if (!strncmp(p, "false", 5))
		return p + 5;
	return jv_number(p);
}

static bool json_valid(const char *text)
{
	const char *end = jv_value(text, 0);

	return end && !*jv_ws(end);
}

/* The escaped form of one string value, compared with want. */
static void expect_escaped(const char *in, size_t len, const char *want)
{
	struct jbuf b;

	jb_open(&b);
	json_strn(&b.j, in, len);
	CU_ASSERT_EQUAL(jb_close(&b), 0);
	if (strcmp(b.buf, want))
		printf("\n    got %s    want %s\n", b.buf, want);
	CU_ASSERT_STRING_EQUAL(b.buf, want);
	CU_ASSERT_TRUE(json_valid(b.buf));
	free(b.buf);
}

#define ESC(in, want) expect_escaped(in, sizeof(in) - 1, want "\n")

static void test_json_escape(void)
{
	ESC("plain", "\"plain\"");
	ESC("a\"b\\c", "\"a\\\"b\\\\c\"");
	ESC("t\tn\nr\r", "\"t\\tn\\nr\\u000d\"");
	ESC("\x01\x1f\x7f", "\"\\u0001\\u001f\\u007f\"");
	ESC("nul\0in", "\"nul\\u0000in\"");
	/* Valid UTF-8 passes through: é, €, U+10FFFF, an emoji. */
	ESC("\xc3\xa9\xe2\x82\xac\xf4\x8f\xbf\xbf\xf0\x9f\x98\x80",
	    "\"\xc3\xa9\xe2\x82\xac\xf4\x8f\xbf\xbf\xf0\x9f\x98\x80\"");
	/* Invalid: each byte becomes U+FFFD. */
	ESC("\xff", "\"\\ufffd\"");
	ESC("a\x80z", "\"a\\ufffdz\"");
	ESC("\xc0\xaf", "\"\\ufffd\\ufffd\"");		/* overlong '/' */
	ESC("\xe0\x80\xaf", "\"\\ufffd\\ufffd\\ufffd\"");	/* overlong, 3 bytes */
	ESC("\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"");	/* a UTF-16 surrogate */
	ESC("\xf4\x90\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\"");	/* above U+10FFFF */
	ESC("\xe2\x82", "\"\\ufffd\\ufffd\"");		/* cut short at the end */
	ESC("\xe2\x82x", "\"\\ufffd\\ufffdx\"");	/* cut short by an ASCII byte */
}

static void test_json_layout(void)
{
	struct jbuf b;

	jb_open(&b);
	json_object_begin(&b.j, 0);
	json_kv_str(&b.j, "k\"ey", "v");
	json_kv_i64(&b.j, "neg", -5);
	json_key(&b.j, "list");
	json_array_begin(&b.j, 0);
	json_object_begin(&b.j, JSON_INLINE);
	json_kv_u64(&b.j, "id", 0);
	json_key(&b.j, "inner");
	json_object_begin(&b.j, 0);		/* inside an inline object: inline too */
	json_kv_bool(&b.j, "b", true);
	json_key(&b.j, "n");
	json_null(&b.j);
	json_object_end(&b.j);
	json_object_end(&b.j);
	json_array_begin(&b.j, JSON_INLINE);
	json_array_end(&b.j);
	json_array_end(&b.j);
	json_key(&b.j, "d");
	json_double(&b.j, 0.1);
	json_key(&b.j, "nan");
	json_double(&b.j, NAN);
	json_key(&b.j, "empty");
	json_object_begin(&b.j, 0);
	json_object_end(&b.j);
	json_object_end(&b.j);
	CU_ASSERT_EQUAL(jb_close(&b), 0);
	CU_ASSERT_STRING_EQUAL(b.buf, "{\n"
				      "  \"k\\\"ey\": \"v\",\n"
				      "  \"neg\": -5,\n"
				      "  \"list\": [\n"
				      "    {\"id\": 0, \"inner\": {\"b\": true, \"n\": null}},\n"
				      "    []\n"
				      "  ],\n"
				      "  \"d\": 0.1,\n"
				      "  \"nan\": null,\n"
				      "  \"empty\": {}\n"
				      "}\n");
	CU_ASSERT_TRUE(json_valid(b.buf));
	free(b.buf);
}

static void test_json_misuse(void)
{
	struct jbuf b;
	int i;

	jb_open(&b);		/* a value in an object without a key */
	json_object_begin(&b.j, 0);
	json_u64(&b.j, 1);
	json_object_end(&b.j);
	CU_ASSERT_EQUAL(jb_close(&b), -EINVAL);
	free(b.buf);

	jb_open(&b);		/* a key in an array */
	json_array_begin(&b.j, 0);
	json_key(&b.j, "k");
	json_array_end(&b.j);
	CU_ASSERT_EQUAL(jb_close(&b), -EINVAL);
	free(b.buf);

	jb_open(&b);		/* left open; a key without a value; mismatched end */
	json_object_begin(&b.j, 0);
	CU_ASSERT_EQUAL(jb_close(&b), -EINVAL);
	free(b.buf);
	jb_open(&b);
	json_object_begin(&b.j, 0);
	json_key(&b.j, "k");
	json_object_end(&b.j);
	CU_ASSERT_EQUAL(jb_close(&b), -EINVAL);
	free(b.buf);
	jb_open(&b);
	json_object_begin(&b.j, 0);
	json_array_end(&b.j);
	CU_ASSERT_EQUAL(jb_close(&b), -EINVAL);
	free(b.buf);

	jb_open(&b);		/* two values at the top */
	json_u64(&b.j, 1);
	json_u64(&b.j, 2);
	CU_ASSERT_EQUAL(jb_close(&b), -EINVAL);
	free(b.buf);

	jb_open(&b);		/* deeper than JSON_DEPTH_MAX */
	for (i = 0; i <= JSON_DEPTH_MAX; i++)
		json_array_begin(&b.j, 0);
	CU_ASSERT_EQUAL(jb_close(&b), -EINVAL);
	free(b.buf);
}

/* --stats "groups" of a tree with hostile group names: valid JSON, names escaped. */
static void test_json_stats_hostile_names(void)
{
	static const char *const names[] = {
		"a\"b", "back\\slash", "ctl\x01\x1f\x7f", "\xff\xfe", "tab\there", "{\"x\": 1}",
		"\xc3\xa9t\xc3\xa9",
	};
	struct vsched *vs = vs_new(2);
	struct run_monitor_ctx ctx = { .vs = vs };
	struct jbuf b;
	size_t i;

	CU_ASSERT_PTR_NOT_NULL_FATAL(vs);
	for (i = 0; i < ARRAY_SIZE(names); i++)
		CU_ASSERT_EQUAL(vsched_mkdir(vs, names[i]), 0);
	CU_ASSERT_EQUAL(vsched_mkdir(vs, "a\"b/in\\ner"), 0);
	WRITE_OK(vs, "a\"b", "cpu.weight", "300");
	jb_open(&b);
	json_object_begin(&b.j, 0);
	run_monitor_json(&b.j, &ctx);
	json_object_end(&b.j);
	CU_ASSERT_EQUAL(jb_close(&b), 0);
	if (!json_valid(b.buf))
		printf("\n%s\n", b.buf);
	CU_ASSERT_TRUE(json_valid(b.buf));
	CU_ASSERT_PTR_NOT_NULL(strstr(b.buf, "{\"path\": \"/a\\\"b\", \"cpu.weight\": 300, "
					     "\"cpu.max\": \"max 100000\", \"cpu.idle\": 0, "
					     "\"cpu.stat\": {\"usage_usec\": 0"));
	CU_ASSERT_PTR_NOT_NULL(strstr(b.buf, "\"path\": \"/a\\\"b/in\\\\ner\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(b.buf, "\"path\": \"/back\\\\slash\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(b.buf, "\"path\": \"/ctl\\u0001\\u001f\\u007f\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(b.buf, "\"path\": \"/\\ufffd\\ufffd\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(b.buf, "\"path\": \"/tab\\there\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(b.buf, "\"path\": \"/{\\\"x\\\": 1}\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(b.buf, "\"path\": \"/\xc3\xa9t\xc3\xa9\""));
	free(b.buf);
	vsched_destroy(vs);
}

static CU_TestInfo json_tests[] = {
	{ "escaping: quotes, backslashes, control bytes, UTF-8", test_json_escape },
	{ "layout: inline and indented containers", test_json_layout },
	{ "misuse is reported", test_json_misuse },
	{ "--stats groups with hostile names", test_json_stats_hostile_names },
	CU_TEST_INFO_NULL,
};

TEST_SUITE("util/json", json_tests)
