// SPDX-License-Identifier: GPL-2.0
/* Scenario files of the simulator; the format is described in include/sched/sim.h. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "sim_parse.h"

/* The keywords of one value; each is given once (a second one silently won). */
static const char *const keywords[] = { "lanes", "deliver", "duration", "slice", "min_run", "lag" };
_Static_assert(ARRAY_SIZE(keywords) == SIM_NR_KEYWORDS, "struct parser's keyword_line[]");

static void *grow(void *a, unsigned int nr, size_t size)
{
	return realloc(a, (nr + 1) * size);
}

static int parse_group(struct parser *p, char **tok, int n)
{
	struct sim_scenario *sc = p->sc;
	struct sim_group_cfg *g;

	if (n < 2)
		return perr(p, "group needs a path");
	g = grow(sc->groups, sc->nr_groups, sizeof(*g));
	if (!g)
		return -ENOMEM;
	sc->groups = g;
	g = &sc->groups[sc->nr_groups];
	memset(g, 0, sizeof(*g));
	if (sim_parse_path(p, tok[1], g->path) || sim_parse_settings(p, tok + 2, n - 2, &g->set))
		return -EINVAL;
	if (!strcmp(g->path, "/"))
		return perr(p, "the root group takes no settings here");
	if (sim_find_group(sc, g->path))
		return perr(p, "group %s already defined at line %u", SIM_WORD(g->path),
			    sim_find_group(sc, g->path)->line);
	*strrchr(g->path, '/') = '\0';
	if (g->path[0] && !sim_find_group(sc, g->path))
		return perr(p, "parent %s of a group is not defined above",
				    SIM_WORD(g->path));
	strcpy(g->path, tok[1]);
	g->line = p->line;
	sc->nr_groups++;
	return 0;
}

static int parse_pattern(struct parser *p, char **tok, int n, struct sim_vcpu_cfg *v)
{
	bool has_phase = false, has_seed = false, has_sys = false;
	const char *busy, *period;
	int i;

	if (n < 1)
		return perr(p, "vcpu needs a pattern");
	if (!strcmp(tok[0], "hog")) {
		v->kind = SIM_HOG;
		i = 1;
	} else if (!strcmp(tok[0], "idle")) {
		v->kind = SIM_IDLE;
		i = 1;
	} else if (!strcmp(tok[0], "duty") || !strcmp(tok[0], "bursty") ||
		   !strcmp(tok[0], "sleep")) {
		v->kind = tok[0][0] == 'd' ? SIM_DUTY : tok[0][0] == 'b' ? SIM_BURSTY : SIM_SLEEP;
		/* The fields by the names docs/scheduler.md §8 gives them. */
		busy = v->kind == SIM_BURSTY ? "BURST" : "BUSY";
		period = v->kind == SIM_BURSTY ? "GAP" : v->kind == SIM_SLEEP ? "SLEEP" : "PERIOD";
		if (n < 3)
			return perr(p, "%s needs %s and %s times", tok[0], busy, period);
		for (i = 1; i < 3; i++) {
			int ret = sim_parse_time(tok[i], i == 1 ? &v->busy : &v->period);

			if (ret == -EDOM)
				return sim_time_err(p, ret, tok[i]);
			if (ret)
				return perr(p, "%s needs %s and %s times", tok[0], busy, period);
		}
		if (v->kind == SIM_SLEEP && (!v->busy || !v->period))
			return perr(p, "sleep needs BUSY and SLEEP above 0");
		if (v->kind != SIM_SLEEP && (!v->busy || v->period < v->busy))
			return perr(p, "%s needs 0 < %s <= %s", tok[0], busy, period);
		i = 3;
	} else {
		return perr(p, "unknown pattern '%s'", SIM_WORD(tok[0]));
	}
	/*
	 * Each option once, and only where it acts: phase on duty, bursty and sleep, seed on bursty (a
	 * second one silently won, a misplaced one was silently ignored).
	 */
	while (i < n) {
		unsigned long val;

		/* The name first: a misspelt one at the end of a line was "'x' needs a value". */
		if (strcmp(tok[i], "phase") && strcmp(tok[i], "seed") && strcmp(tok[i], "sys"))
			return perr(p, "unknown vcpu option '%s'", SIM_WORD(tok[i]));
		if (i + 1 >= n)
			return perr(p, "'%s' needs a value", tok[i]);
		if (!strcmp(tok[i], "phase")) {
			if (v->kind == SIM_HOG || v->kind == SIM_IDLE)
				return perr(p, "phase is for duty, bursty and sleep vcpus");
			if (sim_setting_once(p, &has_phase, "phase"))
				return -EINVAL;
			if (sim_parse_time(tok[i + 1], &v->phase) == -EDOM)
				return sim_time_err(p, -EDOM, tok[i + 1]);
			if (sim_parse_time(tok[i + 1], &v->phase))
				return perr(p, "bad phase");
		} else if (!strcmp(tok[i], "seed")) {
			if (v->kind != SIM_BURSTY)
				return perr(p, "seed is for bursty vcpus");
			if (sim_setting_once(p, &has_seed, "seed"))
				return -EINVAL;
			if (sim_parse_ulong(tok[i + 1], &val))
				return perr(p, "bad seed");
			v->seed = val;
		} else if (!strcmp(tok[i], "sys")) {
			if (sim_setting_once(p, &has_sys, "sys"))
				return -EINVAL;
			if (sim_parse_ulong(tok[i + 1], &val) || val > 100)
				return perr(p, "sys is a percentage");
			v->sys_pct = (unsigned int)val;
		} else {
			return perr(p, "unknown vcpu option '%s'", SIM_WORD(tok[i]));
		}
		i += 2;
	}
	return 0;
}

