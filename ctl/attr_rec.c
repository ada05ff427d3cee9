// SPDX-License-Identifier: GPL-2.0
/*
 * The text of one record of what the control directory keeps about a node (attr.c), as the host
 * scheduler saves it across its restarts (include/ctl/ctl.h). Read back from a file root owns,
 * but checked field by field all the same: a record gives a user rights, so anything not
 * exactly as written here (a uid of -1, a mode above 07777, a key with "..") is refused whole.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl/ctl.h"

bool ctl_attr_key_valid(const char *key)
{
	const char *p = key, *end;
	size_t n;

	if (key[0] != '/' || strpbrk(key, "\t\n"))
		return false;
	if (!key[1])
		return true;
	for (p = key + 1;; p = end + 1) {
		end = strchrnul(p, '/');
		n = (size_t)(end - p);
		if (!n || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
			return false;
		if (!*end)
			return true;
	}
}

static int rec_owner(char *buf, size_t len, const struct ctl_owner *o)
{
	return o->set ? snprintf(buf, len, "%u:%u", (unsigned int)o->uid, (unsigned int)o->gid) :
			snprintf(buf, len, "-");
}

int ctl_attr_rec_format(const struct ctl_attr_rec *r, char *buf, size_t len)
{
	char mode[16], own[3][32];
	int n;

	if (!ctl_attr_key_valid(r->key) || (r->has_mode && r->mode > 07777))
		return -EINVAL;
	if (r->has_mode)
		snprintf(mode, sizeof(mode), "%04o", (unsigned int)r->mode);
	else
		snprintf(mode, sizeof(mode), "-");
	rec_owner(own[0], sizeof(own[0]), &r->owner);
	rec_owner(own[1], sizeof(own[1]), &r->files);
	rec_owner(own[2], sizeof(own[2]), &r->cpu_files);
	n = snprintf(buf, len, "%s\t%s\t%s\t%s\t%s", r->key, mode, own[0], own[1], own[2]);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : n;
}

/* Decimal digits only, at most max: no sign, no space, no hex (strtoul takes all three). */
static int rec_number(const char *s, size_t n, unsigned long max, int base, unsigned long *out)
{
	unsigned long v = 0;
	size_t i;

	if (!n || n > 11)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > (base == 8 ? '7' : '9'))
			return -EINVAL;
		v = v * (unsigned long)base + (unsigned long)(s[i] - '0');
	}
	if (v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

/* "-" or "UID:GID"; uid and gid below (uid_t)-1, which chown(2) reads as "unchanged". */
static int rec_owner_parse(const char *s, size_t n, struct ctl_owner *o)
{
	const char *colon = memchr(s, ':', n);
	unsigned long uid, gid;

	*o = (struct ctl_owner){ 0 };
	if (n == 1 && s[0] == '-')
		return 0;
	if (!colon || rec_number(s, (size_t)(colon - s), 0xfffffffeUL, 10, &uid) ||
	    rec_number(colon + 1, n - (size_t)(colon + 1 - s), 0xfffffffeUL, 10, &gid))
		return -EINVAL;
	*o = (struct ctl_owner){ true, (uid_t)uid, (gid_t)gid };
	return 0;
}

int ctl_attr_rec_parse(const char *line, struct ctl_attr_rec *r)
{
	const char *f[5], *end;
	size_t len[5];
	unsigned long mode;
	int i;

	memset(r, 0, sizeof(*r));
	for (i = 0, f[0] = line; i < 5; i++) {
		end = strchrnul(f[i], '\t');
		len[i] = (size_t)(end - f[i]);
		if (i < 4) {
			if (!*end)
				return -EINVAL;
			f[i + 1] = end + 1;
		} else if (*end) {
			return -EINVAL;		/* a sixth field */
		}
	}
	if (len[0] >= sizeof(r->key))
		return -EINVAL;
	memcpy(r->key, f[0], len[0]);
	if (!ctl_attr_key_valid(r->key))
		return -EINVAL;
	if (!(len[1] == 1 && f[1][0] == '-')) {
		if (rec_number(f[1], len[1], 07777, 8, &mode))
			return -EINVAL;
		r->has_mode = true;
		r->mode = (mode_t)mode;
	}
	if (rec_owner_parse(f[2], len[2], &r->owner) || rec_owner_parse(f[3], len[3], &r->files) ||
	    rec_owner_parse(f[4], len[4], &r->cpu_files))
		return -EINVAL;
	return 0;
}
