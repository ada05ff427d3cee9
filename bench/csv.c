// SPDX-License-Identifier: GPL-2.0
/* bench-fair's CSV files for the plots (csv.h). */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>

#include "csv.h"

static FILE *csv_open(const char *dir, const char *name, const char *side)
{
	char path[PATH_MAX];

	if (side)
		snprintf(path, sizeof(path), "%s/%s.%s.csv", dir, name, side);
	else
		snprintf(path, sizeof(path), "%s/%s.csv", dir, name);
	return fopen(path, "we");
}

int csv_write_shares(const char *dir, const struct scenario *s, const char *side,
		     const struct bench_result *r, const double *given)
{
	unsigned int g, j, ng = scn_nr_groups(s);
	uint64_t prev[SCN_MAX_GROUPS] = { 0 };
	double step_ns = r->seconds * 1e9 / RESULT_STEPS;
	FILE *f = csv_open(dir, s->name, side);

	if (!f)
		return -errno;
	fprintf(f, "t_s");
	for (g = 0; g < ng; g++)
		fprintf(f, ",%s", s->groups[g].path);
	for (g = 0; g < ng; g++)
		fprintf(f, ",ideal %s", s->groups[g].path);
	fprintf(f, "\n");
	/* Step j's share: what the group got between readings j-1 and j, of P lanes' time. */
	for (j = 1; j <= RESULT_STEPS; j++) {
		uint64_t gns[SCN_MAX_GROUPS] = { 0 };

		result_groups(s, r->step_ns[j], gns);
		fprintf(f, "%.3f", r->seconds * j / RESULT_STEPS);
		for (g = 0; g < ng; g++)
			fprintf(f, ",%.3f", 100.0 * (double)(gns[g] - prev[g]) / (step_ns * r->lanes));
		for (g = 0; g < ng; g++)
			fprintf(f, ",%.3f", given[g]);
		fprintf(f, "\n");
		for (g = 0; g < ng; g++)
			prev[g] = gns[g];
	}
	return fclose(f) ? -errno : 0;
}

int csv_write_summary(const char *dir, const struct csv_summary *sum)
{
	FILE *f = csv_open(dir, "summary", NULL);
	unsigned int i, k;

	if (!f)
		return -errno;
	fprintf(f, "scenario");
	for (k = 0; k < sum->nr_sides; k++)
		fprintf(f, ",%s", sum->sides[k]);
	fprintf(f, "\n");
	for (i = 0; i < sum->nr_rows; i++) {
		fprintf(f, "%s", sum->scenario[i]);
		for (k = 0; k < sum->nr_sides; k++)
			fprintf(f, ",%.3f", sum->err[i][k]);
		fprintf(f, "\n");
	}
	return fclose(f) ? -errno : 0;
}