static int parse_vcpu(struct parser *p, char **tok, int n)
{
	struct sim_scenario *sc = p->sc;
	unsigned long id;
	unsigned int i;

	if (n < 4 || sim_parse_ulong(tok[1], &id) || id >= 4096)
		return perr(p, "usage: vcpu ID PATH PATTERN [ARGS] (ID < 4096)");
	if (id >= sc->nr_vcpus) {
		struct sim_vcpu_cfg *v = realloc(sc->vcpus, (id + 1) * sizeof(*v));

		if (!v)
			return -ENOMEM;
		for (i = sc->nr_vcpus; i <= id; i++) {
			memset(&v[i], 0, sizeof(v[i]));
			strcpy(v[i].path, "/");
		}
		sc->vcpus = v;
		sc->nr_vcpus = (unsigned int)id + 1;
	}
	if (sc->vcpus[id].line)
		return perr(p, "vcpu %lu already defined at line %u", id, sc->vcpus[id].line);
	if (sim_parse_path(p, tok[2], sc->vcpus[id].path))
		return -EINVAL;
	sc->vcpus[id].seed = id + 1;
	sc->vcpus[id].line = p->line;
	return parse_pattern(p, tok + 3, n - 3, &sc->vcpus[id]);
}

static int parse_at(struct parser *p, char **tok, int n)
{
	struct sim_scenario *sc = p->sc;
	struct sim_event *ev;
	unsigned long id;
	int ret;

	if (n < 4)
		return perr(p, "usage: at TIME move|weight|nice|max|burst|idle ...");
	ev = grow(sc->events, sc->nr_events, sizeof(*ev));
	if (!ev)
		return -ENOMEM;
	sc->events = ev;
	ev = &sc->events[sc->nr_events];
	memset(ev, 0, sizeof(*ev));
	ev->line = p->line;
	ret = sim_parse_time(tok[1], &ev->at);
	if (ret)
		return sim_time_err(p, ret, tok[1]);
	if (!strcmp(tok[2], "move")) {
		if (n != 5 || sim_parse_ulong(tok[3], &id))
			return perr(p, "usage: at TIME move VCPU PATH");
		ev->type = SIM_EV_MOVE;
		ev->vcpu = (unsigned int)id;
		if (sim_parse_path(p, tok[4], ev->path))
			return -EINVAL;
	} else {
		static const char *const kinds[] = { "weight", "nice", "max", "burst", "idle" };
		char *set[SIM_MAX_TOKENS];
		int i, m = 0;
		size_t k;

		/* Named before the path: "at 1ms frob /" said "'frob' needs a value". */
		for (k = 0; k < ARRAY_SIZE(kinds) && strcmp(tok[2], kinds[k]); k++)
			;
		if (k == ARRAY_SIZE(kinds))
			return perr(p, "unknown event '%s' (move, weight, nice, max, burst, idle)",
				    SIM_WORD(tok[2]));
		ev->type = SIM_EV_SET;
		if (sim_parse_path(p, tok[3], ev->path))
			return -EINVAL;
		set[m++] = tok[2];
		for (i = 4; i < n; i++)
			set[m++] = tok[i];
		if (sim_parse_settings(p, set, m, &ev->set))
			return -EINVAL;
	}
	sc->nr_events++;
	return 0;
}

