/* SPDX-License-Identifier: GPL-2.0 */
/* Value parsers for `vsched run` flags: sizes, durations, counts. 0 or -EINVAL/-ERANGE. */
#ifndef VSCHED_VMM_OPTS_H
#define VSCHED_VMM_OPTS_H

#include <stdint.h>

/* "64M", "1G", "4096", "512K" (binary units, optional "iB"/"B"). */
int opts_parse_size(const char *s, uint64_t *bytes);
/* strtod() of a plain decimal ("2.5", "1e3"); NAN and *end = s for a sign, space, inf or hex. */
double opts_strtod(const char *s, char **end);
/* "3" or "3s", "2.5s", "500ms", "250us" into nanoseconds; must be > 0. */
int opts_parse_duration(const char *s, uint64_t *ns);
/* A decimal integer in [min, max]. */
int opts_parse_uint(const char *s, unsigned int min, unsigned int max, unsigned int *out);

#endif
