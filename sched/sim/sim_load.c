// SPDX-License-Identifier: GPL-2.0
/*
 * Scenario files as a whole: reading one (text of bounded size, nothing binary) and what only
 * the whole file shows. Lines are parsed in sim_parse.c; the format is in include/sched/sim.h.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "sim_types.h"
#include "util/compiler.h"

#define SIM_FILE_MAX	(1U << 20)	/* bytes of a scenario file */

static __printf(3, 4) int cerr(struct diag *d, unsigned int line, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = diag_vat(d, -EINVAL, (int)line, NULL, NULL, fmt, ap);
	va_end(ap);
	return ret;
}

/* The group declared with path, or NULL ("/" is the root, never declared). */
const struct sim_group_cfg *sim_find_group(const struct sim_scenario *sc, const char *path)
{
	unsigned int i;

	for (i = 0; i < sc->nr_groups; i++)
		if (!strcmp(sc->groups[i].path, path))
			return &sc->groups[i];
	return NULL;
}

static bool known(const struct sim_scenario *sc, const char *path)
{
	return !strcmp(path, "/") || sim_find_group(sc, path);
}

/*
 * What a run records grows with the scenario, not with the file: the delay of every wake (8 bytes)
 * and every capped group's usage each period (8 bytes). "vcpu 0 / duty 1ns 1ns" (1e9 wakes in
 * 1 s) took 6 GB before it was stopped. Counted from above, a file that could record more is
 * refused at the line that crosses the bound: about 0.5 GB, and minutes of simulation. The
 * generator's largest shapes (256 vCPUs of 0.1 ms gaps for 10 s) record at most 26 M.
 */
#define SIM_SAMPLES_MAX	(1ULL << 26)

/* The wakes of vCPU v over the run, from above (a bursty gap is at least half its mean). */
static uint64_t vcpu_wakes(const struct sim_scenario *sc, const struct sim_vcpu_cfg *v)
{
	uint64_t gap;

	switch (v->kind) {
	case SIM_DUTY:
		gap = v->period;
		break;
	case SIM_BURSTY:
		gap = v->period / 2;
		break;
	case SIM_SLEEP:
		gap = v->busy + v->period;
		break;
	default:
		return 1;
	}
	return sc->duration / (gap ? gap : 1) + 1;
}

/* The periods sampled of group g over the run: at its shortest period if it is ever capped. */
static uint64_t group_periods(const struct sim_scenario *sc, const struct sim_group_cfg *g)
{
	uint64_t period = g->set.has_period ? g->set.period_us : 100000;
	bool capped = g->set.has_max;
	unsigned int i;

	for (i = 0; i < sc->nr_events; i++) {
		const struct sim_event *ev = &sc->events[i];

		if (ev->type != SIM_EV_SET || !ev->set.has_max || strcmp(ev->path, g->path))
			continue;
		capped = true;
		if (ev->set.has_period && ev->set.period_us < period)
			period = ev->set.period_us;
	}
	/* A period under 1 ms is the tree's to refuse, with its own message. */
	return capped ? sc->duration / ((period > 1000 ? period : 1000) * 1000) + 1 : 0;
}

static int check_samples(const struct sim_scenario *sc, struct diag *d)
{
	uint64_t n = 0;
	unsigned int i;

	for (i = 0; i < sc->nr_vcpus; i++) {
		n += vcpu_wakes(sc, &sc->vcpus[i]);
		if (n > SIM_SAMPLES_MAX)
			return cerr(d, sc->vcpus[i].line, "vcpu %u: %llu wakes and periods in %.9g s "
				    "so far, above the %llu a run records (make its period longer or "
				    "the duration shorter)", i, (unsigned long long)n,
				    (double)sc->duration / 1e9, SIM_SAMPLES_MAX);
	}
	for (i = 0; i < sc->nr_groups; i++) {
		n += group_periods(sc, &sc->groups[i]);
		if (n > SIM_SAMPLES_MAX)
			return cerr(d, sc->groups[i].line, "group %s: %llu wakes and periods in "
				    "%.9g s so far, above the %llu a run records (make its period "
				    "longer or the duration shorter)", SIM_WORD(sc->groups[i].path),
				    (unsigned long long)n, (double)sc->duration / 1e9,
				    SIM_SAMPLES_MAX);
	}
	return 0;
}