static int parse_line(struct parser *p, char *line)
{
	struct sim_scenario *sc = p->sc;
	char *tok[SIM_MAX_TOKENS], *save = NULL, *t;
	uint64_t ns;
	size_t k;
	int n = 0, ret;

	*strchrnul(line, '#') = '\0';
	for (t = strtok_r(line, " \t\r", &save); t; t = strtok_r(NULL, " \t\r", &save)) {
		if (n == SIM_MAX_TOKENS)
			return perr(p, "too many words");
		tok[n++] = t;
	}
	if (!n)
		return 0;
	if (!strcmp(tok[0], "group"))
		return parse_group(p, tok, n);
	if (!strcmp(tok[0], "vcpu"))
		return parse_vcpu(p, tok, n);
	if (!strcmp(tok[0], "at"))
		return parse_at(p, tok, n);
	for (k = 0; k < ARRAY_SIZE(keywords) && strcmp(tok[0], keywords[k]); k++)
		;
	if (k == ARRAY_SIZE(keywords))
		return perr(p, "unknown keyword '%s'", SIM_WORD(tok[0]));
	if (n != 2)
		return perr(p, "'%s' takes one value", tok[0]);
	if (p->keyword_line[k])
		return perr(p, "'%s' already given at line %u", tok[0], p->keyword_line[k]);
	p->keyword_line[k] = p->line;
	if (!strcmp(tok[0], "lanes")) {
		unsigned long v;

		if (sim_parse_ulong(tok[1], &v) || !v || v > 1024)
			return perr(p, "lanes is a whole number, 1 to 1024");
		sc->lanes = (unsigned int)v;
		return 0;
	}
	if (!strcmp(tok[0], "deliver")) {
		unsigned long v;
		char *pct = strchr(tok[1], '%');

		if (pct && pct[1])
			return perr(p, "deliver takes a percentage, as 60%%");
		if (pct)
			*pct = '\0';
		if (sim_parse_ulong(tok[1], &v) || !v || v > 100)
			return perr(p, "deliver is a whole percentage, 1%% to 100%%");
		sc->deliver_pct = (unsigned int)v;
		return 0;
	}
	ret = sim_parse_time(tok[1], &ns);
	if (ret)
		return sim_time_err(p, ret, tok[1]);
	if (!strcmp(tok[0], "duration")) {
		if (!ns)
			return perr(p, "duration must be > 0");
		sc->duration = ns;
	} else if (!strcmp(tok[0], "slice")) {
		sc->params.slice_ns = ns;
		sc->has_params = true;
		sc->params_line = p->line;
	} else if (!strcmp(tok[0], "min_run")) {
		sc->params.min_run_ns = ns;
		sc->has_params = true;
		sc->params_line = p->line;
	} else {
		sc->params.lag_ns = ns;
		sc->has_params = true;
		sc->params_line = p->line;
	}
	return 0;
}

static int event_cmp(const void *a, const void *b)
{
	const struct sim_event *x = a, *y = b;

	if (x->at != y->at)
		return x->at < y->at ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

int sim_parse(const char *text, struct sim_scenario **out, struct diag *d)
{
	struct parser p = { .diag = d };
	char *copy = strdup(text), *line, *save = NULL;
	struct sim_scenario *sc;
	int ret = 0;

	sc = calloc(1, sizeof(*sc));
	if (!copy || !sc) {
		free(copy);
		free(sc);
		return -ENOMEM;
	}
	p.sc = sc;
	sc->lanes = 1;
	sc->deliver_pct = 100;
	sc->duration = 1000000000ULL;
	sc->params.slice_ns = SCHED_SLICE_DFL_NS;
	sc->params.min_run_ns = SCHED_MIN_RUN_DFL_NS;
	sc->params.lag_ns = 2 * SCHED_SLICE_DFL_NS;
	/* strsep keeps empty lines, so line numbers stay right. */
	save = copy;
	while (!ret && (line = strsep(&save, "\n"))) {
		const char *c;

		p.line++;
		for (c = line; *c; c++)
			if (((unsigned char)*c < 0x20 && *c != '\t' && *c != '\r') || *c == 0x7f)
				break;
		if (*c)
			ret = perr(&p, "control character 0x%02x: not a scenario",
				   (unsigned char)*c);
		else
			ret = parse_line(&p, line);
	}
	free(copy);
	if (!ret) {
		/* The empty piece after a final newline is no line: "lanes 2\n" has one. */
		if (p.line > 1 && text[strlen(text) - 1] == '\n')
			p.line--;
		ret = sim_check(sc, p.line, d);
	}
	if (ret) {
		sim_scenario_free(sc);
		return ret;
	}
	if (sc->nr_events)
		qsort(sc->events, sc->nr_events, sizeof(*sc->events), event_cmp);
	*out = sc;
	return 0;
}

void sim_scenario_free(struct sim_scenario *sc)
{
	if (!sc)
		return;
	free(sc->groups);
	free(sc->vcpus);
	free(sc->events);
	free(sc);
}
