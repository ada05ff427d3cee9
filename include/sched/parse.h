/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel string parsing, reimplemented so that interface files accept and reject exactly what
 * cgroupfs does: kstrtoull()/kstrtoll()/kstrtoint() (lib/kstrtox.c), strstrip(), and the parts of
 * the kernel's vsscanf() (lib/vsprintf.c) that cpu.max relies on ("%20s %llu").
 * Pure functions; they return 0 or -errno and never print.
 */
#ifndef VSCHED_SCHED_PARSE_H
#define VSCHED_SCHED_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The kernel's isspace(): ' ', \t, \n, \v, \f, \r and Latin-1 NBSP (0xa0), see lib/ctype.c. */
bool parse_isspace(char c);

/*
 * kstrtoull(s, 0, out): optional '+', base from the prefix (0x hex, 0 octal, else decimal), at
 * most one trailing '\n'. -ERANGE on overflow (checked before trailing garbage, as the kernel
 * does), -EINVAL for anything else. *out is written only on success.
 */
int parse_u64(const char *s, uint64_t *out);
/* kstrtoll(s, 0, out): as parse_u64 with an optional '-'; -ERANGE outside the s64 range. */
int parse_s64(const char *s, int64_t *out);
/* kstrtoint(s, 0, out): as parse_s64; -ERANGE outside the int range. */
int parse_int(const char *s, int *out);

/* strstrip(): trims kernel whitespace at both ends in place; returns the first kept character. */
char *parse_strstrip(char *s);

/*
 * vsscanf() conversions, advancing *p like the kernel's scanner.
 * parse_scan_str: "%<width>s": skips whitespace, copies up to width non-space characters into
 * tok (width + 1 bytes) and NUL-terminates. Returns false (no conversion) when *p is at the end.
 * parse_scan_ull: "%llu": skips whitespace, needs a decimal digit (no sign), then reads digits,
 * wrapping silently past 2^64 - 1 like simple_strntoull(). Returns false when nothing converted.
 */
bool parse_scan_str(const char **p, char *tok, int width);
bool parse_scan_ull(const char **p, uint64_t *out);

/*
 * cpu_period_quota_parse() of cpu.max: sscanf(buf, "%20s %llu", tok, period) then tok as "%llu"
 * or "max". *period_us must hold the current period on entry (one number keeps it).
 * On success *quota_us is the quota in microseconds or UINT64_MAX for "max". -EINVAL otherwise,
 * including a quota or period above U64_MAX / 1000 (mainline's overflow rule; 6.12 wrapped).
 * Range checks (quota >= 1000, ...) belong to the setter, not to the syntax.
 */
int parse_cpu_max(const char *buf, uint64_t *quota_us, uint64_t *period_us);

#endif
