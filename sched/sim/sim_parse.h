/* SPDX-License-Identifier: GPL-2.0 */
/* Inside the scenario parser: one parse's state, shared by sim_parse.c and sim_parse_value.c. */
#ifndef VSCHED_SIM_PARSE_H
#define VSCHED_SIM_PARSE_H

#include <errno.h>
#include <stdarg.h>

#include "sim_types.h"
#include "util/compiler.h"

#define SIM_MAX_TOKENS	32
#define SIM_NR_KEYWORDS	6	/* sim_parse.c's keywords[] */

struct parser {
	struct sim_scenario *sc;
	unsigned int line;
	struct diag *diag;
	unsigned int keyword_line[SIM_NR_KEYWORDS];	/* 0: not given yet */
};

static inline __printf(2, 3) int perr(struct parser *p, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = diag_vat(p->diag, -EINVAL, (int)p->line, NULL, NULL, fmt, ap);
	va_end(ap);
	return ret;
}

/*
 * sim_parse_value.c: a time with its unit (bare: microseconds) in whole ns (-EDOM: finer); an
 * unsigned integer.
 */
int sim_parse_time(const char *tok, uint64_t *out);
int sim_parse_ulong(const char *tok, unsigned long *out);
/* Refuses tok, a time sim_parse_time() returned ret for, at the parser's line. */
int sim_time_err(struct parser *p, int ret, const char *tok);
/* A group path into out (GROUP_PATH_MAX bytes). */
int sim_parse_path(struct parser *p, const char *tok, char *out);
/* A setting marked given, refused if it was already: only one of the two would take. */
int sim_setting_once(struct parser *p, bool *has, const char *key);
/* Settings: weight W | nice N | max QUOTA PERIOD | max max [PERIOD] | burst B | idle 0|1 */
int sim_parse_settings(struct parser *p, char **tok, int n, struct sim_settings *set);

#endif