/*
 * What only the whole file shows, each refusal at the line it concerns: a file without vCPUs
 * is not a scenario; vCPU ids run from 0 without gaps (a gap made a vCPU nobody declared); every
 * group named is declared; events happen before the end and move vCPUs that exist.
 */
int sim_check(const struct sim_scenario *sc, unsigned int nr_lines, struct diag *d)
{
	unsigned int i, last;

	if (!sc->nr_vcpus)
		return cerr(d, nr_lines, "no vcpu line: not a scenario");
	last = sc->vcpus[sc->nr_vcpus - 1].line;
	for (i = 0; i < sc->nr_vcpus; i++) {
		const struct sim_vcpu_cfg *v = &sc->vcpus[i];

		if (!v->line)
			return cerr(d, last, "vcpu %u is missing: ids run from 0, no gaps", i);
		if (!known(sc, v->path))
			return cerr(d, v->line, "group %s is not defined", SIM_WORD(v->path));
	}
	for (i = 0; i < sc->nr_events; i++) {
		const struct sim_event *ev = &sc->events[i];

		if (ev->at >= sc->duration)
			return cerr(d, ev->line,
				    "event at %.9g s is not before the end (duration %.9g s)",
				    (double)ev->at / 1e9, (double)sc->duration / 1e9);
		if (ev->type == SIM_EV_MOVE && ev->vcpu >= sc->nr_vcpus)
			return cerr(d, ev->line, "vcpu %u does not exist", ev->vcpu);
		if (!known(sc, ev->path))
			return cerr(d, ev->line, "group %s is not defined", SIM_WORD(ev->path));
		if (ev->type == SIM_EV_SET && !strcmp(ev->path, "/"))
			return cerr(d, ev->line, "the root group takes no settings here");
	}
	return check_samples(sc, d);
}

/* Line of offset off in text (1-based). */
static unsigned int line_of(const char *text, size_t off)
{
	unsigned int line = 1;
	size_t i;

	for (i = 0; i < off; i++)
		line += text[i] == '\n';
	return line;
}

/*
 * Reads a scenario file: at most SIM_FILE_MAX bytes of text. A NUL byte, a control character or
 * more than that is no scenario (`vsched sim /dev/zero` read 480 MB, and input after a NUL byte
 * was silently dropped). err gets "line N: what" or the errno's text; the caller names the file.
 */
int sim_load(const char *path, struct sim_scenario **out, struct diag *d)
{
	FILE *f = fopen(path, "r");
	size_t len = 0, n;
	char *text;
	int ret;

	if (!f) {
		ret = -errno;
		return diag_set(d, ret, "%s", strerror(-ret));
	}
	text = malloc(SIM_FILE_MAX + 2);
	if (!text) {
		fclose(f);
		return -ENOMEM;
	}
	while (len <= SIM_FILE_MAX && (n = fread(text + len, 1, SIM_FILE_MAX + 1 - len, f)) > 0)
		len += n;
	ret = ferror(f) ? (errno ? -errno : -EIO) : 0;
	fclose(f);
	if (ret) {
		diag_set(d, ret, "%s", strerror(-ret));
	} else if (len > SIM_FILE_MAX) {
		cerr(d, line_of(text, SIM_FILE_MAX), "longer than %u bytes: not a scenario",
		     SIM_FILE_MAX);
		ret = -EFBIG;
	}
	if (ret) {
		free(text);
		return ret;
	}
	text[len] = '\0';
	n = strlen(text);
	if (n < len)
		ret = cerr(d, line_of(text, n), "a NUL byte: not a scenario");
	else
		ret = sim_parse(text, out, d);
	free(text);
	return ret;
}

